// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "live_heap/object_table.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "tables/intern_tables.h"

namespace stackrec {

namespace {

// SplitMix64's finalizer: object ids are often addresses, whose low bits
// are all zero, so every bit of the id must reach the low bits (the slot)
// and the high bits (the tag).
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

unsigned BitWidth(size_t n) {
  unsigned bits = 0;
  for (; n != 0; n >>= 1) ++bits;
  return bits;
}

constexpr size_t kMinIndexSlots = 16;

}  // namespace

ObjectTable::ObjectTable(size_t width, size_t max_objects)
    : width_(width),
      record_bytes_(sizeof(uint64_t) + sizeof(uint32_t) + width * sizeof(int64_t)),
      // Entries hold record + 1, at most max_objects.
      record_bits_(BitWidth(max_objects)) {}

uint64_t ObjectTable::Id(uint32_t record) const {
  uint64_t id;
  std::memcpy(&id, Record(record), sizeof(id));
  return id;
}

uint32_t ObjectTable::key(uint32_t record) const {
  uint32_t key;
  std::memcpy(&key, Record(record) + sizeof(uint64_t), sizeof(key));
  return key;
}

void ObjectTable::values(uint32_t record, int64_t* out) const {
  std::memcpy(out, Record(record) + sizeof(uint64_t) + sizeof(uint32_t), width_ * sizeof(int64_t));
}

uint32_t ObjectTable::Tag(uint64_t hash) const {
  const unsigned tag_bits = 32 - record_bits_;
  return tag_bits == 0 ? 0 : static_cast<uint32_t>(hash >> (64 - tag_bits));
}

uint32_t ObjectTable::Entry(uint64_t hash, uint32_t record) const {
  return static_cast<uint32_t>((uint64_t{Tag(hash)} << record_bits_) | (uint64_t{record} + 1));
}

uint32_t ObjectTable::Find(uint64_t id) const {
  if (size_ == 0) return kNone;
  const uint64_t hash = Mix(id);
  const uint32_t tag = Tag(hash);
  const uint64_t record_mask = (uint64_t{1} << record_bits_) - 1;
  const size_t mask = index_.size() - 1;
  // The index is never full, so an empty slot ends every probe.
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t entry = index_[i];
    if (entry == 0) return kNone;
    if ((uint64_t{entry} >> record_bits_) == tag) {
      const auto record = static_cast<uint32_t>((entry & record_mask) - 1);
      if (Id(record) == id) return record;
    }
  }
}

size_t ObjectTable::SlotOf(uint32_t record) const {
  const uint64_t record_mask = (uint64_t{1} << record_bits_) - 1;
  const size_t mask = index_.size() - 1;
  for (size_t i = Mix(Id(record)) & mask;; i = (i + 1) & mask) {
    if ((index_[i] & record_mask) == uint64_t{record} + 1) return i;
  }
}

void ObjectTable::Rehash(size_t slots) {
  std::vector<uint32_t> next(slots, 0);
  const size_t mask = slots - 1;
  for (uint32_t r = 0; r < size_; ++r) {
    const uint64_t hash = Mix(Id(r));
    size_t i = hash & mask;
    while (next[i] != 0) i = (i + 1) & mask;
    next[i] = Entry(hash, r);
  }
  index_.swap(next);
}

void ObjectTable::Reserve() {
  if (size_ == chunks_.size() * kChunkRecords) {
    ReserveFor(chunks_, 1);
    chunks_.emplace_back(new char[kChunkRecords * record_bytes_]);
  }
  // At most 3/4 full: linear probing's probe lengths stay short (about 8.5
  // slots for a miss at 3/4, 2.5 at 1/2), and after a doubling the index
  // costs at most 4 / (3/8) = 10.7 bytes per object.
  if ((size_ + 1) * 4 > index_.size() * 3) {
    Rehash(std::max(kMinIndexSlots, index_.size() * 2));
  }
}

void ObjectTable::Insert(uint64_t id, uint32_t key, const int64_t* values) {
  const auto record = static_cast<uint32_t>(size_);
  char* p = Record(record);
  std::memcpy(p, &id, sizeof(id));
  Set(record, key, values);
  const uint64_t hash = Mix(id);
  const size_t mask = index_.size() - 1;
  size_t i = hash & mask;
  while (index_[i] != 0) i = (i + 1) & mask;
  index_[i] = Entry(hash, record);
  ++size_;
}

void ObjectTable::Set(uint32_t record, uint32_t key, const int64_t* values) {
  char* p = Record(record) + sizeof(uint64_t);
  std::memcpy(p, &key, sizeof(key));
  std::memcpy(p + sizeof(key), values, width_ * sizeof(int64_t));
}

void ObjectTable::Erase(uint32_t record) {
  // Backward-shift deletion: entries after the hole move back into it
  // unless that would put them before their home slot, so no tombstones
  // pile up and probes stay as short as the load allows.
  const size_t mask = index_.size() - 1;
  const uint64_t record_mask = (uint64_t{1} << record_bits_) - 1;
  size_t hole = SlotOf(record);
  for (size_t next = (hole + 1) & mask; index_[next] != 0; next = (next + 1) & mask) {
    const auto moved = static_cast<uint32_t>((index_[next] & record_mask) - 1);
    const size_t home = Mix(Id(moved)) & mask;
    // Cyclically, home in (hole, next] means the entry must stay.
    const bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (!stays) {
      index_[hole] = index_[next];
      hole = next;
    }
  }
  index_[hole] = 0;
  // Keep the records dense: the last one fills the gap.
  const auto last = static_cast<uint32_t>(size_ - 1);
  if (record != last) {
    index_[SlotOf(last)] = Entry(Mix(Id(last)), record);
    std::memcpy(Record(record), Record(last), record_bytes_);
  }
  --size_;
  // Give memory back with some slack, so an object freed and another
  // allocated at a boundary do not free and allocate a chunk each time.
  if (chunks_.size() > (size_ + kChunkRecords - 1) / kChunkRecords + 1) chunks_.pop_back();
  if (index_.size() > kMinIndexSlots && size_ * 8 < index_.size()) {
    try {
      Rehash(index_.size() / 2);
    } catch (const std::bad_alloc&) {
      // Shrinking is an optimization; the larger index still works.
    }
  }
}

size_t ObjectTable::MemoryBytes() const {
  return chunks_.size() * kChunkRecords * record_bytes_ + chunks_.capacity() * sizeof(chunks_[0]) +
         index_.capacity() * sizeof(uint32_t);
}

}  // namespace stackrec
