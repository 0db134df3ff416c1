// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// One queued part and the HTTP request it becomes. The protocols differ
// only here: what URL, which headers, and whether the profile is the body
// (OTLP) or a part of a multipart form (Pyroscope, Datadog). Building a
// request is pure, apart from curl_easy_escape for Pyroscope's query, so
// the request of each protocol is decided in one place and the transport
// (http_client.h) knows nothing of profiling backends.
#ifndef STACKREC_SRC_EXPORT_REQUEST_H_
#define STACKREC_SRC_EXPORT_REQUEST_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "export/export_config.h"
#include "export/process_identity.h"

namespace stackrec_export {

// What the queue holds: a copy of one part of a stackrec_encoded.
struct Payload {
  std::string body;
  int64_t start_ns = 0, end_ns = 0;
  uint64_t uncompressed_bytes = 0;  // the part's message before compression
  // The serialization's endpoint counts: part 0's payload only.
  std::vector<std::pair<std::string, int64_t>> endpoint_counts;
};

// One part of a multipart/form-data body: the payload's bytes (`data`, which
// outlive the transfer) or bytes of its own (`owned`, when `data` is null).
struct MimePart {
  std::string name, filename, content_type;
  const std::string* data = nullptr;
  std::string owned;
  const std::string& bytes() const { return data != nullptr ? *data : owned; }
};

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;   // "Name: value"; secrets among them
  const std::string* body = nullptr;  // the body, when not multipart
  std::vector<MimePart> parts;        // else the form's parts, in order
};

// The request that ships `p` as the configured protocol says
// (docs/exporting.md), from the process `id`. `p` must outlive the request.
HttpRequest BuildRequest(const Config& c, const ProcessIdentity& id, const Payload& p);

// Datadog's tags_profiler: the host's tags, then those a tracer sends that
// the host did not set (language, process_id, runtime-id, host,
// profiler_version), then runtime_platform, last, as libdatadog adds it.
std::string DatadogTags(const Config& c, const ProcessIdentity& id);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_REQUEST_H_
