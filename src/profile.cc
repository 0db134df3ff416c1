// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "profile.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <new>
#include <utility>

#include "dictionary.h"
#include "table_growth.h"
#include "utf8.h"

namespace stackrec {

void EndTruncatedStack(size_t cut, StringTable* strings, ValueTable<Function>* functions,
                       ValueTable<Location>* locations, std::vector<uint32_t>* kept) {
  Location last = locations->Get(kept->back());
  if (last.inlined) {
    last.inlined = false;
    kept->back() = locations->Intern(last);
  }
  Function fn;
  // An ASCII name: interning cannot fail on bad input.
  (void)strings->Intern(TruncatedFrameName(cut), &fn.name);
  Location pseudo;
  pseudo.function = functions->Intern(fn);
  kept->push_back(locations->Intern(pseudo));
}

namespace {

bool IsNoMapping(const MappingView& m) {
  return m.memory_start == 0 && m.memory_limit == 0 && m.file_offset == 0 &&
         m.filename.empty() && m.build_id.empty();
}

bool IsNoFunction(const FunctionView& f) {
  return f.name.empty() && f.system_name.empty() && f.filename.empty() &&
         f.start_line == 0;
}

}  // namespace


Profile::Profile(ProfileOptions options, int64_t start_ns, size_t heap_width)
    : options_(std::move(options)),
      start_ns_(start_ns),
      heap_width_(heap_width) {
  if (options_.enabled.empty()) {
    options_.enabled.assign(options_.sample_types.size(), true);
  }
  for (bool on : options_.enabled) stored_values_ += on ? 1 : 0;
  all_values_stored_ = stored_values_ == options_.sample_types.size();
  rows_ = RowStore(1 + stored_values_);  // the key, then the values
  // Sized once: TakeValues overwrites it in place.
  scratch_values_.resize(stored_values_);
  at_slot_.values.resize(stored_values_);
  at_row_.values.resize(stored_values_);
  InternConstants();
}

void Profile::InternConstants() {
  // Interned up front so that serialization never has to add a string. The
  // options were validated as UTF-8 and the keys are ASCII, so none of these
  // can fail; the label keys reach the output only if a sample uses them.
  auto intern = [this](absl::string_view s) {
    StringId id = 0;
    const bool valid = records_.strings.Intern(s, &id);
    (void)valid;
    return id;
  };
  sample_type_ids_.clear();
  for (const ValueType& t : options_.sample_types) {
    sample_type_ids_.emplace_back(intern(t.type), intern(t.unit));
  }
  period_type_ids_ = {intern(options_.period_type.type),
                      intern(options_.period_type.unit)};
  default_sample_type_id_ = intern(options_.default_sample_type);
  comment_ids_.clear();
  for (const std::string& c : options_.comments) comment_ids_.push_back(intern(c));
  drop_frames_id_ = intern(options_.drop_frames);
  keep_frames_id_ = intern(options_.keep_frames);
  end_timestamp_key_ = intern(kEndTimestampKey);
  local_root_span_id_key_ = intern(kLocalRootSpanIdKey);
  trace_endpoint_key_ = intern(kTraceEndpointKey);
}

void Profile::Reset(int64_t start_ns) {
  TablesChanged();
  records_.strings.Clear();
  records_.mappings.Clear();
  records_.functions.Clear();
  records_.locations.Clear();
  stacks_.Clear();
  label_sets_.Clear();
  TableVector<uint32_t>(1, 0).swap(stack_seeds_);
  TableVector<uint32_t>(1, 0).swap(label_seeds_);
  DropPending();
  key_index_.Clear();
  stack_cache_ = {};
  label_cache_ = {};
  frame_cache_ = {};
  function_cache_ = {};
  frame_locations_ = 0;
  cache_stacks_ = 0;
  frames_without_function_ = false;
  rows_.Clear();
  std::vector<Timed>().swap(timed_);
  std::vector<int64_t>().swap(timed_values_);
  endpoints_ = {};
  endpoint_counts_ = {};
  samples_added_ = samples_truncated_ = samples_over_memory_ = 0;
  // The tables the imports pointed into are gone.
  SyncDictionary(kNotImported);
  heap_index_ = {};
  std::vector<Key>().swap(heap_keys_);
  std::vector<int64_t>().swap(heap_values_);
  start_ns_ = start_ns;
  InternConstants();
}

void Profile::ClearSamples(int64_t start_ns) {
  TablesChanged();
  // The keys' storage is released, not kept for the next profile: a
  // recorder's cleared slot waits a whole interval while the other fills,
  // and keeping its key index and rows (3 MB at 60,000 keys) would hold
  // that memory twice. Growing them again (measured both ways with the
  // workloads bench's steady-state rows) costs less than that bench's noise.
  DropPending();
  key_index_.Clear();
  rows_.Clear();
  std::vector<Timed>().swap(timed_);
  std::vector<int64_t>().swap(timed_values_);
  endpoints_ = {};
  endpoint_counts_ = {};
  samples_added_ = samples_truncated_ = samples_over_memory_ = 0;
  heap_index_.clear();
  heap_keys_.clear();
  heap_values_.clear();
  start_ns_ = start_ns;
}

void Profile::Compact() {
  TablesChanged();
  frame_cache_ = {};
  function_cache_ = {};
  frame_locations_ = 0;
  // The stacks are the largest table, and its room to grow is idle until
  // the program runs new code.
  stacks_.ShrinkToFit();
  stack_seeds_.shrink_to_fit();
}

std::unique_ptr<Profile> Profile::CarryOver(int64_t start_ns) const {
  // Heap deltas are not carried: the serializer has consumed them.
  auto next = std::make_unique<Profile>(options_, start_ns, heap_width_);
  next->upscaling_ = upscaling_;
  constexpr uint32_t kNotYet = ~uint32_t{0};
  // Old id -> id in `next`, filled as entries are first reached.
  RecordMemo records;
  RecordRemap remap(records_.tables(), next->record_tables(), &records);
  std::vector<uint32_t> stacks(stacks_.size(), kNotYet);
  std::vector<uint32_t> label_sets(label_sets_.size(), kNotYet);
  auto string = [&](StringId id) { return remap.String(id); };
  auto location = [&](uint32_t id) { return remap.LocationId(id); };
  std::vector<uint32_t> frames;
  auto stack = [&](uint32_t id) {
    if (stacks[id] != kNotYet) return;
    frames.clear();
    for (uint32_t loc : stacks_.Get(id)) frames.push_back(location(loc));
    stacks[id] = next->InternStackIds(frames, stack_seeds_[id]);
  };
  std::vector<Label> labels;
  auto label_set = [&](uint32_t id) {
    if (label_sets[id] != kNotYet) return;
    labels.clear();
    for (Label l : label_sets_.Get(id)) {
      l.key = string(l.key);
      l.str = string(l.str);
      l.num_unit = string(l.num_unit);
      labels.push_back(l);
    }
    label_sets[id] = next->InternLabelSet(labels, label_seeds_[id]);
  };
  for (size_t i = 0; i < key_count(); ++i) {
    stack(key_stack(i));
    label_set(key_labels(i));
  }
  for (const Timed& t : timed_) {
    stack(t.stack);
    label_set(t.labels);
  }
  for (const auto& [fingerprint, id] : stack_cache_) {
    if (stacks[id] != kNotYet) {
      EmplaceGrowingFirst(next->stack_cache_, fingerprint, stacks[id]);
    }
  }
  for (const auto& [fingerprint, id] : label_cache_) {
    if (label_sets[id] != kNotYet) {
      EmplaceGrowingFirst(next->label_cache_, fingerprint, label_sets[id]);
    }
  }
  // Imports from the dictionary stay valid for what was carried over.
  next->dict_generation_ = dict_generation_;
  // `remap` maps this profile's ids to next's: a record's memo holds only
  // what was carried over (id 0, none, maps to itself), the stacks' and
  // label sets' vectors every id.
  auto carry = [](const TableVector<uint32_t>& from, const auto& remap, uint32_t flags,
                  TableVector<uint32_t>* to) {
    to->assign(from.size(), kNotImported);
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i] == kNotImported) continue;
      const uint32_t old = from[i] & ~flags;
      const uint32_t mapped =
          old == 0 && flags == 0 ? 0 : old < remap.size() ? remap[old] : kNotYet;
      if (mapped != kNotYet) (*to)[i] = mapped | (from[i] & flags);
    }
  };
  carry(imported_records_.strings, records.strings, 0, &next->imported_records_.strings);
  carry(imported_records_.mappings, records.mappings, 0, &next->imported_records_.mappings);
  carry(imported_records_.functions, records.functions, 0, &next->imported_records_.functions);
  carry(imported_records_.locations, records.locations, 0, &next->imported_records_.locations);
  carry(imported_stacks_, stacks, kTruncatedBit, &next->imported_stacks_);
  carry(imported_label_sets_, label_sets, kEndTimestampBit, &next->imported_label_sets_);
  for (const auto& [fingerprint, packed] : imported_id_stacks_) {
    const uint32_t mapped = stacks[packed & ~kTruncatedBit];
    if (mapped != kNotYet) {
      EmplaceGrowingFirst(next->imported_id_stacks_, fingerprint,
                          mapped | (packed & kTruncatedBit));
    }
  }
  return next;
}

