// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile's sampler path: a sample by content (Add) or by dictionary ids
// (AddIds), from its checks to its key in the aggregate, or to the
// storage-full pseudo-sample at the memory cap; and the same steps handed
// to an adder that finds known entries itself (FinishAdd, FinishAddIds,
// AcceptForLater).
#include <cassert>
#include <new>

#include "input/sample_checks.h"
#include "input/trace_link.h"
#include "profile/dictionary.h"
#include "profile/profile.h"

namespace stackrec {

namespace {

constexpr uint32_t kNotImported = DictionaryImports::kNotImported;
constexpr uint32_t kTruncatedBit = DictionaryImports::kTruncatedBit;
constexpr uint32_t kEndTimestampBit = DictionaryImports::kEndTimestampBit;

}  // namespace

Status Profile::AddOverflow(absl::Span<const LocationView> frames,
                            absl::Span<const LabelView> labels) {
  // Bad input is still refused, though this path interns nothing of it.
  STACKREC_RETURN_IF_ERROR(CheckStrings(frames, labels));
  // One pseudo-stack, no labels: a single key however much is refused, so
  // the totals stay right and the profile stops growing (but for this key).
  const SampleKey key{StorageFullStack(), 0};
  aggregate_.Add(key, tables().KeyTag(key), values_);
  ++samples_over_memory_;
  return OkStatus();
}

// The rest of an add by content once BeginAdd is done. Inlined into Add,
// a sampler's one call into a profile of its own: no second call and
// prologue.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status Profile::AddContent(const SampleView& sample,
                                                               const HashedFrames* frames,
                                                               const AddStart& start) {
  const Status status = frames == nullptr ? AddSample(sample, start.labels_fp)
                        : start.whole     ? AddHashed(sample, *frames, start.labels_fp)
                                          : AddLoaded(sample, *frames, start.labels_fp);
  if (status.ok()) ++samples_added_;
  return status;
}

Status Profile::Add(const SampleView& sample, const HashedFrames* frames) {
  AddStart start;
  STACKREC_RETURN_IF_ERROR(BeginAdd(sample, frames, tables(), &start));
  return AddContent(sample, frames, start);
}

Status Profile::FinishAdd(const SampleView& sample, const HashedFrames* frames,
                          const AddStart& start) {
  return AddContent(sample, frames, start);
}

Status Profile::AcceptForLater(const SampleView& sample,
                               absl::FunctionRef<void(const SampleView&)> keep) {
  // Checked in full now, as interning would, so that adding it later
  // cannot fail: the caller hears of a bad sample from this call.
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  STACKREC_RETURN_IF_ERROR(ValidateSampleContent(sample));
  TablesChanged();
  if (Full()) {
    // As AddOverflow, with the storage-full stack interned up front by the
    // tables' owner: no new entry.
    const SampleKey key{StorageFullStack(), 0};
    AddKnownKey(key, tables().KeyTag(key), 0);
    ++samples_over_memory_;
  } else {
    keep(sample);
  }
  ++samples_added_;
  return OkStatus();
}

void Profile::AddAccepted(const SampleView& sample, const Fingerprint& labels_fp) {
  TablesChanged();
  aggregate_.Advance();
  // Checked when accepted: only the memory cap can change its way (to the
  // storage-full stack), and an allocation that fails throws.
  const Status added = AddSample(sample, labels_fp);
  assert(added.ok());
  (void)added;
}

Status Profile::AddHashed(const SampleView& sample, const HashedFrames& frames,
                          const Fingerprint& labels_fp) {
  if (uint32_t stack; tables().CachedStack(frames.fingerprint, &stack)) {
    // The stack cache's invariant (sample_tables.h): the frames are not read.
    STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
    return AddKey(stack, /*truncated=*/false, /*frames=*/{}, sample.labels, labels_fp,
                  sample.timestamp_ns, /*labels_checked=*/false);
  }
  // A new stack. Its frames are converted one by one as InternStack meets
  // frames it does not know (a new stack's frames are mostly known ones),
  // unless the stack needs them all: cut to max_frames (AddSample
  // fingerprints it again), past the memory cap (AddOverflow checks every
  // frame's UTF-8), or with inlined frames (CheckInlining). Converting
  // them all would check again what the hash had checked.
  if (!Full() && !frames.any_inlined()) return AddNewStack(sample, labels_fp, frames);
  return AddLoaded(sample, frames, labels_fp);
}

Status Profile::AddLoaded(SampleView sample, const HashedFrames& frames,
                          const Fingerprint& labels_fp) {
  STACKREC_RETURN_IF_ERROR(frames.load(&sample.locations));
  return AddSample(sample, labels_fp, &frames);
}

