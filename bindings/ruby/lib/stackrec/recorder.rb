# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::Recorder and Stackrec::Profile: every call of the C API, as Ruby.
# The methods are the native half's; this file documents them and adds
# #serialize and #serialize!, which share one native serialization.
#
#   recorder = Stackrec::Recorder.new(
#     sample_types: {"cpu-samples" => "count", "wall-time" => "nanoseconds"},
#   )
#   recorder.record([["Users#show", "app/users.rb", 12]], {"cpu-samples": 1, "wall-time": 10_000_000},
#                   labels: {"thread id" => 7})
#   start, finish, pprof, stats = recorder.serialize
#
# Creating (both classes):
#   new(sample_types:, disabled: [] or enabled: nil, period_type: nil, period: 0,
#       max_frames: 0, max_memory_bytes: 0, max_output_bytes: 0,
#       default_sample_type: nil, comments: [], drop_frames: nil,
#       keep_frames: nil)
#   and, Recorder only, live_heap_types: [] and max_tracked_objects: 0.
#   sample_types is a Hash {name => unit} or an Array of [name, unit], in
#   the order pprof lists them; names are Strings or Symbols. `disabled`
#   names types to leave out of the output: samples go on passing values
#   for them, so enabling one changes no record call. `enabled` says the
#   same the other way round: the names of the types to keep, or
#   {name => true or false}. 0 or nil leaves an
#   option at the library's default (docs/limits.md).
#
# Recording (Recorder: any thread, also while another serializes):
#   record(frames, values, labels: {}, timestamp: nil)     Profile#add
#     frames, leaf first: [name, filename, line] Arrays,
#       Thread::Backtrace::Location (caller_locations as is), or Hashes of
#       every location field: {name:, system_name:, filename:, start_line:,
#       line:, address:, inlined:, mapping: {memory_start:, memory_limit:,
#       file_offset:, filename:, build_id:}}.
#     values: {type name (String or Symbol) => Integer}, missing ones 0; or
#       an Array of one Integer per declared type.
#     labels: {"key" => String, or Integer, or [Integer, "unit"]}.
#     timestamp: a Time or Integer Unix nanoseconds; such a sample stays on
#       its own (end_timestamp_ns) instead of being summed.
#     link: [trace_id, span_id], the trace and span the sample ran under,
#       each a binary String (16 and 8 bytes) or an Integer; record_ids and
#       track take it too (docs/format.md#trace-links).
#   record_endpoint(local_root_span_id, endpoint)           Profile#set_endpoint
#   add_endpoint_count(endpoint, value = 1)
#   add_upscaling_rule(:proportional, values: [types], total_sampled:,
#                      total_real:, label: nil)
#   add_upscaling_rule(:poisson, values: [types], sum: type, count: type,
#                      sampling_distance:, label: nil)
#     label: {"key" => String or Integer} limits the rule to those samples.
#
# Recording by id (ids are Integers, valid until forget_ids):
#   intern_mapping(memory_start:, memory_limit:, file_offset:, filename:, build_id:)
#   intern_function(name:, system_name:, filename:, start_line:)
#   intern_location(function: id, mapping: id, address:, line:, inlined:)
#   intern_stack([location ids, leaf first])
#   intern_labels({"key" => value})
#   record_ids(values, stack: id, locations: [ids], labels: id or Hash,
#              timestamp: nil, link: nil)                    Profile#add_ids
#   forget_ids
#
# Live heap (Recorder with live_heap_types):
#   track(object_id, frames, values, labels: {}, link: nil), untrack(object_id)
#
# Serializing (one thread at a time; the GVL is released while encoding):
#   serialize(format: :pprof, compression: :gzip, level: 0,
#             service_name: nil, resource_attributes: {}, scope_name: nil,
#             scope_version: nil, part_max_bytes: 0,
#             part_max_uncompressed_bytes: 0, part_max_samples: 0,
#             max_parts: 0, compress_threads: 0, target: :any,
#             series_labels: [])
#     => a Stackrec::Encoded (encoded.rb), or nil when the library refuses
#        or fails; Stackrec.logger is told why. format :pprof or :otlp;
#        compression :gzip, :zstd or :none; target :any, or :pyroscope for
#        Pyroscope's names, with series_labels the String label keys it
#        makes series of (docs/exporting.md). A Recorder starts a new interval
#        (the samples recorded meanwhile go into the next one); a Profile
#        keeps what it has until #reset.
#   serialize!(**the same) => the bytes (a binary String), or raises.
#     With a budget (part_*), only max_parts: 1 is accepted, as more parts
#     are not one String: #serialize returns them all.
#
# The rest: Recorder#stats (a Hash of stackrec_stats), Recorder#reset_after_fork
# (in a fork child, before anything else), Profile#reset, sample_type_names.
module Stackrec
  # #serialize and #serialize! over a native #_serialize(options).
  module Serializing
    BUDGETS = %i[part_max_bytes part_max_uncompressed_bytes part_max_samples].freeze

    def serialize(**options)
      _serialize(options)
    rescue Stackrec::Error, Stackrec::InvalidArgument => e
      raise unless e.status # not a library failure: an object never initialized

      Stackrec.logger.warn("#{self.class.name}#serialize returned nil: #{e.message}")
      nil
    end

    def serialize!(**options)
      if options.fetch(:max_parts, 0) != 1 && BUDGETS.any? { |budget| options.fetch(budget, 0).to_i > 0 }
        raise ArgumentError, "serialize! returns one String, and a budget may split the output " \
                             "into parts: pass max_parts: 1, or use serialize and its #parts"
      end
      _serialize(options).data
    end
  end

  class Recorder
    include Serializing
  end

  class Profile
    include Serializing
  end
end
