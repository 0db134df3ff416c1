// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Two interning tables that every pprof entity goes through:
//  - ValueTable<T>: small fixed-size records (functions, mappings,
//    locations), deduplicated by value.
//  - SpanTable<E>: variable-length sequences (stacks of location ids, label
//    sets), stored back to back in chunks that never move.
//
// Invariant: ids are dense. In a ValueTable id 0 is reserved to mean "none"
// and real ids start at 1, as pprof wants; in a SpanTable id 0 is the empty
// sequence.
#ifndef STACKREC_SRC_TABLES_INTERN_TABLES_H_
#define STACKREC_SRC_TABLES_INTERN_TABLES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
#include "base/table_growth.h"
#include "base/table_memory.h"

namespace stackrec {

// Makes room for `extra` more elements with geometric growth, so that the
// push that follows cannot throw. (vector::reserve(size() + 1) would grow
// by one element at a time and make appends quadratic.)
template <typename V>
void ReserveFor(V& v, size_t extra) {
  if (v.size() + extra > v.capacity()) {
    v.reserve(std::max(v.capacity() * 2, v.size() + extra));
  }
}

template <typename T>
class ValueTable {
 public:
  ValueTable() : index_(0, Hash{this}, Eq{this}) { Clear(); }
  // The index's functors point back at this table.
  ValueTable(const ValueTable&) = delete;
  ValueTable& operator=(const ValueTable&) = delete;

  // The id of `value` (never 0), added if new.
  uint32_t Intern(const T& value) {
    CatchUp();
    auto it = index_.find(value);
    if (it != index_.end()) return *it;
    // Room first: nothing changes if either allocation throws, and
    // nothing after them can (table_growth.h).
    ReserveFor(items_, 1);
    const auto id = static_cast<uint32_t>(items_.size());
    GrowIndexBeforeInsert(index_, 1, id);  // id 0 is not in the index (see Clear)
    // The index hashes ids through items_, so the value goes in first.
    items_.push_back(value);
    index_.insert(id);
    indexed_end_ = id + 1;
    return id;
  }

  // Adding a value its caller knows is not in the table (Profile's frame
  // path: see Profile::frame_locations_) skips the lookup and leaves the
  // index behind; the next lookup by value (Intern, Find) first indexes
  // what was appended, in id order. A table filled this way alone never
  // builds its index (typical's first interval on the workloads bench:
  // 29,706 locations). ReserveOne first; then Append cannot throw.
  void ReserveOne() { ReserveFor(items_, 1); }
  uint32_t Append(const T& value) {
    items_.push_back(value);
    return static_cast<uint32_t>(items_.size() - 1);
  }
  // The id Append would give next.
  uint32_t next_id() const { return static_cast<uint32_t>(items_.size()); }

  // Starts fetching the index's slot for `value`, for an Intern soon.
  void Prefetch(const T& value) const { index_.prefetch(value); }

  // The id of `value`, or 0 if it was never interned.
  uint32_t Find(const T& value) {
    CatchUp();
    auto it = index_.find(value);
    return it == index_.end() ? 0 : *it;
  }
  const T& Get(uint32_t id) const { return items_[id]; }
  size_t size() const { return items_.size(); }
  size_t MemoryBytes() const {
    return items_.capacity() * sizeof(T) + index_.capacity() * (sizeof(uint32_t) + 1);
  }

  void Clear() {
    TableVector<T>().swap(items_);
    index_ = Index(0, Hash{this}, Eq{this});
    indexed_end_ = 1;
    // Id 0 is reserved and never returned by Intern, not even for T{}: an
    // all-zero location is a real location (a frame at address 0 with no
    // function), while "no mapping" and "no function" are decided by the
    // caller before interning. It is kept out of the index.
    items_.push_back(T{});
  }

 private:
  // The index holds ids, not copies of the values: 5 bytes a slot instead
  // of the value's size plus 5 (a location is 24 bytes).
  struct Hash {
    using is_transparent = void;
    const ValueTable* table;
    size_t operator()(const T& value) const { return absl::Hash<T>{}(value); }
    size_t operator()(uint32_t id) const { return (*this)(table->items_[id]); }
  };
  struct Eq {
    using is_transparent = void;
    const ValueTable* table;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, const T& b) const { return table->items_[a] == b; }
    bool operator()(const T& a, uint32_t b) const { return a == table->items_[b]; }
  };

  // Invariant: the index holds ids [1, indexed_end_), and every lookup by
  // value comes after CatchUp. Throws std::bad_alloc with nothing changed
  // if the index cannot grow.
  void CatchUp() {
    if (indexed_end_ == items_.size()) return;
    GrowIndexFor(index_, 1, indexed_end_, items_.size() - 1);
    for (; indexed_end_ < items_.size(); ++indexed_end_) index_.insert(indexed_end_);
  }

  // Both in table memory (table_memory.h).
  using Index = absl::flat_hash_set<uint32_t, Hash, Eq, TableAllocator<uint32_t>>;
  TableVector<T> items_;
  Index index_;
  uint32_t indexed_end_ = 1;
};

template <typename E>
class SpanTable {
 public:
  SpanTable() : index_(0, Hash{this}, Eq{this}) { Clear(); }
  // The set's functors point back at this table.
  SpanTable(const SpanTable&) = delete;
  SpanTable& operator=(const SpanTable&) = delete;

  uint32_t Intern(absl::Span<const E> seq) {
    CatchUp();
    auto it = index_.find(seq);
    if (it != index_.end()) return *it;
    // Grow everything first: if an allocation throws, nothing has changed,
    // and nothing after them can throw (table_growth.h).
    ReserveFor(spans_, 1);
    GrowIndexBeforeInsert(index_, 0, static_cast<uint32_t>(spans_.size()));
    const uint32_t id = Store(seq);
    index_.insert(id);
    indexed_end_ = id + 1;
    return id;
  }