Status Profile::InternString(absl::string_view s, const char* what,
                             size_t index, const char* field, StringId* id) {
  if (records_.strings.Intern(s, id)) return OkStatus();
  return Error(Code::kInvalidArgument, "%s[%zu].%s is not valid UTF-8", what,
               index, field);
}

uint32_t Profile::InternStackIds(absl::Span<const uint32_t> locations, uint32_t seed,
                                 bool known_new) {
  ReserveFor(stack_seeds_, 1);  // first: the push below cannot throw
  const uint32_t id = known_new ? stacks_.Append(locations) : stacks_.Intern(locations);
  if (id == stack_seeds_.size()) stack_seeds_.push_back(seed);
  return id;
}

void Profile::CacheStack(const Fingerprint& fp, uint32_t stack) {
  EmplaceGrowingFirst(stack_cache_, fp, stack);
  if (stack == cache_stacks_ + 1) ++cache_stacks_;
}

uint32_t Profile::InternLabelSet(absl::Span<const Label> labels, uint32_t seed) {
  ReserveFor(label_seeds_, 1);
  const uint32_t id = label_sets_.Intern(labels);
  if (id == label_seeds_.size()) label_seeds_.push_back(seed);
  return id;
}

namespace {

// The seed of a stack or label set imported from the dictionary
// (Profile::stack_seeds_).
template <typename E>
uint32_t ContentSeed(absl::Span<const E> seq) {
  return static_cast<uint32_t>(absl::HashOf(seq));
}

// How many frames ahead of the one looked up InternStack prefetches the
// frame cache's slot. A new stack's frames are mostly known ones (stacks
// share their root side), and with tens of thousands of locations each
// lookup misses the cache; every frame's hash is known before the loop, so
// the misses can overlap. 8 timed best of 4, 8 and 16.
constexpr size_t kCacheAhead = 8;

}  // namespace

