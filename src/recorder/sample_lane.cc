// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SampleLane: the slot's protocol for new entries around a lane's Profile
// (the why is in sample_lane.h and slot_tables.h).
#include "recorder/sample_lane.h"

#include <utility>

#include "base/utf8.h"

namespace stackrec {

SampleLane::SampleLane(const ProfileOptions& options, int64_t start_ns, SlotTables& slot,
                       std::atomic<size_t>* memory_bytes)
    : slot_(slot), profile_(options, start_ns, Profile::BorrowedTables{}) {
  profile_.ShareMemoryCap(memory_bytes);
  own_share_.Join(memory_bytes);
}

Status SampleLane::Add(const SampleView& sample, const HashedFrames* frames) {
  Bind();
  Profile::AddStart start;
  STACKREC_RETURN_IF_ERROR(profile_.BeginAdd(sample, frames, slot_, &start));
  if (start.whole) {
    // What the published indexes hold is in the tables' caches
    // (slot_tables.h): a hit here is the hit Add would have.
    SlotTables::Entry stack, labels;
    if (slot_.FindStack(frames->fingerprint, &stack) &&
        slot_.FindLabels(start.labels_fp, &labels) && !profile_.AtMemoryCap()) {
      return profile_.AddKnown(sample, SampleKey{stack.id, labels.id},
                               SampleTables::SeedsTag(stack.seed, labels.seed));
    }
  }
  // A new entry, a stack cut to max_frames, or the memory cap.
  if (!slot_.lock().TryLock()) return Park(sample, frames);
  SlotTables::NewEntryTurn turn(&slot_);
  AddPendingSamples();  // parked before this one
  profile_.Advance();
  const Status status = profile_.FinishAdd(sample, frames, start);
  slot_.Publish(start.whole ? &frames->fingerprint : nullptr, &start.labels_fp);
  return status;
}

Status SampleLane::Park(const SampleView& sample, const HashedFrames* frames) {
  SampleView view = sample;
  if (frames != nullptr) STACKREC_RETURN_IF_ERROR(frames->load(&view.locations));
  return profile_.AcceptForLater(view, [this](const SampleView& checked) {
    pending_.Add(checked);
    PublishOwnBytes();
  });
}

void SampleLane::AddPendingSamples() {
  if (pending_.empty()) return;
  pending_.TakeEach([this](const SampleView& sample) {
    const Fingerprint labels_fp = FingerprintLabels(sample.labels);
    profile_.AddAccepted(sample, labels_fp);
    slot_.Publish(nullptr, &labels_fp);
  });
  PublishOwnBytes();  // the copies are freed
}

Status SampleLane::AddIds(const IdSampleView& sample, uint32_t generation,
                          Profile::WithDictionary with_dictionary) {
  Bind();
  Fingerprint labels_fp;
  STACKREC_RETURN_IF_ERROR(profile_.BeginAddIds(sample, slot_, &labels_fp));
  // Known: a stack and a label set this lane imported in this generation,
  // or labels as strings that the slot publishes.
  Status status;
  if (profile_.AddIdsIfImported(
          sample, generation, labels_fp,
          [this](const Fingerprint& fp, SlotTables::Entry* e) { return slot_.FindLabels(fp, e); },
          &status)) {
    return status;
  }
  // An import: it waits for the slot's lock as it waits for the
  // dictionary's, which it takes inside (that order only: ImportInterned
  // holds the dictionary's and only tries this one).
  slot_.lock().Lock();
  SlotTables::NewEntryTurn turn(&slot_);
  AddPendingSamples();
  profile_.Advance();
  status = profile_.FinishAddIds(sample, labels_fp, generation, with_dictionary);
  if (sample.labels_id == 0) slot_.Publish(nullptr, &labels_fp);
  return status;
}

void SampleLane::ImportInterned(const Dictionary& dict, Profile::Interned what,
                                uint32_t id) noexcept {
  if (!slot_.lock().TryLock()) return;
  SlotTables::NewEntryTurn turn(&slot_);
  Bind();
  profile_.ImportInterned(dict, what, id);
}

Status SampleLane::SetEndpoint(uint64_t local_root_span_id, absl::string_view endpoint) {
  // As Profile::SetEndpoint, whose checks these are, without interning.
  if (local_root_span_id == 0) return Error(Code::kInvalidArgument, "local_root_span_id is 0");
  if (endpoint.empty()) return Error(Code::kInvalidArgument, "endpoint is empty");
  if (!IsValidUtf8(endpoint)) return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  endpoint_names_.Set(local_root_span_id, endpoint);
  PublishOwnBytes();
  return OkStatus();
}

Status SampleLane::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  if (endpoint.empty()) return Error(Code::kInvalidArgument, "endpoint is empty");
  if (!IsValidUtf8(endpoint)) return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  endpoint_names_.AddCount(endpoint, value);
  PublishOwnBytes();
  return OkStatus();
}

void SampleLane::MergeSameSlot(const SampleLane& lane) {
  MergeLane(lane, [this](const Profile& from) { profile().MergeSameTables(from); });
}

void SampleLane::MergeOtherSlot(const SampleLane& lane) {
  MergeLane(lane, [this](const Profile& from) { profile().MergeFrom(from); });
}

void SampleLane::MergeLane(const SampleLane& lane,
                           absl::FunctionRef<void(const Profile&)> merge_rows) {
  // What can throw comes first: the names into a copy, then the rows, all
  // or nothing. A lane never used has no tables yet, and no rows.
  EndpointNames names = endpoint_names_;
  names.MergeFrom(lane.endpoint_names_);
  if (lane.profile_.has_tables()) merge_rows(lane.profile_);
  endpoint_names_ = std::move(names);
  PublishOwnBytes();
}

void SampleLane::SettleEndpoints() {
  if (endpoint_names_.empty()) return;
  profile().AddEndpoints([this](StringTable* strings, Endpoints* endpoints) {
    endpoint_names_.AddTo(strings, endpoints);
  });
  endpoint_names_.Clear();
  PublishOwnBytes();
}

void SampleLane::RebindTables(const SampleTables::Carried& carried) noexcept {
  profile_.BindTables(&slot_.tables(), &slot_.ids(), slot_.storage_full_stack(), &carried);
}

void SampleLane::ClearSamples(int64_t start_ns) {
  profile_.ClearSamples(start_ns);
  endpoint_names_.Clear();
  PublishOwnBytes();
}

size_t SampleLane::MemoryBytes() const {
  return profile_.MemoryBytes() + endpoint_names_.MemoryBytes() + pending_.MemoryBytes();
}

}  // namespace stackrec
