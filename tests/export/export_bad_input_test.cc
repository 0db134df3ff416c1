// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Every option and argument of stackrec/export.h refused by name: the
// status, and the message stackrec_last_error() gives. No request is ever
// made: a bad option is refused before an exporter exists.
#include <cstring>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "export/export_fixture.h"

namespace stackrec_test {
namespace {

const std::string kUrl = "http://127.0.0.1:9";

stackrec_exporter_options Valid(stackrec_export_protocol protocol = STACKREC_EXPORT_OTLP) {
  return FastOptions(protocol, kUrl);
}

// Creating an exporter with `o` fails with `status`, and the message
// contains `expected`.
void Refused(const stackrec_exporter_options& o, const std::string& expected,
             stackrec_status status = STACKREC_INVALID_ARGUMENT) {
  stackrec_exporter* e = reinterpret_cast<stackrec_exporter*>(&e);  // poison
  const stackrec_status st = stackrec_exporter_new(&o, &e);
  const std::string message = stackrec_last_error();
  INFO("message: " << message);
  CHECK(st == status);
  CHECK(e == nullptr);
  CHECK(message.find(expected) != std::string::npos);
}

TEST_CASE("the valid options of each protocol are accepted") {
  for (auto protocol : {STACKREC_EXPORT_OTLP, STACKREC_EXPORT_PYROSCOPE,
                        STACKREC_EXPORT_DATADOG_AGENT, STACKREC_EXPORT_DATADOG_AGENTLESS}) {
    stackrec_exporter_options o = Valid(protocol);
    o.api_key = S("key");
    NewExporter(o);
  }
  stackrec_exporter_options o = Valid(STACKREC_EXPORT_DATADOG_AGENTLESS);
  o.endpoint = stackrec_str{nullptr, 0};
  o.api_key = S("key");
  o.site = S("datadoghq.eu");
  NewExporter(o);
}

TEST_CASE("exporter_new refuses NULL arguments and bad struct sizes") {
  stackrec_exporter* e = nullptr;
  const stackrec_exporter_options o = Valid();
  CHECK(stackrec_exporter_new(nullptr, &e) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "opts is NULL");
  CHECK(stackrec_exporter_new(&o, nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "out is NULL");
  CHECK(stackrec_exporter_new_sized(&o, &e, 3) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts_size 3") != std::string::npos);
  // A newer header's longer struct with a field set this library lacks.
  struct Newer {
    stackrec_exporter_options o;
    uint64_t added;
  } newer{};
  newer.o = o;
  newer.added = 1;
  CHECK(stackrec_exporter_new_sized(&newer.o, &e, sizeof(newer)) == STACKREC_UNSUPPORTED);
  newer.added = 0;
  REQUIRE(stackrec_exporter_new_sized(&newer.o, &e, sizeof(newer)) == STACKREC_OK);
  stackrec_exporter_free(e);
}

TEST_CASE("exporter_new refuses a protocol out of the enum") {
  stackrec_exporter_options o = Valid();
  const int bad = 9;
  std::memcpy(&o.protocol, &bad, sizeof(bad));
  Refused(o, "opts.protocol 9");
}

TEST_CASE("exporter_new refuses bad endpoints by name") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "opts.endpoint is empty"},
      {"ftp://127.0.0.1/", "opts.endpoint: the scheme must be http or https"},
      {"127.0.0.1:4318", "opts.endpoint"},
      {"http://", "opts.endpoint"},
      {"http://exa mple.com", "opts.endpoint contains whitespace"},
      {"http://example.com\r\nX-Evil: 1", "opts.endpoint contains a line break"},
      {"http://user:pw@example.com", "user name or password"},
      {"http://example.com/?a=b", "query or fragment"},
  };
  for (const auto& [url, expected] : cases) {
    INFO(url);
    stackrec_exporter_options o = Valid();
    o.endpoint = S(url);
    Refused(o, expected);
  }
  stackrec_exporter_options o = Valid();
  o.endpoint = stackrec_str{nullptr, 4};
  Refused(o, "opts.endpoint.ptr is NULL but its len is 4");
}

TEST_CASE("values sent in headers or the URL are refused with a CR, LF or NUL") {
  const stackrec_attribute good = {S("env"), S("prod")};
  const std::string with_nul("a\0b", 3);
  {
    stackrec_exporter_options o = Valid(STACKREC_EXPORT_PYROSCOPE);
    stackrec_attribute tags[] = {good, good, {S("k"), S("line\nbreak")}};
    o.tags = tags;
    o.tags_len = 3;
    Refused(o, "opts.tags[2].value contains a line break");
  }
  {
    stackrec_exporter_options o = Valid(STACKREC_EXPORT_DATADOG_AGENT);
    stackrec_attribute tags[] = {{S(with_nul), S("v")}};
    o.tags = tags;
    o.tags_len = 1;
    Refused(o, "opts.tags[0].key contains a NUL");
  }
  struct Field {
    stackrec_str stackrec_exporter_options::*member;
    const char* name;
  };
  const Field fields[] = {
      {&stackrec_exporter_options::api_key, "opts.api_key"},
      {&stackrec_exporter_options::app_name, "opts.app_name"},
      {&stackrec_exporter_options::spy_name, "opts.spy_name"},
      {&stackrec_exporter_options::basic_auth_user, "opts.basic_auth_user"},
      {&stackrec_exporter_options::basic_auth_password, "opts.basic_auth_password"},
      {&stackrec_exporter_options::bearer_token, "opts.bearer_token"},
      {&stackrec_exporter_options::tenant_id, "opts.tenant_id"},
      {&stackrec_exporter_options::family, "opts.family"},
      {&stackrec_exporter_options::origin, "opts.origin"},
      {&stackrec_exporter_options::origin_version, "opts.origin_version"},
      {&stackrec_exporter_options::ca_file, "opts.ca_file"},
      {&stackrec_exporter_options::site, "opts.site"},
  };
  for (const Field& f : fields) {
    for (const char* bad : {"a\rb", "a\nb"}) {
      stackrec_exporter_options o = Valid();
      o.*f.member = S(bad);
      Refused(o, std::string(f.name) + " contains a line break");
    }
    stackrec_exporter_options o = Valid();
    o.*f.member = S(with_nul);
    Refused(o, std::string(f.name) + " contains a NUL");
    o.*f.member = S("\xff");
    Refused(o, std::string(f.name) + " is not valid UTF-8");
  }
}

TEST_CASE("tags and headers are checked element by element") {
  stackrec_exporter_options o = Valid(STACKREC_EXPORT_PYROSCOPE);
  o.tags = nullptr;
  o.tags_len = 2;
  Refused(o, "opts.tags is NULL but opts.tags_len is 2");
  stackrec_attribute empty_key[] = {{S(""), S("v")}};
  o.tags = empty_key;
  o.tags_len = 1;
  Refused(o, "opts.tags[0].key is empty");
  stackrec_attribute braces[] = {{S("k"), S("a}b")}};
  o.tags = braces;
  Refused(o, "opts.tags[0].value contains '}'");
  stackrec_attribute comma[] = {{S("k,j"), S("v")}};
  o.tags = comma;
  Refused(o, "opts.tags[0].key contains ','");
  o = Valid();
  o.headers = nullptr;
  o.headers_len = 1;
  Refused(o, "opts.headers is NULL but opts.headers_len is 1");
  stackrec_attribute bad_name[] = {{S("X Team"), S("v")}};
  o.headers = bad_name;
  Refused(o, "opts.headers[0].key is not an HTTP header name");
  stackrec_attribute bad_value[] = {{S("X-Team"), S("v\r\nX-Evil: 1")}};
  o.headers = bad_value;
  Refused(o, "opts.headers[0].value contains a line break");
}

TEST_CASE("each protocol's required options and exclusive ones are checked") {
  stackrec_exporter_options o = Valid(STACKREC_EXPORT_DATADOG_AGENTLESS);
  Refused(o, "opts.api_key is empty");
  o.api_key = S("k");
  o.endpoint = stackrec_str{nullptr, 0};
  o.site = S("evil.com/path");
  Refused(o, "opts.site is not a host name");
  o = Valid(STACKREC_EXPORT_PYROSCOPE);
  o.app_name = stackrec_str{nullptr, 0};
  Refused(o, "opts.app_name is empty");
  o.app_name = S("app{x}");
  Refused(o, "opts.app_name contains '{' or '}'");
  o = Valid();
  o.bearer_token = S("t");
  o.basic_auth_user = S("u");
  Refused(o, "opts.bearer_token is set together with basic auth");
  o = Valid();
  o.basic_auth_password = S("p");
  Refused(o, "opts.basic_auth_user is empty but a password is set");
  o.basic_auth_user = S("a:b");
  Refused(o, "opts.basic_auth_user contains ':'");
}

TEST_CASE("timeouts, retries and backoffs are checked against their limits") {
  stackrec_exporter_options o = Valid();
  o.connect_timeout_ms = 3600001;
  Refused(o, "opts.connect_timeout_ms 3600001 is over the limit");
  o = Valid();
  o.timeout_ms = 3600001;
  Refused(o, "opts.timeout_ms 3600001");
  o = Valid();
  o.initial_backoff_ms = 3600001;
  Refused(o, "opts.initial_backoff_ms 3600001");
  o = Valid();
  o.max_backoff_ms = 3600001;
  Refused(o, "opts.max_backoff_ms 3600001");
  o = Valid();
  o.max_retries = 101;
  Refused(o, "opts.max_retries 101");
  o = Valid();
  o.initial_backoff_ms = 50;
  o.max_backoff_ms = 10;
  Refused(o, "opts.initial_backoff_ms 50 is over opts.max_backoff_ms 10");
}

TEST_CASE("calls on an exporter refuse NULL arguments") {
  ExporterPtr e = NewExporter(Valid());
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP);
  CHECK(stackrec_exporter_send(nullptr, profile.get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "exporter is NULL");
  CHECK(stackrec_exporter_send(e.get(), nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "encoded is NULL");
  CHECK(stackrec_exporter_flush(nullptr, 10) == STACKREC_INVALID_ARGUMENT);
  CHECK(stackrec_exporter_flush(e.get(), 10) == STACKREC_OK);  // nothing queued
  stackrec_export_stats s{};
  CHECK(stackrec_exporter_stats(nullptr, &s) == STACKREC_INVALID_ARGUMENT);
  CHECK(stackrec_exporter_stats(e.get(), nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "out is NULL");
  CHECK(stackrec_exporter_stats_sized(e.get(), &s, 5) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("out_size 5") != std::string::npos);
  CHECK(stackrec_exporter_shutdown(nullptr, 0) == STACKREC_INVALID_ARGUMENT);
  CHECK(stackrec_exporter_reset_after_fork(nullptr) == STACKREC_INVALID_ARGUMENT);
  stackrec_exporter_free(nullptr);
}

TEST_CASE("start_periodic refuses a NULL recorder and a short period") {
  ExporterPtr e = NewExporter(Valid());
  Options types;
  RecorderPtr recorder = NewRecorder(types.opts);
  CHECK(stackrec_exporter_start_periodic(nullptr, recorder.get(), nullptr, 100) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(stackrec_exporter_start_periodic(e.get(), nullptr, nullptr, 100) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "recorder is NULL");
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), nullptr, 9) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("period_ms 9") != std::string::npos);
  stackrec_serialize_options opts{};
  opts.format = STACKREC_FORMAT_OTLP;
  CHECK(stackrec_exporter_start_periodic_sized(e.get(), recorder.get(), &opts, 100, 7) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts_size 7") != std::string::npos);
  CHECK(stackrec_exporter_shutdown(e.get(), 100) == STACKREC_OK);
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), nullptr, 100) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "exporter is shut down");
}

