// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/otlp/otlp_encoder.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/table_growth.h"
#include "encode/otlp/otlp_dictionary.h"
#include "encode/otlp/otlp_fields.h"
#include "encode/proto_wire.h"
#include "google/protobuf/io/coded_stream.h"

namespace stackrec {
namespace {

using google::protobuf::io::CodedOutputStream;
using wire::FieldSize;
using wire::LenFieldSize;
using wire::PutLenHeader;
using wire::PutVarintField;
using wire::VarintSize;
using wire::WriteLenHeader;
using wire::WriteVarintField;

using KeyValues = std::vector<std::pair<absl::string_view, absl::string_view>>;

// A common.v1.KeyValue of a string value, its key inline (a resource's and
// a scope's attributes are not in the dictionary).
size_t KeyValueSize(absl::string_view key, absl::string_view value) {
  return LenFieldSize(key.size()) + LenFieldSize(LenFieldSize(value.size()));
}

void WriteKeyValue(CodedOutputStream* out, uint32_t field, absl::string_view key,
                   absl::string_view value) {
  WriteLenHeader(out, field, KeyValueSize(key, value));
  wire::WriteBytesField(out, otlp::kKeyValueKey, key);
  // The value's string is written even when empty: an AnyValue without it
  // would be no value at all.
  WriteLenHeader(out, otlp::kKeyValueValue, LenFieldSize(value.size()));
  wire::WriteBytesField(out, otlp::kAnyValueString, value);
}

class OtlpWriter final : public FormatWriter {
 public:
  OtlpWriter(const ProfileParts& p, const SerializeOptions& options, int64_t end_ns,
             EncodePlan* plan)
      : p_(p), options_(options.otlp), end_ns_(end_ns), dict_(p, plan) {}

  void Build();
  void Write(CodedOutputStream* out) const override;
  uint64_t samples_written() const override { return rows_.size() + groups_.size(); }
  uint64_t strings_written() const override { return dict_.strings_written(); }

 private:
  // An untimed sample, read from the profile once: its stack_table index,
  // its label set, and the bytes of its fields but the value. Its values are
  // values_[t][i], upscaled. Every Profile writes every sample, so reading
  // the profile's rows once (a cache miss each) and writing each Profile from
  // these arrays costs less than reading the rows again for each type.
  struct Row {
    uint32_t stack_index, labels, key_bytes;
  };
  // Timestamped samples of one stack and label set: one OTLP Sample.
  struct TimedGroup {
    uint32_t stack, labels;
    std::vector<std::pair<const int64_t*, int64_t>> samples;  // values, timestamp
  };
  void GroupTimed();
  void ReadUntimed();
  // Bytes of a Sample's fields but its values and timestamps.
  size_t KeyBytes(uint32_t stack, uint32_t labels) const {
    const size_t attributes = dict_.LabelAttributes(labels).size();
    return FieldSize(dict_.StackIndex(stack)) + (attributes == 0 ? 0 : LenFieldSize(attributes)) +
           FieldSize(dict_.LabelLink(labels));
  }
  // Bytes of a timed group's packed values of stored type `t`.
  size_t GroupValueBytes(const TimedGroup& g, size_t t) const;
  void SizeSamples();
  // The interval of a Profile: the profile's, or for the Profiles of
  // timestamped samples the smallest that holds it and every timestamp.
  std::pair<int64_t, int64_t> Interval(bool timed) const {
    return timed ? timed_interval_ : std::pair<int64_t, int64_t>{p_.start_ns, end_ns_};
  }
  // Profile `t` of the untimed samples, or (`timed`) of the timestamped.
  size_t ProfileSize(size_t t, bool timed) const;
  size_t ScopeSize() const;
  size_t ScopeProfilesSize() const;
  size_t ResourceSize() const;
  size_t ResourceProfilesSize() const;
  void WriteValueType(CodedOutputStream* out, uint32_t field,
                      std::pair<StringId, StringId> type) const;
  void WriteProfile(CodedOutputStream* out, size_t t, bool timed) const;
  void WriteSample(CodedOutputStream* out, const Row& row, int64_t value) const;
  void WriteGroup(CodedOutputStream* out, const TimedGroup& g, size_t t) const;
  // `bytes` bytes written by put(dst) straight into the stream's buffer,
  // or through scratch_ where they straddle its end.
  template <typename Put>
  void Emit(CodedOutputStream* out, size_t bytes, Put&& put) const;

