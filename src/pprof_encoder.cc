// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "pprof_encoder.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "clock.h"
#include "absl/container/flat_hash_map.h"
#include "dense_ids.h"
#include "google/protobuf/io/coded_stream.h"
#include "pprof_fields.h"
#include "sample_scaler.h"
#include "proto_wire.h"
#include "table_growth.h"
#include "table_memory.h"

namespace stackrec {
namespace {

using google::protobuf::io::CodedOutputStream;
using wire::FieldSize;
using wire::LenFieldSize;
using wire::PutLenHeader;
using wire::PutVarintField;
using wire::Tag;
using wire::VarintSize;
using wire::WriteLenHeader;
using wire::WriteVarintField;
using wire::kLen;
using wire::kVarint;
namespace field = pprof::field;


constexpr size_t kUnsized = ~size_t{0};

class Encoder {
 public:
  Encoder(const Profile& p, int64_t end_ns, const SampleSelection* selection)
      : p_(p),
        end_ns_(end_ns),
        selection_(selection),
        strings_(p.strings().size()),
        mappings_(p.mappings().size()),
        functions_(p.functions().size()),
        locations_(p.locations().size()),
        stack_bytes_(p.stacks().size(), kUnsized),
        stack_start_(p.stacks().size(), 0),
        stack_uses_(p.stacks().size(), 0),
        label_bytes_(p.label_sets().size(), kUnsized),
        label_endpoint_(p.label_sets().size(), 0),
        mapping_flags_(p.mappings().size(), 0),
        scaler_(p) {}

  void MarkAll();
  void Write(CodedOutputStream* out) const;
  // Counts of what Write writes (after MarkAll).
  void Count(EncodeStats* stats) const;

 private:
  enum MappingFlag : uint8_t { kHasFunctions = 1, kHasFilenames = 2, kHasLines = 4 };

  // Marks the stack of one sample written; its bytes are known only once the
  // location ids are final (EncodeStacks).
  void MarkStack(uint32_t stack);
  // Gives the locations used by the most samples the smallest ids.
  void NumberLocations();
  // Encodes each marked stack's packed location ids once, into stack_ids_:
  // a stack is written once per key (a dozen times in typical profiles),
  // and copying its bytes costs less than encoding its ids again.
  void EncodeStacks();
  // Fills keys_ and stack_runs_ with the aggregated keys to write, grouped
  // by stack, the stacks sorted from the root: samples whose stacks share a
  // root-side path, the bulk of their bytes, are written one after the
  // other, where the compressor's window finds the repeats. (In the order
  // keys were added, a stack's samples lie far apart: a different thread or
  // request makes a different key.) Keys of one stack keep their order.
  void OrderKeys();
  // Calls f(key) for each aggregated key to write, in the caller's order.
  template <typename F>
  void ForEachKey(F&& f) const;
  // Marks what location `id` refers to: function, mapping, their strings.
  void MarkLocationParts(uint32_t id);
  // The id in locations_ of the output location for a run of frames, each
  // inlined into the next: a new id past the profile's locations, or the
  // one that run got before.
  uint32_t GroupId(absl::Span<const uint32_t> run);
  // The location ids written for `stack`.
  absl::Span<const uint32_t> OutputFrames(uint32_t stack) const;
  void MarkLabels(uint32_t labels);
  size_t LabelSize(StringId key, StringId str, int64_t num, StringId unit) const;
  uint8_t* PutLabel(uint8_t* dst, StringId key, StringId str, int64_t num,
                    StringId unit) const;
  void WriteValueType(CodedOutputStream* out, uint32_t field, StringId type,
                      StringId unit) const;
  void WriteSample(CodedOutputStream* out, uint32_t stack, uint32_t labels,
                   const int64_t* values, int64_t timestamp_ns) const;
  void WriteMapping(CodedOutputStream* out, uint32_t id) const;
  void WriteLocation(CodedOutputStream* out, uint32_t id) const;
  void WriteGroup(CodedOutputStream* out, uint32_t id) const;
  void WriteFunction(CodedOutputStream* out, uint32_t id) const;

  // Calls f(stack, labels, values, timestamp) for each sample to write.
  template <typename F>
  void ForEachSample(F&& f) const;

