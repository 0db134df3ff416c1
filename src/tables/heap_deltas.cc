// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/heap_deltas.h"

#include <limits>

#include "base/memory_bytes.h"
#include "base/saturating.h"
#include "base/table_growth.h"
#include "tables/intern_tables.h"

namespace stackrec {

uint32_t HeapDeltas::Row(uint32_t stack, uint32_t labels) {
  const SampleKey key{stack, labels};
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  // Grow the vectors before indexing the key: a throw changes nothing.
  ReserveFor(keys_, 1);
  ReserveFor(values_, width_);
  const auto row = static_cast<uint32_t>(keys_.size());
  EmplaceGrowingFirst(index_, key, row);
  keys_.push_back(key);
  values_.insert(values_.end(), width_, 0);
  return row;
}

void HeapDeltas::Add(uint32_t row, const int64_t* values, bool negate) {
  int64_t* sums = values_.data() + size_t{row} * width_;  // none at width 0
  for (size_t i = 0; i < width_; ++i) {
    if (!negate) {
      sums[i] = SaturatingAdd(sums[i], values[i]);
    } else if (__builtin_sub_overflow(sums[i], values[i], &sums[i])) {
      // (Not SaturatingAdd of -v: -INT64_MIN does not exist.)
      sums[i] =
          values[i] < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    }
  }
}

void HeapDeltas::RememberBlob(BlobKind kind, uint32_t number, uint64_t serial, uint32_t here) {
  std::vector<std::vector<Known>>& tables = from_blob_[static_cast<int>(kind)];
  const uint32_t t = number >> ContentBlobs::kNumberBits;
  const uint32_t i = number & (ContentBlobs::kMaxNumbers - 1);
  if (t >= tables.size()) {
    ReserveFor(tables, size_t{t} + 1 - tables.size());
    tables.resize(size_t{t} + 1);
  }
  std::vector<Known>& known = tables[t];
  if (i >= known.size()) {
    ReserveFor(known, size_t{i} + 1 - known.size());
    known.resize(size_t{i} + 1, Known{0, kUnknown});
  }
  known[i] = Known{serial + 1, here};
}

void HeapDeltas::Clear() {
  index_.clear();
  keys_.clear();
  values_.clear();
  // The rows are gone, and the profile's tables may go next (Reset).
  for (auto& tables : from_blob_) {
    for (std::vector<Known>& known : tables) known.clear();
  }
}

void HeapDeltas::Release() {
  index_ = {};
  std::vector<SampleKey>().swap(keys_);
  std::vector<int64_t>().swap(values_);
  for (auto& tables : from_blob_) std::vector<std::vector<Known>>().swap(tables);
}

size_t HeapDeltas::MemoryBytes() const {
  size_t bytes = MapBytes(index_) + VectorBytes(keys_) + VectorBytes(values_);
  for (const auto& tables : from_blob_) {
    bytes += VectorBytes(tables);
    for (const std::vector<Known>& known : tables) bytes += VectorBytes(known);
  }
  return bytes;
}

}  // namespace stackrec
