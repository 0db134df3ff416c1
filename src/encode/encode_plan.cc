// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/encode_plan.h"

#include <algorithm>
#include <vector>

#include "base/table_growth.h"

namespace stackrec {

EncodePlan::EncodePlan(const ProfileParts& p, const SampleSelection* selection,
                       const std::vector<uint32_t>* columns)
    : p_(p),
      selection_(selection),
      columns_(columns),
      strings_(p.tables.strings().size()),
      mappings_(p.tables.mappings().size()),
      functions_(p.tables.functions().size()),
      locations_(p.tables.locations().size()),
      stack_uses_(p.tables.stacks().size(), 0),
      label_marked_(p.tables.label_sets().size(), 0),
      label_endpoint_(p.tables.label_sets().size(), 0),
      mapping_flags_(p.tables.mappings().size(), 0),
      scaler_(p) {}

void EncodePlan::Mark(absl::FunctionRef<void(uint32_t)> on_labels,
                      absl::FunctionRef<void(uint32_t)> on_mapping) {
  OrderKeys();
  ForEachSample([&](uint32_t stack, uint32_t labels, const int64_t*, int64_t ts) {
    MarkStack(stack, on_mapping);
    if (MarkLabels(labels)) on_labels(labels);
    any_timed_ = any_timed_ || ts != 0;
  });
  NumberLocations();
}

template <typename F>
void EncodePlan::ForEachKey(F&& f) const {
  if (columns_ != nullptr) {  // only the keys with a value in the columns
    auto visit = [&](uint32_t key) {
      if (InColumns(p_.aggregate.key_values(key))) f(key);
    };
    if (selection_ == nullptr) {
      for (size_t i = 0; i < p_.aggregate.key_count(); ++i) visit(static_cast<uint32_t>(i));
    } else {
      for (uint32_t i : selection_->keys) visit(i);
    }
    return;
  }
  if (selection_ == nullptr) {
    for (size_t i = 0; i < p_.aggregate.key_count(); ++i) f(static_cast<uint32_t>(i));
  } else {
    for (uint32_t i : selection_->keys) f(i);
  }
}

namespace {

// Counts the keys of each stack that `for_each_key` reaches into *slot
// (sized to the stacks) and returns the stacks reached, sorted from their
// root frame. Comparing the frames' internal ids is enough: what matters
// is that equal root-side paths end up adjacent, not how siblings are
// ordered.
template <typename ForEachKey>
TableVector<uint32_t> StacksFromRoot(const ProfileParts& p, ForEachKey&& for_each_key,
                                     TableVector<uint32_t>* slot) {
  TableVector<uint32_t> stacks;
  for_each_key([&](uint32_t key) {
    if ((*slot)[p.aggregate.key_stack(key)]++ == 0) stacks.push_back(p.aggregate.key_stack(key));
  });
  std::sort(stacks.begin(), stacks.end(), [&](uint32_t a, uint32_t b) {
    const absl::Span<const uint32_t> fa = p.tables.stacks().Get(a), fb = p.tables.stacks().Get(b);
    return std::lexicographical_compare(fa.rbegin(), fa.rend(), fb.rbegin(), fb.rend());
  });
  return stacks;
}

}  // namespace

TableVector<uint32_t> KeysInWritingOrder(const ProfileParts& p) {
  TableVector<uint32_t> slot(p.tables.stacks().size(), 0);
  const size_t n = p.aggregate.key_count();
  auto all = [&](auto&& f) {
    for (size_t i = 0; i < n; ++i) f(static_cast<uint32_t>(i));
  };
  const TableVector<uint32_t> stacks = StacksFromRoot(p, all, &slot);
  uint32_t next = 0;
  for (uint32_t stack : stacks) {
    const uint32_t count = slot[stack];
    slot[stack] = next;
    next += count;
  }
  TableVector<uint32_t> keys(n);
  all([&](uint32_t key) { keys[slot[p.aggregate.key_stack(key)]++] = key; });
  return keys;
}

void EncodePlan::OrderKeys() {
  // A counting sort by stack: the number of keys of each stack, then each
  // stack's first slot in keys_, then the keys.
  TableVector<uint32_t> slot(p_.tables.stacks().size(), 0);
  size_t n = 0;
  const TableVector<uint32_t> stacks = StacksFromRoot(
      p_,
      [&](auto&& f) {
        ForEachKey([&](uint32_t key) {
          f(key);
          ++n;
        });
      },
      &slot);
  uint32_t next = 0;
  stack_runs_.reserve(stacks.size());
  for (uint32_t stack : stacks) {
    const uint32_t count = slot[stack];
    slot[stack] = next;
    next += count;
    stack_runs_.push_back({stack, next});
  }
  keys_.resize(n);
  ForEachKey([&](uint32_t key) {
    keys_[slot[p_.aggregate.key_stack(key)]++] = {key, p_.aggregate.key_labels(key)};
  });
}

void EncodePlan::MarkLocationParts(uint32_t id, absl::FunctionRef<void(uint32_t)> on_mapping) {
  const Location& loc = p_.tables.locations().Get(id);
  if (functions_.Mark(loc.function)) {
    const Function& fn = p_.tables.functions().Get(loc.function);
    strings_.Mark(fn.name);
    strings_.Mark(fn.system_name);
    strings_.Mark(fn.filename);
  }
  if (mappings_.Mark(loc.mapping)) {
    strings_.Mark(p_.tables.mappings().Get(loc.mapping).filename);
    on_mapping(loc.mapping);
  }
  if (loc.mapping != 0) {
    uint8_t& flags = mapping_flags_[loc.mapping];
    if (loc.function != 0) {
      flags |= kHasFunctions;
      if (p_.tables.functions().Get(loc.function).filename != 0) flags |= kHasFilenames;
    }
    if (loc.line != 0) flags |= kHasLines;
  }
}

uint32_t EncodePlan::GroupId(absl::Span<const uint32_t> run,
                             absl::FunctionRef<void(uint32_t)> on_mapping) {
  std::vector<uint32_t> members(run.begin(), run.end());
  GrowBeforeInsert(group_ids_);
  auto [it, inserted] = group_ids_.try_emplace(
      members, static_cast<uint32_t>(p_.tables.locations().size() + groups_.size()));
  if (inserted) {
    groups_.push_back(std::move(members));
    locations_.Mark(it->second);
    for (uint32_t id : run) MarkLocationParts(id, on_mapping);
  }
  return it->second;
}

void EncodePlan::MarkStack(uint32_t stack, absl::FunctionRef<void(uint32_t)> on_mapping) {
  if (stack_uses_[stack]++ != 0) return;
  marked_stacks_.push_back(stack);
  const absl::Span<const uint32_t> frames = p_.tables.stacks().Get(stack);
  std::vector<uint32_t>* grouped = nullptr;
  for (size_t i = 0; i < frames.size(); ++i) {
    uint32_t id = frames[i];
    if (p_.tables.locations().Get(id).inlined) {
      // frames[i..end] is inlined into frames[end] (Profile::Add checked
      // they share one address): one output location.
      size_t end = i;
      while (end + 1 < frames.size() && p_.tables.locations().Get(frames[end]).inlined) ++end;
      if (grouped == nullptr) {
        GrowBeforeInsert(grouped_stacks_);
        grouped = &grouped_stacks_[stack];
        grouped->assign(frames.begin(), frames.begin() + static_cast<ptrdiff_t>(i));
      }
      id = GroupId(frames.subspan(i, end - i + 1), on_mapping);
      i = end;
    } else if (locations_.Mark(id)) {
      MarkLocationParts(id, on_mapping);
    }
    if (grouped != nullptr) grouped->push_back(id);
  }
}

void EncodePlan::NumberLocations() {
  TableVector<uint64_t> weight(locations_.capacity(), 0);
  for (uint32_t stack : marked_stacks_) {
    for (uint32_t id : OutputFrames(stack)) weight[id] += stack_uses_[stack];
  }
  locations_.SortByWeight(weight);
}

absl::Span<const uint32_t> EncodePlan::OutputFrames(uint32_t stack) const {
  if (!grouped_stacks_.empty()) {
    if (auto it = grouped_stacks_.find(stack); it != grouped_stacks_.end()) return it->second;
  }
  return p_.tables.stacks().Get(stack);
}

bool EncodePlan::MarkLabels(uint32_t labels) {
  if (label_marked_[labels] != 0) return false;
  label_marked_[labels] = 1;
  ++label_sets_used_;
  const absl::Span<const Label> set = p_.tables.label_sets().Get(labels);
  const StringId span_key = p_.ids.local_root_span_id_key;
  const StringId endpoint_key = p_.ids.trace_endpoint_key;
  StringId endpoint = 0;
  bool has_endpoint_label = false;
  for (const Label& l : set) {
    if (l.key == endpoint_key) has_endpoint_label = true;
    if (l.key == span_key && l.str == 0) {
      auto it = p_.endpoints.by_span().find(static_cast<uint64_t>(l.num));
      if (it != p_.endpoints.by_span().end()) endpoint = it->second;
    }
  }
  if (has_endpoint_label) endpoint = 0;  // the caller's own label wins
  label_endpoint_[labels] = endpoint;
  scaler_.MatchLabels(labels, set);
  return true;
}

}  // namespace stackrec
