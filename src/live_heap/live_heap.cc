// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "live_heap/live_heap.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "hash/fingerprint.h"
#include "tables/content_encoding.h"
#include "tables/intern_tables.h"

namespace stackrec {

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

size_t ObjectTable::MemoryBytes() const {
  return chunks_.size() * kChunkRecords * record_bytes_ +
         chunks_.capacity() * sizeof(chunks_[0]) + index_.capacity() * sizeof(uint32_t);
}

// ---- TrackedObjects ------------------------------------------------------------

namespace {

// A key blob's bytes: its stack's and label set's blob numbers and serials.
struct KeyHalves {
  uint32_t stack, labels;
  uint64_t stack_serial, labels_serial;
};
static_assert(sizeof(KeyHalves) == 24, "no padding: the bytes are the key's identity");

absl::string_view KeyBytes(const KeyHalves& k) {
  return absl::string_view(reinterpret_cast<const char*>(&k), sizeof(k));
}

KeyHalves DecodeKey(absl::string_view bytes) {
  KeyHalves k;
  std::memcpy(&k, bytes.data(), sizeof(k));
  return k;
}

// Each tracker's encodings, reused from one track to the next.
thread_local std::string t_bytes, t_labels_bytes;
thread_local std::vector<uint64_t> t_frame_hashes;
thread_local std::vector<LocationView> t_frames;
thread_local std::vector<LabelView> t_labels;
// Each tracker's home (TrackedObjects::kHomes), handed out in turn the
// first time a thread tracks, so that a few trackers each have one.
thread_local uint32_t t_home = ~uint32_t{0};
std::atomic<uint32_t> g_next_home{0};

}  // namespace

TrackedObjects::TrackedObjects(const ProfileOptions& profile_options,
                               const LiveHeapOptions& options)
    : types_(options.types),
      max_objects_(options.max_objects),
      checker_(std::make_unique<Profile>(profile_options, 0)) {
  for (auto& home : homes_) home = std::make_unique<ContentBlobs>();
  shards_.reserve(size_t{1} << kShardBits);
  for (size_t i = 0; i < (size_t{1} << kShardBits); ++i) {
    shards_.push_back(std::make_unique<Shard>(options.types.size(), options.max_objects));
  }
}

TrackedObjects::~TrackedObjects() = default;

TrackedObjects::Shard& TrackedObjects::ShardOf(uint64_t id) const {
  // The top bits of a multiplicative hash of the id's 4 KiB page. Allocators
  // give each thread pages of its own, so a thread's objects, and the frees
  // of objects it never tracked, keep to few shards at a time, which then
  // stay in its core's cache. Ids that are counters, not addresses, still
  // spread: 4096 in a row share a shard.
  const uint64_t h = (id >> 12) * 0x9E3779B97F4A7C15u;
  return *shards_[h >> (64 - kShardBits)];
}

Status TrackedObjects::Prepare(const SampleView& sample, Prepared* out, bool* truncated) {
  out->values.resize(types_.size());
  for (size_t j = 0; j < types_.size(); ++j) out->values[j] = sample.values[types_[j]];
  *truncated = sample.locations.size() > checker_->options().max_frames;
  // Content seen before is found by its fingerprint and its bytes (one
  // memcmp: comparing frame by frame costs more than encoding); only new
  // content is checked.
  t_frame_hashes.resize(sample.locations.size());
  const Fingerprint stack_fp = FingerprintFrames(sample.locations, t_frame_hashes.data());
  const Fingerprint labels_fp = FingerprintLabels(sample.labels);
  const uint64_t stack_hash = stack_fp.lo;
  const uint64_t labels_hash = labels_fp.lo;
  EncodeFrames(sample.locations, &t_bytes);
  EncodeLabels(sample.labels, &t_labels_bytes);
  if (t_home >= kHomes) t_home = g_next_home.fetch_add(1, std::memory_order_relaxed) % kHomes;
  ContentBlobs& blobs = *homes_[t_home];
  const uint32_t tag = t_home << ContentBlobs::kNumberBits;
  // The common case, a key seen before: its halves are only looked at, so
  // trackers sharing a stack write nothing of it, and only the key takes
  // a reference (serials name the halves, so a half freed and interned
  // again meanwhile cannot match an old key).
  KeyHalves seen;
  if (blobs.Peek(t_bytes, stack_hash, &seen.stack, &seen.stack_serial) &&
      blobs.Peek(t_labels_bytes, labels_hash, &seen.labels, &seen.labels_serial)) {
    const absl::string_view seen_bytes = KeyBytes(seen);
    if (const ContentBlobs::Blob* key =
            blobs.Find(seen_bytes, ContentBlobs::HashBytes(seen_bytes))) {
      out->key = tag | key->number;
      return OkStatus();
    }
  }
  const ContentBlobs::Blob* stack = blobs.Find(t_bytes, stack_hash);
  const ContentBlobs::Blob* labels = nullptr;
  if (stack != nullptr) labels = blobs.Find(t_labels_bytes, labels_hash);
  if (stack == nullptr || labels == nullptr) {
    const Status valid = checker_->ValidateSampleContent(sample);
    if (!valid.ok()) {
      if (stack != nullptr) blobs.Release(stack->number);
      return valid;
    }
  }
  bool added;
  try {
    if (stack == nullptr) stack = &blobs.Acquire(t_bytes, stack_hash, &added);
    if (labels == nullptr) labels = &blobs.Acquire(t_labels_bytes, labels_hash, &added);
  } catch (...) {
    if (stack != nullptr) blobs.Release(stack->number);
    throw;
  }
  const KeyHalves halves{stack->number, labels->number, stack->serial, labels->serial};
  const absl::string_view key_bytes = KeyBytes(halves);
  uint32_t key;
  try {
    key = blobs.Acquire(key_bytes, ContentBlobs::HashBytes(key_bytes), &added).number;
  } catch (...) {
    blobs.Release(halves.stack);
    blobs.Release(halves.labels);
    throw;
  }
  if (!added) {
    // The key holds its halves already.
    blobs.Release(halves.stack);
    blobs.Release(halves.labels);
  }
  out->key = tag | key;
  return OkStatus();
}

void TrackedObjects::Discard(Prepared* prepared) {
  if (prepared->key != kNoKey) ReleaseKey(prepared->key);
  prepared->key = kNoKey;
}

void TrackedObjects::ReleaseKey(uint32_t key) {
  ContentBlobs& blobs = HomeOf(key);
  if (std::unique_ptr<ContentBlobs::Blob> freed = blobs.Release(key & kNumberMask)) {
    const KeyHalves halves = DecodeKey(freed->bytes);
    blobs.Release(halves.stack);
    blobs.Release(halves.labels);
  }
}

uint32_t TrackedObjects::LaneRow(uint32_t key, Profile* lane) {
  using Kind = HeapDeltas::BlobKind;
  const HeapDeltas& known = lane->heap_deltas();
  const ContentBlobs& blobs = HomeOf(key);
  const uint32_t tag = key & ~kNumberMask;
  const ContentBlobs::Blob& key_blob = blobs.Get(key & kNumberMask);
  uint32_t row = known.FromBlob(Kind::kKey, key, key_blob.serial);
  if (row != HeapDeltas::kUnknown) return row;
  // A new key in this lane is most often a known stack with new labels
  // (a new span): each half is imported by content only once.
  const KeyHalves halves = DecodeKey(key_blob.bytes);
  uint32_t stack = known.FromBlob(Kind::kStack, tag | halves.stack, halves.stack_serial);
  if (stack == HeapDeltas::kUnknown) {
    DecodeFrames(blobs.Get(halves.stack).bytes, &t_frames);
    stack = lane->ImportFrames(t_frames);
    lane->RememberBlob(Kind::kStack, tag | halves.stack, halves.stack_serial, stack);
  }
  uint32_t labels = known.FromBlob(Kind::kLabels, tag | halves.labels, halves.labels_serial);
  if (labels == HeapDeltas::kUnknown) {
    DecodeLabels(blobs.Get(halves.labels).bytes, &t_labels);
    labels = lane->ImportLabelViews(t_labels);
    lane->RememberBlob(Kind::kLabels, tag | halves.labels, halves.labels_serial, labels);
  }
  row = lane->HeapRow(stack, labels);
  lane->RememberBlob(Kind::kKey, key, key_blob.serial, row);
  return row;
}

Status TrackedObjects::CommitLocked(Shard& shard, uint64_t id, Prepared* prepared,
                                    Profile* lane, uint32_t* released) {
  ObjectTable& objects = shard.table;
  const uint32_t existing = objects.Find(id);
  // Everything that can fail or allocate comes first: the lane's rows,
  // room in the table, a place under the limit.
  const uint32_t new_row = LaneRow(prepared->key, lane);
  uint32_t old_row = 0;
  if (existing != ObjectTable::kNone) {
    old_row = LaneRow(objects.key(existing), lane);
  } else {
    size_t n = count_.load(std::memory_order_relaxed);
    do {
      if (n >= max_objects_) {
        return Error(Code::kLimitExceeded,
                     "recorder: %zu objects are tracked, opts.max_tracked_objects; object "
                     "%llu is not tracked",
                     n, static_cast<unsigned long long>(id));
      }
    } while (!count_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed));
    try {
      objects.Reserve();
    } catch (...) {
      count_.fetch_sub(1, std::memory_order_relaxed);
      throw;
    }
  }

