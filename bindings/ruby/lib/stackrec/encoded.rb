# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::Encoded, one serialization (the native half defines the Struct,
# as it fills it):
#
# - start, finish: the interval it covers, Times in UTC to the nanosecond.
#   Consecutive serializations of a Recorder tile time.
# - data: the bytes (a binary String): pprof or an OTLP request, compressed
#   as asked. With a budget that split the output, part 0's bytes.
# - stats: that serialization's figures (stackrec_encode_stats), a Hash:
#   samples_written, compressed_bytes, encode_ns, parts, folded_because
#   (:none, :output_limit, :sample_too_big or :parts_limit), ...
# - parts: Stackrec::Part(data, samples_written, uncompressed_bytes) each,
#   one unless a budget split the output; send each as a request of its
#   own, part 0 with the endpoint counts.
# - endpoint_counts: {"GET /users/:id" => hits} (add_endpoint_count).
#
# It also keeps the library's handle of the serialization, hidden, until
# the GC collects it: Stackrec::Exporter#send ships from that handle, so it
# takes an Encoded that #serialize returned, not one made by
# Stackrec::Encoded.new or Marshal, which hold the values alone.
#
# It destructures as Datadog's serialize result does:
#
#   start, finish, bytes, stats = recorder.serialize
module Stackrec
  class Encoded
    def to_ary
      [start, finish, data, stats]
    end
  end
end