Status Profile::AddNewStack(const SampleView& sample, const Fingerprint& labels_fp,
                            const HashedFrames& frames) {
  // As AddSample, in its order, but for what cannot fail here: the frames'
  // strings were checked as they were hashed and no frame is inlined.
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  STACKREC_RETURN_IF_ERROR(CheckLabels(sample.labels, sample.timestamp_ns));
  TablesChanged();  // before, as in AddSample
  uint32_t stack;
  STACKREC_RETURN_IF_ERROR(tables().InternStack(frames.count, frames.frame, frames.frame_hashes,
                                                frames.fingerprint, &stack));
  // Were the label set new and the cap reached by now, AddOverflow would
  // check the frames' strings again: the stack interned, they passed.
  return AddKey(stack, /*truncated=*/false, /*frames=*/{}, sample.labels, labels_fp,
                sample.timestamp_ns, /*labels_checked=*/true);
}

Status Profile::TakeSomeValues(absl::Span<const int64_t> values) {
  const size_t declared = options_.sample_types.size();
  if (values.size() != declared) {
    return Error(Code::kInvalidArgument,
                 "sample.values_len is %zu but the profile declares %zu sample "
                 "types",
                 values.size(), declared);
  }
  int64_t* const out = scratch_values_.data();  // stored_values() of them
  values_ = out;
  size_t j = 0;
  for (size_t i = 0; i < declared; ++i) {
    if (options_.enabled[i]) out[j++] = values[i];
  }
  return OkStatus();
}