  // Commit: nothing below allocates or fails.
  if (existing != ObjectTable::kNone) {
    // As if untracked first: its old values leave its old key.
    absl::InlinedVector<int64_t, 4> old(types_.size());
    objects.values(existing, old.data());
    lane->AddHeapDelta(old_row, old.data(), /*negate=*/true);
    *released = objects.key(existing);
    objects.Set(existing, prepared->key, prepared->values.data());
  } else {
    objects.Insert(id, prepared->key, prepared->values.data());
  }
  lane->AddHeapDelta(new_row, prepared->values.data(), /*negate=*/false);
  prepared->key = kNoKey;  // the object's now
  return OkStatus();
}

bool TrackedObjects::Contains(uint64_t id) const {
  Shard& shard = ShardOf(id);
  SpinLockHolder hold(&shard.lock);
  return shard.table.Find(id) != ObjectTable::kNone;
}

void TrackedObjects::UntrackLocked(Shard& shard, uint64_t id, Profile* lane,
                                   uint32_t* released) {
  ObjectTable& objects = shard.table;
  const uint32_t record = objects.Find(id);
  if (record == ObjectTable::kNone) return;
  const uint32_t key = objects.key(record);
  const uint32_t row = LaneRow(key, lane);  // may throw; nothing changed yet
  absl::InlinedVector<int64_t, 4> values(types_.size());
  objects.values(record, values.data());
  lane->AddHeapDelta(row, values.data(), /*negate=*/true);
  objects.Erase(record);
  count_.fetch_sub(1, std::memory_order_relaxed);
  *released = key;
}

