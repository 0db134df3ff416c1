// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile: what stackrec_profile is, and what each lane of a recorder adds
// to. Single-threaded: one thread at a time calls it. A facade over its
// parts: the sample's checks (sample_checks.h), the interned tables with
// their caches (sample_tables.h), the summed samples (aggregate.h), what
// was imported from a dictionary (dictionary_imports.h), the live-heap
// deltas (heap_deltas.h) and the endpoints (endpoints.h). It owns the
// options, the memory cap and the order of the steps of an add; the
// sampler's path is profile_add.cc, the rest (lifetime, copies, reading)
// profile.cc. The encoders read the parts directly, through Parts()
// (profile_parts.h).
//
// Its tables are its own, or another's that it is bound to (BindTables):
// a recorder lane's profile interns into its slot's tables, which the
// lane (recorder/sample_lane.h) lets it do only under the slot's lock,
// and finds known entries lock-free by itself, through the steps of an add
// that this class hands out (BeginAdd, AddKnown, FinishAdd).
#ifndef STACKREC_SRC_PROFILE_PROFILE_H_
#define STACKREC_SRC_PROFILE_PROFILE_H_

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
#include "concurrent/bytes_share.h"
#include "concurrent/published_index.h"
#include "hash/fingerprint.h"
#include "hash/hashed_frames.h"
#include "input/profile_options.h"
#include "input/sample_checks.h"
#include "input/sample_view.h"
#include "input/trace_link.h"
#include "input/upscaling.h"
#include "profile/dictionary_imports.h"
#include "profile/endpoints.h"
#include "profile/profile_parts.h"
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
  // A profile over tables that are not its own, given by BindTables before
  // any other call: it keeps its own rows of values, dictionary imports and
  // endpoints, and interns into those tables. Their owner counts their
  // memory and compacts, replaces and resets them (Reset, Compact,
  // CarryOver and KeepHeapRows are for a profile with tables of its own).
  struct BorrowedTables {};
  Profile(ProfileOptions options, int64_t start_ns, BorrowedTables);
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // Binds a profile made with BorrowedTables to `tables`, whose options'
  // strings are `ids` and whose storage-full pseudo-stack is
  // `storage_full_stack` (both outlive the binding), or binds it again
  // after their owner replaced them: with `carried`, the dictionary
  // imports follow where CarryInto put each entry (or, if memory for that
  // is short, are forgotten, to be imported again); without, they are
  // forgotten. Again only with no samples (ClearSamples first).
  void BindTables(SampleTables* tables, const OptionStrings* ids, uint32_t storage_full_stack,
                  const SampleTables::Carried* carried = nullptr) noexcept;
  bool has_tables() const { return tables_ != nullptr; }

  // Makes this profile one of several that share one max_memory_bytes (a
  // recorder slot's lanes): it publishes its MemoryBytes() into *total,
  // adding the change whenever it checks the cap, and the cap is reached
  // when their sum is (concurrent/bytes_share.h). Every owner sharing the
  // total must publish into it; one destroyed withdraws what it published.
  // CarryOver's profile shares it too. Null: this profile's cap is its own
  // (the default).
  void ShareMemoryCap(std::atomic<size_t>* total);

  // On error nothing observable changes: a rejected sample may leave
  // interned strings or locations behind, but the encoder writes only what
  // recorded samples reference.
  //
  // With `frames`, sample.locations is ignored and the frames come from
  // there: a stack this profile interned before (from the same content, so
  // checked then) is found by its fingerprint, and its frames are neither
  // converted nor checked again; any other is loaded and added as usual.
  Status Add(const SampleView& sample, const HashedFrames* frames = nullptr);
  // Adds a sample given by ids of a Dictionary (dictionary.h) whose current
  // generation is `generation`. What this profile imported from the
  // dictionary in that generation is found without the dictionary; the
  // rest is copied in through `with_dictionary`, which runs its argument
  // with the dictionary held still (a recorder takes a lock there). On
  // error nothing observable changes, as with Add.
  using WithDictionary = absl::FunctionRef<Status(absl::FunctionRef<Status(const Dictionary&)>)>;
  Status AddIds(const IdSampleView& sample, uint32_t generation, WithDictionary with_dictionary);
  // Copies the stack or label set `id`, just interned into `dict`, into
  // this profile now rather than at the first sample that names it, which
  // then costs what every later one does. (Interning happens once; the
  // first sample of a stack is on a sampler's hot path.) Not at the memory
  // cap, where AddIds imports nothing either, and not if memory runs out:
  // this only saves work, and what it leaves half done is found and
  // finished by the import of the first sample. The caller holds `dict`
  // still.
  enum class Interned { kStack, kLabelSet };
  void ImportInterned(const Dictionary& dict, Interned what, uint32_t id) noexcept;
  Status SetEndpoint(uint64_t local_root_span_id, absl::string_view endpoint);
  // Adds `value` to the hit count of `endpoint` (saturating).
  Status AddEndpointCount(absl::string_view endpoint, int64_t value);
  // The hit counts, by endpoint name.
  std::vector<std::pair<std::string, int64_t>> EndpointCounts() const;
  // Endpoints kept elsewhere by name (a lane's, recorder/endpoint_names.h),
  // which `add` interns into the strings it is given and adds to the
  // endpoints it is given. All or nothing: throws std::bad_alloc with the
  // endpoints as they were.
  void AddEndpoints(absl::FunctionRef<void(StringTable*, Endpoints*)> add);
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
  // The same for `from` over the same tables (two lanes of one slot): by
  // key ids, nothing interned. Throws std::bad_alloc with no sample or
  // endpoint changed.
  void MergeSameTables(const Profile& from);
  // Checks what InternSampleKey would check, interning nothing.
  Status ValidateSampleContent(const SampleView& sample) const;

  // ---- An add in steps, for an adder that finds known entries itself ------
  // A recorder lane (recorder/sample_lane.h) finds the stacks and label
  // sets its slot knows in the slot's published indexes, without the lock
  // that interning into the shared tables takes. It runs Add's steps
  // through these, its index in place of the tables' caches; Add and AddIds
  // run them over the caches. Each step is Add's own code, not a copy.
  struct AddStart {
    Fingerprint labels_fp;  // FingerprintLabels(sample.labels)
    bool whole = false;     // `frames` given, at most max_frames of them
  };
  // The first steps of every add by content: the timestamp checked, the
  // labels hashed and their slot in `index` fetched before the deferred
  // samples are settled (Advance), so that its miss overlaps theirs, then
  // the stack's slot and the key's home fetched. `index` is this profile's
  // tables or the adder's index (PrefetchLabels, PrefetchStack).
  template <typename Index>
  ABSL_ATTRIBUTE_ALWAYS_INLINE Status BeginAdd(const SampleView& sample, const HashedFrames* frames,
                                               const Index& index, AddStart* start);
  // Add for a sample whose stack and label set the adder found by content
  // (`key`, whose tag is `tag`): what a cache hit would check (the values,
  // the reserved keys against the timestamp), then the key's row. The
  // tables are not touched but for the seeds, which may be read while
  // another thread interns (stable_vector.h). Not at the memory cap.
  ABSL_ATTRIBUTE_ALWAYS_INLINE Status AddKnown(const SampleView& sample, SampleKey key,
                                               uint32_t tag);
  // The rest of an add begun with BeginAdd (and Advance since, if other
  // samples were added meanwhile), through the tables' caches; counted.
  Status FinishAdd(const SampleView& sample, const HashedFrames* frames, const AddStart& start);
  // AddIds's first steps, as BeginAdd's: the labels given as strings are
  // hashed into *labels_fp and their slot in `index` fetched.
  template <typename Index>
  ABSL_ATTRIBUTE_ALWAYS_INLINE Status BeginAddIds(const IdSampleView& sample, const Index& index,
                                                  Fingerprint* labels_fp);
  // AddIds for a sample whose stack and label set this profile imported
  // in `generation` (a label set given as strings found by
  // find_labels(labels_fp, &entry), a PublishedIndex::Entry), without the dictionary or the tables'
  // caches: true, with the add's status in *status, if so; false, changing nothing, if not (or at
  // the memory cap, or with a label-set id and a link, which reads the tables).
  template <typename FindLabels>
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool AddIdsIfImported(const IdSampleView& sample,
                                                     uint32_t generation,
                                                     const Fingerprint& labels_fp,
                                                     FindLabels&& find_labels, Status* status);
  // The rest of an add by ids begun with BeginAddIds (and Advance since,
  // if other samples were added meanwhile); counted.
  Status FinishAddIds(const IdSampleView& sample, const Fingerprint& labels_fp, uint32_t generation,
                      WithDictionary with_dictionary);
  // Settles the oldest deferred sample: room for the next add to defer.
  void Advance() { aggregate_.Advance(); }
  // For a sample the adder keeps aside to add later (a lane's parked
  // samples), its frames loaded: checked in full now, as interning would,
  // so that adding it later cannot fail, then handed to keep(sample), or,
  // at the memory cap, added to the storage-full pseudo-sample now, which
  // needs no new entry; counted as added once kept or added (a keep that
  // throws leaves the counts as they were).
  Status AcceptForLater(const SampleView& sample, absl::FunctionRef<void(const SampleView&)> keep);
  // Adds a sample AcceptForLater kept, in the order kept (not counted
  // again). Throws std::bad_alloc.
  void AddAccepted(const SampleView& sample, const Fingerprint& labels_fp);

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
  // (memory_bytes.h): borrowed tables count in their owner's.
  size_t MemoryBytes() const;
  // Whether the memory cap is reached: asked before anything new is
  // stored (see Full below).
  bool AtMemoryCap() const { return Full(); }
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
    return {options_, upscaling_, tables(), aggregate_, endpoints_, *ids_, start_ns_};
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

  // The tables: this profile's own, or those BindTables gave it.
  SampleTables& tables() const { return *tables_; }

  // Adds values_ to the key (stack and label set known, tagged `tag`): no
  // table is touched.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void AddKnownKey(SampleKey key, uint32_t tag, int64_t timestamp_ns) {
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
  // The error of a label set given by id that has the key the sample's
  // timestamp is written under.
  static Status EndTimestampLabelsError(uint32_t labels_id);
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
  // The id of the storage-full pseudo-stack: interned at its first use, or
  // up front by the owner of borrowed tables.
  uint32_t StorageFullStack() {
    if (ABSL_PREDICT_FALSE(storage_full_stack_ == 0)) {
      storage_full_stack_ = InternPseudoStack(kStorageFullFrame);
    }
    return storage_full_stack_;
  }

  // ---- The sampler's path (profile_add.cc) --------------------------------
  // MergeFrom's and MergeSameTables's second half: `from`'s keys and
  // timestamped samples added under key_here(stack, label set), all or
  // nothing, then `endpoints` (the merged copy) and the counts.
  void AddSamplesOf(const Profile& from, Endpoints endpoints,
                    absl::FunctionRef<SampleKey(uint32_t, uint32_t)> key_here);
  // Add and FinishAdd once BeginAdd is done.
  Status AddContent(const SampleView& sample, const HashedFrames* frames, const AddStart& start);
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
    if (ABSL_PREDICT_TRUE(!memory_share_.joined())) return own >= options_.max_memory_bytes;
    // Shared (ShareMemoryCap): the total's line is written only when a
    // profile's tables grow or shrink, so reading it costs a load.
    memory_share_.Publish(own);
    return memory_share_.total() >= options_.max_memory_bytes;
  }
  void RefreshOtherBytes() const;
  // Publishes MemoryBytes() into the shared total now (ShareMemoryCap).
  void PublishMemory() const;
  // Invariant: called wherever a part other than the aggregate's keys may
  // have grown or shrunk since the last Full() (debug builds check it).
  void TablesChanged() { other_bytes_stale_ = true; }

  void InternConstants();

  ProfileOptions options_;
  UpscalingRules upscaling_;
  bool all_values_stored_ = false;  // every declared type enabled
  int64_t start_ns_ = 0;

  // The tables, and the strings of the options in them: own_tables_ and
  // own_ids_, or borrowed (BindTables), when own_tables_ is null.
  std::unique_ptr<SampleTables> own_tables_;
  SampleTables* tables_ = nullptr;
  OptionStrings own_ids_;
  const OptionStrings* ids_ = &own_ids_;
  uint32_t storage_full_stack_ = 0;  // 0: not interned yet (a stack has a frame)
  Aggregate aggregate_;
  DictionaryImports imports_;
  HeapDeltas heap_;
  Endpoints endpoints_;

  uint64_t samples_added_ = 0;
  uint64_t samples_truncated_ = 0;
  uint64_t samples_over_memory_ = 0;
  mutable size_t other_bytes_ = 0;  // MemoryBytes() - aggregate_.KeyBytes(), see Full()
  mutable bool other_bytes_stale_ = true;
  // ShareMemoryCap's total, and what this profile published into it.
  mutable BytesShare memory_share_;

  // The values of the sample being added (stored_values() of them): the
  // caller's array, valid for the call, or scratch_values_.
  const int64_t* values_ = nullptr;
  std::vector<int64_t> scratch_values_;
  Scratch scratch_;
};

