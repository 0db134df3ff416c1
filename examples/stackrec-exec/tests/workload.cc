// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The programs stackrec-exec's tests profile, one per mode, each burning CPU
// in functions with known names on threads with known names, and reporting
// what really happened (thread ids, CPU time per function) on stdout as
// "key value..." lines for the test to compare the profile with. Work is
// measured in thread CPU time, never wall time, so a loaded machine slows
// the programs down without changing what they do.
//
//   split SECONDS             2 threads, 70% / 30% of their CPU in
//                             SeventyPercent / ThirtyPercent
//   threads N SECONDS         N named threads (one starts a nested thread),
//                             throwing C++ exceptions; the last leaves
//                             through pthread_exit (forced unwinding)
//   fork SECONDS              forks while a thread spins; parent and child
//                             burn in ParentWork / ChildWork
//   early-exit SECONDS        a thread calls exit(3) while others spin
//   exec SECONDS              burns in BeforeExec, then execs itself as
//   after-exec SECONDS        ... which burns in AfterExec
//   burn THREADS SECONDS      THREADS threads burn in Burn
//   deep DEPTH SECONDS        burns in Burn under DEPTH frames of Recurse
//   until-killed READY_FILE   burns in UntilKilled; creates READY_FILE
//                             after 0.3 s of CPU, and goes on
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

// noipa: neither inlined nor merged with a look-alike (identical code
// folding would give SeventyPercent and ThirtyPercent one address).
#define WORKLOAD_FN __attribute__((noinline, noipa))

