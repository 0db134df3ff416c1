// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The ring between the SIGPROF handler (many producers, one per sampled
// thread) and the collector thread (the one consumer): a bounded queue of raw
// stack samples, after Dmitry Vyukov's bounded MPMC queue.
//
// Async-signal-safety, the invariant everything here serves: TryClaim and
// Publish run inside a signal handler on any thread, interrupting arbitrary
// code. They take no lock, make no system call and never allocate: one CAS
// on the claim position, plain stores into the claimed slot, one release
// store of that slot's sequence number. The memory is mapped once, up front.
//
// A handler never waits for the consumer: on a full ring TryClaim fails at
// once and the caller counts the sample as lost. A handler cannot be
// re-entered on its own thread (SIGPROF is blocked while it runs), so a
// claimed slot is always published before that thread runs anything else;
// the consumer, reading slots in order, finds a claimed-but-unpublished slot
// only while its producer is mid-handler, and takes it on its next drain.
//
// Fork: a slot a parent thread had claimed at the fork would never be
// published in the child (that thread does not exist there), so the child
// calls ResetAfterFork, which empties the ring; what it held was the
// parent's to report.
#ifndef STACKREC_EXEC_SHIM_SAMPLE_RING_H_
#define STACKREC_EXEC_SHIM_SAMPLE_RING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace stackrec_exec {

// One sample as the handler captured it: nothing symbolized yet.
struct RawSample {
  static constexpr int kMaxFrames = 128;
  int64_t samples;       // timer expirations it stands for (1 + overruns)
  int64_t cpu_ns;        // their CPU time: samples * period
  int64_t timestamp_ns;  // Unix time of the signal, or 0
  int32_t tid;
  uint16_t depth;        // pcs[0, depth): pcs[0] the interrupted instruction
  bool truncated;        // the stack went on past kMaxFrames
  char thread_name[16];  // NUL-terminated, as the kernel keeps it
  uint64_t pcs[kMaxFrames];
};

class SampleRing {
 public:
  SampleRing() = default;
  SampleRing(const SampleRing&) = delete;
  SampleRing& operator=(const SampleRing&) = delete;

  // Maps room for `slots` samples, rounded up to a power of two (at least 2:
  // with one slot, "published" and "free for the next lap" look the same).
  // Not async-signal-safe; call once before the handler is installed.
  bool Init(size_t slots);

  // Async-signal-safe. A slot to fill and its ticket, or nullptr when the
  // ring is full.
  RawSample* TryClaim(uint64_t* ticket);
  // Async-signal-safe. Hands the slot of `ticket` to the consumer.
  void Publish(uint64_t ticket);

  // Consumer only. Copies the oldest published sample out and frees its
  // slot; false if there is none (yet).
  bool Pop(RawSample* out);

  // In a fork child, before any thread there can produce: empties the ring.
  void ResetAfterFork();

  size_t capacity() const { return static_cast<size_t>(mask_) + 1; }

 private:
  struct alignas(64) Slot {
    // ticket: free for the producer of `ticket`; ticket + 1: published by
    // it; ticket + capacity: consumed, free for the next lap.
    std::atomic<uint64_t> seq;
    RawSample sample;
  };
  static_assert(std::atomic<uint64_t>::is_always_lock_free,
                "the handler may only use lock-free atomics");

  Slot* slots_ = nullptr;
  uint64_t mask_ = 0;
  alignas(64) std::atomic<uint64_t> head_{0};  // next ticket to claim
  alignas(64) uint64_t tail_ = 0;              // next ticket to consume
};

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_SAMPLE_RING_H_
