// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "live_heap/tracked_objects.h"

#include <cstring>
#include <string>

#include "absl/strings/string_view.h"
#include "hash/fingerprint.h"
#include "tables/content_encoding.h"
#include "tables/heap_deltas.h"

namespace stackrec {

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

// MakeLiveHeapOptions caps max_objects so that every record number of a
// shard's table (below max_objects) differs from ObjectTable::kNone.
static_assert(kMaxTrackedObjectsLimit < ObjectTable::kNone, "a record number would be kNone");

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

Status TrackedObjects::CommitLocked(Shard& shard, uint64_t id, Prepared* prepared, Profile* lane,
                                    uint32_t* released) {
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

void TrackedObjects::UntrackLocked(Shard& shard, uint64_t id, Profile* lane, uint32_t* released) {
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

}  // namespace stackrec
