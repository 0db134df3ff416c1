// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// PublishedIndex's writer side: inserting, growing, and freeing what
// readers can no longer be in.
#include "concurrent/published_index.h"

namespace stackrec {

void PublishedIndex::Place(Table* t, const Fingerprint& fp, Entry entry) {
  size_t i = fp.lo & t->mask;
  while (t->slots[i].id_plus_one.load(std::memory_order_relaxed) != 0) i = (i + 1) & t->mask;
  Slot& slot = t->slots[i];
  slot.lo.store(fp.lo, std::memory_order_relaxed);
  slot.hi.store(fp.hi, std::memory_order_relaxed);
  slot.seed.store(entry.seed, std::memory_order_relaxed);
  slot.id_plus_one.store(entry.id + 1, std::memory_order_release);
}

void PublishedIndex::Insert(const Fingerprint& fp, Entry entry, size_t room) {
  Entry known;
  if (Find(fp, &known)) return;
  Table* t = current_.load(std::memory_order_relaxed);
  if (t == nullptr || (size_ + 1) * 2 > t->mask + 1) {
    const size_t capacity = t == nullptr ? 64 : (t->mask + 1) * 2;
    if (capacity * sizeof(Slot) > room) return;
    // Grown first (may throw: nothing changed), filled, then published.
    tables_.reserve(tables_.size() + 1);
    auto grown = std::make_unique<Table>(capacity);
    if (t != nullptr) {
      for (size_t i = 0; i <= t->mask; ++i) {
        const Slot& slot = t->slots[i];
        const uint32_t stored = slot.id_plus_one.load(std::memory_order_relaxed);
        if (stored == 0) continue;
        Place(grown.get(),
              {slot.lo.load(std::memory_order_relaxed), slot.hi.load(std::memory_order_relaxed)},
              {stored - 1, slot.seed.load(std::memory_order_relaxed)});
      }
    }
    t = grown.get();
    tables_.push_back(std::move(grown));
    current_.store(t, std::memory_order_release);
  }
  Place(t, fp, entry);
  ++size_;
}

size_t PublishedIndex::MemoryBytes() const {
  size_t bytes = tables_.capacity() * sizeof(tables_[0]);
  for (const std::unique_ptr<Table>& t : tables_) bytes += (t->mask + 1) * sizeof(Slot);
  return bytes;
}

void PublishedIndex::FreeRetired() {
  if (tables_.size() <= 1) return;
  tables_.erase(tables_.begin(), tables_.end() - 1);
}

void PublishedIndex::Clear() {
  current_.store(nullptr, std::memory_order_relaxed);
  tables_.clear();
  tables_.shrink_to_fit();
  size_ = 0;
}

}  // namespace stackrec
