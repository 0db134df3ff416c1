// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// absl's hash tables, grown by us instead of by absl, for two reasons.
//
// Exception safety. absl's raw_hash_set (Debian 12's, 20220623) grows by
// setting its new capacity first and allocating after; when the allocation
// throws (the process or table memory is out of memory), the table keeps a
// capacity its arrays do not have, and its next lookup, or its destructor,
// reads past them. So no table that outlives a call grows by itself: before
// each insert of a new key, a full table's elements move into a table
// constructed at absl's next capacity, and a constructor that throws leaves
// no object behind: the table keeps its arrays and nothing has changed.
// (tests/core_unit/allocation_failure_test.cc makes each table allocation of a run
// fail in turn; before this, the second one aborted the test.)
//
// Order. An index of ids whose hash reads the item an id names (a string,
// a location, a stack) is refilled in id order, reading the items in the
// order they are stored, which the processor prefetches. absl's own growth
// reads them in slot order, a cache miss an item once they outgrow the
// cache (typical's first interval on the workloads bench: about half of a
// new location's cost was the location index growing).
//
// Invariant: every insert into such a table comes after GrowBeforeInsert
// (or GrowIndexBeforeInsert), or is EmplaceGrowingFirst; no table has an
// element erased (a tombstone would make absl grow before our test says
// the table is full).
#ifndef STACKREC_SRC_BASE_TABLE_GROWTH_H_
#define STACKREC_SRC_BASE_TABLE_GROWTH_H_

#include <cstddef>
#include <cstdint>
#include <utility>

namespace stackrec {

// How many elements a table of `capacity` slots holds before absl grows
// it: 7/8 of its capacity (absl's CapacityToGrowth; a capacity of 7 holds
// 6, as absl's does where groups are 8 bytes wide; elsewhere that grows
// one insert early). A capacity of 0 holds none.
inline size_t GrowthOf(size_t capacity) { return capacity == 7 ? 6 : capacity - capacity / 8; }

// Whether the next insert of a new key would make absl grow `t`: its size
// has reached GrowthOf its capacity.
template <typename Table>
bool FullForInsert(const Table& t) {
  return t.size() >= GrowthOf(t.capacity());
}

// Before an insert of a key not in `t`: grows a full `t` to absl's next
// capacity (2 × capacity + 1), or throws std::bad_alloc with `t` as it was.
template <typename Table>
void GrowBeforeInsert(Table& t) {
  if (!FullForInsert(t)) return;
  Table grown(2 * t.capacity() + 1, t.hash_function(), t.key_eq(), t.get_allocator());
  for (const auto& element : t) grown.insert(element);  // cannot grow: room made
  t.swap(grown);
}

// `t`.emplace(args...), growing `t` first as above.
template <typename Table, typename... Args>
auto EmplaceGrowingFirst(Table& t, Args&&... args) {
  GrowBeforeInsert(t);
  return t.emplace(std::forward<Args>(args)...);
}

// Makes room in an index holding ids [first, end) for `count` elements in
// all: grows it, if need be, to the capacity absl's growth would reach (a
// series of 2 × capacity + 1), refilled in id order; throws std::bad_alloc
// with `index` as it was.
template <typename Index>
void GrowIndexFor(Index& index, uint32_t first, uint32_t end, size_t count) {
  size_t capacity = index.capacity();
  while (GrowthOf(capacity) < count) capacity = 2 * capacity + 1;
  if (capacity == index.capacity()) return;
  Index grown(capacity, index.hash_function(), index.key_eq(), index.get_allocator());
  for (uint32_t id = first; id < end; ++id) grown.insert(id);
  index.swap(grown);
}

// GrowBeforeInsert for an index holding ids [first, end).
template <typename Index>
void GrowIndexBeforeInsert(Index& index, uint32_t first, uint32_t end) {
  GrowIndexFor(index, first, end, index.size() + 1);
}

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_TABLE_GROWTH_H_
