// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// HeapDeltas: a second aggregate over a profile's stacks and label sets,
// for live-heap tracking (live_heap.h). Row i is the key (stack(i),
// labels(i)) with width() values, summed with saturation and possibly
// negative: an object freed gives its values back. The encoder never
// writes it; a recorder's serializer folds it into its live totals.
#ifndef STACKREC_SRC_HEAP_DELTAS_H_
#define STACKREC_SRC_HEAP_DELTAS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "records.h"

namespace stackrec {

class HeapDeltas {
 public:
  // Each row carries `width` values; 0 for a profile that tracks nothing.
  explicit HeapDeltas(size_t width) : width_(width) {}

  size_t width() const { return width_; }
  // The row of (stack, labels), added with zero values if new; throws
  // std::bad_alloc with nothing changed.
  uint32_t Row(uint32_t stack, uint32_t labels);
  // Adds `values` (width() of them) to row `row`, or subtracts them if
  // `negate`, saturating.
  void Add(uint32_t row, const int64_t* values, bool negate);

  // What an id of the content store that feeds these deltas
  // (TrackedObjects) is in this profile: a store key's row, a store
  // stack's or label set's id here. Remembered so that a tracked object's
  // row is found again without reading and hashing its content.
  // `generation` names the store's numbering of its ids: a store that
  // renumbers them takes a new generation, and what was remembered under
  // another one is forgotten. Clear() and Release() forget it all, as the
  // rows and this profile's tables it points into go.
  enum class StoreId { kKey, kStack, kLabels };
  static constexpr uint32_t kUnknown = ~uint32_t{0};
  uint32_t FromStore(uint64_t generation, StoreId kind, uint32_t id) const {
    const std::vector<uint32_t>& known = from_store_[static_cast<int>(kind)];
    return generation == store_generation_ && id < known.size() ? known[id] : kUnknown;
  }
  // Throws std::bad_alloc, with at most this id not remembered.
  void RememberFromStore(uint64_t generation, StoreId kind, uint32_t id, uint32_t here);

  size_t size() const { return keys_.size(); }
  uint32_t stack(size_t i) const { return keys_[i].stack; }
  uint32_t labels(size_t i) const { return keys_[i].labels; }
  // Through data(): a store of width 0 has no values at all.
  const int64_t* values(size_t i) const { return values_.data() + i * width_; }

  // Drops every row, keeping the storage for the next interval.
  void Clear();
  // Drops every row and frees the storage.
  void Release();
  size_t MemoryBytes() const;

 private:
  size_t width_;
  absl::flat_hash_map<SampleKey, uint32_t> index_;  // key -> row
  std::vector<SampleKey> keys_;
  std::vector<int64_t> values_;
  uint64_t store_generation_ = 0;
  std::vector<uint32_t> from_store_[3];  // by StoreId; kUnknown: not remembered
};

}  // namespace stackrec

#endif  // STACKREC_SRC_HEAP_DELTAS_H_
