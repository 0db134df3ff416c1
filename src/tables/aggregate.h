// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Aggregate: a profile's samples, by key. Samples of the same key (stack,
// label set) are summed into one row; timestamped samples are kept one by
// one. The tables the ids refer to are not here (interned_tables.h); the
// caller gives each key its 32-bit tag, a hash of its stack's and label
// set's seeds.
#ifndef STACKREC_SRC_TABLES_AGGREGATE_H_
#define STACKREC_SRC_TABLES_AGGREGATE_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "base/saturating.h"
#include "tables/key_index.h"
#include "tables/records.h"
#include "tables/row_store.h"

namespace stackrec {

// What Aggregate::Add with an undo changed, so that Undo can take it back.
struct KeyUndo {
  size_t key_count = 0;               // set to key_count() before the first Add
  std::vector<uint32_t> rows;         // rows below key_count that changed...
  std::vector<int64_t> saved_values;  // ...and their values before, in order
};

class Aggregate {
 public:
  // Each key carries `width` values.
  explicit Aggregate(size_t width);
  Aggregate(const Aggregate&) = delete;
  Aggregate& operator=(const Aggregate&) = delete;

  size_t width() const { return width_; }

  // ---- The deferred lookup ------------------------------------------------
  // A sample of a key is not looked up in its own call: the key index and
  // the rows are the largest tables, and each read is a cache miss. The
  // lookup is spread over the two adds that follow, each reading what the
  // one before fetched, while the caller builds its next sample in between:
  //   - Defer prefetches the key's home slot and keeps the sample (key, tag,
  //     values: the slot stage);
  //   - the next Advance reads its probe chain: no entry of its tag, and
  //     the key is new and inserted; otherwise the first row of that tag is
  //     prefetched (the row stage);
  //   - the Advance after compares that row's key and sums the values into
  //     it, or, when another key has the same tag, finds the key further on
  //     or inserts it.
  // A deferred sample is part of the aggregate from the moment Defer
  // returns: every reader of the rows, and every other change to them,
  // settles both stages first (Settle), in order, so rows are inserted and
  // summed in the order the samples came.
  //
  // Invariant: a sample is deferred only when CanDefer() (room for two
  // more keys, one for each stage), and nothing but settling changes the
  // rows or the index while one is pending; so settling never allocates
  // and cannot fail.

  // Whether Defer may be called: both stages could insert a key.
  bool CanDefer() const { return rows_.HasRoom(2) && key_index_.HasRoom(2); }
  // Prefetches the home slot of keys tagged `tag`.
  void Prefetch(uint32_t tag) const { key_index_.Prefetch(tag); }
  // Adds `values` (width() of them) to `key`, tagged `tag`, deferred; the
  // slot stage must be free (Advance was called since the last Defer).
  void Defer(SampleKey key, uint32_t tag, const int64_t* values) {
    assert(CanDefer() && !slot_pending_);
    key_index_.Prefetch(tag);
    slot_pending_ = true;
    at_slot_.key = key;
    at_slot_.tag = tag;
    std::copy_n(values, width_, at_slot_.values.data());
  }
  // Moves each stage on by one: the row stage settled, then the slot stage
  // read into the row stage (or inserted). Called at the start of each
  // sampler's add, so that the slot stage is free for its Defer.
  void Advance() {
    if (pending_row_ != KeyIndex::kNone) SettleRow();
    if (slot_pending_) ReadSlot();
  }
  // Settles whatever is pending. Const, because the readers are: it changes
  // how the aggregate is stored, not what it holds. Like every method here
  // it is for one thread at a time, reads included.
  void Settle() const {
    if (slot_pending_ || pending_row_ != KeyIndex::kNone) {
      const_cast<Aggregate*>(this)->SettleAll();
    }
  }

  // ---- Adding now --------------------------------------------------------
  // The row of `key` (after what is pending), or KeyIndex::kNone.
  uint32_t Find(SampleKey key, uint32_t tag) const {
    Settle();
    return FindSettled(key.Packed(), tag);
  }
  // Adds `values` to row `row`.
  void SumInto(uint32_t row, const int64_t* values) {
    int64_t* sums = rows_.Row(row) + 1;
    for (size_t i = 0; i < width_; ++i) sums[i] = SaturatingAdd(sums[i], values[i]);
  }
  // A new row for `key`, which Find did not find; throws std::bad_alloc
  // with nothing changed.
  void Insert(SampleKey key, uint32_t tag, const int64_t* values);
  // Adds `values` to `key`, a new row if need be. With `undo`, records how
  // to take it back: Undo(*undo, ...) restores every row as it was before
  // the first Add of that undo (rows added are removed).
  void Add(SampleKey key, uint32_t tag, const int64_t* values, KeyUndo* undo = nullptr);
  // `tag_of` gives the tag each key was added with.
  void Undo(const KeyUndo& undo, absl::FunctionRef<uint32_t(SampleKey)> tag_of);

