// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile: the single-threaded aggregate behind stackrec_profile and behind
// each slot of a recorder.
//
// A sample is reduced to a key (stack id, label-set id) whose values are
// summed; everything a key refers to is interned once. Samples with a
// timestamp are kept one by one instead. The encoder (pprof_encoder.h) reads
// the tables directly; nothing is staged as a protobuf message.
#ifndef STACKREC_SRC_PROFILE_H_
#define STACKREC_SRC_PROFILE_H_

#include <cassert>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "fingerprint.h"
#include "intern_tables.h"
#include "key_index.h"
#include "label_rules.h"
#include "profile_options.h"
#include "interned_records.h"
#include "record_remap.h"
#include "records.h"
#include "row_store.h"
#include "sample_view.h"
#include "status.h"
#include "string_table.h"
#include "table_memory.h"
#include "upscaling.h"

namespace stackrec {

// Ends a stack of location ids cut to its leaf-side `kept` (ids into
// `locations`) after `cut` more frames: the last kept frame stands alone
// (what it was inlined into is gone) and a pseudo-frame named by
// TruncatedFrameName(cut) follows. The one cut of interned stacks and
// location-id samples, in a Dictionary or a Profile; the tables must have
// room for two locations and a function more.
void EndTruncatedStack(size_t cut, StringTable* strings, ValueTable<Function>* functions,
                       ValueTable<Location>* locations, std::vector<uint32_t>* kept);

// a + b, clamped to the int64 range instead of wrapping: how sample values
// are summed everywhere.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) {
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  }
  return sum;
}

// What Profile::AddToKey changed, so that Profile::Undo can take it back.
struct KeyUndo {
  size_t key_count = 0;  // set to Profile::key_count() before the first AddToKey
  std::vector<uint32_t> rows;         // rows below key_count that changed...
  std::vector<int64_t> saved_values;  // ...and their values before, in order
};

// Frame i of a sample's frames as a view (FramesHint::frame).
using FrameAt = absl::FunctionRef<LocationView(size_t)>;

// A sample's frames given by their count, fingerprint and hashes (what
// FingerprintFrames gives for their views), and converted into views only
// as the profile asks: one that already holds the stack needs no more, and
// one that does not interns it with the hashes given (see Profile::Add),
// converting only the frames it does not know, one at a time (`frame`).
// Every string of every frame was checked by the pass that hashed them.
struct FramesHint {
  Fingerprint fingerprint;
  const uint64_t* frame_hashes;  // `count` of them
  size_t count;
  // All of the frames as views (errors name the frame's field).
  absl::FunctionRef<Status(absl::Span<const LocationView>*)> load;
  // Frame i (< count) as a view.
  FrameAt frame;
  // Whether some frame is marked inlined: its stack is then loaded whole,
  // for ValidateInlining to compare each such frame with the next.
  absl::FunctionRef<bool()> any_inlined;
};

// The caches' keys are hashes already (fingerprint.h: AES rounds or
// wyhash folds, every bit mixed), so their maps take the key's low word
// as it is instead of mixing it once more with absl::Hash, a multiply on
// every lookup's path.
struct MixedKeyHash {
  size_t operator()(uint64_t hash) const { return hash; }
  size_t operator()(const Fingerprint& fp) const { return fp.lo; }
};

// A hash map in table memory (table_memory.h), for the profile's caches,
// keyed by a hash (MixedKeyHash).
template <typename K, typename V>
using TableMap = absl::flat_hash_map<K, V, MixedKeyHash, std::equal_to<K>,
                                     TableAllocator<std::pair<const K, V>>>;

class Dictionary;

