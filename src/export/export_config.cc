// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/export_config.h"

#include <curl/curl.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "base/utf8.h"
#include "export/backend_rules.h"
#include "export/export_status.h"

namespace stackrec_export {
namespace {

constexpr size_t kMaxStructBytes = 4096;  // as the core's growable structs
constexpr uint32_t kMaxMillis = 3600000;
constexpr int kMaxRetries = 100;

// A {ptr, len} string of the options, copied; refused by name when the
// pointer is NULL with a length, when it is too long or not UTF-8, or, for
// a value that goes into a header or the URL, when it holds a CR, LF or
// NUL.
stackrec_status ReadString(stackrec_str s, const std::string& field, bool sent, std::string* out) {
  if (s.ptr == nullptr && s.len != 0) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s.ptr is NULL but its len is %zu", field.c_str(),
                s.len);
  }
  if (s.len > STACKREC_MAX_STR_LEN) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s.len %zu is over the %zu byte limit", field.c_str(),
                s.len, static_cast<size_t>(STACKREC_MAX_STR_LEN));
  }
  const std::string_view v = s.len == 0 ? std::string_view() : std::string_view(s.ptr, s.len);
  if (sent) {
    for (const char c : v) {
      if (c == '\r' || c == '\n') {
        return Fail(STACKREC_INVALID_ARGUMENT, "%s contains a line break", field.c_str());
      }
      if (c == '\0') return Fail(STACKREC_INVALID_ARGUMENT, "%s contains a NUL", field.c_str());
    }
  }
  if (!stackrec::IsValidUtf8({v.data(), v.size()})) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s is not valid UTF-8", field.c_str());
  }
  out->assign(v);
  return STACKREC_OK;
}

bool IsToken(std::string_view s) {  // an HTTP header name (RFC 9110 token)
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
    if (!ok || c == '\0') return false;
  }
  return true;
}

// Tags: keys non-empty; no ',' anywhere (both tag syntaxes split on it),
// and for Pyroscope's name{k=v} none of '{', '}', '=' either.
stackrec_status ReadTags(const stackrec_exporter_options& o, KeyValues* out) {
  if (o.tags == nullptr && o.tags_len != 0) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.tags is NULL but opts.tags_len is %zu",
                o.tags_len);
  }
  if (o.tags_len > STACKREC_MAX_ARRAY_LEN) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.tags_len %zu is over the limit of %zu", o.tags_len,
                static_cast<size_t>(STACKREC_MAX_ARRAY_LEN));
  }
  const char* reserved = o.protocol == STACKREC_EXPORT_PYROSCOPE ? ",{}=" : ",";
  for (size_t i = 0; i < o.tags_len; ++i) {
    std::string key, value;
    const std::string at = "opts.tags[" + std::to_string(i) + "]";
    stackrec_status st = ReadString(o.tags[i].key, at + ".key", true, &key);
    if (st == STACKREC_OK) st = ReadString(o.tags[i].value, at + ".value", true, &value);
    if (st != STACKREC_OK) return st;
    if (key.empty()) return Fail(STACKREC_INVALID_ARGUMENT, "%s.key is empty", at.c_str());
    for (const auto* part : {&key, &value}) {
      const size_t bad = part->find_first_of(reserved);
      if (bad != std::string::npos) {
        return Fail(STACKREC_INVALID_ARGUMENT,
                    "%s.%s contains '%c', which this protocol's tags "
                    "cannot hold",
                    at.c_str(), part == &key ? "key" : "value", (*part)[bad]);
      }
    }
    out->emplace_back(std::move(key), std::move(value));
  }
  return STACKREC_OK;
}

stackrec_status ReadHeaders(const stackrec_exporter_options& o, KeyValues* out) {
  if (o.headers == nullptr && o.headers_len != 0) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.headers is NULL but opts.headers_len is %zu",
                o.headers_len);
  }
  if (o.headers_len > STACKREC_MAX_ARRAY_LEN) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.headers_len %zu is over the limit of %zu",
                o.headers_len, static_cast<size_t>(STACKREC_MAX_ARRAY_LEN));
  }
  for (size_t i = 0; i < o.headers_len; ++i) {
    std::string name, value;
    const std::string at = "opts.headers[" + std::to_string(i) + "]";
    stackrec_status st = ReadString(o.headers[i].key, at + ".key", true, &name);
    if (st == STACKREC_OK) st = ReadString(o.headers[i].value, at + ".value", true, &value);
    if (st != STACKREC_OK) return st;
    if (!IsToken(name)) {
      return Fail(STACKREC_INVALID_ARGUMENT, "%s.key is not an HTTP header name", at.c_str());
    }
    out->emplace_back(std::move(name), std::move(value));
  }
  return STACKREC_OK;
}

stackrec_status CheckMillis(uint32_t v, const char* field) {
  if (v > kMaxMillis) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s %u is over the limit of %u ms", field, v,
                kMaxMillis);
  }
  return STACKREC_OK;
}