  // Adds `seq`, which its caller knows is not in the table (Profile's
  // frame path: see Profile::cache_stacks_), without looking it up or
  // indexing it, as ValueTable::Append does: the next lookup by content
  // (Intern, Find) first indexes what was appended, in id order. Throws
  // std::bad_alloc with nothing changed if memory is short.
  uint32_t Append(absl::Span<const E> seq) {
    ReserveFor(spans_, 1);
    return Store(seq);
  }

  // The id of `seq`, or ~0 if it was never interned.
  uint32_t Find(absl::Span<const E> seq) {
    CatchUp();
    auto it = index_.find(seq);
    return it == index_.end() ? ~uint32_t{0} : *it;
  }
  absl::Span<const E> Get(uint32_t id) const { return spans_[id]; }
  size_t size() const { return spans_.size(); }
  size_t MemoryBytes() const {
    return chunk_elements_ * sizeof(E) + spans_.capacity() * sizeof(spans_[0]) +
           chunks_.capacity() * sizeof(chunks_[0]) + index_.capacity() * (sizeof(uint32_t) + 1);
  }
  // Gives back the room to grow of the sequences' index by id (up to half
  // of it, geometric growth being what it is), for a table that will
  // mostly be read for a while. A copy; ids and content stay. (The pool's
  // room is the rest of its last chunk, at most kMaxChunk elements.)
  void ShrinkToFit() { spans_.shrink_to_fit(); }

  void Clear() {
    std::vector<TableArray<E>>().swap(chunks_);
    chunk_elements_ = 0;
    chunk_used_ = 0;
    chunk_size_ = 0;
    std::vector<absl::Span<const E>>().swap(spans_);
    index_ = Index(0, Hash{this}, Eq{this});
    indexed_end_ = 0;
    Intern({});  // id 0: the empty sequence
  }

 private:
  // The sequences live in chunks that are never moved: growing the pool
  // copies nothing and never holds an old and a new copy at once. (One
  // vector doubled as it grew, each doubling copying the whole pool into
  // memory touched for the first time: on the workloads bench, typical's
  // first interval in a fresh process took 2,298 page faults that way and
  // takes 2,194 this way.) Chunks double from kFirstChunk elements, so that a small
  // profile holds one small chunk, up to kMaxChunk; a longer sequence gets
  // a chunk of its own size. A sequence never spans two chunks: what is
  // left of a chunk too short for the next one stays unused.
  static constexpr size_t kFirstChunk = 256;
  static constexpr size_t kMaxChunk = 16384;

  // Room for n elements after the current chunk's used ones, in a new
  // chunk if need be; throws std::bad_alloc with nothing changed.
  E* Room(size_t n) {
    if (n > chunk_size_ - chunk_used_) {
      const size_t size = std::max(n, std::min(kMaxChunk, std::max(kFirstChunk, chunk_elements_)));
      ReserveFor(chunks_, 1);
      // The allocation may throw (nothing changed yet); the push cannot:
      // room reserved.
      chunks_.push_back(MakeTableArray<E>(size));
      chunk_elements_ += size;
      chunk_size_ = size;
      chunk_used_ = 0;
    }
    return chunks_.empty() ? nullptr : chunks_.back().get() + chunk_used_;
  }

  // Copies `seq` into the pool and gives it the next id; spans_ has room
  // for it. Throws std::bad_alloc with nothing changed if a new chunk
  // cannot be had; nothing after that can throw.
  uint32_t Store(absl::Span<const E> seq) {
    E* const at = Room(seq.size());
    std::uninitialized_copy(seq.begin(), seq.end(), at);
    const auto id = static_cast<uint32_t>(spans_.size());
    spans_.emplace_back(at, seq.size());
    chunk_used_ += seq.size();
    return id;
  }

  // Invariant: the index holds ids [0, indexed_end_), and every lookup by
  // content comes after CatchUp (ValueTable's).
  void CatchUp() {
    if (indexed_end_ == spans_.size()) return;
    GrowIndexFor(index_, 0, indexed_end_, spans_.size());
    for (; indexed_end_ < spans_.size(); ++indexed_end_) index_.insert(indexed_end_);
  }

  struct Hash {
    using is_transparent = void;
    const SpanTable* table;
    size_t operator()(absl::Span<const E> s) const { return absl::Hash<absl::Span<const E>>{}(s); }
    size_t operator()(uint32_t id) const { return (*this)(table->Get(id)); }
  };
  struct Eq {
    using is_transparent = void;
    const SpanTable* table;
    static bool Same(absl::Span<const E> a, absl::Span<const E> b) { return a == b; }
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, absl::Span<const E> b) const { return Same(table->Get(a), b); }
    bool operator()(absl::Span<const E> a, uint32_t b) const { return Same(a, table->Get(b)); }
  };

  // The chunks and the index in table memory (table_memory.h); the
  // sequences' views, which are pointers, in operator new's memory.
  using Index = absl::flat_hash_set<uint32_t, Hash, Eq, TableAllocator<uint32_t>>;
  std::vector<TableArray<E>> chunks_;
  size_t chunk_elements_ = 0;               // in all chunks
  size_t chunk_size_ = 0;                   // of the last chunk,
  size_t chunk_used_ = 0;                   // of which used
  std::vector<absl::Span<const E>> spans_;  // sequence i
  Index index_;
  uint32_t indexed_end_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_INTERN_TABLES_H_
