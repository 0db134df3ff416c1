// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SampleTables: everything a profile's sample keys refer to, interned once
// (the records: strings, mappings, functions, locations; then the stacks
// and the label sets), with the caches that find a stack or a label set
// from a sample's content by its fingerprint (fingerprint.h) instead of
// converting and looking up each of its strings.
#ifndef STACKREC_SRC_TABLES_SAMPLE_TABLES_H_
#define STACKREC_SRC_TABLES_SAMPLE_TABLES_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/status.h"
#include "base/table_memory.h"
#include "concurrent/stable_vector.h"
#include "hash/fingerprint.h"
#include "input/sample_view.h"
#include "tables/intern_tables.h"
#include "tables/interned_records.h"
#include "tables/key_index.h"
#include "tables/record_remap.h"
#include "tables/records.h"

namespace stackrec {

// The caches' keys are hashes already (fingerprint.h: AES rounds or
// wyhash folds, every bit mixed), so their maps take the key's low word
// as it is instead of mixing it once more with absl::Hash, a multiply on
// every lookup's path.
struct MixedKeyHash {
  size_t operator()(uint64_t hash) const { return hash; }
  size_t operator()(const Fingerprint& fp) const { return fp.lo; }
};

// A hash map in table memory (table_memory.h) keyed by a hash.
template <typename K, typename V>
using TableMap = absl::flat_hash_map<K, V, MixedKeyHash, std::equal_to<K>,
                                     TableAllocator<std::pair<const K, V>>>;

class SampleTables {
 public:
  SampleTables() { SeedEmptySequences(); }
  SampleTables(const SampleTables&) = delete;
  SampleTables& operator=(const SampleTables&) = delete;

  // ---- By content, through the caches -------------------------------------
  // Invariant: every stack (label set) in the stack (label) cache was
  // interned from content that passed the sample checks (sample_checks.h),
  // and the same fingerprint means the same content (fingerprint.h's
  // odds): a sample whose fingerprint the cache knows is neither converted
  // nor checked again.
  void PrefetchStack(const Fingerprint& fp) const { stack_cache_.prefetch(fp); }
  void PrefetchLabels(const Fingerprint& fp) const { label_cache_.prefetch(fp); }
  bool CachedStack(const Fingerprint& fp, uint32_t* stack) const {
    auto it = stack_cache_.find(fp);
    if (it == stack_cache_.end()) return false;
    *stack = it->second;
    return true;
  }
  bool CachedLabels(const Fingerprint& fp, uint32_t* labels) const {
    auto it = label_cache_.find(fp);
    if (it == label_cache_.end()) return false;
    *labels = it->second;
    return true;
  }
  // Interns the stack of `n` frames whose hashes (from FingerprintFrames)
  // are `frame_hashes` and whose fingerprint `fp` the stack cache does not
  // know, and caches it. `frame(i)` gives frame i as a view, asked only of
  // frames the frame cache does not know. Errors name the sample's field.
  Status InternStack(size_t n, FrameAt frame, const uint64_t* frame_hashes, const Fingerprint& fp,
                     uint32_t* id);
  Status InternStack(absl::Span<const LocationView> frames, const uint64_t* frame_hashes,
                     const Fingerprint& fp, uint32_t* id) {
    return InternStack(
        frames.size(), [frames](size_t i) { return frames[i]; }, frame_hashes, fp, id);
  }
  // Interns the label set `labels` of fingerprint `fp`, which the label
  // cache does not know, and caches it.
  Status InternLabels(absl::Span<const LabelView> labels, const Fingerprint& fp, uint32_t* id);
  // The id of a one-frame stack whose function is `name` (ASCII): the
  // pseudo-stacks of the caps.
  uint32_t InternPseudoStack(absl::string_view name);
  Status InternString(absl::string_view s, const char* what, size_t index, const char* field,
                      StringId* id);

  // ---- By ids ----------------------------------------------------------------
  // Interns a stack's location ids or a label set; one not interned before
  // gets `seed`, one interned before keeps its own.
  uint32_t InternStackIds(absl::Span<const uint32_t> locations, uint32_t seed,
                          bool known_new = false);
  uint32_t InternLabelSet(absl::Span<const Label> labels, uint32_t seed);
  RecordTables record_tables() { return records_.tables(); }
  ConstRecordTables record_tables() const { return records_.tables(); }

  // ---- Key tags ----------------------------------------------------------
  // A key's tag in the aggregate's index is a hash of its stack's and
  // label set's seeds, not of their ids. One interned from a sample's
  // content has SeedOf its fingerprint, so that the string path finds a
  // key's home slot from the two fingerprints alone and prefetches it
  // while its lookups find the ids. One interned otherwise (from a
  // dictionary) has a hash of its ids: any seed is correct, since the rows
  // confirm the key; only the prefetch depends on it.
  static uint32_t SeedOf(const Fingerprint& fp) { return static_cast<uint32_t>(fp.hi); }
  static uint32_t SeedsTag(uint32_t stack_seed, uint32_t labels_seed) {
    return KeyIndex::Tag(uint64_t{stack_seed} << 32 | labels_seed);
  }
  uint32_t stack_seed(uint32_t stack) const { return stack_seeds_[stack]; }
  uint32_t label_seed(uint32_t labels) const { return label_seeds_[labels]; }
  // Lock-free in a slot's shared tables (slot_tables.h): the seeds never
  // move (StableVector), and a sampler learns of an id only after its
  // seed was written.
  uint32_t KeyTag(SampleKey key) const {
    return SeedsTag(stack_seeds_[key.stack], label_seeds_[key.labels]);
  }

