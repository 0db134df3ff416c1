// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// HeapDeltas: a second aggregate over a profile's stacks and label sets,
// for live-heap tracking (live_heap/). Row i is the key (stack(i),
// labels(i)) with width() values, summed with saturation and possibly
// negative: an object freed gives its values back. The encoder never
// writes it; a recorder's serializer folds it into its live totals.
#ifndef STACKREC_SRC_TABLES_HEAP_DELTAS_H_
#define STACKREC_SRC_TABLES_HEAP_DELTAS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tables/content_blobs.h"
#include "tables/records.h"

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

  // What a blob of the trackers' content (ContentBlobs: a key, a stack, a
  // label set) is in this profile: a key's row, a stack's or label set's
  // id here. Remembered by the blob's number, checked against its serial
  // (a number is reused once its blob is freed, a serial never), so that
  // a tracked object's row is found again without reading its content.
  // A number's bits above ContentBlobs::kNumberBits name the blobs it is
  // from (one of several tables), each remembered in a vector of its own.
  // Clear() and Release() forget it all, as the rows and this profile's
  // tables it points into go.
  enum class BlobKind { kKey, kStack, kLabels };
  static constexpr uint32_t kUnknown = ~uint32_t{0};
  uint32_t FromBlob(BlobKind kind, uint32_t number, uint64_t serial) const {
    const std::vector<std::vector<Known>>& tables = from_blob_[static_cast<int>(kind)];
    const uint32_t t = number >> ContentBlobs::kNumberBits;
    const uint32_t i = number & (ContentBlobs::kMaxNumbers - 1);
    if (t >= tables.size() || i >= tables[t].size()) return kUnknown;
    return tables[t][i].serial == serial + 1 ? tables[t][i].here : kUnknown;
  }
  // Throws std::bad_alloc, with at most this blob not remembered.
  void RememberBlob(BlobKind kind, uint32_t number, uint64_t serial, uint32_t here);

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
  struct Known {
    uint64_t serial;  // + 1; 0: nothing remembered
    uint32_t here;
  };
  std::vector<std::vector<Known>> from_blob_[3];  // by BlobKind, by table, by number
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_HEAP_DELTAS_H_