  // A timestamped sample, kept as it is; throws std::bad_alloc with
  // nothing changed.
  void AddTimed(SampleKey key, int64_t timestamp_ns, const int64_t* values);

  // Drops the timestamped samples from the n-th on (n <= timed_count()).
  void DropTimedFrom(size_t n) {
    timed_.resize(n);
    timed_values_.resize(n * width_);
  }

  // Drops every sample and frees their storage.
  void Clear();

  // ---- Reading -----------------------------------------------------------
  // Key i has stack key_stack(i), labels key_labels(i) and values
  // [key_values(i), key_values(i) + width()). Each settles first.
  size_t key_count() const {
    Settle();
    return rows_.size();
  }
  uint32_t key_stack(size_t i) const { return static_cast<uint32_t>(RowKey(i) >> 32); }
  uint32_t key_labels(size_t i) const { return static_cast<uint32_t>(RowKey(i)); }
  const int64_t* key_values(size_t i) const {
    Settle();
    return rows_.Row(i) + 1;
  }
  size_t timed_count() const { return timed_.size(); }
  uint32_t timed_stack(size_t i) const { return timed_[i].key.stack; }
  uint32_t timed_labels(size_t i) const { return timed_[i].key.labels; }
  int64_t timed_timestamp(size_t i) const { return timed_[i].timestamp_ns; }
  const int64_t* timed_values(size_t i) const { return &timed_values_[i * width_]; }

  // Memory held by the rows and the key index, which grow with every new
  // key, and by the timestamped samples.
  size_t KeyBytes() const { return rows_.MemoryBytes() + key_index_.MemoryBytes(); }
  size_t TimedBytes() const {
    return timed_.capacity() * sizeof(Timed) + timed_values_.capacity() * sizeof(int64_t);
  }

 private:
  struct Timed {
    SampleKey key;
    int64_t timestamp_ns;
  };
  // A deferred sample: its key, tag and values (width_ of them).
  struct PendingSample {
    SampleKey key;
    uint32_t tag = 0;
    std::vector<int64_t> values;
  };

  uint64_t RowKey(size_t row) const {
    Settle();
    return static_cast<uint64_t>(rows_.Row(row)[0]);
  }
  uint32_t FindSettled(uint64_t packed, uint32_t tag) const {
    return key_index_.Find(
        packed, tag, [this](uint32_t row) { return static_cast<uint64_t>(rows_.Row(row)[0]); });
  }
  // Sums into the key's row or inserts it, with nothing pending before it.
  void AddSettled(SampleKey key, uint32_t tag, const int64_t* values) {
    if (const uint32_t row = FindSettled(key.Packed(), tag); row != KeyIndex::kNone) {
      SumInto(row, values);
    } else {
      Insert(key, tag, values);
    }
  }
  void SettleAll() {
    Advance();
    if (pending_row_ != KeyIndex::kNone) SettleRow();
  }
  void SettleRow() {
    const uint32_t candidate = pending_row_;
    pending_row_ = KeyIndex::kNone;
    if (static_cast<uint64_t>(rows_.Row(candidate)[0]) == at_row_.key.Packed()) {
      SumInto(candidate, at_row_.values.data());
      return;
    }
    // Another key of the same tag came first on the chain: the key may be
    // further on, or new (the room it takes was there when it was deferred).
    AddSettled(at_row_.key, at_row_.tag, at_row_.values.data());
  }
  // With no row stage pending.
  void ReadSlot() {
    slot_pending_ = false;
    const uint32_t candidate = key_index_.FirstWithTag(at_slot_.tag);
    if (candidate == KeyIndex::kNone) {
      Insert(at_slot_.key, at_slot_.tag, at_slot_.values.data());
      return;
    }
    // A row may straddle two cache lines.
    const int64_t* row = rows_.Row(candidate);
    __builtin_prefetch(row);
    __builtin_prefetch(row + width_);
    pending_row_ = candidate;
    std::swap(at_row_, at_slot_);
  }

  size_t width_;
  // A row per key (row_store.h): the key (stack << 32 | labels), then its
  // width_ values. Beside its key, a row's values are summed where the
  // lookup just read, and the index needs no copy of the key, only its
  // 32-bit tag (key_index.h).
  RowStore rows_;
  KeyIndex key_index_;
  // In the slot stage if slot_pending_; in the row stage unless
  // pending_row_ is kNone, the first row of its tag on its probe chain.
  bool slot_pending_ = false;
  PendingSample at_slot_;
  uint32_t pending_row_ = KeyIndex::kNone;
  PendingSample at_row_;
  std::vector<Timed> timed_;
  std::vector<int64_t> timed_values_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_AGGREGATE_H_
