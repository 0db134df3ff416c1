# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# ruby upload_to_receiver.rb URL PROTOCOL: what a Ruby profiler built on the
# gem sends, with the gem's defaults: a Recorder of the sample types and
# labels a Ruby profiler records (cpu-time, cpu-samples, wall-time; thread
# id and name, local root span id, trace endpoints, trace links), a few
# intervals serialized with Exporter.serialize_options and sent. The
# receiver program runs it and judges every request by the backend's own
# rules (testkit/receiver/backends/). Exits 0 only if every part was sent.
require "stackrec"

url, protocol = ARGV
protocol = protocol.to_sym
recorder = Stackrec::Recorder.new(
  sample_types: {"cpu-time" => "nanoseconds", "cpu-samples" => "count", "wall-time" => "nanoseconds"},
  period_type: %w[wall-time nanoseconds], period: 10_000_000,
)
options = {otlp: {protocol: :otlp}, pyroscope: {protocol: :pyroscope, app_name: "ruby-upload",
                                                tags: {"env" => "test"}},
           datadog: {protocol: :datadog_agent, tags: {"service" => "ruby-upload", "env" => "test"}}}
exporter = Stackrec::Exporter.new(endpoint: url, **options.fetch(protocol))
serialize = Stackrec::Exporter.serialize_options(protocol == :datadog ? :datadog_agent : protocol)
serialize = serialize.merge(series_labels: ["trace endpoint"]) if protocol == :pyroscope
serialize = serialize.merge(service_name: "ruby-upload") if protocol == :otlp

3.times do |interval|
  200.times do |i|
    span = 1000 * (interval + 1) + i % 20
    recorder.record_endpoint(span, "GET /items/#{i % 4}")
    recorder.record([["Items#show", "app/items.rb", 10 + i % 7], ["<main>", "config.ru", 1]],
                    {"cpu-time": 1_000_000 * (1 + i % 3), "cpu-samples": 1, "wall-time": 10_000_000},
                    labels: {"thread id" => 1 + i % 4, "thread name" => "puma #{i % 4}",
                             "local root span id" => span},
                    link: [[interval + 1, i + 1].pack("Q>Q>"), i + 1])
  end
  exporter.send(recorder.serialize(**serialize))
end
flushed = exporter.flush(20_000)
stats = exporter.stats
puts "upload_to_receiver: #{protocol}: flushed #{flushed}, sent #{stats[:requests_sent]}, " \
     "refused #{stats[:refused_before_sending]}, last error #{stats[:last_error].inspect}"
exit(flushed && stats[:requests_sent] == stats[:requests_queued] && stats[:requests_sent] >= 3 ? 0 : 1)