Status Profile::InternStack(size_t n, FrameAt frame, const uint64_t* frame_hashes,
                            uint32_t seed, uint32_t* id) {
  static constexpr const char* kWhat = "sample.locations";
  scratch_locations_.clear();
  scratch_new_locations_.clear();
  // Whether a new frame with a function can be appended (frame_locations_).
  const bool append = frame_locations_ + 1 == records_.locations.size();
  for (size_t i = 0; i < kCacheAhead && i < n; ++i) frame_cache_.prefetch(frame_hashes[i]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kCacheAhead < n) frame_cache_.prefetch(frame_hashes[i + kCacheAhead]);
    if (auto it = frame_cache_.find(frame_hashes[i]); it != frame_cache_.end()) {
      scratch_locations_.push_back(it->second);
      continue;
    }
    const LocationView f = frame(i);
    Location loc;
    loc.address = f.address;
    loc.inlined = f.inlined;
    // A line belongs to a function (pprof's Line has a function_id); a frame
    // without one keeps its address only, so frames differing only in such
    // a line are the same location.
    loc.line = IsNoFunction(f.function) ? 0 : f.line;
    if (!IsNoMapping(f.mapping)) {
      Mapping m;
      m.memory_start = f.mapping.memory_start;
      m.memory_limit = f.mapping.memory_limit;
      m.file_offset = f.mapping.file_offset;
      STACKREC_RETURN_IF_ERROR(InternString(f.mapping.filename, kWhat, i,
                                            "mapping.filename", &m.filename));
      STACKREC_RETURN_IF_ERROR(InternString(f.mapping.build_id, kWhat, i,
                                            "mapping.build_id", &m.build_id));
      loc.mapping = records_.mappings.Intern(m);
    }
    // A new location's function is looked up in the second pass below,
    // its slot fetched here: most new locations have a known function,
    // found with one lookup, and those lookups missed the cache one after
    // the other. The function's view is kept for the second pass (7 words;
    // a copy of the whole frame's view cost what the prefetch saved).
    NewLocation n{i, 0, f.function, loc};
    if (!IsNoFunction(f.function)) {
      n.function_hash = HashFunction(f.function);
      function_cache_.prefetch(n.function_hash);
    } else {
      frames_without_function_ = true;
    }
    scratch_new_locations_.push_back(n);
    scratch_locations_.push_back(0);
  }
  for (NewLocation& n : scratch_new_locations_) {
    // Invariant: every function in function_cache_ was interned from
    // content that passed the UTF-8 checks, and the same hash means the
    // same content (fingerprint.h's odds).
    // A frame without a function stays its address alone (loc.function 0).
    if (!IsNoFunction(n.function)) {
      if (auto it = function_cache_.find(n.function_hash); it != function_cache_.end()) {
        n.loc.function = it->second;
      } else {
        Function fn;
        fn.start_line = n.function.start_line;
        STACKREC_RETURN_IF_ERROR(
            InternString(n.function.name, kWhat, n.index, "function.name", &fn.name));
        STACKREC_RETURN_IF_ERROR(InternString(n.function.system_name, kWhat, n.index,
                                              "function.system_name", &fn.system_name));
        STACKREC_RETURN_IF_ERROR(InternString(n.function.filename, kWhat, n.index,
                                              "function.filename", &fn.filename));
        const uint32_t function = records_.functions.Intern(fn);
        EmplaceGrowingFirst(function_cache_, n.function_hash, function);
        n.loc.function = function;
      }
    }
    // Interned in the third pass, once every new location's slot is on its
    // way: a new stack's few new locations (typical: 6 of 70 frames) each
    // missed the cache on the location index, one after the other.
    if (!append || n.loc.function == 0) records_.locations.Prefetch(n.loc);
  }
  for (const NewLocation& n : scratch_new_locations_) {
    const uint64_t hash = frame_hashes[n.index];
    uint32_t location;
    if (append && n.loc.function != 0) {
      // New, unless an earlier frame of this stack was the same one
      // (recursion): the cache has it then. Both grow first, so that
      // either both take the location or neither does.
      records_.locations.ReserveOne();
      GrowBeforeInsert(frame_cache_);
      const auto [it, added] = frame_cache_.try_emplace(hash, records_.locations.next_id());
      if (added) records_.locations.Append(n.loc);
      location = it->second;
    } else {
      location = records_.locations.Intern(n.loc);
      EmplaceGrowingFirst(frame_cache_, hash, location);
    }
    // Now in the cache (or it was already, at or below the count).
    if (location == frame_locations_ + 1) ++frame_locations_;
    scratch_locations_[n.index] = location;
  }
  // Known to be new (cache_stacks_): the caller's stack_cache_ missed.
  const bool new_stack =
      n > 0 && !frames_without_function_ && cache_stacks_ + 1 == stacks_.size();
  *id = InternStackIds(scratch_locations_, seed, new_stack);
  return OkStatus();
}


Status Profile::ValidateLabels(absl::Span<const LabelView> labels,
                               int64_t timestamp_ns) const {
  if (labels.empty()) return OkStatus();  // the id path's usual case
  STACKREC_RETURN_IF_ERROR(ValidateLabelSet(labels, "sample.labels"));
  return ReservedKeyFree(labels, timestamp_ns);
}

Status Profile::ReservedKeyFree(absl::Span<const LabelView> labels, int64_t timestamp_ns) {
  if (timestamp_ns == 0) return OkStatus();
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].key == kEndTimestampKey) {
      return Error(Code::kInvalidArgument,
                   "sample.labels[%zu].key \"end_timestamp_ns\" is reserved for the sample's "
                   "timestamp_ns",
                   i);
    }
  }
  return OkStatus();
}

namespace {

bool SameMapping(const MappingView& a, const MappingView& b) {
  return a.memory_start == b.memory_start && a.memory_limit == b.memory_limit &&
         a.file_offset == b.file_offset && a.filename == b.filename &&
         a.build_id == b.build_id;
}

}  // namespace

Status Profile::ValidateInlining(absl::Span<const LocationView> frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (!frames[i].inlined) continue;
    if (i + 1 == frames.size()) {
      return Error(Code::kInvalidArgument,
                   "sample.locations[%zu].inlined is set on the last (root) frame, "
                   "which has no caller to be inlined into",
                   i);
    }
    const LocationView& caller = frames[i + 1];
    if (caller.address != frames[i].address || !SameMapping(caller.mapping, frames[i].mapping)) {
      return Error(Code::kInvalidArgument,
                   "sample.locations[%zu].inlined is set but sample.locations[%zu] has "
                   "another address or mapping",
                   i, i + 1);
    }
  }
  return OkStatus();
}

Status Profile::InternLabels(absl::Span<const LabelView> labels, uint32_t seed,
                             uint32_t* id) {
  static constexpr const char* kWhat = "sample.labels";
  scratch_labels_.clear();
  for (size_t i = 0; i < labels.size(); ++i) {
    Label l;
    l.num = labels[i].num;
    STACKREC_RETURN_IF_ERROR(InternString(labels[i].key, kWhat, i, "key", &l.key));
    STACKREC_RETURN_IF_ERROR(InternString(labels[i].str, kWhat, i, "str", &l.str));
    STACKREC_RETURN_IF_ERROR(
        InternString(labels[i].num_unit, kWhat, i, "num_unit", &l.num_unit));
    scratch_labels_.push_back(l);
  }
  *id = InternLabelSet(scratch_labels_, seed);
  return OkStatus();
}

namespace {

template <typename Map>
size_t MapBytes(const Map& m) {
  // One control byte per slot, plus the slots.
  return m.capacity() * (sizeof(typename Map::value_type) + 1);
}

template <typename V>
size_t VectorBytes(const V& v) {
  return v.capacity() * sizeof(typename V::value_type);
}

}  // namespace

void Profile::RefreshOtherBytes() const {
  other_bytes_ = MemoryBytes() - KeyBytes();
  other_bytes_stale_ = false;
}

