// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SampleLane: what a sampler adds to in a recorder's sample slot, one per
// lane (lanes.h). The slot's lanes share its tables (slot_tables.h); each
// lane keeps its own Profile of rows over them, the endpoints it was given
// by name, and the samples it parked. This is where the slot's protocol
// for new entries runs, so that Profile stays single-threaded:
//  - a sample whose stack and label set the slot knows is found in the
//    slot's published indexes and added to the lane's rows without a lock
//    (Profile::AddKnown, AddIdsIfImported);
//  - one that needs a new entry takes the slot's new-entry lock with a
//    try-lock and is added the way a profile adds (Profile::FinishAdd),
//    publishing what it interned; when the lock is busy the sample is
//    checked and parked in the lane (pending_samples.h) until a later
//    record or the serializer holds the lock. By ids, a new import waits
//    for the lock as it waits for the dictionary's;
//  - endpoints are kept by name (endpoint_names.h): interning their names
//    would need the lock.
// Every call but the constructor is made holding the lane's spin lock.
#ifndef STACKREC_SRC_RECORDER_SAMPLE_LANE_H_
#define STACKREC_SRC_RECORDER_SAMPLE_LANE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/base/optimization.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "concurrent/bytes_share.h"
#include "hash/hashed_frames.h"
#include "input/profile_options.h"
#include "input/sample_view.h"
#include "profile/dictionary.h"
#include "profile/profile.h"
#include "recorder/endpoint_names.h"
#include "recorder/pending_samples.h"
#include "recorder/slot_tables.h"

namespace stackrec {

class SampleLane {
 public:
  // A lane of `slot`, which outlives it, counting its memory in the
  // slot's total (`memory_bytes`, the one max_memory_bytes bounds).
  SampleLane(const ProfileOptions& options, int64_t start_ns, SlotTables& slot,
             std::atomic<size_t>* memory_bytes);
  SampleLane(const SampleLane&) = delete;
  SampleLane& operator=(const SampleLane&) = delete;

  // ---- The sampler's side ---------------------------------------------------
  // Profile::Add and AddIds, by the protocol above.
  Status Add(const SampleView& sample, const HashedFrames* frames);
  Status AddIds(const IdSampleView& sample, uint32_t generation,
                Profile::WithDictionary with_dictionary);
  // Profile::ImportInterned, if the slot's lock is free: this only saves
  // the first sample some work, and the caller holds the dictionary's
  // lock, which a holder of the slot's lock may be waiting for (AddIds).
  void ImportInterned(const Dictionary& dict, Profile::Interned what, uint32_t id) noexcept;
  // Profile's endpoint calls, kept by name until SettleEndpoints.
  Status SetEndpoint(uint64_t local_root_span_id, absl::string_view endpoint);
  Status AddEndpointCount(absl::string_view endpoint, int64_t value);

  // ---- The serializer's side, holding the lane and the slot's lock ----------
  // Adds the samples parked while the lock was busy.
  void AddPendingSamples();
  // Adds every sample and endpoint of `lane`, a lane of the same slot with
  // no parked samples, by key ids. Throws std::bad_alloc with nothing
  // changed.
  void MergeSameSlot(const SampleLane& lane);
  // The same for a lane of the other slot, by content (its slot's lock is
  // held too).
  void MergeOtherSlot(const SampleLane& lane);
  // Interns the endpoints kept by name into the profile's, which the
  // encoders read.
  void SettleEndpoints();
  // The slot's tables were replaced (SlotTables::CarryOver): the profile
  // follows them, its dictionary imports by `carried`. With no samples
  // (ClearSamples first).
  void RebindTables(const SampleTables::Carried& carried) noexcept;
  // Drops the samples and endpoints; the interval restarts at start_ns.
  void ClearSamples(int64_t start_ns);

  // The rows, for the serializer to encode and for the counts. Bound to
  // the slot's tables on the lane's first use.
  Profile& profile() {
    Bind();
    return profile_;
  }
  const Profile& profile() const { return profile_; }
  size_t MemoryBytes() const;

 private:
  // The profile's tables are the slot's as of the lane's first use, not of
  // its creation: a sampler may add a lane to a slot the serializer is
  // replacing the tables of, and the lane's first use comes after the
  // serializer is done with the slot (slots.h, invariant 1).
  void Bind() {
    if (ABSL_PREDICT_FALSE(!profile_.has_tables())) {
      profile_.BindTables(&slot_.tables(), &slot_.ids(), slot_.storage_full_stack());
    }
  }
  // The lock was busy: checks the sample as interning would and parks a
  // copy (or, at the memory cap, adds it to the storage-full stack).
  Status Park(const SampleView& sample, const HashedFrames* frames);
  // MergeSameSlot and MergeOtherSlot: the names, and the rows through
  // merge_rows(the lane's profile).
  void MergeLane(const SampleLane& lane, absl::FunctionRef<void(const Profile&)> merge_rows);
  // Publishes what the lane holds beside its profile into the slot's total.
  void PublishOwnBytes() {
    own_share_.Publish(endpoint_names_.MemoryBytes() + pending_.MemoryBytes());
  }

  SlotTables& slot_;
  Profile profile_;
  EndpointNames endpoint_names_;
  PendingSamples pending_;
  BytesShare own_share_;  // endpoint_names_ and pending_, in the slot's total
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_SAMPLE_LANE_H_
