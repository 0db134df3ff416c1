# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::HeapProfiler on a real program: heap_program.rb runs in a Ruby
# process of its own, with the profiler sampling every EVERY-th allocation,
# and its two profiles must attribute its objects to the methods that made
# them. The tolerance, stated once: an estimate (sampled objects times
# EVERY, as the profile's upscaling gives it) is within 5% of the true count
# plus 2 * EVERY; a heap that must be empty holds at most 2 * EVERY
# estimated objects.
#
#   ruby -I <dir of profile_pb.rb> test/heap_profiler_test.rb
#
# with the gem installed (GEM_HOME), or -I lib -I <extension dir>.
require "minitest/autorun"
require "objspace"
require "rbconfig"
require "tmpdir"
require "stackrec"
require_relative "decoded_profile"

class HeapProfilerTest < Minitest::Test
  EVERY = 97 # prime, so that no loop of the program beats in step with it
  PROGRAM = File.join(__dir__, "heap_program.rb")

  # {[method, class] => {"alloc-samples" => n, ...}}: each sample counted
  # for the innermost frame of the program's own methods on its stack.
  def by_method_and_class(profile)
    profile.samples.each_with_object(Hash.new { |h, k| h[k] = Hash.new(0) }) do |sample, sums|
      method = sample.frames.map(&:first).find { |name| name =~ /\AObject#(build_orders|drop_invoices|build_buffers)\z/ }
      next unless method

      sample.values.each { |type, value| sums[[method, sample.labels["allocation class"]]][type] += value }
    end
  end

  def assert_estimate(expected, actual, what)
    tolerance = expected * 0.05 + 2 * EVERY
    assert_in_delta expected, actual, tolerance, "#{what}: #{actual} estimated, #{expected} true"
  end

  # The directories `require "stackrec"` loaded the gem from, for the child.
  def load_path_of_stackrec
    %w[stackrec.rb stackrec_ruby.so].map do |file|
      File.dirname($LOADED_FEATURES.find { |feature| feature.end_with?("/#{file}") })
    end.uniq.flat_map { |dir| ["-I", dir] }
  end

  def run_program
    Dir.mktmpdir do |dir|
      first = File.join(dir, "first.pprof")
      second = File.join(dir, "second.pprof")
      output = IO.popen([RbConfig.ruby, *load_path_of_stackrec, PROGRAM, EVERY.to_s, first, second,
                         {err: [:child, :out]}], &:read)
      assert $?.success?, "heap_program.rb failed:\n#{output}"
      [DecodedProfile.new(File.binread(first)), DecodedProfile.new(File.binread(second))]
    end
  end

  def test_a_real_program_is_attributed_to_its_methods_and_freed_objects_leave
    first, second = run_program
    assert_equal Stackrec::HeapProfiler::SAMPLE_TYPES, first.sample_types

    one = by_method_and_class(first)
    assert_estimate 20_000, one[["Object#build_orders", "Order"]]["alloc-samples"], "Orders allocated"
    assert_estimate 30_000, one[["Object#drop_invoices", "Invoice"]]["alloc-samples"], "Invoices allocated"
    assert_estimate 5_000, one[["Object#build_buffers", "String"]]["alloc-samples"], "buffers allocated"

    # The live heap at the first serialization: Orders and buffers, no Invoice.
    assert_estimate 20_000, one[["Object#build_orders", "Order"]]["heap-live-samples"], "Orders live"
    assert_estimate 5_000, one[["Object#build_buffers", "String"]]["heap-live-samples"], "buffers live"
    assert_operator one[["Object#drop_invoices", "Invoice"]]["heap-live-samples"], :<=, 2 * EVERY,
                    "freed Invoices left the heap"
    order_bytes = ObjectSpace.memsize_of(Struct.new(:id).new(1)) # one slot, as an Order
    buffer_bytes = ObjectSpace.memsize_of("x" * 1024)
    assert_estimate 20_000 * order_bytes, one[["Object#build_orders", "Order"]]["heap-live-size"] / 1.0,
                    "Order bytes"
    assert_estimate 5_000 * buffer_bytes, one[["Object#build_buffers", "String"]]["heap-live-size"] / 1.0,
                    "buffer bytes"

    # The second: the Orders were freed; nothing of the program was allocated.
    two = by_method_and_class(second)
    assert_operator two[["Object#build_orders", "Order"]]["heap-live-samples"], :<=, 2 * EVERY,
                    "freed Orders left the heap"
    assert_estimate 5_000, two[["Object#build_buffers", "String"]]["heap-live-samples"], "buffers still live"
    assert_equal 0, two.values.sum { |values| values["alloc-samples"] }
  end

  # Allocation hooks and all, in this process: sampling and stopping.
  class Probe
  end

  def test_start_stop_and_stats
    profiler = Stackrec::HeapProfiler.new(every: 1)
    assert profiler.start
    refute profiler.start, "already running"
    probes = Array.new(100) { Probe.new }
    profiler.flush
    stats = profiler.stats
    assert_operator stats[:sampled], :>=, 100
    assert_operator stats[:live_objects], :>=, 100
    encoded = profiler.serialize
    live = DecodedProfile.new(encoded.data).samples.select { |s| s.labels["allocation class"] == "HeapProfilerTest::Probe" }
    assert_equal 100, live.sum { |s| s.values["heap-live-samples"] }
    assert profiler.stop
    assert_equal 0, profiler.stats[:objects_tracked], "stop untracks"
    # What was allocated since the last serialize stays; the heap is empty.
    after = DecodedProfile.new(profiler.serialize!).totals
    assert_equal [0, 0], [after["heap-live-samples"], after["heap-live-size"]]
    probes.clear
  end

  def test_bad_arguments
    assert_raises(ArgumentError) { Stackrec::HeapProfiler.new(every: 0) }
    assert_raises(TypeError) { Stackrec::HeapProfiler.new(every: "10") }
    assert_raises(ArgumentError) { Stackrec::HeapProfiler.new(max_frames: 1000) }
    assert_raises(TypeError) { Stackrec::HeapProfiler.new.dup }
  end
end
