// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The sampling half of the profiler: one CPU-time timer per thread
// (timer_create on CLOCK_THREAD_CPUTIME_ID, delivered with SIGEV_THREAD_ID to
// that very thread), and the SIGPROF handler, which captures the thread's
// stack into the SampleRing.
//
// Per-thread CPU clocks, not the process-wide ITIMER_PROF: each thread is
// sampled in proportion to the CPU it uses, whichever thread the kernel
// would have picked for a process-directed signal, and a busy thread's
// signals are not absorbed by another one.
//
// The handler is async-signal-safe: besides the ring and the unwinder (see
// their headers) it makes three system calls on the POSIX/Linux safe list
// (gettid, prctl(PR_GET_NAME), clock_gettime), touches only lock-free
// atomics, and saves and restores errno.
//
// The gate: fork, exec and the final flush at exit must know that no handler
// is half-way through the ring or libunwind (a fork child inheriting
// libunwind's lock held by a thread that does not exist there would hang on
// its first sample). Every handler counts itself in-flight before it looks at
// the gate, CloseGate waits until none is, and a handler that finds the gate
// closed touches nothing but counters.
#ifndef STACKREC_EXEC_SHIM_SAMPLER_H_
#define STACKREC_EXEC_SHIM_SAMPLER_H_

#include <cstdint>
#include <string>

#include "sample_ring.h"
#include "unwinder.h"

namespace stackrec_exec::sampler {

struct Options {
  SampleRing* ring;          // where samples go; lives for the process
  const Unwinder* unwinder;  // loaded; lives for the process
  int64_t period_ns;         // CPU time between two samples of a thread
  bool timestamps;           // stamp each sample with the Unix time
};

// Installs the SIGPROF handler. Once, before the first ArmThisThread.
bool Install(const Options& options, std::string* error);

// Creates and arms the calling thread's CPU timer. Its first expiry is
// drawn uniformly from (0, period], so a thread that runs for less than a
// period is still sampled with the right probability. The timer is deleted
// when the thread exits. False (and counted in ArmFailures) if the kernel
// refuses, e.g. past RLIMIT_SIGPENDING.
bool ArmThisThread();
uint64_t ArmFailures();

enum class Gate {
  kOpen,             // samples are taken
  kClosedCountLost,  // signals are counted as lost samples (around fork)
  kClosedIgnore,     // signals are dropped uncounted (the process is ending)
};
// Closes the gate and returns once no handler is in flight (or after a
// second, if some thread cannot get back on a CPU to finish its handler).
void CloseGate(Gate how);
void OpenGate();

// Counters since start (or the fork that made this process).
// Seen: timer expirations the handler accepted (recorded or lost).
uint64_t SeenSamples();
// Time spent inside the handler (monotonic clock, which while it runs is its
// CPU time): what sampling costs the sampled threads.
int64_t HandlerNs();
// Lost samples and their CPU time since the previous call, zeroing them.
void TakeLost(uint64_t* samples, int64_t* cpu_ns);

// In a fork child, from the forking thread, before anything else here:
// zeroes the counters, reopens the gate and forgets the parent's timer of
// this thread (timers are not inherited); then call ArmThisThread.
void ResetAfterFork();

// Around exec: a timer signal pending at exec would meet SIGPROF's default
// action (terminate) in the new image, so SIGPROF is ignored across it
// (dispositions set to ignore survive exec), and restored if exec fails.
void IgnoreSignalForExec();
void RestoreSignalAfterFailedExec();

}  // namespace stackrec_exec::sampler

#endif  // STACKREC_EXEC_SHIM_SAMPLER_H_
