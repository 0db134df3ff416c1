// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// PublishedIndex: fingerprint -> (id, seed), found without a lock. A recorder
// slot's lanes share one set of tables (recorder/slot_tables.h); a sampler
// finds the stacks and label sets the slot already holds here, lock-free
// and without waiting, while the one thread holding the slot's new-entry
// lock interns new ones and publishes them.
//
// Open addressing with linear probing, at most half full, 24-byte slots.
// The entry's seed (SampleTables::KeyTag) rides in the slot's last four
// bytes, so that a sampler that found a stack and a label set has its
// key's tag without reading the seed tables. A slot is written once: its
// fingerprint and seed with relaxed stores, then its id + 1 with a
// release store; a reader loads the id with acquire (0: empty, the end
// of the chain) and only then the rest, which the release made visible.
// Slots never change once written and entries are never erased, so a
// reader racing a writer sees either the entry or the end of the chain,
// and a miss only sends it to the locked path, which looks again.
//
// Growth builds a table twice the size, copies the entries in, and
// publishes it with a release store; the old table is retired, not freed,
// because a reader may still be probing it (what it finds there is still
// right). Retired tables are freed by FreeRetired when no reader can be
// inside: for a slot, when the serializer holds every lane. They add up
// to less than the current table.
#ifndef STACKREC_SRC_CONCURRENT_PUBLISHED_INDEX_H_
#define STACKREC_SRC_CONCURRENT_PUBLISHED_INDEX_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hash/fingerprint.h"

namespace stackrec {

class PublishedIndex {
 public:
  PublishedIndex() = default;
  PublishedIndex(const PublishedIndex&) = delete;
  PublishedIndex& operator=(const PublishedIndex&) = delete;

  // ---- Readers: any thread, no lock ----------------------------------------
  // Entry found: its id and seed.
  struct Entry {
    uint32_t id;
    uint32_t seed;
  };
  bool Find(const Fingerprint& fp, Entry* entry) const {
    const Table* t = current_.load(std::memory_order_acquire);
    if (t == nullptr) return false;
    for (size_t i = fp.lo & t->mask;; i = (i + 1) & t->mask) {
      const Slot& slot = t->slots[i];
      const uint32_t stored = slot.id_plus_one.load(std::memory_order_acquire);
      if (stored == 0) return false;
      if (slot.lo.load(std::memory_order_relaxed) == fp.lo &&
          slot.hi.load(std::memory_order_relaxed) == fp.hi) {
        entry->id = stored - 1;
        entry->seed = slot.seed.load(std::memory_order_relaxed);
        return true;
      }
    }
  }
  // Starts fetching the home slot of `fp`, for a Find soon.
  void Prefetch(const Fingerprint& fp) const {
    const Table* t = current_.load(std::memory_order_acquire);
    if (t != nullptr) __builtin_prefetch(&t->slots[fp.lo & t->mask]);
  }

  // ---- The writer: one thread at a time (the caller's lock) ----------------
  // Adds fp -> (id, seed) unless fp is there already (then it stays), or
  // unless that needs a bigger table of more than `room` bytes (a memory
  // cap: what is not published is found under the lock). Throws
  // std::bad_alloc with nothing changed.
  void Insert(const Fingerprint& fp, Entry entry, size_t room);
  size_t size() const { return size_; }
  // Slots of the current table and of the retired ones.
  size_t MemoryBytes() const;

  // ---- With no reader inside ----------------------------------------------
  void FreeRetired();
  // Empty, every table freed.
  void Clear();

 private:
  struct Slot {
    std::atomic<uint64_t> lo{0}, hi{0};
    std::atomic<uint32_t> id_plus_one{0};  // 0: empty
    std::atomic<uint32_t> seed{0};
  };
  struct Table {
    explicit Table(size_t capacity)
        : mask(capacity - 1), slots(std::make_unique<Slot[]>(capacity)) {}
    size_t mask;
    std::unique_ptr<Slot[]> slots;
  };

  // Writes fp -> entry into the first empty slot of its chain in `t`,
  // which must not hold fp; release, as the top of the file says.
  static void Place(Table* t, const Fingerprint& fp, Entry entry);

  // Read by every reader; what the writer changes on every insert is on
  // lines of its own.
  alignas(64) std::atomic<Table*> current_{nullptr};
  // The current table last, the retired ones before it: their owners.
  alignas(64) std::vector<std::unique_ptr<Table>> tables_;
  size_t size_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_CONCURRENT_PUBLISHED_INDEX_H_
