// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Each protocol's request, as the receiver parsed it: URL and query,
// headers, multipart parts, event.json, and the profile decoded with the
// generated classes and compared with what was recorded.
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "export/export_fixture.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "oracle/otlp_decode.h"
#include "receiver/json_reader.h"
#include "receiver/receiver.h"

namespace stackrec_test {
namespace {

using OtlpResponse =
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceResponse;

// One request of `r`'s, checked to be answered and well formed.
ReceivedRequest OnlyRequest(const Receiver& r) {
  REQUIRE(r.errors().empty());
  const std::vector<ReceivedRequest> all = r.Requests();
  REQUIRE(all.size() == 1);
  return all[0];
}

Json ParseEvent(const ReceivedRequest& req) {
  const MultipartPart* event = req.Part("event");
  REQUIRE(event != nullptr);
  CHECK(event->filename == "event.json");
  CHECK(event->content_type == "application/json");
  Json j;
  std::string error;
  INFO(event->data);
  REQUIRE(ParseJson(event->data, &j, &error));
  REQUIRE(j.type == Json::Type::kObject);
  return j;
}

// "1.4.0": the version the libraries were built as.
std::string Version() {
  return std::to_string(STACKREC_VERSION_MAJOR) + "." + std::to_string(STACKREC_VERSION_MINOR) +
         "." + std::to_string(STACKREC_VERSION_PATCH);
}

std::string Text(const Json& j, const std::string& key) {
  const Json* v = j.Get(key);
  REQUIRE(v != nullptr);
  REQUIRE(v->type == Json::Type::kString);
  return v->text;
}

TEST_CASE("an OTLP request is the serialized request, with its content type and encoding") {
  Receiver r;
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_OTLP, url);
  o.otlp_development_header = true;
  ExporterPtr e = NewExporter(o);
  EncodedPtr profile = ProfileNamed("checkout_handler", STACKREC_FORMAT_OTLP, 3);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const ReceivedRequest req = OnlyRequest(r);
  CHECK(req.method == "POST");
  CHECK(req.target == "/v1development/profiles");
  CHECK(req.Header("content-type") == "application/x-protobuf");
  CHECK(req.Header("content-encoding") == "gzip");
  CHECK(req.Header("otlp-profiles-development-version") == "1");
  CHECK_FALSE(req.Has("expect"));
  const OtlpRequest decoded = DecodeOtlp(req.body);
  const Profile as_pprof = OtlpToPprof(decoded);
  REQUIRE(as_pprof.sample_size() == 3);
  for (const Sample& s : as_pprof.sample()) {
    CHECK(FrameNames(as_pprof, s) == std::vector<std::string>{"checkout_handler", "main"});
    CHECK(s.value(0) == 10);
  }
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.requests_sent == 1);
  CHECK(st.bytes_sent == stackrec_encoded_size(profile.get()));
  CHECK(st.last_http_status == 200);
}

TEST_CASE(
    "an uncompressed OTLP request announces no encoding, and the opt-in header is off by default") {
  Receiver r;
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_OTLP, url));
  stackrec_serialize_options opts{};
  opts.compression = STACKREC_COMPRESSION_NONE;
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP, 1, opts);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const ReceivedRequest req = OnlyRequest(r);
  CHECK_FALSE(req.Has("content-encoding"));
  CHECK_FALSE(req.Has("otlp-profiles-development-version"));
  DecodeOtlp(req.body);
}

TEST_CASE("a collector's partial success is read from its answer and counted") {
  Receiver r;
  OtlpResponse answer;
  answer.mutable_partial_success()->set_rejected_profiles(3);
  answer.mutable_partial_success()->set_error_message("3 profiles had no samples");
  r.SetDefault(Response{200, {"Content-Type: application/x-protobuf"}, answer.SerializeAsString()});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_OTLP, url));
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP);
  SendOk(e.get(), profile.get());
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.requests_sent == 2);
  CHECK(st.partial_success_rejected == 6);
  CHECK(std::string(st.last_error).find("3 profiles had no samples") != std::string::npos);
}

