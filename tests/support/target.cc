// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "support/target.h"

#include "catch2/catch.hpp"

namespace stackrec_test {

const char* KindName(Kind kind) { return kind == Kind::kProfile ? "profile" : "recorder"; }

EncodedPtr Target::TakeEncoded() {
  stackrec_encoded* e = nullptr;
  const stackrec_status st = kind_ == Kind::kProfile
                                 ? stackrec_profile_serialize(profile(), nullptr, &e)
                                 : stackrec_recorder_serialize(recorder(), nullptr, &e);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  if (kind_ == Kind::kProfile) REQUIRE(stackrec_profile_reset(profile()) == STACKREC_OK);
  return EncodedPtr(e);
}

Profile Target::Take() {
  EncodedPtr e = TakeEncoded();
  Profile out = Decode(stackrec_encoded_data(e.get()), stackrec_encoded_size(e.get()));
  CheckInvariants(out);
  return out;
}

uint32_t Intern(Target& t, const stackrec_mapping& m) {
  uint32_t id = 0;
  const stackrec_status st = t.InternMapping(&m, &id);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(id != 0);
  return id;
}

uint32_t Intern(Target& t, const stackrec_function& f) {
  uint32_t id = 0;
  const stackrec_status st = t.InternFunction(&f, &id);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(id != 0);
  return id;
}

uint32_t Intern(Target& t, const stackrec_interned_location& l) {
  uint32_t id = 0;
  const stackrec_status st = t.InternLocation(&l, &id);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(id != 0);
  return id;
}

uint32_t Intern(Target& t, const std::vector<uint32_t>& location_ids) {
  uint32_t id = 0;
  const stackrec_status st = t.InternStack(location_ids.data(), location_ids.size(), &id);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(id != 0);
  return id;
}

uint32_t Intern(Target& t, const std::vector<stackrec_label>& labels) {
  uint32_t id = 0;
  const stackrec_status st = t.InternLabels(labels.data(), labels.size(), &id);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(id != 0);
  return id;
}

void AddIds(Target& t, const stackrec_id_sample& s) {
  const stackrec_status st = t.AddIds(&s);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

void Forget(Target& t) {
  const stackrec_status st = t.Forget();
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

stackrec_interned_location Loc(uint32_t mapping_id, uint32_t function_id, uint64_t address,
                               int64_t line, bool inlined) {
  stackrec_interned_location l{};
  l.mapping_id = mapping_id;
  l.function_id = function_id;
  l.address = address;
  l.line = line;
  l.inlined = inlined;
  return l;
}

stackrec_function Fn(const char* name, const char* file, int64_t start_line,
                     const char* system_name) {
  stackrec_function f{};
  f.name = S(name);
  f.system_name = S(system_name);
  f.filename = S(file);
  f.start_line = start_line;
  return f;
}

stackrec_mapping Mapping(uint64_t start, uint64_t limit, uint64_t offset, const char* file,
                         const char* build_id) {
  stackrec_mapping m{};
  m.memory_start = start;
  m.memory_limit = limit;
  m.file_offset = offset;
  m.filename = S(file);
  m.build_id = S(build_id);
  return m;
}

}  // namespace stackrec_test
