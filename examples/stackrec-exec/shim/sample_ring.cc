// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "sample_ring.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

namespace stackrec_exec {

bool SampleRing::Init(size_t slots) {
  size_t capacity = 2;
  while (capacity < slots) capacity *= 2;
  // mmap, not new: the pages come zeroed and are never freed, so the handler
  // can't race a free, and exit-time destructors never touch the ring.
  void* mem = mmap(nullptr, capacity * sizeof(Slot), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return false;
  slots_ = static_cast<Slot*>(mem);
  mask_ = capacity - 1;
  for (size_t i = 0; i < capacity; ++i) new (&slots_[i].seq) std::atomic<uint64_t>(i);
  return true;
}

RawSample* SampleRing::TryClaim(uint64_t* ticket) {
  uint64_t pos = head_.load(std::memory_order_relaxed);
  for (;;) {
    Slot& slot = slots_[pos & mask_];
    const uint64_t seq = slot.seq.load(std::memory_order_acquire);
    const int64_t lag = static_cast<int64_t>(seq - pos);
    if (lag == 0) {
      // Free for this ticket: take it, unless another producer was faster.
      if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        *ticket = pos;
        return &slot.sample;
      }
    } else if (lag < 0) {
      return nullptr;  // still holds the sample of the previous lap: full
    } else {
      pos = head_.load(std::memory_order_relaxed);  // claimed by someone else
    }
  }
}

void SampleRing::Publish(uint64_t ticket) {
  slots_[ticket & mask_].seq.store(ticket + 1, std::memory_order_release);
}

bool SampleRing::Pop(RawSample* out) {
  Slot& slot = slots_[tail_ & mask_];
  if (slot.seq.load(std::memory_order_acquire) != tail_ + 1) return false;
  const RawSample& in = slot.sample;
  // Only the captured frames: the rest of the slot is stale.
  std::memcpy(out, &in, offsetof(RawSample, pcs));
  std::memcpy(out->pcs, in.pcs, sizeof(in.pcs[0]) * in.depth);
  slot.seq.store(tail_ + mask_ + 1, std::memory_order_release);
  ++tail_;
  return true;
}

void SampleRing::ResetAfterFork() {
  for (uint64_t i = 0; i <= mask_; ++i) slots_[i].seq.store(i, std::memory_order_relaxed);
  head_.store(0, std::memory_order_relaxed);
  tail_ = 0;
}

}  // namespace stackrec_exec
