# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::HeapProfiler: an allocation and heap profiler for Ruby code,
# built on a Recorder's live heap (ext/stackrec_ruby/heap_profiler.c says
# how it uses Ruby's allocation and free events).
#
#   profiler = Stackrec::HeapProfiler.new(every: 1000)
#   profiler.start
#   ... the program runs ...
#   start, finish, pprof, stats = profiler.serialize
#
# Every `every`-th object allocation is sampled (Ruby's VM-internal objects
# are not counted): its stack (up to max_frames, leaf first, C methods such
# as Class#new included) and its class, as the label "allocation class".
# Each profile then holds, per stack and class:
# - alloc-samples (count): allocations since the previous serialize;
# - heap-live-samples (count) and heap-live-size (bytes): the sampled
#   objects still alive when it was serialized, and their bytes.
# Every value is scaled by `every` (an upscaling rule), so each is an
# estimate of all objects, not only of the sampled ones. Bytes are
# ObjectSpace.memsize_of's: the object's slot plus the memory it holds
# outside it, measured at serialization.
#
# - start / stop: sampling on and off; stop untracks what was tracked (the
#   allocations recorded stay for the next serialize). One process may run
#   several, each paying for its own hooks.
# - serialize / serialize!: as Recorder's (recorder.rb), after recording
#   what was sampled and measuring the live objects again. Serializing
#   #recorder directly skips that.
# - reset_after_fork: in a fork child before anything else.
# - stats: the recorder's stats and the profiler's own counters (sampled,
#   dropped, freed_before_tracked, live_objects, ...).
# GC.compact moves objects without an event: do not call it while a
# HeapProfiler runs (start refuses while GC.auto_compact is on).
module Stackrec
  class HeapProfiler
    include Serializing

    SAMPLE_TYPES = [
      ["alloc-samples", "count"], ["heap-live-samples", "count"], ["heap-live-size", "bytes"],
    ].map { |pair| pair.map(&:freeze).freeze }.freeze
    LIVE_HEAP_TYPES = ["heap-live-samples", "heap-live-size"].freeze

    attr_reader :recorder, :every

    def self.start(**options)
      new(**options).tap(&:start)
    end

    def initialize(every: 1000, max_frames: 64, max_tracked_objects: 0)
      raise TypeError, "every must be an Integer, got #{every.inspect}" unless every.is_a?(Integer)

      @every = every
      @recorder = Recorder.new(sample_types: SAMPLE_TYPES, live_heap_types: LIVE_HEAP_TYPES,
                               max_frames: max_frames, max_tracked_objects: max_tracked_objects)
      if every > 1
        @recorder.add_upscaling_rule(:proportional, values: SAMPLE_TYPES.map(&:first),
                                                    total_sampled: 1, total_real: every)
      end
      _native_initialize(@recorder, every, max_frames)
    end

    def stats
      @recorder.stats.merge(_native_stats)
    end
  end
end
