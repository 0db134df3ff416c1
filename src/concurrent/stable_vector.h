// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// StableVector: an append-only array whose elements never move, so that a
// thread may read element i without a lock while another appends, as long
// as it learned of i through something the appender published after
// writing it (a lock both took, or a release store it acquired). A
// recorder slot's tables keep each stack's and label set's seed here: the
// samplers of every lane read a key's seeds lock-free (SampleTables::
// KeyTag) while the one holding the slot's new-entry lock appends.
//
// Why not std::vector: growing it moves the elements, under a reader.
// Element i lives in chunk k = floor(log2(i + kFirst)) - log2(kFirst) of
// kFirst << k elements: chunks double, so appends cost amortised O(1) and
// a table of n elements holds at most 2n slots, and the chunk of an index
// is found with one count of leading zeros.
#ifndef STACKREC_SRC_CONCURRENT_STABLE_VECTOR_H_
#define STACKREC_SRC_CONCURRENT_STABLE_VECTOR_H_

#include <cstddef>
#include <cstdint>

#include "base/table_memory.h"

namespace stackrec {

template <typename T>
class StableVector {
 public:
  StableVector() = default;
  StableVector(const StableVector&) = delete;
  StableVector& operator=(const StableVector&) = delete;

  // Element i < size(), written before its index was published.
  const T& operator[](size_t i) const {
    const size_t k = ChunkOf(i);
    return chunks_[k][i + kFirst - (kFirst << k)];
  }
  size_t size() const { return size_; }

  // Makes room for one more element, so that the push_back that follows
  // cannot throw; throws std::bad_alloc with nothing changed.
  void ReserveOne() {
    const size_t k = ChunkOf(size_);
    if (chunks_[k] == nullptr) chunks_[k] = MakeTableArray<T>(kFirst << k);
  }
  // Appends `value`; after ReserveOne. Writes only the new element (and
  // no chunk a reader may be in is ever replaced).
  void push_back(const T& value) {
    const size_t i = size_++;
    const size_t k = ChunkOf(i);
    chunks_[k][i + kFirst - (kFirst << k)] = value;
  }
  // Empty, its chunks freed; only while no reader can be inside.
  void Clear() {
    for (TableArray<T>& chunk : chunks_) chunk.reset();
    size_ = 0;
  }
  size_t MemoryBytes() const {
    size_t bytes = 0;
    for (size_t k = 0; k < kChunks; ++k) {
      if (chunks_[k] != nullptr) bytes += (kFirst << k) * sizeof(T);
    }
    return bytes;
  }

 private:
  static constexpr size_t kFirstBits = 8;
  static constexpr size_t kFirst = size_t{1} << kFirstBits;
  // Chunks enough for every 32-bit index.
  static constexpr size_t kChunks = 33 - kFirstBits;

  static size_t ChunkOf(size_t i) {
    return static_cast<size_t>(63 - __builtin_clzll(static_cast<uint64_t>(i + kFirst))) -
           kFirstBits;
  }

  TableArray<T> chunks_[kChunks];
  size_t size_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_CONCURRENT_STABLE_VECTOR_H_
