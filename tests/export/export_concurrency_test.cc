// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exporter under load and across process and thread boundaries: a
// thousand profiles through failing-then-succeeding answers, a queue too
// small for what is sent, senders on several threads, the periodic mode,
// and fork() while a request is in flight.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "export/export_fixture.h"
#include "oracle/otlp_decode.h"
#include "receiver/receiver.h"

namespace stackrec_test {
namespace {

// The name of the leaf frame of the only sample of a pprof profile.
std::string LeafOf(const std::string& body) {
  const Profile p = Decode(body);
  REQUIRE(p.sample_size() == 1);
  return FrameNames(p, p.sample(0))[0];
}

TEST_CASE("a thousand profiles through answers that fail first all arrive exactly once") {
  Receiver r;
  // Every other profile is answered 503 once, then 200: 500 failures.
  std::vector<Response> script;
  for (int i = 0; i < 500; ++i) {
    script.push_back(Response{503});
    script.push_back(Response{200});
    script.push_back(Response{200});
  }
  r.Script(script);
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.max_queue_requests = 1000;
  o.initial_backoff_ms = 1;
  o.max_backoff_ms = 2;
  ExporterPtr e = NewExporter(o);
  for (int i = 0; i < 1000; ++i) {
    EncodedPtr profile = ProfileNamed("p" + std::to_string(i), STACKREC_FORMAT_PPROF);
    SendOk(e.get(), profile.get());
  }
  FlushOk(e.get(), 60000);
  REQUIRE(r.errors().empty());
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.requests_queued == 1000);
  CHECK(st.requests_sent == 1000);
  CHECK(st.retries == 500);
  CHECK(st.dropped == 0);
  CHECK(st.queued == 0);
  CHECK(st.failed_http_5xx + st.failed_http_4xx + st.failed_connection + st.failed_too_large == 0);
  std::set<std::string> arrived;
  size_t failed = 0;
  for (const ReceivedRequest& req : r.Requests()) {
    if (req.answered != 200) {
      ++failed;
      continue;
    }
    CHECK(arrived.insert(LeafOf(req.Part("profile")->data)).second);
  }
  CHECK(arrived.size() == 1000);
  CHECK(failed == 500);
}

TEST_CASE("with a small queue, dropped and sent add up to what was queued") {
  Receiver r;
  Response slow;
  slow.delay_ms = 5;
  r.SetDefault(slow);
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.max_queue_requests = 4;
  ExporterPtr e = NewExporter(o);
  std::vector<EncodedPtr> profiles;
  for (int i = 0; i < 200; ++i) {
    profiles.push_back(ProfileNamed("p" + std::to_string(i), STACKREC_FORMAT_PPROF));
  }
  for (const EncodedPtr& p : profiles) SendOk(e.get(), p.get());
  FlushOk(e.get(), 30000);
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.requests_queued == 200);
  CHECK(st.dropped > 0);
  CHECK(st.dropped + st.requests_sent == 200);
  CHECK(r.RequestCount() == st.requests_sent);
  // The newest survive: the last profile sent arrived.
  const std::vector<ReceivedRequest> all = r.Requests();
  CHECK(LeafOf(all.back().Part("profile")->data) == "p199");
}

TEST_CASE("the queue's byte bound drops the oldest too") {
  Receiver r;
  Response slow;
  slow.delay_ms = 20;
  r.SetDefault(slow);
  const std::string url = r.url();
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_PPROF);
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.max_queue_bytes = 2 * stackrec_encoded_size(profile.get());
  ExporterPtr e = NewExporter(o);
  for (int i = 0; i < 20; ++i) SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.dropped > 0);
  CHECK(st.dropped + st.requests_sent == 20);
}

TEST_CASE("senders on several threads each get every profile through") {
  Receiver r;
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_OTLP, url);
  o.max_queue_requests = 400;
  ExporterPtr e = NewExporter(o);
  // Built here: Catch2's assertions are for the test's own thread only.
  std::vector<EncodedPtr> profiles;
  for (int t = 0; t < 4; ++t) {
    profiles.push_back(ProfileNamed("t" + std::to_string(t), STACKREC_FORMAT_OTLP));
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        if (stackrec_exporter_send(e.get(), profiles[t].get()) != STACKREC_OK) ++failures;
        stackrec_export_stats s{};
        if (stackrec_exporter_stats(e.get(), &s) != STACKREC_OK) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failures == 0);
  FlushOk(e.get(), 30000);
  CHECK(StatsOf(e.get()).requests_sent == 100);
  CHECK(r.RequestCount() == 100);
}

