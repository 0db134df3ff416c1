// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "sampler.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace stackrec_exec::sampler {
namespace {

// Marks our timers' signals, so the handler leaves any other SIGPROF
// (kill, a timer of the program's) alone.
constexpr int kTimerTag = 0x5eed;

// Set once by Install, before the handler can run; read-only afterwards.
Options g_options;

std::atomic<int> g_gate{static_cast<int>(Gate::kOpen)};
std::atomic<int> g_in_flight{0};
std::atomic<uint64_t> g_seen{0};
std::atomic<uint64_t> g_lost_samples{0};
std::atomic<int64_t> g_lost_ns{0};
std::atomic<uint64_t> g_arm_failures{0};
std::atomic<int64_t> g_handler_ns{0};

pthread_key_t g_timer_key;  // the thread's timer_t, heap-allocated
struct sigaction g_before_exec;

int64_t Now(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);  // the vDSO: no system call
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void CountLost(int64_t samples, int64_t ns) {
  g_lost_samples.fetch_add(static_cast<uint64_t>(samples), std::memory_order_relaxed);
  g_lost_ns.fetch_add(ns, std::memory_order_relaxed);
}

// Async-signal-safe; runs with the gate open and this handler in flight.
void Capture(void* ucontext, int64_t samples, int64_t ns) {
  uint64_t ticket;
  RawSample* s = g_options.ring->TryClaim(&ticket);
  if (s == nullptr) {
    CountLost(samples, ns);  // full ring: drop, never wait for the collector
    return;
  }
  s->samples = samples;
  s->cpu_ns = ns;
  s->timestamp_ns = g_options.timestamps ? Now(CLOCK_REALTIME) : 0;
  s->tid = static_cast<int32_t>(gettid());
  if (prctl(PR_GET_NAME, s->thread_name) != 0) s->thread_name[0] = '\0';
  s->thread_name[sizeof(s->thread_name) - 1] = '\0';
  bool truncated = false;
  s->depth = static_cast<uint16_t>(
      g_options.unwinder->Capture(ucontext, s->pcs, RawSample::kMaxFrames, &truncated));
  s->truncated = truncated;
  g_options.ring->Publish(ticket);
}

void OnSigprof(int, siginfo_t* info, void* ucontext) {
  if (info == nullptr || info->si_code != SI_TIMER || info->si_value.sival_int != kTimerTag) {
    return;
  }
  const int saved_errno = errno;
  const int64_t start = Now(CLOCK_MONOTONIC);
  // One signal stands for every expiry since the previous one was delivered.
  const int64_t samples = 1 + (info->si_overrun > 0 ? info->si_overrun : 0);
  const int64_t ns = samples * g_options.period_ns;

  // In flight before looking at the gate (both seq_cst): either CloseGate
  // sees this handler and waits for it, or this handler sees the gate shut.
  g_in_flight.fetch_add(1, std::memory_order_seq_cst);
  switch (static_cast<Gate>(g_gate.load(std::memory_order_seq_cst))) {
    case Gate::kOpen:
      g_seen.fetch_add(static_cast<uint64_t>(samples), std::memory_order_relaxed);
      Capture(ucontext, samples, ns);
      break;
    case Gate::kClosedCountLost:
      g_seen.fetch_add(static_cast<uint64_t>(samples), std::memory_order_relaxed);
      CountLost(samples, ns);
      break;
    case Gate::kClosedIgnore:
      break;
  }
  g_in_flight.fetch_sub(1, std::memory_order_release);
  g_handler_ns.fetch_add(Now(CLOCK_MONOTONIC) - start, std::memory_order_relaxed);
  errno = saved_errno;
}

void DeleteTimer(void* timer) {
  timer_delete(*static_cast<timer_t*>(timer));
  delete static_cast<timer_t*>(timer);
}

// A draw from (0, period], different per thread and per start, without
// locks or shared state: a splitmix64 step over the tid and the clock.
int64_t FirstExpiryNs(int64_t period_ns) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t z =
      (static_cast<uint64_t>(gettid()) * 0x9e3779b97f4a7c15ULL) ^ static_cast<uint64_t>(ts.tv_nsec);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return 1 + static_cast<int64_t>(z % static_cast<uint64_t>(period_ns));
}

}  // namespace

bool Install(const Options& options, std::string* error) {
  g_options = options;
  if (pthread_key_create(&g_timer_key, DeleteTimer) != 0) {
    *error = "pthread_key_create failed";
    return false;
  }
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = OnSigprof;
  // SA_RESTART: a sampled thread's interrupted read() and friends resume
  // instead of failing with EINTR.
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, nullptr) != 0) {
    *error = std::string("sigaction(SIGPROF): ") + std::strerror(errno);
    return false;
  }
  return true;
}

bool ArmThisThread() {
  sigevent sev;
  std::memset(&sev, 0, sizeof(sev));
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGPROF;
  sev.sigev_value.sival_int = kTimerTag;
  sev._sigev_un._tid = gettid();  // glibc spells sigev_notify_thread_id so
  timer_t timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) != 0) {
    g_arm_failures.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const int64_t period = g_options.period_ns;
  const int64_t first = FirstExpiryNs(period);
  itimerspec spec;
  spec.it_interval.tv_sec = period / 1000000000;
  spec.it_interval.tv_nsec = period % 1000000000;
  spec.it_value.tv_sec = first / 1000000000;
  spec.it_value.tv_nsec = first % 1000000000;
  auto* owned = new timer_t(timer);
  if (timer_settime(timer, 0, &spec, nullptr) != 0 ||
      pthread_setspecific(g_timer_key, owned) != 0) {
    DeleteTimer(owned);
    g_arm_failures.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

uint64_t ArmFailures() { return g_arm_failures.load(std::memory_order_relaxed); }

void CloseGate(Gate how) {
  g_gate.store(static_cast<int>(how), std::memory_order_seq_cst);
  // A handler runs for microseconds; bound the wait anyway, so that a thread
  // that cannot be scheduled (stopped under a debugger) cannot hang a fork.
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (g_in_flight.load(std::memory_order_seq_cst) != 0) {
    sched_yield();
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 2) break;
  }
}

void OpenGate() { g_gate.store(static_cast<int>(Gate::kOpen), std::memory_order_seq_cst); }

uint64_t SeenSamples() { return g_seen.load(std::memory_order_relaxed); }

int64_t HandlerNs() { return g_handler_ns.load(std::memory_order_relaxed); }

void TakeLost(uint64_t* samples, int64_t* cpu_ns) {
  *samples = g_lost_samples.exchange(0, std::memory_order_relaxed);
  *cpu_ns = g_lost_ns.exchange(0, std::memory_order_relaxed);
}

void ResetAfterFork() {
  g_seen.store(0);
  g_lost_samples.store(0);
  g_lost_ns.store(0);
  g_handler_ns.store(0);
  g_in_flight.store(0);  // handlers of threads that do not exist here
  OpenGate();
  // The parent's timer does not exist in the child: free the slot without
  // timer_delete, which could hit an unrelated timer with the same id.
  if (auto* stale = static_cast<timer_t*>(pthread_getspecific(g_timer_key))) {
    pthread_setspecific(g_timer_key, nullptr);
    delete stale;
  }
}

void IgnoreSignalForExec() {
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPROF, &ignore, &g_before_exec);
}

void RestoreSignalAfterFailedExec() { sigaction(SIGPROF, &g_before_exec, nullptr); }

}  // namespace stackrec_exec::sampler