class Profile {
 public:
  // `options` must have passed MakeProfileOptions. `heap_width` is the
  // number of values each heap-delta row carries (see "Heap deltas" below);
  // 0 for a profile that holds none.
  Profile(ProfileOptions options, int64_t start_ns, size_t heap_width = 0);
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // On error nothing observable changes: a rejected sample may leave
  // interned strings or locations behind, but the encoder writes only what
  // recorded samples reference.
  //
  // With `frames`, sample.locations is ignored and the frames come from the
  // hint: a stack this profile interned before (from the same content, so
  // checked then) is found by its fingerprint, and its frames are neither
  // converted nor checked again; any other is loaded and added as usual.
  Status Add(const SampleView& sample, const FramesHint* frames = nullptr);
  // Adds a sample given by ids of a Dictionary (dictionary.h) whose current
  // generation is `generation`. What this profile imported from the
  // dictionary in that generation is found without the dictionary; the
  // rest is copied in through `with_dictionary`, which runs its argument
  // with the dictionary held still (a recorder takes a lock there). On
  // error nothing observable changes, as with Add.
  using WithDictionary =
      absl::FunctionRef<Status(absl::FunctionRef<Status(const Dictionary&)>)>;
  Status AddIds(const IdSampleView& sample, uint32_t generation,
                WithDictionary with_dictionary);
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
  Status AddUpscalingRule(UpscalingRule rule) {
    return upscaling_.Add(std::move(rule), options_);
  }
  void set_upscaling_rules(const UpscalingRules& rules) { upscaling_ = rules; }
  const UpscalingRules& upscaling_rules() const { return upscaling_; }
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

  // ---- Keys by content, for live-heap tracking (live_heap.h) -------------
  // Validates the sample's labels and strings as Add does, cuts its stack
  // to max_frames, and interns stack and labels. Unlike Add it ignores the
  // sample's values and the memory cap: a tracked object's key must exist
  // exactly, or its live totals would be wrong until it is freed (what
  // tracking adds is bounded by the recorder's max_tracked_objects).
  Status InternSampleKey(const SampleView& sample, uint32_t* stack,
                         uint32_t* labels, bool* truncated);
  // The ids here of the stack and label set `stack` and `labels` of
  // `from`, interned by content if new. Their content was valid in `from`,
  // so this cannot fail on it (it may throw std::bad_alloc, leaving only
  // unreferenced entries behind).
  void ImportKey(const Profile& from, uint32_t stack, uint32_t labels,
                 uint32_t* out_stack, uint32_t* out_labels);
  // Checks what InternSampleKey would check, interning nothing.
  Status ValidateSampleContent(const SampleView& sample) const;

  // Adds `values` (stored_values() of them) to the aggregated key (stack,
  // labels), a new key if need be, outside the memory cap. With `undo`,
  // records how to take it back: Undo(*undo) restores every key as it was
  // before the first AddToKey of that undo (keys added are removed).
  void AddToKey(uint32_t stack, uint32_t labels, const int64_t* values,
                KeyUndo* undo);
  void Undo(const KeyUndo& undo);

  // ---- Heap deltas -------------------------------------------------------
  // A second aggregate over the same interned stacks and label sets: row i
  // is the key (heap_stack(i), heap_labels(i)) with heap_width() values,
  // summed with saturation and possibly negative (an object freed gives its
  // values back). The encoder never writes it; a recorder's serializer
  // folds it into its running live totals (see recorder.cc).
  size_t heap_width() const { return heap_width_; }
  // The row of key (stack, labels), added with zero values if new.
  uint32_t HeapRow(uint32_t stack, uint32_t labels);
  // Adds `values` (heap_width() of them), or subtracts them if `negate`.
  void AddHeapDelta(uint32_t row, const int64_t* values, bool negate);
  size_t heap_count() const { return heap_keys_.size(); }
  uint32_t heap_stack(size_t i) const { return heap_keys_[i].stack; }
  uint32_t heap_labels(size_t i) const { return heap_keys_[i].labels; }
  const int64_t* heap_values(size_t i) const {
    return &heap_values_[i * heap_width_];
  }
  void ClearHeapDeltas();