TEST_CASE("a Pyroscope request names the series in its query and carries the profile part") {
  Receiver r;
  const std::string url = r.url() + "/";  // a trailing slash is dropped
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  stackrec_attribute tags[] = {{S("env"), S("prod")}, {S("region"), S("eu west")}};
  o.tags = tags;
  o.tags_len = 2;
  o.sample_rate = 99;
  o.basic_auth_user = S("grafana");
  o.basic_auth_password = S("s3cret-password");
  o.tenant_id = S("team-a");
  ExporterPtr e = NewExporter(o);
  EncodedPtr profile = ProfileNamed("render", STACKREC_FORMAT_PPROF, 2);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const ReceivedRequest req = OnlyRequest(r);
  CHECK(req.method == "POST");
  CHECK(req.path == "/ingest");
  CHECK(req.query.at("name") == "checkout{env=prod,region=eu west}");
  const int64_t start_s = stackrec_encoded_start_ns(profile.get()) / 1000000000;
  const int64_t end_s = (stackrec_encoded_end_ns(profile.get()) + 999999999) / 1000000000;
  CHECK(req.query.at("from") == std::to_string(start_s));
  CHECK(req.query.at("until") == std::to_string(end_s));
  CHECK(req.query.at("spyName") == "stackrec");
  CHECK(req.query.at("sampleRate") == "99");
  // No format=: with one, Pyroscope would read the whole multipart body as
  // the pprof (pkg/ingester/pyroscope/ingest_handler.go).
  CHECK(req.query.count("format") == 0);
  // "grafana:s3cret-password" in base64.
  CHECK(req.Header("authorization") == "Basic Z3JhZmFuYTpzM2NyZXQtcGFzc3dvcmQ=");
  CHECK(req.Header("x-scope-orgid") == "team-a");
  REQUIRE(req.parts.size() == 1);
  const MultipartPart* part = req.Part("profile");
  REQUIRE(part != nullptr);
  CHECK(part->filename == "profile.pprof");
  const Profile p = Decode(part->data);
  REQUIRE(p.sample_size() == 2);
  CHECK(FrameNames(p, p.sample(1)) == std::vector<std::string>{"render", "main"});
  CHECK(p.sample(1).value(0) == 10);
}

TEST_CASE("a bearer token is sent as an Authorization header") {
  Receiver r;
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.bearer_token = S("tok-123");
  stackrec_attribute headers[] = {{S("X-Team"), S("payments")}};
  o.headers = headers;
  o.headers_len = 1;
  ExporterPtr e = NewExporter(o);
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_PPROF);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const ReceivedRequest req = OnlyRequest(r);
  CHECK(req.Header("authorization") == "Bearer tok-123");
  CHECK(req.Header("x-team") == "payments");
  CHECK_FALSE(req.Has("x-scope-orgid"));
}

