// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "oracle/pprof_decode.h"

#include <cstring>
#include <set>
#include <string>

#include "catch2/catch.hpp"

namespace stackrec_test {

std::string Decompress(const std::string& bytes) {
  std::string out;
  REQUIRE(DecompressAny(bytes, &out));
  return out;
}

Profile Decode(const std::string& bytes) {
  const std::string raw = Decompress(bytes);
  Profile p;
  REQUIRE(p.ParseFromString(raw));
  // A parse that skipped unknown fields would hide encoder mistakes.
  REQUIRE(p.ByteSizeLong() == raw.size());
  return p;
}

Profile Decode(const uint8_t* data, size_t size) {
  return Decode(std::string(reinterpret_cast<const char*>(data), size));
}

std::string Str(const Profile& p, int64_t index) {
  REQUIRE(index >= 0);
  REQUIRE(index < p.string_table_size());
  return p.string_table(static_cast<int>(index));
}

const perftools::profiles::Location& FindLocation(const Profile& p, uint64_t id) {
  for (const auto& l : p.location()) {
    if (l.id() == id) return l;
  }
  FAIL("location id " << id << " is not defined");
  return p.location(0);
}

const perftools::profiles::Function& FindFunction(const Profile& p, uint64_t id) {
  for (const auto& f : p.function()) {
    if (f.id() == id) return f;
  }
  FAIL("function id " << id << " is not defined");
  return p.function(0);
}

std::vector<std::string> FrameNames(const Profile& p, const Sample& s) {
  std::vector<std::string> names;
  for (uint64_t id : s.location_id()) {
    const auto& loc = FindLocation(p, id);
    if (loc.line_size() == 0) names.emplace_back();
    for (const auto& line : loc.line()) {
      names.push_back(Str(p, FindFunction(p, line.function_id()).name()));
    }
  }
  return names;
}

const Sample& SampleWithFrames(const Profile& p, const std::vector<std::string>& frames) {
  const Sample* found = nullptr;
  for (const Sample& s : p.sample()) {
    if (FrameNames(p, s) != frames) continue;
    if (found != nullptr) FAIL("more than one sample has these frames");
    found = &s;
  }
  if (found == nullptr) FAIL("no sample has these frames");
  return *found;
}

std::vector<std::string> LabelStrings(const Profile& p, const Sample& s) {
  std::vector<std::string> out;
  for (const auto& l : s.label()) {
    std::string text = Str(p, l.key()) + "=";
    if (l.str() != 0) {
      text += Str(p, l.str());
    } else {
      text += std::to_string(l.num());
      if (l.num_unit() != 0) text += "[" + Str(p, l.num_unit()) + "]";
    }
    out.push_back(text);
  }
  return out;
}

std::string StrLabel(const Profile& p, const Sample& s, const std::string& key) {
  for (const auto& l : s.label()) {
    if (Str(p, l.key()) == key) return Str(p, l.str());
  }
  return "";
}

std::vector<std::string> SampleTypes(const Profile& p) {
  std::vector<std::string> out;
  for (const auto& t : p.sample_type()) {
    out.push_back(Str(p, t.type()) + "/" + Str(p, t.unit()));
  }
  return out;
}

void CheckInvariants(const Profile& p) {
  REQUIRE(p.string_table_size() >= 1);
  REQUIRE(p.string_table(0).empty());
  std::vector<bool> used(static_cast<size_t>(p.string_table_size()), false);
  used[0] = true;
  auto use = [&](int64_t index) {
    REQUIRE(index >= 0);
    REQUIRE(index < p.string_table_size());
    used[static_cast<size_t>(index)] = true;
  };
  std::set<std::string> distinct(p.string_table().begin(), p.string_table().end());
  CHECK(distinct.size() == static_cast<size_t>(p.string_table_size()));

  std::set<uint64_t> mapping_ids, function_ids, location_ids;
  for (const auto& m : p.mapping()) {
    REQUIRE(m.id() != 0);
    REQUIRE(mapping_ids.insert(m.id()).second);
    use(m.filename());
    use(m.build_id());
  }
  std::set<std::string> function_contents;
  for (const auto& f : p.function()) {
    REQUIRE(f.id() != 0);
    REQUIRE(function_ids.insert(f.id()).second);
    const std::string content = std::to_string(f.name()) + " " + std::to_string(f.system_name()) +
                                " " + std::to_string(f.filename()) + " " +
                                std::to_string(f.start_line());
    INFO("function " << f.id() << ": name system_name filename start_line " << content);
    CHECK(function_contents.insert(content).second);
    use(f.name());
    use(f.system_name());
    use(f.filename());
  }
  std::set<uint64_t> used_mappings, used_functions, used_locations;
  // A location's content: written once, whichever way its frames came.
  std::set<std::string> location_contents;
  for (const auto& l : p.location()) {
    REQUIRE(l.id() != 0);
    REQUIRE(location_ids.insert(l.id()).second);
    std::string content = std::to_string(l.mapping_id()) + " " + std::to_string(l.address()) +
                          (l.is_folded() ? " folded" : "");
    for (const auto& line : l.line()) {
      content += " " + std::to_string(line.function_id()) + ":" + std::to_string(line.line());
    }
    INFO("location " << l.id() << ": mapping address lines " << content);
    CHECK(location_contents.insert(content).second);
    if (l.mapping_id() != 0) {
      REQUIRE(mapping_ids.count(l.mapping_id()) == 1);
      used_mappings.insert(l.mapping_id());
    }
    for (const auto& line : l.line()) {
      REQUIRE(function_ids.count(line.function_id()) == 1);
      used_functions.insert(line.function_id());
    }
  }
  for (const auto& t : p.sample_type()) {
    use(t.type());
    use(t.unit());
  }
  use(p.period_type().type());
  use(p.period_type().unit());
  for (const auto& s : p.sample()) {
    REQUIRE(s.value_size() == p.sample_type_size());
    for (uint64_t id : s.location_id()) {
      REQUIRE(location_ids.count(id) == 1);
      used_locations.insert(id);
    }
    std::set<int64_t> keys;
    for (const auto& l : s.label()) {
      REQUIRE(l.key() != 0);
      REQUIRE(keys.insert(l.key()).second);  // keys are unique per sample
      use(l.key());
      use(l.str());
      use(l.num_unit());
    }
  }
  for (int64_t c : p.comment()) use(c);
  use(p.drop_frames());
  use(p.keep_frames());
  use(p.default_sample_type());
  // Nothing unreferenced is written.
  CHECK(used_locations.size() == location_ids.size());
  CHECK(used_functions.size() == function_ids.size());
  CHECK(used_mappings.size() == mapping_ids.size());
  for (size_t i = 0; i < used.size(); ++i) {
    INFO("string_table[" << i << "] = \"" << p.string_table(static_cast<int>(i)) << "\"");
    CHECK(used[i]);
  }
}

}  // namespace stackrec_test
