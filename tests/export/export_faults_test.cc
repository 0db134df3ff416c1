// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the exporter does when the backend misbehaves: each fault the
// receiver can script, the retries and waits it causes, what is counted,
// and that flush, shutdown and free keep their deadlines whatever the
// network does.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "export/export_fixture.h"
#include "receiver/receiver.h"

namespace stackrec_test {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// Sends one small pprof profile and flushes; returns the stats.
stackrec_export_stats SendOne(stackrec_exporter* e) {
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_PPROF);
  SendOk(e, profile.get());
  FlushOk(e, 10000);
  return StatsOf(e);
}

TEST_CASE("429 with Retry-After in seconds is retried after that long") {
  Receiver r;
  r.Script({Response{429, {"Retry-After: 1"}, "slow down"}});
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.max_backoff_ms = 3000;
  ExporterPtr e = NewExporter(o);
  const auto start = Clock::now();
  const stackrec_export_stats st = SendOne(e.get());
  CHECK(MsSince(start) >= 900);
  CHECK(st.requests_sent == 1);
  CHECK(st.retries == 1);
  CHECK(r.RequestCount() == 2);
}

TEST_CASE(
    "429 with Retry-After as an HTTP date is retried at that date, capped by max_backoff_ms") {
  Receiver r;
  char date[64];
  const time_t later = std::time(nullptr) + 30;
  std::tm utc{};
  gmtime_r(&later, &utc);
  std::strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  r.Script({Response{429, {std::string("Retry-After: ") + date}, ""}});
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.max_backoff_ms = 400;  // the date asks for 30 s: the cap wins
  ExporterPtr e = NewExporter(o);
  const auto start = Clock::now();
  const stackrec_export_stats st = SendOne(e.get());
  const int64_t took = MsSince(start);
  CHECK(took >= 350);
  CHECK(took < 5000);
  CHECK(st.requests_sent == 1);
  CHECK(st.retries == 1);
}

TEST_CASE("a burst of 503s is retried with backoff until the request goes through") {
  Receiver r;
  r.Script({Response{503}, Response{503}, Response{503}});
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_DATADOG_AGENT, url);
  o.max_retries = 5;
  ExporterPtr e = NewExporter(o);
  const stackrec_export_stats st = SendOne(e.get());
  CHECK(st.requests_sent == 1);
  CHECK(st.retries == 3);
  CHECK(st.failed_http_5xx == 0);
  CHECK(r.RequestCount() == 4);
}

TEST_CASE("503s past max_retries fail the request, counted as 5xx") {
  Receiver r;
  r.SetDefault(Response{503});
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_DATADOG_AGENT, url);
  o.max_retries = 2;
  ExporterPtr e = NewExporter(o);
  const stackrec_export_stats st = SendOne(e.get());
  CHECK(st.requests_sent == 0);
  CHECK(st.retries == 2);
  CHECK(st.failed_http_5xx == 1);
  CHECK(st.last_http_status == 503);
  CHECK(r.RequestCount() == 3);
  CHECK(std::string(st.last_error).find("after 2 retries") != std::string::npos);
}

TEST_CASE("413 is not retried, and its message points to the budgets") {
  Receiver r;
  r.SetDefault(Response{413, {}, "too big"});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_OTLP, url));
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.failed_too_large == 1);
  CHECK(st.retries == 0);
  CHECK(r.RequestCount() == 1);
  const std::string message = st.last_error;
  CHECK(message.find("part_max_bytes") != std::string::npos);
  CHECK(message.find("docs/limits.md#budgets-profiles-that-backends-accept") != std::string::npos);
}

TEST_CASE("400 and other 4xx are not retried") {
  Receiver r;
  r.Script({Response{400, {}, "bad profile"}, Response{404}});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  SendOne(e.get());
  const stackrec_export_stats st = SendOne(e.get());
  CHECK(st.failed_http_4xx == 2);
  CHECK(st.retries == 0);
  CHECK(st.last_http_status == 404);
  CHECK(r.RequestCount() == 2);
}

TEST_CASE("a 500 is not retried") {
  Receiver r;
  r.Script({Response{500}});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  const stackrec_export_stats st = SendOne(e.get());
  CHECK(st.failed_http_5xx == 1);
  CHECK(st.retries == 0);
}