namespace workload {

int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A dependent chain of multiplications: the optimizer can neither drop it
// nor vectorize it away.
WORKLOAD_FN uint64_t Churn(uint64_t n, uint64_t seed) {
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

// Each named function stays on the stack while Churn runs: the barrier
// after the call keeps the compiler from making it a tail call (a jump,
// which would leave only Churn and the caller's caller to be seen).
#define WORKLOAD_BURNER(name, seed)       \
  WORKLOAD_FN uint64_t name(uint64_t n) { \
    uint64_t r = Churn(n, seed);          \
    asm volatile("" : "+r"(r));           \
    return r;                             \
  }
WORKLOAD_BURNER(SeventyPercent, 70)
WORKLOAD_BURNER(ThirtyPercent, 30)
WORKLOAD_BURNER(WorkerBurn, 2)
WORKLOAD_BURNER(NestedBurn, 3)
WORKLOAD_BURNER(ParentWork, 4)
WORKLOAD_BURNER(ChildWork, 5)
WORKLOAD_BURNER(Spin, 6)
WORKLOAD_BURNER(BeforeExec, 7)
WORKLOAD_BURNER(AfterExec, 8)
WORKLOAD_BURNER(Burn, 9)
WORKLOAD_BURNER(UntilKilled, 10)

std::atomic<uint64_t> g_sink{0};

// Iterations of Churn that take about 100 microseconds here.
uint64_t ChunkIterations() {
  static const uint64_t chunk = [] {
    const int64_t start = ThreadCpuNs();
    g_sink += Churn(1000000, 1);
    const int64_t ns = ThreadCpuNs() - start;
    return ns > 0 ? std::max<uint64_t>(1000, 100000000000ULL / static_cast<uint64_t>(ns)) : 100000;
  }();
  return chunk;
}

// Calls fn in ~100 us chunks until this thread has used `seconds` of CPU.
void BurnFor(double seconds, uint64_t (*fn)(uint64_t)) {
  const int64_t end = ThreadCpuNs() + static_cast<int64_t>(seconds * 1e9);
  const uint64_t chunk = ChunkIterations();
  while (ThreadCpuNs() < end) g_sink += fn(chunk);
}

void Name(const char* name) { pthread_setname_np(pthread_self(), name); }

void ReportThread(const char* name) {
  std::printf("thread %d %s\n", static_cast<int>(gettid()), name);
  std::fflush(stdout);
}

double Seconds(const char* text) { return std::strtod(text, nullptr); }

// ---- split ------------------------------------------------------------------

int Split(double seconds) {
  std::atomic<int64_t> seventy_ns{0}, thirty_ns{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      const std::string name = "split-" + std::to_string(t);
      Name(name.c_str());
      ReportThread(name.c_str());
      // Chunks drawn at random, 70:30, so the timer cannot lock onto a
      // pattern; the truth is what each function really used.
      std::mt19937_64 rng(static_cast<uint64_t>(t) + 1);
      std::uniform_real_distribution<double> coin(0, 1);
      const uint64_t chunk = ChunkIterations();
      const int64_t end = ThreadCpuNs() + static_cast<int64_t>(seconds * 1e9);
      int64_t now = ThreadCpuNs();
      while (now < end) {
        const bool seventy = coin(rng) < 0.7;
        g_sink += seventy ? SeventyPercent(chunk) : ThirtyPercent(chunk);
        const int64_t after = ThreadCpuNs();
        (seventy ? seventy_ns : thirty_ns) += after - now;
        now = after;
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("truth seventy_ns %lld thirty_ns %lld\n", static_cast<long long>(seventy_ns.load()),
              static_cast<long long>(thirty_ns.load()));
  return 0;
}

// ---- threads ------------------------------------------------------------------

std::atomic<int> g_destructors{0};

struct CountsDestruction {
  ~CountsDestruction() { ++g_destructors; }
};

// pthread_exit unwinds this frame with libgcc's forced unwinding and the C++
// personality routine; if the shim had put another _Unwind_* first in the
// program's scope, this would crash or skip the destructor.
WORKLOAD_FN void LeaveThroughPthreadExit() {
  CountsDestruction guard;
  pthread_exit(nullptr);
}

WORKLOAD_FN int ThrowAndCatch(int i) {
  try {
    if (i >= 0) throw std::runtime_error("expected");
  } catch (const std::runtime_error&) {
    return 1;
  }
  return 0;
}

void* Worker(void* arg) {
  const auto* spec = static_cast<std::pair<int, double>*>(arg);
  const int index = spec->first;
  const double seconds = spec->second;
  const std::string name = "worker-" + std::to_string(index);
  Name(name.c_str());
  ReportThread(name.c_str());
  if (index == 0) {  // a thread started by a thread is profiled too
    std::thread nested([seconds] {
      Name("nested");
      ReportThread("nested");
      BurnFor(seconds, NestedBurn);
    });
    nested.join();
  }
  int caught = 0;
  for (int round = 0; round < 10; ++round) {
    BurnFor(seconds / 10, WorkerBurn);
    for (int i = 0; i < 100; ++i) caught += ThrowAndCatch(i);
  }
  if (caught != 1000) std::abort();
  if (index == 1) LeaveThroughPthreadExit();
  return nullptr;
}

int Threads(int n, double seconds) {
  Name("workload-main");
  ReportThread("workload-main");
  std::vector<pthread_t> threads(n);
  std::vector<std::pair<int, double>> specs;
  for (int i = 0; i < n; ++i) specs.emplace_back(i, seconds);
  for (int i = 0; i < n; ++i) {
    if (pthread_create(&threads[i], nullptr, Worker, &specs[i]) != 0) return 10;
  }
  for (pthread_t t : threads) pthread_join(t, nullptr);
  if (n > 1 && g_destructors.load() != 1) return 11;  // pthread_exit skipped it
  return 0;
}

// ---- fork ----------------------------------------------------------------------

int Fork(double seconds) {
  Name("parent-main");
  std::atomic<bool> stop{false};
  std::thread spinner([&] {  // busy in its handler's way when the fork comes
    Name("parent-spin");
    while (!stop.load()) g_sink += Spin(ChunkIterations());
  });
  BurnFor(0.1, ParentWork);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 20;
  if (child == 0) {
    Name("child-main");
    ReportThread("child-main");
    std::thread worker([seconds] {
      Name("child-worker");
      ReportThread("child-worker");
      BurnFor(seconds, ChildWork);
    });
    BurnFor(seconds, ChildWork);
    worker.join();
    std::printf("child %d\n", static_cast<int>(getpid()));
    std::exit(0);  // flushes the child's profile
  }
  BurnFor(seconds, ParentWork);
  stop = true;
  spinner.join();
  int status = 0;
  if (waitpid(child, &status, 0) != child) return 21;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 22;
}

// ---- early exit ---------------------------------------------------------------

int EarlyExit(double seconds) {
  for (int i = 0; i < 2; ++i) {
    std::thread([i] {
      const std::string name = "spinner-" + std::to_string(i);
      Name(name.c_str());
      for (;;) g_sink += Spin(ChunkIterations());
    }).detach();
  }
  std::thread exiter([seconds] {
    Name("exiter");
    BurnFor(seconds, Burn);
    std::exit(3);  // while the spinners are mid-burn
  });
  exiter.join();  // never returns
  return 30;
}

// ---- exec ------------------------------------------------------------------------

int Exec(const char* argv0, const char* seconds) {
  BurnFor(Seconds(seconds), BeforeExec);
  std::fflush(stdout);
  const char* args[] = {argv0, "after-exec", seconds, nullptr};
  execv("/proc/self/exe", const_cast<char* const*>(args));
  return 40;
}

// ---- burn / until-killed ---------------------------------------------------------

int BurnThreads(int n, double seconds) {
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([i, seconds] {
      const std::string name = "burn-" + std::to_string(i);
      Name(name.c_str());
      BurnFor(seconds, Burn);
    });
  }
  for (auto& t : threads) t.join();
  return 0;
}

// ---- inlined ---------------------------------------------------------------

// Always inlined into InlineHost, even at -O0: the loop's addresses belong
// to both functions, which DWARF records as an inlined body.
__attribute__((always_inline)) inline uint64_t InlinedChurn(uint64_t n, uint64_t seed) {
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

WORKLOAD_FN uint64_t InlineHost(uint64_t n) {
  uint64_t r = InlinedChurn(n, 9);
  asm volatile("" : "+r"(r));
  return r;
}

WORKLOAD_FN int Recurse(int depth, double seconds) {
  if (depth == 0) {
    BurnFor(seconds, Burn);
    return 0;
  }
  int r = Recurse(depth - 1, seconds);
  asm volatile("" : "+r"(r));  // a real call, not a loop
  return r;
}

int RunUntilKilled(const char* ready_file) {
  BurnFor(0.3, UntilKilled);
  if (FILE* f = std::fopen(ready_file, "w")) std::fclose(f);
  for (;;) BurnFor(1, UntilKilled);
}

}  // namespace workload

int main(int argc, char** argv) {
  using namespace workload;
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "split" && argc == 3) return Split(Seconds(argv[2]));
  if (mode == "threads" && argc == 4) return Threads(std::atoi(argv[2]), Seconds(argv[3]));
  if (mode == "fork" && argc == 3) return Fork(Seconds(argv[2]));
  if (mode == "early-exit" && argc == 3) return EarlyExit(Seconds(argv[2]));
  if (mode == "exec" && argc == 3) return Exec(argv[0], argv[2]);
  if (mode == "after-exec" && argc == 3) {
    BurnFor(Seconds(argv[2]), AfterExec);
    return 0;
  }
  if (mode == "burn" && argc == 4) return BurnThreads(std::atoi(argv[2]), Seconds(argv[3]));
  if (mode == "until-killed" && argc == 3) return RunUntilKilled(argv[2]);
  if (mode == "inlined" && argc == 3) {
    BurnFor(Seconds(argv[2]), InlineHost);
    return 0;
  }
  if (mode == "deep" && argc == 4) return Recurse(std::atoi(argv[2]), Seconds(argv[3]));
  std::fprintf(stderr, "usage: see the comment at the top of workload.cc\n");
  return 2;
}
