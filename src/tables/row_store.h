// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// RowStore: the aggregate's rows, each `words` int64 (a packed key, then its
// values), in blocks of kBlockRows rows that are allocated as rows come and
// never move.
//
// Why not one std::vector: growing it copies every row, holds the old and
// the new array at once (one and a half times the rows at each doubling),
// and leaves up to half of it as room to grow; a profile's rows are its
// largest table. Blocks cost one more dependent load per row read, from a
// table of block pointers small enough to stay in L1.
#ifndef STACKREC_SRC_TABLES_ROW_STORE_H_
#define STACKREC_SRC_TABLES_ROW_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "base/table_memory.h"
#include "tables/intern_tables.h"  // ReserveFor

namespace stackrec {

class RowStore {
 public:
  // 512 rows: 20 KiB a block at four values, so that a small profile (or a
  // small memory cap) does not pay for a large block.
  static constexpr unsigned kBlockShift = 9;
  static constexpr size_t kBlockRows = size_t{1} << kBlockShift;

  explicit RowStore(size_t words) : words_(words) {}

  size_t size() const { return size_; }
  int64_t* Row(size_t i) {
    return blocks_[i >> kBlockShift].get() + (i & (kBlockRows - 1)) * words_;
  }
  const int64_t* Row(size_t i) const {
    return blocks_[i >> kBlockShift].get() + (i & (kBlockRows - 1)) * words_;
  }

  // Makes room for one more row, so that the Append that follows cannot
  // throw; throws std::bad_alloc (nothing changed) if allocating fails.
  void ReserveOne() {
    if (!HasRoom()) AddBlock();
  }
  // Whether `n` (at least one) more rows fit without a new block:
  // ReserveOne has nothing to do for them.
  bool HasRoom(size_t n = 1) const { return ((size_ + n - 1) >> kBlockShift) < blocks_.size(); }
  // The next row, uninitialized; after ReserveOne.
  int64_t* Append() { return Row(size_++); }
  // Keeps the first n rows (n <= size()); their blocks stay for reuse.
  void Truncate(size_t n) { size_ = n; }
  // No rows, storage freed.
  void Clear() {
    std::vector<TableArray<int64_t>>().swap(blocks_);
    size_ = 0;
  }
  size_t MemoryBytes() const {
    return blocks_.size() * kBlockRows * words_ * sizeof(int64_t) +
           blocks_.capacity() * sizeof(blocks_[0]);
  }

 private:
  void AddBlock() {
    // Uninitialized: every word is written by the row's owner on Append.
    TableArray<int64_t> block = MakeTableArray<int64_t>(kBlockRows * words_);
    ReserveFor(blocks_, 1);
    blocks_.push_back(std::move(block));  // cannot throw: room reserved
  }

  size_t words_;
  size_t size_ = 0;
  std::vector<TableArray<int64_t>> blocks_;  // in table memory (table_memory.h)
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_ROW_STORE_H_
