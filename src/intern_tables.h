// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Two interning tables that every pprof entity goes through:
//  - ValueTable<T>: small fixed-size records (functions, mappings,
//    locations), deduplicated by value.
//  - SpanTable<E>: variable-length sequences (stacks of location ids, label
//    sets), stored back to back in one pool.
//
// Invariant: ids are dense. In a ValueTable id 0 is reserved to mean "none"
// and real ids start at 1, as pprof wants; in a SpanTable id 0 is the empty
// sequence.
#ifndef STACKREC_SRC_INTERN_TABLES_H_
#define STACKREC_SRC_INTERN_TABLES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"

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
    auto it = index_.find(value);
    if (it != index_.end()) return *it;
    ReserveFor(items_, 1);  // nothing changes if this throws
    const auto id = static_cast<uint32_t>(items_.size());
    // The index hashes ids through items_, so the value goes in first.
    items_.push_back(value);
    try {
      index_.insert(id);
    } catch (...) {
      items_.pop_back();
      throw;
    }
    return id;
  }

  // The id of `value`, or 0 if it was never interned.
  uint32_t Find(const T& value) const {
    auto it = index_.find(value);
    return it == index_.end() ? 0 : *it;
  }
  const T& Get(uint32_t id) const { return items_[id]; }
  size_t size() const { return items_.size(); }
  size_t MemoryBytes() const {
    return items_.capacity() * sizeof(T) + index_.capacity() * (sizeof(uint32_t) + 1);
  }

  void Clear() {
    std::vector<T>().swap(items_);
    index_ = absl::flat_hash_set<uint32_t, Hash, Eq>(0, Hash{this}, Eq{this});
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

  std::vector<T> items_;
  absl::flat_hash_set<uint32_t, Hash, Eq> index_;
};

template <typename E>
class SpanTable {
 public:
  SpanTable() : index_(0, Hash{this}, Eq{this}) { Clear(); }
  // The set's functors point back at this table.
  SpanTable(const SpanTable&) = delete;
  SpanTable& operator=(const SpanTable&) = delete;

  uint32_t Intern(absl::Span<const E> seq) {
    auto it = index_.find(seq);
    if (it != index_.end()) return *it;
    // Grow everything first: if an allocation throws, nothing has changed.
    ReserveFor(pool_, seq.size());
    ReserveFor(offsets_, 1);
    const auto id = static_cast<uint32_t>(offsets_.size() - 1);
    pool_.insert(pool_.end(), seq.begin(), seq.end());
    offsets_.push_back(static_cast<uint32_t>(pool_.size()));
    index_.insert(id);
    return id;
  }

  // The id of `seq`, or ~0 if it was never interned.
  uint32_t Find(absl::Span<const E> seq) const {
    auto it = index_.find(seq);
    return it == index_.end() ? ~uint32_t{0} : *it;
  }
  absl::Span<const E> Get(uint32_t id) const {
    return absl::MakeConstSpan(pool_.data() + offsets_[id],
                               offsets_[id + 1] - offsets_[id]);
  }
  size_t size() const { return offsets_.size() - 1; }
  size_t MemoryBytes() const {
    return pool_.capacity() * sizeof(E) + offsets_.capacity() * sizeof(uint32_t) +
           index_.capacity() * (sizeof(uint32_t) + 1);
  }
  // Gives back the pool's room to grow (up to half of it, geometric growth
  // being what it is), for a table that will mostly be read for a while.
  // A copy; ids and content stay.
  void ShrinkToFit() {
    pool_.shrink_to_fit();
    offsets_.shrink_to_fit();
  }

  void Clear() {
    std::vector<E>().swap(pool_);
    std::vector<uint32_t>().swap(offsets_);
    index_ = absl::flat_hash_set<uint32_t, Hash, Eq>(0, Hash{this}, Eq{this});
    offsets_.push_back(0);
    Intern({});  // id 0: the empty sequence
  }

 private:
  struct Hash {
    using is_transparent = void;
    const SpanTable* table;
    size_t operator()(absl::Span<const E> s) const {
      return absl::Hash<absl::Span<const E>>{}(s);
    }
    size_t operator()(uint32_t id) const { return (*this)(table->Get(id)); }
  };
  struct Eq {
    using is_transparent = void;
    const SpanTable* table;
    static bool Same(absl::Span<const E> a, absl::Span<const E> b) {
      return a == b;
    }
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(uint32_t a, absl::Span<const E> b) const {
      return Same(table->Get(a), b);
    }
    bool operator()(absl::Span<const E> a, uint32_t b) const {
      return Same(a, table->Get(b));
    }
  };

  std::vector<E> pool_;
  std::vector<uint32_t> offsets_;  // sequence i is pool_[offsets_[i], offsets_[i+1])
  absl::flat_hash_set<uint32_t, Hash, Eq> index_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_INTERN_TABLES_H_
