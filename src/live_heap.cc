// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "live_heap.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "intern_tables.h"

namespace stackrec {

Status MakeLiveHeapOptions(const LiveHeapOptions& in, size_t sample_types,
                           LiveHeapOptions* out) {
  for (size_t i = 0; i < in.types.size(); ++i) {
    if (in.types[i] >= sample_types) {
      return Error(Code::kInvalidArgument,
                   "opts.live_heap_types[%zu] is %zu, but opts.sample_types_len is %zu",
                   i, in.types[i], sample_types);
    }
    for (size_t j = 0; j < i; ++j) {
      if (in.types[j] == in.types[i]) {
        return Error(Code::kInvalidArgument,
                     "opts.live_heap_types[%zu] repeats opts.live_heap_types[%zu]", i, j);
      }
    }
  }
  if (in.max_objects > kMaxTrackedObjectsLimit) {
    return Error(Code::kInvalidArgument,
                 "opts.max_tracked_objects is %zu, over the limit of %zu", in.max_objects,
                 kMaxTrackedObjectsLimit);
  }
  *out = in;
  if (out->max_objects == 0) out->max_objects = kDefaultMaxTrackedObjects;
  return OkStatus();
}

// ---- ObjectTable -------------------------------------------------------------

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
  std::memcpy(out, Record(record) + sizeof(uint64_t) + sizeof(uint32_t),
              width_ * sizeof(int64_t));
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
    const bool stays = hole <= next ? (hole < home && home <= next)
                                    : (hole < home || home <= next);
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

void ObjectTable::RemapKeys(absl::Span<const uint32_t> new_keys) {
  for (uint32_t r = 0; r < size_; ++r) {
    char* p = Record(r) + sizeof(uint64_t);
    uint32_t key;
    std::memcpy(&key, p, sizeof(key));
    key = new_keys[key];
    std::memcpy(p, &key, sizeof(key));
  }
}

size_t ObjectTable::MemoryBytes() const {
  return chunks_.size() * kChunkRecords * record_bytes_ +
         chunks_.capacity() * sizeof(chunks_[0]) + index_.capacity() * sizeof(uint32_t);
}

// ---- TrackedObjects ------------------------------------------------------------

TrackedObjects::TrackedObjects(const ProfileOptions& profile_options,
                               const LiveHeapOptions& options)
    : types_(options.types),
      max_objects_(options.max_objects),
      store_(std::make_unique<Profile>(profile_options, 0)),
      objects_(options.types.size(), options.max_objects),
      scratch_new_(options.types.size()),
      scratch_old_(options.types.size()) {}

uint32_t TrackedObjects::SlotRow(uint32_t key, Profile* slot) {
  using StoreId = HeapDeltas::StoreId;
  const HeapDeltas& known = slot->heap_deltas();
  uint32_t row = known.FromStore(generation_, StoreId::kKey, key);
  if (row != HeapDeltas::kUnknown) return row;
  // A new key in this slot is most often a known stack with new labels
  // (a new span): each half is imported by content only once.
  const HeapDeltas& keys = store_->heap_deltas();
  auto half = [&](StoreId kind, uint32_t store_id) {
    uint32_t id = known.FromStore(generation_, kind, store_id);
    if (id == HeapDeltas::kUnknown) {
      id = kind == StoreId::kStack ? slot->ImportStack(*store_, store_id)
                                   : slot->ImportLabels(*store_, store_id);
      slot->RememberFromStore(generation_, kind, store_id, id);
    }
    return id;
  };
  const uint32_t stack = half(StoreId::kStack, keys.stack(key));
  const uint32_t labels = half(StoreId::kLabels, keys.labels(key));
  row = slot->HeapRow(stack, labels);
  slot->RememberFromStore(generation_, StoreId::kKey, key, row);
  return row;
}

void TrackedObjects::Release(uint32_t key) {
  if (--refs_[key] == 0) --live_keys_;
}

Status TrackedObjects::Track(uint64_t id, const SampleView& sample, Profile* slot,
                             bool* truncated) {
  const uint32_t existing = objects_.Find(id);
  if (existing == ObjectTable::kNone && objects_.size() >= max_objects_) {
    // Bad input is still reported as such, though nothing is interned.
    STACKREC_RETURN_IF_ERROR(store_->ValidateSampleContent(sample));
    return Error(Code::kLimitExceeded,
                 "recorder: %zu objects are tracked, opts.max_tracked_objects; object "
                 "%llu is not tracked",
                 objects_.size(), static_cast<unsigned long long>(id));
  }
  // Everything that can fail or allocate comes first: the content, the
  // slot's rows, room in the table. Until the commit below, what changed is
  // at most an interned entry no object or delta refers to.
  uint32_t stack, labels;
  STACKREC_RETURN_IF_ERROR(store_->InternSampleKey(sample, &stack, &labels, truncated));
  const uint32_t key = store_->HeapRow(stack, labels);
  const size_t keys = store_->heap_deltas().size();
  if (refs_.size() < keys) refs_.resize(keys, 0);
  const uint32_t new_row = SlotRow(key, slot);
  uint32_t old_row = 0;
  if (existing != ObjectTable::kNone) {
    old_row = SlotRow(objects_.key(existing), slot);
  } else {
    objects_.Reserve();
  }

  // Commit: nothing below allocates or fails.
  for (size_t j = 0; j < types_.size(); ++j) scratch_new_[j] = sample.values[types_[j]];
  if (refs_[key]++ == 0) ++live_keys_;
  if (existing != ObjectTable::kNone) {
    // As if untracked first: its old values leave its old key.
    const uint32_t old_key = objects_.key(existing);
    objects_.values(existing, scratch_old_.data());
    slot->AddHeapDelta(old_row, scratch_old_.data(), /*negate=*/true);
    objects_.Set(existing, key, scratch_new_.data());
    Release(old_key);
  } else {
    objects_.Insert(id, key, scratch_new_.data());
  }
  slot->AddHeapDelta(new_row, scratch_new_.data(), /*negate=*/false);
  return OkStatus();
}

void TrackedObjects::Untrack(uint64_t id, Profile* slot) {
  const uint32_t record = objects_.Find(id);
  if (record == ObjectTable::kNone) return;
  const uint32_t key = objects_.key(record);
  const uint32_t row = SlotRow(key, slot);  // may throw; nothing changed yet
  objects_.values(record, scratch_old_.data());
  slot->AddHeapDelta(row, scratch_old_.data(), /*negate=*/true);
  objects_.Erase(record);
  Release(key);
}

void TrackedObjects::CompactIfMostlyDead() {
  const size_t keys = store_->heap_deltas().size();
  const size_t dead = keys - live_keys_;
  // A compaction costs O(live keys' content + objects). It waits until the
  // dead keys outnumber the live ones (so at most half the store is dead)
  // and number at least 1/32 of the objects (so the pass over the objects
  // is paid for by at least as many frees, 32 records each).
  if (dead < 64 || dead <= live_keys_ || dead * 32 < objects_.size()) return;
  try {
    std::vector<uint32_t> new_keys(keys, ObjectTable::kNone);
    std::vector<uint32_t> kept, refs;
    kept.reserve(live_keys_);
    refs.reserve(live_keys_);
    for (uint32_t k = 0; k < keys; ++k) {
      if (refs_[k] == 0) continue;
      new_keys[k] = static_cast<uint32_t>(kept.size());
      kept.push_back(k);
      refs.push_back(refs_[k]);
    }
    std::unique_ptr<Profile> next = store_->KeepHeapRows(kept);
    // Nothing has changed so far, and nothing below allocates.
    objects_.RemapKeys(new_keys);
    store_ = std::move(next);
    ++generation_;  // what the heap lanes remember of the old ids is stale
    refs_ = std::move(refs);
    live_keys_ = refs_.size();
  } catch (const std::bad_alloc&) {
    // The dead keys stay until a later attempt; nothing is wrong meanwhile.
  }
}

size_t TrackedObjects::MemoryBytes() const {
  return store_->MemoryBytes() + objects_.MemoryBytes() + refs_.capacity() * sizeof(uint32_t);
}

// ---- LiveTotals ------------------------------------------------------------------

LiveTotals::LiveTotals(const ProfileOptions& profile_options, const LiveHeapOptions& options)
    : width_(options.types.size()),
      totals_(std::make_unique<Profile>(profile_options, 0, options.types.size())) {
  // The output holds the enabled types only; a disabled live-heap type is
  // tracked (samplers pass it) but, like any disabled type, not written.
  const std::vector<bool>& enabled = profile_options.enabled;
  for (size_t type : options.types) {
    if (!enabled.empty() && !enabled[type]) {
      stored_index_.push_back(kNotStored);
      continue;
    }
    size_t index = 0;
    for (size_t t = 0; t < type; ++t) index += enabled.empty() || enabled[t] ? 1 : 0;
    stored_index_.push_back(index);
  }
}

void LiveTotals::Absorb(Profile* slot) {
  // Rows first (may throw, changing no total), then the sums.
  const size_t n = slot->heap_deltas().size();
  scratch_rows_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t stack, labels;
    totals_->ImportKey(*slot, slot->heap_deltas().stack(i), slot->heap_deltas().labels(i),
                       &stack, &labels);
    scratch_rows_[i] = totals_->HeapRow(stack, labels);
  }
  for (size_t i = 0; i < n; ++i) {
    totals_->AddHeapDelta(scratch_rows_[i], slot->heap_deltas().values(i), /*negate=*/false);
  }
  slot->ClearHeapDeltas();
  CompactIfMostlyDead();
}