TEST_CASE("stats fit an older host's shorter struct and zero a newer one's tail") {
  ExporterPtr e = NewExporter(Valid());
  struct Newer {
    stackrec_export_stats s;
    uint64_t added;
  } newer;
  std::memset(&newer, 0xAB, sizeof(newer));
  REQUIRE(stackrec_exporter_stats_sized(e.get(), &newer.s, sizeof(newer)) == STACKREC_OK);
  CHECK(newer.added == 0);
  CHECK(newer.s.requests_queued == 0);
  unsigned char older[sizeof(stackrec_export_stats) + 8];
  std::memset(older, 0xAB, sizeof(older));
  REQUIRE(stackrec_exporter_stats_sized(e.get(), reinterpret_cast<stackrec_export_stats*>(older),
                                        8) == STACKREC_OK);
  CHECK(older[8] == 0xAB);  // nothing past what the host has room for
}

TEST_CASE("STACKREC_TIMED_OUT has its name, and last_error_set sets the thread's message") {
  CHECK(std::string(stackrec_status_name(STACKREC_TIMED_OUT)) == "STACKREC_TIMED_OUT");
  stackrec_last_error_set("from a layered library");
  CHECK(std::string(stackrec_last_error()) == "from a layered library");
  stackrec_last_error_set(nullptr);
  CHECK(std::string(stackrec_last_error()).empty());
  const std::string longer(2000, 'x');
  stackrec_last_error_set(longer.c_str());
  CHECK(std::string(stackrec_last_error()) == std::string(511, 'x'));
}

}  // namespace
}  // namespace stackrec_test

