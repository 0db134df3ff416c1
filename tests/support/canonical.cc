// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "support/canonical.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "catch2/catch.hpp"
#include "support/test_support.h"

namespace stackrec_test {
namespace {

std::string Hex(uint64_t x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, x);
  return buf;
}

std::string MappingText(const Profile& p, uint64_t id) {
  if (id == 0) return "-";
  for (const auto& m : p.mapping()) {
    if (m.id() != id) continue;
    return Hex(m.memory_start()) + "-" + Hex(m.memory_limit()) + "@" + Hex(m.file_offset()) + " " +
           Str(p, m.filename()) + " " + Str(p, m.build_id()) + (m.has_functions() ? " F" : "") +
           (m.has_filenames() ? " N" : "") + (m.has_line_numbers() ? " L" : "") +
           (m.has_inline_frames() ? " I" : "");
  }
  FAIL("no mapping " << id);
  return "";
}

std::string FunctionText(const Profile& p, uint64_t id) {
  for (const auto& f : p.function()) {
    if (f.id() != id) continue;
    return Str(p, f.name()) + "/" + Str(p, f.system_name()) + "/" + Str(p, f.filename()) + "/" +
           std::to_string(f.start_line());
  }
  FAIL("no function " << id);
  return "";
}

std::string LocationText(const Profile& p, uint64_t id) {
  for (const auto& l : p.location()) {
    if (l.id() != id) continue;
    std::string text = Hex(l.address()) + " [" + MappingText(p, l.mapping_id()) + "]";
    if (l.is_folded()) text += " folded";
    for (const auto& line : l.line()) {
      text += " " + FunctionText(p, line.function_id()) + ":" + std::to_string(line.line());
    }
    return text;
  }
  FAIL("no location " << id);
  return "";
}

}  // namespace

// Everything a profile says, as sorted lines: the header fields, the table
// sizes, and one line per sample with its values, labels and frames.
Strings Canonical(const Profile& p) {
  Strings samples;
  for (const auto& s : p.sample()) {
    std::string text = "values";
    for (int64_t v : s.value()) text += " " + std::to_string(v);
    text += " | labels";
    for (const std::string& l : LabelStrings(p, s)) text += " " + l;
    text += " | frames";
    for (uint64_t id : s.location_id()) text += " {" + LocationText(p, id) + "}";
    samples.push_back(text);
  }
  std::sort(samples.begin(), samples.end());
  std::string header = "types";
  for (const std::string& t : SampleTypes(p)) header += " " + t;
  header += " period " + Str(p, p.period_type().type()) + "/" + Str(p, p.period_type().unit()) +
            " " + std::to_string(p.period()) + " default " + Str(p, p.default_sample_type());
  Strings out = {header, "tables: " + std::to_string(p.location_size()) + " locations, " +
                             std::to_string(p.function_size()) + " functions, " +
                             std::to_string(p.mapping_size()) + " mappings, " +
                             std::to_string(p.string_table_size()) + " strings, " +
                             std::to_string(p.sample_size()) + " samples"};
  out.insert(out.end(), samples.begin(), samples.end());
  return out;
}

// A location's lines as "function:line", callee first; an id the profile
// does not define fails the test.
Strings Lines(const Profile& p, uint64_t location_id) {
  Strings out;
  for (const auto& line : FindLocation(p, location_id).line()) {
    out.push_back(Str(p, FindFunction(p, line.function_id()).name()) + ":" +
                  std::to_string(line.line()));
  }
  return out;
}

std::vector<Strings> Levels(const Profile& p, const Sample& s) {
  std::vector<Strings> levels;
  for (uint64_t id : s.location_id()) levels.push_back(Lines(p, id));
  return levels;
}

// The content of a profile handle without changing it.
std::string Snapshot(stackrec_profile* p) {
  return WithoutTimes(Decode(Serialize(p, STACKREC_COMPRESSION_NONE))).SerializeAsString();
}

}  // namespace stackrec_test