stackrec_status ReadProtocolUrl(const stackrec_exporter_options& o, Config* c) {
  std::string endpoint, site;
  stackrec_status st = ReadString(o.endpoint, "opts.endpoint", true, &endpoint);
  if (st == STACKREC_OK) st = ReadString(o.site, "opts.site", true, &site);
  if (st != STACKREC_OK) return st;
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  if (c->protocol == STACKREC_EXPORT_DATADOG_AGENTLESS && endpoint.empty()) {
    if (site.empty()) site = "datadoghq.com";
    for (const char ch : site) {
      const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
      if (!ok) {
        return Fail(STACKREC_INVALID_ARGUMENT, "opts.site is not a host name, e.g. datadoghq.eu");
      }
    }
    c->url = "https://intake.profile." + site + "/api/v2/profile";
    return CheckUrl(c->url, "opts.site");
  }
  if (endpoint.empty()) return Fail(STACKREC_INVALID_ARGUMENT, "opts.endpoint is empty");
  st = CheckUrl(endpoint, "opts.endpoint");
  if (st != STACKREC_OK) return st;
  switch (c->protocol) {
    case STACKREC_EXPORT_OTLP:
      c->url = endpoint + "/v1development/profiles";
      break;
    case STACKREC_EXPORT_PYROSCOPE:
      c->url = endpoint + "/ingest";
      break;
    case STACKREC_EXPORT_DATADOG_AGENT:
      c->url = endpoint + "/profiling/v1/input";
      break;
    case STACKREC_EXPORT_DATADOG_AGENTLESS:
      c->url = endpoint + "/api/v2/profile";
      break;
  }
  return STACKREC_OK;
}

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct CurlStringDeleter {
  void operator()(char* p) const { curl_free(p); }
};
using CurlString = std::unique_ptr<char, CurlStringDeleter>;

CurlString UrlPart(CURLU* u, CURLUPart part) {
  char* p = nullptr;
  if (curl_url_get(u, part, &p, 0) != CURLUE_OK) return CurlString();
  return CurlString(p);
}

}  // namespace

stackrec_status CheckUrl(const std::string& url, const char* field) {
  for (const char c : url) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || static_cast<unsigned char>(c) < 0x20 ||
        c == 0x7F) {
      return Fail(STACKREC_INVALID_ARGUMENT, "%s contains whitespace or a control character",
                  field);
    }
  }
  std::unique_ptr<CURLU, UrlDeleter> u(curl_url());
  if (u == nullptr) return Fail(STACKREC_OUT_OF_MEMORY, "out of memory parsing %s", field);
  if (curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s is not a URL (http://host:port/...)", field);
  }
  const CurlString scheme = UrlPart(u.get(), CURLUPART_SCHEME);
  if (scheme == nullptr ||
      (std::strcmp(scheme.get(), "http") != 0 && std::strcmp(scheme.get(), "https") != 0)) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s: the scheme must be http or https", field);
  }
  const CurlString host = UrlPart(u.get(), CURLUPART_HOST);
  if (host == nullptr || *host == '\0') {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s has no host", field);
  }
  if (UrlPart(u.get(), CURLUPART_USER) != nullptr ||
      UrlPart(u.get(), CURLUPART_PASSWORD) != nullptr) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "%s holds a user name or password: use the exporter's auth options", field);
  }
  if (UrlPart(u.get(), CURLUPART_QUERY) != nullptr ||
      UrlPart(u.get(), CURLUPART_FRAGMENT) != nullptr) {
    return Fail(STACKREC_INVALID_ARGUMENT, "%s has a query or fragment: give the base URL only",
                field);
  }
  return STACKREC_OK;
}

