// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "collector.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "sampler.h"
#include "utf8.h"

namespace stackrec_exec {
namespace {

using Clock = std::chrono::steady_clock;

constexpr stackrec_str Lit(const char* s, size_t len) { return {s, len}; }
#define STACKREC_EXEC_LIT(s) Lit(s, sizeof(s) - 1)

thread_local bool t_is_collector = false;

// Marks the symbolizer in use for a fork child to see (symbolizer.h).
class BusyScope {
 public:
  explicit BusyScope(Symbolizer* s) : s_(s) { s_->set_busy(true); }
  ~BusyScope() { s_->set_busy(false); }
  BusyScope(const BusyScope&) = delete;
  BusyScope& operator=(const BusyScope&) = delete;

 private:
  Symbolizer* s_;
};

void Log(const std::string& message) {
  std::fprintf(stderr, "stackrec-exec: %s\n", message.c_str());
}

}  // namespace

Collector::Collector(const Config& config, SampleRing* ring, stackrec_recorder* recorder,
                     Symbolizer* symbolizer, ProfileWriter* writer)
    : config_(config), ring_(ring), recorder_(recorder), symbolizer_(symbolizer), writer_(writer) {}

bool Collector::Start(ThreadCreator create, std::string* error) {
  // The thread starts with every signal blocked, so there is no window in
  // which a SIGPROF or a Ctrl-C could land on it.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  const int rc = create(&thread, nullptr, &Collector::ThreadMain, this);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    *error = std::string("cannot start the collector thread: ") + std::strerror(rc);
    return false;
  }
  pthread_setname_np(thread, "stackrec-exec");
  pthread_detach(thread);
  std::lock_guard<std::mutex> lock(mu_);
  running_ = true;
  return true;
}

void* Collector::ThreadMain(void* self) {
  t_is_collector = true;
  static_cast<Collector*>(self)->Run();
  return nullptr;
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "the futex word must be a plain 32-bit word");

void Collector::Wake() {
  wake_.store(1, std::memory_order_release);
  syscall(SYS_futex, &wake_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void Collector::WaitForWake(int timeout_ms) {
  // A wake-up between this exchange and the wait makes the word 1, and
  // FUTEX_WAIT (which sleeps only while the word is 0) returns at once.
  if (wake_.exchange(0, std::memory_order_acquire) != 0) return;
  timespec timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  syscall(SYS_futex, &wake_, FUTEX_WAIT_PRIVATE, 0, &timeout, nullptr, 0);
}

void Collector::Run() {
  const auto every = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(config_.every_seconds));
  auto next_write = Clock::now() + every;
  for (;;) {
    const int64_t until_write =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_write - Clock::now()).count();
    WaitForWake(static_cast<int>(std::clamp<int64_t>(until_write, 0, config_.drain_ms)));
    Drain();

    if (const int sig = terminate_signal_.load()) {
      sampler::CloseGate(sampler::Gate::kClosedIgnore);
      FinalFlush(/*skip_empty=*/false);
      {
        std::lock_guard<std::mutex> lock(mu_);
        finished_ = true;
      }
      cv_.notify_all();
      // Die as the signal meant: its default action, taken by some thread
      // that does not block it (this one blocks everything).
      struct sigaction dfl;
      std::memset(&dfl, 0, sizeof(dfl));
      dfl.sa_handler = SIG_DFL;
      sigaction(sig, &dfl, nullptr);
      kill(getpid(), sig);
      return;
    }
    bool finish;
    uint64_t flush_ticket;
    {
      std::lock_guard<std::mutex> lock(mu_);
      finish = finish_requested_;
      flush_ticket = flushes_requested_ > flushes_done_ ? flushes_requested_ : 0;
    }
    if (finish || flush_ticket != 0) {
      // An image exec'd away without a sample (a wrapper script, `env`)
      // leaves no file, even in the process stackrec-exec started.
      FinalFlush(/*skip_empty=*/!finish);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (finish) finished_ = true;
        if (flush_ticket != 0) flushes_done_ = flush_ticket;
      }
      cv_.notify_all();
      if (finish) return;
      continue;
    }
    if (Clock::now() >= next_write) {
      WriteProfile(/*skip_empty=*/false);
      BusyScope busy(symbolizer_);
      symbolizer_->Revalidate();
      next_write += every;
      if (next_write < Clock::now()) next_write = Clock::now() + every;  // slept through some
    }
  }
}

void Collector::Drain() {
  BusyScope busy(symbolizer_);
  symbolizer_->BeginBatch();
  while (ring_->Pop(&raw_)) Record(raw_);
  uint64_t lost;
  int64_t lost_ns;
  sampler::TakeLost(&lost, &lost_ns);
  if (lost > 0) RecordLost(lost, lost_ns);
}