  // ---- Reading -----------------------------------------------------------
  const StringTable& strings() const { return records_.strings; }
  const ValueTable<Mapping>& mappings() const { return records_.mappings; }
  const ValueTable<Function>& functions() const { return records_.functions; }
  const ValueTable<Location>& locations() const { return records_.locations; }
  const SpanTable<uint32_t>& stacks() const { return stacks_; }
  const SpanTable<Label>& label_sets() const { return label_sets_; }
  // The fingerprint caches, for a slot that publishes them to its lanes.
  const TableMap<Fingerprint, uint32_t>& stack_cache() const { return stack_cache_; }
  const TableMap<Fingerprint, uint32_t>& label_cache() const { return label_cache_; }
  StringTable& mutable_strings() { return records_.strings; }
  // Stack `stack` and label set `labels` back as views of these tables,
  // exactly the content they were interned from (a frame without a
  // function has line 0 both ways).
  void StackViews(uint32_t stack, std::vector<LocationView>* frames) const;
  void LabelViews(uint32_t labels, std::vector<LabelView>* out) const;

  // ---- Lifetime ----------------------------------------------------------
  // Which of this table's stacks and label sets went where, in a CarryInto.
  struct Carried {
    static constexpr uint32_t kNotCarried = ~uint32_t{0};
    RecordMemo records;
    std::vector<uint32_t> stacks, label_sets;  // old id -> new, or kNotCarried
  };
  // Copies into the empty `next` every stack and label set `each_key`
  // passes to its argument, with the records they use and their cache
  // entries (not the frame and function caches: see Compact).
  void CarryInto(SampleTables* next,
                 absl::FunctionRef<void(absl::FunctionRef<void(SampleKey)>)> each_key,
                 Carried* carried) const;
  void Clear();
  // Frees the frame and function caches and the stack table's room to
  // grow, for tables that will be read before they are written again. The
  // frame cache finds the known frames of a stack seen for the first time,
  // which the steady state rarely meets, and it is the largest cache;
  // without it a new stack's frames are interned through the string
  // table, a few lookups each, and it fills again as they come.
  void Compact();
  size_t MemoryBytes() const;

 private:
  // Seed 0 for id 0 of the stacks and label sets, in empty seed tables.
  void SeedEmptySequences();
  // Adds `stack`, interned from frames of fingerprint `fp`, to the stack
  // cache (and counts it: cache_stacks_).
  void CacheStack(const Fingerprint& fp, uint32_t stack);

  InternedRecords records_;
  SpanTable<uint32_t> stacks_;
  SpanTable<Label> label_sets_;
  // Each stack's and label set's seed (see KeyTag). Invariant:
  // stack_seeds_.size() == stacks_.size() and label_seeds_.size() ==
  // label_sets_.size(), kept by InternStackIds and InternLabelSet, the only
  // places that intern into those tables but for Clear (and asserted
  // there). Id 0 of each (the empty sequence) has seed 0.
  StableVector<uint32_t> stack_seeds_;
  StableVector<uint32_t> label_seeds_;

  // Fingerprint of a sample's frames (labels) -> its stack (label set).
  TableMap<Fingerprint, uint32_t> stack_cache_;
  TableMap<Fingerprint, uint32_t> label_cache_;
  // A frame's 64-bit hash -> its location id: the fast path for the known
  // frames of a new stack.
  TableMap<uint64_t, uint32_t> frame_cache_;
  // A function's 64-bit hash (HashFunction) -> its id: a new location of
  // a known function (most of them) then interns none of its strings.
  TableMap<uint64_t, uint32_t> function_cache_;
  // Invariant: locations 1 to frame_locations_ are each in frame_cache_,
  // under the hash of a frame they are the location of (InternStack counts
  // them as it puts them there; emptying the cache sets it to 0). While
  // that is all of the locations, a frame with a function that the cache
  // does not know has a location not in them yet: a frame's content gives
  // one location, and a location with a function one content (a frame
  // without a function drops its line). So InternStack appends it without
  // looking it up (ValueTable::Append), and the location index is not
  // built.
  size_t frame_locations_ = 0;
  // Likewise for stacks (a stack's content: its frames' locations).
  // Invariant: stacks 1 to cache_stacks_ are each in stack_cache_ under the
  // fingerprint of frames they are the stack of. While that is all of
  // stacks_, and no frame without a function has reached InternStack since
  // the last Clear (such frames that differ in their line share a
  // location), a non-empty stack of frames whose fingerprint the cache does
  // not know is not in stacks_: InternStack appends it
  // (SpanTable::Append), and the stack index is not built.
  size_t cache_stacks_ = 0;
  bool frames_without_function_ = false;

  // InternStack's work, reused so that the hot path does not allocate.
  struct NewLocation {
    size_t index;
    uint64_t function_hash;  // if it has a function
    FunctionView function;   // the frame's (views into the caller's strings)
    Location loc;            // its function set in the second pass
  };
  std::vector<uint32_t> scratch_locations_;
  std::vector<NewLocation> scratch_new_locations_;
  std::vector<Label> scratch_labels_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_SAMPLE_TABLES_H_
