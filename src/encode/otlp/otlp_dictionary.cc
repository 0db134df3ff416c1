// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/otlp/otlp_dictionary.h"

#include <cassert>

#include "base/table_growth.h"
#include "encode/otlp/otlp_fields.h"
#include "encode/proto_wire.h"
#include "input/trace_link.h"

namespace stackrec {
namespace {

using google::protobuf::io::CodedOutputStream;
using wire::FieldSize;
using wire::LenFieldSize;
using wire::VarintSize;
using wire::WriteLenHeader;
using wire::WriteVarintField;

// Every Link's size: ids of the lengths trace.proto gives them. The zero
// Link of link_table[0] has them too, all zero, which codecs that check the
// lengths accept.
constexpr size_t kLinkSize = (2 + kTraceIdBytes) + (2 + kSpanIdBytes);

}  // namespace

OtlpDictionary::OtlpDictionary(const ProfileParts& p, EncodePlan* plan)
    : p_(p),
      plan_(*plan),
      label_start_(p.tables.label_sets().size(), 0),
      label_size_(p.tables.label_sets().size(), 0),
      label_link_(p.tables.label_sets().size(), 0) {}

uint32_t OtlpDictionary::Ref(absl::string_view s) {
  // A key the profile interned (a label of that name) is that string.
  if (const StringId id = p_.tables.strings().Find(s); id != 0) {
    plan_.strings().Mark(id);
    return id;
  }
  GrowBeforeInsert(refs_);
  const auto [it, inserted] = refs_.try_emplace(s, static_cast<uint32_t>(extra_.size()));
  if (inserted) extra_.push_back(s);
  return it->second | kExtraBit;
}

uint32_t OtlpDictionary::AttributeIndex(const Attribute& a) {
  GrowBeforeInsert(attribute_index_);
  const auto [it, inserted] =
      attribute_index_.try_emplace(AttributeKey{a.kind, a.key, a.str, a.num, a.unit},
                                   static_cast<uint32_t>(attributes_.size() + 1));
  if (inserted) attributes_.push_back(a);
  return it->second;
}

template <typename Bytes>
uint32_t OtlpDictionary::Pack(absl::Span<const uint32_t> indices, Bytes* bytes) {
  const size_t start = bytes->size();
  for (uint32_t i : indices) {
    uint8_t buf[8];
    uint8_t* end = CodedOutputStream::WriteVarint32ToArray(i, buf);
    bytes->insert(bytes->end(), +buf, end);
  }
  return static_cast<uint32_t>(bytes->size() - start);
}

void OtlpDictionary::AddLabelSet(uint32_t labels) {
  DenseIds& strings = plan_.strings();
  scratch_.clear();
  if (const StringId endpoint = plan_.endpoint(labels); endpoint != 0) {
    strings.Mark(p_.ids.trace_endpoint_key);
    scratch_.push_back(AttributeIndex({Kind::kString, p_.ids.trace_endpoint_key, endpoint, 0, 0}));
  }
  StringId link[kLinkLabels] = {0, 0};  // the hex of its trace id and span id
  for (const Label& l : p_.tables.label_sets().Get(labels)) {
    if (l.str != 0 && l.num == kLinkLabelNum) {  // a link's (input/trace_link.h)
      link[p_.tables.strings().Get(l.key) == kTraceIdKey ? 0 : 1] = l.str;
      continue;
    }
    strings.Mark(l.key);
    strings.Mark(l.num_unit);
    scratch_.push_back(l.str != 0 ? AttributeIndex({Kind::kString, l.key, l.str, 0, l.num_unit})
                                  : AttributeIndex({Kind::kInt, l.key, 0, l.num, l.num_unit}));
  }
  label_start_[labels] = static_cast<uint32_t>(label_bytes_.size());
  label_size_[labels] = Pack(scratch_, &label_bytes_);
  if (link[0] != 0) {
    // Each distinct link once: label sets that differ in their other
    // labels share it.
    GrowBeforeInsert(link_index_);
    const auto [it, inserted] = link_index_.try_emplace(uint64_t{link[0]} << 32 | link[1],
                                                        static_cast<uint32_t>(links_.size() + 1));
    if (inserted) links_.push_back({link[0], link[1]});
    label_link_[labels] = it->second;
  }
}

void OtlpDictionary::BuildMappingAttributes() {
  for (uint32_t id : plan_.mappings().order()) {
    const Mapping& m = p_.tables.mappings().Get(id);
    const uint8_t flags = plan_.mapping_flags(id);
    scratch_.clear();
    if (m.build_id != 0) {
      scratch_.push_back(AttributeIndex({Kind::kString, Ref(kBuildIdKey), m.build_id, 0, 0}));
    }
    // The flags pprof's Mapping carries, as the conventions' booleans:
    // written when true, as pprof writes them.
    const std::pair<uint8_t, absl::string_view> kFlags[] = {
        {EncodePlan::kHasFunctions, kHasFunctionsKey},
        {EncodePlan::kHasFilenames, kHasFilenamesKey},
        {EncodePlan::kHasLines, kHasLineNumbersKey}};
    for (const auto& [bit, key] : kFlags) {
      if ((flags & bit) != 0) scratch_.push_back(AttributeIndex({Kind::kBool, Ref(key), 0, 1, 0}));
    }
    mapping_attributes_.emplace_back();
    Pack(scratch_, &mapping_attributes_.back());
  }
}

void OtlpDictionary::Build() {
  DenseIds& strings = plan_.strings();
  // Sample types first, so their strings open the string table, as in pprof.
  const ProfileOptions& o = p_.options;
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    if (!o.enabled[i]) continue;
    strings.Mark(p_.ids.sample_types[i].first);
    strings.Mark(p_.ids.sample_types[i].second);
  }
  plan_.Mark([&](uint32_t labels) { AddLabelSet(labels); }, [](uint32_t) {});
  if (!o.period_type.type.empty()) {
    strings.Mark(p_.ids.period_type.first);
    strings.Mark(p_.ids.period_type.second);
  }
  BuildMappingAttributes();
  scratch_.clear();
  if (!p_.ids.comments.empty()) {
    scratch_.push_back(AttributeIndex({Kind::kComments, Ref(kCommentKey), 0, 0, 0}));
  }
  if (p_.ids.drop_frames != 0) {
    scratch_.push_back(
        AttributeIndex({Kind::kString, Ref(kDropFramesKey), p_.ids.drop_frames, 0, 0}));
  }
  if (p_.ids.keep_frames != 0) {
    scratch_.push_back(
        AttributeIndex({Kind::kString, Ref(kKeepFramesKey), p_.ids.keep_frames, 0, 0}));
  }
  Pack(scratch_, &profile_attributes_);