size_t Profile::MemoryBytes() const {
  return records_.MemoryBytes() + stacks_.MemoryBytes() + label_sets_.MemoryBytes() +
         MapBytes(endpoints_) + MapBytes(stack_cache_) +
         MapBytes(label_cache_) + MapBytes(frame_cache_) + MapBytes(function_cache_) +
         MapBytes(imported_id_stacks_) +
         imported_records_.MemoryBytes() +
         VectorBytes(imported_stacks_) + VectorBytes(imported_label_sets_) + KeyBytes() +
         VectorBytes(stack_seeds_) + VectorBytes(label_seeds_) +
         VectorBytes(timed_) +
         VectorBytes(timed_values_) +
         MapBytes(heap_index_) + VectorBytes(heap_keys_) + VectorBytes(heap_values_);
}

Status Profile::ValidateStrings(absl::Span<const LocationView> frames,
                                absl::Span<const LabelView> labels) const {
  STACKREC_RETURN_IF_ERROR(ValidateFrameStrings(frames, 0));
  return ValidateLabelStrings(labels, "sample.labels");
}

Status Profile::ValidateFrameStrings(absl::Span<const LocationView> frames, size_t first) {
  struct Field {
    absl::string_view s;
    const char* name;
  };
  for (size_t i = first; i < frames.size(); ++i) {
    const LocationView& f = frames[i];
    for (const Field& field : {Field{f.mapping.filename, "mapping.filename"},
                               Field{f.mapping.build_id, "mapping.build_id"},
                               Field{f.function.name, "function.name"},
                               Field{f.function.system_name, "function.system_name"},
                               Field{f.function.filename, "function.filename"}}) {
      if (!IsValidUtf8(field.s)) {
        return Error(Code::kInvalidArgument,
                     "sample.locations[%zu].%s is not valid UTF-8", i, field.name);
      }
    }
  }
  return OkStatus();
}


void Profile::AggregateInto(uint32_t stack, uint32_t labels, const int64_t* values) {
  Settle();
  AggregateNow(Key{stack, labels}, KeyTag(stack, labels), values);
}

void Profile::AggregateNow(Key key, uint32_t tag, const int64_t* values) {
  const uint64_t packed = key.Packed();
  if (const uint32_t row = FindKey(packed, tag); row != KeyIndex::kNone) {
    SumInto(row, values);
  } else {
    InsertKey(packed, tag, values);
  }
}

void Profile::SumInto(uint32_t row, const int64_t* values) {
  int64_t* sums = rows_.Row(row) + 1;
  for (size_t i = 0; i < stored_values_; ++i) {
    sums[i] = SaturatingAdd(sums[i], values[i]);
  }
}

void Profile::SettleRow() {
  const uint32_t candidate = pending_row_;
  pending_row_ = KeyIndex::kNone;
  if (RowKey(candidate) == at_row_.key.Packed()) {
    SumInto(candidate, at_row_.values.data());
    return;
  }
  // Another key of the same 32-bit tag came first on the chain: the key
  // may be further on, or new (the room it takes was there when the
  // sample was deferred).
  AggregateNow(at_row_.key, at_row_.tag, at_row_.values.data());
}

void Profile::ReadSlot() {
  slot_pending_ = false;
  const uint32_t candidate = key_index_.FirstWithTag(at_slot_.tag);
  if (candidate == KeyIndex::kNone) {
    InsertKey(at_slot_.key.Packed(), at_slot_.tag, at_slot_.values.data());
    return;
  }
  // A row may straddle two cache lines.
  const int64_t* row = rows_.Row(candidate);
  __builtin_prefetch(row);
  __builtin_prefetch(row + stored_values_);
  pending_row_ = candidate;
  std::swap(at_row_, at_slot_);
}

void Profile::InsertKey(uint64_t packed, uint32_t tag, const int64_t* values) {
  // Both grow first, so that an allocation failure leaves the profile as
  // it was; then nothing below can throw.
  rows_.ReserveOne();
  key_index_.ReserveOne();
  const auto row_number = static_cast<uint32_t>(rows_.size());
  int64_t* row = rows_.Append();
  row[0] = static_cast<int64_t>(packed);
  for (size_t i = 0; i < stored_values_; ++i) row[1 + i] = values[i];
  key_index_.Insert(tag, row_number);
}

uint32_t Profile::InternPseudoStack(absl::string_view name) {
  TablesChanged();
  LocationView pseudo;
  pseudo.function.name = name;
  const auto frames = absl::MakeConstSpan(&pseudo, 1);
  uint64_t hash;
  const Fingerprint fp = FingerprintFrames(frames, &hash);
  if (auto it = stack_cache_.find(fp); it != stack_cache_.end()) return it->second;
  uint32_t stack = 0;
  // An ASCII name: interning cannot fail on bad input.
  const Status interned = InternStack(frames, &hash, SeedOf(fp), &stack);
  (void)interned;
  CacheStack(fp, stack);
  return stack;
}

Status Profile::AddOverflow(absl::Span<const LocationView> frames,
                            absl::Span<const LabelView> labels) {
  // Bad input is still refused, though this path interns nothing of it.
  STACKREC_RETURN_IF_ERROR(ValidateStrings(frames, labels));
  // One pseudo-stack, no labels: a single key however much is refused, so
  // the totals stay right and the profile stops growing (but for this key).
  AggregateInto(InternPseudoStack(kStorageFullFrame), 0, values_);
  ++samples_over_memory_;
  return OkStatus();
}

Status Profile::Add(const SampleView& sample, const FramesHint* frames) {
  // The labels are hashed, and their slot in the label cache fetched,
  // before the last two samples are settled (Advance), so that its miss
  // overlaps theirs. The stack cache's and the key index's slots are
  // fetched after Advance: fetched before it too, they evicted what Advance
  // was about to read.
  const Fingerprint labels_fp = FingerprintLabels(sample.labels);
  label_cache_.prefetch(labels_fp);
  // A stack cut to max_frames is fingerprinted again once cut (AddSample).
  const bool whole = frames != nullptr && frames->count <= options_.max_frames;
  Advance();
  if (whole) {
    // With 20,000 stacks (the heavy workload) the stack cache is not in L2.
    stack_cache_.prefetch(frames->fingerprint);
    // And the key's home slot in the index, from the seeds the two
    // fingerprints give (KeyTag): its stack's and its label set's, when
    // both were interned from their content, as on this path.
    key_index_.Prefetch(SeedsTag(SeedOf(frames->fingerprint), SeedOf(labels_fp)));
  }
  const Status status = frames == nullptr ? AddSample(sample, labels_fp)
                        : whole           ? AddHinted(sample, *frames, labels_fp)
                                          : AddLoaded(sample, *frames, labels_fp);
  if (status.ok()) ++samples_added_;
  return status;
}