Status Profile::AddSample(const SampleView& sample, const Fingerprint& labels_fp,
                          const HashedFrames* hashed) {
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  STACKREC_RETURN_IF_ERROR(CheckLabels(sample.labels, sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(CheckInlining(sample.locations));

  const bool truncated = sample.locations.size() > options_.max_frames;
  if (truncated) {
    STACKREC_RETURN_IF_ERROR(CheckFrameStrings(sample.locations, options_.max_frames));
  }
  const absl::Span<const LocationView> frames = CutToMaxFrames(sample.locations);

  // Find or intern the stack, the label set and the key. At the memory cap,
  // whatever would need a new entry goes to the storage-full pseudo-sample.
  // The frames' hashes come with them unless the stack was cut.
  Fingerprint stack_fp;
  const uint64_t* frame_hashes;
  if (hashed != nullptr && !truncated) {
    stack_fp = hashed->fingerprint;
    frame_hashes = hashed->frame_hashes;
  } else {
    scratch_.frame_hashes.resize(frames.size());
    stack_fp = FingerprintFrames(frames, scratch_.frame_hashes.data());
    frame_hashes = scratch_.frame_hashes.data();
  }
  uint32_t stack;
  if (!tables().CachedStack(stack_fp, &stack)) {
    if (Full()) return AddOverflow(frames, sample.labels);
    // Before: what an intern that fails or throws half way leaves counts too.
    TablesChanged();
    STACKREC_RETURN_IF_ERROR(tables().InternStack(frames, frame_hashes, stack_fp, &stack));
  }
  return AddKey(stack, truncated, frames, sample.labels, labels_fp, sample.timestamp_ns,
                /*labels_checked=*/true);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status Profile::AddKey(uint32_t stack, bool truncated,
                                                           absl::Span<const LocationView> frames,
                                                           absl::Span<const LabelView> label_views,
                                                           const Fingerprint& labels_fp,
                                                           int64_t timestamp_ns,
                                                           bool labels_checked) {
  uint32_t labels;
  if (tables().CachedLabels(labels_fp, &labels)) {
    // The label cache's invariant (sample_tables.h): only the timestamp is
    // new.
    if (!labels_checked) STACKREC_RETURN_IF_ERROR(CheckReservedKeys(label_views, timestamp_ns));
  } else {
    if (!labels_checked) STACKREC_RETURN_IF_ERROR(CheckLabels(label_views, timestamp_ns));
    if (Full()) return AddOverflow(frames, label_views);
    TablesChanged();  // before, as above
    STACKREC_RETURN_IF_ERROR(tables().InternLabels(label_views, labels_fp, &labels));
  }
  return AddKeyWithLabels(stack, truncated, labels, frames, label_views, timestamp_ns);
}

// Inlined into its callers (AddKey, AddIdSample), as AddKey is into
// its: the common case, a sample deferred, is a few stores, and the calls
// and prologues of the layers between the C API and here were a tenth of
// an add by stack id's instructions.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status Profile::AddKeyWithLabels(
    uint32_t stack, bool truncated, uint32_t labels, absl::Span<const LocationView> frames,
    absl::Span<const LabelView> label_views, int64_t timestamp_ns) {
  if (truncated) {
    ++samples_truncated_;
  }
  // Deferred (aggregate.h) while settling cannot need memory, and the
  // cap was not reached: settling may then pass it by a key or two.
  if (ABSL_PREDICT_TRUE(timestamp_ns == 0 && aggregate_.CanDefer() && !Full())) {
    const SampleKey key{stack, labels};
    aggregate_.Defer(key, tables().KeyTag(key), values_);
    return OkStatus();
  }
  return AddKeyNow(stack, labels, frames, label_views, timestamp_ns);
}

Status Profile::AddKeyNow(uint32_t stack, uint32_t labels, absl::Span<const LocationView> frames,
                          absl::Span<const LabelView> label_views, int64_t timestamp_ns) {
  if (timestamp_ns != 0) {
    if (Full()) return AddOverflow(frames, label_views);
    TablesChanged();
    aggregate_.AddTimed(SampleKey{stack, labels}, timestamp_ns, values_);
    return OkStatus();
  }
  // Looked up now, after what is deferred.
  const SampleKey key{stack, labels};
  const uint32_t tag = tables().KeyTag(key);
  if (const uint32_t row = aggregate_.Find(key, tag); row != KeyIndex::kNone) {
    aggregate_.SumInto(row, values_);
    return OkStatus();
  }
  if (Full()) return AddOverflow(frames, label_views);
  aggregate_.Insert(key, tag, values_);
  return OkStatus();
}

absl::Span<const LocationView> Profile::CutToMaxFrames(absl::Span<const LocationView> frames) {
  // Deeper than max_frames: keep the leaf side and say how much was cut.
  if (frames.size() <= options_.max_frames) return frames;
  scratch_.truncated.assign(frames.begin(), frames.begin() + options_.max_frames);
  // The frame the last kept one was inlined into is cut: it stands alone.
  scratch_.truncated.back().inlined = false;
  scratch_.truncated_name = TruncatedFrameName(frames.size() - options_.max_frames);
  LocationView pseudo;
  pseudo.function.name = scratch_.truncated_name;
  scratch_.truncated.push_back(pseudo);
  return scratch_.truncated;
}

Status Profile::InternKeyContent(absl::Span<const LocationView> frames,
                                 absl::Span<const LabelView> labels, uint32_t* stack,
                                 uint32_t* label_set) {
  STACKREC_RETURN_IF_ERROR(InternStackContent(frames, stack));
  return InternLabelsContent(labels, label_set);
}

Status Profile::InternStackContent(absl::Span<const LocationView> frames, uint32_t* stack) {
  scratch_.frame_hashes.resize(frames.size());
  const Fingerprint fp = FingerprintFrames(frames, scratch_.frame_hashes.data());
  if (tables().CachedStack(fp, stack)) return OkStatus();
  return tables().InternStack(frames, scratch_.frame_hashes.data(), fp, stack);
}

Status Profile::InternLabelsContent(absl::Span<const LabelView> labels, uint32_t* label_set) {
  const Fingerprint fp = FingerprintLabels(labels);
  if (tables().CachedLabels(fp, label_set)) return OkStatus();
  return tables().InternLabels(labels, fp, label_set);
}

Status Profile::AddIds(const IdSampleView& sample, uint32_t generation,
                       WithDictionary with_dictionary) {
  Fingerprint labels_fp;
  STACKREC_RETURN_IF_ERROR(BeginAddIds(sample, tables(), &labels_fp));
  const Status status = AddIdSample(sample, labels_fp, generation, with_dictionary);
  if (status.ok()) ++samples_added_;
  return status;
}

Status Profile::FinishAddIds(const IdSampleView& sample, const Fingerprint& labels_fp,
                             uint32_t generation, WithDictionary with_dictionary) {
  const Status status = AddIdSample(sample, labels_fp, generation, with_dictionary);
  if (status.ok()) ++samples_added_;
  return status;
}

Status Profile::EndTimestampLabelsError(uint32_t labels_id) {
  return Error(Code::kInvalidArgument,
               "sample.labels_id %u has the key \"end_timestamp_ns\", reserved for the "
               "sample's timestamp_ns",
               labels_id);
}

// Inlined into AddIds, its steady caller: no call, no second prologue.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status Profile::AddIdSample(const IdSampleView& sample,
                                                                const Fingerprint& labels_fp,
                                                                uint32_t generation,
                                                                WithDictionary with_dictionary) {
  STACKREC_RETURN_IF_ERROR(CheckTimestamp(sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  // sample.labels are validated by AddKey (or before AddOverflow below).
  STACKREC_RETURN_IF_ERROR(CheckIdShape(sample));
  if (generation != imports_.generation()) SyncDictionary(generation);
  // The fast path: a stack and a label set imported in this generation, no
  // dictionary.
  const bool by_labels_id = sample.labels_id != 0;
  Fingerprint fingerprint{};
  uint32_t packed = ImportedStack(sample, labels_fp, &fingerprint);
  uint32_t labels = by_labels_id ? imports_.LabelSet(sample.labels_id) : 0;
  bool over_memory = false;
  if (packed == kNotImported || labels == kNotImported) {
    const Status looked_up = with_dictionary([&](const Dictionary& dict) -> Status {
      if (dict.generation() != imports_.generation()) {
        // Forgotten since the fast path: what it found is gone too.
        SyncDictionary(dict.generation());
        packed = kNotImported;
        if (by_labels_id) labels = kNotImported;
      }
      if (!Full()) {
        // Before: what an import that fails or throws half way leaves
        // counts too.
        TablesChanged();
        if (packed == kNotImported) {
          STACKREC_RETURN_IF_ERROR(
              sample.stack_id != 0
                  ? imports_.ImportStack(dict, sample.stack_id, &tables(), &packed)
                  : imports_.ImportLocationIds(dict, sample.location_ids, fingerprint,
                                               options_.max_frames, &tables(), &packed));
        }
        if (labels == kNotImported) {
          STACKREC_RETURN_IF_ERROR(
              imports_.ImportLabelSet(dict, sample.labels_id, &tables(), &labels));
        }
        return OkStatus();
      }
      // At the memory cap nothing is imported, but the ids are still checked.
      over_memory = true;
      uint32_t index = 0;
      if (packed == kNotImported) {
        STACKREC_RETURN_IF_ERROR(
            sample.stack_id != 0 ? dict.StackIndex(sample.stack_id, "sample.stack_id", &index)
                                 : dict.LocationIndices(sample.location_ids, "sample.location_ids",
                                                        &scratch_.frame_indices));
      }
      if (labels == kNotImported) {
        STACKREC_RETURN_IF_ERROR(dict.LabelSetIndex(sample.labels_id, "sample.labels_id", &index));
        labels = dict.label_set_has_end_timestamp(index) ? kEndTimestampBit : 0;
      }
      return OkStatus();
    });
    STACKREC_RETURN_IF_ERROR(looked_up);
  }
  if (by_labels_id && sample.timestamp_ns != 0 && (labels & kEndTimestampBit) != 0) {
    return EndTimestampLabelsError(sample.labels_id);
  }
  if (over_memory) {
    STACKREC_RETURN_IF_ERROR(CheckLabels(sample.labels, sample.timestamp_ns));
    return AddOverflow({}, sample.labels);
  }
  const uint32_t stack = packed & ~kTruncatedBit;
  const bool truncated = (packed & kTruncatedBit) != 0;
  if (by_labels_id) {
    if (sample.has_link) {
      return AddLinkedLabelSet(stack, truncated, labels & ~kEndTimestampBit, sample.labels_id,
                               sample.labels, sample.timestamp_ns);
    }
    return AddKeyWithLabels(stack, truncated, labels & ~kEndTimestampBit, {}, {},
                            sample.timestamp_ns);
  }
  return AddKey(stack, truncated, {}, sample.labels, labels_fp, sample.timestamp_ns,
                /*labels_checked=*/false);
}

Status Profile::AddLinkedLabelSet(uint32_t stack, bool truncated, uint32_t labels,
                                  uint32_t labels_id, absl::Span<const LabelView> link,
                                  int64_t timestamp_ns) {
  std::vector<LabelView>& views = scratch_.linked_labels;
  tables().LabelViews(labels, &views);  // views of the table's arena, which never moves
  // The set was checked when it was interned, but not against a link.
  for (const LabelView& l : views) {
    if (l.key == kTraceIdKey || l.key == kSpanIdKey) {
      return Error(Code::kInvalidArgument,
                   "sample.labels_id %u has the key \"%.*s\", where the sample's link is "
                   "written: with a link, give no label of that key",
                   labels_id, static_cast<int>(l.key.size()), l.key.data());
    }
  }
  views.insert(views.end(), link.begin(), link.end());
  return AddKey(stack, truncated, {}, views, FingerprintLabels(views), timestamp_ns,
                /*labels_checked=*/true);
}

void Profile::ImportInterned(const Dictionary& dict, Interned what, uint32_t id) noexcept {
  try {
    SyncDictionary(dict.generation());
    const bool stack = what == Interned::kStack;
    if ((stack ? imports_.Stack(id) : imports_.LabelSet(id)) != kNotImported || Full()) return;
    uint32_t packed;
    // An id just handed out by `dict`: the imports cannot refuse it.
    const Status imported = stack ? imports_.ImportStack(dict, id, &tables(), &packed)
                                  : imports_.ImportLabelSet(dict, id, &tables(), &packed);
    (void)imported;
  } catch (const std::bad_alloc&) {
    // Every import step leaves the tables consistent (an entry is marked
    // imported only once it is interned): the first sample resumes it.
  }
  TablesChanged();
}

void Profile::SyncDictionary(uint32_t generation) {
  if (generation == imports_.generation()) return;
  TablesChanged();
  imports_.Sync(generation);
}

}  // namespace stackrec