  stack_index_.assign(p_.tables.stacks().size(), 0);
  for (uint32_t stack : plan_.marked_stacks()) {
    if (p_.tables.stacks().Get(stack).empty()) continue;  // stack_table[0]
    stacks_.push_back(stack);
    stack_index_[stack] = static_cast<uint32_t>(stacks_.size());
  }
  extra_base_ = static_cast<uint32_t>(strings.order().size() + 1);

  // Every table with its zero entry (an empty message, 2 bytes).
  size_t size = 0;
  auto table = [&](size_t zero, size_t entries) { size += LenFieldSize(zero) + entries; };
  size_t entries = 0;
  for (uint32_t id : plan_.mappings().order()) entries += LenFieldSize(MappingSize(id));
  table(0, entries);
  entries = 0;
  for (uint32_t id : plan_.locations().order()) entries += LenFieldSize(LocationSize(id));
  table(0, entries);
  entries = 0;
  for (uint32_t id : plan_.functions().order()) entries += LenFieldSize(FunctionSize(id));
  table(0, entries);
  table(kLinkSize, links_.size() * LenFieldSize(kLinkSize));
  entries = 0;
  for (uint32_t id : strings.order()) entries += LenFieldSize(p_.tables.strings().Get(id).size());
  for (absl::string_view s : extra_) entries += LenFieldSize(s.size());
  table(0, entries);
  entries = 0;
  for (const Attribute& a : attributes_) entries += LenFieldSize(AttributeSize(a));
  table(0, entries);
  entries = 0;
  for (uint32_t stack : stacks_) entries += LenFieldSize(LenFieldSize(StackBytes(stack)));
  table(0, entries);
  byte_size_ = size;
}

size_t OtlpDictionary::AnyValueSize(const Attribute& a) const {
  switch (a.kind) {
    case Kind::kString:
      return LenFieldSize(p_.tables.strings().Get(a.str).size());
    case Kind::kInt:  // written even when 0: an empty AnyValue is no value
      return 1 + VarintSize(static_cast<uint64_t>(a.num));
    case Kind::kBool:
      return 2;
    case Kind::kComments:
      return LenFieldSize(CommentsSize());
  }
  return 0;
}