template <typename Index>
inline Status Profile::BeginAdd(const SampleView& sample, const HashedFrames* frames,
                                const Index& index, AddStart* start) {
  STACKREC_RETURN_IF_ERROR(CheckTimestamp(sample.timestamp_ns));
  // The labels are hashed, and their slot in the index fetched, before the
  // last two samples are settled (Advance), so that its miss overlaps
  // theirs. The stack's slot and the key index's are fetched after
  // Advance: fetched before it too, they evicted what Advance was about to
  // read.
  start->labels_fp = FingerprintLabels(sample.labels);
  index.PrefetchLabels(start->labels_fp);
  // A stack cut to max_frames is fingerprinted again once cut (AddSample).
  start->whole = frames != nullptr && frames->count <= options_.max_frames;
  aggregate_.Advance();
  if (start->whole) {
    // With 20,000 stacks (the heavy workload) the stack cache is not in L2.
    index.PrefetchStack(frames->fingerprint);
    // And the key's home slot in the index, from the seeds the two
    // fingerprints give (SampleTables::KeyTag): its stack's and its label
    // set's, when both were interned from their content, as on this path.
    aggregate_.Prefetch(SampleTables::SeedsTag(SampleTables::SeedOf(frames->fingerprint),
                                               SampleTables::SeedOf(start->labels_fp)));
  }
  return OkStatus();
}

