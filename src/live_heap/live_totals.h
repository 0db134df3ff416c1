// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// LiveTotals: live-heap tracking's serializer's side, the sum of every
// heap delta the heap lanes have handed over, by content, which every
// serialization adds to its profile, so an object alive across many
// profiles appears in each of them. The samplers' side is TrackedObjects
// (tracked_objects.h); the protocol between the owners is at the top of
// recorder.cc.
#ifndef STACKREC_SRC_LIVE_HEAP_LIVE_TOTALS_H_
#define STACKREC_SRC_LIVE_HEAP_LIVE_TOTALS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "input/live_heap_options.h"
#include "input/profile_options.h"
#include "profile/profile.h"
#include "tables/aggregate.h"

namespace stackrec {

// The serializer's side: running totals of the heap deltas, by content.
class LiveTotals {
 public:
  LiveTotals(const ProfileOptions& profile_options, const LiveHeapOptions& options);

  // Moves the heap deltas of `slot` into the totals and clears them from
  // the slot. Throws std::bad_alloc before changing any total.
  void Absorb(Profile* slot);
  // Adds every non-zero total to the aggregated keys of `slot`, at the
  // stored positions of the live-heap types (other values 0). `undo` (its
  // key_count set first) takes it back: on a failed encoding, the next
  // serialization adds the totals again.
  void AddTo(Profile* slot, KeyUndo* undo);
  size_t MemoryBytes() const { return totals_->MemoryBytes(); }

 private:
  // Starts over with only the non-zero keys when most are zero (every
  // object of theirs freed), so code that keeps changing does not make the
  // totals grow forever. Amortized: O(keys) after at least keys/2 died.
  void CompactIfMostlyDead();

  const size_t width_;
  // Per live-heap type, its index among the stored (enabled) values, or
  // kNotStored when its type is disabled.
  static constexpr size_t kNotStored = ~size_t{0};
  std::vector<size_t> stored_index_;
  std::unique_ptr<Profile> totals_;  // the heap rows are the totals
  std::vector<uint32_t> scratch_rows_;
  std::vector<int64_t> scratch_values_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_LIVE_HEAP_LIVE_TOTALS_H_
