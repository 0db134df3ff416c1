// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "oracle/otlp_conformance.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "catch2/catch.hpp"

namespace stackrec_test {
namespace {

namespace otlp = opentelemetry::proto::profiles::v1development;

// What a request broke, counted per rule: an assertion per index would cost
// more than the check on a workload's request of a million indices.
class Violations {
 public:
  void Count(const char* rule, bool broken) {
    if (broken) ++counts_[rule];
  }
  void Report() const {
    for (const auto& [rule, count] : counts_) {
      INFO(count << " times: " << rule);
      CHECK(count == 0);
    }
  }

 private:
  std::map<std::string, size_t> counts_;
};

// Which entries of one dictionary table are referenced, and whether every
// index into it is in range.
class Uses {
 public:
  Uses(const char* table, int size, Violations* v)
      : table_(table), used_(static_cast<size_t>(size)), v_(v) {}
  void Use(int32_t index) {
    const bool in_range = index >= 0 && static_cast<size_t>(index) < used_.size();
    v_->Count(out_of_range_rule_.c_str(), !in_range);
    if (in_range) used_[static_cast<size_t>(index)] = true;
  }
  // Entry 0 needs no reference: it is the zero value every table has.
  void CheckAllUsed() const {
    const auto unused = std::find(used_.begin() + (used_.empty() ? 0 : 1), used_.end(), false);
    INFO(table_ << "[" << (unused - used_.begin()) << "] is written but nothing references it");
    CHECK(unused == used_.end());
  }