void Collector::Record(const RawSample& raw) {
  frames_.clear();
  for (int i = 0; i < raw.depth; ++i) symbolizer_->Append(raw.pcs[i], i > 0, &frames_);
  if (raw.truncated) {
    stackrec_location more{};
    more.function.name = STACKREC_EXEC_LIT("[truncated]");
    frames_.push_back(more);
  }
  stackrec_label labels[2] = {};
  labels[0].key = STACKREC_EXEC_LIT("thread id");
  labels[0].num = raw.tid;
  size_t labels_len = 1;
  thread_name_ = SanitizeUtf8(raw.thread_name);
  if (!thread_name_.empty()) {
    labels[1].key = STACKREC_EXEC_LIT("thread name");
    labels[1].str = {thread_name_.data(), thread_name_.size()};
    labels_len = 2;
  }
  const int64_t values[2] = {raw.samples, raw.cpu_ns};
  stackrec_sample sample = {};
  sample.locations = frames_.data();
  sample.locations_len = frames_.size();
  sample.values = values;
  sample.values_len = 2;
  sample.labels = labels;
  sample.labels_len = labels_len;
  sample.timestamp_ns = raw.timestamp_ns;
  if (stackrec_recorder_record(recorder_, &sample) != STACKREC_OK) {
    if (rejected_++ == 0) Log(std::string("a sample was refused: ") + stackrec_last_error());
    return;
  }
  recorded_ += static_cast<uint64_t>(raw.samples);
  since_write_ += static_cast<uint64_t>(raw.samples);
}

void Collector::RecordLost(uint64_t samples, int64_t cpu_ns) {
  stackrec_location frame{};
  frame.function.name = STACKREC_EXEC_LIT("[lost samples]");
  const int64_t values[2] = {static_cast<int64_t>(samples), cpu_ns};
  stackrec_sample sample = {};
  sample.locations = &frame;
  sample.locations_len = 1;
  sample.values = values;
  sample.values_len = 2;
  if (stackrec_recorder_record(recorder_, &sample) != STACKREC_OK) {
    if (rejected_++ == 0) Log(std::string("a sample was refused: ") + stackrec_last_error());
    return;
  }
  lost_ += samples;
  lost_ns_ += cpu_ns;
  since_write_ += samples;
}

void Collector::WriteProfile(bool skip_empty) {
  stackrec_encoded* encoded = nullptr;
  if (stackrec_recorder_serialize(recorder_, nullptr, &encoded) != STACKREC_OK) {
    Log(std::string("cannot serialize: ") + stackrec_last_error());
    return;
  }
  // The process stackrec-exec started writes every profile, so an idle
  // interval shows as one; the processes it forks or execs write only
  // those with samples, or every `sh -c` would leave an empty file.
  if (since_write_ > 0 || (config_.root_process && !skip_empty)) {
    std::string error;
    if (writer_->Write(stackrec_encoded_data(encoded), stackrec_encoded_size(encoded), &error)) {
      ++files_written_;
    } else {
      Log(error);
    }
  }
  since_write_ = 0;
  stackrec_encoded_free(encoded);
}

void Collector::WriteStats() {
  if (config_.stats_path.empty() || stats_written_) return;
  stats_written_ = true;
  // The collector's own CPU time, if this is the collector thread (a
  // process without one reports 0).
  timespec cpu = {0, 0};
  if (t_is_collector) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  const int64_t collector_ns = static_cast<int64_t>(cpu.tv_sec) * 1000000000 + cpu.tv_nsec;
  char line[400];
  const int len = std::snprintf(
      line, sizeof(line),
      "pid=%d seen=%" PRIu64 " recorded=%" PRIu64 " lost=%" PRIu64 " lost_ns=%" PRId64
      " rejected=%" PRIu64 " files=%" PRIu64 " arm_failures=%" PRIu64 " handler_ns=%" PRId64
      " collector_cpu_ns=%" PRId64 "\n",
      static_cast<int>(getpid()), sampler::SeenSamples(), recorded_, lost_, lost_ns_, rejected_,
      files_written_, sampler::ArmFailures(), sampler::HandlerNs(), collector_ns);
  const int fd = open(config_.stats_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t n = write(fd, line, static_cast<size_t>(len));  // one short append: atomic
  (void)n;
  close(fd);
}

void Collector::FinalFlush(bool skip_empty) {
  Drain();
  WriteProfile(skip_empty);
  WriteStats();
}

bool Collector::FlushForExec(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_) return true;
  if (!running_) {
    lock.unlock();
    FinalFlush(/*skip_empty=*/true);  // no collector thread: nobody else is in here
    return true;
  }
  const uint64_t ticket = ++flushes_requested_;
  Wake();
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [&] { return flushes_done_ >= ticket || finished_; });
}

bool Collector::Finish(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_) return true;
  if (!running_) {
    finished_ = true;
    lock.unlock();
    FinalFlush(/*skip_empty=*/false);
    return true;
  }
  finish_requested_ = true;
  Wake();
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return finished_; });
}

void Collector::OnTerminationSignal(int sig) {
  int none = 0;
  terminate_signal_.compare_exchange_strong(none, sig);
  Wake();
}

}  // namespace stackrec_exec
