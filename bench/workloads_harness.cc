// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "workloads_harness.h"

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

namespace stackrec_bench {

double MsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

ClockCalibration g_clock;

void CalibrateClock() {
  const auto t0 = SteadyClock::now();
  const uint64_t c0 = ClockBegin();
  while (SteadyClock::now() - t0 < std::chrono::milliseconds(200)) {
  }
  const uint64_t c1 = ClockEnd();
  const auto t1 = SteadyClock::now();
  g_clock.ticks_per_ns =
      static_cast<double>(c1 - c0) / std::chrono::duration<double, std::nano>(t1 - t0).count();
  std::vector<double> means;
  for (int round = 0; round < 21; ++round) {
    uint64_t sum = 0;
    constexpr int kPairs = 100000;
    for (int i = 0; i < kPairs; ++i) {
      const uint64_t b = ClockBegin();
      const uint64_t e = ClockEnd();
      sum += e - b;
    }
    means.push_back(static_cast<double>(sum) / kPairs);
  }
  // The least disturbed round: a round the scheduler interrupted is longer.
  g_clock.overhead_ticks = *std::min_element(means.begin(), means.end());
}

double ThreadPageFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_minflt + usage.ru_majflt);
}

double StatusMiB(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  double mib = -1;
  const size_t len = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, len) == 0 && line[len] == ':') {
      mib = std::strtod(line + len + 1, nullptr) / 1024.0;  // kB
      break;
    }
  }
  std::fclose(f);
  return mib;
}

bool ResetPeakRss() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

bool FillProfile(const Workload& w, stackrec_profile* p) {
  SampleBuilder builder(w);
  for (const Tick& t : w.ticks()) {
    if ((t.flags & Tick::kSpanStarts) != 0 &&
        stackrec_profile_set_endpoint(p, w.span_id(t.span), Str(w.span_endpoint(t.span))) !=
            STACKREC_OK) {
      return false;
    }
    if (stackrec_profile_add(p, &builder.Build(t)) != STACKREC_OK) return false;
  }
  return true;
}

ProfilePtr FilledProfile(const WorkloadSpec& spec) {
  ProfilePtr none(nullptr, stackrec_profile_free);
  const std::unique_ptr<Workload> w(new Workload(spec));
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) return none;
  ProfilePtr owner(p, stackrec_profile_free);
  return FillProfile(*w, p) ? std::move(owner) : std::move(none);
}

void TakeFirstFill(const AddTiming& t, Measurement* m) {
  m->add_ns = t.ns;
  m->add_wall_ns = t.wall_ns;
  m->cpu_share = t.cpu_share;
  m->first_sightings_ns = t.first_sightings_ns;
  m->first_sighting_each_ns = t.first_sighting_each_ns;
  m->first_sightings = t.first_sightings;
  m->page_faults = t.page_faults;
  m->slow_calls_ns = t.slow_calls_ns;
  m->slow_calls = t.slow_calls;
}

Measurement Failed(const char* what) {
  Measurement m = {};
  std::snprintf(m.error, sizeof m.error, "%s: %s", what, stackrec_last_error());
  return m;
}

void SummarizeParked(Parking& parking, Measurement& m) {
  m.summaries = static_cast<int>(std::min<size_t>(parking.size(), 2));
  for (int i = 0; i < m.summaries; ++i) {
    const std::string bytes = parking.Get(static_cast<size_t>(i));
    m.summary[i] = Summarize(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
}

bool g_peak_reset_ok = true;

namespace {

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Measurement RunIsolated(const std::function<Measurement()>& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) return Failed("pipe");
  const pid_t pid = fork();
  if (pid < 0) return Failed("fork");
  if (pid == 0) {
    close(fds[0]);
    malloc_trim(0);  // what the parent freed must not be reused uncounted
    if (!ResetPeakRss()) g_peak_reset_ok = false;
    const double loaded = StatusMiB("VmRSS");
    Measurement m = fn();
    m.loaded_mib = loaded;
    const bool sent = WriteAll(fds[1], &m, sizeof m);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  Measurement m = {};
  const bool got = ReadAll(fds[0], &m, sizeof m);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Measurement f = {};
    std::snprintf(f.error, sizeof f.error, "the measuring child died (status %d)", status);
    return f;
  }
  return m;
}

double LoadLatencyNs(size_t mib) {
  const size_t n = mib * 1024 * 1024 / 64;  // one load a cache line
  std::vector<uint64_t> next(n * 8);
  std::vector<uint64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(7);
  for (size_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  for (size_t i = 0; i < n; ++i) next[order[i] * 8] = order[(i + 1) % n] * 8;
  uint64_t p = 0;
  for (size_t i = 0; i < n; ++i) p = next[p];  // warm the TLB and caches
  constexpr size_t kSteps = 2000000;
  const Stopwatch watch;
  for (size_t i = 0; i < kSteps; ++i) p = next[p];
  const double ns = watch.CpuMs() * 1e6 / kSteps;
  benchmark::DoNotOptimize(p);
  return ns;
}

double PageFaultUs() {
  constexpr size_t kBytes = size_t{16} << 20, kPage = 4096;
  void* const mem =
      mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 0;
  volatile char* const bytes = static_cast<volatile char*>(mem);
  const Stopwatch watch;
  for (size_t at = 0; at < kBytes; at += kPage) bytes[at] = 1;
  const double us = watch.CpuMs() * 1e3 / (kBytes / kPage);
  munmap(mem, kBytes);
  return us;
}

std::string LoadAverage() {
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return "?";
  char buf[128] = {};
  if (std::fgets(buf, sizeof buf, f) == nullptr) buf[0] = '\0';
  std::fclose(f);
  std::string s = buf;
  size_t end = 0;
  for (int i = 0; i < 3 && end != std::string::npos; ++i) end = s.find(' ', end + 1);
  return s.substr(0, end);
}

}  // namespace stackrec_bench
