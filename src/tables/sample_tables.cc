// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/sample_tables.h"

#include "base/memory_bytes.h"
#include "base/table_growth.h"
#include "hash/frame_strings.h"
#include "input/sample_checks.h"

namespace stackrec {

namespace {

// How many frames ahead of the one looked up InternStack prefetches the
// frame cache's slot. A new stack's frames are mostly known ones (stacks
// share their root side), and with tens of thousands of locations each
// lookup misses the cache; every frame's hash is known before the loop, so
// the misses can overlap. 8 timed best of 4, 8 and 16.
constexpr size_t kCacheAhead = 8;

}  // namespace

Status SampleTables::InternString(absl::string_view s, const char* what, size_t index,
                                  const char* field, StringId* id) {
  if (records_.strings.Intern(s, id)) return OkStatus();
  return Error(Code::kInvalidArgument, "%s[%zu].%s is not valid UTF-8", what, index, field);
}

uint32_t SampleTables::InternStackIds(absl::Span<const uint32_t> locations, uint32_t seed,
                                      bool known_new) {
  stack_seeds_.ReserveOne();  // first: the push below cannot throw
  const uint32_t id = known_new ? stacks_.Append(locations) : stacks_.Intern(locations);
  if (id == stack_seeds_.size()) stack_seeds_.push_back(seed);
  assert(stack_seeds_.size() == stacks_.size());
  return id;
}

void SampleTables::CacheStack(const Fingerprint& fp, uint32_t stack) {
  EmplaceGrowingFirst(stack_cache_, fp, stack);
  if (stack == cache_stacks_ + 1) ++cache_stacks_;
}

uint32_t SampleTables::InternLabelSet(absl::Span<const Label> labels, uint32_t seed) {
  label_seeds_.ReserveOne();
  const uint32_t id = label_sets_.Intern(labels);
  if (id == label_seeds_.size()) label_seeds_.push_back(seed);
  assert(label_seeds_.size() == label_sets_.size());
  return id;
}

Status SampleTables::InternStack(size_t n, FrameAt frame, const uint64_t* frame_hashes,
                                 const Fingerprint& fp, uint32_t* id) {
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
    // A frame the cache knows passed this check when it was interned.
    STACKREC_RETURN_IF_ERROR(CheckFrameFields(f, i));
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
      STACKREC_RETURN_IF_ERROR(
          InternString(f.mapping.filename, kWhat, i, "mapping.filename", &m.filename));
      STACKREC_RETURN_IF_ERROR(
          InternString(f.mapping.build_id, kWhat, i, "mapping.build_id", &m.build_id));
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
        // A system name that is the name (a Go frame's) is its string
        // already: no second lookup in the string table.
        if (SameBytes(n.function.system_name, n.function.name)) {
          fn.system_name = fn.name;
        } else {
          STACKREC_RETURN_IF_ERROR(InternString(n.function.system_name, kWhat, n.index,
                                                "function.system_name", &fn.system_name));
        }
        STACKREC_RETURN_IF_ERROR(
            InternString(n.function.filename, kWhat, n.index, "function.filename", &fn.filename));
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
  const bool new_stack = n > 0 && !frames_without_function_ && cache_stacks_ + 1 == stacks_.size();
  *id = InternStackIds(scratch_locations_, SeedOf(fp), new_stack);
  CacheStack(fp, *id);
  return OkStatus();
}

Status SampleTables::InternLabels(absl::Span<const LabelView> labels, const Fingerprint& fp,
                                  uint32_t* id) {
  static constexpr const char* kWhat = "sample.labels";
  scratch_labels_.clear();
  for (size_t i = 0; i < labels.size(); ++i) {
    Label l;
    l.num = labels[i].num;
    STACKREC_RETURN_IF_ERROR(InternString(labels[i].key, kWhat, i, "key", &l.key));
    STACKREC_RETURN_IF_ERROR(InternString(labels[i].str, kWhat, i, "str", &l.str));
    STACKREC_RETURN_IF_ERROR(InternString(labels[i].num_unit, kWhat, i, "num_unit", &l.num_unit));
    scratch_labels_.push_back(l);
  }
  *id = InternLabelSet(scratch_labels_, SeedOf(fp));
  EmplaceGrowingFirst(label_cache_, fp, *id);
  return OkStatus();
}

uint32_t SampleTables::InternPseudoStack(absl::string_view name) {
  LocationView pseudo;
  pseudo.function.name = name;
  const auto frames = absl::MakeConstSpan(&pseudo, 1);
  uint64_t hash;
  const Fingerprint fp = FingerprintFrames(frames, &hash);
  uint32_t stack = 0;
  if (CachedStack(fp, &stack)) return stack;
  // An ASCII name: interning cannot fail on bad input.
  const Status interned = InternStack(frames, &hash, fp, &stack);
  (void)interned;
  return stack;
}

void SampleTables::StackViews(uint32_t stack, std::vector<LocationView>* frames) const {
  frames->clear();
  for (uint32_t id : stacks_.Get(stack)) {
    const Location& loc = records_.locations.Get(id);
    LocationView v;
    if (loc.mapping != 0) {
      const Mapping& m = records_.mappings.Get(loc.mapping);
      v.mapping.memory_start = m.memory_start;
      v.mapping.memory_limit = m.memory_limit;
      v.mapping.file_offset = m.file_offset;
      v.mapping.filename = records_.strings.Get(m.filename);
      v.mapping.build_id = records_.strings.Get(m.build_id);
    }
    if (loc.function != 0) {
      const Function& f = records_.functions.Get(loc.function);
      v.function.name = records_.strings.Get(f.name);
      v.function.system_name = records_.strings.Get(f.system_name);
      v.function.filename = records_.strings.Get(f.filename);
      v.function.start_line = f.start_line;
    }
    v.address = loc.address;
    v.line = loc.line;
    v.inlined = loc.inlined;
    frames->push_back(v);
  }
}

void SampleTables::LabelViews(uint32_t labels, std::vector<LabelView>* out) const {
  out->clear();
  for (const Label& l : label_sets_.Get(labels)) {
    LabelView v;
    v.key = records_.strings.Get(l.key);
    v.str = records_.strings.Get(l.str);
    v.num = l.num;
    v.num_unit = records_.strings.Get(l.num_unit);
    out->push_back(v);
  }
}

void SampleTables::CarryInto(SampleTables* next,
                             absl::FunctionRef<void(absl::FunctionRef<void(SampleKey)>)> each_key,
                             Carried* carried) const {
  constexpr uint32_t kNotYet = Carried::kNotCarried;
  RecordRemap remap(records_.tables(), next->record_tables(), &carried->records);
  carried->stacks.assign(stacks_.size(), kNotYet);
  carried->label_sets.assign(label_sets_.size(), kNotYet);
  std::vector<uint32_t> frames;
  std::vector<Label> labels;
  each_key([&](SampleKey key) {
    uint32_t& stack = carried->stacks[key.stack];
    if (stack == kNotYet) {
      frames.clear();
      for (uint32_t loc : stacks_.Get(key.stack)) frames.push_back(remap.LocationId(loc));
      stack = next->InternStackIds(frames, stack_seeds_[key.stack]);
    }
    uint32_t& label_set = carried->label_sets[key.labels];
    if (label_set == kNotYet) {
      labels.clear();
      for (Label l : label_sets_.Get(key.labels)) {
        l.key = remap.String(l.key);
        l.str = remap.String(l.str);
        l.num_unit = remap.String(l.num_unit);
        labels.push_back(l);
      }
      label_set = next->InternLabelSet(labels, label_seeds_[key.labels]);
    }
  });
  for (const auto& [fingerprint, id] : stack_cache_) {
    if (carried->stacks[id] != kNotYet) {
      EmplaceGrowingFirst(next->stack_cache_, fingerprint, carried->stacks[id]);
    }
  }
  for (const auto& [fingerprint, id] : label_cache_) {
    if (carried->label_sets[id] != kNotYet) {
      EmplaceGrowingFirst(next->label_cache_, fingerprint, carried->label_sets[id]);
    }
  }
}

void SampleTables::Clear() {
  records_.strings.Clear();
  records_.mappings.Clear();
  records_.functions.Clear();
  records_.locations.Clear();
  stacks_.Clear();
  label_sets_.Clear();
  stack_seeds_.Clear();
  label_seeds_.Clear();
  SeedEmptySequences();
  stack_cache_ = {};
  label_cache_ = {};
  frame_cache_ = {};
  function_cache_ = {};
  frame_locations_ = 0;
  cache_stacks_ = 0;
  frames_without_function_ = false;
}

void SampleTables::Compact() {
  frame_cache_ = {};
  function_cache_ = {};
  frame_locations_ = 0;
  // The stacks are the largest table, and its room to grow is idle until
  // the program runs new code.
  stacks_.ShrinkToFit();
}

void SampleTables::SeedEmptySequences() {
  stack_seeds_.ReserveOne();
  stack_seeds_.push_back(0);
  label_seeds_.ReserveOne();
  label_seeds_.push_back(0);
}

size_t SampleTables::MemoryBytes() const {
  return records_.MemoryBytes() + stacks_.MemoryBytes() + label_sets_.MemoryBytes() +
         MapBytes(stack_cache_) + MapBytes(label_cache_) + MapBytes(frame_cache_) +
         MapBytes(function_cache_) + stack_seeds_.MemoryBytes() + label_seeds_.MemoryBytes();
}

}  // namespace stackrec
