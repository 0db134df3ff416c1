// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/pprof/pprof_encoder.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "base/table_memory.h"
#include "encode/encode_plan.h"
#include "encode/output_names.h"
#include "encode/pprof/pprof_fields.h"
#include "encode/proto_wire.h"
#include "google/protobuf/io/coded_stream.h"

namespace stackrec {
namespace {

using google::protobuf::io::CodedOutputStream;

namespace field = pprof::field;

using wire::FieldSize;
using wire::LenFieldSize;
using wire::PutLenHeader;
using wire::PutVarintField;
using wire::VarintSize;
using wire::WriteLenHeader;
using wire::WriteVarintField;

constexpr size_t kUnsized = ~size_t{0};

// The num a label is written with: none for a string label. The labels of
// a trace link are the string labels that hold a number, their mark
// (input/trace_link.h); pprof gets the string alone.
int64_t LabelNum(StringId str, int64_t num) { return str != 0 ? 0 : num; }

class PprofWriter final : public FormatWriter {
 public:
  PprofWriter(const ProfileParts& p, const SerializeOptions& options, int64_t end_ns,
              EncodePlan* plan)
      : p_(p),
        names_(p, options),
        end_ns_(end_ns),
        plan_(*plan),
        strings_(plan_.strings()),
        mappings_(plan_.mappings()),
        functions_(plan_.functions()),
        locations_(plan_.locations()),
        stack_bytes_(p.tables.stacks().size(), kUnsized),
        stack_start_(p.tables.stacks().size(), 0),
        label_bytes_(p.tables.label_sets().size(), kUnsized) {}

  void MarkAll();
  void Write(CodedOutputStream* out) const override;
  // Counts of what Write writes (after MarkAll).
  uint64_t samples_written() const override;
  uint64_t strings_written() const override { return strings_.order().size() + 1; }

 private:
  // Encodes each marked stack's packed location ids once, into stack_ids_:
  // a stack is written once per key (a dozen times in typical profiles),
  // and copying its bytes costs less than encoding its ids again.
  void EncodeStacks();
  // The strings of a label set, in the order pprof's first use gives them,
  // and the bytes of its Label fields inside a Sample.
  void MarkLabels(uint32_t labels);
  size_t LabelSize(StringId key, StringId str, int64_t num, StringId unit) const;
  uint8_t* PutLabel(uint8_t* dst, StringId key, StringId str, int64_t num, StringId unit) const;
  void WriteValueType(CodedOutputStream* out, uint32_t field, StringId type, StringId unit) const;
  template <bool kForBackend>
  void WriteSample(CodedOutputStream* out, uint32_t stack, uint32_t labels, const int64_t* values,
                   int64_t timestamp_ns) const;
  void WriteMapping(CodedOutputStream* out, uint32_t id) const;
  void WriteLocation(CodedOutputStream* out, uint32_t id) const;
  void WriteGroup(CodedOutputStream* out, uint32_t id) const;
  void WriteFunction(CodedOutputStream* out, uint32_t id) const;

