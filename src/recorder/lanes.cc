// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Lanes: publishing a new lane without a lock.
#include "recorder/lanes.h"

#include "profile/profile.h"
#include "recorder/sample_lane.h"

namespace stackrec {

template <typename Content>
Lanes<Content>::~Lanes() {
  for (std::atomic<LaneType*>& lane : lanes_) delete lane.load(std::memory_order_relaxed);
}

template <typename Content>
uint32_t Lanes<Content>::Add(std::unique_ptr<LaneType> lane) {
  uint32_t n = count_.load(std::memory_order_acquire);
  while (n < kMaxLanes) {
    LaneType* expected = nullptr;
    if (lanes_[n].compare_exchange_strong(expected, lane.get(), std::memory_order_acq_rel)) {
      lane.release();
      // Moves count_ past n unless a thread that lost the race for
      // lanes_[n] already did (below). Seq_cst, as count_seq_cst() says:
      // in one order with the flip and the caller's re-check of it.
      uint32_t seen = n;
      count_.compare_exchange_strong(seen, n + 1, std::memory_order_seq_cst);
      return n;
    }
    // Another thread published lanes_[n]: help it move count_ past n, so
    // that no adder waits for that thread, and try the next index.
    uint32_t seen = n;
    count_.compare_exchange_strong(seen, n + 1, std::memory_order_seq_cst);
    n = count_.load(std::memory_order_acquire);
  }
  return kMaxLanes;
}

// The two kinds of lanes a recorder has.
template class Lanes<SampleLane>;
template class Lanes<Profile>;

}  // namespace stackrec
