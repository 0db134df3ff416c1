# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::Recorder and Stackrec::Profile: one test per capability of the
# C API, each decoding what it serialized (pprof with decoded_profile.rb,
# OTLP with the classes protoc generates from testkit/otlp) and checking it
# against what was recorded.
#
#   ruby -I <dir of profile_pb.rb and the OTLP *_pb.rb> test/recorder_test.rb
#
# with the gem installed (GEM_HOME) or -I lib -I <extension dir>; CTest
# runs it against the installed gem (bindings/ruby/CMakeLists.txt).
require "minitest/autorun"
require "stringio"
require "stackrec"
require_relative "decoded_profile"
require "opentelemetry/proto/collector/profiles/v1development/profiles_service_pb"

class RecorderTest < Minitest::Test
  TYPES = {"cpu-samples" => "count", "wall-time" => "nanoseconds", "alloc-space" => "bytes"}.freeze
  SHOW = [["Users#show", "app/users.rb", 12], ["<main>", "config.ru", 1]].freeze

  def setup
    @recorder = Stackrec::Recorder.new(sample_types: TYPES)
  end

  def decode(bytes)
    DecodedProfile.new(bytes)
  end

  def otlp(bytes)
    Opentelemetry::Proto::Collector::Profiles::V1development::ExportProfilesServiceRequest.decode(
      decompress_profile(bytes),
    )
  end

  def test_sample_types_are_declared_by_the_caller_as_a_hash_or_pairs
    recorder = Stackrec::Recorder.new(sample_types: [[:"cpu-samples", :count], ["heap", "bytes"]])
    recorder.record(SHOW, {"cpu-samples": 1, heap: 64})
    profile = decode(recorder.serialize!)
    assert_equal [["cpu-samples", "count"], ["heap", "bytes"]], profile.sample_types
    assert_equal [{"cpu-samples" => 1, "heap" => 64}], profile.samples.map(&:values)
    assert_equal ["cpu-samples", "heap"], recorder.sample_type_names
  end

  def test_disabled_types_leave_the_output_and_the_record_call_unchanged
    recorder = Stackrec::Recorder.new(sample_types: TYPES, disabled: [:"wall-time"])
    recorder.record(SHOW, {"cpu-samples" => 1, "wall-time" => 5, "alloc-space" => 7})
    recorder.record(SHOW, [1, 5, 7]) # an Array: one value per declared type
    profile = decode(recorder.serialize!)
    assert_equal [["cpu-samples", "count"], ["alloc-space", "bytes"]], profile.sample_types
    assert_equal [{"cpu-samples" => 2, "alloc-space" => 14}], profile.samples.map(&:values)
  end

  def test_enabled_names_the_types_to_keep_or_flags_each
    [{enabled: ["cpu-samples", :"alloc-space"]}, {enabled: {"wall-time" => false}}].each do |option|
      recorder = Stackrec::Recorder.new(sample_types: TYPES, **option)
      recorder.record(SHOW, {"cpu-samples" => 1, "wall-time" => 5, "alloc-space" => 7})
      assert_equal [["cpu-samples", "count"], ["alloc-space", "bytes"]],
                   decode(recorder.serialize!).sample_types, option.inspect
    end
    assert_raises(ArgumentError) { Stackrec::Recorder.new(sample_types: TYPES, enabled: [], disabled: []) }
  end

  def test_serialize_returns_the_utc_interval_the_bytes_and_the_stats
    @recorder.record(SHOW, {"cpu-samples" => 3})
    encoded = @recorder.serialize
    start, finish, bytes, stats = encoded
    assert start.utc? && finish.utc?, "Times in UTC"
    assert_operator start, :<=, finish
    assert_equal Encoding::BINARY, bytes.encoding
    assert_equal "\x1f\x8b".b, bytes[0, 2]
    assert_equal 1, stats[:samples_written]
    assert_equal bytes.bytesize, stats[:compressed_bytes]
    assert_equal :none, stats[:folded_because]
    assert_equal 1, stats[:parts]
    assert_equal [bytes], encoded.parts.map(&:data)
    profile = decode(bytes)
    assert_equal profile.time_nanos, start.to_i * 1_000_000_000 + start.nsec
    assert_equal [SHOW], profile.samples.map(&:frames)
  end

  def test_frames_may_be_locations_or_hashes_of_every_field
    frames = [
      {name: "parse", system_name: "_Z5parsev", filename: "parse.cc", start_line: 10, line: 14,
       address: 0x1234, mapping: {memory_start: 0x1000, memory_limit: 0x2000, file_offset: 0,
                                  filename: "/usr/bin/app", build_id: "abc123"}},
      ["main", "main.rb", 3],
      caller_locations(0, 1).first,
    ]
    @recorder.record(frames, {"cpu-samples" => 1})
    profile = decode(@recorder.serialize!)
    message = profile.message
    strings = profile.strings
    leaf = message.location.find { |l| l.id == message.sample.first.location_id.first }
    function = message.function.find { |f| f.id == leaf.line.first.function_id }
    mapping = message.mapping.find { |m| m.id == leaf.mapping_id }
    assert_equal ["parse", "_Z5parsev", "parse.cc", 10],
                 [strings[function.name], strings[function.system_name], strings[function.filename],
                  function.start_line]
    assert_equal [0x1234, 14], [leaf.address, leaf.line.first.line]
    assert_equal [0x1000, 0x2000, "/usr/bin/app", "abc123"],
                 [mapping.memory_start, mapping.memory_limit, strings[mapping.filename], strings[mapping.build_id]]
    assert_equal "test_frames_may_be_locations_or_hashes_of_every_field", profile.samples.first.frames.last.first
  end

  def test_labels_are_strings_numbers_or_numbers_with_a_unit
    @recorder.record(SHOW, {"cpu-samples" => 1},
                     labels: {"thread name" => "puma 1", "thread id" => 7, "size" => [512, "bytes"]})
    profile = decode(@recorder.serialize!)
    assert_equal({"thread name" => "puma 1", "thread id" => 7, "size" => 512}, profile.samples.first.labels)
    size = profile.message.sample.first.label.find { |l| profile.strings[l.key] == "size" }
    assert_equal "bytes", profile.strings[size.num_unit]
  end

  def test_timestamped_samples_stay_apart
    at = Time.at(1_700_000_000, 123_456_789, :nsec)
    @recorder.record(SHOW, {"cpu-samples" => 1}, timestamp: at)
    @recorder.record(SHOW, {"cpu-samples" => 1}, timestamp: 1_700_000_001_000_000_000)
    @recorder.record(SHOW, {"cpu-samples" => 1})
    samples = decode(@recorder.serialize!).samples
    assert_equal [1_700_000_000_123_456_789, 1_700_000_001_000_000_000, nil].sort_by(&:to_i),
                 samples.map { |s| s.labels["end_timestamp_ns"] }.sort_by(&:to_i)
  end

  def test_trace_links_are_pprof_labels_and_otlp_links
    trace = (1..16).to_a.pack("C*")
    span = (1..8).to_a.pack("C*")
    @recorder.record(SHOW, {"cpu-samples" => 1}, link: [trace, span])
    @recorder.record(SHOW, {"cpu-samples" => 1},
                     link: [trace.unpack1("H*").to_i(16), span.unpack1("H*").to_i(16)])
    @recorder.record(SHOW, {"cpu-samples" => 1})
    samples = decode(@recorder.serialize!).samples.sort_by { |s| s.values["cpu-samples"] }
    assert_equal [1, 2], samples.map { |s| s.values["cpu-samples"] }
    assert_equal({"trace_id" => trace.unpack1("H*"), "span_id" => span.unpack1("H*")},
                 samples.last.labels)
    @recorder.record_ids({"cpu-samples" => 1}, stack: @recorder.intern_stack([]), link: [trace, span])
    links = otlp(@recorder.serialize!(format: :otlp)).dictionary.link_table
    assert_equal [["\0" * 16, "\0" * 8], [trace, span]], links.map { |l| [l.trace_id, l.span_id] }
    error = assert_raises(Stackrec::InvalidArgument) do
      @recorder.record(SHOW, {"cpu-samples" => 1}, link: ["\0" * 16, span])
    end
    assert_match(/sample.link.trace_id is all zero/, error.message)
    assert_raises(ArgumentError) { @recorder.record(SHOW, {"cpu-samples" => 1}, link: [trace, "x"]) }
    assert_raises(RangeError) { @recorder.record(SHOW, {"cpu-samples" => 1}, link: [1 << 128, 1]) }
  end

  def test_endpoints_label_spans_and_endpoint_counts_come_back
    @recorder.record(SHOW, {"cpu-samples" => 1}, labels: {"local root span id" => 42})
    @recorder.record_endpoint(42, "GET /users/:id")
    @recorder.add_endpoint_count("GET /users/:id")
    @recorder.add_endpoint_count("GET /users/:id", 2)
    @recorder.add_endpoint_count("POST /login", 5)
    encoded = @recorder.serialize
    assert_equal({"GET /users/:id" => 3, "POST /login" => 5}, encoded.endpoint_counts)
    assert_equal "GET /users/:id", decode(encoded.data).samples.first.labels["trace endpoint"]
  end

  def test_upscaling_rules_scale_the_values_they_name
    @recorder.add_upscaling_rule(:proportional, values: ["cpu-samples"], total_sampled: 1, total_real: 10,
                                                label: {"thread id" => 1})
    @recorder.add_upscaling_rule(:poisson, values: ["alloc-space"], sum: "alloc-space", count: "cpu-samples",
                                           sampling_distance: 512)
    @recorder.record(SHOW, {"cpu-samples" => 2, "alloc-space" => 1024}, labels: {"thread id" => 1})
    @recorder.record(SHOW, {"cpu-samples" => 2}, labels: {"thread id" => 2})
    samples = decode(@recorder.serialize!).samples.sort_by { |s| s.labels["thread id"] }
    assert_equal [20, 2], samples.map { |s| s.values["cpu-samples"] }
    # Poisson: each of 2 samples of 512 bytes on average, sampled every 512.
    assert_operator samples.first.values["alloc-space"], :>, 1024
    error = assert_raises(Stackrec::InvalidArgument) do
      @recorder.add_upscaling_rule(:proportional, values: ["cpu-samples"], total_sampled: 1, total_real: 10)
    end
    assert_match(/add_upscaling_rule: /, error.message)
    assert_equal :invalid_argument, error.status
  end

  def test_the_id_api_records_by_interned_ids
    mapping = @recorder.intern_mapping(memory_start: 0x1000, memory_limit: 0x2000, filename: "/bin/app")
    parse = @recorder.intern_function(name: "parse", filename: "parse.rb")
    main = @recorder.intern_function(name: "main", filename: "main.rb")
    leaf = @recorder.intern_location(function: parse, mapping: mapping, address: 0x1010, line: 4)
    root = @recorder.intern_location(function: main, line: 1)
    stack = @recorder.intern_stack([leaf, root])
    labels = @recorder.intern_labels({"thread id" => 3})
    @recorder.record_ids({"cpu-samples" => 1}, stack: stack, labels: labels)
    @recorder.record_ids([2, 0, 0], locations: [root], labels: {"thread id" => 4})
    samples = decode(@recorder.serialize!).samples.sort_by { |s| s.labels["thread id"] }
    assert_equal [[["parse", "parse.rb", 4], ["main", "main.rb", 1]], [["main", "main.rb", 1]]],
                 samples.map(&:frames)
    assert_equal [1, 2], samples.map { |s| s.values["cpu-samples"] }
    @recorder.forget_ids
    error = assert_raises(Stackrec::InvalidArgument) { @recorder.record_ids({"cpu-samples" => 1}, stack: stack) }
    assert_match(/record_ids: .*stack/, error.message)
  end

  def test_tracked_objects_are_in_every_profile_until_untracked
    recorder = Stackrec::Recorder.new(sample_types: {"alloc-samples" => "count", "live" => "count"},
                                      live_heap_types: ["live"], max_tracked_objects: 10)
    recorder.track(1, SHOW, {"live" => 1}, labels: {"class" => "String"})
    recorder.track(2, SHOW, {"live" => 1}, labels: {"class" => "String"})
    assert_equal 2, recorder.stats[:objects_tracked]
    assert_equal 2, decode(recorder.serialize!).totals["live"]
    recorder.untrack(1)
    assert_equal 1, decode(recorder.serialize!).totals["live"]
    assert_raises(Stackrec::InvalidArgument) { recorder.track(3, SHOW, {"alloc-samples" => 1}) }
  end

  def test_otlp_carries_the_resource_and_the_scope
    @recorder.record(SHOW, {"cpu-samples" => 1, "wall-time" => 2})
    bytes = @recorder.serialize!(format: :otlp, service_name: "shop", scope_name: "my-profiler",
                                 scope_version: "2.0", resource_attributes: {"host.name" => "web-1"})
    request = otlp(bytes)
    resource = request.resource_profiles.first
    attributes = resource.resource.attributes.to_h { |kv| [kv.key, kv.value.string_value] }
    assert_equal({"service.name" => "shop", "host.name" => "web-1"}, attributes)
    scope = resource.scope_profiles.first
    assert_equal ["my-profiler", "2.0"], [scope.scope.name, scope.scope.version]
    assert_equal 3, scope.profiles.size, "one Profile per enabled sample type"
  end

  def test_compression_is_chosen
    @recorder.record(SHOW, {"cpu-samples" => 1})
    [[{}, "\x1f\x8b".b], [{compression: :gzip, level: 9}, "\x1f\x8b".b],
     [{compression: :zstd, level: 19}, "\x28\xb5\x2f\xfd".b], [{compression: :none}, nil],
     [{compression: :zstd, compress_threads: 2}, "\x28\xb5\x2f\xfd".b]].each do |options, magic|
      profile = Stackrec::Profile.new(sample_types: TYPES)
      profile.add(SHOW, {"cpu-samples" => 1})
      bytes = profile.serialize!(**options)
      assert_equal magic, bytes[0, magic.bytesize], options.inspect if magic
      assert_equal [SHOW], decode(bytes).samples.map(&:frames), options.inspect
    end
  end

  def test_budgets_split_the_output_into_parts
    5.times { |i| @recorder.record([["f#{i}", "a.rb", i]], {"cpu-samples" => 1}) }
    encoded = @recorder.serialize(part_max_samples: 2)
    assert_equal 3, encoded.parts.size
    assert_equal 3, encoded.stats[:parts]
    assert_equal encoded.data, encoded.parts.first.data
    assert_equal 5, encoded.parts.sum { |part| decode(part.data).samples.size }
    assert_equal [2, 2, 1], encoded.parts.map(&:samples_written).sort.reverse
    error = assert_raises(ArgumentError) { @recorder.serialize!(part_max_samples: 2) }
    assert_match(/max_parts: 1/, error.message)
    5.times { |i| @recorder.record([["f#{i}", "a.rb", i]], {"cpu-samples" => 1}) }
    bytes = @recorder.serialize!(part_max_samples: 2, max_parts: 1)
    assert_includes decode(bytes).samples.map { |s| s.frames.first.first }, "[stackrec: output limit]"
  end

  def test_serialize_logs_and_returns_nil_and_serialize_bang_raises
    log = StringIO.new
    previous = Stackrec.logger
    Stackrec.logger = Logger.new(log)
    assert_nil @recorder.serialize(level: 99)
    assert_match(/Stackrec::Recorder#serialize returned nil: serialize: opts.level/, log.string)
    error = assert_raises(Stackrec::InvalidArgument) { @recorder.serialize!(level: 99) }
    assert_match(/serialize: opts.level/, error.message)
    assert_equal "STACKREC_INVALID_ARGUMENT", error.status_name
    assert_raises(ArgumentError) { @recorder.serialize(format: :json) }
  ensure
    Stackrec.logger = previous
  end

  def test_profile_options_reach_the_output
    recorder = Stackrec::Recorder.new(
      sample_types: TYPES, period_type: ["cpu", "nanoseconds"], period: 10_000_000,
      default_sample_type: "wall-time", comments: ["built by a test"], drop_frames: "^drop",
      keep_frames: "keep", max_frames: 2,
    )
    recorder.record([["a", "a.rb", 1], ["b", "b.rb", 2], ["c", "c.rb", 3]], {"cpu-samples" => 1})
    profile = decode(recorder.serialize!)
    message = profile.message
    strings = profile.strings
    assert_equal [["cpu", "nanoseconds"], 10_000_000],
                 [[strings[message.period_type.type], strings[message.period_type.unit]], message.period]
    assert_equal "wall-time", strings[message.default_sample_type]
    assert_equal ["built by a test"], message.comment.map { |i| strings[i] }
    assert_equal ["^drop", "keep"], [strings[message.drop_frames], strings[message.keep_frames]]
    assert_equal 1, recorder.stats[:samples_truncated]
  end

  def test_a_profile_keeps_its_samples_until_reset
    profile = Stackrec::Profile.new(sample_types: TYPES)
    profile.add(SHOW, {"cpu-samples" => 1}, labels: {"local root span id" => 9})
    profile.set_endpoint(9, "GET /")
    id = profile.intern_stack([profile.intern_location(function: profile.intern_function(name: "main"))])
    profile.add_ids({"cpu-samples" => 2}, stack: id)
    first = decode(profile.serialize!)
    assert_equal 3, first.totals["cpu-samples"]
    assert_equal 3, decode(profile.serialize!).totals["cpu-samples"], "serialize does not reset"
    profile.reset
    assert_empty decode(profile.serialize!).samples
    assert_raises(ArgumentError) { Stackrec::Profile.new(sample_types: TYPES, live_heap_types: ["x"]) }
  end

  def test_a_profile_has_every_call_a_recorder_has
    profile = Stackrec::Profile.new(sample_types: TYPES)
    profile.add_upscaling_rule(:proportional, values: ["cpu-samples"], total_sampled: 1, total_real: 3)
    mapping = profile.intern_mapping(memory_start: 0x1000, memory_limit: 0x2000, filename: "/bin/app")
    location = profile.intern_location(function: profile.intern_function(name: "main"), mapping: mapping,
                                       address: 0x1100)
    profile.add_ids({"cpu-samples" => 1}, locations: [location], labels: profile.intern_labels({"k" => "v"}))
    profile.add_endpoint_count("GET /", 4)
    encoded = profile.serialize
    assert_equal({"GET /" => 4}, encoded.endpoint_counts)
    sample = decode(encoded.data).samples.first
    assert_equal [[["main", "", 0]], 3, {"k" => "v"}], [sample.frames, sample.values["cpu-samples"], sample.labels]
    profile.forget_ids
    assert_raises(Stackrec::InvalidArgument) { profile.add_ids({"cpu-samples" => 1}, locations: [location]) }
  end

  def test_stats_count_what_the_recorder_did
    @recorder.record(SHOW, {"cpu-samples" => 1})
    assert_raises(Stackrec::InvalidArgument) { @recorder.record([["\xff".b, "a.rb", 1]], {}) }
    @recorder.serialize!
    stats = @recorder.stats
    assert_equal 1, stats[:samples_recorded]
    assert_equal 1, stats[:records_rejected]
    assert_equal 1, stats[:serializations_ok]
    assert_equal 1, stats[:last_samples_recorded]
  end

  def test_reset_after_fork_empties_the_childs_recorder
    skip "no fork on this platform" unless Process.respond_to?(:fork)
    @recorder.record(SHOW, {"cpu-samples" => 1})
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      @recorder.reset_after_fork
      @recorder.record([["child", "c.rb", 1]], {"cpu-samples" => 5})
      writer.write(Marshal.dump(decode(@recorder.serialize!).samples.map(&:frames)))
      writer.close
      exit!(0)
    end
    writer.close
    child = Marshal.load(reader.read)
    Process.wait(pid)
    assert_equal [[["child", "c.rb", 1]]], child
    assert_equal [SHOW], decode(@recorder.serialize!).samples.map(&:frames)
  end

  def test_bad_arguments_name_themselves
    cases = {
      -> { Stackrec::Recorder.new } => [ArgumentError, /missing keyword: :sample_types/],
      -> { Stackrec::Recorder.new(sample_types: {}) } => [ArgumentError, /sample_types must be a non-empty/],
      -> { Stackrec::Recorder.new(sample_types: TYPES, disabled: ["cpu"]) } =>
        [ArgumentError, /disabled: unknown sample type "cpu" \(known: cpu-samples, wall-time, alloc-space\)/],
      -> { Stackrec::Recorder.new(sample_types: TYPES, colour: 1) } => [ArgumentError, /unknown keyword: :colour/],
      -> { Stackrec::Recorder.new(sample_types: [["", "count"]]) } => [Stackrec::InvalidArgument, /Recorder.new: /],
      -> { @recorder.record(SHOW, {"cpu-samples" => 1}, timestamp: "now") } => [TypeError, /timestamp must be a Time/],
      -> { @recorder.record(SHOW, [1, 2]) } => [Stackrec::InvalidArgument, /record: .*values_len is 2/],
      -> { @recorder.record([{name: 1}], {}) } => [TypeError, /frames\[0\]\[:name\] must be a String/],
      -> { @recorder.record([{colour: 1}], {}) } => [ArgumentError, /unknown keyword: :colour/],
      -> { @recorder.add_upscaling_rule(:linear, values: []) } => [ArgumentError, /:proportional or :poisson/],
      -> { @recorder.intern_stack([2**32]) } => [RangeError, /location_ids\[0\] is not an id/],
      -> { @recorder.serialize!(compression: :lz4) } => [ArgumentError, /compression must be one of :gzip, :none, :zstd/],
      -> { @recorder.untrack(-1) } => [ArgumentError, /object_id must not be negative/],
      -> { @recorder.dup } => [TypeError, /cannot be copied/],
    }
    cases.each do |call, (error_class, message)|
      error = assert_raises(error_class, message.inspect) { call.call }
      assert_match message, error.message
    end
    assert_equal 0, @recorder.stats[:samples_recorded]
  end
end