size_t TrackedObjects::TableBytes() const {
  size_t bytes = 0;
  for (const auto& shard : shards_) {
    SpinLockHolder hold(&shard->lock);
    bytes += shard->table.MemoryBytes();
  }
  return bytes;
}

size_t TrackedObjects::MemoryBytes() const {
  size_t bytes = TableBytes();
  for (const auto& home : homes_) bytes += home->MemoryBytes();
  return bytes;
}

bool TrackedObjects::AnyLockHeld() const {
  for (const auto& shard : shards_) {
    if (shard->lock.IsLocked(std::memory_order_relaxed)) return true;
  }
  for (const auto& home : homes_) {
    if (home->AnyLockHeld()) return true;
  }
  return false;
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
  // Rows first (may throw, changing no total), then the sums. A key whose
  // objects came and went within the interval sums to zero and changes no
  // total: its content is not even imported.
  const HeapDeltas& deltas = slot->heap_deltas();
  const size_t n = deltas.size();
  scratch_rows_.clear();
  for (size_t i = 0; i < n; ++i) {
    const int64_t* v = deltas.values(i);
    if (std::all_of(v, v + width_, [](int64_t x) { return x == 0; })) continue;
    uint32_t stack, labels;
    totals_->ImportKey(*slot, deltas.stack(i), deltas.labels(i), &stack, &labels);
    scratch_rows_.push_back(static_cast<uint32_t>(i));
    scratch_rows_.push_back(totals_->HeapRow(stack, labels));
  }
  for (size_t i = 0; i < scratch_rows_.size(); i += 2) {
    totals_->AddHeapDelta(scratch_rows_[i + 1], deltas.values(scratch_rows_[i]),
                          /*negate=*/false);
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
