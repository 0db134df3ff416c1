// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The backends' rules as ported (pyroscope_rules.h, datadog_rules.h),
// checked against the backends' own test vectors, each cited; and the
// exporter's check before sending (src/export/backend_rules.h) held to
// the ports: what one refuses, the other refuses.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "export/backend_rules.h"
#include "export/export_config.h"
#include "export/process_identity.h"
#include "profile.pb.h"
#include "receiver/backends/datadog_rules.h"
#include "receiver/backends/pyroscope_rules.h"

namespace stackrec_test {
namespace {

using pyroscope::Version;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A /ingest request as the exporter sends it, of `p` under `name`.
ReceivedRequest IngestRequest(const perftools::profiles::Profile& p, const std::string& name) {
  ReceivedRequest req;
  req.method = "POST";
  req.path = "/ingest";
  req.query = {{"name", name}, {"spyName", "stackrec"}, {"from", "0"}};
  req.headers = {{"content-type", "multipart/form-data; boundary=x"}};
  req.parts.push_back(
      {"profile", "profile.pprof", "application/octet-stream", p.SerializeAsString()});
  return req;
}

// One sample of one frame, with the sample types and labels given.
perftools::profiles::Profile OneSample(
    const std::vector<std::string>& types,
    const std::vector<std::pair<std::string, std::string>>& string_labels = {},
    int64_t time_ns = 0) {
  perftools::profiles::Profile p;
  p.add_string_table("");
  auto str = [&](const std::string& s) {
    for (int i = 0; i < p.string_table_size(); ++i) {
      if (p.string_table(i) == s) return static_cast<int64_t>(i);
    }
    p.add_string_table(s);
    return static_cast<int64_t>(p.string_table_size() - 1);
  };
  auto* sample = p.add_sample();
  for (const std::string& t : types) {
    auto* vt = p.add_sample_type();
    vt->set_type(str(t));
    vt->set_unit(str("count"));
    sample->add_value(1);
  }
  auto* fn = p.add_function();
  fn->set_id(1);
  fn->set_name(str("main"));
  auto* loc = p.add_location();
  loc->set_id(1);
  loc->add_line()->set_function_id(1);
  sample->add_location_id(1);
  for (const auto& [key, value] : string_labels) {
    auto* l = sample->add_label();
    l->set_key(str(key));
    l->set_str(str(value));
  }
  p.set_time_nanos(time_ns);
  return p;
}

TEST_CASE("the /ingest name parser keeps Pyroscope's own test vectors") {
  // api/model/labelset/labelset_test.go, and its parser run on edge cases.
  struct Case {
    std::string name;
    bool ok;
    std::string result;  // the labels "k=v;..." or the error
  };
  const Case cases[] = {
      {"foo", true, "__name__=foo;"},
      {"foo{bar=1,baz=2}", true, "__name__=foo;bar=1;baz=2;"},
      {" foo { bar = 1 , baz = 2 } ", true, "__name__=foo;bar=1;baz=2;"},
      {"", false, "service name is required"},
      {"{}", false, "service name is required"},
      {"my-app", true, "__name__=my-app;"},
      {"my.app/x", true, "__name__=my.app/x;"},
      {"my app", false, "invalid service name: my app: character is not allowed: ' '"},
      {"my_app:1", false, "invalid service name: my_app:1: character is not allowed: ':'"},
      {"app{thread name=x}", false,
       "invalid label name: thread name: character is not allowed: ' '"},
      {"app{thread-name=x}", false,
       "invalid label name: thread-name: character is not allowed: '-'"},
      {"app{thread.name=x}", true, "__name__=app;thread.name=x;"},
      {"app{1k=v}", true, "1k=v;__name__=app;"},
      {"app{=v}", false, "label name is required"},
      {"app{k=v with space}", true, "__name__=app;k=v with space;"},
      {"app{k=a=b}", true, "__name__=app;k=a=b;"},
      {"app{k=v", true, "__name__=app;"},
      {"app{k}", true, "__name__=app;"},
      {"app{k=v,k=w}", true, "__name__=app;k=w;"},
      {"app{k=v,}", true, "__name__=app;k=v;"},
      {"app{,k=v}", false, "invalid label name: ,k: character is not allowed: ','"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::map<std::string, std::string> labels;
    std::string error;
    const bool ok = pyroscope::ParseName(c.name, &labels, &error);
    CHECK(ok == c.ok);
    std::string result;
    for (const auto& [k, v] : labels) result += k + "=" + v + ";";
    CHECK((ok ? result : error) == c.result);
  }
}

TEST_CASE("1.x's label name sanitizer keeps Pyroscope's own test vectors") {
  // pkg/validation/validate_test.go Test_SanitizeLegacyLabelName@v1.
  const std::pair<std::string, std::string> kept[] = {
      {"service", "service"},   {"_service", "_service"},
      {"__a__", "__a__"},       {"service.name", "service_name"},
      {".service", "_service"}, {"..a..", "__a__"},
      {"a.0", "a_0"},           {"ServiceName", "ServiceName"}};
  for (const auto& [in, out] : kept) {
    std::string got;
    CHECK(pyroscope::SanitizeLegacyLabelName(in, &got));
    CHECK(got == out);
  }
  for (const std::string in : {"", "123service", "0.a", "service-name", "service name",
                               "service@name", "\xe4\xb8\x96\xe7\x95\x8c"}) {
    INFO(in);
    std::string got;
    CHECK_FALSE(pyroscope::SanitizeLegacyLabelName(in, &got));
  }
}

TEST_CASE("Pyroscope refuses a '-' in a sample type, and format=pprof with a multipart body") {
  const int64_t now = NowNs();
  for (Version v : {Version::kMain, Version::kV1}) {
    INFO(pyroscope::VersionName(v));
    pyroscope::Verdict ok = pyroscope::Ingest(v, IngestRequest(OneSample({"cpu"}), "app"), now);
    CHECK(ok.stored);
    CHECK(ok.profile_types == std::set<std::string>{"process_cpu:cpu:count::"});
    const pyroscope::Verdict dash =
        pyroscope::Ingest(v, IngestRequest(OneSample({"cpu-time"}), "app"), now);
    CHECK(dash.status == 422);
    CHECK(dash.message == "sample type contains -");
    ReceivedRequest with_format = IngestRequest(OneSample({"cpu"}), "app");
    with_format.query["format"] = "pprof";
    with_format.body = "--x\r\ncontent-disposition: form-data; name=\"profile\"\r\n\r\n...";
    CHECK(pyroscope::Ingest(v, with_format, now).status == 422);
    // A part without a filename is not read: 200, and nothing stored.
    ReceivedRequest no_filename = IngestRequest(OneSample({"cpu"}), "app");
    no_filename.parts[0].filename.clear();
    const pyroscope::Verdict empty = pyroscope::Ingest(v, no_filename, now);
    CHECK(empty.status == 200);
    CHECK_FALSE(empty.stored);
  }
}

TEST_CASE("Pyroscope's window, labels and burst, as each version applies them") {
  const int64_t now = NowNs();
  const int64_t minute = int64_t{60} * 1000000000;
  // validate_test.go TestValidateProfile: 61 minutes old, or an hour ahead,
  // is outside the window; a minute old is inside.
  for (Version v : {Version::kMain, Version::kV1}) {
    CHECK(pyroscope::Ingest(v, IngestRequest(OneSample({"cpu"}, {}, now - 61 * minute), "a"), now)
              .message.find("is outside of ingestion window") != std::string::npos);
    CHECK(pyroscope::Ingest(v, IngestRequest(OneSample({"cpu"}, {}, now + 60 * minute), "a"), now)
              .message.find("is outside of ingestion window") != std::string::npos);
    CHECK(
        pyroscope::Ingest(v, IngestRequest(OneSample({"cpu"}, {}, now - minute), "a"), now).stored);
  }
  // A string label with a space becomes a series label: 1.x refuses it,
  // main takes it; span_id stays on the sample at both, trace_id at main.
  const auto spaced = IngestRequest(OneSample({"cpu"}, {{"thread name", "main"}}), "a");
  CHECK(pyroscope::Ingest(Version::kV1, spaced, now).message ==
        "invalid labels '{__delta__=\"false\", __name__=\"process_cpu\", "
        "pyroscope_spy=\"stackrec\", service_name=\"a\", thread name=\"main\"}' with error: "
        "invalid label name 'thread name'");
  CHECK(pyroscope::Ingest(Version::kMain, spaced, now).stored);
  const auto traced =
      IngestRequest(OneSample({"cpu"}, {{"span_id", "00ab"}, {"trace_id", "01cd"}}), "a");
  const pyroscope::Verdict main = pyroscope::Ingest(Version::kMain, traced, now);
  const pyroscope::Verdict v1 = pyroscope::Ingest(Version::kV1, traced, now);
  REQUIRE(main.series.size() == 1);
  CHECK(main.series.begin()->find("trace_id") == std::string::npos);
  REQUIRE(v1.series.size() == 1);
  CHECK(v1.series.begin()->find("trace_id=\"01cd\"") != std::string::npos);
  // Over the 2 MiB burst: 429 at main, 422 at 1.x.
  perftools::profiles::Profile big = OneSample({"cpu"});
  big.add_string_table(std::string(size_t{2} << 20, 'x'));
  CHECK(pyroscope::Ingest(Version::kMain, IngestRequest(big, "a"), now).status == 429);
  CHECK(pyroscope::Ingest(Version::kV1, IngestRequest(big, "a"), now).status == 422);
}

TEST_CASE("libdatadog's tag check keeps its own test vectors") {
  // libdd-common/src/tag.rs tests.
  const std::pair<std::string, std::string> cases[] = {
      {"key:value", ""},
      {"key:value:with:colons", ""},
      {":value", "tag ':value' begins with a colon"},
      {"key:", "tag 'key:' ends with a colon"},
      {"", "tag is empty"},
      {"tag", ""},
      {":woof", "tag ':woof' begins with a colon"},
      {"key1:", "tag 'key1:' ends with a colon"},
      {"env:staging:east", ""},
      {"_begins_with_non-letter:value", ""},
  };
  for (const auto& [tag, message] : cases) {
    INFO(tag);
    CHECK(datadog::ValidateTag(tag) == message);
  }
}

// The exporter's creation check and the ports agree: an app name or a tag
// the exporter takes, Pyroscope takes, and one it refuses, Pyroscope
// refuses or drops.
TEST_CASE("the exporter refuses at creation exactly the names Pyroscope refuses") {
  const std::vector<std::string> app_names = {"checkout", "my-app",      "my.app/x", "my app",
                                              "my_app:1", "app\xc3\xbc", "a{b"};
  const std::vector<std::string> keys = {"env", "k8s.namespace", "thread name", "thread-name", "1k",
                                         "_x",  "k\xc3\xbc"};
  const int64_t now = NowNs();
  for (const std::string& app : app_names) {
    for (const std::string& key : keys) {
      INFO(app << " / " << key);
      stackrec_export::Config c;
      c.protocol = STACKREC_EXPORT_PYROSCOPE;
      c.app_name = app;
      c.tags = {{key, "v"}};
      const bool exporter_takes = stackrec_export::CheckBackendOptions(c) == STACKREC_OK &&
                                  app.find_first_of("{}") == std::string::npos;
      bool both_take = true;
      for (Version v : {Version::kMain, Version::kV1}) {
        const auto verdict =
            pyroscope::Ingest(v, IngestRequest(OneSample({"cpu"}), app + "{" + key + "=v}"), now);
        both_take =
            both_take && verdict.stored && verdict.series.begin()->find(key) != std::string::npos;
      }
      CHECK(exporter_takes == both_take);
    }
  }
}

TEST_CASE("the exporter refuses at creation exactly the tags libdatadog refuses") {
  const std::vector<std::pair<std::string, std::string>> tags = {
      {"env", "prod"}, {":env", "prod"}, {"env", ""}, {"env", "prod:"}, {"env", "a:b"}};
  for (const auto& [key, value] : tags) {
    INFO(key << ":" << value);
    stackrec_export::Config c;
    c.protocol = STACKREC_EXPORT_DATADOG_AGENT;
    c.tags = {{key, value}};
    CHECK((stackrec_export::CheckBackendOptions(c) == STACKREC_OK) ==
          datadog::ValidateTag(key + ":" + value).empty());
  }
}

// The rules of each backend that a part's figures break, one at a time.
TEST_CASE("the exporter refuses a part each backend would refuse, by its figures") {
  const int64_t now = NowNs();
  const int64_t minute = int64_t{60} * 1000000000;
  auto check = [&](stackrec_export_protocol protocol, const stackrec_export::PartFacts& f) {
    stackrec_export::Config c;
    c.protocol = protocol;
    return stackrec_export::CheckPart(c, f, now);
  };
  stackrec_export::PartFacts pyroscope;
  pyroscope.target = STACKREC_TARGET_PYROSCOPE;
  pyroscope.sample_types = {{"cpu", "nanoseconds"}};
  pyroscope.bytes = 100000;
  pyroscope.uncompressed_bytes = stackrec_export::kPyroscopeMaxPartBytes;
  pyroscope.samples = 16000;
  pyroscope.start_ns = now - 50 * minute;
  CHECK(check(STACKREC_EXPORT_PYROSCOPE, pyroscope).empty());
  struct Case {
    void (*breaks)(stackrec_export::PartFacts*);
    const char* message;
  };
  const Case cases[] = {
      {[](stackrec_export::PartFacts* f) { f->uncompressed_bytes += 1; },
       "part 0 of 1: it is 1998849 bytes uncompressed, over the 1998848 of Pyroscope's 2 MiB"},
      {[](stackrec_export::PartFacts* f) { f->samples += 1; },
       "part 0 of 1: it has 16001 samples, over Pyroscope's 16,000"},
      {[](stackrec_export::PartFacts* f) { f->start_ns -= 10 * 60 * int64_t{1000000000}; },
       "part 0 of 1: it starts 3600 s ago, and Pyroscope refuses a profile older than 1 hour"},
      {[](stackrec_export::PartFacts* f) { f->start_ns += 60 * 60 * int64_t{1000000000}; },
       "part 0 of 1: it starts 600 s from now, and Pyroscope refuses a profile more than 10 "
       "minutes ahead"},
      {[](stackrec_export::PartFacts* f) {
         f->sample_types.push_back({"wall-time", "ns"});
       },
       "part 0 of 1: its sample type 'wall-time' holds a '-'"},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    stackrec_export::PartFacts f = pyroscope;
    c.breaks(&f);
    CHECK(check(STACKREC_EXPORT_PYROSCOPE, f).find(c.message) == 0);
  }
  // A part that aged out of the window is dropped before an attempt.
  stackrec_export::Config c;
  c.protocol = STACKREC_EXPORT_PYROSCOPE;
  CHECK(stackrec_export::CheckAge(c, now - 58 * minute, now).empty());
  CHECK_FALSE(stackrec_export::CheckAge(c, now - 59 * minute, now).empty());
  c.protocol = STACKREC_EXPORT_DATADOG_AGENT;
  CHECK(stackrec_export::CheckAge(c, now - 600 * minute, now).empty());  // no window

  stackrec_export::PartFacts pprof;
  pprof.bytes = stackrec_export::kDatadogMaxPartBytes;
  CHECK(check(STACKREC_EXPORT_DATADOG_AGENT, pprof).empty());
  pprof.bytes += 1;
  CHECK(check(STACKREC_EXPORT_DATADOG_AGENTLESS, pprof)
            .find("part 0 of 1: it is 10485761 bytes, and Datadog's intake skips a profile over "
                  "10 MiB") == 0);
  stackrec_export::PartFacts otlp;
  otlp.format = STACKREC_FORMAT_OTLP;
  otlp.uncompressed_bytes = stackrec_export::kCollectorMaxBodyBytes;
  CHECK(check(STACKREC_EXPORT_OTLP, otlp).empty());
  otlp.uncompressed_bytes += 1;
  CHECK(check(STACKREC_EXPORT_OTLP, otlp)
            .find("part 0 of 1: it is 20971521 bytes uncompressed, and the collector reads at "
                  "most 20 MiB") == 0);
}

TEST_CASE("the container id is read from a cgroup line as libdatadog reads it") {
  // libdd-common/src/entity_id/unix/container_id.rs,
  // test_container_id_line_parsing.
  const std::pair<std::string, std::string> cases[] = {
      {"", ""},
      {"other_line", ""},
      {"10:hugetlb:/kubepods/burstable/podfd52ef25-a87d-11e9-9423-0800271a638e/"
       "8c046cb0b72cd4c99f51b5591cd5b095967f58ee003710a45280c28ee1a9c7fa",
       "8c046cb0b72cd4c99f51b5591cd5b095967f58ee003710a45280c28ee1a9c7fa"},
      {"11:devices:/kubepods.slice/kubepods-pod97f1ae73_7ad9_11ec_b4a7_9a35488b4fab.slice/"
       "3291bfddf3f3f8d87cb0cd1245fe9c45b2e1e5a9b6fe3de1bddf041aedaecbab",
       "3291bfddf3f3f8d87cb0cd1245fe9c45b2e1e5a9b6fe3de1bddf041aedaecbab"},
      {"11:hugetlb:/ecs/55091c13-b8cf-4801-b527-f4601742204d/"
       "432624d2150b349fe35ba397284dea788c2bf66b885d14dfc1569b01890ca7da",
       "432624d2150b349fe35ba397284dea788c2bf66b885d14dfc1569b01890ca7da"},
      {"1:name=systemd:/docker/34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376",
       "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376"},
      {"1:name=systemd:/uuid/34dc0b5e-626f-2c5c-4c51-70e34b10e765",
       "34dc0b5e-626f-2c5c-4c51-70e34b10e765"},
      {"1:name=systemd:/ecs/34dc0b5e626f2c5c4c5170e34b10e765-1234567890",
       "34dc0b5e626f2c5c4c5170e34b10e765-1234567890"},
      {"1:name=systemd:/docker/"
       "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376.scope",
       "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376"},
      {"0::/machine.slice/"
       "libpod-93afc7bc3ce42ad052d2926ffacfba941803bfae080941d1e1375d9d46b6a281.scope/container",
       "93afc7bc3ce42ad052d2926ffacfba941803bfae080941d1e1375d9d46b6a281"},
      {"1:name=systemd:/kubepods.slice/kubepods-burstable.slice/"
       "kubepods-burstable-pod2d3da189_6407_48e3_9ab6_78188d75e609.slice/"
       "docker-7b8952daecf4c0e44bbcefe1b5c5ebc7b4839d4eefeccefe694709d3809b6199.scope",
       "7b8952daecf4c0e44bbcefe1b5c5ebc7b4839d4eefeccefe694709d3809b6199"},
      {"13:name=systemd:/docker/"
       "3726184226f5d3147c25fdeab5b60097e378e8a720503a5e19ecfdf29f869860    ",
       "3726184226f5d3147c25fdeab5b60097e378e8a720503a5e19ecfdf29f869860"},
      {"13:name=systemd:/docker/3726184226f5d3147c25fdeab5b60097e378e8a720503a5e19ecfdf29f86986",
       ""},
      {"13:name=systemd:/docker/"
       "3726184226f5d3147g25fdeab5b60097e378e8a720503a5e19ecfdf29f869860",
       ""},
      {"1:name=systemd:/system.slice/garden.service/garden/6f265890-5165-7fab-6b52-18d1",
       "6f265890-5165-7fab-6b52-18d1"},
      {"10:freezer:/garden/6f265890-5165-7fab-6b52-18d1", "6f265890-5165-7fab-6b52-18d1"},
      {"1:name=systemd:/uuid/5a081c13-b8cf-4801-b427-f4601742204d",
       "5a081c13-b8cf-4801-b427-f4601742204d"},
      {"1:name=systemd:/garden/6f26589-5165-7fab-6b52-18d1", ""},
  };
  for (const auto& [line, id] : cases) {
    INFO(line);
    CHECK(stackrec_export::ContainerIdOfCgroupLine(line) == id);
  }
}

}  // namespace
}  // namespace stackrec_test