void LiveTotals::AddTo(Profile* slot, KeyUndo* undo) {
  for (size_t i = 0; i < totals_->heap_deltas().size(); ++i) {
    const int64_t* totals = totals_->heap_deltas().values(i);
    scratch_values_.assign(slot->stored_values(), 0);
    bool any = false;
    for (size_t j = 0; j < width_; ++j) {
      if (stored_index_[j] == kNotStored || totals[j] == 0) continue;
      scratch_values_[stored_index_[j]] = totals[j];
      any = true;
    }
    // Every object of this key freed (or only disabled types non-zero):
    // nothing to write, and an all-zero sample would be noise.
    if (!any) continue;
    uint32_t stack, labels;
    slot->ImportKey(*totals_, totals_->heap_deltas().stack(i),
                    totals_->heap_deltas().labels(i), &stack, &labels);
    slot->AddToKey(stack, labels, scratch_values_.data(), undo);
  }
}

void LiveTotals::CompactIfMostlyDead() {
  const size_t n = totals_->heap_deltas().size();
  size_t dead = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t* v = totals_->heap_deltas().values(i);
    dead += std::all_of(v, v + width_, [](int64_t x) { return x == 0; }) ? 1 : 0;
  }
  if (dead < 64 || dead * 2 <= n) return;
  try {
    std::vector<uint32_t> kept;
    kept.reserve(n - dead);
    for (uint32_t i = 0; i < n; ++i) {
      const int64_t* v = totals_->heap_deltas().values(i);
      if (!std::all_of(v, v + width_, [](int64_t x) { return x == 0; })) kept.push_back(i);
    }
    totals_ = totals_->KeepHeapRows(kept);
  } catch (const std::bad_alloc&) {
    // Kept as they are until a later serialization tries again.
  }
}

}  // namespace stackrec
