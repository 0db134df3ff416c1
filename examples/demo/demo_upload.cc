// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "demo_upload.h"

#include <cinttypes>
#include <cstdio>

#include "demo_parts.h"
#include "stackrec/export.h"

namespace demo {
namespace {

constexpr uint32_t kFlushDeadlineMs = 20000;

stackrec_str View(const char* s) { return stackrec_str{s, std::char_traits<char>::length(s)}; }

}  // namespace

int Upload(stackrec_profile* profile, const std::string& url, const std::string& protocol) {
  // The target's format and budget (docs/limits.md's backends table).
  stackrec_serialize_options opts = {};
  stackrec_exporter_options eo = {};
  eo.endpoint = stackrec_str{url.data(), url.size()};
  stackrec_attribute tags[] = {{View("service"), View("stackrec-demo")},
                               {View("env"), View("test")}};
  if (protocol == "otlp") {
    eo.protocol = STACKREC_EXPORT_OTLP;
    opts.format = STACKREC_FORMAT_OTLP;
    opts.service_name = View("stackrec-demo");
    ParseBudget("otlp-http", &opts);
  } else {
    eo.protocol =
        protocol == "pyroscope" ? STACKREC_EXPORT_PYROSCOPE : STACKREC_EXPORT_DATADOG_AGENT;
    eo.app_name = View("stackrec-demo");
    eo.tags = tags;
    eo.tags_len = 2;
    ParseBudget(protocol, &opts);
  }
  // Pyroscope's names, and the endpoint as the one series label: a
  // request's span ids and the thread's name and id stay on the samples
  // or are left out rather than making a series each.
  static const stackrec_str kSeries[] = {View("trace endpoint")};
  if (protocol == "pyroscope") {
    opts.target = STACKREC_TARGET_PYROSCOPE;
    opts.series_labels = kSeries;
    opts.series_labels_len = 1;
  }
  stackrec_encoded* encoded = nullptr;
  stackrec_exporter* exporter = nullptr;
  if (stackrec_profile_serialize(profile, &opts, &encoded) != STACKREC_OK ||
      stackrec_exporter_new(&eo, &exporter) != STACKREC_OK ||
      stackrec_exporter_send(exporter, encoded) != STACKREC_OK) {
    std::fprintf(stderr, "stackrec-demo: %s\n", stackrec_last_error());
    stackrec_encoded_free(encoded);
    stackrec_exporter_free(exporter);
    return 1;
  }
  const size_t parts = stackrec_encoded_parts_len(encoded);
  stackrec_encoded_free(encoded);  // the exporter copied the parts
  const stackrec_status flushed = stackrec_exporter_flush(exporter, kFlushDeadlineMs);
  stackrec_export_stats s = {};
  if (stackrec_exporter_stats(exporter, &s) != STACKREC_OK) s = stackrec_export_stats{};
  std::printf("stackrec-demo: uploaded to %s as %s: %s\n", url.c_str(), protocol.c_str(),
              stackrec_status_name(flushed));
  std::printf("  parts %zu, sent %" PRIu64 " (%" PRIu64 " bytes), retries %" PRIu64 "\n", parts,
              s.requests_sent, s.bytes_sent, s.retries);
  std::printf("  failed: 4xx %" PRIu64 ", 413 %" PRIu64 ", 5xx %" PRIu64 ", connection %" PRIu64
              "; dropped %" PRIu64 "\n",
              s.failed_http_4xx, s.failed_too_large, s.failed_http_5xx, s.failed_connection,
              s.dropped);
  std::printf("  last HTTP status %" PRId64 "%s%s\n", s.last_http_status,
              s.last_error[0] != '\0' ? ", last error: " : "", s.last_error);
  stackrec_exporter_free(exporter);
  return flushed == STACKREC_OK && s.requests_sent == parts ? 0 : 1;
}

}  // namespace demo
