# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::Exporter against a real HTTP receiver: a TCPServer on
# 127.0.0.1 in this process, which answers scripted statuses. Each test
# decodes what arrived (OTLP with the classes protoc generates from
# testkit/otlp, pprof with decoded_profile.rb) and checks it against what was
# recorded.
#
#   ruby -I <dir of profile_pb.rb and the OTLP *_pb.rb> test/exporter_test.rb
#
# with the gem installed (GEM_HOME), built against a stackrec with
# libstackrec_export; CTest runs it against the installed gem
# (bindings/ruby/CMakeLists.txt).
require "json"
require "minitest/autorun"
require "io/wait"
require "socket"
require "uri"
require "stackrec"
require_relative "decoded_profile"
require "opentelemetry/proto/collector/profiles/v1development/profiles_service_pb"

# An HTTP/1.1 receiver on 127.0.0.1, on a port the system picks: a thread
# that answers one request per connection with the next scripted status,
# and stops by itself after the last one or `within` seconds.
class Receiver
  Request = Struct.new(:method, :path, :query, :headers, :body, keyword_init: true)
  REASONS = {200 => "OK", 503 => "Service Unavailable"}.freeze

  attr_reader :url

  def initialize(statuses, within: 3)
    server = TCPServer.new("127.0.0.1", 0)
    @url = "http://127.0.0.1:#{server.addr[1]}"
    @requests = []
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + within
    @thread = Thread.new do
      statuses.each do |status|
        left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
        break unless left > 0 && server.wait_readable(left)

        client = server.accept
        begin
          @requests << read_request(client)
          client.write("HTTP/1.1 #{status} #{REASONS.fetch(status, 'Status')}\r\n" \
                       "Content-Length: 0\r\nConnection: close\r\n\r\n")
        ensure
          client.close
        end
      end
    ensure
      server.close
    end
  end

  # What it received, once it stopped: within its deadline, or it is killed.
  def requests
    unless @thread.join(5)
      @thread.kill
      raise "the receiver did not stop"
    end
    @requests
  end

  private

  def read_request(client)
    method, target = client.gets.split(" ", 3)
    path, query = target.split("?", 2)
    headers = {}
    while (line = client.gets) && line != "\r\n"
      name, value = line.split(":", 2)
      headers[name.downcase] = value.strip
    end
    body = client.read(Integer(headers.fetch("content-length", "0")))
    Request.new(method: method, path: path, query: query, headers: headers, body: body)
  end
end

