// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "profile/dictionary.h"

#include <cstdio>
#include <string>
#include <utility>

#include "base/utf8.h"
#include "input/label_rules.h"
#include "input/sample_checks.h"

namespace stackrec {
namespace {

Status Utf8(absl::string_view s, const char* field) {
  if (IsValidUtf8(s)) return OkStatus();
  return Error(Code::kInvalidArgument, "%s is not valid UTF-8", field);
}

}  // namespace

absl::Span<const uint32_t> Dictionary::stack(uint32_t index) const {
  return stacks_.Get(stack_spans_[index]);
}

Status Dictionary::CheckRoom(size_t size, const char* table) {
  if (size <= kMaxIndex) return OkStatus();
  return Error(Code::kLimitExceeded, "the dictionary holds %u %s, the most it takes", kMaxIndex,
               table);
}

uint32_t Dictionary::IndexOf(uint32_t id, size_t size) const {
  const uint32_t i = id & kIndexMask;
  return id >> kIndexBits == generation_ && i < size ? i : 0;
}

Status Dictionary::Index(uint32_t id, size_t size, const char* field, uint32_t* index) const {
  *index = IndexOf(id, size);
  if (*index != 0) return OkStatus();
  if ((id & kIndexMask) != 0 && id >> kIndexBits != generation_) {
    return Error(Code::kInvalidArgument, "%s %u is stale (interned before forget_ids)", field, id);
  }
  return Error(Code::kInvalidArgument, "%s %u is not an interned id", field, id);
}

Status Dictionary::StackIndex(uint32_t id, const char* field, uint32_t* index) const {
  return Index(id, stack_spans_.size(), field, index);
}

Status Dictionary::LabelSetIndex(uint32_t id, const char* field, uint32_t* index) const {
  return Index(id, label_set_entries_.size(), field, index);
}

Status Dictionary::InternMapping(const MappingView& m, uint32_t* id) {
  if (IsNoMapping(m)) {
    return Error(Code::kInvalidArgument, "mapping is empty: use mapping_id 0 for no mapping");
  }
  STACKREC_RETURN_IF_ERROR(CheckMappingRange(m, nullptr, 0));
  STACKREC_RETURN_IF_ERROR(Utf8(m.filename, "mapping.filename"));
  STACKREC_RETURN_IF_ERROR(Utf8(m.build_id, "mapping.build_id"));
  STACKREC_RETURN_IF_ERROR(CheckRoom(records_.mappings.size(), "mappings"));
  Mapping mapping;
  mapping.memory_start = m.memory_start;
  mapping.memory_limit = m.memory_limit;
  mapping.file_offset = m.file_offset;
  // Valid UTF-8: interning cannot fail.
  (void)records_.strings.Intern(m.filename, &mapping.filename);
  (void)records_.strings.Intern(m.build_id, &mapping.build_id);
  *id = IdOf(records_.mappings.Intern(mapping));
  return OkStatus();
}

Status Dictionary::InternFunction(const FunctionView& f, uint32_t* id) {
  if (IsNoFunction(f)) {
    return Error(Code::kInvalidArgument, "function is empty: use function_id 0 for no function");
  }
  STACKREC_RETURN_IF_ERROR(CheckFunctionFields(f, nullptr, 0));
  STACKREC_RETURN_IF_ERROR(Utf8(f.name, "function.name"));
  STACKREC_RETURN_IF_ERROR(Utf8(f.system_name, "function.system_name"));
  STACKREC_RETURN_IF_ERROR(Utf8(f.filename, "function.filename"));
  STACKREC_RETURN_IF_ERROR(CheckRoom(records_.functions.size(), "functions"));
  Function function;
  function.start_line = f.start_line;
  (void)records_.strings.Intern(f.name, &function.name);
  (void)records_.strings.Intern(f.system_name, &function.system_name);
  (void)records_.strings.Intern(f.filename, &function.filename);
  *id = IdOf(records_.functions.Intern(function));
  return OkStatus();
}

Status Dictionary::InternLocation(uint32_t mapping_id, uint32_t function_id, uint64_t address,
                                  int64_t line, bool inlined, uint32_t* id) {
  STACKREC_RETURN_IF_ERROR(CheckLine(line, nullptr, 0));
  // As a frame given by content (CheckFrameFields): the all-zero location
  // is reserved.
  if (mapping_id == 0 && function_id == 0 && address == 0) {
    return Error(Code::kInvalidArgument,
                 "location has no mapping_id, function_id or address: a location holds at "
                 "least one");
  }
  Location loc;
  if (mapping_id != 0) {
    STACKREC_RETURN_IF_ERROR(
        Index(mapping_id, records_.mappings.size(), "location.mapping_id", &loc.mapping));
  }
  if (function_id != 0) {
    uint32_t function = 0;
    STACKREC_RETURN_IF_ERROR(
        Index(function_id, records_.functions.size(), "location.function_id", &function));
    loc.function = function;
  }
  loc.address = address;
  // As in SampleTables::InternStack: a line belongs to a function.
  loc.line = function_id == 0 ? 0 : line;
  loc.inlined = inlined;
  STACKREC_RETURN_IF_ERROR(CheckRoom(records_.locations.size(), "locations"));
  *id = IdOf(records_.locations.Intern(loc));
  return OkStatus();
}

Status Dictionary::InternStack(absl::Span<const uint32_t> location_ids, uint32_t* id) {
  STACKREC_RETURN_IF_ERROR(LocationIndices(location_ids, "location_ids", &scratch_));
  STACKREC_RETURN_IF_ERROR(CheckInlining(scratch_, "location_ids"));
  STACKREC_RETURN_IF_ERROR(CheckRoom(stack_spans_.size(), "stacks"));
  const bool truncated = scratch_.size() > max_frames_;
  if (truncated) {
    // Deeper than max_frames: the leaf side and a frame that says how much
    // was cut, as Profile::Add does.
    STACKREC_RETURN_IF_ERROR(CheckRoom(records_.locations.size() + 1, "locations"));
    STACKREC_RETURN_IF_ERROR(CheckRoom(records_.functions.size(), "functions"));
    const size_t cut = scratch_.size() - max_frames_;
    scratch_.resize(max_frames_);
    EndTruncatedStack(cut, &records_.strings, &records_.functions, &records_.locations, &scratch_);
  }
  // Grown first, so that the pushes below cannot throw.
  ReserveFor(truncated_, 1);
  ReserveFor(stack_spans_, 1);
  const uint32_t span = stacks_.Intern(scratch_);
  if (span >= span_indices_.size()) span_indices_.resize(size_t{span} + 1, 0);
  if (span_indices_[span] == 0) {
    span_indices_[span] = static_cast<uint32_t>(stack_spans_.size());
    stack_spans_.push_back(span);
    truncated_.push_back(truncated);
  }
  *id = IdOf(span_indices_[span]);
  return OkStatus();
}

Status Dictionary::InternLabels(absl::Span<const LabelView> labels, uint32_t* id) {
  static constexpr const char* kArray = "labels";
  STACKREC_RETURN_IF_ERROR(ValidateLabelSet(labels, kArray));
  // Checked in full before anything is interned.
  STACKREC_RETURN_IF_ERROR(ValidateLabelStrings(labels, kArray));
  STACKREC_RETURN_IF_ERROR(CheckRoom(label_set_entries_.size(), "label sets"));
  scratch_labels_.clear();
  bool end_timestamp = false;
  for (const LabelView& in : labels) {
    Label label;
    // Valid UTF-8: interning cannot fail.
    (void)records_.strings.Intern(in.key, &label.key);
    (void)records_.strings.Intern(in.str, &label.str);
    (void)records_.strings.Intern(in.num_unit, &label.num_unit);
    label.num = in.num;
    end_timestamp |= in.key == kEndTimestampKey;
    scratch_labels_.push_back(label);
  }
  ReserveFor(label_set_entries_, 1);  // so that the push below cannot throw
  const uint32_t span = label_sets_.Intern(scratch_labels_);
  if (span >= label_set_indices_.size()) label_set_indices_.resize(size_t{span} + 1, 0);
  if (label_set_indices_[span] == 0) {
    label_set_indices_[span] = static_cast<uint32_t>(label_set_entries_.size());
    label_set_entries_.push_back({span, end_timestamp});
  }
  *id = IdOf(label_set_indices_[span]);
  return OkStatus();
}

Status Dictionary::LocationIndices(absl::Span<const uint32_t> ids, const char* array,
                                   std::vector<uint32_t>* indices) const {
  indices->resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const uint32_t index = IndexOf(ids[i], records_.locations.size());
    if (index == 0) {
      // The element's name is formatted only for the error: this loop runs
      // for every frame of every location-id sample.
      char field[64];
      std::snprintf(field, sizeof(field), "%s[%zu]", array, i);
      return Index(ids[i], records_.locations.size(), field, &(*indices)[i]);
    }
    (*indices)[i] = index;
  }
  return OkStatus();
}