Status Profile::AddHinted(const SampleView& sample, const FramesHint& frames,
                          const Fingerprint& labels_fp) {
  if (auto it = stack_cache_.find(frames.fingerprint); it != stack_cache_.end()) {
    // Invariant: every stack in stack_cache_ was interned from content
    // that passed ValidateInlining and the UTF-8 checks, and the same
    // fingerprint means the same content. So the frames are not read.
    STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
    return AddKey(it->second, /*truncated=*/false, /*frames=*/{}, sample.labels, labels_fp,
                  sample.timestamp_ns, /*labels_checked=*/false);
  }
  // A new stack. Its frames are converted one by one as InternStack meets
  // frames it does not know (a new stack's frames are mostly known ones),
  // unless the stack needs them all: cut to max_frames (AddSample
  // fingerprints it again), past the memory cap (AddOverflow checks every
  // frame's UTF-8), or with inlined frames (ValidateInlining). Converting
  // them all would check again what the hash had checked.
  if (!Full() && !frames.any_inlined()) return AddNewStack(sample, labels_fp, frames);
  return AddLoaded(sample, frames, labels_fp);
}

Status Profile::AddLoaded(SampleView sample, const FramesHint& frames,
                          const Fingerprint& labels_fp) {
  STACKREC_RETURN_IF_ERROR(frames.load(&sample.locations));
  return AddSample(sample, labels_fp, &frames);
}

Status Profile::AddNewStack(const SampleView& sample, const Fingerprint& labels_fp,
                            const FramesHint& frames) {
  // As AddSample, in its order, but for what cannot fail here: the frames'
  // strings were checked as they were hashed and no frame is inlined.
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  STACKREC_RETURN_IF_ERROR(ValidateLabels(sample.labels, sample.timestamp_ns));
  TablesChanged();  // before, as in AddSample
  uint32_t stack;
  STACKREC_RETURN_IF_ERROR(InternStack(frames.count, frames.frame, frames.frame_hashes,
                                       SeedOf(frames.fingerprint), &stack));
  CacheStack(frames.fingerprint, stack);
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
  int64_t* const out = scratch_values_.data();  // stored_values_ of them
  values_ = out;
  size_t j = 0;
  for (size_t i = 0; i < declared; ++i) {
    if (options_.enabled[i]) out[j++] = values[i];
  }
  return OkStatus();
}