class ExporterTest < Minitest::Test
  SHOW = [["Users#show", "app/users.rb", 12], ["<main>", "config.ru", 1]].freeze
  # Retries that wait milliseconds, so that a scripted 503 costs none.
  FAST = {initial_backoff_ms: 10, max_backoff_ms: 20}.freeze

  def setup
    @recorder = Stackrec::Recorder.new(sample_types: {"cpu-samples" => "count"})
    @recorder.record(SHOW, {"cpu-samples" => 3})
  end

  # The bytes of the multipart form's part `name`.
  def multipart_file(request, name)
    boundary = request.headers["content-type"][%r{\Amultipart/form-data; boundary=(.+)\z}, 1]
    refute_nil boundary, request.headers["content-type"]
    part = request.body.split("--#{boundary}".b).find { |p| p.include?("name=\"#{name}\"".b) }
    refute_nil part, "no part named #{name}"
    part.split("\r\n\r\n".b, 2).last.delete_suffix("\r\n".b)
  end

  def test_the_gem_was_built_with_the_exporter
    assert defined?(Stackrec::Exporter), "the extension was built without libstackrec_export"
  end

  def test_otlp_posts_the_serialized_request_to_the_collector
    receiver = Receiver.new([200])
    exporter = Stackrec::Exporter.new(protocol: :otlp, endpoint: receiver.url)
    assert_same exporter, exporter.send(@recorder.serialize(format: :otlp))
    assert_equal true, exporter.flush(2000)

    request, = receiver.requests
    assert_equal ["POST", "/v1development/profiles"], [request.method, request.path]
    assert_equal "application/x-protobuf", request.headers["content-type"]
    assert_equal "gzip", request.headers["content-encoding"]
    decoded = Opentelemetry::Proto::Collector::Profiles::V1development::ExportProfilesServiceRequest.decode(
      decompress_profile(request.body),
    )
    dictionary = decoded.dictionary
    strings = dictionary.string_table.to_a
    sample, = decoded.resource_profiles.first.scope_profiles.first.profiles.first.samples.to_a
    frames = dictionary.stack_table[sample.stack_index].location_indices.map do |location|
      line = dictionary.location_table[location].lines.first
      [strings[dictionary.function_table[line.function_index].name_strindex], line.line]
    end
    assert_equal [["Users#show", 12], ["<main>", 1]], frames
    assert_equal [3], sample.values.to_a
    stats = exporter.stats
    assert_equal [1, 1, 200, ""], stats.values_at(:requests_queued, :requests_sent, :last_http_status, :last_error)
    assert_equal request.body.bytesize, stats[:bytes_sent]
  end

  def test_pyroscope_posts_the_pprof_as_a_multipart_file_with_the_labels_in_the_name
    receiver = Receiver.new([200])
    exporter = Stackrec::Exporter.new(protocol: :pyroscope, endpoint: receiver.url, app_name: "checkout",
                                      tags: {env: "prod", "region" => "eu-west-1"})
    exporter.send(@recorder.serialize(**Stackrec::Exporter.serialize_options(:pyroscope)))
    assert_equal true, exporter.flush(2000)

    request, = receiver.requests
    assert_equal ["POST", "/ingest"], [request.method, request.path]
    query = URI.decode_www_form(request.query).to_h
    assert_equal "checkout{env=prod,region=eu-west-1}", query["name"]
    # No format: with one, Pyroscope would read the whole form as the pprof.
    assert_equal [nil, "stackrec"], query.values_at("format", "spyName")
    assert_equal [SHOW], DecodedProfile.new(multipart_file(request, "profile")).samples.map(&:frames)
  end

  def test_a_profile_the_backend_would_refuse_is_not_sent_and_stays_with_the_caller
    receiver = Receiver.new([])
    exporter = Stackrec::Exporter.new(protocol: :pyroscope, endpoint: receiver.url, app_name: "a")
    encoded = @recorder.serialize # recorded names: "cpu-samples" holds a '-'
    error = assert_raises(Stackrec::InvalidArgument) { exporter.send(encoded) }
    assert_match(/not serialized for Pyroscope: set opts.target/, error.message)
    assert_equal [1, 0], exporter.stats.values_at(:refused_before_sending, :requests_queued)
    refute_empty encoded.data
    error = assert_raises(Stackrec::InvalidArgument) do
      Stackrec::Exporter.new(protocol: :pyroscope, endpoint: receiver.url, app_name: "my app")
    end
    assert_match(/app_name holds ' ', and Pyroscope takes a service name of/, error.message)
    error = assert_raises(Stackrec::InvalidArgument) do
      Stackrec::Exporter.new(protocol: :datadog_agent, endpoint: receiver.url, tags: {"env" => ""})
    end
    assert_match(/libdatadog refuses a tag/, error.message)
  end

  def test_datadog_files_the_profile_under_the_ruby_family_with_a_tracers_tags
    receiver = Receiver.new([200])
    exporter = Stackrec::Exporter.new(protocol: :datadog_agent, endpoint: receiver.url,
                                      tags: {"service" => "shop"})
    exporter.send(@recorder.serialize(**Stackrec::Exporter.serialize_options(:datadog_agent)))
    assert_equal true, exporter.flush(2000)
    request, = receiver.requests
    event = JSON.parse(multipart_file(request, "event"))
    assert_equal "ruby", event["family"]
    tags = event["tags_profiler"].split(",")
    assert_equal ["service:shop", "language:ruby", "process_id:#{Process.pid}"], tags.first(3)
    assert_match(/\Aruntime-id:\h{8}-\h{4}-4\h{3}-\h{4}-\h{12}\z/, tags[3])
    assert_match(/\Aruntime_platform:/, tags.last)
  end

  def test_a_503_is_retried_and_counted
    receiver = Receiver.new([503, 200])
    exporter = Stackrec::Exporter.new(protocol: :otlp, endpoint: receiver.url, **FAST)
    exporter.send(@recorder.serialize(format: :otlp))
    assert_equal true, exporter.flush(3000)
    assert_equal 2, receiver.requests.size
    stats = exporter.stats
    assert_equal [1, 1, 0, 200], stats.values_at(:retries, :requests_sent, :failed_http_5xx, :last_http_status)
  end

  def test_bad_options_raise_naming_the_field
    url = "http://127.0.0.1:9" # never contacted: no exporter here is created
    error = assert_raises(ArgumentError) { Stackrec::Exporter.new(protocol: :nope, endpoint: url) }
    assert_match(/protocol must be one of :otlp/, error.message)
    error = assert_raises(Stackrec::InvalidArgument) { Stackrec::Exporter.new(protocol: :otlp, endpoint: "ftp://x") }
    assert_match(/endpoint/, error.message)
    error = assert_raises(Stackrec::InvalidArgument) do
      Stackrec::Exporter.new(protocol: :pyroscope, endpoint: url, app_name: "a", tags: {"env" => "a\nb"})
    end
    assert_match(/tags\[0\]\.value/, error.message)
    assert_equal :invalid_argument, error.status
    assert_raises(ArgumentError) { Stackrec::Exporter.new(endpoint: url) } # protocol: is required
    assert_raises(TypeError) { Stackrec::Exporter.new(protocol: :otlp, endpoint: url, tags: ["env"]) }
    assert_raises(RangeError) { Stackrec::Exporter.new(protocol: :otlp, endpoint: url, timeout_ms: 1 << 32) }
  end

  def test_send_takes_only_what_serialize_returned_in_the_protocols_format
    receiver = Receiver.new([])
    exporter = Stackrec::Exporter.new(protocol: :pyroscope, endpoint: receiver.url, app_name: "a")
    error = assert_raises(ArgumentError) { exporter.send(@recorder.serialize(format: :otlp)) }
    assert_match(/pprof/, error.message)
    encoded = @recorder.serialize
    assert_raises(ArgumentError) { exporter.send(Stackrec::Encoded.new(*encoded.to_a)) }
    copy = Marshal.load(Marshal.dump(encoded))
    assert_equal encoded, copy, "Marshal keeps the values"
    assert_raises(ArgumentError) { exporter.send(copy) }
    assert_raises(TypeError) { exporter.send(encoded.data) }
    assert_equal 0, exporter.stats[:requests_queued]
  end

  def test_flush_and_shutdown_return_true_and_a_send_after_shutdown_raises
    receiver = Receiver.new([200])
    exporter = Stackrec::Exporter.new(protocol: :otlp, endpoint: receiver.url)
    assert_equal true, exporter.flush(1000), "nothing queued"
    exporter.send(@recorder.serialize(format: :otlp))
    assert_equal true, exporter.shutdown(2000)
    assert_equal 1, receiver.requests.size
    assert_raises(Stackrec::InvalidArgument) { exporter.send(@recorder.serialize(format: :otlp)) }
    assert_equal 1, exporter.stats[:requests_sent], "stats still work"
  end

  def test_start_periodic_serializes_the_recorder_on_the_exporters_thread
    receiver = Receiver.new([200])
    # Once the receiver stopped, the next periods' requests fail at once.
    exporter = Stackrec::Exporter.new(protocol: :pyroscope, endpoint: receiver.url, app_name: "a",
                                      max_retries: -1)
    assert_raises(TypeError) { exporter.start_periodic(Stackrec::Profile.new(sample_types: {"a" => "count"}), 20) }
    exporter.start_periodic(@recorder, 20)
    error = assert_raises(Stackrec::InvalidArgument) do
      exporter.start_periodic(@recorder, 20, **Stackrec::Exporter.serialize_options(:pyroscope))
    end
    assert_match(/already serializes a recorder periodically/, error.message)

    request, = receiver.requests
    assert_equal [SHOW], DecodedProfile.new(multipart_file(request, "profile")).samples.map(&:frames)
    exporter.shutdown(1000)
    assert_operator exporter.stats[:requests_sent], :>=, 1
  end

  def test_a_fork_child_resets_the_exporter_before_anything_else
    exporter = Stackrec::Exporter.new(protocol: :otlp, endpoint: Receiver.new([]).url)
    assert_equal false, exporter.reset_after_fork, "not a fork child: nothing to reset"
    pid = fork do
      code = begin
        exporter.stats
        1
      rescue Stackrec::Error
        exporter.reset_after_fork && exporter.stats[:requests_queued].zero? ? 0 : 2
      end
      exit!(code)
    end
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 3
    status = nil
    until (status = Process.wait2(pid, Process::WNOHANG)&.last)
      if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        Process.kill(:KILL, pid)
        Process.wait(pid)
        flunk "the fork child did not exit"
      end
      sleep 0.01
    end
    assert_equal 0, status.exitstatus
  end

  def test_the_gc_may_free_an_exporter_and_its_periodic_recorder_in_either_order
    url = Receiver.new([]).url # closed at once: every request fails fast
    # Made on a thread whose stack is gone by the GC, so that no stale
    # reference on this one keeps them.
    Thread.new do
      4.times do
        recorder = Stackrec::Recorder.new(sample_types: {"cpu-samples" => "count"})
        recorder.record(SHOW, {"cpu-samples" => 1})
        Stackrec::Exporter.new(protocol: :pyroscope, endpoint: url, app_name: "a", max_retries: -1)
                          .start_periodic(recorder, 10)
      end
    end.join
    before = ObjectSpace.each_object(Stackrec::Exporter).count
    GC.start
    assert_operator ObjectSpace.each_object(Stackrec::Exporter).count, :<, before
    assert_kind_of Hash, @recorder.stats, "the process goes on"
  end
end