TEST_CASE("a Datadog agent request has event.json and profile.pprof") {
  Receiver r;
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_DATADOG_AGENT, url);
  stackrec_attribute tags[] = {{S("service"), S("checkout")}, {S("env"), S("prod \"blue\"\\")}};
  o.tags = tags;
  o.tags_len = 2;
  o.family = S("cpp");
  ExporterPtr e = NewExporter(o);
  ProfilePtr p = NewProfile();
  SampleBuilder b;
  b.Frame("handle").Frame("main").Values({5, 1, 5});
  Add(p.get(), b);
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("GET /cart"), 4) == STACKREC_OK);
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("POST \"q\"\n"), 1) == STACKREC_OK);
  stackrec_encoded* out = nullptr;
  REQUIRE(stackrec_profile_serialize(p.get(), nullptr, &out) == STACKREC_OK);
  EncodedPtr profile(out);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const ReceivedRequest req = OnlyRequest(r);
  CHECK(req.path == "/profiling/v1/input");
  CHECK(req.Header("dd-evp-origin") == "stackrec");
  CHECK_FALSE(req.Header("dd-evp-origin-version").empty());
  CHECK_FALSE(req.Has("dd-api-key"));
  REQUIRE(req.parts.size() == 2);
  CHECK(req.parts[0].name == "event");
  CHECK(req.parts[1].name == "profile.pprof");
  CHECK(req.parts[1].filename == "profile.pprof");
  const Json event = ParseEvent(req);
  const Json* attachments = event.Get("attachments");
  REQUIRE(attachments != nullptr);
  REQUIRE(attachments->items.size() == 1);
  CHECK(attachments->items[0].text == "profile.pprof");
  // The host's tags, then what a tracer sends that they do not set, then
  // runtime_platform, last, as libdatadog adds it.
  const std::string sent = Text(event, "tags_profiler");
  const std::string host_tags = "service:checkout,env:prod \"blue\"\\,";
  REQUIRE(sent.compare(0, host_tags.size(), host_tags) == 0);
  std::vector<std::string> added;
  for (size_t at = host_tags.size(); at < sent.size();) {
    const size_t comma = std::min(sent.find(',', at), sent.size());
    added.push_back(sent.substr(at, comma - at));
    at = comma + 1;
  }
  REQUIRE(added.size() == 6);
  CHECK(added[0] == "language:cpp");
  CHECK(added[1] == "process_id:" + std::to_string(getpid()));
  CHECK(added[2].size() == std::string("runtime-id:").size() + 36);
  CHECK(added[2].compare(0, 11, "runtime-id:") == 0);
  CHECK(added[2][11 + 14] == '4');  // a version 4 UUID
  CHECK(added[3].compare(0, 5, "host:") == 0);
  CHECK(added[4] == "profiler_version:stackrec-" + Version());
  CHECK(added[5].compare(0, 17, "runtime_platform:") == 0);
  CHECK(Text(event, "family") == "cpp");
  // internal and info are objects; process_tags is null, as libdatadog
  // writes them.
  REQUIRE(event.Get("internal") != nullptr);
  REQUIRE(event.Get("internal")->type == Json::Type::kObject);
  CHECK(Text(*event.Get("internal"), "stackrec_version") == Version());
  const Json* info = event.Get("info");
  REQUIRE(info != nullptr);
  REQUIRE(info->type == Json::Type::kObject);
  REQUIRE(info->Get("platform") != nullptr);
  CHECK_FALSE(Text(*info->Get("platform"), "kernel_name").empty());
  CHECK(Text(*info->Get("profiler"), "name") == "stackrec");
  REQUIRE(event.Get("process_tags") != nullptr);
  CHECK(event.Get("process_tags")->type == Json::Type::kNull);
  CHECK(Text(event, "version") == "4");
  const std::string start = Text(event, "start"), end = Text(event, "end");
  CHECK(start.size() == 30);  // 2026-01-02T03:04:05.123456789Z
  CHECK(start.back() == 'Z');
  const int64_t start_ns = stackrec_encoded_start_ns(profile.get());
  CHECK(start.substr(20, 9) == [&] {
    char nine[16];
    std::snprintf(nine, sizeof(nine), "%09lld", static_cast<long long>(start_ns % 1000000000));
    return std::string(nine);
  }());
  CHECK(start <= end);
  const Json* counts = event.Get("endpoint_counts");
  REQUIRE(counts != nullptr);
  REQUIRE(counts->type == Json::Type::kObject);
  REQUIRE(counts->Get("GET /cart") != nullptr);
  CHECK(counts->Get("GET /cart")->text == "4");
  REQUIRE(counts->Get("POST \"q\"\n") != nullptr);
  CHECK(counts->Get("POST \"q\"\n")->text == "1");
  const Profile decoded = Decode(req.parts[1].data);
  CHECK(SampleWithFrames(decoded, {"handle", "main"}).value(0) == 5);
}

TEST_CASE("the agentless intake gets DD-API-KEY, and the key appears in no message") {
  Receiver r;
  const std::string key = "dd-key-0123456789abcdef";
  r.SetDefault(Response{403, {}, "forbidden: bad key " + key});
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_DATADOG_AGENTLESS, url);
  o.api_key = S(key);
  ExporterPtr e = NewExporter(o);
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_PPROF);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const ReceivedRequest req = OnlyRequest(r);
  CHECK(req.path == "/api/v2/profile");
  CHECK(req.Header("dd-api-key") == key);
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.failed_http_4xx == 1);
  CHECK(st.last_http_status == 403);
  const std::string message = st.last_error;
  CHECK(message.find("HTTP 403") != std::string::npos);
  CHECK(message.find("[redacted]") != std::string::npos);
  CHECK(message.find(key) == std::string::npos);
  CHECK(std::string(stackrec_last_error()).find(key) == std::string::npos);
}

