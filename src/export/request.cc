// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/request.h"

#include <curl/curl.h>

#include <new>
#include <utility>

#include "export/json.h"

namespace stackrec_export {
namespace {

// Percent-encodes a query value with curl's own escaper.
std::string Escape(const std::string& s) {
  char* e = curl_easy_escape(nullptr, s.data(), static_cast<int>(s.size()));
  if (e == nullptr) throw std::bad_alloc();
  std::string out(e);
  curl_free(e);
  return out;
}

// How compressed bytes announce themselves: gzip's and zstd's magic numbers.
const char* ContentEncoding(const std::string& body) {
  if (body.size() >= 2 && static_cast<unsigned char>(body[0]) == 0x1F &&
      static_cast<unsigned char>(body[1]) == 0x8B) {
    return "gzip";
  }
  if (body.size() >= 4 && body.compare(0, 4, "\x28\xB5\x2F\xFD", 4) == 0) return "zstd";
  return nullptr;
}

void AddCommonHeaders(const Config& c, HttpRequest* r) {
  // No "Expect: 100-continue" round trip before the body: the servers these
  // requests go to answer a whole request, and the wait only adds latency.
  r->headers.push_back("Expect:");
  r->headers.push_back("User-Agent: stackrec-export/" STACKREC_EXPORT_VERSION_STRING);
  if (!c.tenant_id.empty()) r->headers.push_back("X-Scope-OrgID: " + c.tenant_id);
  for (const auto& [name, value] : c.headers) r->headers.push_back(name + ": " + value);
}

void BuildOtlp(const Config& c, const Payload& p, HttpRequest* r) {
  r->url = c.url;
  r->body = &p.body;
  r->headers.push_back("Content-Type: application/x-protobuf");
  if (const char* encoding = ContentEncoding(p.body)) {
    r->headers.push_back(std::string("Content-Encoding: ") + encoding);
  }
  if (c.otlp_development_header) r->headers.push_back("OTLP-Profiles-Development-Version: 1");
}

void BuildPyroscope(const Config& c, const Payload& p, HttpRequest* r) {
  std::string name = c.app_name + "{";
  for (size_t i = 0; i < c.tags.size(); ++i) {
    if (i > 0) name += ",";
    name += c.tags[i].first + "=" + c.tags[i].second;
  }
  name += "}";
  // No format= in the query: Pyroscope reads the multipart form only when
  // the query names no format, and with format=pprof takes the whole body
  // as the profile (pkg/ingester/pyroscope/ingest_handler.go).
  // Whole seconds that cover the interval.
  const int64_t from = p.start_ns / 1000000000;
  const int64_t until = (p.end_ns + 999999999) / 1000000000;
  r->url = c.url + "?name=" + Escape(name) + "&from=" + std::to_string(from) +
           "&until=" + std::to_string(until) + "&spyName=" + Escape(c.spy_name) +
           "&sampleRate=" + std::to_string(c.sample_rate);
  r->parts.push_back({"profile", "profile.pprof", "application/octet-stream", &p.body, ""});
}

// What Datadog's profilers describe of their process in event.json's
// `info` (dd-trace-rb's collectors/info.rb has the same platform fields).
std::string DatadogInfo(const ProcessIdentity& id) {
  std::string e = "{\"platform\":{\"hostname\":";
  AppendJsonString(id.hostname, &e);
  e += ",\"kernel_name\":";
  AppendJsonString(id.kernel_name, &e);
  e += ",\"kernel_release\":";
  AppendJsonString(id.kernel_release, &e);
  e += ",\"kernel_version\":";
  AppendJsonString(id.kernel_version, &e);
  if (!id.container_id.empty()) {
    e += ",\"container_id\":";
    AppendJsonString(id.container_id, &e);
  }
  e += "},\"profiler\":{\"name\":\"stackrec\",\"version\":\"" STACKREC_EXPORT_VERSION_STRING "\"}}";
  return e;
}

void BuildDatadog(const Config& c, const ProcessIdentity& id, const Payload& p, HttpRequest* r) {
  r->url = c.url;
  std::string e = "{\"attachments\":[\"profile.pprof\"],\"tags_profiler\":";
  AppendJsonString(DatadogTags(c, id), &e);
  e += ",\"start\":";
  AppendJsonString(Rfc3339Nanos(p.start_ns), &e);
  e += ",\"end\":";
  AppendJsonString(Rfc3339Nanos(p.end_ns), &e);
  e += ",\"family\":";
  AppendJsonString(c.family, &e);
  e += ",\"version\":\"4\",\"endpoint_counts\":";
  if (p.endpoint_counts.empty()) {
    e += "null";  // as libdatadog writes no counts
  } else {
    e += "{";
    for (size_t i = 0; i < p.endpoint_counts.size(); ++i) {
      if (i > 0) e += ",";
      AppendJsonString(p.endpoint_counts[i].first, &e);
      e += ":" + std::to_string(p.endpoint_counts[i].second);
    }
    e += "}";
  }
  e += ",\"process_tags\":null,\"internal\":{\"stackrec_version\":\"" STACKREC_EXPORT_VERSION_STRING
       "\"},\"info\":";
  e += DatadogInfo(id);
  e += "}";
  r->parts.push_back({"event", "event.json", "application/json", nullptr, std::move(e)});
  r->parts.push_back({"profile.pprof", "profile.pprof", "application/octet-stream", &p.body, ""});
  r->headers.push_back("DD-EVP-ORIGIN: " + c.origin);
  r->headers.push_back("DD-EVP-ORIGIN-VERSION: " + c.origin_version);
  if (c.protocol == STACKREC_EXPORT_DATADOG_AGENTLESS) {
    r->headers.push_back("DD-API-KEY: " + c.api_key);
  }
  // The entity headers libdatadog sends, by which the agent tags the
  // profile with its container (libdd-profiling/src/exporter/
  // profile_exporter.rs).
  if (!id.container_id.empty()) r->headers.push_back("Datadog-Container-ID: " + id.container_id);
  if (!id.entity_id.empty()) r->headers.push_back("Datadog-Entity-ID: " + id.entity_id);
  if (!id.external_env.empty()) r->headers.push_back("Datadog-External-Env: " + id.external_env);
}

}  // namespace

std::string DatadogTags(const Config& c, const ProcessIdentity& id) {
  std::string tags;
  auto add = [&](const std::string& key, const std::string& value) {
    if (!tags.empty()) tags += ",";
    tags += key + ":" + value;
  };
  for (const auto& [key, value] : c.tags) add(key, value);
  auto has = [&](const char* key) {
    for (const auto& tag : c.tags) {
      if (tag.first == key) return true;
    }
    return false;
  };
  const std::pair<const char*, std::string> tracer_tags[] = {
      {"language", c.family},
      {"process_id", std::to_string(id.pid)},
      {"runtime-id", id.runtime_id},
      {"host", id.hostname},
      {"profiler_version", "stackrec-" STACKREC_EXPORT_VERSION_STRING},
  };
  for (const auto& [key, value] : tracer_tags) {
    if (!has(key) && !value.empty()) add(key, value);
  }
  if (!has("runtime_platform")) add("runtime_platform", id.runtime_platform);
  return tags;
}

HttpRequest BuildRequest(const Config& c, const ProcessIdentity& id, const Payload& p) {
  HttpRequest r;
  AddCommonHeaders(c, &r);
  switch (c.protocol) {
    case STACKREC_EXPORT_OTLP:
      BuildOtlp(c, p, &r);
      break;
    case STACKREC_EXPORT_PYROSCOPE:
      BuildPyroscope(c, p, &r);
      break;
    case STACKREC_EXPORT_DATADOG_AGENT:
    case STACKREC_EXPORT_DATADOG_AGENTLESS:
      BuildDatadog(c, id, p, &r);
      break;
  }
  return r;
}

}  // namespace stackrec_export