Status Dictionary::CheckInlining(absl::Span<const uint32_t> indices, const char* array) const {
  for (size_t i = 0; i < indices.size(); ++i) {
    const Location& loc = records_.locations.Get(indices[i]);
    if (!loc.inlined) continue;
    if (i + 1 == indices.size()) {
      return Error(Code::kInvalidArgument, "%s[%zu] is inlined but is the last (root) location",
                   array, i);
    }
    const Location& caller = records_.locations.Get(indices[i + 1]);
    if (caller.address != loc.address || caller.mapping != loc.mapping) {
      return Error(Code::kInvalidArgument,
                   "%s[%zu] is inlined but %s[%zu] has another address or mapping", array, i, array,
                   i + 1);
    }
  }
  return OkStatus();
}

void Dictionary::Forget() {
  records_.strings.Clear();
  records_.mappings.Clear();
  records_.functions.Clear();
  records_.locations.Clear();
  stacks_.Clear();
  std::vector<uint32_t>(1, 0).swap(stack_spans_);
  std::vector<uint32_t>().swap(span_indices_);
  std::vector<bool>(1, false).swap(truncated_);
  label_sets_.Clear();
  std::vector<LabelSetEntry>(1, {0, false}).swap(label_set_entries_);
  std::vector<uint32_t>().swap(label_set_indices_);
  std::vector<Label>().swap(scratch_labels_);
  std::vector<uint32_t>().swap(scratch_);
  // Wraps after 255 forgets (see stackrec.h).
  generation_ = (generation_ + 1) & kGenerationMask;
}

size_t Dictionary::MemoryBytes() const {
  return records_.MemoryBytes() + stacks_.MemoryBytes() + truncated_.capacity() / 8 +
         (stack_spans_.capacity() + span_indices_.capacity()) * sizeof(uint32_t) +
         scratch_.capacity() * sizeof(uint32_t) + label_sets_.MemoryBytes() +
         label_set_entries_.capacity() * sizeof(LabelSetEntry) +
         label_set_indices_.capacity() * sizeof(uint32_t) +
         scratch_labels_.capacity() * sizeof(Label);
}

}  // namespace stackrec