size_t OtlpDictionary::CommentsSize() const {
  size_t values = 0;
  for (StringId id : p_.ids.comments) {
    values += LenFieldSize(LenFieldSize(p_.tables.strings().Get(id).size()));
  }
  return values;
}

size_t OtlpDictionary::AttributeSize(const Attribute& a) const {
  return FieldSize(RefIndex(a.key)) + LenFieldSize(AnyValueSize(a)) + FieldSize(RefIndex(a.unit));
}

size_t OtlpDictionary::MappingSize(uint32_t id) const {
  const Mapping& m = p_.tables.mappings().Get(id);
  const size_t attributes = mapping_attributes_[plan_.mappings()[id] - 1].size();
  return FieldSize(m.memory_start) + FieldSize(m.memory_limit) + FieldSize(m.file_offset) +
         FieldSize(StrIndex(m.filename)) + (attributes == 0 ? 0 : LenFieldSize(attributes));
}

size_t OtlpDictionary::LineSize(uint32_t location) const {
  const Location& loc = p_.tables.locations().Get(location);
  return FieldSize(plan_.functions()[loc.function]) + FieldSize(static_cast<uint64_t>(loc.line));
}

size_t OtlpDictionary::LocationSize(uint32_t id) const {
  // An inline group has its last frame's address and mapping and a line
  // per frame with a function, callee first.
  const absl::Span<const uint32_t> members =
      plan_.IsGroup(id) ? absl::MakeConstSpan(plan_.GroupMembers(id)) : absl::MakeConstSpan(&id, 1);
  const Location& caller = p_.tables.locations().Get(members.back());
  size_t size = FieldSize(plan_.mappings()[caller.mapping]) + FieldSize(caller.address);
  for (uint32_t member : members) {
    if (p_.tables.locations().Get(member).function != 0) size += LenFieldSize(LineSize(member));
  }
  return size;
}

size_t OtlpDictionary::FunctionSize(uint32_t id) const {
  const Function& fn = p_.tables.functions().Get(id);
  return FieldSize(StrIndex(fn.name)) + FieldSize(StrIndex(fn.system_name)) +
         FieldSize(StrIndex(fn.filename)) + FieldSize(static_cast<uint64_t>(fn.start_line));
}

size_t OtlpDictionary::StackBytes(uint32_t stack) const {
  size_t bytes = 0;
  for (uint32_t id : plan_.OutputFrames(stack)) bytes += VarintSize(plan_.locations()[id]);
  return bytes;
}

void OtlpDictionary::WriteAnyValue(CodedOutputStream* out, const Attribute& a) const {
  switch (a.kind) {
    case Kind::kString:
      wire::WriteBytesField(out, otlp::kAnyValueString, p_.tables.strings().Get(a.str));
      return;
    case Kind::kInt:
      out->WriteTag(wire::Tag(otlp::kAnyValueInt, wire::kVarint));
      out->WriteVarint64(static_cast<uint64_t>(a.num));
      return;
    case Kind::kBool:
      out->WriteTag(wire::Tag(otlp::kAnyValueBool, wire::kVarint));
      out->WriteVarint32(a.num != 0 ? 1 : 0);
      return;
    case Kind::kComments: {
      WriteLenHeader(out, otlp::kAnyValueArray, CommentsSize());
      for (StringId id : p_.ids.comments) {
        const absl::string_view s = p_.tables.strings().Get(id);
        WriteLenHeader(out, otlp::kArrayValueValues, LenFieldSize(s.size()));
        wire::WriteBytesField(out, otlp::kAnyValueString, s);
      }
      return;
    }
  }
}

void OtlpDictionary::WriteLocation(CodedOutputStream* out, uint32_t id) const {
  const absl::Span<const uint32_t> members =
      plan_.IsGroup(id) ? absl::MakeConstSpan(plan_.GroupMembers(id)) : absl::MakeConstSpan(&id, 1);
  const Location& caller = p_.tables.locations().Get(members.back());
  WriteLenHeader(out, otlp::kDictionaryLocations, LocationSize(id));
  WriteVarintField(out, otlp::kLocationMapping, plan_.mappings()[caller.mapping]);
  WriteVarintField(out, otlp::kLocationAddress, caller.address);
  for (uint32_t member : members) {
    const Location& loc = p_.tables.locations().Get(member);
    if (loc.function == 0) continue;
    WriteLenHeader(out, otlp::kLocationLines, LineSize(member));
    WriteVarintField(out, otlp::kLineFunction, plan_.functions()[loc.function]);
    WriteVarintField(out, otlp::kLineLine, static_cast<uint64_t>(loc.line));
  }
}

