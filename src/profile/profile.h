// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile: what stackrec_profile is, and each slot of a recorder. A facade
// over its parts: the sample's checks (sample_checks.h), the interned
// tables with their caches (sample_tables.h), the summed samples
// (aggregate.h), what was imported from a dictionary
// (dictionary_imports.h), the live-heap deltas (heap_deltas.h) and the
// endpoints (endpoints.h). It owns the options, the memory cap and the
// order of the steps of an add; the sampler's path is profile_add.cc, the
// rest (lifetime, copies, reading) profile.cc. The encoders read the parts
// directly, through Parts() (profile_parts.h).
#ifndef STACKREC_SRC_PROFILE_PROFILE_H_
#define STACKREC_SRC_PROFILE_PROFILE_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/status.h"
#include "hash/fingerprint.h"
#include "hash/hashed_frames.h"
#include "input/profile_options.h"
#include "input/sample_view.h"
#include "input/trace_link.h"
#include "input/upscaling.h"
#include "profile/dictionary_imports.h"
#include "profile/endpoint_names.h"
#include "profile/endpoints.h"
#include "profile/pending_samples.h"
#include "profile/profile_parts.h"
#include "profile/slot_tables.h"
#include "tables/aggregate.h"
#include "tables/heap_deltas.h"
#include "tables/records.h"
#include "tables/sample_tables.h"

namespace stackrec {

class Dictionary;

class Profile {
 public:
  // `options` must have passed MakeProfileOptions. `heap_width` is the
  // number of values each heap-delta row carries (see "Heap deltas" below);
  // 0 for a profile that holds none.
  Profile(ProfileOptions options, int64_t start_ns, size_t heap_width = 0);
  // A lane of a recorder slot (recorder/lanes.h): its tables are `slot`'s,
  // shared with the slot's other lanes, and it keeps only its own rows of
  // values, dictionary imports, endpoints and parked samples. Adds take
  // the paths of profile_lane.cc: known entries lock-free, new ones under
  // the slot's new-entry lock. `slot` outlives it.
  Profile(ProfileOptions options, int64_t start_ns, SlotTables& slot);
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // Makes this profile one of several that share one max_memory_bytes (a
  // recorder slot's lanes): it publishes its MemoryBytes() into
  // *shared_bytes, adding the change whenever it checks the cap, and the
  // cap is reached when their sum is. Every profile sharing the counter
  // must publish into it (the sum may be checked a table growth late);
  // one destroyed withdraws what it published. CarryOver's profile shares
  // it too. Null: this profile's cap is its own (the default).
  void ShareMemoryCap(std::atomic<size_t>* shared_bytes);
  // After the counter was zeroed (a fork child): publishes everything again.
  void RepublishMemory() {
    published_ = 0;
    PublishMemory();
  }