TEST_CASE("an answer slower than the timeout is retried") {
  Receiver r;
  Response slow;
  slow.delay_ms = 600;
  r.Script({slow});
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_PYROSCOPE, url);
  o.timeout_ms = 150;
  ExporterPtr e = NewExporter(o);
  const stackrec_export_stats st = SendOne(e.get());
  CHECK(st.requests_sent == 1);
  CHECK(st.retries == 1);
  CHECK(std::string(st.last_error).find("imeout") != std::string::npos);
}

TEST_CASE("a refused connection is retried, then counted as a connection failure") {
  // A port that was bound and closed: nothing listens there.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_OTLP, url);
  o.max_retries = 2;
  ExporterPtr e = NewExporter(o);
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP);
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.failed_connection == 1);
  CHECK(st.retries == 2);
  CHECK(st.last_http_status == 0);
  CHECK(std::string(st.last_error).find("onnect") != std::string::npos);
}

TEST_CASE("a connection reset in the middle of the body is retried") {
  Receiver r;
  Response reset;
  reset.reset_mid_body = true;
  r.Script({reset});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_OTLP, url));
  // Big enough that the body is still being written when the reset comes.
  stackrec_serialize_options opts{};
  opts.compression = STACKREC_COMPRESSION_NONE;
  EncodedPtr profile =
      ProfileNamed("a_function_with_a_rather_long_name", STACKREC_FORMAT_OTLP, 20000, opts);
  REQUIRE(stackrec_encoded_size(profile.get()) > (256u << 10));
  SendOk(e.get(), profile.get());
  FlushOk(e.get());
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(r.Resets() == 1);
  CHECK(st.requests_sent == 1);
  CHECK(st.retries == 1);
  CHECK(r.RequestCount() == 1);
  CHECK(r.Requests()[0].body.size() == stackrec_encoded_size(profile.get()));
}

TEST_CASE("flush returns STACKREC_TIMED_OUT at its deadline while an answer is late") {
  Receiver r;
  Response slow;
  slow.delay_ms = 800;
  r.Script({slow});
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_PPROF);
  SendOk(e.get(), profile.get());
  const auto start = Clock::now();
  CHECK(stackrec_exporter_flush(e.get(), 100) == STACKREC_TIMED_OUT);
  CHECK(MsSince(start) < 700);
  CHECK(std::string(stackrec_last_error()).find("flush") != std::string::npos);
  FlushOk(e.get());  // the request goes on, and arrives
  CHECK(StatsOf(e.get()).requests_sent == 1);
}

TEST_CASE("send returns at once while the backend is slow") {
  Receiver r;
  Response slow;
  slow.delay_ms = 300;
  r.SetDefault(slow);
  const std::string url = r.url();
  ExporterPtr e = NewExporter(FastOptions(STACKREC_EXPORT_PYROSCOPE, url));
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_PPROF);
  SendOk(e.get(), profile.get());
  const auto start = Clock::now();
  for (int i = 0; i < 5; ++i) SendOk(e.get(), profile.get());
  CHECK(MsSince(start) < 200);
  CHECK(stackrec_exporter_shutdown(e.get(), 0) == STACKREC_TIMED_OUT);
}

TEST_CASE("shutdown aborts the request in flight and returns within its deadline") {
  Receiver r;
  Response slow;
  slow.delay_ms = 5000;
  r.SetDefault(slow);
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_OTLP, url);
  o.timeout_ms = 60000;
  ExporterPtr e = NewExporter(o);
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP);
  SendOk(e.get(), profile.get());
  SendOk(e.get(), profile.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the first is in flight
  const auto start = Clock::now();
  CHECK(stackrec_exporter_shutdown(e.get(), 100) == STACKREC_TIMED_OUT);
  CHECK(MsSince(start) < 1000);
  const stackrec_export_stats st = StatsOf(e.get());
  CHECK(st.abandoned == 2);
  CHECK(st.requests_queued == 2);
  CHECK(stackrec_exporter_send(e.get(), profile.get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "exporter is shut down");
}

TEST_CASE("free does not hang on a backend that never answers") {
  Receiver r;
  Response slow;
  slow.delay_ms = 10000;
  r.SetDefault(slow);
  const std::string url = r.url();
  stackrec_exporter_options o = FastOptions(STACKREC_EXPORT_OTLP, url);
  o.timeout_ms = 60000;
  stackrec_exporter* e = NewExporter(o).release();
  EncodedPtr profile = ProfileNamed("f", STACKREC_FORMAT_OTLP);
  SendOk(e, profile.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto start = Clock::now();
  stackrec_exporter_free(e);
  CHECK(MsSince(start) < 2500);  // its deadline is 1,000 ms
}

}  // namespace
}  // namespace stackrec_test