void OtlpDictionary::Write(CodedOutputStream* out) const {
  WriteLenHeader(out, otlp::kDictionaryMappings, 0);
  for (uint32_t id : plan_.mappings().order()) {
    const Mapping& m = p_.tables.mappings().Get(id);
    const std::vector<uint8_t>& attributes = mapping_attributes_[plan_.mappings()[id] - 1];
    WriteLenHeader(out, otlp::kDictionaryMappings, MappingSize(id));
    WriteVarintField(out, otlp::kMappingMemoryStart, m.memory_start);
    WriteVarintField(out, otlp::kMappingMemoryLimit, m.memory_limit);
    WriteVarintField(out, otlp::kMappingFileOffset, m.file_offset);
    WriteVarintField(out, otlp::kMappingFilename, StrIndex(m.filename));
    if (!attributes.empty()) {
      WriteLenHeader(out, otlp::kMappingAttributeIndices, attributes.size());
      out->WriteRaw(attributes.data(), static_cast<int>(attributes.size()));
    }
  }

  WriteLenHeader(out, otlp::kDictionaryLocations, 0);
  for (uint32_t id : plan_.locations().order()) WriteLocation(out, id);

  WriteLenHeader(out, otlp::kDictionaryFunctions, 0);
  for (uint32_t id : plan_.functions().order()) {
    const Function& fn = p_.tables.functions().Get(id);
    WriteLenHeader(out, otlp::kDictionaryFunctions, FunctionSize(id));
    WriteVarintField(out, otlp::kFunctionName, StrIndex(fn.name));
    WriteVarintField(out, otlp::kFunctionSystemName, StrIndex(fn.system_name));
    WriteVarintField(out, otlp::kFunctionFilename, StrIndex(fn.filename));
    WriteVarintField(out, otlp::kFunctionStartLine, static_cast<uint64_t>(fn.start_line));
  }

  uint8_t trace_id[kTraceIdBytes] = {}, span_id[kSpanIdBytes] = {};
  auto write_link = [&] {
    WriteLenHeader(out, otlp::kDictionaryLinks, kLinkSize);
    wire::WriteBytesField(
        out, otlp::kLinkTraceId,
        absl::string_view(reinterpret_cast<const char*>(trace_id), kTraceIdBytes));
    wire::WriteBytesField(out, otlp::kLinkSpanId,
                          absl::string_view(reinterpret_cast<const char*>(span_id), kSpanIdBytes));
  };
  write_link();  // the zero Link
  for (const auto& [trace, span] : links_) {
    // The hex LinkLabels wrote, of the ids' lengths: it reads back.
    const bool read = LinkIdBytes(p_.tables.strings().Get(trace), trace_id) &&
                      LinkIdBytes(p_.tables.strings().Get(span), span_id);
    assert(read);
    (void)read;
    write_link();
  }

  WriteLenHeader(out, otlp::kDictionaryStrings, 0);
  for (uint32_t id : plan_.strings().order()) {
    wire::WriteBytesField(out, otlp::kDictionaryStrings, p_.tables.strings().Get(id));
  }
  for (absl::string_view s : extra_) wire::WriteBytesField(out, otlp::kDictionaryStrings, s);

  WriteLenHeader(out, otlp::kDictionaryAttributes, 0);
  for (const Attribute& a : attributes_) {
    WriteLenHeader(out, otlp::kDictionaryAttributes, AttributeSize(a));
    WriteVarintField(out, otlp::kKeyValueAndUnitKey, RefIndex(a.key));
    WriteLenHeader(out, otlp::kKeyValueAndUnitValue, AnyValueSize(a));
    WriteAnyValue(out, a);
    WriteVarintField(out, otlp::kKeyValueAndUnitUnit, RefIndex(a.unit));
  }

  WriteLenHeader(out, otlp::kDictionaryStacks, 0);
  const uint32_t* ids = plan_.locations().data();
  for (uint32_t stack : stacks_) {
    const size_t bytes = StackBytes(stack);
    WriteLenHeader(out, otlp::kDictionaryStacks, LenFieldSize(bytes));
    WriteLenHeader(out, otlp::kStackLocationIndices, bytes);
    for (uint32_t id : plan_.OutputFrames(stack)) out->WriteVarint32(ids[id]);
  }
}

}  // namespace stackrec