  const ProfileParts p_;  // by value (see profile_parts.h)
  const OtlpOptions& options_;
  const int64_t end_ns_;
  OtlpDictionary dict_;
  TableVector<Row> rows_;
  std::vector<TableVector<int64_t>> values_;  // per enabled type, per row
  std::vector<TimedGroup> groups_;
  std::pair<int64_t, int64_t> timed_interval_;  // [start, end) of the timed Profiles
  // Per enabled type: its (type, unit) string ids, the bytes of its
  // untimed and of its timed samples.
  std::vector<std::pair<StringId, StringId>> types_;
  std::vector<size_t> untimed_bytes_, timed_bytes_;
  KeyValues resource_;
  absl::string_view scope_name_, scope_version_;
  mutable std::vector<uint8_t> scratch_;
};

void OtlpWriter::GroupTimed() {
  absl::flat_hash_map<uint64_t, size_t> group_of;
  timed_interval_ = {p_.start_ns, end_ns_};
  dict_.plan().ForEachTimed(
      [&](uint32_t stack, uint32_t labels, const int64_t* values, int64_t ts) {
        // A sample timestamped before the interval began (stamped just
        // before a flip, recorded just after it) or after it ended widens
        // the timed Profiles' interval: its timestamp is written as given.
        timed_interval_.first = std::min(timed_interval_.first, ts);
        timed_interval_.second = std::max(timed_interval_.second, ts + 1);
        GrowBeforeInsert(group_of);
        const auto [it, inserted] =
            group_of.try_emplace(uint64_t{stack} << 32 | labels, groups_.size());
        if (inserted) groups_.push_back({stack, labels, {}});
        groups_[it->second].samples.emplace_back(values, ts);
      });
}

size_t OtlpWriter::GroupValueBytes(const TimedGroup& g, size_t t) const {
  size_t bytes = 0;
  for (const auto& [values, ts] : g.samples) {
    bytes += VarintSize(static_cast<uint64_t>(dict_.plan().Upscaled(g.labels, values)[t]));
  }
  return bytes;
}

void OtlpWriter::ReadUntimed() {
  const size_t n = types_.size();
  values_.resize(n);
  const SampleSelection* selection = dict_.plan().selection();
  const size_t rows =
      (selection == nullptr ? p_.aggregate.key_count() : selection->keys.size()) + 1;
  rows_.reserve(rows);
  for (TableVector<int64_t>& column : values_) column.reserve(rows);
  dict_.plan().ForEachUntimed(
      [&](uint32_t stack, uint32_t labels, const int64_t* recorded, int64_t) {
        rows_.push_back(
            {dict_.StackIndex(stack), labels, static_cast<uint32_t>(KeyBytes(stack, labels))});
        const int64_t* values = dict_.plan().Upscaled(labels, recorded);
        for (size_t t = 0; t < n; ++t) values_[t].push_back(values[t]);
      });
}

void OtlpWriter::SizeSamples() {
  const size_t n = types_.size();
  untimed_bytes_.assign(n, 0);
  timed_bytes_.assign(n, 0);
  for (size_t t = 0; t < n; ++t) {
    const int64_t* values = values_[t].data();
    size_t bytes = 0;
    for (size_t i = 0; i < rows_.size(); ++i) {
      bytes += LenFieldSize(rows_[i].key_bytes +
                            LenFieldSize(VarintSize(static_cast<uint64_t>(values[i]))));
    }
    untimed_bytes_[t] = bytes;
  }
  for (const TimedGroup& g : groups_) {
    const size_t key = KeyBytes(g.stack, g.labels) + LenFieldSize(8 * g.samples.size());
    for (size_t t = 0; t < n; ++t) {
      timed_bytes_[t] += LenFieldSize(key + LenFieldSize(GroupValueBytes(g, t)));
    }
  }
}

void OtlpWriter::Build() {
  dict_.Build();
  const ProfileOptions& o = p_.options;
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    if (o.enabled[i]) types_.push_back(p_.ids.sample_types[i]);
  }
  GroupTimed();
  ReadUntimed();
  SizeSamples();
  // service.name first, unless the host gave it among the attributes.
  bool named = !options_.service_name.empty();
  for (const auto& [key, value] : options_.resource_attributes) {
    named = named || key == kServiceNameKey;
  }
  if (!named || !options_.service_name.empty()) {
    resource_.emplace_back(kServiceNameKey,
                           named ? absl::string_view(options_.service_name) : kUnknownService);
  }
  for (const auto& [key, value] : options_.resource_attributes) resource_.emplace_back(key, value);
  scope_name_ = options_.scope_name.empty() ? kStackrecScopeName : options_.scope_name;
  scope_version_ = options_.scope_name.empty() ? kStackrecVersion : options_.scope_version;
}

size_t OtlpWriter::ProfileSize(size_t t, bool timed) const {
  auto value_type = [&](std::pair<StringId, StringId> type) {
    return LenFieldSize(FieldSize(dict_.StrIndex(type.first)) +
                        FieldSize(dict_.StrIndex(type.second)));
  };
  size_t size = value_type(types_[t]) + (timed ? timed_bytes_[t] : untimed_bytes_[t]);
  const auto [start, end] = Interval(timed);
  if (start != 0) size += 1 + 8;
  size += FieldSize(static_cast<uint64_t>(end - start));
  if (!p_.options.period_type.type.empty()) size += value_type(p_.ids.period_type);
  size += FieldSize(static_cast<uint64_t>(p_.options.period));
  const size_t attributes = dict_.ProfileAttributes().size();
  if (attributes != 0) size += LenFieldSize(attributes);
  return size;
}

size_t OtlpWriter::ScopeSize() const {
  size_t size = LenFieldSize(scope_name_.size());
  if (!scope_version_.empty()) size += LenFieldSize(scope_version_.size());
  if (p_.ids.default_sample_type != 0) {
    size += LenFieldSize(
        KeyValueSize(kDefaultSampleTypeKey, p_.tables.strings().Get(p_.ids.default_sample_type)));
  }
  return size;
}

size_t OtlpWriter::ScopeProfilesSize() const {
  size_t size = LenFieldSize(ScopeSize());
  for (size_t t = 0; t < types_.size(); ++t) size += LenFieldSize(ProfileSize(t, false));
  if (!groups_.empty()) {
    for (size_t t = 0; t < types_.size(); ++t) size += LenFieldSize(ProfileSize(t, true));
  }
  return size;
}

size_t OtlpWriter::ResourceSize() const {
  size_t size = 0;
  for (const auto& [key, value] : resource_) size += LenFieldSize(KeyValueSize(key, value));
  return size;
}

size_t OtlpWriter::ResourceProfilesSize() const {
  return LenFieldSize(ResourceSize()) + LenFieldSize(ScopeProfilesSize());
}

template <typename Put>
void OtlpWriter::Emit(CodedOutputStream* out, size_t bytes, Put&& put) const {
  if (uint8_t* dst = out->GetDirectBufferForNBytesAndAdvance(static_cast<int>(bytes))) {
    put(dst);
    return;
  }
  scratch_.resize(bytes);
  put(scratch_.data());
  out->WriteRaw(scratch_.data(), static_cast<int>(bytes));
}

void OtlpWriter::WriteSample(CodedOutputStream* out, const Row& row, int64_t value) const {
  const absl::Span<const uint8_t> attributes = dict_.LabelAttributes(row.labels);
  const size_t value_bytes = VarintSize(static_cast<uint64_t>(value));
  const size_t size = row.key_bytes + LenFieldSize(value_bytes);
  Emit(out, LenFieldSize(size), [&](uint8_t* dst) {
    dst = PutLenHeader(dst, otlp::kProfileSamples, size);
    dst = PutVarintField(dst, otlp::kSampleStackIndex, row.stack_index);
    if (!attributes.empty()) {
      dst = PutLenHeader(dst, otlp::kSampleAttributeIndices, attributes.size());
      std::memcpy(dst, attributes.data(), attributes.size());
      dst += attributes.size();
    }
    dst = PutVarintField(dst, otlp::kSampleLinkIndex, dict_.LabelLink(row.labels));
    dst = PutLenHeader(dst, otlp::kSampleValues, value_bytes);
    CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(value), dst);
  });
}

