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
#include "google/protobuf/io/coded_stream.h"
#include "table_growth.h"
#include "table_memory.h"

namespace stackrec {
namespace {

using google::protobuf::io::CodedOutputStream;

// profile.proto field numbers (see src/profile.proto).
namespace field {
constexpr uint32_t kProfileSampleType = 1, kProfileSample = 2,
                   kProfileMapping = 3, kProfileLocation = 4,
                   kProfileFunction = 5, kProfileStringTable = 6,
                   kProfileDropFrames = 7, kProfileKeepFrames = 8,
                   kProfileTimeNanos = 9, kProfileDurationNanos = 10,
                   kProfilePeriodType = 11, kProfilePeriod = 12,
                   kProfileComment = 13, kProfileDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2, kSampleLabel = 3;
constexpr uint32_t kLabelKey = 1, kLabelStr = 2, kLabelNum = 3,
                   kLabelNumUnit = 4;
constexpr uint32_t kMappingId = 1, kMappingMemoryStart = 2,
                   kMappingMemoryLimit = 3, kMappingFileOffset = 4,
                   kMappingFilename = 5, kMappingBuildId = 6,
                   kMappingHasFunctions = 7, kMappingHasFilenames = 8,
                   kMappingHasLineNumbers = 9;
constexpr uint32_t kLocationId = 1, kLocationMappingId = 2,
                   kLocationAddress = 3, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1, kLineLine = 2;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2,
                   kFunctionSystemName = 3, kFunctionFilename = 4,
                   kFunctionStartLine = 5;
}  // namespace field

constexpr uint32_t kVarint = 0, kLen = 2;
constexpr uint32_t Tag(uint32_t field, uint32_t wire) {
  return (field << 3) | wire;
}

size_t VarintSize(uint64_t v) { return CodedOutputStream::VarintSize64(v); }

// Bytes of an optional varint field (tags here all fit in one byte).
size_t FieldSize(uint64_t v) { return v == 0 ? 0 : 1 + VarintSize(v); }
// Bytes of a length-delimited field holding `payload` bytes.
size_t LenFieldSize(size_t payload) { return 1 + VarintSize(payload) + payload; }

void WriteVarintField(CodedOutputStream* out, uint32_t field, uint64_t v) {
  if (v == 0) return;
  out->WriteTag(Tag(field, kVarint));
  out->WriteVarint64(v);
}

void WriteLenHeader(CodedOutputStream* out, uint32_t field, size_t payload) {
  out->WriteTag(Tag(field, kLen));
  out->WriteVarint64(payload);
}

// The same, into a buffer known to have room: for samples, the bulk of the
// output, where CodedOutputStream's bounds check at every field would cost
// more than the writing.
uint8_t* PutVarintField(uint8_t* dst, uint32_t field, uint64_t v) {
  if (v == 0) return dst;
  *dst++ = static_cast<uint8_t>(Tag(field, kVarint));
  return CodedOutputStream::WriteVarint64ToArray(v, dst);
}

uint8_t* PutLenHeader(uint8_t* dst, uint32_t field, size_t payload) {
  *dst++ = static_cast<uint8_t>(Tag(field, kLen));
  return CodedOutputStream::WriteVarint64ToArray(payload, dst);
}

constexpr uint32_t kUnmarked = 0;
constexpr size_t kUnsized = ~size_t{0};

// Maps the ids of one internal table to dense output ids in order of first
// use (output id 0 stays "none").
class Remap {
 public:
  explicit Remap(size_t n) : out_(n, kUnmarked) {}
  // Returns true the first time `id` is marked. Ids past the table's size
  // are the encoder's own (inline groups): room is made for them.
  bool Mark(uint32_t id) {
    if (id >= out_.size()) out_.resize(size_t{id} + 1, kUnmarked);
    if (id == 0 || out_[id] != kUnmarked) return false;
    order_.push_back(id);
    out_[id] = static_cast<uint32_t>(order_.size());
    return true;
  }
  uint32_t operator[](uint32_t id) const { return out_[id]; }
  const TableVector<uint32_t>& order() const { return order_; }
  // Output id by id, for loops whose byte stores would otherwise make the
  // compiler reload the vector's data pointer at every element.
  const uint32_t* data() const { return out_.data(); }
  // Renumbers the marked ids by descending weight[id] (ties keep their
  // order), so that the most used get the shortest varints.
  void SortByWeight(const TableVector<uint64_t>& weight) {
    std::stable_sort(order_.begin(), order_.end(),
                     [&](uint32_t a, uint32_t b) { return weight[a] > weight[b]; });
    for (size_t i = 0; i < order_.size(); ++i) out_[order_[i]] = static_cast<uint32_t>(i + 1);
  }
  size_t capacity() const { return out_.size(); }

