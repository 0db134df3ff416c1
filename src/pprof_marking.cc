// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include <algorithm>
#include <climits>

#include "pprof_encoding.h"
#include "table_growth.h"

namespace stackrec {
namespace pprof {

void Encoder::MarkLocationParts(uint32_t id) {
  const Location& loc = p_.locations().Get(id);
  if (functions_.Mark(loc.function)) {
    const Function& fn = p_.functions().Get(loc.function);
    strings_.Mark(fn.name);
    strings_.Mark(fn.system_name);
    strings_.Mark(fn.filename);
  }
  if (mappings_.Mark(loc.mapping)) {
    const Mapping& m = p_.mappings().Get(loc.mapping);
    strings_.Mark(m.filename);
    strings_.Mark(m.build_id);
  }
  if (loc.mapping != 0) {
    uint8_t& flags = mapping_flags_[loc.mapping];
    if (loc.function != 0) {
      flags |= kHasFunctions;
      if (p_.functions().Get(loc.function).filename != 0) flags |= kHasFilenames;
    }
    if (loc.line != 0) flags |= kHasLines;
  }
}

uint32_t Encoder::GroupId(absl::Span<const uint32_t> run) {
  std::vector<uint32_t> members(run.begin(), run.end());
  GrowBeforeInsert(group_ids_);
  auto [it, inserted] = group_ids_.try_emplace(
      members, static_cast<uint32_t>(p_.locations().size() + groups_.size()));
  if (inserted) {
    groups_.push_back(std::move(members));
    locations_.Mark(it->second);
    for (uint32_t id : run) MarkLocationParts(id);
  }
  return it->second;
}

void Encoder::MarkStack(uint32_t stack) {
  ++stack_uses_[stack];
  if (stack_bytes_[stack] != kUnsized) return;
  stack_bytes_[stack] = 0;
  marked_stacks_.push_back(stack);
  const absl::Span<const uint32_t> frames = p_.stacks().Get(stack);
  std::vector<uint32_t>* grouped = nullptr;
  for (size_t i = 0; i < frames.size(); ++i) {
    uint32_t id = frames[i];
    if (p_.locations().Get(id).inlined) {
      // frames[i..end] is inlined into frames[end] (Profile::Add checked
      // they share one address): one output location.
      size_t end = i;
      while (end + 1 < frames.size() && p_.locations().Get(frames[end]).inlined) ++end;
      if (grouped == nullptr) {
        GrowBeforeInsert(grouped_stacks_);
        grouped = &grouped_stacks_[stack];
        grouped->assign(frames.begin(), frames.begin() + static_cast<ptrdiff_t>(i));
      }
      id = GroupId(frames.subspan(i, end - i + 1));
      i = end;
    } else if (locations_.Mark(id)) {
      MarkLocationParts(id);
    }
    if (grouped != nullptr) grouped->push_back(id);
  }
}

void Encoder::NumberLocations() {
  TableVector<uint64_t> weight(locations_.capacity(), 0);
  for (uint32_t stack : marked_stacks_) {
    for (uint32_t id : OutputFrames(stack)) weight[id] += stack_uses_[stack];
  }
  locations_.SortByWeight(weight);
}

void Encoder::EncodeStacks() {
  size_t total = 0;
  for (uint32_t stack : marked_stacks_) {
    size_t bytes = 0;
    for (uint32_t id : OutputFrames(stack)) bytes += VarintSize(locations_[id]);
    stack_bytes_[stack] = bytes;
    stack_start_[stack] = total;
    total += bytes;
  }
  stack_ids_.resize(total);
  // A local copy: the byte stores could alias the vector's pointer.
  const uint32_t* ids = locations_.data();
  for (uint32_t stack : marked_stacks_) {
    uint8_t* dst = stack_ids_.data() + stack_start_[stack];
    for (uint32_t id : OutputFrames(stack)) {
      dst = CodedOutputStream::WriteVarint32ToArray(ids[id], dst);
    }
  }
}

template <typename F>
void Encoder::ForEachKey(F&& f) const {
  if (selection_ == nullptr) {
    for (size_t i = 0; i < p_.key_count(); ++i) f(static_cast<uint32_t>(i));
  } else {
    for (uint32_t i : selection_->keys) f(i);
  }
}

void Encoder::OrderKeys() {
  // A counting sort by stack: the number of keys of each stack, then each
  // stack's first slot in keys_, then the keys.
  TableVector<uint32_t> slot(p_.stacks().size(), 0);
  TableVector<uint32_t> stacks;
  size_t n = 0;
  ForEachKey([&](uint32_t key) {
    if (slot[p_.key_stack(key)]++ == 0) stacks.push_back(p_.key_stack(key));
    ++n;
  });
  // Comparing the frames' internal ids is enough: what matters is that
  // equal root-side paths end up adjacent, not how siblings are ordered.
  std::sort(stacks.begin(), stacks.end(), [&](uint32_t a, uint32_t b) {
    const absl::Span<const uint32_t> fa = p_.stacks().Get(a), fb = p_.stacks().Get(b);
    return std::lexicographical_compare(fa.rbegin(), fa.rend(), fb.rbegin(), fb.rend());
  });
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
    keys_[slot[p_.key_stack(key)]++] = {key, p_.key_labels(key)};
  });
}

