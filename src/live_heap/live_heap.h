// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Live-heap tracking: objects that samplers track (allocated) and untrack
// (freed), and the running totals every serialization adds to its profile,
// so an object alive across many profiles appears in each of them.
//
// Three parts, with three owners (the protocol is at the top of
// recorder.cc):
//  - ObjectTable: object id -> (key id, values), packed to stay under 48
//    bytes per object at a million objects.
//  - TrackedObjects: the samplers' side, which trackers share without a
//    common lock: object tables in shards by id, and each tracked object's
//    stack and labels interned (its "content", content_blobs.h) in the
//    home of the tracker that tracked it, so an untrack can name the
//    object's key in whatever heap lane it is in.
//  - LiveTotals: the serializer's side: the sum of every heap delta the
//    heap lanes have handed over, by content.
#ifndef STACKREC_SRC_LIVE_HEAP_LIVE_HEAP_H_
#define STACKREC_SRC_LIVE_HEAP_LIVE_HEAP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "base/spin_lock.h"
#include "base/status.h"
#include "input/live_heap_options.h"
#include "input/sample_view.h"
#include "profile/profile.h"
#include "tables/content_blobs.h"

namespace stackrec {

// object id -> (a key id, `width` values). Records are packed back to back,
// unaligned, in chunks of kChunkRecords (no per-record padding: 12 + 8 *
// width bytes), and found through an open-addressing index of uint32 record
// numbers with linear probing. Why not absl::flat_hash_map: at a million
// entries it has 2^21 slots of 8 + 4 + 8 * width bytes (padded to 32 for
// width 2), about 64 bytes per object; here a record is 28 bytes and its
// index share 4 / load, about 36 bytes at a million.
//
// An index entry also carries the top bits of the id's hash in the bits
// that record numbers below max_objects leave free, so a lookup of an id
// that is not tracked (the common untrack: most freed objects were never
// sampled) rarely reads a record.
//
// Not thread-safe; TrackedObjects guards it.
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
    return chunks_[record / kChunkRecords].get() +
           (record % kChunkRecords) * record_bytes_;
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

// The samplers' side of tracking, which any number of trackers call at
// once. Objects are spread over the shards' object tables by a hash of
// the 4 KiB page their id names, each behind a spin lock of its own;
// their content (stack, labels) is interned in the ContentBlobs of the
// tracking thread's home, one of kHomes handed to threads in turn, so
// that trackers on different cores write to different blobs. A tracker waits for another only when
// both reach the same shard, or the same stripe of one home's blobs, for
// one lookup. The heap lane passed in is the caller's alone (it holds the
// lane's lock).
class TrackedObjects {
 public:
  static constexpr unsigned kShardBits = 4;
  static constexpr uint32_t kHomes = uint32_t{1} << (32 - ContentBlobs::kNumberBits);

  // `profile_options` passed MakeProfileOptions and `options`
  // MakeLiveHeapOptions.
  TrackedObjects(const ProfileOptions& profile_options, const LiveHeapOptions& options);
  ~TrackedObjects();

  // A sample's content interned, before its object is committed to a heap
  // lane: one reference to its key blob, which Commit hands to the object
  // and Discard drops.
  struct Prepared {
    uint32_t key = kNoKey;
    absl::InlinedVector<int64_t, 4> values;  // at the live-heap types
  };
  static constexpr uint32_t kNoKey = ~uint32_t{0};
  // Validates the sample's content (as a profile would to intern it) and
  // interns it. The caller validated values_len and timestamp_ns.
  Status Prepare(const SampleView& sample, Prepared* out, bool* truncated);
  void Discard(Prepared* prepared);
  // Remembers object `id` with the prepared content and values, replacing
  // an object tracked under the same id, and adds the difference as heap
  // deltas to `lane`, all under the object's shard lock, where
  // still_active() is asked first: false leaves everything as it was and
  // returns std::nullopt (invariant 3 of recorder.cc). At max_objects, a
  // new id gets kLimitExceeded. On any outcome but OK the caller still
  // owns `prepared`.
  template <typename StillActive>
  std::optional<Status> Commit(uint64_t id, Prepared* prepared, Profile* lane,
                               StillActive&& still_active);
  // Whether `id` is tracked (cheap: no record is read unless a hash tag
  // matches).
  bool Contains(uint64_t id) const;
  // Forgets `id` and subtracts its values from its key in `lane`, under the
  // shard lock, if still_active(); else std::nullopt. Nothing happens if
  // `id` is not tracked.
  template <typename StillActive>
  std::optional<Status> Untrack(uint64_t id, Profile* lane, StillActive&& still_active);