 private:
  TableVector<uint32_t> out_;
  TableVector<uint32_t> order_;
};

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
        label_rules_(p.label_sets().size(), 0),
        mapping_flags_(p.mappings().size(), 0) {}

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
  // Resolves the upscaling rules' labels to this profile's string ids.
  void PrepareRules();
  // The values to write: `values` itself, or upscaled into scaled_.
  const int64_t* Upscaled(uint32_t labels, const int64_t* values) const;
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
  Remap strings_, mappings_, functions_, locations_;
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
  // Per label set: bit r set when upscaling rule r matches it by label.
  TableVector<uint64_t> label_rules_;
  std::vector<uint8_t> mapping_flags_;
  // Upscaling: the rules matching every sample, each rule's label as string
  // ids (key 0: matches no label set here), declared value offset -> stored
  // index (-1: disabled), and a buffer for one sample's scaled values.
  uint64_t unconditional_rules_ = 0;
  std::vector<std::pair<StringId, StringId>> rule_labels_;
  std::vector<int> stored_index_;
  mutable std::vector<int64_t> scaled_;
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
  const auto& rules = p_.upscaling_rules().rules();
  for (size_t r = 0; r < rules.size(); ++r) {
    const auto [key, str] = rule_labels_[r];
    if (key == 0) continue;
    for (const Label& l : set) {
      if (l.key != key) continue;
      const bool match = rules[r].label_str.empty()
                             ? l.str == 0 && l.num == rules[r].label_num
                             : l.str == str;
      if (match) label_rules_[labels] |= uint64_t{1} << r;
    }
  }
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

void Encoder::PrepareRules() {
  const ProfileOptions& o = p_.options();
  int stored = 0;
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    stored_index_.push_back(o.enabled[i] ? stored++ : -1);
  }
  const auto& rules = p_.upscaling_rules().rules();
  for (size_t r = 0; r < rules.size(); ++r) {
    const UpscalingRule& rule = rules[r];
    if (rule.label_key.empty()) {
      unconditional_rules_ |= uint64_t{1} << r;
      rule_labels_.emplace_back(0, 0);
      continue;
    }
    // A string the profile never interned is on no label: key 0.
    const StringId key = p_.strings().Find(rule.label_key);
    const StringId str = rule.label_str.empty() ? 0 : p_.strings().Find(rule.label_str);
    const bool findable = rule.label_str.empty() || str != 0;
    rule_labels_.emplace_back(findable ? key : 0, str);
  }
  scaled_.resize(p_.stored_values());
}

const int64_t* Encoder::Upscaled(uint32_t labels, const int64_t* values) const {
  uint64_t rules = unconditional_rules_ | label_rules_[labels];
  if (rules == 0) return values;
  std::copy(values, values + p_.stored_values(), scaled_.begin());
  // Offsets of the rules applying to one sample never overlap (see
  // upscaling.h), so each reads the values as recorded.
  auto value_at = [&](size_t offset) { return values[stored_index_[offset]]; };
  const auto& all = p_.upscaling_rules().rules();
  while (rules != 0) {
    const UpscalingRule& rule = all[static_cast<size_t>(__builtin_ctzll(rules))];
    rules &= rules - 1;
    const double scale = UpscalingFactor(rule, value_at);
    for (size_t offset : rule.offsets) {
      const int i = stored_index_[offset];
      scaled_[i] = ScaleValue(values[i], scale);
    }
  }
  return scaled_.data();
}

void Encoder::MarkAll() {
  PrepareRules();
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
  const int64_t* values = Upscaled(labels, recorded);
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

Status EncodePprofWithinLimit(Profile& profile, const SerializeOptions& options,
                              int64_t end_ns, TableString* out, EncodeStats* stats) {
  const size_t limit = profile.options().max_output_bytes;
  *stats = EncodeStats();
  const size_t start = out->size();
  STACKREC_RETURN_IF_ERROR(EncodePprof(profile, options, end_ns, out, stats));
  size_t size = out->size() - start;
  if (size <= limit) return OkStatus();

  // Heaviest first, so that what is kept is what matters most.
  const size_t n = profile.key_count();
  const size_t values = profile.stored_values();
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  auto weight = [&](uint32_t i) {
    const int64_t v = profile.key_values(i)[0];
    return v == INT64_MIN ? INT64_MAX : (v < 0 ? -v : v);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return weight(a) > weight(b); });

  SampleSelection selection;
  selection.timed = false;
  selection.extra_stack = profile.InternPseudoStack(kOutputLimitFrame);
  size_t keep = n;
  for (;;) {
    // Aim below the limit by the measured ratio; sizes are not linear in
    // the sample count, so shrink further until it fits.
    keep = std::min(keep - (keep == 0 ? 0 : 1),
                    static_cast<size_t>(static_cast<double>(keep) * 0.9 *
                                        static_cast<double>(limit) / static_cast<double>(size)));
    selection.keys.assign(order.begin(), order.begin() + static_cast<ptrdiff_t>(keep));
    selection.extra_values.assign(values, 0);
    auto add = [&](const int64_t* v) {
      for (size_t k = 0; k < values; ++k) {
        selection.extra_values[k] = SaturatingAdd(selection.extra_values[k], v[k]);
      }
    };
    for (size_t i = keep; i < n; ++i) add(profile.key_values(order[i]));
    for (size_t i = 0; i < profile.timed_count(); ++i) add(profile.timed_values(i));
    out->resize(start);
    STACKREC_RETURN_IF_ERROR(EncodePprof(profile, options, end_ns, out, stats, &selection));
    size = out->size() - start;
    if (size <= limit) {
      stats->samples_left_out = (n - keep) + profile.timed_count();
      return OkStatus();
    }
    if (keep == 0) break;
  }
  out->resize(start);
  return Error(Code::kLimitExceeded,
               "opts.max_output_bytes is %zu, less than the %zu bytes of a "
               "profile holding only the \"[stackrec: output limit]\" sample",
               limit, size);
}

Status SerializeProfile(Profile& profile, const SerializeOptions& options,
                        int64_t end_ns, TableString* out, SerializationStats* stats,
                        OutputSizes* sizes) {
  if (sizes != nullptr) {
    out->reserve(
        std::min(sizes->Expected(options.compression), profile.options().max_output_bytes));
  }
  *stats = SerializationStats();
  stats->samples_added = profile.samples_added();
  stats->samples_truncated = profile.samples_truncated();
  stats->samples_over_memory = profile.samples_over_memory();
  const int64_t start = MonotonicNanos();
  const Status status = EncodePprofWithinLimit(profile, options, end_ns, out, &stats->encoded);
  stats->encode_ns = MonotonicNanos() - start;
  if (sizes != nullptr && status.ok()) sizes->Record(options.compression, out->size());
  return status;
}

}  // namespace stackrec
