// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// TrackedObjects: live-heap tracking's samplers' side, the objects that
// samplers track (allocated) and untrack (freed). Trackers share it
// without a common lock: object tables (object_table.h) in shards by id,
// and each tracked object's stack and labels interned (its "content",
// content_blobs.h) in the home of the tracker that tracked it, so an
// untrack can name the object's key in whatever heap lane it is in. The
// serializer's side is LiveTotals (live_totals.h); the protocol between
// the owners is at the top of recorder.cc.
#ifndef STACKREC_SRC_LIVE_HEAP_TRACKED_OBJECTS_H_
#define STACKREC_SRC_LIVE_HEAP_TRACKED_OBJECTS_H_

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
#include "input/profile_options.h"
#include "input/sample_view.h"
#include "live_heap/object_table.h"
#include "profile/profile.h"
#include "tables/content_blobs.h"

namespace stackrec {

// The samplers' side of tracking, which any number of trackers call at
// once. Objects are spread over the shards' object tables by a hash of
// the 4 KiB page their id names, each behind a spin lock of its own;
// their content (stack, labels) is interned in the ContentBlobs of the
// tracking thread's home, one of kHomes handed to threads in turn, so
// that trackers on different cores write to different blobs. A tracker
// waits for another only when both reach the same shard, or the same
// stripe of one home's blobs, for one lookup. The heap lane passed in is
// the caller's alone (it holds the lane's lock).
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

}  // namespace stackrec

#endif  // STACKREC_SRC_LIVE_HEAP_TRACKED_OBJECTS_H_