  size_t size() const { return count_.load(std::memory_order_relaxed); }
  // The tables' bytes, and with the content's.
  size_t TableBytes() const;
  size_t MemoryBytes() const;
  // Whether a lock is held (in a fork() child: by a thread that is gone).
  bool AnyLockHeld() const;

 private:
  struct alignas(64) Shard {
    Shard(size_t width, size_t max_objects) : table(width, max_objects) {}
    mutable SpinLock lock;
    ObjectTable table;
  };
  Shard& ShardOf(uint64_t id) const;
  // Key blob `key` as a heap row of `lane`: remembered by the lane
  // (HeapDeltas::FromBlob), else imported from the blob's content.
  uint32_t LaneRow(uint32_t key, Profile* lane);
  // One reference fewer to a key blob, and to its halves if it goes.
  void ReleaseKey(uint32_t key);
  Status CommitLocked(Shard& shard, uint64_t id, Prepared* prepared, Profile* lane,
                      uint32_t* released);
  void UntrackLocked(Shard& shard, uint64_t id, Profile* lane, uint32_t* released);

  const std::vector<size_t> types_;
  const size_t max_objects_;
  // Checks new content, read-only, for every tracker at once: it interns
  // nothing.
  const std::unique_ptr<const Profile> checker_;
  std::atomic<size_t> count_{0};
  // Content is interned in the home of the tracker that tracks it (each
  // tracker thread has one, in turn), so trackers on different cores do
  // not share the blobs' locks and memory. A key names its home in the
  // bits above ContentBlobs::kNumberBits; its halves are in the same home.
  ContentBlobs& HomeOf(uint32_t key) const { return *homes_[key >> ContentBlobs::kNumberBits]; }
  static constexpr uint32_t kNumberMask = ContentBlobs::kMaxNumbers - 1;
  std::unique_ptr<ContentBlobs> homes_[kHomes];
  std::vector<std::unique_ptr<Shard>> shards_;
};

template <typename StillActive>
std::optional<Status> TrackedObjects::Commit(uint64_t id, Prepared* prepared, Profile* lane,
                                             StillActive&& still_active) {
  uint32_t released = kNoKey;
  Status status;
  {
    Shard& shard = ShardOf(id);
    SpinLockHolder hold(&shard.lock);
    if (!still_active()) return std::nullopt;
    status = CommitLocked(shard, id, prepared, lane, &released);
  }
  if (released != kNoKey) ReleaseKey(released);
  return status;
}

template <typename StillActive>
std::optional<Status> TrackedObjects::Untrack(uint64_t id, Profile* lane,
                                              StillActive&& still_active) {
  uint32_t released = kNoKey;
  {
    Shard& shard = ShardOf(id);
    SpinLockHolder hold(&shard.lock);
    if (!still_active()) return std::nullopt;
    UntrackLocked(shard, id, lane, &released);
  }
  if (released != kNoKey) ReleaseKey(released);
  return OkStatus();
}

// The serializer's side: running totals of the heap deltas, by content.
class LiveTotals {
 public:
  LiveTotals(const ProfileOptions& profile_options, const LiveHeapOptions& options);

  // Moves the heap deltas of `slot` into the totals and clears them from
  // the slot. Throws std::bad_alloc before changing any total.
  void Absorb(Profile* slot);
  // Adds every non-zero total to the aggregated keys of `slot`, at the
  // stored positions of the live-heap types (other values 0). `undo` (its
  // key_count set first) takes it back: on a failed encoding, the next
  // serialization adds the totals again.
  void AddTo(Profile* slot, KeyUndo* undo);
  size_t MemoryBytes() const { return totals_->MemoryBytes(); }

 private:
  // Starts over with only the non-zero keys when most are zero (every
  // object of theirs freed), so code that keeps changing does not make the
  // totals grow forever. Amortized: O(keys) after at least keys/2 died.
  void CompactIfMostlyDead();

  const size_t width_;
  // Per live-heap type, its index among the stored (enabled) values, or
  // kNotStored when its type is disabled.
  static constexpr size_t kNotStored = ~size_t{0};
  std::vector<size_t> stored_index_;
  std::unique_ptr<Profile> totals_;  // the heap rows are the totals
  std::vector<uint32_t> scratch_rows_;
  std::vector<int64_t> scratch_values_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_LIVE_HEAP_LIVE_HEAP_H_
