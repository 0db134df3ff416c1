// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The recorder's live-heap tracking on the samplers' side: an object's
// content interned first, then the object tracked or untracked holding a
// lane of the active heap slot and its shard's lock, and committed only
// into a heap slot that is still active (invariant 3 of recorder.cc).
#include <algorithm>
#include <optional>
#include <vector>

#include "recorder/recorder.h"

namespace stackrec {

Status Recorder::Track(uint64_t object_id, const SampleView& sample) {
  if (tracked_ == nullptr) {
    return Error(Code::kInvalidArgument,
                 "opts.live_heap_types is empty: this recorder was created without "
                 "live-heap types, so it tracks no objects");
  }
  const size_t declared = options_.sample_types.size();
  if (sample.values.size() != declared) {
    return Error(Code::kInvalidArgument,
                 "sample.values_len is %zu but the profile declares %zu sample types",
                 sample.values.size(), declared);
  }
  if (sample.timestamp_ns != 0) {
    return Error(Code::kInvalidArgument,
                 "sample.timestamp_ns is %lld: a tracked object outlives profiles, so "
                 "its sample takes no timestamp (0)",
                 static_cast<long long>(sample.timestamp_ns));
  }
  const std::vector<size_t>& types = live_heap_options_.types;
  for (size_t i = 0; i < declared; ++i) {
    if (sample.values[i] != 0 && std::find(types.begin(), types.end(), i) == types.end()) {
      return Error(Code::kInvalidArgument,
                   "sample.values[%zu] is %lld, but sample type %zu is not one of "
                   "opts.live_heap_types, so it must be 0",
                   i, static_cast<long long>(sample.values[i]), i);
    }
  }
  // The content is interned before entering a heap lane, and only once,
  // whatever flips make the entry start over.
  TrackedObjects::Prepared prepared;
  bool truncated = false;
  Status status = tracked_->Prepare(sample, &prepared, &truncated);
  if (!status.ok()) return status;
  try {
    status = heap_.Enter([&](HeapLane& lane, uint32_t index) -> std::optional<Status> {
      // Invariant 3: commit only into a heap lane that is still active.
      std::optional<Status> committed = tracked_->Commit(object_id, &prepared, lane.content.get(),
                                                         [&] { return heap_.IsActive(index); });
      if (committed && committed->ok() && truncated) {
        lane.truncated.store(lane.truncated.load(std::memory_order_relaxed) + 1,
                             std::memory_order_relaxed);
      }
      if (committed && committed->ok()) {
        if (void (*hook)(void*) = record_hook_.load(std::memory_order_acquire)) {
          hook(record_hook_arg_);
        }
      }
      return committed;
    });
  } catch (...) {
    tracked_->Discard(&prepared);
    throw;
  }
  if (!status.ok()) {
    tracked_->Discard(&prepared);
    if (status.code() == Code::kLimitExceeded) {
      objects_not_tracked_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return status;
}

void Recorder::Untrack(uint64_t object_id) {
  if (tracked_ == nullptr) return;
  // The common case (a free of an object never sampled) ends here,
  // without entering a heap lane.
  if (!tracked_->Contains(object_id)) return;
  const Status status = heap_.Enter([&](HeapLane& lane, uint32_t index) -> std::optional<Status> {
    return tracked_->Untrack(object_id, lane.content.get(), [&] { return heap_.IsActive(index); });
  });
  (void)status;
}

size_t Recorder::TrackedTableBytes() const {
  return tracked_ == nullptr ? 0 : tracked_->TableBytes();
}

size_t Recorder::LiveHeapMemoryBytes() const {
  if (tracked_ == nullptr) return 0;
  return tracked_->MemoryBytes() + live_totals_->MemoryBytes();
}

}  // namespace stackrec