TEST_CASE("every part of a split profile is a request with the same interval, counts in part 0") {
  Receiver r;
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_DATADOG_AGENT, url));
  ProfilePtr p = NewProfile();
  for (int i = 0; i < 40; ++i) {
    SampleBuilder b;
    b.Frame("f" + std::to_string(i)).Frame("main").Values({1, 1, 1});
    Add(p.get(), b);
  }
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("GET /a"), 7) == STACKREC_OK);
  stackrec_serialize_options opts{};
  opts.part_max_samples = 10;
  stackrec_encoded* out = nullptr;
  REQUIRE(stackrec_profile_serialize(p.get(), &opts, &out) == STACKREC_OK);
  EncodedPtr profile(out);
  const size_t parts = stackrec_encoded_parts_len(profile.get());
  REQUIRE(parts >= 4);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  REQUIRE(r.errors().empty());
  const std::vector<ReceivedRequest> all = r.Requests();
  REQUIRE(all.size() == parts);
  std::set<std::string> frames;
  size_t with_counts = 0;
  std::string start, end;
  for (const ReceivedRequest& req : all) {
    const Json event = ParseEvent(req);
    if (start.empty()) {
      start = Text(event, "start");
      end = Text(event, "end");
    }
    CHECK(Text(event, "start") == start);
    CHECK(Text(event, "end") == end);
    REQUIRE(event.Get("endpoint_counts") != nullptr);
    if (event.Get("endpoint_counts")->type != Json::Type::kNull) {
      ++with_counts;
      CHECK(event.Get("endpoint_counts")->Get("GET /a")->text == "7");
    }
    const Profile decoded = Decode(req.Part("profile.pprof")->data);
    for (const Sample& s : decoded.sample()) frames.insert(FrameNames(decoded, s)[0]);
  }
  CHECK(with_counts == 1);
  CHECK(frames.size() == 40);
  CHECK(StatsOf(e.get()).requests_sent == parts);
}

TEST_CASE("a part a backend would refuse is not sent, and the caller keeps the profile") {
  Receiver r;
  const std::string url = r.url();
  ExporterPtr pyroscope = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  stackrec_serialize_options any{};
  any.target = STACKREC_TARGET_ANY;
  struct Case {
    EncodedPtr encoded;
    std::string message;
  };
  stackrec_serialize_options zstd{};
  zstd.compression = STACKREC_COMPRESSION_ZSTD;
  zstd.target = STACKREC_TARGET_PYROSCOPE;
  Case cases[] = {
      {[] {  // recorded names, not Pyroscope's
         ProfilePtr p = NewProfile();
         SampleBuilder b;
         b.Frame("f").Values({1, 1, 1});
         Add(p.get(), b);
         stackrec_encoded* out = nullptr;
         REQUIRE(stackrec_profile_serialize(p.get(), nullptr, &out) == STACKREC_OK);
         return EncodedPtr(out);
       }(),
       "not sent: part 0 of 1: it was not serialized for Pyroscope: set opts.target = "
       "STACKREC_TARGET_PYROSCOPE"},
      {ProfileNamed("f", STACKREC_FORMAT_PPROF, 1, zstd),
       "not sent: part 0 of 1: it is zstd, and Pyroscope's /ingest decodes gzip or nothing"},
      {ProfileNamed("f", STACKREC_FORMAT_OTLP),
       "not sent: part 0 of 1: it is OTLP, and this "
       "protocol sends pprof"},
      {ProfileNamed("f", STACKREC_FORMAT_PPROF, 16001),
       "not sent: part 0 of 1: it has 16001 samples, over Pyroscope's 16,000"},
  };
  uint64_t refused = 0;
  for (Case& c : cases) {
    INFO(c.message);
    CHECK(stackrec_exporter_send(pyroscope.get(), c.encoded.get()) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()).find(c.message) == 0);
    ++refused;
    const stackrec_export_stats st = StatsOf(pyroscope.get());
    CHECK(st.refused_before_sending == refused);
    CHECK(st.requests_queued == 0);
    CHECK(std::string(st.last_error).find(c.message) == 0);
    // The profile is still the caller's to send elsewhere.
    CHECK(stackrec_encoded_size(c.encoded.get()) > 0);
  }
  // An OTLP collector takes OTLP only; Datadog takes any pprof.
  ExporterPtr otlp = NewExporter(FastOptions(STACKREC_EXPORT_OTLP, url));
  EncodedPtr pprof = ProfileNamed("f", STACKREC_FORMAT_PPROF, 1, any);
  CHECK(stackrec_exporter_send(otlp.get(), pprof.get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("not sent: part 0 of 1: it is pprof") == 0);
  ExporterPtr datadog = NewExporter(FastOptions(STACKREC_EXPORT_DATADOG_AGENT, url));
  SendOk(datadog.get(), pprof.get());
  FlushOk(datadog.get());
  CHECK(r.RequestCount() == 1);
}

}  // namespace
}  // namespace stackrec_test