namespace stackrec_test {
namespace {

TEST_CASE("options Pyroscope would refuse are refused when the exporter is created") {
  struct Case {
    std::vector<stackrec_attribute> tags;
    const char* app_name;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "my app", "opts.app_name holds ' ', and Pyroscope takes a service name of"},
      {{}, "svc:1", "opts.app_name holds ':', and Pyroscope takes"},
      {{{S("thread name"), S("x")}},
       "app",
       "opts.tags[0].key holds ' ', and Pyroscope takes a label"},
      {{{S("a"), S("1")}, {S("thread-name"), S("x")}}, "app", "opts.tags[1].key holds '-'"},
      {{{S("1k"), S("v")}}, "app", "opts.tags[0].key starts with a digit, which Pyroscope 1.x"},
      {{{S("__foo"), S("v")}}, "app", "opts.tags[0].key starts with \"__\", which Pyroscope drops"},
      {{{S("env"), S("")}}, "app", "opts.tags[0].value is empty, and Pyroscope drops a label"},
      {{{S("env"), S("a")}, {S("env"), S("b")}}, "app", "opts.tags[1].key repeats an earlier key"},
      {std::vector<stackrec_attribute>(11, stackrec_attribute{S("k"), S("v")}), "app",
       "opts.tags_len 11: Pyroscope takes 30 label names a series"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    stackrec_exporter_options o = Valid(STACKREC_EXPORT_PYROSCOPE);
    o.app_name = S(c.app_name);
    o.tags = c.tags.data();
    o.tags_len = c.tags.size();
    stackrec_exporter* e = reinterpret_cast<stackrec_exporter*>(1);
    CHECK(stackrec_exporter_new(&o, &e) == STACKREC_INVALID_ARGUMENT);
    CHECK(e == nullptr);
    CHECK(std::string(stackrec_last_error()).find(c.message) == 0);
  }
  // What Pyroscope takes: dots and slashes in the app name, dots in keys,
  // a value with spaces.
  stackrec_exporter_options o = Valid(STACKREC_EXPORT_PYROSCOPE);
  o.app_name = S("shop/checkout-api.v2");
  stackrec_attribute tags[] = {{S("k8s.namespace"), S("prod blue/1")}};
  o.tags = tags;
  o.tags_len = 1;
  stackrec_exporter* e = nullptr;
  REQUIRE(stackrec_exporter_new(&o, &e) == STACKREC_OK);
  stackrec_exporter_free(e);
}

TEST_CASE("tags libdatadog would refuse are refused when the exporter is created") {
  const std::pair<stackrec_attribute, const char*> cases[] = {
      {{S(":env"), S("prod")}, "opts.tags[0].key begins with a colon, which libdatadog refuses"},
      {{S("env"), S("")}, "opts.tags[0].value is empty, and libdatadog refuses a tag that ends"},
      {{S("env"), S("prod:")}, "opts.tags[0].value is ending with ':', and libdatadog refuses"},
  };
  for (const auto& [tag, message] : cases) {
    INFO(message);
    for (auto protocol : {STACKREC_EXPORT_DATADOG_AGENT, STACKREC_EXPORT_DATADOG_AGENTLESS}) {
      stackrec_exporter_options o = Valid(protocol);
      o.api_key = S("key");
      o.tags = &tag;
      o.tags_len = 1;
      stackrec_exporter* e = reinterpret_cast<stackrec_exporter*>(1);
      CHECK(stackrec_exporter_new(&o, &e) == STACKREC_INVALID_ARGUMENT);
      CHECK(std::string(stackrec_last_error()).find(message) == 0);
    }
  }
}

}  // namespace
}  // namespace stackrec_test