  const Profile& p_;
  const int64_t end_ns_;
  const SampleSelection* selection_;
  DenseIds strings_, mappings_, functions_, locations_;
  // Per stack: bytes of its packed location ids (kUnsized: not marked).
  TableVector<size_t> stack_bytes_;
  // Per marked stack: where its bytes start in stack_ids_.
  TableVector<size_t> stack_start_;
  TableVector<uint8_t> stack_ids_;
  // Per stack: how many samples written use it; and the stacks marked.
  TableVector<uint64_t> stack_uses_;
  TableVector<uint32_t> marked_stacks_;
  // The aggregated keys to write, in writing order, with their label sets:
  // the writing reads them in order rather than the profile's keys at
  // random. Run r has stack stack_runs_[r].stack and ends before keys_
  // index stack_runs_[r].end.
  struct KeyRef {
    uint32_t key, labels;
  };
  struct StackRun {
    uint32_t stack, end;
  };
  TableVector<KeyRef> keys_;
  TableVector<StackRun> stack_runs_;
  // Inline runs: the members of group g, whose id in locations_ is
  // p_.locations().size() + g, and the group of each run seen.
  std::vector<std::vector<uint32_t>> groups_;
  absl::flat_hash_map<std::vector<uint32_t>, uint32_t> group_ids_;
  // Stacks with inline runs: the ids to write instead of the stack's own.
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> grouped_stacks_;
  // Per label set: bytes of its Label fields inside a Sample, once marked,
  // including the "trace endpoint" label it gains.
  TableVector<size_t> label_bytes_;
  TableVector<StringId> label_endpoint_;
  std::vector<uint8_t> mapping_flags_;
  SampleScaler scaler_;
  // A sample that does not fit in what is left of the stream's buffer.
  mutable std::vector<uint8_t> sample_scratch_;
  // String ids of each enabled sample type's (type, unit), in order.
  std::vector<std::pair<uint32_t, uint32_t>> sample_types_;
};

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

template <typename F>
void Encoder::ForEachSample(F&& f) const {
  // keys_ is not in the profile's order: fetch the values of the key a few
  // samples ahead, which would otherwise miss the cache.
  constexpr size_t kAhead = 8;
  size_t k = 0;
  for (const StackRun& run : stack_runs_) {
    for (; k < run.end; ++k) {
      if (k + kAhead < keys_.size()) __builtin_prefetch(p_.key_values(keys_[k + kAhead].key));
      f(run.stack, keys_[k].labels, p_.key_values(keys_[k].key), 0);
    }
  }
  if (selection_ != nullptr && !selection_->extra_values.empty()) {
    f(selection_->extra_stack, 0, selection_->extra_values.data(), 0);
  }
  if (selection_ == nullptr || selection_->timed) {
    for (size_t i = 0; i < p_.timed_count(); ++i) {
      f(p_.timed_stack(i), p_.timed_labels(i), p_.timed_values(i), p_.timed_timestamp(i));
    }
  }
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

uint8_t* Encoder::PutLabel(uint8_t* dst, StringId key, StringId str, int64_t num,
                           StringId unit) const {
  const size_t payload = FieldSize(strings_[key]) + FieldSize(strings_[str]) +
                         FieldSize(static_cast<uint64_t>(num)) +
                         FieldSize(strings_[unit]);
  dst = PutLenHeader(dst, field::kSampleLabel, payload);
  dst = PutVarintField(dst, field::kLabelKey, strings_[key]);
  dst = PutVarintField(dst, field::kLabelStr, strings_[str]);
  dst = PutVarintField(dst, field::kLabelNum, static_cast<uint64_t>(num));
  return PutVarintField(dst, field::kLabelNumUnit, strings_[unit]);
}

void Encoder::WriteValueType(CodedOutputStream* out, uint32_t field,
                             StringId type, StringId unit) const {
  WriteLenHeader(out, field,
                 FieldSize(strings_[type]) + FieldSize(strings_[unit]));
  WriteVarintField(out, field::kValueTypeType, strings_[type]);
  WriteVarintField(out, field::kValueTypeUnit, strings_[unit]);
}

void Encoder::WriteSample(CodedOutputStream* out, uint32_t stack,
                          uint32_t labels, const int64_t* recorded,
                          int64_t timestamp_ns) const {
  const int64_t* values = scaler_.Scaled(labels, recorded);
  const size_t n = p_.stored_values();
  size_t value_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    value_bytes += VarintSize(static_cast<uint64_t>(values[i]));
  }
  const size_t loc_bytes = stack_bytes_[stack];
  size_t size = LenFieldSize(value_bytes) + label_bytes_[labels];
  if (loc_bytes != 0) size += LenFieldSize(loc_bytes);
  if (timestamp_ns != 0) {
    size += LabelSize(p_.end_timestamp_key(), 0, timestamp_ns, 0);
  }

  const size_t total = LenFieldSize(size);

  auto put = [&](uint8_t* dst) {
    dst = PutLenHeader(dst, field::kProfileSample, size);
    if (loc_bytes != 0) {
      dst = PutLenHeader(dst, field::kSampleLocationId, loc_bytes);
      std::memcpy(dst, stack_ids_.data() + stack_start_[stack], loc_bytes);
      dst += loc_bytes;
    }
    dst = PutLenHeader(dst, field::kSampleValue, value_bytes);
    for (size_t i = 0; i < n; ++i) {
      dst = CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(values[i]), dst);
    }
    if (label_endpoint_[labels] != 0) {
      dst = PutLabel(dst, p_.trace_endpoint_key(), label_endpoint_[labels], 0, 0);
    }
    for (const Label& l : p_.label_sets().Get(labels)) {
      dst = PutLabel(dst, l.key, l.str, l.num, l.num_unit);
    }
    if (timestamp_ns != 0) dst = PutLabel(dst, p_.end_timestamp_key(), 0, timestamp_ns, 0);
  };
  // Straight into the stream's buffer, unless the sample straddles its end.
  if (uint8_t* dst = out->GetDirectBufferForNBytesAndAdvance(static_cast<int>(total))) {
    put(dst);
    return;
  }
  sample_scratch_.resize(total);
  put(sample_scratch_.data());
  out->WriteRaw(sample_scratch_.data(), static_cast<int>(total));
}

void Encoder::WriteMapping(CodedOutputStream* out, uint32_t id) const {
  const Mapping& m = p_.mappings().Get(id);
  const uint8_t flags = mapping_flags_[id];
  const size_t size =
      FieldSize(mappings_[id]) + FieldSize(m.memory_start) +
      FieldSize(m.memory_limit) + FieldSize(m.file_offset) +
      FieldSize(strings_[m.filename]) + FieldSize(strings_[m.build_id]) +
      FieldSize(flags & kHasFunctions) + FieldSize(flags & kHasFilenames) +
      FieldSize(flags & kHasLines);
  WriteLenHeader(out, field::kProfileMapping, size);
  WriteVarintField(out, field::kMappingId, mappings_[id]);
  WriteVarintField(out, field::kMappingMemoryStart, m.memory_start);
  WriteVarintField(out, field::kMappingMemoryLimit, m.memory_limit);
  WriteVarintField(out, field::kMappingFileOffset, m.file_offset);
  WriteVarintField(out, field::kMappingFilename, strings_[m.filename]);
  WriteVarintField(out, field::kMappingBuildId, strings_[m.build_id]);
  WriteVarintField(out, field::kMappingHasFunctions, (flags & kHasFunctions) ? 1 : 0);
  WriteVarintField(out, field::kMappingHasFilenames, (flags & kHasFilenames) ? 1 : 0);
  WriteVarintField(out, field::kMappingHasLineNumbers, (flags & kHasLines) ? 1 : 0);
}

void Encoder::WriteLocation(CodedOutputStream* out, uint32_t id) const {
  const Location& loc = p_.locations().Get(id);
  size_t line_bytes = 0;
  if (loc.function != 0) {
    line_bytes = FieldSize(functions_[loc.function]) +
                 FieldSize(static_cast<uint64_t>(loc.line));
  }
  size_t size = FieldSize(locations_[id]) + FieldSize(mappings_[loc.mapping]) +
                FieldSize(loc.address);
  if (loc.function != 0) size += LenFieldSize(line_bytes);
  WriteLenHeader(out, field::kProfileLocation, size);
  WriteVarintField(out, field::kLocationId, locations_[id]);
  WriteVarintField(out, field::kLocationMappingId, mappings_[loc.mapping]);
  WriteVarintField(out, field::kLocationAddress, loc.address);
  if (loc.function != 0) {
    WriteLenHeader(out, field::kLocationLine, line_bytes);
    WriteVarintField(out, field::kLineFunctionId, functions_[loc.function]);
    WriteVarintField(out, field::kLineLine, static_cast<uint64_t>(loc.line));
  }
}

void Encoder::WriteGroup(CodedOutputStream* out, uint32_t id) const {
  const std::vector<uint32_t>& members = groups_[id - p_.locations().size()];
  // The run shares its last frame's address and mapping; one Line per
  // frame with a function, callee first.
  const Location& caller = p_.locations().Get(members.back());
  auto line_bytes = [&](const Location& loc) {
    return FieldSize(functions_[loc.function]) + FieldSize(static_cast<uint64_t>(loc.line));
  };
  size_t size = FieldSize(locations_[id]) + FieldSize(mappings_[caller.mapping]) +
                FieldSize(caller.address);
  for (uint32_t member : members) {
    const Location& loc = p_.locations().Get(member);
    if (loc.function != 0) size += LenFieldSize(line_bytes(loc));
  }
  WriteLenHeader(out, field::kProfileLocation, size);
  WriteVarintField(out, field::kLocationId, locations_[id]);
  WriteVarintField(out, field::kLocationMappingId, mappings_[caller.mapping]);
  WriteVarintField(out, field::kLocationAddress, caller.address);
  for (uint32_t member : members) {
    const Location& loc = p_.locations().Get(member);
    if (loc.function == 0) continue;
    WriteLenHeader(out, field::kLocationLine, line_bytes(loc));
    WriteVarintField(out, field::kLineFunctionId, functions_[loc.function]);
    WriteVarintField(out, field::kLineLine, static_cast<uint64_t>(loc.line));
  }
}

void Encoder::WriteFunction(CodedOutputStream* out, uint32_t id) const {
  const Function& fn = p_.functions().Get(id);
  const size_t size = FieldSize(functions_[id]) + FieldSize(strings_[fn.name]) +
                      FieldSize(strings_[fn.system_name]) +
                      FieldSize(strings_[fn.filename]) +
                      FieldSize(static_cast<uint64_t>(fn.start_line));
  WriteLenHeader(out, field::kProfileFunction, size);
  WriteVarintField(out, field::kFunctionId, functions_[id]);
  WriteVarintField(out, field::kFunctionName, strings_[fn.name]);
  WriteVarintField(out, field::kFunctionSystemName, strings_[fn.system_name]);
  WriteVarintField(out, field::kFunctionFilename, strings_[fn.filename]);
  WriteVarintField(out, field::kFunctionStartLine,
                   static_cast<uint64_t>(fn.start_line));
}

void Encoder::Write(CodedOutputStream* out) const {
  for (const auto& [type, unit] : sample_types_) {
    WriteValueType(out, field::kProfileSampleType, type, unit);
  }
  ForEachSample([&](uint32_t stack, uint32_t labels, const int64_t* values, int64_t ts) {
    WriteSample(out, stack, labels, values, ts);
  });
  for (uint32_t id : mappings_.order()) WriteMapping(out, id);
  for (uint32_t id : locations_.order()) {
    if (id < p_.locations().size()) {
      WriteLocation(out, id);
    } else {
      WriteGroup(out, id);
    }
  }
  for (uint32_t id : functions_.order()) WriteFunction(out, id);
  // string_table[0] = "" (an empty length-delimited entry), then the rest in
  // output-index order.
  WriteLenHeader(out, field::kProfileStringTable, 0);
  for (uint32_t id : strings_.order()) {
    const absl::string_view s = p_.strings().Get(id);
    WriteLenHeader(out, field::kProfileStringTable, s.size());
    out->WriteRaw(s.data(), static_cast<int>(s.size()));
  }
  WriteVarintField(out, field::kProfileDropFrames, strings_[p_.drop_frames_id()]);
  WriteVarintField(out, field::kProfileKeepFrames, strings_[p_.keep_frames_id()]);
  WriteVarintField(out, field::kProfileTimeNanos,
                   static_cast<uint64_t>(p_.start_ns()));
  WriteVarintField(out, field::kProfileDurationNanos,
                   static_cast<uint64_t>(end_ns_ - p_.start_ns()));
  const auto [ptype, punit] = p_.period_type_ids();
  if (ptype != 0) WriteValueType(out, field::kProfilePeriodType, ptype, punit);
  WriteVarintField(out, field::kProfilePeriod,
                   static_cast<uint64_t>(p_.options().period));
  // repeated int64, packed as proto3 writes it.
  if (!p_.comment_ids().empty()) {
    size_t bytes = 0;
    for (StringId id : p_.comment_ids()) bytes += VarintSize(strings_[id]);
    WriteLenHeader(out, field::kProfileComment, bytes);
    for (StringId id : p_.comment_ids()) out->WriteVarint64(strings_[id]);
  }
  WriteVarintField(out, field::kProfileDefaultSampleType,
                   strings_[p_.default_sample_type_id()]);
}

}  // namespace

Status EncodePprof(const Profile& profile, const SerializeOptions& options,
                   int64_t end_ns, TableString* out, EncodeStats* stats,
                   const SampleSelection* selection) {
  Encoder encoder(profile, end_ns, selection);
  encoder.MarkAll();
  const std::unique_ptr<CompressingOutput> sink = CompressingOutput::Create(options, out);
  {
    CodedOutputStream coded(sink.get());
    encoder.Write(&coded);
    coded.Trim();
    if (coded.HadError()) return sink->Finish();
  }
  encoder.Count(stats);
  stats->uncompressed_bytes = static_cast<uint64_t>(sink->ByteCount());
  return sink->Finish();
}

}  // namespace stackrec
