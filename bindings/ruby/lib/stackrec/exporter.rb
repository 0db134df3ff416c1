# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Stackrec::Exporter's Ruby half: the serialize options each protocol's
# backend keeps (docs/exporting.md, docs/limits.md's budgets), for a host
# that serializes itself and sends:
#
#   exporter = Stackrec::Exporter.new(protocol: :pyroscope, endpoint: url, app_name: "shop")
#   options = Stackrec::Exporter.serialize_options(:pyroscope)
#   exporter.send(recorder.serialize(**options, series_labels: ["trace endpoint"]))
#
# #start_periodic without options takes the same. The Exporter refuses, at
# #send, a profile its backend would refuse (Stackrec::InvalidArgument).
module Stackrec
  if defined?(Exporter)
    class Exporter
      MIB = 1 << 20
      SERIALIZE_OPTIONS = {
        otlp: {format: :otlp, part_max_uncompressed_bytes: 20 * MIB}.freeze,
        # Pyroscope's names; its 2 MiB rate burst less room for labels.
        pyroscope: {format: :pprof, target: :pyroscope, part_max_uncompressed_bytes: 2 * MIB - 96 * 1024,
                    part_max_samples: 16_000}.freeze,
        datadog_agent: {format: :pprof, part_max_bytes: 10 * MIB}.freeze,
        datadog_agentless: {format: :pprof, part_max_bytes: 10 * MIB}.freeze,
      }.freeze

      # The #serialize options for `protocol`'s backend, a frozen Hash.
      def self.serialize_options(protocol)
        SERIALIZE_OPTIONS.fetch(protocol) do
          raise ArgumentError, "protocol must be one of #{SERIALIZE_OPTIONS.keys.map(&:inspect).join(", ")}, " \
                               "got #{protocol.inspect}"
        end
      end
    end
  end
end