TEST_CASE("periodic mode serializes the recorder on the exporter's thread every period") {
  Receiver r;
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_OTLP, url));
  Options types;
  RecorderPtr recorder = NewRecorder(types.opts);
  SampleBuilder b;
  b.Frame("tick").Frame("main").Values({1, 1, 1});
  REQUIRE(stackrec_recorder_record(recorder.get(), &b.Get()) == STACKREC_OK);
  REQUIRE(stackrec_exporter_start_periodic(e.get(), recorder.get(), nullptr, 20) == STACKREC_OK);
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), nullptr, 20) ==
        STACKREC_INVALID_ARGUMENT);
  REQUIRE(r.WaitForRequests(3, 10000));
  REQUIRE(stackrec_exporter_shutdown(e.get(), 2000) == STACKREC_OK);
  REQUIRE(r.errors().empty());
  const std::vector<ReceivedRequest> all = r.Requests();
  CHECK(all[0].path == "/v1development/profiles");
  const Profile first = OtlpToPprof(DecodeOtlp(all[0].body));
  CHECK(SampleWithFrames(first, {"tick", "main"}).value(0) == 1);
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.requests_sent == all.size());
  CHECK(st.serialize_failed == 0);
}

TEST_CASE("periodic mode takes serialize options of the protocol's format only") {
  Receiver r;
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  Options types;
  RecorderPtr recorder = NewRecorder(types.opts);
  stackrec_serialize_options opts{};
  opts.format = STACKREC_FORMAT_OTLP;
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), &opts, 20) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts.format") != std::string::npos);
  opts.format = STACKREC_FORMAT_PPROF;
  opts.level = 42;
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), &opts, 20) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts.level") != std::string::npos);
  opts.level = 0;
  stackrec_attribute attrs[] = {{S("host.name"), S("web-1")}};
  opts.resource_attributes = attrs;
  opts.resource_attributes_len = 1;
  opts.part_max_samples = 100;
  // Options whose every output Pyroscope would refuse.
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), &opts, 20) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "opts.target is not STACKREC_TARGET_PYROSCOPE, whose names Pyroscope takes");
  opts.target = STACKREC_TARGET_PYROSCOPE;
  CHECK(stackrec_exporter_start_periodic(e.get(), recorder.get(), &opts, 20) ==
        STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts.part_max_uncompressed_bytes is 0") == 0);
  opts.part_max_uncompressed_bytes = 1 << 20;
  // The series labels are copied: the host's array is gone after the call.
  std::vector<stackrec_str> series = {S("thread name")};
  opts.series_labels = series.data();
  opts.series_labels_len = 1;
  REQUIRE(stackrec_exporter_start_periodic(e.get(), recorder.get(), &opts, 20) == STACKREC_OK);
  series.clear();
  series.shrink_to_fit();  // a read of the host's array would now be a use after free
  REQUIRE(r.WaitForRequests(1, 10000));
  REQUIRE(stackrec_exporter_shutdown(e.get(), 2000) == STACKREC_OK);
  CHECK(r.Requests()[0].path == "/ingest");
}

TEST_CASE("fork while an upload is in flight: the child starts fresh and both requests arrive") {
  Receiver r;
  Response slow;
  slow.delay_ms = 400;
  r.Script({slow});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  EncodedPtr parent_profile = ProfileNamed("parent", STACKREC_FORMAT_PPROF);
  EncodedPtr child_profile = ProfileNamed("child", STACKREC_FORMAT_PPROF);
  SendOk(e.get(), parent_profile.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // in flight, answer delayed
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child: no Catch2 here, only an exit code.
    int code = 0;
    if (stackrec_exporter_reset_after_fork(e.get()) != STACKREC_OK) code = 1;
    stackrec_export_stats s{};
    if (code == 0 &&
        (stackrec_exporter_stats(e.get(), &s) != STACKREC_OK || s.requests_queued != 0))
      code = 2;
    if (code == 0 && stackrec_exporter_send(e.get(), child_profile.get()) != STACKREC_OK) code = 3;
    if (code == 0 && stackrec_exporter_flush(e.get(), 5000) != STACKREC_OK) code = 4;
    if (code == 0 && (stackrec_exporter_stats(e.get(), &s) != STACKREC_OK || s.requests_sent != 1))
      code = 5;
    if (code == 0 && stackrec_exporter_shutdown(e.get(), 1000) != STACKREC_OK) code = 6;
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  FlushOk(e.get());
  CHECK(StatsOf(e.get()).requests_sent == 1);
  REQUIRE(r.WaitForRequests(2, 5000));
  std::set<std::string> leaves;
  for (const ReceivedRequest& req : r.Requests()) leaves.insert(LeafOf(req.Part("profile")->data));
  CHECK(leaves == std::set<std::string>{"parent", "child"});
}

}  // namespace
}  // namespace stackrec_test
