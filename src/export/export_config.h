// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exporter's options, checked and copied out of the host's
// stackrec_exporter_options. Every check happens here, before an exporter
// exists, so that a bad option is refused by name at stackrec_exporter_new
// and never surfaces later as a failed request on the background thread.
// What is sent in a header or the URL is refused with a CR, LF or NUL, so
// that no value can add a header or a request of its own.
#ifndef STACKREC_SRC_EXPORT_EXPORT_CONFIG_H_
#define STACKREC_SRC_EXPORT_EXPORT_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stackrec/export.h"

namespace stackrec_export {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

struct Config {
  stackrec_export_protocol protocol = STACKREC_EXPORT_OTLP;
  std::string url;  // the full URL requests go to (Pyroscope's query added per request)
  std::string api_key;
  std::string app_name, spy_name;
  uint32_t sample_rate = 0;
  KeyValues tags, headers;
  std::string basic_user, basic_password, bearer_token, tenant_id;
  std::string family, origin, origin_version;
  bool otlp_development_header = false;
  size_t max_queue_bytes = 0, max_queue_requests = 0;
  uint32_t connect_timeout_ms = 0, timeout_ms = 0;
  int max_retries = 0;
  uint32_t initial_backoff_ms = 0, max_backoff_ms = 0;
  std::string ca_file;
  bool insecure = false;

  // The values that must never appear in a message or a stat.
  std::vector<std::string> Secrets() const;
};

// Checks `opts` (the host's struct of `opts_size` bytes) and fills `out`
// with every default applied. INVALID_ARGUMENT naming the field, or
// UNSUPPORTED for a newer header's field this library does not know.
stackrec_status ReadConfig(const stackrec_exporter_options* opts, size_t opts_size, Config* out);

// Whether `url` is an http or https URL with a host, and no user name,
// password, query, fragment, whitespace or control character; else a
// message naming `field` (set through Fail()).
stackrec_status CheckUrl(const std::string& url, const char* field);

// `text` with every non-empty secret replaced by "[redacted]": the last line
// of defence for messages that quote a server or curl.
std::string Redact(std::string text, const std::vector<std::string>& secrets);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_EXPORT_CONFIG_H_
