# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::StackRecorder, end to end: every profile it returns is decoded
# (decoded_profile.rb) and checked against what was recorded.
#
#   ruby -I <ext dir> -I bindings/ruby/lib -I <dir of profile_pb.rb> \
#     bindings/ruby/test/stack_recorder_test.rb
#
# CTest runs it so (bindings/ruby/CMakeLists.txt).
require "minitest/autorun"
require "stackrec"
require_relative "decoded_profile"

class StackRecorderTest < Minitest::Test
  ALL_TYPES = [
    ["cpu-time", "nanoseconds"], ["cpu-samples", "count"],
    ["wall-time", "nanoseconds"], ["alloc-samples", "count"],
  ].freeze
  USERS_SHOW = [["Users#show", "app/controllers/users_controller.rb", 12], ["<main>", "config.ru", 1]].freeze

  def setup
    @recorder = Stackrec::StackRecorder.new
  end

  # The [start, finish, pprof] of a serialize that must succeed.
  def serialize(recorder = @recorder)
    status, result = recorder.serialize
    assert_equal :ok, status, "serialize failed: #{result}"
    result
  end

  def unix_ns(time)
    time.to_i * 1_000_000_000 + time.nsec
  end

  def test_serialize_returns_the_interval_and_the_gzipped_pprof
    @recorder.record_sample(
      USERS_SHOW,
      {"cpu-time" => 1_000, "cpu-samples" => 1, "wall-time" => 2_000, "alloc-samples" => 3},
      {"thread id" => 7, "thread name" => "puma 001"},
    )
    start, finish, pprof = serialize

    assert_kind_of Time, start
    assert_kind_of Time, finish
    assert_operator start, :<=, finish
    assert_equal Encoding::BINARY, pprof.encoding
    assert_equal "\x1f\x8b".b, pprof[0, 2], "gzip"

    profile = DecodedProfile.new(pprof)
    assert_equal ALL_TYPES, profile.sample_types
    assert_equal Stackrec::StackRecorder::SAMPLE_TYPES, profile.sample_types
    assert_equal 1, profile.samples.size
    sample = profile.samples.first
    assert_equal USERS_SHOW, sample.frames
    assert_equal({"cpu-time" => 1_000, "cpu-samples" => 1, "wall-time" => 2_000, "alloc-samples" => 3},
                 sample.values)
    assert_equal({"thread id" => 7, "thread name" => "puma 001"}, sample.labels)
    # The Times are the pprof's interval, to the nanosecond.
    assert_equal profile.time_nanos, unix_ns(start)
    assert_equal profile.time_nanos + profile.duration_nanos, unix_ns(finish)
  end

  def test_consecutive_profiles_tile_time_and_start_empty
    @recorder.record_sample(USERS_SHOW, {"wall-time" => 1})
    _, first_finish, = serialize
    second_start, _, second = serialize
    assert_equal first_finish, second_start
    assert_empty DecodedProfile.new(second).samples
  end

  def test_disabled_sample_types_are_left_out
    recorder = Stackrec::StackRecorder.new(cpu_time_enabled: false, alloc_samples_enabled: false)
    # Samplers keep passing every value; the disabled ones are ignored.
    recorder.record_sample(USERS_SHOW, {"cpu-time" => 5, "cpu-samples" => 1, "wall-time" => 9, "alloc-samples" => 4})
    profile = DecodedProfile.new(serialize(recorder)[2])
    assert_equal [["cpu-samples", "count"], ["wall-time", "nanoseconds"]], profile.sample_types
    assert_equal [{"cpu-samples" => 1, "wall-time" => 9}], profile.samples.map(&:values)
  end

  def test_identical_samples_are_summed
    3.times { @recorder.record_sample(USERS_SHOW, {"cpu-samples": 1, "wall-time": 10}, {"thread id" => 1}) }
    @recorder.record_sample(USERS_SHOW, {"cpu-samples": 1, "wall-time": 10}, {"thread id" => 2})
    samples = DecodedProfile.new(serialize[2]).samples.sort_by { |s| s.labels["thread id"] }
    assert_equal [3, 1], samples.map { |s| s.values["cpu-samples"] }
    assert_equal [30, 10], samples.map { |s| s.values["wall-time"] }
    assert_equal [0, 0], samples.map { |s| s.values["cpu-time"] }, "values not given are 0"
  end

  def test_record_endpoint_labels_the_span_samples
    @recorder.record_sample(USERS_SHOW, {"wall-time" => 1}, {"local root span id" => 1234})
    @recorder.record_sample([["Jobs#perform", "app/jobs.rb", 3]], {"wall-time" => 1}, {"local root span id" => 99})
    @recorder.record_endpoint(1234, "GET /users/:id")
    samples = DecodedProfile.new(serialize[2]).samples
    by_leaf = samples.to_h { |s| [s.frames.first.first, s.labels] }
    assert_equal "GET /users/:id", by_leaf["Users#show"]["trace endpoint"]
    refute by_leaf["Jobs#perform"].key?("trace endpoint")
  end

  def test_backtrace_locations_are_frames
    locations = caller_locations(0)
    @recorder.record_sample(locations, {"cpu-samples" => 1})
    frames = DecodedProfile.new(serialize[2]).samples.first.frames
    assert_equal locations.map { |l| [l.label, l.path, l.lineno] }, frames
    assert_equal "test_backtrace_locations_are_frames", frames.first.first
  end

  def test_threads_record_while_another_serializes
    thread_count = 4
    records_per_thread = 3_000
    expected = Hash.new(0)
    expected_lock = Mutex.new
    recording = true
    profiles = []

    serializer = Thread.new do
      while recording
        profiles << serialize
        sleep 0.001
      end
    end
    recorders = Array.new(thread_count) do |t|
      Thread.new do
        sums = Hash.new(0)
        records_per_thread.times do |i|
          values = {"cpu-time" => 1_000 + i, "cpu-samples" => 1, "wall-time" => 2 * i, "alloc-samples" => t}
          stack = [["leaf_#{i % 17}", "work.rb", i % 5], ["worker_#{t}", "work.rb", 100], ["<main>", "main.rb", 1]]
          @recorder.record_sample(stack, values, {"thread id" => t})
          values.each { |type, value| sums[type] += value }
          Thread.pass if i % 100 == 0 # let the serializer in
        end
        expected_lock.synchronize { sums.each { |type, sum| expected[type] += sum } }
      end
    end
    recorders.each(&:join)
    recording = false
    serializer.join
    profiles << serialize # what came after the serializer's last flip

    decoded = profiles.map { |_, _, pprof| DecodedProfile.new(pprof) }
    totals = decoded.map(&:totals).reduce(Hash.new(0)) { |sum, t| sum.merge(t) { |_, a, b| a + b } }
    assert_equal expected, totals
    assert_equal thread_count * records_per_thread, totals["cpu-samples"]
    per_thread = Hash.new(0)
    decoded.flat_map(&:samples).each { |s| per_thread[s.labels["thread id"]] += s.values["cpu-samples"] }
    assert_equal((0...thread_count).to_h { |t| [t, records_per_thread] }, per_thread)
    # One profile ends where the next starts.
    profiles.each_cons(2) { |(_, finish, _), (start, _, _)| assert_equal finish, start }
    assert_equal thread_count * records_per_thread, @recorder.stats[:samples_recorded]
  end

  def test_serialize_releases_the_gvl_while_encoding
    # Another thread runs while #serialize encodes only if the scheduler
    # gives it the core in that window; on a loaded machine an encode can
    # end before it does. So each round records enough distinct stacks
    # that encoding takes a while, and the rounds go on until one is seen.
    seen_encoding = 0
    counted = 0
    rounds = 0
    while seen_encoding.zero? && rounds < 20
      rounds += 1
      5_000.times { |i| @recorder.record_sample([["f#{i}", "big.rb", i]], {"cpu-samples" => 1}) }
      serializer = Thread.new { serialize }
      while serializer.alive?
        # A thread inside rb_thread_call_without_gvl reports "sleep"; it
        # never sleeps otherwise. That this thread runs at all then is the
        # point.
        if serializer.status == "sleep"
          seen_encoding += 1
          @recorder.record_sample([["meanwhile", "main.rb", 1]], {"cpu-samples" => 1})
        end
        Thread.pass
      end
      counted += DecodedProfile.new(serializer.value[2]).totals["cpu-samples"]
    end
    # Had #serialize held the GVL, this thread could not have run while it
    # encoded, and would never have seen it "sleep".
    assert_operator seen_encoding, :>, 0
    # What was recorded meanwhile went into the profile being filled (if it
    # came before the flip) or the next one: nothing is lost.
    counted += DecodedProfile.new(serialize[2]).totals["cpu-samples"]
    assert_equal 5_000 * rounds + seen_encoding, counted
  end

  # Runs the block in a fork child and returns what it returned (Marshal'd
  # through a pipe), or raises what it raised. A hung child fails the test.
  def in_fork_child
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      result = begin
        [:ok, yield]
      rescue Exception => e # rubocop:disable Lint/RescueException
        [:raised, "#{e.class}: #{e.message}\n#{e.backtrace&.first(5)&.join("\n")}"]
      end
      writer.write(Marshal.dump(result))
      writer.close
      exit!(0)
    end
    writer.close
    unless IO.select([reader], nil, nil, 60)
      Process.kill(:KILL, pid)
      Process.wait(pid)
      flunk "the fork child hung"
    end
    status, value = Marshal.load(reader.read)
    reader.close
    Process.wait(pid)
    assert_equal :ok, status, value
    value
  end

  def child_records_after_reset
    @recorder.reset_after_fork
    @recorder.record_sample([["child_only", "child.rb", 1]], {"cpu-samples" => 5})
    status, (_, _, pprof) = @recorder.serialize
    raise "serialize in the child: #{status}" unless status == :ok

    profile = DecodedProfile.new(pprof)
    [profile.samples.flat_map { |s| s.frames.map(&:first) }, profile.totals["cpu-samples"]]
  end

  def test_fork_child_records_after_reset_after_fork
    skip "no fork on this platform" unless Process.respond_to?(:fork)
    @recorder.record_sample([["parent_only", "parent.rb", 1]], {"cpu-samples" => 1})

    assert_equal [["child_only"], 5], in_fork_child { child_records_after_reset }

    # The parent's recorder is untouched by the child.
    profile = DecodedProfile.new(serialize[2])
    assert_equal [["parent_only"]], profile.samples.map { |s| s.frames.map(&:first) }
  end

  def test_fork_while_another_thread_serializes
    skip "no fork on this platform" unless Process.respond_to?(:fork)
    # GCC 12's ASan allocator is not fork-safe while another thread allocates
    # (the reason the asan preset leaves out the C++ fork test, too).
    skip "fork with a busy thread under ASan" if ENV["STACKREC_TEST_UNDER_ASAN"] == "1"
    2_000.times { |i| @recorder.record_sample([["f#{i}", "big.rb", i]], {"cpu-samples" => 1}) }
    serializing = true
    serializer = Thread.new do
      serialize while serializing
    end
    # Whatever the serializer was doing at the fork, the child's recorder
    # resets and works; the glue must not mistake the parent's in-flight
    # #serialize for one of the child's.
    5.times do
      assert_equal [["child_only"], 5], in_fork_child { child_records_after_reset }
    end
  ensure
    serializing = false
    serializer&.join
  end

  def test_reset_after_fork_refuses_while_this_process_serializes
    # Not a fork child: another thread of this process is serializing.
    20_000.times { |i| @recorder.record_sample([["f#{i}", "big.rb", i]], {"cpu-samples" => 1}) }
    serializer = Thread.new { serialize }
    Thread.pass until serializer.status == "sleep" || !serializer.alive?
    if serializer.alive?
      error = assert_raises(Stackrec::Error) { @recorder.reset_after_fork }
      assert_match(/call reset_after_fork in a fork child only/, error.message)
    end
    assert_equal 20_000, DecodedProfile.new(serializer.value[2]).totals["cpu-samples"]
  end

  def test_bad_arguments_raise_and_record_nothing
    r = @recorder
    cases = {
      -> { r.record_sample("main", {}) } => [TypeError, /frames must be an Array of \[name, filename, line\], got "main"/],
      -> { r.record_sample([["main"]], {}) } => [TypeError, /frames\[0\] must be \[name, filename, line\], got \["main"\]/],
      -> { r.record_sample([[:main, "a.rb", 1]], {}) } => [TypeError, /frames\[0\]: name and filename must be Strings/],
      -> { r.record_sample([["main", "a.rb", "12"]], {}) } => [TypeError, /frames\[0\]: line must be an Integer, got "12"/],
      -> { r.record_sample([["main", "a.rb", 2**64]], {}) } => [RangeError, /bignum too big/],
      -> { r.record_sample([], [1, 2]) } => [TypeError, /values must be a Hash/],
      -> { r.record_sample([], {"cpu" => 1}) } => [ArgumentError, /unknown sample type "cpu" \(known: cpu-time/],
      -> { r.record_sample([], {1 => 1}) } => [TypeError, /values: keys must be sample type names/],
      -> { r.record_sample([], {"cpu-time" => 1.5}) } => [TypeError, /values\["cpu-time"\] must be an Integer, got 1.5/],
      -> { r.record_sample([], {}, [["thread", 1]]) } => [TypeError, /labels must be a Hash/],
      -> { r.record_sample([], {}, {thread: 1}) } => [TypeError, /labels: keys must be Strings, got :thread/],
      -> { r.record_sample([], {}, {"thread" => nil}) } => [TypeError, /labels\["thread"\] must be a String or an Integer, got nil/],
      -> { r.record_sample([]) } => [ArgumentError, /wrong number of arguments/],
      # Refused by stackrec itself, with its message.
      -> { r.record_sample([["\xff".b, "a.rb", 1]], {}) } => [ArgumentError, /record_sample: .*UTF-8/],
      -> { r.record_sample([], {}, {"" => 1}) } => [ArgumentError, /record_sample: .*key/],
      -> { r.record_endpoint("1", "GET /") } => [TypeError, /local_root_span_id must be an Integer, got "1"/],
      -> { r.record_endpoint(-1, "GET /") } => [ArgumentError, /local_root_span_id must be in 1\.\.2\*\*64-1, got -1/],
      -> { r.record_endpoint(2**64, "GET /") } => [RangeError, /bignum out of range|too big/],
      -> { r.record_endpoint(1, :get) } => [TypeError, /endpoint must be a String, got :get/],
      -> { r.record_endpoint(0, "GET /") } => [ArgumentError, /record_endpoint: /],
      -> { r.record_endpoint(1, "") } => [ArgumentError, /record_endpoint: /],
      -> { Stackrec::StackRecorder.new(cpu_time_enabled: "yes") } => [TypeError, /cpu_time_enabled: must be true or false, got "yes"/],
      -> { Stackrec::StackRecorder.new(heap_samples_enabled: true) } => [ArgumentError, /unknown keyword: :heap_samples_enabled/],
      -> { Stackrec::StackRecorder.allocate.serialize } => [Stackrec::Error, /not initialized/],
      -> { r.send(:initialize) } => [Stackrec::Error, /initialized already/],
      -> { r.dup } => [TypeError, /cannot be copied/],
    }
    cases.each do |call, (error_class, message)|
      error = assert_raises(error_class, message.inspect) { call.call }
      assert_match message, error.message
    end

    # Nothing of the above was recorded, and the recorder works on.
    @recorder.record_sample(USERS_SHOW, {"cpu-samples" => 1})
    profile = DecodedProfile.new(serialize[2])
    assert_equal [USERS_SHOW], profile.samples.map(&:frames)
    assert_equal 1, @recorder.stats[:samples_recorded]
  end

  # Nested C calls (Array#each), so that the C stack is `depth` frames of
  # Ruby's own deeper than here.
  def at_c_depth(depth, &block)
    depth.zero? ? block.call : [0].each { at_c_depth(depth - 1, &block) }
  end

  # Ruby raises by longjmp, past the extension's frames. Under ASan (the
  # asan preset), an extension built with stack redzones left them
  # poisoned, and a later Ruby frame at that depth that handed a local to
  # an intercepted call (Time.now's timespec, to clock_gettime) crashed
  # ASan itself ("CHECK failed: asan_thread.cpp:371"), as this test did
  # then; bindings/ruby/CMakeLists.txt now builds the extension without
  # them. Elsewhere this is an ordinary round trip.
  def test_raises_through_the_extension_leave_the_stack_clean
    raised = 0
    60.times do |depth|
      at_c_depth(depth) do
        begin
          @recorder.record_sample([["main", "a.rb", 1]], {"cpu-time" => 2**64})
        rescue RangeError
          raised += 1
        end
        begin
          @recorder.record_sample([["main", "a.rb", 2**64]], {"cpu-time" => 1})
        rescue RangeError
          raised += 1
        end
      end
      60.times { |d| at_c_depth(d) { Time.now } }
    end
    assert_equal 120, raised
    @recorder.record_sample(USERS_SHOW, {"cpu-samples" => 1})
    assert_equal [[USERS_SHOW, 1]],
                 DecodedProfile.new(serialize[2]).samples.map { |s| [s.frames, s.values["cpu-samples"]] }
  end

  def test_the_loaded_library_is_the_expected_version
    expected = ENV["STACKREC_EXPECTED_VERSION_NUMBER"]
    skip "STACKREC_EXPECTED_VERSION_NUMBER is not set" unless expected
    assert_equal Integer(expected), Stackrec::LIBRARY_VERSION_NUMBER
  end
end