stackrec_status ReadConfig(const stackrec_exporter_options* host, size_t opts_size, Config* c) {
  if (host == nullptr) return Fail(STACKREC_INVALID_ARGUMENT, "opts is NULL");
  if (opts_size == 0 || opts_size % alignof(stackrec_exporter_options) != 0 ||
      opts_size > kMaxStructBytes) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts_size %zu is not the size of a version of the struct (a multiple of %zu, at "
                "most %zu)",
                opts_size, alignof(stackrec_exporter_options), kMaxStructBytes);
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(host);
  for (size_t i = sizeof(stackrec_exporter_options); i < opts_size; ++i) {
    if (bytes[i] != 0) {
      return Fail(STACKREC_UNSUPPORTED,
                  "opts sets byte %zu of its %zu, but this libstackrec_export knows the first %zu "
                  "only: the host was built against a newer header than this library's",
                  i, opts_size, sizeof(stackrec_exporter_options));
    }
  }
  // An older header's shorter struct: the fields it lacks take their defaults.
  stackrec_exporter_options o;
  std::memset(&o, 0, sizeof(o));
  std::memcpy(&o, host, opts_size < sizeof(o) ? opts_size : sizeof(o));

  int protocol;
  std::memcpy(&protocol, &o.protocol, sizeof(protocol));
  if (protocol < STACKREC_EXPORT_OTLP || protocol > STACKREC_EXPORT_DATADOG_AGENTLESS) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.protocol %d is not a stackrec_export_protocol",
                protocol);
  }
  c->protocol = o.protocol;
  stackrec_status st = ReadProtocolUrl(o, c);
  if (st != STACKREC_OK) return st;

  struct Field {
    stackrec_str value;
    const char* name;
    std::string* out;
  };
  const Field fields[] = {
      {o.api_key, "opts.api_key", &c->api_key},
      {o.app_name, "opts.app_name", &c->app_name},
      {o.spy_name, "opts.spy_name", &c->spy_name},
      {o.basic_auth_user, "opts.basic_auth_user", &c->basic_user},
      {o.basic_auth_password, "opts.basic_auth_password", &c->basic_password},
      {o.bearer_token, "opts.bearer_token", &c->bearer_token},
      {o.tenant_id, "opts.tenant_id", &c->tenant_id},
      {o.family, "opts.family", &c->family},
      {o.origin, "opts.origin", &c->origin},
      {o.origin_version, "opts.origin_version", &c->origin_version},
      {o.ca_file, "opts.ca_file", &c->ca_file},
  };
  for (const Field& f : fields) {
    st = ReadString(f.value, f.name, true, f.out);
    if (st != STACKREC_OK) return st;
  }
  st = ReadTags(o, &c->tags);
  if (st == STACKREC_OK) st = ReadHeaders(o, &c->headers);
  if (st != STACKREC_OK) return st;

  if (c->protocol == STACKREC_EXPORT_DATADOG_AGENTLESS && c->api_key.empty()) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts.api_key is empty, and the agentless intake needs one");
  }
  if (c->protocol == STACKREC_EXPORT_PYROSCOPE && c->app_name.empty()) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.app_name is empty, and Pyroscope needs one");
  }
  if (c->app_name.find_first_of("{}") != std::string::npos) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.app_name contains '{' or '}'");
  }
  if (!c->bearer_token.empty() && (!c->basic_user.empty() || !c->basic_password.empty())) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts.bearer_token is set together with basic auth: choose one");
  }
  if (c->basic_user.empty() && !c->basic_password.empty()) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.basic_auth_user is empty but a password is set");
  }
  if (c->basic_user.find(':') != std::string::npos) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.basic_auth_user contains ':'");
  }
  if (c->spy_name.empty()) c->spy_name = "stackrec";
  if (c->family.empty()) c->family = "native";
  if (c->origin.empty()) c->origin = "stackrec";
  if (c->origin_version.empty()) c->origin_version = STACKREC_EXPORT_VERSION_STRING;
  c->sample_rate = o.sample_rate == 0 ? 100 : o.sample_rate;
  c->otlp_development_header = o.otlp_development_header;
  c->insecure = o.insecure;

  c->max_queue_bytes = o.max_queue_bytes == 0 ? size_t{64} << 20 : o.max_queue_bytes;
  c->max_queue_requests = o.max_queue_requests == 0 ? 64 : o.max_queue_requests;
  st = CheckMillis(o.connect_timeout_ms, "opts.connect_timeout_ms");
  if (st == STACKREC_OK) st = CheckMillis(o.timeout_ms, "opts.timeout_ms");
  if (st == STACKREC_OK) st = CheckMillis(o.initial_backoff_ms, "opts.initial_backoff_ms");
  if (st == STACKREC_OK) st = CheckMillis(o.max_backoff_ms, "opts.max_backoff_ms");
  if (st != STACKREC_OK) return st;
  if (o.max_retries > kMaxRetries) {
    return Fail(STACKREC_INVALID_ARGUMENT, "opts.max_retries %d is over the limit of %d",
                o.max_retries, kMaxRetries);
  }
  c->connect_timeout_ms = o.connect_timeout_ms == 0 ? 10000 : o.connect_timeout_ms;
  c->timeout_ms = o.timeout_ms == 0 ? 30000 : o.timeout_ms;
  c->max_retries = o.max_retries == 0 ? 3 : (o.max_retries < 0 ? 0 : o.max_retries);
  c->initial_backoff_ms = o.initial_backoff_ms == 0 ? 100 : o.initial_backoff_ms;
  c->max_backoff_ms = o.max_backoff_ms == 0 ? 10000 : o.max_backoff_ms;
  if (c->initial_backoff_ms > c->max_backoff_ms) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts.initial_backoff_ms %u is over opts.max_backoff_ms %u (after defaults)",
                c->initial_backoff_ms, c->max_backoff_ms);
  }
  return CheckBackendOptions(*c);
}

std::vector<std::string> Config::Secrets() const { return {api_key, basic_password, bearer_token}; }

std::string Redact(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 10)) {
      text.replace(at, secret.size(), "[redacted]");
    }
  }
  return text;
}

}  // namespace stackrec_export