  // On error nothing observable changes: a rejected sample may leave
  // interned strings or locations behind, but the encoder writes only what
  // recorded samples reference.
  //
  // With `frames`, sample.locations is ignored and the frames come from
  // there: a stack this profile interned before (from the same content, so
  // checked then) is found by its fingerprint, and its frames are neither
  // converted nor checked again; any other is loaded and added as usual.
  // A lane's way (profile_lane.cc) or a profile's own, chosen here so that
  // a sampler's record makes one call into the profile, not two.
  Status Add(const SampleView& sample, const HashedFrames* frames = nullptr) {
    return slot_ != nullptr ? AddInLane(sample, frames) : AddOwn(sample, frames);
  }
  // Adds a sample given by ids of a Dictionary (dictionary.h) whose current
  // generation is `generation`. What this profile imported from the
  // dictionary in that generation is found without the dictionary; the
  // rest is copied in through `with_dictionary`, which runs its argument
  // with the dictionary held still (a recorder takes a lock there). On
  // error nothing observable changes, as with Add.
  using WithDictionary = absl::FunctionRef<Status(absl::FunctionRef<Status(const Dictionary&)>)>;
  Status AddIds(const IdSampleView& sample, uint32_t generation, WithDictionary with_dictionary) {
    return slot_ != nullptr ? AddIdsInLane(sample, generation, with_dictionary)
                            : AddIdsOwn(sample, generation, with_dictionary);
  }
  // Copies the stack or label set `id`, just interned into `dict`, into
  // this profile now rather than at the first sample that names it, which
  // then costs what every later one does. (Interning happens once; the
  // first sample of a stack is on a sampler's hot path.) Not at the memory
  // cap, where AddIds imports nothing either, and not if memory runs out:
  // this only saves work, and what it leaves half done is found and
  // finished by the import of the first sample.
  enum class Interned { kStack, kLabelSet };
  void ImportInterned(const Dictionary& dict, Interned what, uint32_t id) noexcept;
  Status SetEndpoint(uint64_t local_root_span_id, absl::string_view endpoint);
  // Adds `value` to the hit count of `endpoint` (saturating).
  Status AddEndpointCount(absl::string_view endpoint, int64_t value);
  // The hit counts, by endpoint name.
  std::vector<std::pair<std::string, int64_t>> EndpointCounts() const;
  // Upscaling rules apply when the profile is encoded; they are part of its
  // configuration and survive Reset and CarryOver.
  Status AddUpscalingRule(UpscalingRule rule) { return upscaling_.Add(std::move(rule), options_); }
  void set_upscaling_rules(const UpscalingRules& rules) { upscaling_ = rules; }
  // Drops all samples, endpoints and interned data; the interval restarts.
  void Reset(int64_t start_ns);
  // A new, empty profile starting at start_ns that already holds the
  // strings, functions, mappings, locations, stacks and label sets this
  // one's samples use, with the fingerprints that find its stacks and
  // label sets (not the frame cache, which only speeds the interning of a
  // new stack: see ClearSamples).
  // What a recorder slot becomes after serialization: the next profile
  // finds its recurring stacks without interning them again, and entries
  // no sample used are gone, so a program whose code keeps changing does
  // not make the tables grow forever.
  std::unique_ptr<Profile> CarryOver(int64_t start_ns) const;
  // The same for live totals (live_heap/live_totals.h), whose keys are their heap
  // rows: a profile holding only what heap rows `rows` use, whose heap row
  // i is rows[i] here, values and all. Entries are copied by id, not
  // hashed again. Throws std::bad_alloc.
  std::unique_ptr<Profile> KeepHeapRows(absl::Span<const uint32_t> rows) const;
  // Drops the samples (and frees their storage), endpoints and heap deltas
  // but keeps every interned entry and cache: the cheap alternative to
  // CarryOver when most entries are still in use.
  void ClearSamples(int64_t start_ns);
  // For a profile that will be read (encoded) before it is written again:
  // frees the frame cache and gives back the stack table's room to grow. A
  // recorder compacts the slot it is about to encode, which then waits,
  // compacted, through the other slot's interval and serialization.
  // The frame cache finds the known frames of a stack seen for the first
  // time, which the steady state rarely meets, and it is the largest cache
  // (17 bytes a slot per distinct frame); without it a new stack's frames
  // are interned through the string table, a few lookups each, and it
  // fills again as they come.
  void Compact();
  void set_start_ns(int64_t start_ns) { start_ns_ = start_ns; }

  // ---- Keys by content, for live-heap tracking (live_heap/) ----------------
  // Validates the sample's labels and strings as Add does, cuts its stack
  // to max_frames, and interns stack and labels. Unlike Add it ignores the
  // sample's values and the memory cap: a tracked object's key must exist
  // exactly, or its live totals would be wrong until it is freed (what
  // tracking adds is bounded by the recorder's max_tracked_objects).
  Status InternSampleKey(const SampleView& sample, uint32_t* stack, uint32_t* labels,
                         bool* truncated);
  // The ids here of the stack and label set `stack` and `labels` of
  // `from`, interned by content if new. Their content was valid in `from`,
  // so this cannot fail on it (it may throw std::bad_alloc, leaving only
  // unreferenced entries behind).
  void ImportKey(const Profile& from, uint32_t stack, uint32_t labels, uint32_t* out_stack,
                 uint32_t* out_labels);
  // ImportKey's two halves: the stack alone, the label set alone.
  uint32_t ImportStack(const Profile& from, uint32_t stack);
  uint32_t ImportLabels(const Profile& from, uint32_t labels);
  // The ids here of a stack (cut to max_frames) and a label set given by
  // content that ValidateSampleContent accepted, interned if new. Throws
  // std::bad_alloc, leaving only unreferenced entries behind.
  uint32_t ImportFrames(absl::Span<const LocationView> frames);
  uint32_t ImportLabelViews(absl::Span<const LabelView> labels);
  // Adds every sample of `from` (keys, timestamped samples, endpoints and
  // their counts) to this profile by content, outside the memory cap, as
  // if they had been added here (profile_merge.cc). Throws std::bad_alloc
  // with no sample or endpoint changed. Heap deltas are not merged.
  void MergeFrom(const Profile& from);
  // Checks what InternSampleKey would check, interning nothing.
  Status ValidateSampleContent(const SampleView& sample) const;