Status Profile::AddSample(const SampleView& sample, const Fingerprint& labels_fp,
                          const FramesHint* hashed) {
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  STACKREC_RETURN_IF_ERROR(ValidateLabels(sample.labels, sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(ValidateInlining(sample.locations));

  const bool truncated = sample.locations.size() > options_.max_frames;
  if (truncated) {
    STACKREC_RETURN_IF_ERROR(ValidateFrameStrings(sample.locations, options_.max_frames));
  }
  const absl::Span<const LocationView> frames = CutToMaxFrames(sample.locations);

  // Find or intern the stack, the label set and the key. At the memory cap,
  // whatever would need a new entry goes to the storage-full pseudo-sample.
  // The frames' hashes come with the hint unless the stack was cut.
  Fingerprint stack_fp;
  const uint64_t* frame_hashes;
  if (hashed != nullptr && !truncated) {
    stack_fp = hashed->fingerprint;
    frame_hashes = hashed->frame_hashes;
  } else {
    scratch_frame_hashes_.resize(frames.size());
    stack_fp = FingerprintFrames(frames, scratch_frame_hashes_.data());
    frame_hashes = scratch_frame_hashes_.data();
  }
  uint32_t stack;
  if (auto it = stack_cache_.find(stack_fp); it != stack_cache_.end()) {
    stack = it->second;
  } else {
    if (Full()) return AddOverflow(frames, sample.labels);
    // Before: what an intern that fails or throws half way leaves counts too.
    TablesChanged();
    STACKREC_RETURN_IF_ERROR(InternStack(frames, frame_hashes, SeedOf(stack_fp), &stack));
    CacheStack(stack_fp, stack);
  }
  return AddKey(stack, truncated, frames, sample.labels, labels_fp, sample.timestamp_ns,
                /*labels_checked=*/true);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status Profile::AddKey(
    uint32_t stack, bool truncated, absl::Span<const LocationView> frames,
    absl::Span<const LabelView> label_views, const Fingerprint& labels_fp, int64_t timestamp_ns,
    bool labels_checked) {
  uint32_t labels;
  if (auto it = label_cache_.find(labels_fp); it != label_cache_.end()) {
    // Invariant: every label set in label_cache_ was interned from content
    // that passed ValidateLabelSet and the UTF-8 checks, and the same
    // fingerprint means the same content; only the timestamp is new.
    if (!labels_checked) STACKREC_RETURN_IF_ERROR(ReservedKeyFree(label_views, timestamp_ns));
    labels = it->second;
  } else {
    if (!labels_checked) STACKREC_RETURN_IF_ERROR(ValidateLabels(label_views, timestamp_ns));
    if (Full()) return AddOverflow(frames, label_views);
    TablesChanged();  // before, as above
    STACKREC_RETURN_IF_ERROR(InternLabels(label_views, SeedOf(labels_fp), &labels));
    EmplaceGrowingFirst(label_cache_, labels_fp, labels);
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
  // Deferred (see Settle) while settling cannot need memory.
  if (ABSL_PREDICT_TRUE(timestamp_ns == 0 && rows_.HasRoom(2) && key_index_.HasRoom(2) &&
                        !Full())) {
    assert(!slot_pending_);  // Add and AddIds moved it on first (Advance)
    const uint32_t tag = KeyTag(stack, labels);
    key_index_.Prefetch(tag);
    slot_pending_ = true;
    at_slot_.key = Key{stack, labels};
    at_slot_.tag = tag;
    std::copy_n(values_, stored_values_, at_slot_.values.data());
    return OkStatus();
  }
  return AddKeyNow(stack, labels, frames, label_views, timestamp_ns);
}

Status Profile::AddKeyNow(uint32_t stack, uint32_t labels, absl::Span<const LocationView> frames,
                          absl::Span<const LabelView> label_views, int64_t timestamp_ns) {
  if (timestamp_ns != 0) {
    if (Full()) return AddOverflow(frames, label_views);
    ReserveFor(timed_, 1);
    ReserveFor(timed_values_, stored_values_);
    TablesChanged();
    timed_values_.insert(timed_values_.end(), values_, values_ + stored_values_);
    timed_.push_back(Timed{stack, labels, timestamp_ns});
    return OkStatus();
  }
  // Looked up now, after what is pending.
  Settle();
  const uint32_t tag = KeyTag(stack, labels);
  const uint64_t packed = Key{stack, labels}.Packed();
  if (const uint32_t row = FindKey(packed, tag); row != KeyIndex::kNone) {
    SumInto(row, values_);
    return OkStatus();
  }
  if (Full()) return AddOverflow(frames, label_views);
  InsertKey(packed, tag, values_);
  return OkStatus();
}

absl::Span<const LocationView> Profile::CutToMaxFrames(
    absl::Span<const LocationView> frames) {
  // Deeper than max_frames: keep the leaf side and say how much was cut.
  if (frames.size() <= options_.max_frames) return frames;
  scratch_truncated_.assign(frames.begin(), frames.begin() + options_.max_frames);
  // The frame the last kept one was inlined into is cut: it stands alone.
  scratch_truncated_.back().inlined = false;
  truncated_name_ = TruncatedFrameName(frames.size() - options_.max_frames);
  LocationView pseudo;
  pseudo.function.name = truncated_name_;
  scratch_truncated_.push_back(pseudo);
  return scratch_truncated_;
}

Status Profile::InternKeyContent(absl::Span<const LocationView> frames,
                                 absl::Span<const LabelView> labels,
                                 uint32_t* stack, uint32_t* label_set) {
  scratch_frame_hashes_.resize(frames.size());
  const Fingerprint stack_fp = FingerprintFrames(frames, scratch_frame_hashes_.data());
  if (auto it = stack_cache_.find(stack_fp); it != stack_cache_.end()) {
    *stack = it->second;
  } else {
    STACKREC_RETURN_IF_ERROR(
        InternStack(frames, scratch_frame_hashes_.data(), SeedOf(stack_fp), stack));
    CacheStack(stack_fp, *stack);
  }
  const Fingerprint labels_fp = FingerprintLabels(labels);
  if (auto it = label_cache_.find(labels_fp); it != label_cache_.end()) {
    *label_set = it->second;
  } else {
    STACKREC_RETURN_IF_ERROR(InternLabels(labels, SeedOf(labels_fp), label_set));
    EmplaceGrowingFirst(label_cache_, labels_fp, *label_set);
  }
  return OkStatus();
}

Status Profile::InternSampleKey(const SampleView& sample, uint32_t* stack,
                                uint32_t* labels, bool* truncated) {
  TablesChanged();
  STACKREC_RETURN_IF_ERROR(ValidateLabels(sample.labels, sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(ValidateInlining(sample.locations));
  *truncated = sample.locations.size() > options_.max_frames;
  if (*truncated) {
    STACKREC_RETURN_IF_ERROR(ValidateFrameStrings(sample.locations, options_.max_frames));
  }
  return InternKeyContent(CutToMaxFrames(sample.locations), sample.labels, stack,
                          labels);
}

Status Profile::ValidateSampleContent(const SampleView& sample) const {
  STACKREC_RETURN_IF_ERROR(ValidateLabels(sample.labels, sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(ValidateInlining(sample.locations));
  return ValidateStrings(sample.locations, sample.labels);
}

void Profile::ImportKey(const Profile& from, uint32_t stack, uint32_t labels,
                        uint32_t* out_stack, uint32_t* out_labels) {
  TablesChanged();
  // Back to views of `from`'s strings, then through the fingerprint caches:
  // a stack this profile knows costs one hash of its content and one
  // lookup, and the views are exactly what interned it (a frame without a
  // function has line 0 both ways), so the content round-trips.
  scratch_import_frames_.clear();
  for (uint32_t id : from.stacks_.Get(stack)) {
    const Location& loc = from.records_.locations.Get(id);
    LocationView v;
    if (loc.mapping != 0) {
      const Mapping& m = from.records_.mappings.Get(loc.mapping);
      v.mapping.memory_start = m.memory_start;
      v.mapping.memory_limit = m.memory_limit;
      v.mapping.file_offset = m.file_offset;
      v.mapping.filename = from.records_.strings.Get(m.filename);
      v.mapping.build_id = from.records_.strings.Get(m.build_id);
    }
    if (loc.function != 0) {
      const Function& f = from.records_.functions.Get(loc.function);
      v.function.name = from.records_.strings.Get(f.name);
      v.function.system_name = from.records_.strings.Get(f.system_name);
      v.function.filename = from.records_.strings.Get(f.filename);
      v.function.start_line = f.start_line;
    }
    v.address = loc.address;
    v.line = loc.line;
    v.inlined = loc.inlined;
    scratch_import_frames_.push_back(v);
  }
  scratch_import_labels_.clear();
  for (const Label& l : from.label_sets_.Get(labels)) {
    LabelView v;
    v.key = from.records_.strings.Get(l.key);
    v.str = from.records_.strings.Get(l.str);
    v.num = l.num;
    v.num_unit = from.records_.strings.Get(l.num_unit);
    scratch_import_labels_.push_back(v);
  }
  // Valid UTF-8 already: only an allocation can fail, and it throws.
  const Status interned = InternKeyContent(scratch_import_frames_, scratch_import_labels_,
                                           out_stack, out_labels);
  (void)interned;
}

void Profile::AddToKey(uint32_t stack, uint32_t labels, const int64_t* values,
                       KeyUndo* undo) {
  Settle();
  const uint64_t packed = Key{stack, labels}.Packed();
  const uint32_t tag = KeyTag(stack, labels);
  if (const uint32_t row = FindKey(packed, tag); row != KeyIndex::kNone) {
    if (undo != nullptr && row < undo->key_count) {
      ReserveFor(undo->rows, 1);
      ReserveFor(undo->saved_values, stored_values_);
      undo->rows.push_back(row);
      const int64_t* old = key_values(row);
      undo->saved_values.insert(undo->saved_values.end(), old, old + stored_values_);
    }
    SumInto(row, values);
  } else {
    InsertKey(packed, tag, values);
  }
}

void Profile::Undo(const KeyUndo& undo) {
  Settle();
  // The keys added since, newest first, unindexed by their tags.
  for (size_t i = key_count(); i > undo.key_count; --i) {
    const auto row = static_cast<uint32_t>(i - 1);
    key_index_.Erase(KeyTag(key_stack(row), key_labels(row)), row);
  }
  rows_.Truncate(std::min(key_count(), undo.key_count));
  for (size_t i = 0; i < undo.rows.size(); ++i) {
    std::copy_n(&undo.saved_values[i * stored_values_], stored_values_,
                rows_.Row(undo.rows[i]) + 1);
  }
}

uint32_t Profile::HeapRow(uint32_t stack, uint32_t labels) {
  TablesChanged();
  const Key key{stack, labels};
  if (auto it = heap_index_.find(key); it != heap_index_.end()) return it->second;
  // Grow the vectors before indexing the key: a throw changes nothing.
  ReserveFor(heap_keys_, 1);
  ReserveFor(heap_values_, heap_width_);
  const auto row = static_cast<uint32_t>(heap_keys_.size());
  EmplaceGrowingFirst(heap_index_, key, row);
  heap_keys_.push_back(key);
  heap_values_.insert(heap_values_.end(), heap_width_, 0);
  return row;
}

void Profile::AddHeapDelta(uint32_t row, const int64_t* values, bool negate) {
  int64_t* sums = &heap_values_[size_t{row} * heap_width_];
  for (size_t i = 0; i < heap_width_; ++i) {
    if (!negate) {
      sums[i] = SaturatingAdd(sums[i], values[i]);
    } else if (__builtin_sub_overflow(sums[i], values[i], &sums[i])) {
      // (Not SaturatingAdd of -v: -INT64_MIN does not exist.)
      sums[i] = values[i] < 0 ? std::numeric_limits<int64_t>::max()
                              : std::numeric_limits<int64_t>::min();
    }
  }
}

void Profile::ClearHeapDeltas() {
  TablesChanged();
  heap_index_.clear();
  heap_keys_.clear();
  heap_values_.clear();
}

// ---- Pre-interned ids ---------------------------------------------------

inline uint32_t Profile::Imported(const TableVector<uint32_t>& imports, uint32_t id) const {
  const uint32_t index = id & Dictionary::kIndexMask;
  return id >> Dictionary::kIndexBits == dict_generation_ && index < imports.size()
             ? imports[index]
             : kNotImported;
}

Status Profile::AddIds(const IdSampleView& sample, uint32_t generation,
                       WithDictionary with_dictionary) {
  // Labels given as strings are hashed, and their slot in the label cache
  // fetched, before the last samples are settled (as in Add); the key's
  // home slot as soon as the stack is known (below), so that the misses
  // overlap.
  const Fingerprint labels_fp = FingerprintLabels(sample.labels);
  if (sample.labels_id == 0) label_cache_.prefetch(labels_fp);
  Advance();  // as in Add
  const Status status = AddIdSample(sample, labels_fp, generation, with_dictionary);
  if (status.ok()) ++samples_added_;
  return status;
}

// Inlined into AddIds, its one caller: no call, no second prologue.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status Profile::AddIdSample(
    const IdSampleView& sample, const Fingerprint& labels_fp, uint32_t generation,
    WithDictionary with_dictionary) {
  STACKREC_RETURN_IF_ERROR(TakeValues(sample.values));
  // sample.labels are validated by AddKey (or before AddOverflow below).
  if (sample.stack_id != 0 && !sample.location_ids.empty()) {
    return Error(Code::kInvalidArgument, "sample.stack_id and sample.location_ids are both set");
  }
  if (sample.labels_id != 0 && !sample.labels.empty()) {
    return Error(Code::kInvalidArgument, "sample.labels_id and sample.labels are both set");
  }
  if (generation != dict_generation_) SyncDictionary(generation);
  // The fast path: a stack and a label set imported in this generation, no
  // dictionary.
  // With labels as strings, the key's home slot is fetched as soon as the
  // stack's seed is known, with the seed the label set has if it was
  // interned from these strings (as in Add): a stack imported by location
  // ids has SeedOf their fingerprint (ImportLocationIds), one by stack id
  // its own.
  const bool by_labels_id = sample.labels_id != 0;
  uint32_t packed = kNotImported;
  Fingerprint fingerprint{};
  if (sample.stack_id != 0) {
    packed = Imported(imported_stacks_, sample.stack_id);
    if (packed != kNotImported && !by_labels_id) {
      key_index_.Prefetch(SeedsTag(stack_seeds_[packed & ~kTruncatedBit], SeedOf(labels_fp)));
    }
  } else {
    fingerprint = FingerprintIds(sample.location_ids);
    if (!by_labels_id) key_index_.Prefetch(SeedsTag(SeedOf(fingerprint), SeedOf(labels_fp)));
    if (auto it = imported_id_stacks_.find(fingerprint); it != imported_id_stacks_.end()) {
      packed = it->second;
    }
  }
  uint32_t labels = by_labels_id ? Imported(imported_label_sets_, sample.labels_id) : 0;
  bool over_memory = false;
  if (packed == kNotImported || labels == kNotImported) {
    const Status looked_up = with_dictionary([&](const Dictionary& dict) -> Status {
      if (dict.generation() != dict_generation_) {
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
                  ? ImportStack(dict, sample.stack_id, &packed)
                  : ImportLocationIds(dict, sample.location_ids, fingerprint, &packed));
        }
        if (labels == kNotImported) {
          STACKREC_RETURN_IF_ERROR(ImportLabelSet(dict, sample.labels_id, &labels));
        }
        return OkStatus();
      }
      // At the memory cap nothing is imported, but the ids are still checked.
      over_memory = true;
      uint32_t index = 0;
      if (packed == kNotImported) {
        STACKREC_RETURN_IF_ERROR(
            sample.stack_id != 0
                ? dict.StackIndex(sample.stack_id, "sample.stack_id", &index)
                : dict.LocationIndices(sample.location_ids, "sample.location_ids",
                                       &scratch_frame_indices_));
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
    return Error(Code::kInvalidArgument,
                 "sample.labels_id %u has the key \"end_timestamp_ns\", reserved for the "
                 "sample's timestamp_ns",
                 sample.labels_id);
  }
  if (over_memory) {
    STACKREC_RETURN_IF_ERROR(ValidateLabels(sample.labels, sample.timestamp_ns));
    return AddOverflow({}, sample.labels);
  }
  const uint32_t stack = packed & ~kTruncatedBit;
  const bool truncated = (packed & kTruncatedBit) != 0;
  if (by_labels_id) {
    return AddKeyWithLabels(stack, truncated, labels & ~kEndTimestampBit, {}, {},
                            sample.timestamp_ns);
  }
  return AddKey(stack, truncated, {}, sample.labels, labels_fp, sample.timestamp_ns,
                /*labels_checked=*/false);
}

void Profile::ImportInterned(const Dictionary& dict, Interned what, uint32_t id) noexcept {
  try {
    SyncDictionary(dict.generation());
    const bool stack = what == Interned::kStack;
    if (Imported(stack ? imported_stacks_ : imported_label_sets_, id) != kNotImported || Full()) {
      return;
    }
    uint32_t packed;
    // An id just handed out by `dict`: the imports cannot refuse it.
    const Status imported =
        stack ? ImportStack(dict, id, &packed) : ImportLabelSet(dict, id, &packed);
    (void)imported;
  } catch (const std::bad_alloc&) {
    // Every import step leaves the tables consistent (an entry is marked
    // imported only once it is interned): the first sample resumes it.
  }
  TablesChanged();
}

void Profile::SyncDictionary(uint32_t generation) {
  if (generation == dict_generation_) return;
  TablesChanged();
  dict_generation_ = generation;
  imported_records_.Clear();
  for (auto* v : {&imported_stacks_, &imported_label_sets_}) TableVector<uint32_t>().swap(*v);
  imported_id_stacks_ = {};
}

namespace {

// imported[index], growing the vector with kNotImported as needed.
uint32_t& ImportedEntry(TableVector<uint32_t>* imported, uint32_t index, uint32_t none) {
  if (index >= imported->size()) imported->resize(size_t{index} + 1, none);
  return (*imported)[index];
}

}  // namespace

RecordRemap Profile::FromDictionary(const Dictionary& dict) {
  return RecordRemap(dict.record_tables(), record_tables(), &imported_records_);
}

Status Profile::ImportStack(const Dictionary& dict, uint32_t stack_id, uint32_t* packed) {
  uint32_t index;
  STACKREC_RETURN_IF_ERROR(dict.StackIndex(stack_id, "sample.stack_id", &index));
  scratch_locations_.clear();
  RecordRemap remap = FromDictionary(dict);
  for (uint32_t location : dict.stack(index)) {
    scratch_locations_.push_back(remap.LocationId(location));
  }
  *packed = InternStackIds(scratch_locations_, ContentSeed<uint32_t>(scratch_locations_)) |
            (dict.stack_truncated(index) ? kTruncatedBit : 0);
  ImportedEntry(&imported_stacks_, index, kNotImported) = *packed;
  return OkStatus();
}

Status Profile::ImportLabelSet(const Dictionary& dict, uint32_t labels_id, uint32_t* packed) {
  uint32_t index;
  STACKREC_RETURN_IF_ERROR(dict.LabelSetIndex(labels_id, "sample.labels_id", &index));
  scratch_labels_.clear();
  RecordRemap remap = FromDictionary(dict);
  for (Label label : dict.label_set(index)) {
    label.key = remap.String(label.key);
    label.str = remap.String(label.str);
    label.num_unit = remap.String(label.num_unit);
    scratch_labels_.push_back(label);
  }
  *packed = InternLabelSet(scratch_labels_, ContentSeed<Label>(scratch_labels_)) |
            (dict.label_set_has_end_timestamp(index) ? kEndTimestampBit : 0);
  ImportedEntry(&imported_label_sets_, index, kNotImported) = *packed;
  return OkStatus();
}

Status Profile::ImportLocationIds(const Dictionary& dict, absl::Span<const uint32_t> ids,
                                  const Fingerprint& fingerprint, uint32_t* packed) {
  // Checked in full before anything is imported.
  std::vector<uint32_t>& indices = scratch_frame_indices_;
  STACKREC_RETURN_IF_ERROR(dict.LocationIndices(ids, "sample.location_ids", &indices));
  STACKREC_RETURN_IF_ERROR(dict.CheckInlining(indices, "sample.location_ids"));
  const bool truncated = indices.size() > options_.max_frames;
  const size_t kept = truncated ? options_.max_frames : indices.size();
  scratch_locations_.clear();
  RecordRemap remap = FromDictionary(dict);
  for (size_t i = 0; i < kept; ++i) {
    scratch_locations_.push_back(remap.LocationId(indices[i]));
  }
  if (truncated) {
    EndTruncatedStack(indices.size() - kept, &records_.strings, &records_.functions,
                      &records_.locations, &scratch_locations_);
  }
  *packed = InternStackIds(scratch_locations_, SeedOf(fingerprint)) |
            (truncated ? kTruncatedBit : 0);
  EmplaceGrowingFirst(imported_id_stacks_, fingerprint, *packed);
  return OkStatus();
}

Status Profile::SetEndpoint(uint64_t local_root_span_id,
                            absl::string_view endpoint) {
  TablesChanged();
  if (local_root_span_id == 0) {
    return Error(Code::kInvalidArgument, "local_root_span_id is 0");
  }
  if (endpoint.empty()) {
    return Error(Code::kInvalidArgument, "endpoint is empty");
  }
  StringId id;
  if (!records_.strings.Intern(endpoint, &id)) {
    return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  }
  GrowBeforeInsert(endpoints_);
  endpoints_.insert_or_assign(local_root_span_id, id);
  return OkStatus();
}

Status Profile::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  TablesChanged();
  if (endpoint.empty()) {
    return Error(Code::kInvalidArgument, "endpoint is empty");
  }
  StringId id;
  if (!records_.strings.Intern(endpoint, &id)) {
    return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  }
  GrowBeforeInsert(endpoint_counts_);
  int64_t& count = endpoint_counts_[id];
  count = SaturatingAdd(count, value);
  return OkStatus();
}

std::vector<std::pair<std::string, int64_t>> Profile::EndpointCounts() const {
  std::vector<std::pair<std::string, int64_t>> counts;
  counts.reserve(endpoint_counts_.size());
  for (const auto& [id, count] : endpoint_counts_) {
    counts.emplace_back(std::string(records_.strings.Get(id)), count);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

}  // namespace stackrec