 private:
  const char* table_;
  std::vector<bool> used_;
  Violations* v_;
  const std::string out_of_range_rule_ = std::string("an index into ") + table_ + " is in range";
};

// No entry twice (SHOULD: the dictionary is there to write each once).
template <typename Table>
void CheckDistinct(const Table& table, const char* name) {
  std::set<std::string> seen;
  for (const auto& e : table) seen.insert(e.SerializeAsString());
  INFO(name << " holds an entry twice");
  CHECK(seen.size() == static_cast<size_t>(table.size()));
}

// The dictionary's tables: entry 0 the zero value, entries distinct,
// functions named and links well formed.
void CheckTables(const otlp::ProfilesDictionary& d) {
  // "The first entry of each table MUST be the zero value."
  REQUIRE(d.mapping_table_size() >= 1);
  CHECK(d.mapping_table(0).ByteSizeLong() == 0);
  REQUIRE(d.location_table_size() >= 1);
  CHECK(d.location_table(0).ByteSizeLong() == 0);
  REQUIRE(d.function_table_size() >= 1);
  CHECK(d.function_table(0).ByteSizeLong() == 0);
  REQUIRE(d.string_table_size() >= 1);
  CHECK(d.string_table(0).empty());
  REQUIRE(d.attribute_table_size() >= 1);
  CHECK(d.attribute_table(0).ByteSizeLong() == 0);
  REQUIRE(d.stack_table_size() >= 1);
  CHECK(d.stack_table(0).ByteSizeLong() == 0);
  REQUIRE(d.link_table_size() >= 1);
  CHECK(d.link_table(0).trace_id().find_first_not_of('\0') == std::string::npos);
  CHECK(d.link_table(0).span_id().find_first_not_of('\0') == std::string::npos);

  CheckDistinct(d.mapping_table(), "mapping_table");
  CheckDistinct(d.location_table(), "location_table");
  CheckDistinct(d.function_table(), "function_table");
  CheckDistinct(d.attribute_table(), "attribute_table");
  CheckDistinct(d.stack_table(), "stack_table");
  CheckDistinct(d.link_table(), "link_table");
  CHECK(std::set<std::string>(d.string_table().begin(), d.string_table().end()).size() ==
        static_cast<size_t>(d.string_table_size()));

  // A Function names what it is: a name, a system name or a file name.
  for (int i = 1; i < d.function_table_size(); ++i) {
    const otlp::Function& f = d.function_table(i);
    INFO("function_table[" << i << "] has no name, system name or file name");
    CHECK((f.name_strindex() != 0 || f.system_name_strindex() != 0 || f.filename_strindex() != 0));
  }
  // A trace id is 16 bytes and a span id 8; all-zero ids are invalid, so
  // only the zero value, entry 0, has them.
  for (int i = 0; i < d.link_table_size(); ++i) {
    const otlp::Link& l = d.link_table(i);
    INFO("link_table[" << i << "]");
    CHECK(l.trace_id().size() == 16);
    CHECK(l.span_id().size() == 8);
    if (i != 0) {
      CHECK(l.trace_id().find_first_not_of('\0') != std::string::npos);
      CHECK(l.span_id().find_first_not_of('\0') != std::string::npos);
    }
  }
}

// A Sample's identity: its stack, its attributes as a set, its link.
// Entries are distinct (CheckDistinct), so equal indices are equal content.
std::string Identity(const otlp::Sample& s) {
  std::vector<int32_t> attributes(s.attribute_indices().begin(), s.attribute_indices().end());
  std::sort(attributes.begin(), attributes.end());
  std::string id;
  auto put = [&](int32_t v) { id.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(s.stack_index());
  put(s.link_index());
  for (int32_t a : attributes) put(a);
  return id;
}

void CheckProfile(const otlp::Profile& p, Violations* v) {
  bool timed = false, untimed = false;
  std::unordered_set<std::string> identities;
  const uint64_t start = p.time_unix_nano(), end = start + p.duration_nano();
  for (const otlp::Sample& s : p.samples()) {
    const int timestamps = s.timestamps_unix_nano_size();
    (timestamps == 0 ? untimed : timed) = true;
    v->Count("a Sample's identity (stack, attribute set, link) is unique in its Profile",
             !identities.insert(Identity(s)).second);
    v->Count("a Sample has as many values as timestamps, or one value without timestamps",
             timestamps == 0 ? s.values_size() != 1 : s.values_size() != timestamps);
    for (uint64_t ts : s.timestamps_unix_nano()) {
      v->Count("a timestamp lies in [time_unix_nano, time_unix_nano + duration_nano)",
               ts < start || ts >= end);
    }
  }
  INFO("a Profile holds Samples with timestamps and Samples without: two shapes");
  CHECK(!(timed && untimed));
}

}  // namespace

void CheckOtlpConformance(
    const opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest&
        r) {
  const otlp::ProfilesDictionary& d = r.dictionary();
  CheckTables(d);
  Violations v;
  Uses strings("string_table", d.string_table_size(), &v);
  Uses attributes("attribute_table", d.attribute_table_size(), &v);
  Uses stacks("stack_table", d.stack_table_size(), &v);
  Uses locations("location_table", d.location_table_size(), &v);
  Uses functions("function_table", d.function_table_size(), &v);
  Uses mappings("mapping_table", d.mapping_table_size(), &v);
  Uses links("link_table", d.link_table_size(), &v);
  for (const otlp::KeyValueAndUnit& a : d.attribute_table()) {
    strings.Use(a.key_strindex());
    strings.Use(a.unit_strindex());
  }
  for (const otlp::Stack& s : d.stack_table()) {
    for (int32_t i : s.location_indices()) locations.Use(i);
  }
  for (const otlp::Location& l : d.location_table()) {
    mappings.Use(l.mapping_index());
    for (const otlp::Line& line : l.lines()) functions.Use(line.function_index());
    for (int32_t i : l.attribute_indices()) attributes.Use(i);
  }
  for (const otlp::Function& f : d.function_table()) {
    strings.Use(f.name_strindex());
    strings.Use(f.system_name_strindex());
    strings.Use(f.filename_strindex());
  }
  for (const otlp::Mapping& m : d.mapping_table()) {
    strings.Use(m.filename_strindex());
    for (int32_t i : m.attribute_indices()) attributes.Use(i);
  }
  for (const auto& resource : r.resource_profiles()) {
    for (const auto& scope : resource.scope_profiles()) {
      for (const otlp::Profile& p : scope.profiles()) {
        strings.Use(p.sample_type().type_strindex());
        strings.Use(p.sample_type().unit_strindex());
        strings.Use(p.period_type().type_strindex());
        strings.Use(p.period_type().unit_strindex());
        for (int32_t i : p.attribute_indices()) attributes.Use(i);
        for (const otlp::Sample& s : p.samples()) {
          stacks.Use(s.stack_index());
          links.Use(s.link_index());
          for (int32_t i : s.attribute_indices()) attributes.Use(i);
        }
        CheckProfile(p, &v);
      }
    }
  }
  v.Report();
  strings.CheckAllUsed();
  attributes.CheckAllUsed();
  locations.CheckAllUsed();
  functions.CheckAllUsed();
  mappings.CheckAllUsed();
  links.CheckAllUsed();
  // Stack 0 is the empty stack: the zero value, written whether used or not.
  stacks.Use(0);
  stacks.CheckAllUsed();
}

}  // namespace stackrec_test