void OtlpWriter::WriteGroup(CodedOutputStream* out, const TimedGroup& g, size_t t) const {
  const absl::Span<const uint8_t> attributes = dict_.LabelAttributes(g.labels);
  const size_t value_bytes = GroupValueBytes(g, t);
  const size_t timestamp_bytes = 8 * g.samples.size();
  const size_t size =
      KeyBytes(g.stack, g.labels) + LenFieldSize(value_bytes) + LenFieldSize(timestamp_bytes);
  Emit(out, LenFieldSize(size), [&](uint8_t* dst) {
    dst = PutLenHeader(dst, otlp::kProfileSamples, size);
    dst = PutVarintField(dst, otlp::kSampleStackIndex, dict_.StackIndex(g.stack));
    if (!attributes.empty()) {
      dst = PutLenHeader(dst, otlp::kSampleAttributeIndices, attributes.size());
      std::memcpy(dst, attributes.data(), attributes.size());
      dst += attributes.size();
    }
    dst = PutVarintField(dst, otlp::kSampleLinkIndex, dict_.LabelLink(g.labels));
    dst = PutLenHeader(dst, otlp::kSampleValues, value_bytes);
    for (const auto& [values, ts] : g.samples) {
      const int64_t v = dict_.plan().Upscaled(g.labels, values)[t];
      dst = CodedOutputStream::WriteVarint64ToArray(static_cast<uint64_t>(v), dst);
    }
    dst = PutLenHeader(dst, otlp::kSampleTimestamps, timestamp_bytes);
    for (const auto& [values, ts] : g.samples) {
      dst = CodedOutputStream::WriteLittleEndian64ToArray(static_cast<uint64_t>(ts), dst);
    }
  });
}

