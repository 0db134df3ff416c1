// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "oracle/otlp_decode.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "catch2/catch.hpp"
#include "oracle/otlp_conformance.h"

namespace stackrec_test {
namespace {

using opentelemetry::proto::common::v1::AnyValue;
using opentelemetry::proto::common::v1::KeyValue;

// Semantic-conventions keys the conversion reads.
const char kBuildIdKey[] = "process.executable.build_id.gnu";
const char kCommentKey[] = "pprof.profile.comment";
const char kDropFramesKey[] = "pprof.profile.drop_frames";
const char kKeepFramesKey[] = "pprof.profile.keep_frames";
const char kDefaultSampleTypeKey[] = "pprof.scope.default_sample_type";

// Bytes in lowercase hex, as stackrec writes a link's ids into pprof.
std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

// table[index]; fails the test if out of range. (Called for every frame of
// every sample: an assertion each would cost more than the conversion.)
template <typename Table>
const auto& At(const Table& table, int32_t index, const char* what) {
  if (index < 0 || index >= table.size()) {
    FAIL(what << " index " << index << " is not below " << table.size());
  }
  return table.Get(index);
}

// A pprof string table holding the strings used, in order of first use.
class Strings {
 public:
  explicit Strings(Profile* p) : p_(p) { Intern(""); }
  int64_t Intern(const std::string& s) {
    const auto [it, inserted] = index_.emplace(s, p_->string_table_size());
    if (inserted) p_->add_string_table(s);
    return it->second;
  }