  const ProfileParts p_;  // by value (see profile_parts.h)
  OutputNames names_;     // the target's names (output_names.h)
  const int64_t end_ns_;
  EncodePlan& plan_;
  DenseIds& strings_;
  const DenseIds &mappings_, &functions_, &locations_;
  // Per stack: bytes of its packed location ids (kUnsized: not marked).
  TableVector<size_t> stack_bytes_;
  // Per marked stack: where its bytes start in stack_ids_.
  TableVector<size_t> stack_start_;
  TableVector<uint8_t> stack_ids_;
  // Per label set: bytes of its Label fields inside a Sample, once marked,
  // including the "trace endpoint" label it gains.
  TableVector<size_t> label_bytes_;
  // A sample that does not fit in what is left of the stream's buffer.
  mutable std::vector<uint8_t> sample_scratch_;
  // String ids of each enabled sample type's (type, unit), in order.
  std::vector<std::pair<uint32_t, uint32_t>> sample_types_;
  StringId default_type_ = 0;  // default_sample_type as written
};

void PprofWriter::EncodeStacks() {
  size_t total = 0;
  for (uint32_t stack : plan_.marked_stacks()) {
    size_t bytes = 0;
    for (uint32_t id : plan_.OutputFrames(stack)) bytes += VarintSize(locations_[id]);
    stack_bytes_[stack] = bytes;
    stack_start_[stack] = total;
    total += bytes;
  }
  stack_ids_.resize(total);
  // A local copy: the byte stores could alias the vector's pointer.
  const uint32_t* ids = locations_.data();
  for (uint32_t stack : plan_.marked_stacks()) {
    uint8_t* dst = stack_ids_.data() + stack_start_[stack];
    for (uint32_t id : plan_.OutputFrames(stack)) {
      dst = CodedOutputStream::WriteVarint32ToArray(ids[id], dst);
    }
  }
}

size_t PprofWriter::LabelSize(StringId key, StringId str, int64_t num, StringId unit) const {
  num = LabelNum(str, num);
  const size_t payload = FieldSize(strings_[key]) + FieldSize(strings_[str]) +
                         FieldSize(static_cast<uint64_t>(num)) + FieldSize(strings_[unit]);
  return LenFieldSize(payload);
}

void PprofWriter::MarkLabels(uint32_t labels) {
  const absl::Span<const Label> set = p_.tables.label_sets().Get(labels);
  for (const Label& l : set) {
    const StringId key = names_.LabelKey(l.key, l.str != 0);
    if (key == OutputNames::kDropped) continue;
    strings_.Mark(key);
    strings_.Mark(l.str);
    strings_.Mark(l.num_unit);
  }
  const StringId endpoint = plan_.endpoint(labels);
  const StringId endpoint_key =
      endpoint != 0 ? names_.LabelKey(p_.ids.trace_endpoint_key, true) : OutputNames::kDropped;
  if (endpoint_key != OutputNames::kDropped) {
    strings_.Mark(endpoint_key);
    strings_.Mark(endpoint);
  }
  // Sized once every string it writes has its output index: strings are
  // numbered in order of first use, and a label set's come all at once.
  size_t bytes = 0;
  if (endpoint_key != OutputNames::kDropped) bytes += LabelSize(endpoint_key, endpoint, 0, 0);
  for (const Label& l : set) {
    const StringId key = names_.DecidedLabelKey(l.key, l.str != 0);
    if (key != OutputNames::kDropped) bytes += LabelSize(key, l.str, l.num, l.num_unit);
  }
  label_bytes_[labels] = bytes;
}

void PprofWriter::MarkAll() {
  // Sample types first, so their strings open the string table.
  const ProfileOptions& o = p_.options;
  const std::vector<uint32_t>* columns = plan_.columns();
  uint32_t stored = 0;
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    if (!o.enabled[i]) continue;
    const uint32_t column = stored++;
    if (columns != nullptr &&
        std::find(columns->begin(), columns->end(), column) == columns->end()) {
      continue;
    }
    const StringId type = names_.SampleType(i);
    const StringId unit = p_.ids.sample_types[i].second;
    strings_.Mark(type);
    strings_.Mark(unit);
    sample_types_.emplace_back(type, unit);
  }
  plan_.Mark([&](uint32_t labels) { MarkLabels(labels); },
             [&](uint32_t mapping) { strings_.Mark(p_.tables.mappings().Get(mapping).build_id); });
  EncodeStacks();
  if (plan_.any_timed()) strings_.Mark(p_.ids.end_timestamp_key);
  if (!o.period_type.type.empty()) {
    strings_.Mark(names_.PeriodType());
    strings_.Mark(p_.ids.period_type.second);
  }
  strings_.Mark(p_.ids.drop_frames);
  strings_.Mark(p_.ids.keep_frames);
  for (StringId id : p_.ids.comments) strings_.Mark(id);
  // A profile of some of the types names a default only among them.
  default_type_ = names_.DefaultSampleType();
  if (columns != nullptr &&
      std::none_of(sample_types_.begin(), sample_types_.end(),
                   [&](const auto& type_unit) { return type_unit.first == default_type_; })) {
    default_type_ = 0;
  }
  strings_.Mark(default_type_);
}

uint64_t PprofWriter::samples_written() const {
  uint64_t samples = 0;
  plan_.ForEachSample([&](uint32_t, uint32_t, const int64_t*, int64_t) { ++samples; });
  return samples;
}

uint8_t* PprofWriter::PutLabel(uint8_t* dst, StringId key, StringId str, int64_t num,
                               StringId unit) const {
  num = LabelNum(str, num);
  const size_t payload = FieldSize(strings_[key]) + FieldSize(strings_[str]) +
                         FieldSize(static_cast<uint64_t>(num)) + FieldSize(strings_[unit]);
  dst = PutLenHeader(dst, field::kSampleLabel, payload);
  dst = PutVarintField(dst, field::kLabelKey, strings_[key]);
  dst = PutVarintField(dst, field::kLabelStr, strings_[str]);
  dst = PutVarintField(dst, field::kLabelNum, static_cast<uint64_t>(num));
  return PutVarintField(dst, field::kLabelNumUnit, strings_[unit]);
}

void PprofWriter::WriteValueType(CodedOutputStream* out, uint32_t field, StringId type,
                                 StringId unit) const {
  WriteLenHeader(out, field, FieldSize(strings_[type]) + FieldSize(strings_[unit]));
  WriteVarintField(out, field::kValueTypeType, strings_[type]);
  WriteVarintField(out, field::kValueTypeUnit, strings_[unit]);
}

template <bool kForBackend>
void PprofWriter::WriteSample(CodedOutputStream* out, uint32_t stack, uint32_t labels,
                              const int64_t* recorded, int64_t timestamp_ns) const {
  const int64_t* values = plan_.Upscaled(labels, recorded);
  const size_t n = p_.aggregate.width();
  // Only an encoding for a backend renames, drops labels or writes some of
  // the values (output_names.h, the plan's columns): every other one takes
  // the loops without, decided once per encoding (Write).
  const std::vector<uint32_t>* columns = kForBackend ? plan_.columns() : nullptr;
  size_t value_bytes = 0;
  if (columns == nullptr) {
    for (size_t i = 0; i < n; ++i) value_bytes += VarintSize(static_cast<uint64_t>(values[i]));
  } else {
    for (const uint32_t c : *columns) value_bytes += VarintSize(static_cast<uint64_t>(values[c]));
  }
  const size_t loc_bytes = stack_bytes_[stack];
  size_t size = LenFieldSize(value_bytes) + label_bytes_[labels];
  if (loc_bytes != 0) size += LenFieldSize(loc_bytes);
  if (timestamp_ns != 0) {
    size += LabelSize(p_.ids.end_timestamp_key, 0, timestamp_ns, 0);
  }

  const size_t total = LenFieldSize(size);

  // Inlined, as the compiler does on its own without the template: called
  // once per sample, the call would cost a few percent of an encoding.
  auto put = [&](uint8_t * dst) __attribute__((always_inline)) {
    dst = PutLenHeader(dst, field::kProfileSample, size);
    if (loc_bytes != 0) {
      dst = PutLenHeader(dst, field::kSampleLocationId, loc_bytes);
      std::memcpy(dst, stack_ids_.data() + stack_start_[stack], loc_bytes);
      dst += loc_bytes;
    }
    dst = PutLenHeader(dst, field::kSampleValue, value_bytes);
    if (columns == nullptr) {
      for (size_t i = 0; i < n; ++i) {
        dst = CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(values[i]), dst);
      }
    } else {
      for (const uint32_t c : *columns) {
        dst = CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(values[c]), dst);
      }
    }
    if (const StringId endpoint = plan_.endpoint(labels); endpoint != 0) {
      const StringId key = kForBackend ? names_.DecidedLabelKey(p_.ids.trace_endpoint_key, true)
                                       : p_.ids.trace_endpoint_key;
      if (key != OutputNames::kDropped) dst = PutLabel(dst, key, endpoint, 0, 0);
    }
    for (const Label& l : p_.tables.label_sets().Get(labels)) {
      if (!kForBackend) {
        dst = PutLabel(dst, l.key, l.str, l.num, l.num_unit);
        continue;
      }
      const StringId key = names_.DecidedLabelKey(l.key, l.str != 0);
      if (key != OutputNames::kDropped) dst = PutLabel(dst, key, l.str, l.num, l.num_unit);
    }
    if (timestamp_ns != 0) dst = PutLabel(dst, p_.ids.end_timestamp_key, 0, timestamp_ns, 0);
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

void PprofWriter::WriteMapping(CodedOutputStream* out, uint32_t id) const {
  const Mapping& m = p_.tables.mappings().Get(id);
  const uint8_t flags = plan_.mapping_flags(id);
  const size_t size =
      FieldSize(mappings_[id]) + FieldSize(m.memory_start) + FieldSize(m.memory_limit) +
      FieldSize(m.file_offset) + FieldSize(strings_[m.filename]) + FieldSize(strings_[m.build_id]) +
      FieldSize(flags & EncodePlan::kHasFunctions) + FieldSize(flags & EncodePlan::kHasFilenames) +
      FieldSize(flags & EncodePlan::kHasLines);
  WriteLenHeader(out, field::kProfileMapping, size);
  WriteVarintField(out, field::kMappingId, mappings_[id]);
  WriteVarintField(out, field::kMappingMemoryStart, m.memory_start);
  WriteVarintField(out, field::kMappingMemoryLimit, m.memory_limit);
  WriteVarintField(out, field::kMappingFileOffset, m.file_offset);
  WriteVarintField(out, field::kMappingFilename, strings_[m.filename]);
  WriteVarintField(out, field::kMappingBuildId, strings_[m.build_id]);
  WriteVarintField(out, field::kMappingHasFunctions, (flags & EncodePlan::kHasFunctions) ? 1 : 0);
  WriteVarintField(out, field::kMappingHasFilenames, (flags & EncodePlan::kHasFilenames) ? 1 : 0);
  WriteVarintField(out, field::kMappingHasLineNumbers, (flags & EncodePlan::kHasLines) ? 1 : 0);
}

void PprofWriter::WriteLocation(CodedOutputStream* out, uint32_t id) const {
  const Location& loc = p_.tables.locations().Get(id);
  size_t line_bytes = 0;
  if (loc.function != 0) {
    line_bytes = FieldSize(functions_[loc.function]) + FieldSize(static_cast<uint64_t>(loc.line));
  }
  size_t size =
      FieldSize(locations_[id]) + FieldSize(mappings_[loc.mapping]) + FieldSize(loc.address);
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

void PprofWriter::WriteGroup(CodedOutputStream* out, uint32_t id) const {
  const std::vector<uint32_t>& members = plan_.GroupMembers(id);
  // The run shares its last frame's address and mapping; one Line per
  // frame with a function, callee first.
  const Location& caller = p_.tables.locations().Get(members.back());
  auto line_bytes = [&](const Location& loc) {
    return FieldSize(functions_[loc.function]) + FieldSize(static_cast<uint64_t>(loc.line));
  };
  size_t size =
      FieldSize(locations_[id]) + FieldSize(mappings_[caller.mapping]) + FieldSize(caller.address);
  for (uint32_t member : members) {
    const Location& loc = p_.tables.locations().Get(member);
    if (loc.function != 0) size += LenFieldSize(line_bytes(loc));
  }
  WriteLenHeader(out, field::kProfileLocation, size);
  WriteVarintField(out, field::kLocationId, locations_[id]);
  WriteVarintField(out, field::kLocationMappingId, mappings_[caller.mapping]);
  WriteVarintField(out, field::kLocationAddress, caller.address);
  for (uint32_t member : members) {
    const Location& loc = p_.tables.locations().Get(member);
    if (loc.function == 0) continue;
    WriteLenHeader(out, field::kLocationLine, line_bytes(loc));
    WriteVarintField(out, field::kLineFunctionId, functions_[loc.function]);
    WriteVarintField(out, field::kLineLine, static_cast<uint64_t>(loc.line));
  }
}

void PprofWriter::WriteFunction(CodedOutputStream* out, uint32_t id) const {
  const Function& fn = p_.tables.functions().Get(id);
  const size_t size = FieldSize(functions_[id]) + FieldSize(strings_[fn.name]) +
                      FieldSize(strings_[fn.system_name]) + FieldSize(strings_[fn.filename]) +
                      FieldSize(static_cast<uint64_t>(fn.start_line));
  WriteLenHeader(out, field::kProfileFunction, size);
  WriteVarintField(out, field::kFunctionId, functions_[id]);
  WriteVarintField(out, field::kFunctionName, strings_[fn.name]);
  WriteVarintField(out, field::kFunctionSystemName, strings_[fn.system_name]);
  WriteVarintField(out, field::kFunctionFilename, strings_[fn.filename]);
  WriteVarintField(out, field::kFunctionStartLine, static_cast<uint64_t>(fn.start_line));
}

void PprofWriter::Write(CodedOutputStream* out) const {
  for (const auto& [type, unit] : sample_types_) {
    WriteValueType(out, field::kProfileSampleType, type, unit);
  }
  if (names_.active()) {
    plan_.ForEachSample([&](uint32_t stack, uint32_t labels, const int64_t* values, int64_t ts) {
      WriteSample<true>(out, stack, labels, values, ts);
    });
  } else {
    plan_.ForEachSample([&](uint32_t stack, uint32_t labels, const int64_t* values, int64_t ts) {
      WriteSample<false>(out, stack, labels, values, ts);
    });
  }
  for (uint32_t id : mappings_.order()) WriteMapping(out, id);
  for (uint32_t id : locations_.order()) {
    if (!plan_.IsGroup(id)) {
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
    wire::WriteBytesField(out, field::kProfileStringTable, names_.Text(id));
  }
  WriteVarintField(out, field::kProfileDropFrames, strings_[p_.ids.drop_frames]);
  WriteVarintField(out, field::kProfileKeepFrames, strings_[p_.ids.keep_frames]);
  WriteVarintField(out, field::kProfileTimeNanos, static_cast<uint64_t>(p_.start_ns));
  WriteVarintField(out, field::kProfileDurationNanos, static_cast<uint64_t>(end_ns_ - p_.start_ns));
  if (p_.ids.period_type.first != 0) {
    WriteValueType(out, field::kProfilePeriodType, names_.PeriodType(), p_.ids.period_type.second);
  }
  WriteVarintField(out, field::kProfilePeriod, static_cast<uint64_t>(p_.options.period));
  // repeated int64, packed as proto3 writes it.
  if (!p_.ids.comments.empty()) {
    size_t bytes = 0;
    for (StringId id : p_.ids.comments) bytes += VarintSize(strings_[id]);
    WriteLenHeader(out, field::kProfileComment, bytes);
    for (StringId id : p_.ids.comments) out->WriteVarint64(strings_[id]);
  }
  WriteVarintField(out, field::kProfileDefaultSampleType, strings_[default_type_]);
}

}  // namespace

std::unique_ptr<FormatWriter> MakePprofWriter(const ProfileParts& parts,
                                              const SerializeOptions& options, int64_t end_ns,
                                              EncodePlan* plan) {
  auto writer = std::make_unique<PprofWriter>(parts, options, end_ns, plan);
  writer->MarkAll();
  return writer;
}

}  // namespace stackrec