  // The id of a one-frame stack whose function is `name`: the pseudo-stacks
  // the caps write. Interned if new (outside the memory cap: one entry).
  uint32_t InternPseudoStack(absl::string_view name);

  // Memory held by the tables, as counted against max_memory_bytes: what
  // the containers have allocated, not what the allocator adds on top.
  size_t MemoryBytes() const;
  // Since creation or the last reset: samples accepted,
  uint64_t samples_added() const { return samples_added_; }
  // of which accepted with their stack cut to max_frames,
  uint64_t samples_truncated() const { return samples_truncated_; }
  // and that needed a new entry while the profile was at max_memory_bytes,
  // and went to the storage-full pseudo-stack instead.
  uint64_t samples_over_memory() const { return samples_over_memory_; }

  // ---- Read side, for the encoder and for tests --------------------------
  const ProfileOptions& options() const { return options_; }
  // Number of values stored per sample: the enabled sample types.
  size_t stored_values() const { return stored_values_; }
  int64_t start_ns() const { return start_ns_; }
  const StringTable& strings() const { return records_.strings; }
  const ValueTable<Mapping>& mappings() const { return records_.mappings; }
  const ValueTable<Function>& functions() const { return records_.functions; }
  const ValueTable<Location>& locations() const { return records_.locations; }
  const SpanTable<uint32_t>& stacks() const { return stacks_; }
  const SpanTable<Label>& label_sets() const { return label_sets_; }
  const absl::flat_hash_map<uint64_t, StringId>& endpoints() const {
    return endpoints_;
  }

  // Settles the pending sample now (see Settle), for a caller that hands
  // the profile to another thread next: the lines its lookup prefetched
  // are in this thread's cache.
  void SettlePending() { Settle(); }

  // Aggregated samples: key i has stack key_stack(i), labels key_labels(i)
  // and values [key_values(i), key_values(i) + stored_values()).
  // (Both settle what is pending first: see Settle.)
  size_t key_count() const {
    Settle();
    return rows_.size();
  }
  uint32_t key_stack(size_t i) const { return static_cast<uint32_t>(RowKey(i) >> 32); }
  uint32_t key_labels(size_t i) const { return static_cast<uint32_t>(RowKey(i)); }
  const int64_t* key_values(size_t i) const {
    Settle();
    return rows_.Row(i) + 1;
  }

  // Timestamped samples, one entry each.
  size_t timed_count() const { return timed_.size(); }
  uint32_t timed_stack(size_t i) const { return timed_[i].stack; }
  uint32_t timed_labels(size_t i) const { return timed_[i].labels; }
  int64_t timed_timestamp(size_t i) const { return timed_[i].timestamp_ns; }
  const int64_t* timed_values(size_t i) const {
    return &timed_values_[i * stored_values_];
  }

  // String ids of each declared sample type's (type, unit) and of the
  // period type, interned at every (re)start.
  const std::vector<std::pair<StringId, StringId>>& sample_type_ids() const {
    return sample_type_ids_;
  }
  std::pair<StringId, StringId> period_type_ids() const {
    return period_type_ids_;
  }
  // String ids of the options written as they are (0: unset), interned at
  // every (re)start like the sample types.
  StringId default_sample_type_id() const { return default_sample_type_id_; }
  const std::vector<StringId>& comment_ids() const { return comment_ids_; }
  StringId drop_frames_id() const { return drop_frames_id_; }
  StringId keep_frames_id() const { return keep_frames_id_; }

  // Ids of the well-known keys, interned at every (re)start.
  StringId end_timestamp_key() const { return end_timestamp_key_; }
  StringId local_root_span_id_key() const { return local_root_span_id_key_; }
  StringId trace_endpoint_key() const { return trace_endpoint_key_; }