 private:
  Profile* p_;
  std::unordered_map<std::string, int64_t> index_;
};

}  // namespace

OtlpRequest DecodeOtlp(const std::string& bytes) {
  const std::string raw = Decompress(bytes);
  OtlpRequest r;
  REQUIRE(r.ParseFromString(raw));
  // A parse that skipped unknown fields would hide encoder mistakes.
  REQUIRE(r.ByteSizeLong() == raw.size());
  // Every OTLP output a test decodes keeps the specification's rules.
  CheckOtlpConformance(r);
  return r;
}

std::vector<std::string> KeyValueStrings(const google::protobuf::RepeatedPtrField<KeyValue>& kvs) {
  std::vector<std::string> out;
  for (const KeyValue& kv : kvs) {
    REQUIRE(kv.key_strindex() == 0);  // key inline, never both
    REQUIRE(kv.value().value_case() == AnyValue::kStringValue);
    out.push_back(kv.key() + "=" + kv.value().string_value());
  }
  return out;
}

void CheckOtlpInvariants(const OtlpRequest& r) {
  CheckOtlpConformance(r);
  // What stackrec promises beyond the specification: one resource with one
  // scope, and a sample's attribute keys unique.
  REQUIRE(r.resource_profiles_size() == 1);
  REQUIRE(r.resource_profiles(0).scope_profiles_size() == 1);
  const otlp::ProfilesDictionary& d = r.dictionary();
  size_t bad_samples = 0;
  std::vector<int32_t> keys;
  for (const otlp::Profile& p : r.resource_profiles(0).scope_profiles(0).profiles()) {
    for (const otlp::Sample& s : p.samples()) {
      bool ok = true;
      keys.clear();
      for (int32_t i : s.attribute_indices()) {
        ok = ok && i != 0;
        if (i <= 0 || i >= d.attribute_table_size()) continue;
        keys.push_back(d.attribute_table(i).key_strindex());
      }
      std::sort(keys.begin(), keys.end());
      ok = ok && std::adjacent_find(keys.begin(), keys.end()) == keys.end();
      bad_samples += ok ? 0 : 1;
    }
  }
  INFO("samples with attribute 0 or a key twice");
  CHECK(bad_samples == 0);
}

Profile OtlpToPprof(const OtlpRequest& r) {
  REQUIRE(r.resource_profiles_size() == 1);
  REQUIRE(r.resource_profiles(0).scope_profiles_size() == 1);
  const auto& scope = r.resource_profiles(0).scope_profiles(0);
  const otlp::ProfilesDictionary& d = r.dictionary();
  Profile out;
  Strings strings(&out);
  auto str = [&](int32_t index) {
    return strings.Intern(At(d.string_table(), index, "string_table"));
  };
  auto attribute = [&](int32_t index) -> const otlp::KeyValueAndUnit& {
    if (index == 0) FAIL("a reference to attribute_table[0], the zero value");
    return At(d.attribute_table(), index, "attribute_table");
  };
  auto key_of = [&](const otlp::KeyValueAndUnit& a) {
    return At(d.string_table(), a.key_strindex(), "string_table");
  };

  // Functions, mappings and locations keep their dictionary index as id.
  for (int i = 1; i < d.function_table_size(); ++i) {
    const otlp::Function& f = d.function_table(i);
    auto* g = out.add_function();
    g->set_id(static_cast<uint64_t>(i));
    g->set_name(str(f.name_strindex()));
    g->set_system_name(str(f.system_name_strindex()));
    g->set_filename(str(f.filename_strindex()));
    g->set_start_line(f.start_line());
  }
  for (int i = 1; i < d.mapping_table_size(); ++i) {
    const otlp::Mapping& m = d.mapping_table(i);
    auto* g = out.add_mapping();
    g->set_id(static_cast<uint64_t>(i));
    g->set_memory_start(m.memory_start());
    g->set_memory_limit(m.memory_limit());
    g->set_file_offset(m.file_offset());
    g->set_filename(str(m.filename_strindex()));
    for (int32_t index : m.attribute_indices()) {
      const otlp::KeyValueAndUnit& a = attribute(index);
      const std::string key = key_of(a);
      if (key == kBuildIdKey) {
        REQUIRE(a.value().value_case() == AnyValue::kStringValue);
        g->set_build_id(strings.Intern(a.value().string_value()));
        continue;
      }
      REQUIRE(a.value().value_case() == AnyValue::kBoolValue);
      if (key == "pprof.mapping.has_functions") {
        g->set_has_functions(a.value().bool_value());
      } else if (key == "pprof.mapping.has_filenames") {
        g->set_has_filenames(a.value().bool_value());
      } else if (key == "pprof.mapping.has_line_numbers") {
        g->set_has_line_numbers(a.value().bool_value());
      } else if (key == "pprof.mapping.has_inline_frames") {
        g->set_has_inline_frames(a.value().bool_value());
      } else {
        FAIL("mapping attribute " << key);
      }
    }
  }
  for (int i = 1; i < d.location_table_size(); ++i) {
    const otlp::Location& l = d.location_table(i);
    At(d.mapping_table(), l.mapping_index(), "mapping_table");
    auto* g = out.add_location();
    g->set_id(static_cast<uint64_t>(i));
    g->set_mapping_id(static_cast<uint64_t>(l.mapping_index()));
    g->set_address(l.address());
    for (const otlp::Line& line : l.lines()) {
      At(d.function_table(), line.function_index(), "function_table");
      auto* h = g->add_line();
      h->set_function_id(static_cast<uint64_t>(line.function_index()));
      h->set_line(line.line());
    }
  }

  // Samples: one per identity, a value per sample type. The Profiles of
  // the untimed samples come first, one per type; when a sample has a
  // timestamp, as many follow, of the same types in the same order, with
  // every timestamped sample (docs/format.md). Told apart by shape: each of
  // the second half then has samples, all with timestamps.
  const int profiles = scope.profiles_size();
  auto timed_half = [&] {
    if (profiles % 2 != 0) return false;
    for (int t = 0; t < profiles / 2; ++t) {
      const otlp::Profile& a = scope.profiles(t);
      const otlp::Profile& b = scope.profiles(t + profiles / 2);
      if (a.sample_type().SerializeAsString() != b.sample_type().SerializeAsString() ||
          b.samples_size() == 0) {
        return false;
      }
      for (const otlp::Sample& s : b.samples()) {
        if (s.timestamps_unix_nano_size() == 0) return false;
      }
    }
    return true;
  };
  const int types = timed_half() ? profiles / 2 : profiles;
  // A pprof sample's identity: the Sample's stack and attributes, its
  // timestamp, and which of the Samples of that identity in one Profile it
  // came from (the specification allows more than one).
  auto identity = [](int32_t stack, const std::vector<int32_t>& attrs, int32_t link, bool timed,
                     uint64_t ts) {
    std::string id(reinterpret_cast<const char*>(&stack), sizeof stack);
    id.append(reinterpret_cast<const char*>(&link), sizeof link);
    id.append(reinterpret_cast<const char*>(attrs.data()), attrs.size() * sizeof(int32_t));
    id += timed ? 'T' : 'U';
    id.append(reinterpret_cast<const char*>(&ts), sizeof ts);
    return id;
  };
  std::unordered_map<std::string, size_t> sample_of;  // -> index into out.sample()
  for (int pi = 0; pi < profiles; ++pi) {
    const otlp::Profile& p = scope.profiles(pi);
    const int t = pi % types;
    if (pi < types) {
      auto* type = out.add_sample_type();
      type->set_type(str(p.sample_type().type_strindex()));
      type->set_unit(str(p.sample_type().unit_strindex()));
    }
    std::unordered_map<std::string, int> seen;
    for (const otlp::Sample& s : p.samples()) {
      const std::vector<int32_t> attrs(s.attribute_indices().begin(), s.attribute_indices().end());
      const int points = s.timestamps_unix_nano_size() != 0 ? s.timestamps_unix_nano_size() : 1;
      for (int k = 0; k < points; ++k) {
        const bool timed = s.timestamps_unix_nano_size() != 0;
        const uint64_t ts = timed ? s.timestamps_unix_nano(k) : 0;
        // Timestamps only: each event counts 1.
        const int64_t value = s.values_size() == 0 ? 1 : s.values(timed ? k : 0);
        if (!timed && s.values_size() != 1) FAIL("a Sample without timestamps has one value");
        std::string id = identity(s.stack_index(), attrs, s.link_index(), timed, ts);
        const int occurrence = seen[id]++;
        id.append(reinterpret_cast<const char*>(&occurrence), sizeof occurrence);
        auto [it, inserted] =
            sample_of.emplace(std::move(id), static_cast<size_t>(out.sample_size()));
        if (inserted) {
          auto* g = out.add_sample();
          for (int32_t loc :
               At(d.stack_table(), s.stack_index(), "stack_table").location_indices()) {
            At(d.location_table(), loc, "location_table");
            g->add_location_id(static_cast<uint64_t>(loc));
          }
          for (int32_t index : attrs) {
            const otlp::KeyValueAndUnit& a = attribute(index);
            auto* label = g->add_label();
            label->set_key(strings.Intern(key_of(a)));
            if (a.unit_strindex() != 0) label->set_num_unit(str(a.unit_strindex()));
            if (a.value().value_case() == AnyValue::kStringValue) {
              label->set_str(strings.Intern(a.value().string_value()));
            } else {
              if (a.value().value_case() != AnyValue::kIntValue) FAIL("a label of neither kind");
              label->set_num(a.value().int_value());
            }
          }
          // A link, as pprof has it: the ids in hex, after the caller's labels.
          if (s.link_index() != 0) {
            const otlp::Link& link = At(d.link_table(), s.link_index(), "link_table");
            for (const auto& [key, id] :
                 {std::pair<const char*, const std::string&>{"trace_id", link.trace_id()},
                  {"span_id", link.span_id()}}) {
              auto* label = g->add_label();
              label->set_key(strings.Intern(key));
              label->set_str(strings.Intern(Hex(id)));
            }
          }
          if (timed) {
            auto* label = g->add_label();
            label->set_key(strings.Intern("end_timestamp_ns"));
            label->set_num(static_cast<int64_t>(ts));
          }
          for (int v = 0; v < types; ++v) g->add_value(0);
        }
        out.mutable_sample(static_cast<int>(it->second))->set_value(t, value);
      }
    }
  }

  // What every Profile says alike.
  REQUIRE(types >= 1);
  const otlp::Profile& first = scope.profiles(0);
  for (int pi = 0; pi < profiles; ++pi) {
    const otlp::Profile& p = scope.profiles(pi);
    if (pi < types) {
      CHECK(p.time_unix_nano() == first.time_unix_nano());
      CHECK(p.duration_nano() == first.duration_nano());
    } else {
      // The timestamped samples' interval holds the profile's.
      CHECK(p.time_unix_nano() <= first.time_unix_nano());
      CHECK(p.time_unix_nano() + p.duration_nano() >=
            first.time_unix_nano() + first.duration_nano());
    }
    CHECK(p.period() == first.period());
    CHECK(p.period_type().SerializeAsString() == first.period_type().SerializeAsString());
    CHECK(std::vector<int32_t>(p.attribute_indices().begin(), p.attribute_indices().end()) ==
          std::vector<int32_t>(first.attribute_indices().begin(), first.attribute_indices().end()));
  }
  out.set_time_nanos(static_cast<int64_t>(first.time_unix_nano()));
  out.set_duration_nanos(static_cast<int64_t>(first.duration_nano()));
  if (first.has_period_type()) {
    out.mutable_period_type()->set_type(str(first.period_type().type_strindex()));
    out.mutable_period_type()->set_unit(str(first.period_type().unit_strindex()));
  }
  out.set_period(first.period());
  for (int32_t index : first.attribute_indices()) {
    const otlp::KeyValueAndUnit& a = attribute(index);
    const std::string key = key_of(a);
    if (key == kCommentKey) {
      REQUIRE(a.value().value_case() == AnyValue::kArrayValue);
      for (const AnyValue& v : a.value().array_value().values()) {
        REQUIRE(v.value_case() == AnyValue::kStringValue);
        out.add_comment(strings.Intern(v.string_value()));
      }
    } else if (key == kDropFramesKey) {
      out.set_drop_frames(strings.Intern(a.value().string_value()));
    } else if (key == kKeepFramesKey) {
      out.set_keep_frames(strings.Intern(a.value().string_value()));
    } else {
      FAIL("profile attribute " << key);
    }
  }
  for (const KeyValue& kv : scope.scope().attributes()) {
    if (kv.key() == kDefaultSampleTypeKey) {
      out.set_default_sample_type(strings.Intern(kv.value().string_value()));
    }
  }
  return out;
}

}  // namespace stackrec_test
