// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// KeyIndex: the aggregate's index from a key (a packed 64-bit (stack,
// labels)) to its row, the lookup every aggregated sample makes.
//
// Why not absl::flat_hash_set: a set of row numbers must read a row's key
// to rehash it, and a new key costs two probes (find, then insert), each
// hashing the key again. Here a slot keeps the key's 32-bit tag beside the
// row, so a probe compares tags and reads a row only to confirm a match,
// growth rehashes from the tags alone, and a new key goes into the first
// empty slot after the probe that missed it, in the cache line just read.
//
// Open addressing with linear probing over 8-byte slots, tag << 32 | row + 1
// (0: empty), at most 5/8 full: a miss probes about four slots, mostly in
// one 64-byte line. A key's home slot is its tag modulo the capacity, so a
// tag match is a key match but for 2^-(32 - log2(capacity)) of the probes,
// and the row tells. Erase shifts the probe chain back (no tombstones).
#ifndef STACKREC_SRC_TABLES_KEY_INDEX_H_
#define STACKREC_SRC_TABLES_KEY_INDEX_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "base/table_memory.h"
#include "hash/fingerprint.h"

namespace stackrec {

class KeyIndex {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};

  // The tag of a key, from 64 bits that are the same whenever the key is
  // (the profile's: its stack's and label set's seeds): the slot it starts
  // probing at, and what a probe compares before it reads a row.
  static uint32_t Tag(uint64_t seeds) {
    return static_cast<uint32_t>(
        fingerprint_internal::Fold(seeds ^ fingerprint_internal::kP0, fingerprint_internal::kP1));
  }

  // Starts fetching the home slot of `tag`, for a Find that will follow
  // once the caller has the key.
  void Prefetch(uint32_t tag) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + (tag & mask_));
  }

  // The row of `key` (whose tag is `tag`), or kNone. key_of(row) is the key
  // of an indexed row.
  template <typename KeyOf>
  uint32_t Find(uint64_t key, uint32_t tag, KeyOf key_of) const {
    if (slots_.empty()) return kNone;
    for (size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const uint64_t slot = slots_[i];
      if (slot == 0) return kNone;
      if (static_cast<uint32_t>(slot >> 32) == tag) {
        const uint32_t row = static_cast<uint32_t>(slot) - 1;
        if (key_of(row) == key) return row;
      }
    }
  }

  // The row of the first entry tagged `tag` on its probe chain, or kNone
  // if there is none, in which case no key of that tag is indexed. Reads
  // slots only: the row's key, still to be compared, can be fetched
  // meanwhile (Profile's pending samples: ReadSlot).
  uint32_t FirstWithTag(uint32_t tag) const {
    if (slots_.empty()) return kNone;
    for (size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const uint64_t slot = slots_[i];
      if (slot == 0) return kNone;
      if (static_cast<uint32_t>(slot >> 32) == tag) return static_cast<uint32_t>(slot) - 1;
    }
  }

  // Makes room for one more entry, so that the Insert that follows cannot
  // throw; throws std::bad_alloc (the index unchanged) if growing fails.
  void ReserveOne() {
    if (!HasRoom()) Rehash(slots_.empty() ? 16 : slots_.size() * 2);
  }
  // Whether `n` more entries fit without growing: ReserveOne has nothing
  // to do for them.
  bool HasRoom(size_t n = 1) const { return (size_ + n) * 8 <= slots_.size() * 5; }

  // Adds `row` under `tag`, for a key not in the index; after ReserveOne.
  void Insert(uint32_t tag, uint32_t row) {
    Place(slots_.data(), mask_, Slot(tag, row));
    ++size_;
  }

  // Removes `row`, indexed under `tag`.
  void Erase(uint32_t tag, uint32_t row) {
    const uint64_t target = Slot(tag, row);
    size_t hole = tag & mask_;
    while (slots_[hole] != target) hole = (hole + 1) & mask_;
    // Backward shift: each later entry of the chain that may sit in the
    // hole (its home is not cyclically within (hole, j]) moves into it.
    for (size_t j = (hole + 1) & mask_; slots_[j] != 0; j = (j + 1) & mask_) {
      const size_t home = static_cast<uint32_t>(slots_[j] >> 32) & mask_;
      if (((j - home) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = 0;
    --size_;
  }

  size_t size() const { return size_; }
  size_t MemoryBytes() const { return slots_.capacity() * sizeof(uint64_t); }
  // Empty, with its storage freed.
  void Clear() { *this = KeyIndex(); }

 private:
  static uint64_t Slot(uint32_t tag, uint32_t row) {
    return uint64_t{tag} << 32 | (uint64_t{row} + 1);
  }
  static void Place(uint64_t* slots, size_t mask, uint64_t slot) {
    size_t i = static_cast<uint32_t>(slot >> 32) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = slot;
  }
  void Rehash(size_t capacity) {
    TableVector<uint64_t> grown(capacity, 0);  // may throw: nothing changed yet
    // The old slots' entries are gathered a batch at a time without a
    // branch, then placed in the same order: a branch on each slot, 31% to
    // 62% of them full, is one the processor cannot predict, and a doubling
    // happens in the middle of some sampler's add.
    constexpr size_t kBatch = 256;
    uint64_t batch[kBatch];
    const uint64_t* const old = slots_.data();
    for (size_t start = 0; start < slots_.size(); start += kBatch) {
      const size_t end = std::min(slots_.size(), start + kBatch);
      size_t n = 0;
      for (size_t i = start; i < end; ++i) {
        batch[n] = old[i];
        n += old[i] != 0;
      }
      for (size_t i = 0; i < n; ++i) Place(grown.data(), capacity - 1, batch[i]);
    }
    slots_ = std::move(grown);
    mask_ = capacity - 1;
  }

  TableVector<uint64_t> slots_;  // a power of two of them, or none (table_memory.h)
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_KEY_INDEX_H_