  // ---- A lane of a recorder slot (profile_lane.cc) ---------------------------
  // The serializer's side, holding the lane and the slot's new-entry lock.
  // Adds the samples parked while the lock was busy.
  void AddPendingSamples();
  // Adds every sample of `lane`, a lane of the same slot with no parked
  // samples, by key ids (the tables are the same), and its endpoints and
  // counts. Throws std::bad_alloc with no sample or endpoint changed.
  void MergeLane(const Profile& lane);
  // Interns the endpoint names kept by name (endpoint_names.h) into the
  // endpoints the encoders read.
  void SettleEndpoints();
  // After SlotTables::CarryOver: the dictionary imports follow `carried`
  // (or, if memory for that is short, are forgotten, to be imported
  // again). With no samples (ClearSamples first).
  void RebindSlotTables(const SampleTables::Carried& carried) noexcept;
  bool has_pending_samples() const { return !pending_.empty(); }

  // Adds `values` (stored_values() of them) to the aggregated key (stack,
  // labels), a new key if need be, outside the memory cap; with `undo`, as
  // Aggregate::Add.
  void AddToKey(uint32_t stack, uint32_t labels, const int64_t* values, KeyUndo* undo);
  void Undo(const KeyUndo& undo);

  // ---- Heap deltas (heap_deltas.h), over this profile's keys ---------------
  const HeapDeltas& heap_deltas() const { return heap_; }
  uint32_t HeapRow(uint32_t stack, uint32_t labels) {
    TablesChanged();
    return heap_.Row(stack, labels);
  }
  void RememberBlob(HeapDeltas::BlobKind kind, uint32_t number, uint64_t serial, uint32_t here) {
    TablesChanged();
    heap_.RememberBlob(kind, number, serial, here);
  }
  void AddHeapDelta(uint32_t row, const int64_t* values, bool negate) {
    heap_.Add(row, values, negate);
  }
  void ClearHeapDeltas() {
    TablesChanged();
    heap_.Clear();
  }

  // The id of a one-frame stack whose function is `name`: the pseudo-stacks
  // the caps write. Interned if new (outside the memory cap: one entry).
  uint32_t InternPseudoStack(absl::string_view name) {
    TablesChanged();
    return tables().InternPseudoStack(name);
  }

  // Memory held by the parts, as counted against max_memory_bytes
  // (memory_bytes.h).
  size_t MemoryBytes() const;
  // Since creation or the last reset: samples accepted,
  uint64_t samples_added() const { return samples_added_; }
  // of which accepted with their stack cut to max_frames,
  uint64_t samples_truncated() const { return samples_truncated_; }
  // and that needed a new entry while the profile was at max_memory_bytes,
  // and went to the storage-full pseudo-stack instead.
  uint64_t samples_over_memory() const { return samples_over_memory_; }

  // ---- Read side ------------------------------------------------------------
  // The parts themselves, for the encoders (and tests) that read them.
  ProfileParts Parts() const {
    const OptionStrings& ids = slot_ != nullptr ? slot_->ids() : ids_;
    return {options_, upscaling_, tables(), aggregate_, endpoints_, ids, start_ns_};
  }
  // The few reads the recorder, the C API and live-heap tracking make.
  const ProfileOptions& options() const { return options_; }
  // Number of values stored per sample: the enabled sample types.
  size_t stored_values() const { return aggregate_.width(); }
  int64_t start_ns() const { return start_ns_; }
  const StringTable& strings() const { return tables().strings(); }
  const SpanTable<uint32_t>& stacks() const { return tables().stacks(); }
  const SpanTable<Label>& label_sets() const { return tables().label_sets(); }
  // Endpoint names by local root span id.
  const absl::flat_hash_map<uint64_t, StringId>& endpoints() const { return endpoints_.by_span(); }
  // Aggregated keys, and timestamped samples (aggregate.h).
  size_t key_count() const { return aggregate_.key_count(); }
  // Passes the key of every aggregated and timestamped sample to `f`.
  void ForEachKey(absl::FunctionRef<void(SampleKey)> f) const;
  size_t timed_count() const { return aggregate_.timed_count(); }

