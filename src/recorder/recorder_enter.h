// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The sampler's side of the recorder's two-slot protocol: how a sampler
// enters the active slot. The protocol and its invariants are at the top
// of recorder.cc; the serializer's side is Recorder::Serialize there.
// Only the recorder's own files include this.
#ifndef STACKREC_SRC_RECORDER_RECORDER_ENTER_H_
#define STACKREC_SRC_RECORDER_RECORDER_ENTER_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "base/spin_lock.h"
#include "recorder/recorder.h"

namespace stackrec {

// Runs write(lane, index) holding a lane of the active slot, re-checked
// active under the lane's lock (invariant 1), until it returns a status; a
// std::nullopt asks to start over (a caller that re-checks more under a
// lock of its own).
template <typename F>
Status Recorder::EnterLane(F&& write) {
  for (;;) {
    const uint32_t s = active_.load(std::memory_order_acquire);
    Lane* lane = TakeLane(s);  // its lock taken with a seq_cst exchange
    if (lane == nullptr) {
      SpinLock::CpuRelax();  // a flip, or kMaxLanes samplers inside
      continue;
    }
    // Unlocked however `write` ends: a std::bad_alloc thrown inside must
    // not leave the lane held forever.
    SpinLockHolder hold(&lane->lock, SpinLockHolder::kAdopt);
    if (active_.load(std::memory_order_seq_cst) != s) {
      continue;  // the serializer flipped between our two loads: the slot is its
    }
    if (std::optional<Status> status = write(*lane, s)) return *status;
  }
}

template <typename F>
Status Recorder::EnterHeapLane(F&& write) {
  for (;;) {
    const uint32_t h = heap_active_.load(std::memory_order_acquire);
    Lane* lane = TakeHeapLane(h);  // its lock taken with a seq_cst exchange
    if (lane == nullptr) {
      SpinLock::CpuRelax();
      continue;
    }
    SpinLockHolder hold(&lane->lock, SpinLockHolder::kAdopt);
    if (heap_active_.load(std::memory_order_seq_cst) != h) continue;
    if (std::optional<Status> status = write(*lane, h)) return *status;
  }
}

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_RECORDER_ENTER_H_
