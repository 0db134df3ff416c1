// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "receiver/backends/datadog_rules.h"

#include <algorithm>
#include <utility>

#include "oracle/decompress.h"
#include "profile.pb.h"
#include "receiver/json_reader.h"

namespace stackrec_test {
namespace datadog {
namespace {

constexpr size_t kMaxProfileBytes = size_t{10} << 20;

Verdict Refuse(int status, std::string message) {
  Verdict v;
  v.status = status;
  v.message = std::move(message);
  return v;
}

bool IsString(const Json* j) { return j != nullptr && j->type == Json::Type::kString; }

// "2026-01-02T03:04:05.123456789Z": libdatadog's format, %Y-%m-%dT%H:%M:%S%.9fZ
// (profile_exporter.rs:319-332).
bool IsEventTime(const std::string& t) {
  static const char kShape[] = "dddd-dd-ddTdd:dd:dd.dddddddddZ";
  if (t.size() != sizeof(kShape) - 1) return false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (kShape[i] == 'd' ? !(t[i] >= '0' && t[i] <= '9') : t[i] != kShape[i]) return false;
  }
  return true;
}

}  // namespace

std::string ValidateTag(const std::string& tag) {
  if (tag.empty()) return "tag is empty";
  if (tag.front() == ':') return "tag '" + tag + "' begins with a colon";
  if (tag.back() == ':') return "tag '" + tag + "' ends with a colon";
  return "";
}

Verdict Upload(const ReceivedRequest& req, bool agentless) {
  // datadog-agent pkg/trace/api/endpoints.go: the profiling route; the
  // intake's is /api/v2/profile, with the key (libdd-profiling/src/
  // exporter/config.rs:60-71).
  if (req.method != "POST") return Refuse(405, "method " + req.method);
  if (req.path != (agentless ? "/api/v2/profile" : "/profiling/v1/input")) {
    return Refuse(404, "path " + req.path);
  }
  if (agentless && req.Header("dd-api-key").empty()) return Refuse(403, "no DD-API-KEY");
  if (req.Header("dd-evp-origin").empty() || req.Header("dd-evp-origin-version").empty()) {
    return Refuse(400, "no DD-EVP-ORIGIN or DD-EVP-ORIGIN-VERSION");
  }
  if (req.Header("content-type").find("multipart/form-data") != 0) {
    return Refuse(400, "not multipart/form-data");
  }
  // profile_exporter.rs:335-376: "event" first, as event.json, JSON.
  if (req.parts.empty() || req.parts[0].name != "event" || req.parts[0].filename != "event.json") {
    return Refuse(400, "the first part is not event (event.json)");
  }
  Json event;
  std::string error;
  if (!ParseJson(req.parts[0].data, &event, &error) || event.type != Json::Type::kObject) {
    return Refuse(400, "event.json: " + error);
  }
  // profile_exporter.rs:319-332: every field, with its type.
  const Json* attachments = event.Get("attachments");
  if (attachments == nullptr || attachments->type != Json::Type::kArray) {
    return Refuse(400, "event.json: attachments is not an array");
  }
  for (const char* key : {"tags_profiler", "start", "end", "family", "version"}) {
    if (!IsString(event.Get(key))) return Refuse(400, std::string("event.json: no string ") + key);
  }
  if (event.Get("version")->text != "4") return Refuse(400, "event.json: version is not \"4\"");
  if (event.Get("family")->text.empty()) return Refuse(400, "event.json: family is empty");
  for (const char* key : {"start", "end"}) {
    if (!IsEventTime(event.Get(key)->text)) {
      return Refuse(400, std::string("event.json: ") + key + " is not RFC 3339 with nanoseconds");
    }
  }
  const Json* counts = event.Get("endpoint_counts");
  if (counts == nullptr ||
      (counts->type != Json::Type::kNull && counts->type != Json::Type::kObject)) {
    return Refuse(400, "event.json: endpoint_counts is neither null nor an object");
  }
  if (counts->type == Json::Type::kObject) {
    for (const auto& [name, count] : counts->members) {
      if (count.type != Json::Type::kNumber) {
        return Refuse(400, "event.json: endpoint count of '" + name + "' is not a number");
      }
    }
  }
  const Json* process_tags = event.Get("process_tags");
  if (process_tags == nullptr ||
      (process_tags->type != Json::Type::kNull && process_tags->type != Json::Type::kString)) {
    return Refuse(400, "event.json: process_tags is neither null nor a string");
  }
  for (const char* key : {"internal", "info"}) {
    const Json* j = event.Get(key);
    if (j == nullptr || j->type != Json::Type::kObject) {
      return Refuse(400, std::string("event.json: ") + key + " is not an object");
    }
  }
  // The tags, split on ',' as the intake reads tags_profiler, each as
  // libdatadog's check takes it; runtime_platform is always there
  // (profile_exporter.rs:279-299).
  Verdict out;
  const std::string& tags = event.Get("tags_profiler")->text;
  bool platform = false;
  for (size_t at = 0; at <= tags.size();) {
    const size_t comma = std::min(tags.find(',', at), tags.size());
    const std::string tag = tags.substr(at, comma - at);
    error = ValidateTag(tag);
    if (!error.empty()) return Refuse(400, "tags_profiler: " + error);
    platform = platform || tag.compare(0, 17, "runtime_platform:") == 0;
    out.tags.push_back(tag);
    at = comma + 1;
  }
  if (!platform) return Refuse(400, "tags_profiler has no runtime_platform tag");
  // Every attachment named is a part, and profile.pprof is one of them: a
  // pprof, gzip'd or zstd'd or not, of at most 10 MiB.
  bool pprof = false;
  for (const Json& name : attachments->items) {
    if (name.type != Json::Type::kString) return Refuse(400, "an attachment name is not a string");
    const MultipartPart* part = req.Part(name.text);
    if (part == nullptr) return Refuse(400, "no part for the attachment " + name.text);
    if (name.text != "profile.pprof") continue;
    pprof = true;
    if (part->data.size() > kMaxProfileBytes) {
      return Refuse(413, "profile.pprof is over 10 MiB: skipped");
    }
    std::string raw;
    perftools::profiles::Profile p;
    if (!DecompressAny(part->data, &raw) || !p.ParseFromString(raw)) {
      return Refuse(400, "profile.pprof is not a pprof");
    }
  }
  if (!pprof) return Refuse(400, "no profile.pprof among the attachments");
  return out;
}

}  // namespace datadog
}  // namespace stackrec_test