  // Settles the deferred samples now (see Aggregate), for a caller that
  // hands the profile to another thread next: the lines their lookups
  // prefetched are in this thread's cache.
  void SettlePending() { aggregate_.Settle(); }

 private:
  // What the sampler's path reuses from call to call, so that it does not
  // allocate once warmed up.
  struct Scratch {
    std::vector<LocationView> truncated;  // CutToMaxFrames's frames
    std::string truncated_name;           // and its pseudo-frame's name
    std::vector<uint64_t> frame_hashes;
    std::vector<uint32_t> frame_indices;
    std::vector<LocationView> import_frames;  // ImportKey's views of the
    std::vector<LabelView> import_labels;     // other profile's content
    std::vector<LabelView> linked_labels;     // AddLinkedLabelSet's views
  };

  // The tables: this profile's own, or its slot's. A lane asks its slot on
  // its first use and keeps them until RebindSlotTables: a lane being added
  // while the serializer replaces the tables must not keep the old ones,
  // and its first use comes after the serializer is done with the slot.
  SampleTables& tables() const {
    if (slot_ == nullptr) return *own_tables_;
    if (ABSL_PREDICT_FALSE(lane_tables_ == nullptr)) lane_tables_ = &slot_->tables();
    return *lane_tables_;
  }

  // ---- A lane's sampler paths (profile_lane.cc) -----------------------------
  // Add and AddIds in a lane: known stack and label set found lock-free,
  // anything new under the slot's new-entry lock.
  Status AddInLane(const SampleView& sample, const HashedFrames* frames);
  Status AddIdsInLane(const IdSampleView& sample, uint32_t generation,
                      WithDictionary with_dictionary);
  // Add for a key whose entries are all known, tagged `tag`: no table is
  // touched. values_ are taken, the memory cap checked.
  void AddKnownKey(SampleKey key, uint32_t tag, int64_t timestamp_ns);
  // The lock was busy: checks `sample` as interning would and parks a
  // copy (or, at the memory cap, adds it to the storage-full stack, which
  // needs no new entry).
  Status ParkSample(const SampleView& sample, const HashedFrames* frames);
  // The stack of an id sample as imported in this generation, or
  // DictionaryImports::kNotImported (then *fingerprint is that of its
  // location ids, if it has them). With labels as strings, the key's home
  // slot is fetched as soon as the stack's seed is known, with the seed the
  // label set has if it was interned from these strings (as in Add): a
  // stack imported by location ids has SeedOf their fingerprint
  // (ImportLocationIds), one by stack id its own.
  ABSL_ATTRIBUTE_ALWAYS_INLINE uint32_t ImportedStack(const IdSampleView& sample,
                                                      const Fingerprint& labels_fp,
                                                      Fingerprint* fingerprint) {
    const bool prefetch = sample.labels_id == 0;
    if (sample.stack_id != 0) {
      const uint32_t packed = imports_.Stack(sample.stack_id);
      if (packed != DictionaryImports::kNotImported && prefetch) {
        aggregate_.Prefetch(
            SampleTables::SeedsTag(tables().stack_seed(packed & ~DictionaryImports::kTruncatedBit),
                                   SampleTables::SeedOf(labels_fp)));
      }
      return packed;
    }
    *fingerprint = FingerprintIds(sample.location_ids);
    if (prefetch) {
      aggregate_.Prefetch(SampleTables::SeedsTag(SampleTables::SeedOf(*fingerprint),
                                                 SampleTables::SeedOf(labels_fp)));
    }
    return imports_.LocationIdsStack(*fingerprint);
  }
  // Checks an id sample's shape: ids and contents not both set.
  static Status CheckIdShape(const IdSampleView& sample) {
    if (sample.stack_id != 0 && !sample.location_ids.empty()) {
      return Error(Code::kInvalidArgument, "sample.stack_id and sample.location_ids are both set");
    }
    // With a label-set id, `labels` holds the link's labels alone, if any.
    if (sample.labels_id != 0 && sample.labels.size() > (sample.has_link ? kLinkLabels : 0)) {
      return Error(Code::kInvalidArgument, "sample.labels_id and sample.labels are both set");
    }
    return OkStatus();
  }
  // The id of the storage-full pseudo-stack: interned up front in a slot.
  uint32_t StorageFullStack() {
    return slot_ != nullptr ? slot_->storage_full_stack() : InternPseudoStack(kStorageFullFrame);
  }

