// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-exec-overhead [--runs N] [--hz N] [--rounds N] [--threads N]
//
// Defaults: 11 pairs of runs of ~2 s each (built -O2), a minute in all.
//
// What profiling costs the profiled program: runs stackrec_exec_cpu_bound
// (a fixed amount of work) N times plain and N times under
// `stackrec-exec --hz N`, alternating which goes first, and compares the
// CPU time (user + system, from wait4) of the two. Under the profiler that
// includes everything the shim does in the process: the signal handler and
// unwinding on every sample, and the collector thread's symbolizing,
// recording and writing. It also reports the shim's own account of that
// cost (time in the handler plus the collector thread's CPU time, from
// STACKREC_EXEC_STATS), which the machine's noise does not blur. The figure is the median of the
// runs' paired differences (each profiled run against the plain run next to it), which a shared
// machine's drifting load disturbs least.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double CpuSeconds(const rusage& ru) {
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Runs argv with stdout discarded; its CPU time in seconds, or -1.
double RunForCpu(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);  // or the child's freopen would print our buffer again
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!std::freopen("/dev/null", "w", stdout)) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return -1;
  }
  return CpuSeconds(ru);
}

// handler_ns + collector_cpu_ns of the last line of the shim's stats file
// (which it then removes), in seconds.
double OwnCpuSeconds(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  char line[512];
  double total = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    long long handler = 0, collector = 0;
    const char* h = std::strstr(line, "handler_ns=");
    const char* c = std::strstr(line, "collector_cpu_ns=");
    if (h != nullptr) handler = std::atoll(h + 11);
    if (c != nullptr) collector = std::atoll(c + 17);
    total = static_cast<double>(handler + collector) / 1e9;
  }
  std::fclose(f);
  std::remove(path.c_str());
  return total;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 11;
  std::string hz = "100", rounds = "8000", threads = "1";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") {
      runs = std::max(1, std::atoi(argv[i + 1]));
    } else if (flag == "--hz") {
      hz = argv[i + 1];
    } else if (flag == "--rounds") {
      rounds = argv[i + 1];
    } else if (flag == "--threads") {
      threads = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--hz N] [--rounds N] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  char out_dir[] = "/tmp/stackrec-exec-overhead.XXXXXX";
  if (mkdtemp(out_dir) == nullptr) return 1;

  // The shim's own account of its cost, per profiled run.
  const std::string stats = std::string(out_dir) + "/stats";
  setenv("STACKREC_EXEC_STATS", stats.c_str(), 1);
  const std::vector<std::string> plain = {STACKREC_EXEC_CPU_BOUND, rounds, threads};
  std::vector<std::string> profiled = {STACKREC_EXEC_LAUNCHER, "--hz", hz, "--out", out_dir, "--"};
  profiled.insert(profiled.end(), plain.begin(), plain.end());

  std::vector<double> without, with, paired, own;
  for (int r = 0; r < runs; ++r) {
    // Alternate the order, so a drift in the machine's load hits both.
    const bool profiled_first = r % 2 == 1;
    for (int k = 0; k < 2; ++k) {
      const bool is_profiled = (k == 0) == profiled_first;
      const double s = RunForCpu(is_profiled ? profiled : plain);
      if (s < 0) {
        std::fprintf(stderr, "run failed\n");
        return 1;
      }
      (is_profiled ? with : without).push_back(s);
      if (is_profiled) own.push_back(OwnCpuSeconds(stats) / s * 100);
      std::printf("run %d %-9s %.3f s CPU\n", r + 1, is_profiled ? "profiled" : "plain", s);
    }
    paired.push_back((with.back() - without.back()) / without.back() * 100);
  }
  std::printf("median CPU: plain %.3f s, under stackrec-exec --hz %s %.3f s\n", Median(without),
              hz.c_str(), Median(with));
  std::printf("overhead: %+.2f%% (median of %d paired runs)\n", Median(paired), runs);
  std::printf("the shim's own account: %.2f%% of the profiled runs' CPU (median)\n", Median(own));
  std::string cleanup = std::string("rm -rf ") + out_dir;
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
