// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile as a lane of a recorder slot (slot_tables.h): a sample whose
// stack and label set the slot knows is added without a lock, through
// the published indexes and the lane's own rows; one that needs a new
// entry takes the slot's new-entry lock with TryLock and goes the way
// profile_add.cc goes, on the shared tables, or, when the lock is busy,
// is parked in the lane (pending_samples.h). By ids, a new import waits
// for the lock as it waits for the dictionary's. The serializer's side:
// adding the parked samples, merging lanes by key ids, settling the
// endpoints kept by name.
#include <cassert>
#include <new>
#include <utility>

#include "input/sample_checks.h"
#include "profile/dictionary.h"
#include "profile/profile.h"

namespace stackrec {

namespace {

constexpr uint32_t kNotImported = DictionaryImports::kNotImported;
constexpr uint32_t kTruncatedBit = DictionaryImports::kTruncatedBit;
constexpr uint32_t kEndTimestampBit = DictionaryImports::kEndTimestampBit;

}  // namespace

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void Profile::AddKnownKey(SampleKey key, uint32_t tag,
                                                              int64_t timestamp_ns) {
  if (timestamp_ns != 0) {
    TablesChanged();
    aggregate_.AddTimed(key, timestamp_ns, values_);
    return;
  }
  if (ABSL_PREDICT_TRUE(aggregate_.CanDefer())) {
    aggregate_.Defer(key, tag, values_);
    return;
  }
  if (const uint32_t row = aggregate_.Find(key, tag); row != KeyIndex::kNone) {
    aggregate_.SumInto(row, values_);
  } else {
    aggregate_.Insert(key, tag, values_);
  }
}

Status Profile::AddInLane(const SampleView& sample, const HashedFrames* frames) {
  STACKREC_RETURN_IF_ERROR(CheckTimestamp(sample.timestamp_ns));
  // As Add: the labels' slot fetched before the deferred samples are
  // settled, the stack's and the key's after.
  const Fingerprint labels_fp = FingerprintLabels(sample.labels);
  slot_->PrefetchLabels(labels_fp);
  const bool whole = frames != nullptr && frames->count <= options_.max_frames;
  aggregate_.Advance();
  if (whole) {
    slot_->PrefetchStack(frames->fingerprint);
    aggregate_.Prefetch(SampleTables::SeedsTag(SampleTables::SeedOf(frames->fingerprint),
                                               SampleTables::SeedOf(labels_fp)));
    SlotTables::Entry stack, labels;
    // What the published indexes hold is in the caches (slot_tables.h), and
    // a cache hit is neither converted nor checked again (sample_tables.h):
    // only the values and the reserved keys against the timestamp are new.
    if (slot_->FindStack(frames->fingerprint, &stack) && slot_->FindLabels(labels_fp, &labels) &&
        !Full()) {
      STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
      STACKREC_RETURN_IF_ERROR(CheckReservedKeys(sample.labels, sample.timestamp_ns));
      AddKnownKey(SampleKey{stack.id, labels.id}, SampleTables::SeedsTag(stack.seed, labels.seed),
                  sample.timestamp_ns);
      ++samples_added_;
      return OkStatus();
    }
  }
  // A new entry, a stack cut to max_frames, or the memory cap.
  if (!slot_->lock().TryLock()) return ParkSample(sample, frames);
  SlotTables::NewEntryTurn turn(slot_);
  AddPendingSamples();  // parked before this one
  aggregate_.Advance();
  const Status status = frames == nullptr ? AddSample(sample, labels_fp)
                        : whole           ? AddHashed(sample, *frames, labels_fp)
                                          : AddLoaded(sample, *frames, labels_fp);
  slot_->Publish(whole ? &frames->fingerprint : nullptr, &labels_fp);
  if (status.ok()) ++samples_added_;
  return status;
}

Status Profile::ParkSample(const SampleView& sample, const HashedFrames* frames) {
  // Checked in full now, as interning would, so that adding the copy later
  // cannot fail: the caller hears of a bad sample from this call.
  SampleView view = sample;
  if (frames != nullptr) STACKREC_RETURN_IF_ERROR(frames->load(&view.locations));
  STACKREC_RETURN_IF_ERROR(TakeValues(view.values));
  STACKREC_RETURN_IF_ERROR(ValidateSampleContent(view));
  TablesChanged();
  if (Full()) {
    // As AddOverflow, with the slot's storage-full stack: no new entry.
    const SampleKey key{slot_->storage_full_stack(), 0};
    AddKnownKey(key, tables().KeyTag(key), 0);
    ++samples_over_memory_;
  } else {
    pending_.Add(view);
    TablesChanged();  // after Full() above: the copy is counted
  }
  ++samples_added_;
  return OkStatus();
}

void Profile::AddPendingSamples() {
  if (pending_.empty()) return;
  TablesChanged();
  pending_.TakeEach([this](const SampleView& sample) {
    const Fingerprint labels_fp = FingerprintLabels(sample.labels);
    aggregate_.Advance();
    // Checked when parked: only the memory cap can change its way (to the
    // storage-full stack), and an allocation that fails throws.
    const Status added = AddSample(sample, labels_fp);
    assert(added.ok());
    (void)added;
    slot_->Publish(nullptr, &labels_fp);
  });
  TablesChanged();  // the copies are freed
}

Status Profile::AddIdsInLane(const IdSampleView& sample, uint32_t generation,
                             WithDictionary with_dictionary) {
  STACKREC_RETURN_IF_ERROR(CheckTimestamp(sample.timestamp_ns));
  const bool by_labels_id = sample.labels_id != 0;
  const Fingerprint labels_fp = FingerprintLabels(sample.labels);
  if (!by_labels_id) slot_->PrefetchLabels(labels_fp);
  aggregate_.Advance();
  // Known: a stack and a label set this lane imported in this generation,
  // or labels as strings that the slot publishes. A label set by id with
  // a link is read back from the tables, under the lock.
  if (generation == imports_.generation() && !(by_labels_id && sample.has_link) && !Full()) {
    STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
    STACKREC_RETURN_IF_ERROR(CheckIdShape(sample));
    Fingerprint fingerprint;
    const uint32_t packed = ImportedStack(sample, labels_fp, &fingerprint);
    SlotTables::Entry labels{kNotImported, 0};
    const bool labels_known =
        by_labels_id ? (labels.id = imports_.LabelSet(sample.labels_id)) != kNotImported
                     : slot_->FindLabels(labels_fp, &labels);
    if (packed != kNotImported && labels_known) {
      if (!by_labels_id) {
        STACKREC_RETURN_IF_ERROR(CheckReservedKeys(sample.labels, sample.timestamp_ns));
      } else if (sample.timestamp_ns != 0 && (labels.id & kEndTimestampBit) != 0) {
        // As AddIdSample says it.
        return Error(Code::kInvalidArgument,
                     "sample.labels_id %u has the key \"end_timestamp_ns\", reserved for the "
                     "sample's timestamp_ns",
                     sample.labels_id);
      }
      if ((packed & kTruncatedBit) != 0) ++samples_truncated_;
      const SampleKey key{packed & ~kTruncatedBit, labels.id & ~kEndTimestampBit};
      const SampleTables& t = tables();
      const uint32_t labels_seed = by_labels_id ? t.label_seed(key.labels) : labels.seed;
      AddKnownKey(key, SampleTables::SeedsTag(t.stack_seed(key.stack), labels_seed),
                  sample.timestamp_ns);
      ++samples_added_;
      return OkStatus();
    }
  }
  // An import: it waits for the slot's lock as it waits for the
  // dictionary's, which it takes inside (that order only: ImportInterned
  // holds the dictionary's and only tries this one).
  slot_->lock().Lock();
  SlotTables::NewEntryTurn turn(slot_);
  AddPendingSamples();
  aggregate_.Advance();
  const Status status = AddIdSampleLocked(sample, labels_fp, generation, with_dictionary);
  if (!by_labels_id) slot_->Publish(nullptr, &labels_fp);
  if (status.ok()) ++samples_added_;
  return status;
}

void Profile::MergeLane(const Profile& lane) {
  assert(slot_ != nullptr && lane.slot_ == slot_ && lane.pending_.empty());
  TablesChanged();
  // What can throw before the first change to a sample: the endpoints into
  // a copy, the keys under an undo.
  EndpointNames names = endpoint_names_;
  names.MergeFrom(lane.endpoint_names_);
  KeyUndo undo;
  undo.key_count = aggregate_.key_count();
  const size_t timed_before = aggregate_.timed_count();
  const Aggregate& samples = lane.aggregate_;
  try {
    for (size_t i = 0; i < samples.key_count(); ++i) {
      const SampleKey key{samples.key_stack(i), samples.key_labels(i)};
      aggregate_.Add(key, tables().KeyTag(key), samples.key_values(i), &undo);
    }
    for (size_t i = 0; i < samples.timed_count(); ++i) {
      aggregate_.AddTimed(SampleKey{samples.timed_stack(i), samples.timed_labels(i)},
                          samples.timed_timestamp(i), samples.timed_values(i));
    }
  } catch (...) {
    aggregate_.DropTimedFrom(timed_before);
    Undo(undo);
    throw;
  }
  endpoint_names_ = std::move(names);
  samples_added_ += lane.samples_added_;
  samples_truncated_ += lane.samples_truncated_;
  samples_over_memory_ += lane.samples_over_memory_;
}

void Profile::SettleEndpoints() {
  if (endpoint_names_.empty()) return;
  TablesChanged();
  Endpoints endpoints = endpoints_;
  endpoint_names_.AddTo(&tables().mutable_strings(), &endpoints);
  endpoints_ = std::move(endpoints);
  endpoint_names_.Clear();
}

void Profile::RebindSlotTables(const SampleTables::Carried& carried) noexcept {
  assert(slot_ != nullptr && aggregate_.key_count() == 0 && aggregate_.timed_count() == 0);
  TablesChanged();
  lane_tables_ = &slot_->tables();
  DictionaryImports next;
  try {
    imports_.CarryInto(carried, &next);
  } catch (const std::bad_alloc&) {
    // Nothing imported, rather than ids of the tables that are gone.
    next = DictionaryImports();
  }
  imports_ = std::move(next);
}

}  // namespace stackrec
