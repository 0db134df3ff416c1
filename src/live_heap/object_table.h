// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// ObjectTable: the tracked objects themselves, object id -> (a key id,
// `width` values), packed to stay under 48 bytes per object at a million
// objects.
//
// Records are packed back to back, unaligned, in chunks of kChunkRecords
// (no per-record padding: 12 + 8 * width bytes), and found through an
// open-addressing index of uint32 record numbers with linear probing. Why
// not absl::flat_hash_map: at a million entries it has 2^21 slots of 8 + 4
// + 8 * width bytes (padded to 32 for width 2), about 64 bytes per object;
// here a record is 28 bytes and its index share 4 / load, about 36 bytes
// at a million.
//
// An index entry also carries the top bits of the id's hash in the bits
// that record numbers below max_objects leave free, so a lookup of an id
// that is not tracked (the common untrack: most freed objects were never
// sampled) rarely reads a record.
//
// Not thread-safe; TrackedObjects (tracked_objects.h) guards it.
#ifndef STACKREC_SRC_LIVE_HEAP_OBJECT_TABLE_H_
#define STACKREC_SRC_LIVE_HEAP_OBJECT_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace stackrec {

class ObjectTable {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};
  static constexpr size_t kChunkRecords = 4096;

  ObjectTable(size_t width, size_t max_objects);
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  size_t size() const { return size_; }
  // The record number of `id`, or kNone.
  uint32_t Find(uint64_t id) const;
  uint32_t key(uint32_t record) const;
  // Copies the record's values into out[0, width).
  void values(uint32_t record, int64_t* out) const;

  // Makes room for one more record, so that the Insert that follows cannot
  // throw. Throws std::bad_alloc and changes nothing if memory is short.
  void Reserve();
  // `id` must not be in the table, and Reserve must have been called.
  void Insert(uint64_t id, uint32_t key, const int64_t* values);
  void Set(uint32_t record, uint32_t key, const int64_t* values);
  // Removes the record; the last record moves into its place (so record
  // numbers are not stable across an Erase).
  void Erase(uint32_t record);

  // Bytes allocated: the chunks, the chunk pointers and the index.
  size_t MemoryBytes() const;

 private:
  char* Record(uint32_t record) const {
    return chunks_[record / kChunkRecords].get() + (record % kChunkRecords) * record_bytes_;
  }
  uint64_t Id(uint32_t record) const;
  // The index slot holding `record` (whose id is in the table).
  size_t SlotOf(uint32_t record) const;
  uint32_t Entry(uint64_t hash, uint32_t record) const;
  uint32_t Tag(uint64_t hash) const;
  // Rebuilds the index with `slots` slots (a power of two). Throws
  // std::bad_alloc, changing nothing.
  void Rehash(size_t slots);

  const size_t width_;
  const size_t record_bytes_;
  const unsigned record_bits_;  // bits of an index entry for record + 1
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<uint32_t> index_;  // 0: empty; else tag << record_bits_ | record + 1
  size_t size_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_LIVE_HEAP_OBJECT_TABLE_H_
