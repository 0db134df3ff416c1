# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::StackRecorder: a Recorder with the surface of the StackRecorder
# in Datadog's Ruby profiler (its 1.12 releases), kept as it was for the
# hosts written against it. New code uses Stackrec::Recorder.
#
#   recorder = Stackrec::StackRecorder.new(cpu_time_enabled: true, alloc_samples_enabled: false)
#   recorder.record_sample(
#     [["Users#show", "app/controllers/users_controller.rb", 12], ["<main>", "config.ru", 1]],
#     {"cpu-time" => 10_000_000, "cpu-samples" => 1, "wall-time" => 10_000_000},
#     {"thread id" => 7, "local root span id" => 1234},
#   )
#   recorder.record_endpoint(1234, "GET /users/:id")
#   status, result = recorder.serialize
#   start_time, finish_time, pprof = result if status == :ok
#
# - The sample types are SAMPLE_TYPES, in that order: cpu-time, cpu-samples,
#   wall-time, alloc-samples. A disabled one is left out of the pprof;
#   samples may still pass a value for it (it is ignored).
# - record_sample(frames, values, labels = {}): frames leaf first, each
#   [name, filename, line] or a Thread::Backtrace::Location (so
#   `thread.backtrace_locations` can be passed as is); values a Hash of
#   sample type name (String or Symbol) => Integer, missing ones are 0;
#   labels a Hash of String => String (a string label) or Integer (a numeric
#   one). Identical samples are summed.
# - serialize returns [:ok, [start_time, finish_time, pprof]]: the gzip'd
#   pprof (a binary String) of everything recorded since the previous
#   serialize (or new, or reset_after_fork), and the Times (UTC) that
#   interval started and ended; consecutive profiles tile time. Or
#   [:error, message], e.g. when another thread is serializing. It releases
#   the GVL while it encodes, so other threads, recording ones included,
#   run meanwhile.
# - record_sample and record_endpoint may be called from any thread, also
#   while another one serializes. Bad arguments raise TypeError or
#   ArgumentError and record nothing.
# - reset_after_fork: call it in a fork child before using the recorder
#   there; the child's recorder is then empty and its interval starts anew.
# - stats: the recorder's counters, e.g. stats[:samples_recorded].
module Stackrec
  class StackRecorder
    # [[type, unit], ...] in the order pprof's sample_type lists them.
    SAMPLE_TYPES = [
      ["cpu-time", "nanoseconds"], ["cpu-samples", "count"],
      ["wall-time", "nanoseconds"], ["alloc-samples", "count"],
    ].map { |pair| pair.map(&:freeze).freeze }.freeze

    def initialize(cpu_time_enabled: true, alloc_samples_enabled: true)
      {cpu_time_enabled: cpu_time_enabled, alloc_samples_enabled: alloc_samples_enabled}.each do |name, value|
        raise TypeError, "#{name}: must be true or false, got #{value.inspect}" unless value == true || value == false
      end
      disabled = []
      disabled << "cpu-time" unless cpu_time_enabled
      disabled << "alloc-samples" unless alloc_samples_enabled
      _native_initialize(sample_types: SAMPLE_TYPES, disabled: disabled)
    end

    def serialize
      encoded = _serialize(nil)
      [:ok, [encoded.start, encoded.finish, encoded.data]]
    rescue Stackrec::Error => e
      raise unless e.status # not a library failure: a recorder never initialized

      [:error, e.message]
    end
  end
end