void OtlpWriter::WriteValueType(CodedOutputStream* out, uint32_t field,
                                std::pair<StringId, StringId> type) const {
  const uint32_t name = dict_.StrIndex(type.first), unit = dict_.StrIndex(type.second);
  WriteLenHeader(out, field, FieldSize(name) + FieldSize(unit));
  WriteVarintField(out, otlp::kValueTypeType, name);
  WriteVarintField(out, otlp::kValueTypeUnit, unit);
}

void OtlpWriter::WriteProfile(CodedOutputStream* out, size_t t, bool timed) const {
  WriteLenHeader(out, otlp::kScopeProfilesProfiles, ProfileSize(t, timed));
  WriteValueType(out, otlp::kProfileSampleType, types_[t]);
  if (timed) {
    for (const TimedGroup& g : groups_) WriteGroup(out, g, t);
  } else {
    for (size_t i = 0; i < rows_.size(); ++i) WriteSample(out, rows_[i], values_[t][i]);
  }
  const auto [start, end] = Interval(timed);
  if (start != 0) {
    out->WriteTag(wire::Tag(otlp::kProfileTimeUnixNano, wire::kFixed64));
    out->WriteLittleEndian64(static_cast<uint64_t>(start));
  }
  WriteVarintField(out, otlp::kProfileDurationNano, static_cast<uint64_t>(end - start));
  if (!p_.options.period_type.type.empty()) {
    WriteValueType(out, otlp::kProfilePeriodType, p_.ids.period_type);
  }
  WriteVarintField(out, otlp::kProfilePeriod, static_cast<uint64_t>(p_.options.period));
  const absl::Span<const uint8_t> attributes = dict_.ProfileAttributes();
  if (!attributes.empty()) {
    WriteLenHeader(out, otlp::kProfileAttributeIndices, attributes.size());
    out->WriteRaw(attributes.data(), static_cast<int>(attributes.size()));
  }
}

void OtlpWriter::Write(CodedOutputStream* out) const {
  WriteLenHeader(out, otlp::kRequestResourceProfiles, ResourceProfilesSize());
  WriteLenHeader(out, otlp::kResourceProfilesResource, ResourceSize());
  for (const auto& [key, value] : resource_) {
    WriteKeyValue(out, otlp::kResourceAttributes, key, value);
  }
  WriteLenHeader(out, otlp::kResourceProfilesScopeProfiles, ScopeProfilesSize());
  WriteLenHeader(out, otlp::kScopeProfilesScope, ScopeSize());
  wire::WriteBytesField(out, otlp::kScopeName, scope_name_);
  if (!scope_version_.empty()) wire::WriteBytesField(out, otlp::kScopeVersion, scope_version_);
  if (p_.ids.default_sample_type != 0) {
    WriteKeyValue(out, otlp::kScopeAttributes, kDefaultSampleTypeKey,
                  p_.tables.strings().Get(p_.ids.default_sample_type));
  }
  // The untimed samples' Profiles, one per enabled type; then, if any
  // sample has a timestamp, the timestamped samples' Profiles, in the same
  // order: a Profile's samples all have timestamps or none do (one shape),
  // and a key recorded both ways is a Sample in each, never two Samples of
  // one identity in one Profile.
  for (size_t t = 0; t < types_.size(); ++t) WriteProfile(out, t, false);
  if (!groups_.empty()) {
    for (size_t t = 0; t < types_.size(); ++t) WriteProfile(out, t, true);
  }
  WriteLenHeader(out, otlp::kRequestDictionary, dict_.ByteSize());
  dict_.Write(out);
}

}  // namespace

std::unique_ptr<FormatWriter> MakeOtlpWriter(const ProfileParts& parts,
                                             const SerializeOptions& options, int64_t end_ns,
                                             EncodePlan* plan) {
  auto writer = std::make_unique<OtlpWriter>(parts, options, end_ns, plan);
  writer->Build();
  return writer;
}

}  // namespace stackrec