inline Status Profile::AddKnown(const SampleView& sample, SampleKey key, uint32_t tag) {
  // What a cache hit skips (sample_tables.h): the content is neither
  // converted nor checked again; only the values and the reserved keys
  // against the timestamp are new.
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  STACKREC_RETURN_IF_ERROR(CheckReservedKeys(sample.labels, sample.timestamp_ns));
  AddKnownKey(key, tag, sample.timestamp_ns);
  ++samples_added_;
  return OkStatus();
}

template <typename Index>
inline Status Profile::BeginAddIds(const IdSampleView& sample, const Index& index,
                                   Fingerprint* labels_fp) {
  STACKREC_RETURN_IF_ERROR(CheckTimestamp(sample.timestamp_ns));
  // As BeginAdd; the key's home is fetched as soon as the stack is known
  // (ImportedStack).
  *labels_fp = FingerprintLabels(sample.labels);
  if (sample.labels_id == 0) index.PrefetchLabels(*labels_fp);
  aggregate_.Advance();
  return OkStatus();
}

template <typename FindLabels>
inline bool Profile::AddIdsIfImported(const IdSampleView& sample, uint32_t generation,
                                      const Fingerprint& labels_fp, FindLabels&& find_labels,
                                      Status* status) {
  const bool by_labels_id = sample.labels_id != 0;
  if (generation != imports_.generation() || (by_labels_id && sample.has_link) || Full()) {
    return false;
  }
  *status = TakeValues(sample.values);
  if (status->ok()) *status = CheckIdShape(sample);
  if (!status->ok()) return true;
  Fingerprint fingerprint;
  const uint32_t packed = ImportedStack(sample, labels_fp, &fingerprint);
  if (packed == DictionaryImports::kNotImported) return false;
  uint32_t labels;
  uint32_t labels_seed = 0;
  if (by_labels_id) {
    labels = imports_.LabelSet(sample.labels_id);
    if (labels == DictionaryImports::kNotImported) return false;
    if (sample.timestamp_ns != 0 && (labels & DictionaryImports::kEndTimestampBit) != 0) {
      *status = EndTimestampLabelsError(sample.labels_id);
      return true;
    }
    labels &= ~DictionaryImports::kEndTimestampBit;
    labels_seed = tables().label_seed(labels);
  } else {
    PublishedIndex::Entry entry{};
    if (!find_labels(labels_fp, &entry)) return false;
    *status = CheckReservedKeys(sample.labels, sample.timestamp_ns);
    if (!status->ok()) return true;
    labels = entry.id;
    labels_seed = entry.seed;
  }
  if ((packed & DictionaryImports::kTruncatedBit) != 0) ++samples_truncated_;
  const SampleKey key{packed & ~DictionaryImports::kTruncatedBit, labels};
  AddKnownKey(key, SampleTables::SeedsTag(tables().stack_seed(key.stack), labels_seed),
              sample.timestamp_ns);
  ++samples_added_;
  *status = OkStatus();
  return true;
}

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_PROFILE_H_
