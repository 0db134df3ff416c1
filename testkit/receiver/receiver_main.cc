// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-export-receiver: the test receiver as a program of its own, so
// that a CTest can ship a real program's profiles (the demo's) to it and
// check what arrived. It listens on 127.0.0.1 on a port the system picks,
// then either runs a command with "{url}" in its arguments replaced by the
// receiver's URL (the usual way: no race over the port), or writes the port
// to a file and waits. It stops once the command exits (or `--seconds`
// pass), then judges every request by the backend's own rules, ported from
// its source (backends/): Pyroscope's /ingest at main and at 1.x, each of
// which must store it; Datadog's agent and libdatadog's request; the OTLP
// collector's HTTP receiver (below). It prints what each stored (requests, bytes,
// samples, Pyroscope's series and profile types) and exits 0 only if at
// least `--expect` requests came and every one was stored.
//
//   stackrec-export-receiver --protocol otlp|pyroscope|datadog
//       [--expect N] [--seconds T] [--port-file F] [-- command args...]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "oracle/decompress.h"
#include "profile.pb.h"
#include "receiver/backends/datadog_rules.h"
#include "receiver/backends/pyroscope_rules.h"
#include "receiver/receiver.h"

namespace {

using stackrec_test::ReceivedRequest;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What `req` stored, as `protocol`'s backend judges it: "" when stored,
// else why not. *samples counts the samples it held; *series and *types
// gather Pyroscope's series and profile types.
std::string Check(const std::string& protocol, const ReceivedRequest& req, int* samples,
                  std::set<std::string>* series, std::set<std::string>* types) {
  if (protocol == "otlp") {
    // The OpenTelemetry collector's OTLP/HTTP receiver (opentelemetry-
    // collector 0.159: receiver/otlpreceiver/otlphttp.go, config/confighttp):
    // POST to the fixed profiles path; a protobuf media type; an encoding it
    // knows, decoded; at most max_request_body_size (20 MiB) before and
    // after decoding; a request it can unmarshal, with ids of the lengths
    // pdata reads (profile_id 0 or 16 bytes, trace_id 16, span_id 8); and a
    // request of no samples is answered 200 and dropped.
    constexpr size_t kMaxBody = size_t{20} << 20;  // confighttp/server.go
    if (req.method != "POST") return "405: method " + req.method;
    if (req.path != "/v1development/profiles") return "404: path " + req.path;
    if (req.Header("content-type") != "application/x-protobuf") return "415: content-type";
    const std::string encoding = req.Header("content-encoding");
    const auto format = stackrec_test::DetectFormat(req.body);
    if ((encoding == "gzip") != (format == stackrec_test::Format::kGzip) ||
        (encoding == "zstd") != (format == stackrec_test::Format::kZstd)) {
      return "400: Content-Encoding '" + encoding + "' does not match the body";
    }
    if (req.body.size() > kMaxBody) return "400: request body too large";
    std::string raw;
    if (!stackrec_test::DecompressAny(req.body, &raw)) return "400: the body does not decompress";
    if (raw.size() > kMaxBody) return "400: request body too large, decompressed";
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest r;
    if (!r.ParseFromString(raw)) return "400: the body is not an ExportProfilesServiceRequest";
    for (const auto& link : r.dictionary().link_table()) {
      if ((!link.trace_id().empty() && link.trace_id().size() != 16) ||
          (!link.span_id().empty() && link.span_id().size() != 8)) {
        return "400: a link's trace or span id has the wrong length";
      }
    }
    *samples = 0;
    for (const auto& rp : r.resource_profiles()) {
      for (const auto& sp : rp.scope_profiles()) {
        for (const auto& p : sp.profiles()) {
          if (!p.profile_id().empty() && p.profile_id().size() != 16) {
            return "400: a profile_id is not 16 bytes";
          }
          *samples += p.samples_size();
        }
      }
    }
    if (*samples == 0) return "200, but dropped: the request has no samples";
    return "";
  }
  if (protocol == "pyroscope") {
    namespace py = stackrec_test::pyroscope;
    std::string problems;
    for (py::Version v : {py::Version::kMain, py::Version::kV1}) {
      const py::Verdict verdict = py::Ingest(v, req, NowNs());
      if (!verdict.stored) {
        problems += std::string(problems.empty() ? "" : "; ") + "Pyroscope " + py::VersionName(v) +
                    " answers " + std::to_string(verdict.status) +
                    (verdict.message.empty() ? ", storing nothing" : ": " + verdict.message);
        continue;
      }
      if (v == py::Version::kMain) {
        series->insert(verdict.series.begin(), verdict.series.end());
        types->insert(verdict.profile_types.begin(), verdict.profile_types.end());
      }
    }
    if (!problems.empty()) return problems;
    std::string raw;
    perftools::profiles::Profile p;
    if (stackrec_test::DecompressAny(req.Part("profile")->data, &raw) && p.ParseFromString(raw)) {
      *samples = p.sample_size();
    }
    return "";
  }
  if (protocol == "datadog") {
    const stackrec_test::datadog::Verdict verdict = stackrec_test::datadog::Upload(req, false);
    if (!verdict.stored()) {
      return "the agent answers " + std::to_string(verdict.status) + ": " + verdict.message;
    }
    std::string raw;
    perftools::profiles::Profile p;
    if (stackrec_test::DecompressAny(req.Part("profile.pprof")->data, &raw) &&
        p.ParseFromString(raw)) {
      *samples = p.sample_size();
    }
    return "";
  }
  return "unknown protocol " + protocol;
}

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --protocol otlp|pyroscope|datadog [--expect N] [--seconds T]\n"
               "          [--port-file F] [-- command args...]  ({url} in args: the URL)\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string protocol, port_file;
  size_t expect = 1;
  int seconds = 60;
  std::vector<std::string> command;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      command.assign(argv + i + 1, argv + argc);
      break;
    }
    if (i + 1 >= argc) return Usage(argv[0]);
    if (a == "--protocol") {
      protocol = argv[++i];
    } else if (a == "--expect") {
      expect = std::strtoul(argv[++i], nullptr, 10);
    } else if (a == "--seconds") {
      seconds = std::atoi(argv[++i]);
    } else if (a == "--port-file") {
      port_file = argv[++i];
    } else {
      return Usage(argv[0]);
    }
  }
  if (protocol.empty() || (command.empty() && port_file.empty())) return Usage(argv[0]);

  stackrec_test::Receiver receiver;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int child_status = 0;
  if (!port_file.empty()) {
    std::ofstream(port_file) << receiver.port() << "\n";
  }
  if (!command.empty()) {
    for (std::string& arg : command) {
      const size_t at = arg.find("{url}");
      if (at != std::string::npos) arg.replace(at, 5, receiver.url());
    }
    const pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> args;
      for (std::string& arg : command) args.push_back(arg.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      std::perror("execvp");
      _exit(127);
    }
    for (;;) {
      const pid_t done = waitpid(pid, &child_status, WNOHANG);
      if (done == pid) break;
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &child_status, 0);
        std::fprintf(stderr, "receiver: the command ran past %d s\n", seconds);
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  } else {
    while (receiver.RequestCount() < expect && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  bool ok = true;
  const std::vector<ReceivedRequest> requests = receiver.Requests();
  std::set<std::string> series, types;
  size_t bytes = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    int samples = 0;
    const std::string problem = Check(protocol, requests[i], &samples, &series, &types);
    std::printf("receiver: request %zu: %s, %zu bytes, %d samples%s%s\n", i,
                requests[i].target.c_str(), requests[i].body.size(), samples,
                problem.empty() ? ", stored" : ": REFUSED: ", problem.c_str());
    ok = ok && problem.empty();
    bytes += requests[i].body.size();
  }
  std::printf("receiver: %zu request(s), %zu bytes\n", requests.size(), bytes);
  if (protocol == "pyroscope") {
    std::printf("receiver: %zu series, %zu profile type(s)\n", series.size(), types.size());
    for (const std::string& t : types) std::printf("receiver:   %s\n", t.c_str());
  }
  for (const std::string& e : receiver.errors()) {
    std::printf("receiver: malformed request: %s\n", e.c_str());
    ok = false;
  }
  if (requests.size() < expect) {
    std::printf("receiver: %zu request(s), expected at least %zu\n", requests.size(), expect);
    ok = false;
  }
  if (!command.empty() && (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0)) {
    std::printf("receiver: the command failed (status %d)\n", child_status);
    ok = false;
  }
  std::printf("receiver: %s\n", ok ? "every request was right" : "FAILED");
  return ok ? 0 : 1;
}
