// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "pprof_encoder.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "pprof_encoding.h"

namespace stackrec {
namespace pprof {

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

}  // namespace pprof

Status EncodePprof(const Profile& profile, const SerializeOptions& options,
                   int64_t end_ns, TableString* out, EncodeStats* stats,
                   const SampleSelection* selection) {
  pprof::Encoder encoder(profile, end_ns, selection);
  encoder.MarkAll();
  const std::unique_ptr<CompressingOutput> sink = CompressingOutput::Create(options, out);
  {
    google::protobuf::io::CodedOutputStream coded(sink.get());
    encoder.Write(&coded);
    coded.Trim();
    if (coded.HadError()) return sink->Finish();
  }
  encoder.Count(stats);
  stats->uncompressed_bytes = static_cast<uint64_t>(sink->ByteCount());
  return sink->Finish();
}

}  // namespace stackrec