 private:
  // A key of the aggregate. As the heap index's key it keeps the slot (key
  // and row) at 12 bytes; a 64-bit key would pad it to 16.
  struct Key {
    uint32_t stack, labels;
    uint64_t Packed() const { return uint64_t{stack} << 32 | labels; }
    bool operator==(const Key& o) const { return stack == o.stack && labels == o.labels; }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.Packed());
    }
  };
  uint64_t RowKey(size_t row) const {
    return static_cast<uint64_t>(rows_.Row(row)[0]);
  }
  struct Timed {
    uint32_t stack, labels;
    int64_t timestamp_ns;
  };

  // Add, after Advance and but for the count of samples added; `labels_fp`
  // is FingerprintLabels(sample.labels), `hashed`: the frames' fingerprint
  // and hashes are known.
  Status AddSample(const SampleView& sample, const Fingerprint& labels_fp,
                   const FramesHint* hashed = nullptr);
  // Add for a stack of at most max_frames given by `frames`.
  Status AddHinted(const SampleView& sample, const FramesHint& frames,
                   const Fingerprint& labels_fp);
  // Add for a stack given by `frames` that is loaded whole as views first
  // (cut to max_frames, inlined frames, or past the memory cap).
  Status AddLoaded(SampleView sample, const FramesHint& frames, const Fingerprint& labels_fp);
  // AddIds, after Advance and but for the count; `labels_fp` is
  // FingerprintLabels(sample.labels).
  Status AddIdSample(const IdSampleView& sample, const Fingerprint& labels_fp,
                     uint32_t generation, WithDictionary with_dictionary);
  // What `imports` (imported_stacks_ or imported_label_sets_) holds for
  // dictionary id `id`: this profile's id, or kNotImported if not yet or if
  // `id` is not of the current generation.
  uint32_t Imported(const TableVector<uint32_t>& imports, uint32_t id) const;
  // Forgets what was imported from a dictionary generation other than
  // `generation` (the profile's copies stay, for its samples).
  void SyncDictionary(uint32_t generation);
  // Copies a dictionary stack (a sequence of location ids) into this
  // profile; *packed is the profile's stack id, with kTruncatedBit if the
  // stack was cut to max_frames. Errors name the sample's field.
  Status ImportStack(const Dictionary& dict, uint32_t stack_id, uint32_t* packed);
  Status ImportLocationIds(const Dictionary& dict, absl::Span<const uint32_t> ids,
                           const Fingerprint& fingerprint, uint32_t* packed);
  // Copies records from the dictionary's tables (imported_records_ their
  // memo).
  RecordRemap FromDictionary(const Dictionary& dict);
  RecordTables record_tables() { return records_.tables(); }
  // Copies a dictionary label set into this profile; *packed is the
  // profile's label-set id, with kEndTimestampBit if the set has the
  // end_timestamp_ns key. Errors name the sample's field.
  Status ImportLabelSet(const Dictionary& dict, uint32_t labels_id, uint32_t* packed);
  // Checks the values' count and points values_ at them (the enabled ones,
  // copied to scratch_values_, when some type is disabled). Inline, as
  // Full() is: on every add, and a call costs as many instructions as the
  // check.
  Status TakeValues(absl::Span<const int64_t> values) {
    if (ABSL_PREDICT_TRUE(all_values_stored_ && values.size() == stored_values_)) {
      values_ = values.data();  // every type enabled: no copy
      return OkStatus();
    }
    return TakeSomeValues(values);
  }
  // TakeValues when some type is disabled or the count is wrong.
  Status TakeSomeValues(absl::Span<const int64_t> values);
  // ValidateLabelSet's rules, and no end_timestamp_ns key on a timestamped
  // sample (ReservedKeyFree, the part that depends on the sample).
  Status ValidateLabels(absl::Span<const LabelView> labels, int64_t timestamp_ns) const;
  static Status ReservedKeyFree(absl::Span<const LabelView> labels, int64_t timestamp_ns);
  // The rest of an add once the sample's stack is known: labels, key or
  // timestamped entry, from values_. `frames` are only checked if
  // the sample ends in the storage-full pseudo-sample. Labels not
  // `labels_checked` by the caller are validated here, in full only if
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
  // AddKeyWithLabels when the sample cannot be deferred: timestamped, or
  // a table must grow first.
  Status AddKeyNow(uint32_t stack, uint32_t labels, absl::Span<const LocationView> frames,
                   absl::Span<const LabelView> label_views, int64_t timestamp_ns);
  // Each inlined frame must be followed by a frame with its address and
  // mapping.
  static Status ValidateInlining(absl::Span<const LocationView> frames);
  // `frames`, or its first max_frames frames and a pseudo-frame that says
  // how many were cut (in scratch_truncated_).
  absl::Span<const LocationView> CutToMaxFrames(absl::Span<const LocationView> frames);
  // Finds or interns a stack and a label set given by content.
  Status InternKeyContent(absl::Span<const LocationView> frames,
                          absl::Span<const LabelView> labels, uint32_t* stack,
                          uint32_t* label_set);
  // The UTF-8 checks interning would make, for samples that skip interning.
  Status ValidateStrings(absl::Span<const LocationView> frames,
                         absl::Span<const LabelView> labels) const;
  // The UTF-8 of frames[first, end), errors naming "sample.locations[i]":
  // a stack's frames past max_frames are never interned, and a string of
  // the caller's is valid UTF-8 or refused, whether it is kept or not.
  static Status ValidateFrameStrings(absl::Span<const LocationView> frames, size_t first);
  // MemoryBytes() >= max_memory_bytes, asked before anything new is
  // stored. Summing every table's size for each new key would cost a
  // hundred instructions a key, so the part that is not the keys' is kept
  // in other_bytes_ and summed again only after TablesChanged().
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool Full() const {
    if (ABSL_PREDICT_FALSE(other_bytes_stale_)) RefreshOtherBytes();
    // A table changed without TablesChanged() would make the cap late.
    assert(other_bytes_ + KeyBytes() == MemoryBytes());
    return other_bytes_ + KeyBytes() >= options_.max_memory_bytes;
  }
  void RefreshOtherBytes() const;
  size_t KeyBytes() const { return rows_.MemoryBytes() + key_index_.MemoryBytes(); }
  // Invariant: called wherever a table other than rows_ and key_index_ may
  // have grown or shrunk since the last Full() (debug builds check it).
  void TablesChanged() { other_bytes_stale_ = true; }
  // Adds `values` to the storage-full pseudo-sample.
  Status AddOverflow(absl::Span<const LocationView> frames,
                     absl::Span<const LabelView> labels);
  // Adds `values` (stored_values_ of them) to key (stack, labels), a new
  // key if need be; what is pending first.
  void AggregateInto(uint32_t stack, uint32_t labels, const int64_t* values);
  // The same for `key`, tagged `tag`, with nothing pending that must come
  // before it.
  void AggregateNow(Key key, uint32_t tag, const int64_t* values);
  // The tag of key (stack, labels) in the index: a hash of the stack's and
  // the label set's seeds (stack_seeds_), not of their ids.
  uint32_t KeyTag(uint32_t stack, uint32_t labels) const {
    assert(stack_seeds_.size() == stacks_.size() && label_seeds_.size() == label_sets_.size());
    return SeedsTag(stack_seeds_[stack], label_seeds_[labels]);
  }
  static uint32_t SeedsTag(uint32_t stack_seed, uint32_t labels_seed) {
    return KeyIndex::Tag(uint64_t{stack_seed} << 32 | labels_seed);
  }
  // The seed of a stack or label set interned from content of fingerprint
  // `fp`, which the string path can compute before it knows the ids.
  static uint32_t SeedOf(const Fingerprint& fp) { return static_cast<uint32_t>(fp.hi); }
  // Interns a stack's location ids or a label set; one not interned before
  // gets `seed`, one interned before keeps its own. A stack `known_new`
  // (cache_stacks_) is appended without a lookup.
  uint32_t InternStackIds(absl::Span<const uint32_t> locations, uint32_t seed,
                          bool known_new = false);
  uint32_t InternLabelSet(absl::Span<const Label> labels, uint32_t seed);
  // The row of key `packed` (tagged `tag`: KeyTag), or KeyIndex::kNone.
  uint32_t FindKey(uint64_t packed, uint32_t tag) const {
    return key_index_.Find(packed, tag, [this](uint32_t row) { return RowKey(row); });
  }
  // Adds `values` (stored_values_ of them) to key row `row`, or makes them
  // the values of a new row for `packed`.
  void SumInto(uint32_t row, const int64_t* values);
  void InsertKey(uint64_t packed, uint32_t tag, const int64_t* values);

  // ---- The pending sample -------------------------------------------------
  // A sample of a key (no timestamp) is not looked up in its own call: the
  // key index and the rows are the largest tables (with the heavy
  // workload's 450,000 keys, 8 MB and 18 MB) and each read is a cache
  // miss. The lookup is spread over the two calls that follow, each
  // reading what the one before fetched, while the caller builds its next
  // sample in between:
  //   - in its own call, the key's home slot is prefetched and the sample
  //     kept (key, tag, values: the slot stage);
  //   - at the start of the next Add or AddIds (Advance), its probe chain
  //     is read: no entry of its tag, and the key is new and inserted;
  //     otherwise the first row of its tag is prefetched (the row stage);
  //   - at the start of the call after, that row's key is compared and the
  //     values summed into it, or, when another key has the same 32-bit
  //     tag, the key is found further on or inserted.
  // A sample is part of the profile from the moment Add returns: every
  // reader of the rows, and every call that may change them otherwise,
  // settles both stages first (Settle), in order, so rows are inserted and
  // summed in the order the samples came.
  //
  // Invariant: while a sample is pending, rows_ and key_index_ change only
  // by settling, and when it was deferred both had room for two more keys
  // (one for each stage) and the profile was under its memory cap; so
  // settling never allocates and cannot fail (see AddKeyWithLabels). A new
  // key settled goes in even if the other stage's went in first: the cap
  // is passed by one key, as when a key is checked against it and
  // inserted, or by two on a tag coincidence.
  //
  // Const, because the readers are (key_count, key_values): it changes how
  // the profile is stored, not what it holds. Like every Profile method it
  // is for one thread at a time, reads included.
  void Settle() const {
    if (slot_pending_ || pending_row_ != KeyIndex::kNone) {
      const_cast<Profile*>(this)->SettleAll();
    }
  }
  // Moves each stage on by one: the row stage settled, then the slot stage
  // read into the row stage (or inserted); at the start of Add and AddIds.
  void Advance() {
    if (pending_row_ != KeyIndex::kNone) SettleRow();
    if (slot_pending_) ReadSlot();
  }
  void SettleAll() {
    Advance();
    if (pending_row_ != KeyIndex::kNone) SettleRow();
  }
  void SettleRow();
  void ReadSlot();  // with no row stage pending
  // Drops what is pending, for the calls that clear the rows.
  void DropPending() {
    slot_pending_ = false;
    pending_row_ = KeyIndex::kNone;
  }
  Status InternString(absl::string_view s, const char* what, size_t index,
                      const char* field, StringId* id);
  // Interns the stack of `n` frames whose hashes (from FingerprintFrames)
  // are `frame_hashes`, after stack_cache_ missed their fingerprint;
  // `frame(i)` gives frame i as a view, asked only of frames the frame
  // cache does not know. `seed` is SeedOf the stack's fingerprint. The
  // caller puts the stack in stack_cache_ with CacheStack.
  Status InternStack(size_t n, FrameAt frame, const uint64_t* frame_hashes, uint32_t seed,
                     uint32_t* id);
  Status InternStack(absl::Span<const LocationView> frames, const uint64_t* frame_hashes,
                     uint32_t seed, uint32_t* id) {
    return InternStack(
        frames.size(), [frames](size_t i) { return frames[i]; }, frame_hashes, seed, id);
  }
  // Adds `stack`, interned from frames of fingerprint `fp`, to stack_cache_
  // (and counts it: cache_stacks_).
  void CacheStack(const Fingerprint& fp, uint32_t stack);
  // The part of AddHinted for a stack the profile does not hold, at
  // neither max_frames nor the memory cap, with no inlined frame: interned
  // from the frames it does not know alone.
  Status AddNewStack(const SampleView& sample, const Fingerprint& labels_fp,
                     const FramesHint& frames);
  Status InternLabels(absl::Span<const LabelView> labels, uint32_t seed, uint32_t* id);
  void InternConstants();

  ProfileOptions options_;
  UpscalingRules upscaling_;
  size_t stored_values_ = 0;
  bool all_values_stored_ = false;  // every declared type enabled
  int64_t start_ns_ = 0;

  InternedRecords records_;
  SpanTable<uint32_t> stacks_;
  SpanTable<Label> label_sets_;
  // Each stack's and label set's seed, its part of its keys' tags (KeyTag).
  // One interned from a sample's content has SeedOf its fingerprint, so
  // that the string path finds a key's home slot from the two fingerprints
  // alone and prefetches it while its lookups find the ids (with 450,000
  // keys the index is far out of cache). One interned otherwise (imported
  // from the dictionary) has a hash of its ids: any seed is correct, since
  // the rows confirm the key, only the prefetch depends on it.
  // Invariant: stack_seeds_.size() == stacks_.size() and
  // label_seeds_.size() == label_sets_.size(), kept by InternStackIds and
  // InternLabelSet, the only places that intern into those tables but for
  // their Clear (id 0, the empty sequence, seed 0).
  TableVector<uint32_t> stack_seeds_ = TableVector<uint32_t>(1, 0);
  TableVector<uint32_t> label_seeds_ = TableVector<uint32_t>(1, 0);

  // The aggregated samples, a row each (row_store.h): the key (stack << 32
  // | labels), then its stored_values_ values. Beside its key, a row's
  // values are summed where the lookup just read, and the index needs no
  // copy of the key, only its 32-bit tag (key_index.h).
  RowStore rows_{1};  // of 1 + stored_values_ words, from the constructor on
  KeyIndex key_index_;
  // The pending samples (Settle): each one's key, tag and values
  // (stored_values_ of them, sized by the constructor). In the slot stage
  // if slot_pending_; in the row stage unless pending_row_ is kNone, the
  // first row of its tag on its probe chain.
  struct PendingSample {
    Key key{0, 0};
    uint32_t tag = 0;
    std::vector<int64_t> values;
  };
  bool slot_pending_ = false;
  PendingSample at_slot_;
  uint32_t pending_row_ = KeyIndex::kNone;
  PendingSample at_row_;
  mutable size_t other_bytes_ = 0;  // MemoryBytes() - KeyBytes(), see Full()
  mutable bool other_bytes_stale_ = true;
  std::vector<Timed> timed_;
  std::vector<int64_t> timed_values_;
  absl::flat_hash_map<uint64_t, StringId> endpoints_;
  absl::flat_hash_map<StringId, int64_t> endpoint_counts_;

  // Heap deltas: (stack, labels) -> index into heap_keys_.
  size_t heap_width_ = 0;
  absl::flat_hash_map<Key, uint32_t> heap_index_;
  std::vector<Key> heap_keys_;
  std::vector<int64_t> heap_values_;

  // Fingerprint of a sample's frames (labels) -> its stack (label set) id:
  // the fast path of Add for input seen before (see fingerprint.h).
  TableMap<Fingerprint, uint32_t> stack_cache_;
  TableMap<Fingerprint, uint32_t> label_cache_;
  // A frame's 64-bit hash -> its location id: the fast path for the known
  // frames of a new stack.
  TableMap<uint64_t, uint32_t> frame_cache_;
  // A function's 64-bit hash (HashFunction) -> its id: a new location of
  // a known function (most of them: a function is seen at several lines)
  // then interns none of its strings.
  TableMap<uint64_t, uint32_t> function_cache_;
  // Invariant: locations 1 to frame_locations_ are each in frame_cache_,
  // under the hash of a frame they are the location of (InternStack counts
  // them as it puts them there; emptying the cache sets it to 0). While
  // that is all of the locations, a frame with a function that the cache
  // does not know has a location not in them yet: a frame's content gives
  // one location, and a location with a function one content (a frame
  // without a function drops its line). So InternStack appends it without
  // looking it up (ValueTable::Append), and the location index is not
  // built: typical's first interval, 29,706 locations.
  size_t frame_locations_ = 0;
  // Likewise for stacks (a stack's content: its frames' locations).
  // Invariant: stacks 1 to cache_stacks_ are each in stack_cache_ under the
  // fingerprint of frames they are the stack of. While that is all of
  // stacks_, and no frame without a function has reached InternStack since
  // the last Reset (frames_without_function_: such frames that differ in
  // their line share a location), a non-empty stack of frames whose
  // fingerprint the cache does not know is not in stacks_: InternStack
  // appends it (SpanTable::Append), and the stack index is not built.
  size_t cache_stacks_ = 0;
  bool frames_without_function_ = false;

  // What was imported from dictionary generation dict_generation_: a
  // dictionary index -> this profile's id, kNotImported if not yet (stack
  // ids carry kTruncatedBit, label-set ids kEndTimestampBit), and
  // location-id sequences by fingerprint.
  static constexpr uint32_t kNotImported = ~uint32_t{0};
  static constexpr uint32_t kTruncatedBit = uint32_t{1} << 31;
  static constexpr uint32_t kEndTimestampBit = uint32_t{1} << 31;
  uint32_t dict_generation_ = kNotImported;
  RecordMemo imported_records_;
  TableVector<uint32_t> imported_stacks_, imported_label_sets_;
  TableMap<Fingerprint, uint32_t> imported_id_stacks_;

  std::vector<std::pair<StringId, StringId>> sample_type_ids_;
  std::pair<StringId, StringId> period_type_ids_;
  StringId default_sample_type_id_ = 0, drop_frames_id_ = 0, keep_frames_id_ = 0;
  std::vector<StringId> comment_ids_;
  StringId end_timestamp_key_ = 0, local_root_span_id_key_ = 0,
           trace_endpoint_key_ = 0;

  uint64_t samples_added_ = 0;
  uint64_t samples_truncated_ = 0;
  uint64_t samples_over_memory_ = 0;

  // Scratch buffers reused across Add calls, so the hot path does not
  // allocate once warmed up.
  std::vector<LocationView> scratch_truncated_;
  std::string truncated_name_;
  std::vector<uint32_t> scratch_locations_;
  // A frame InternStack does not know, between its passes.
  struct NewLocation {
    size_t index;
    uint64_t function_hash;  // if it has a function
    FunctionView function;   // the frame's (views into the caller's strings)
    Location loc;            // its function set in the second pass
  };
  // InternStack's new locations, interned once all of their functions'
  // and then their own slots are prefetched.
  std::vector<NewLocation> scratch_new_locations_;
  std::vector<uint64_t> scratch_frame_hashes_;
  std::vector<uint32_t> scratch_frame_indices_;
  std::vector<Label> scratch_labels_;
  std::vector<int64_t> scratch_values_;
  // The values of the sample being added (stored_values_ of them): the
  // caller's array, valid for the call, or scratch_values_.
  const int64_t* values_ = nullptr;
  // ImportKey's views of the other profile's content.
  std::vector<LocationView> scratch_import_frames_;
  std::vector<LabelView> scratch_import_labels_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_H_