absl::Span<const uint32_t> Encoder::OutputFrames(uint32_t stack) const {
  if (!grouped_stacks_.empty()) {
    if (auto it = grouped_stacks_.find(stack); it != grouped_stacks_.end()) return it->second;
  }
  return p_.stacks().Get(stack);
}

size_t Encoder::LabelSize(StringId key, StringId str, int64_t num,
                          StringId unit) const {
  const size_t payload = FieldSize(strings_[key]) + FieldSize(strings_[str]) +
                         FieldSize(static_cast<uint64_t>(num)) +
                         FieldSize(strings_[unit]);
  return LenFieldSize(payload);
}

void Encoder::MarkLabels(uint32_t labels) {
  if (label_bytes_[labels] != kUnsized) return;
  const absl::Span<const Label> set = p_.label_sets().Get(labels);
  const StringId span_key = p_.local_root_span_id_key();
  const StringId endpoint_key = p_.trace_endpoint_key();
  StringId endpoint = 0;
  bool has_endpoint_label = false;
  for (const Label& l : set) {
    strings_.Mark(l.key);
    strings_.Mark(l.str);
    strings_.Mark(l.num_unit);
    if (l.key == endpoint_key) has_endpoint_label = true;
    if (l.key == span_key && l.str == 0) {
      auto it = p_.endpoints().find(static_cast<uint64_t>(l.num));
      if (it != p_.endpoints().end()) endpoint = it->second;
    }
  }
  if (has_endpoint_label) endpoint = 0;  // the caller's own label wins
  scaler_.MatchLabels(labels, set);
  size_t bytes = 0;
  if (endpoint != 0) {
    strings_.Mark(endpoint_key);
    strings_.Mark(endpoint);
    bytes += LabelSize(endpoint_key, endpoint, 0, 0);
  }
  for (const Label& l : set) bytes += LabelSize(l.key, l.str, l.num, l.num_unit);
  label_endpoint_[labels] = endpoint;
  label_bytes_[labels] = bytes;
}


void Encoder::MarkAll() {
  // Sample types first, so their strings open the string table.
  const ProfileOptions& o = p_.options();
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    if (!o.enabled[i]) continue;
    const auto [type, unit] = p_.sample_type_ids()[i];
    strings_.Mark(type);
    strings_.Mark(unit);
    sample_types_.emplace_back(type, unit);
  }
  OrderKeys();
  bool any_timed = false;
  ForEachSample([&](uint32_t stack, uint32_t labels, const int64_t*, int64_t ts) {
    MarkStack(stack);
    MarkLabels(labels);
    any_timed = any_timed || ts != 0;
  });
  NumberLocations();
  EncodeStacks();
  if (any_timed) strings_.Mark(p_.end_timestamp_key());
  if (!o.period_type.type.empty()) {
    strings_.Mark(p_.period_type_ids().first);
    strings_.Mark(p_.period_type_ids().second);
  }
  strings_.Mark(p_.drop_frames_id());
  strings_.Mark(p_.keep_frames_id());
  for (StringId id : p_.comment_ids()) strings_.Mark(id);
  strings_.Mark(p_.default_sample_type_id());
}

void Encoder::Count(EncodeStats* stats) const {
  stats->samples_written = 0;
  ForEachSample([&](uint32_t, uint32_t, const int64_t*, int64_t) {
    ++stats->samples_written;
  });
  stats->locations_written = locations_.order().size();
  stats->functions_written = functions_.order().size();
  stats->mappings_written = mappings_.order().size();
  stats->strings_written = strings_.order().size() + 1;
  auto marked = [](const TableVector<size_t>& bytes) {
    return static_cast<uint64_t>(
        std::count_if(bytes.begin(), bytes.end(), [](size_t b) { return b != kUnsized; }));
  };
  stats->stacks_used = marked(stack_bytes_);
  stats->label_sets_used = marked(label_bytes_);
}

}  // namespace pprof
}  // namespace stackrec