  // ---- The sampler's path (profile_add.cc) --------------------------------
  // Add and AddIds into a profile's own tables.
  Status AddOwn(const SampleView& sample, const HashedFrames* frames);
  Status AddIdsOwn(const IdSampleView& sample, uint32_t generation, WithDictionary with_dictionary);
  // Add, after Advance and but for the count of samples added; `labels_fp`
  // is FingerprintLabels(sample.labels), `hashed`: the frames' fingerprint
  // and hashes are known.
  Status AddSample(const SampleView& sample, const Fingerprint& labels_fp,
                   const HashedFrames* hashed = nullptr);
  // Add for a stack of at most max_frames given by `frames`.
  Status AddHashed(const SampleView& sample, const HashedFrames& frames,
                   const Fingerprint& labels_fp);
  // Add for a stack given by `frames` that is loaded whole as views first
  // (cut to max_frames, inlined frames, or past the memory cap).
  Status AddLoaded(SampleView sample, const HashedFrames& frames, const Fingerprint& labels_fp);
  // The part of AddHashed for a stack the profile does not hold, at
  // neither max_frames nor the memory cap, with no inlined frame: interned
  // from the frames it does not know alone.
  Status AddNewStack(const SampleView& sample, const Fingerprint& labels_fp,
                     const HashedFrames& frames);
  // Forgets what was imported from a dictionary generation other than
  // `generation` (the profile's copies stay, for its samples).
  void SyncDictionary(uint32_t generation);
  // AddIdSample, not inlined: a lane's path under its slot's lock.
  Status AddIdSampleLocked(const IdSampleView& sample, const Fingerprint& labels_fp,
                           uint32_t generation, WithDictionary with_dictionary);
  // AddIds, after Advance and but for the count.
  Status AddIdSample(const IdSampleView& sample, const Fingerprint& labels_fp, uint32_t generation,
                     WithDictionary with_dictionary);
  // The rest of an add once the sample's stack is known: labels, key or
  // timestamped entry, from values_. `frames` are only checked if
  // the sample ends in the storage-full pseudo-sample. Labels not
  // `labels_checked` by the caller are checked here, in full only if
  // the label cache does not know them. `labels_fp` is
  // FingerprintLabels(labels), from the caller (Add and AddIds compute it
  // first, to fetch the label cache's slot early).
  Status AddKey(uint32_t stack, bool truncated, absl::Span<const LocationView> frames,
                absl::Span<const LabelView> labels, const Fingerprint& labels_fp,
                int64_t timestamp_ns, bool labels_checked);
  // AddKey once the label set is known too (`label_views` as `labels`
  // above, empty for an imported label set).
  Status AddKeyWithLabels(uint32_t stack, bool truncated, uint32_t labels,
                          absl::Span<const LocationView> frames,
                          absl::Span<const LabelView> label_views, int64_t timestamp_ns);
  // AddKey for a label set given by id with a link: the set's labels as
  // views, and the link's two after them, take the path of labels given
  // as strings (the link makes it another label set).
  Status AddLinkedLabelSet(uint32_t stack, bool truncated, uint32_t labels, uint32_t labels_id,
                           absl::Span<const LabelView> link, int64_t timestamp_ns);
  // AddKeyWithLabels when the sample cannot be deferred: timestamped, or
  // a table must grow first.
  Status AddKeyNow(uint32_t stack, uint32_t labels, absl::Span<const LocationView> frames,
                   absl::Span<const LabelView> label_views, int64_t timestamp_ns);
  // Adds values_ to the storage-full pseudo-sample.
  Status AddOverflow(absl::Span<const LocationView> frames, absl::Span<const LabelView> labels);
  // Checks the values' count and points values_ at them (the enabled ones,
  // copied to scratch_values_, when some type is disabled). Inline, as
  // Full() is: on every add, and a call costs as many instructions as the
  // check.
  Status TakeValues(absl::Span<const int64_t> values) {
    if (ABSL_PREDICT_TRUE(all_values_stored_ && values.size() == stored_values())) {
      values_ = values.data();  // every type enabled: no copy
      return OkStatus();
    }
    return TakeSomeValues(values);
  }
  // TakeValues when some type is disabled or the count is wrong.
  Status TakeSomeValues(absl::Span<const int64_t> values);
  // `frames`, or its first max_frames frames and a pseudo-frame that says
  // how many were cut (in scratch_.truncated).
  absl::Span<const LocationView> CutToMaxFrames(absl::Span<const LocationView> frames);
  // Finds or interns a stack and a label set given by content: both, or
  // either alone.
  Status InternKeyContent(absl::Span<const LocationView> frames, absl::Span<const LabelView> labels,
                          uint32_t* stack, uint32_t* label_set);
  Status InternStackContent(absl::Span<const LocationView> frames, uint32_t* stack);
  Status InternLabelsContent(absl::Span<const LabelView> labels, uint32_t* label_set);

