// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The collector: the profiler's one background thread. Every drain interval
// it empties the SampleRing, symbolizes each raw stack (Symbolizer, cached)
// and records it into the stackrec_recorder with its thread labels; samples
// the handler had to drop are recorded as one "[lost samples]" frame
// carrying their count and CPU time. Every --every seconds, and when asked
// (exec, exit, a termination signal), it serializes the recorder and writes
// the profile (ProfileWriter).
//
// Threads: the collector alone drains the ring, symbolizes, records and
// serializes, so none of that needs a lock. Other threads talk to it through
// a mutex-guarded request and a futex word that wakes it early; a signal
// handler only stores atomics and calls futex(FUTEX_WAKE), both
// async-signal-safe. A futex and not an eventfd or a pipe: a program that
// closes every descriptor it did not open (daemons do) would leave the
// collector polling a dead descriptor, or one the program reopened for
// itself. The thread blocks every signal, so neither SIGPROF nor a
// termination signal is ever delivered to it; it has no CPU timer.
//
// Lifetime: created once per process and never destroyed (exit-time
// destructors must not pull state from under a handler or the collector
// itself). A fork child builds a new one (mutexes and the thread do not
// survive a fork) around the same recorder, ring and, when it was not in
// use at the fork, the same symbolizer.
#ifndef STACKREC_EXEC_SHIM_COLLECTOR_H_
#define STACKREC_EXEC_SHIM_COLLECTOR_H_

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "config.h"
#include "profile_writer.h"
#include "sample_ring.h"
#include "stackrec/stackrec.h"
#include "symbolizer.h"

namespace stackrec_exec {

class Collector {
 public:
  using ThreadCreator = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

  Collector(const Config& config, SampleRing* ring, stackrec_recorder* recorder,
            Symbolizer* symbolizer, ProfileWriter* writer);
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Starts the thread with `create` (the real pthread_create: the shim's
  // own interposer would give it a CPU timer).
  bool Start(ThreadCreator create, std::string* error);

  // The calling thread has closed the sampler's gate; the collector records
  // everything captured so far and writes a last profile of this process
  // image (and its counters, if asked for). FlushForExec leaves the
  // collector running, in case the exec fails; Finish stops it. Both return
  // once the file is written, or false after `timeout_ms`. Not from a
  // signal handler.
  bool FlushForExec(int timeout_ms);
  bool Finish(int timeout_ms);

  // Async-signal-safe: SIGINT/SIGTERM/SIGHUP arrived. The collector writes
  // the last profile, then re-raises `sig` with its default action.
  void OnTerminationSignal(int sig);

 private:
  static void* ThreadMain(void* self);
  void Run();
  void Drain();
  void Record(const RawSample& raw);
  void RecordLost(uint64_t samples, int64_t cpu_ns);
  // `skip_empty`: leave out a profile without samples, whoever writes it.
  void WriteProfile(bool skip_empty);
  void WriteStats();
  void Wake();                       // async-signal-safe
  void WaitForWake(int timeout_ms);  // or for the timeout
  // The last profile of this image, from whichever thread may do it.
  void FinalFlush(bool skip_empty);

  const Config config_;
  SampleRing* const ring_;
  stackrec_recorder* const recorder_;
  Symbolizer* const symbolizer_;
  ProfileWriter* const writer_;
  std::atomic<uint32_t> wake_{0};  // the futex word: 1 = woken
  bool running_ = false;

  // Requests, guarded by mu_.
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t flushes_requested_ = 0;
  uint64_t flushes_done_ = 0;
  bool finish_requested_ = false;
  bool finished_ = false;
  std::atomic<int> terminate_signal_{0};

  // The collector thread's own (or the finishing thread's, once it stopped).
  RawSample raw_;
  std::vector<stackrec_location> frames_;
  std::string thread_name_;
  uint64_t recorded_ = 0;  // samples recorded from the ring
  uint64_t lost_ = 0;      // lost samples recorded as [lost samples]
  int64_t lost_ns_ = 0;
  uint64_t rejected_ = 0;     // records stackrec refused
  uint64_t since_write_ = 0;  // samples (any) since the last profile
  uint64_t files_written_ = 0;
  bool stats_written_ = false;
};

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_COLLECTOR_H_
