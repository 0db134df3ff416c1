// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Lanes: what writers of one recorder slot write into side by side. Each
// lane holds its content (a sample slot's SampleLane, sample_lane.h, or a
// heap slot's Profile of heap deltas) behind its own spin lock; a writer
// takes any lane whose lock is free and never waits on a held one, and a
// lane is added only when every existing lane is held at once, so a
// recorder has about as many lanes as writers that ever wrote at the same
// instant. The protocol is in slots.h; it knows nothing of the content.
#ifndef STACKREC_SRC_RECORDER_LANES_H_
#define STACKREC_SRC_RECORDER_LANES_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/spin_lock.h"

namespace stackrec {

// On a cache line of its own: two samplers in two lanes share no line.
template <typename Content>
struct alignas(64) Lane {
  SpinLock lock;
  std::unique_ptr<Content> content;
  // Records that went into this lane's content since it was last merged
  // or encoded, and how many of them hit a cap. Written under `lock`,
  // read (relaxed) by Recorder::stats().
  std::atomic<uint64_t> samples{0};
  std::atomic<uint64_t> truncated{0};
  std::atomic<uint64_t> over_memory{0};
  // The thread of the last record here, under `lock` (Recorder::RecordWith).
  const void* last_sampler = nullptr;

  // In a fork() child, once the content is reset or made anew: free, and
  // nothing counted.
  void ResetAfterFork() {
    lock.ForceUnlockAfterFork();
    samples.store(0, std::memory_order_relaxed);
    truncated.store(0, std::memory_order_relaxed);
    over_memory.store(0, std::memory_order_relaxed);
    last_sampler = nullptr;
  }
};

template <typename Content>
class Lanes {
 public:
  using LaneType = Lane<Content>;

  // Past this many samplers inside one slot at the same instant, a sampler
  // waits for a lane to come free.
  static constexpr uint32_t kMaxLanes = 64;

  Lanes() = default;
  ~Lanes();
  Lanes(const Lanes&) = delete;
  Lanes& operator=(const Lanes&) = delete;

  // Lanes [0, count()) exist and stay until the recorder is destroyed;
  // at(i) of one of them is never null.
  uint32_t count() const { return count_.load(std::memory_order_acquire); }
  LaneType* at(uint32_t i) const { return lanes_[i].load(std::memory_order_acquire); }
  // count() for the serializer after its seq_cst flip: Add moves the count
  // with seq_cst too, so either this sees a lane added by a sampler that
  // then re-checks the flip, or that sampler's re-check sees the flip
  // (slots.h, invariant 1). An acquire load could miss the lane while
  // the sampler misses the flip.
  uint32_t count_seq_cst() const { return count_.load(std::memory_order_seq_cst); }

  // Publishes `lane` after the last one, with its lock already held by the
  // caller, and returns its index; kMaxLanes (and `lane` freed) when full.
  // Lock-free: two threads adding at once both get a lane.
  uint32_t Add(std::unique_ptr<LaneType> lane);

 private:
  // Invariant: lanes_[i] is set before count_ passes i, and never changes
  // afterwards.
  std::atomic<LaneType*> lanes_[kMaxLanes] = {};
  std::atomic<uint32_t> count_{0};
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_LANES_H_
