// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The ProfilesDictionary of an OTLP output: the tables every Profile of the
// request indexes into, built from what an EncodePlan reached and written
// field by field (otlp_fields.h).
//
// Format invariants enforced here (the specification's, v1.11.0):
//  - entry 0 of every table is present and is the zero value: "" for
//    strings, an empty message elsewhere, and for the link table a Link of
//    a 16-byte and an 8-byte zero id, as the specification recommends;
//  - an index of 0 means "none", so the empty stack is stack_table[0] and a
//    location without a mapping has mapping_index 0;
//  - nothing is written twice and nothing that no sample reaches: stacks
//    and locations are the plan's, attributes are deduplicated by content.
// A label becomes an attribute of the samples that carry it (a string or
// an int value, a numeric label's unit as its unit), but for a trace
// link's two labels (input/trace_link.h), which become one Link of the
// link table, each distinct link written once. Attribute keys and
// units are string-table indices; string values are written inline
// (AnyValue.string_value), which every OTLP reader knows.
#ifndef STACKREC_SRC_ENCODE_OTLP_OTLP_DICTIONARY_H_
#define STACKREC_SRC_ENCODE_OTLP_OTLP_DICTIONARY_H_

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/table_memory.h"
#include "encode/encode_plan.h"
#include "google/protobuf/io/coded_stream.h"
#include "profile/profile_parts.h"

namespace stackrec {

// Keys of the OpenTelemetry semantic conventions stackrec writes.
inline constexpr absl::string_view kBuildIdKey = "process.executable.build_id.gnu";
inline constexpr absl::string_view kHasFunctionsKey = "pprof.mapping.has_functions";
inline constexpr absl::string_view kHasFilenamesKey = "pprof.mapping.has_filenames";
inline constexpr absl::string_view kHasLineNumbersKey = "pprof.mapping.has_line_numbers";
inline constexpr absl::string_view kCommentKey = "pprof.profile.comment";
inline constexpr absl::string_view kDropFramesKey = "pprof.profile.drop_frames";
inline constexpr absl::string_view kKeepFramesKey = "pprof.profile.keep_frames";
inline constexpr absl::string_view kDefaultSampleTypeKey = "pprof.scope.default_sample_type";

class OtlpDictionary {
 public:
  // Over `plan`, which it marks, and which must outlive it.
  OtlpDictionary(const ProfileParts& p, EncodePlan* plan);
  OtlpDictionary(const OtlpDictionary&) = delete;
  OtlpDictionary& operator=(const OtlpDictionary&) = delete;

  // Marks what the samples reach (EncodePlan::Mark), their attributes, the
  // sample and period types' strings and the profile's own attributes
  // (comments, drop and keep frames), then numbers it all. Call once.
  void Build();

  const EncodePlan& plan() const { return plan_; }
  // The string-table index of profile string `id` (marked by Build).
  uint32_t StrIndex(StringId id) const { return plan_.strings()[id]; }
  // The stack_table index of a stack the plan marked (0: the empty stack).
  uint32_t StackIndex(uint32_t stack) const { return stack_index_[stack]; }
  // A label set's attribute indices, packed as Sample.attribute_indices
  // holds them (its "trace endpoint" first, then its labels in order).
  absl::Span<const uint8_t> LabelAttributes(uint32_t labels) const {
    return {label_bytes_.data() + label_start_[labels], label_size_[labels]};
  }
  // The link_table index of a label set's trace link (0: none).
  uint32_t LabelLink(uint32_t labels) const { return label_link_[labels]; }
  // Profile.attribute_indices, packed: comments, drop and keep frames.
  absl::Span<const uint8_t> ProfileAttributes() const { return profile_attributes_; }

  // Bytes of the ProfilesDictionary message, and the message itself.
  size_t ByteSize() const { return byte_size_; }
  void Write(google::protobuf::io::CodedOutputStream* out) const;

  // Entries written, the zero values not counted (strings: "" counted).
  size_t strings_written() const { return plan_.strings().order().size() + 1 + extra_.size(); }

 private:
  // An entry of the attribute table. Keys and units are string refs (see
  // Ref); a value is a profile string written inline, an int, a bool, or
  // the comments as an array of strings.
  enum class Kind : uint8_t { kString, kInt, kBool, kComments };
  struct Attribute {
    Kind kind;
    uint32_t key;   // a Ref
    StringId str;   // kString
    int64_t num;    // kInt, kBool
    uint32_t unit;  // a Ref, 0: none
  };
  using AttributeKey = std::tuple<Kind, uint32_t, StringId, int64_t, uint32_t>;
  // A string of the string table: a profile StringId, or with kExtraBit an
  // index into extra_ (a semantic-conventions key the profile lacks).
  static constexpr uint32_t kExtraBit = uint32_t{1} << 31;
  uint32_t Ref(absl::string_view s);
  uint32_t RefIndex(uint32_t ref) const {
    return (ref & kExtraBit) != 0 ? extra_base_ + (ref & ~kExtraBit) : plan_.strings()[ref];
  }
  // The attribute table index of an attribute, added if new.
  uint32_t AttributeIndex(const Attribute& a);
  void AddLabelSet(uint32_t labels);
  // Packs `indices` into `bytes`; returns the bytes written.
  template <typename Bytes>
  static uint32_t Pack(absl::Span<const uint32_t> indices, Bytes* bytes);
  void BuildMappingAttributes();
  size_t AnyValueSize(const Attribute& a) const;
  size_t AttributeSize(const Attribute& a) const;
  size_t MappingSize(uint32_t id) const;
  size_t LineSize(uint32_t location) const;
  size_t LocationSize(uint32_t id) const;
  size_t FunctionSize(uint32_t id) const;
  // Bytes of a stack's packed location indices.
  size_t StackBytes(uint32_t stack) const;
  size_t CommentsSize() const;  // the ArrayValue of the comments
  void WriteAnyValue(google::protobuf::io::CodedOutputStream* out, const Attribute& a) const;
  void WriteLocation(google::protobuf::io::CodedOutputStream* out, uint32_t id) const;

  const ProfileParts p_;  // by value (see profile_parts.h)
  EncodePlan& plan_;
  std::vector<absl::string_view> extra_;
  absl::flat_hash_map<absl::string_view, uint32_t> refs_;
  uint32_t extra_base_ = 0;            // the string index of extra_[0]
  std::vector<Attribute> attributes_;  // entry i has index i + 1
  std::vector<uint32_t> scratch_;      // one label set's attribute indices
  absl::flat_hash_map<AttributeKey, uint32_t> attribute_index_;
  // Per label set: where its packed attribute indices start in
  // label_bytes_, and their size.
  TableVector<uint32_t> label_start_, label_size_;
  TableVector<uint8_t> label_bytes_;
  // Per label set: its link's link_table index. The links, by index - 1,
  // as their ids' hex strings, and the index of each (trace << 32 | span).
  TableVector<uint32_t> label_link_;
  std::vector<std::pair<StringId, StringId>> links_;
  absl::flat_hash_map<uint64_t, uint32_t> link_index_;
  // Per mapping written, by output index - 1: its packed attribute indices.
  std::vector<std::vector<uint8_t>> mapping_attributes_;
  TableVector<uint8_t> profile_attributes_;
  TableVector<uint32_t> stack_index_;
  // Stacks by stack_table index - 1 (the empty stack is entry 0).
  TableVector<uint32_t> stacks_;
  size_t byte_size_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_OTLP_OTLP_DICTIONARY_H_