  // ---- The memory cap -------------------------------------------------------
  // MemoryBytes() >= max_memory_bytes, asked before anything new is
  // stored. Summing every table's size for each new key would cost a
  // hundred instructions a key, so the part that is not the keys' is kept
  // in other_bytes_ and summed again only after TablesChanged().
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool Full() const {
    if (ABSL_PREDICT_FALSE(other_bytes_stale_)) RefreshOtherBytes();
    // A table changed without TablesChanged() would make the cap late.
    assert(other_bytes_ + aggregate_.KeyBytes() == MemoryBytes());
    const size_t own = other_bytes_ + aggregate_.KeyBytes();
    if (ABSL_PREDICT_TRUE(shared_bytes_ == nullptr)) return own >= options_.max_memory_bytes;
    // Shared (ShareMemoryCap): the counter's line is written only when a
    // profile's tables grow or shrink, so reading it costs a load.
    if (own != published_) PublishMemory();
    return shared_bytes_->load(std::memory_order_relaxed) >= options_.max_memory_bytes;
  }
  void RefreshOtherBytes() const;
  // Adds MemoryBytes() - published_ to *shared_bytes_ (if shared).
  void PublishMemory() const;
  // Invariant: called wherever a part other than the aggregate's keys may
  // have grown or shrunk since the last Full() (debug builds check it).
  void TablesChanged() { other_bytes_stale_ = true; }

  void InternConstants();

  ProfileOptions options_;
  UpscalingRules upscaling_;
  bool all_values_stored_ = false;  // every declared type enabled
  int64_t start_ns_ = 0;

  // Lane or not (see tables()): exactly one of the two is set.
  SlotTables* slot_ = nullptr;
  mutable SampleTables* lane_tables_ = nullptr;  // see tables()
  std::unique_ptr<SampleTables> own_tables_;
  Aggregate aggregate_;
  DictionaryImports imports_;
  HeapDeltas heap_;
  Endpoints endpoints_;
  // A lane's: endpoints kept by name until the serializer settles them,
  // and the samples parked while its slot's lock was busy.
  EndpointNames endpoint_names_;
  PendingSamples pending_;
  OptionStrings ids_;  // not a lane's (its slot's)

  uint64_t samples_added_ = 0;
  uint64_t samples_truncated_ = 0;
  uint64_t samples_over_memory_ = 0;
  mutable size_t other_bytes_ = 0;  // MemoryBytes() - aggregate_.KeyBytes(), see Full()
  mutable bool other_bytes_stale_ = true;
  // ShareMemoryCap's counter, and what this profile added to it.
  std::atomic<size_t>* shared_bytes_ = nullptr;
  mutable size_t published_ = 0;

  // The values of the sample being added (stored_values() of them): the
  // caller's array, valid for the call, or scratch_values_.
  const int64_t* values_ = nullptr;
  std::vector<int64_t> scratch_values_;
  Scratch scratch_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_PROFILE_H_
