// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Inlined frames: a run of frames sharing one address and mapping becomes
// one pprof Location with a Line per frame, callee first.
#include <map>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/canonical.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

stackrec_mapping Binary() {
  stackrec_mapping m{};
  m.memory_start = 0x400000;
  m.memory_limit = 0x500000;
  m.file_offset = 0x1000;
  m.filename = S("/usr/bin/server");
  m.build_id = S("8f3a9c0de1b2");
  return m;
}

stackrec_location Native(const char* name, uint64_t address, int64_t line, bool inlined) {
  stackrec_location loc{};
  loc.mapping = Binary();
  loc.function.name = S(name);
  loc.function.filename = S("server.cc");
  loc.address = address;
  loc.line = line;
  loc.inlined = inlined;
  return loc;
}

}  // namespace

TEST_CASE("frames inlined into their caller are one location with a line per frame, callee first") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Location(Native("std::vector::push_back", 0x401010, 88, true))
      .Location(Native("Buffer::Append", 0x401010, 120, true))
      .Location(Native("Server::Handle", 0x401010, 42, false))
      .Location(Native("main", 0x402000, 7, false))
      .Values({1, 1, 1});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  const Sample& s = out.sample(0);
  CHECK(Levels(out, s) ==
        std::vector<Strings>{
            {"std::vector::push_back:88", "Buffer::Append:120", "Server::Handle:42"}, {"main:7"}});
  // The run keeps its address and the mapping with its build id.
  REQUIRE(out.location_size() == 2);
  const auto& inlined = FindLocation(out, s.location_id(0));
  CHECK(inlined.address() == 0x401010);
  REQUIRE(out.mapping_size() == 1);
  CHECK(inlined.mapping_id() == out.mapping(0).id());
  CHECK(Str(out, out.mapping(0).build_id()) == "8f3a9c0de1b2");
  CHECK(Str(out, out.mapping(0).filename()) == "/usr/bin/server");
  CHECK(out.mapping(0).memory_start() == 0x400000);
  CHECK(out.mapping(0).has_functions());
  CHECK(out.mapping(0).has_line_numbers());
  CHECK(FindLocation(out, s.location_id(1)).address() == 0x402000);
  CHECK(out.function_size() == 4);
}

TEST_CASE("an inline run is one location wherever it appears, and differs from its caller alone") {
  auto p = NewProfile();
  SampleBuilder a, b, alone;
  a.Location(Native("inl", 0x401010, 5, true))
      .Location(Native("outer", 0x401010, 6, false))
      .Location(Native("main", 0x402000, 1, false))
      .Values({1, 1, 1});
  b.Location(Native("inl", 0x401010, 5, true))
      .Location(Native("outer", 0x401010, 6, false))
      .Location(Native("other_root", 0x403000, 2, false))
      .Values({2, 2, 2});
  // The caller's frame on its own (not inlined into anything, nothing
  // inlined into it): a location of its own, with one line.
  alone.Location(Native("outer", 0x401010, 6, false)).Values({4, 4, 4});
  Add(p.get(), a);
  Add(p.get(), b);
  Add(p.get(), alone);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 3);
  const Sample& in_a = SampleWithFrames(out, {"inl", "outer", "main"});
  const Sample& in_b = SampleWithFrames(out, {"inl", "outer", "other_root"});
  const Sample& in_alone = SampleWithFrames(out, {"outer"});
  CHECK(in_a.location_id(0) == in_b.location_id(0));
  CHECK(in_alone.location_id(0) != in_a.location_id(0));
  CHECK(Levels(out, in_a) == std::vector<Strings>{{"inl:5", "outer:6"}, {"main:1"}});
  CHECK(Levels(out, in_b) == std::vector<Strings>{{"inl:5", "outer:6"}, {"other_root:2"}});
  CHECK(Levels(out, in_alone) == std::vector<Strings>{{"outer:6"}});
  CHECK(out.location_size() == 4);
}

TEST_CASE("the inlined flag is part of a frame's identity") {
  auto p = NewProfile();
  SampleBuilder inlined, flat;
  inlined.Location(Native("inl", 0x401010, 5, true))
      .Location(Native("outer", 0x401010, 6, false))
      .Values({1, 1, 1});
  flat.Location(Native("inl", 0x401010, 5, false))
      .Location(Native("outer", 0x401010, 6, false))
      .Values({2, 2, 2});
  Add(p.get(), inlined);
  Add(p.get(), flat);
  Add(p.get(), inlined);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 2);
  // Both samples have the same frame names: told apart by their levels.
  std::map<std::vector<Strings>, int64_t> by_levels;
  for (const Sample& s : out.sample()) by_levels[Levels(out, s)] = s.value(0);
  CHECK(by_levels == std::map<std::vector<Strings>, int64_t>{{{{"inl:5", "outer:6"}}, 2},
                                                             {{{"inl:5"}, {"outer:6"}}, 2}});
}

TEST_CASE("a run cut by max_frames keeps its leaf side as one location") {
  Options o;
  o.opts.max_frames = 2;
  auto p = NewProfile(o.opts);
  SampleBuilder b;
  b.Location(Native("a", 0x401010, 1, true))
      .Location(Native("b", 0x401010, 2, true))
      .Location(Native("c", 0x401010, 3, false))
      .Location(Native("main", 0x402000, 4, false))
      .Values({1, 1, 1});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(Levels(out, out.sample(0)) ==
        std::vector<Strings>{{"a:1", "b:2"}, {"[2 frames truncated]:0"}});
}

TEST_CASE("an inlined frame without a function contributes no line") {
  auto p = NewProfile();
  stackrec_location bare{};
  bare.mapping = Binary();
  bare.address = 0x401010;
  bare.inlined = true;
  SampleBuilder b;
  b.Location(bare).Location(Native("outer", 0x401010, 6, false)).Values({1, 1, 1});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(Levels(out, out.sample(0)) == std::vector<Strings>{{"outer:6"}});
  CHECK(FindLocation(out, out.sample(0).location_id(0)).address() == 0x401010);
}

TEST_CASE("inline runs come out the same after recorder flips") {
  Options o;
  auto r = NewRecorder(o.opts);
  SampleBuilder b;
  b.Location(Native("inl", 0x401010, 5, true))
      .Location(Native("outer", 0x401010, 6, false))
      .Location(Native("main", 0x402000, 1, false))
      .Values({1, 1, 1});
  for (int flip = 0; flip < 3; ++flip) {
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
    CheckInvariants(out);
    REQUIRE(out.sample_size() == 1);
    CHECK(Levels(out, out.sample(0)) == std::vector<Strings>{{"inl:5", "outer:6"}, {"main:1"}});
  }
}

TEST_CASE("an inlined frame needs a caller at its address and mapping") {
  auto p = NewProfile();
  SampleBuilder good;
  good.Frame("kept").Values({1, 1, 1});
  Add(p.get(), good);
  const Profile before = WithoutTimes(SerializeAndDecode(p.get()));

  stackrec_location other_build = Native("outer", 0x401010, 6, false);
  other_build.mapping.build_id = S("ffff");
  struct Case {
    const char* name;
    std::vector<stackrec_location> frames;
    const char* message;
  };
  const Case cases[] = {
      {"root frame inlined",
       {Native("a", 0x401010, 1, false), Native("b", 0x401010, 2, true)},
       "sample.locations[1].inlined is set on the last (root) frame, which has no caller to be "
       "inlined into"},
      {"other address",
       {Native("a", 0x401010, 1, true), Native("b", 0x401014, 2, false)},
       "sample.locations[0].inlined is set but sample.locations[1] has another address or "
       "mapping"},
      {"other mapping",
       {Native("x", 0x401000, 1, false), Native("a", 0x401010, 1, true), other_build},
       "sample.locations[1].inlined is set but sample.locations[2] has another address or "
       "mapping"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      SampleBuilder b;
      for (const stackrec_location& loc : c.frames) b.Location(loc);
      b.Values({1, 1, 1});
      CHECK(stackrec_profile_add(p.get(), &b.Get()) == STACKREC_INVALID_ARGUMENT);
      CHECK(std::string(stackrec_last_error()) == c.message);
      auto r = NewRecorder(Options().opts);
      CHECK(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_INVALID_ARGUMENT);
      CHECK(std::string(stackrec_last_error()) == c.message);
      CHECK(WithoutTimes(SerializeAndDecode(p.get())).SerializeAsString() ==
            before.SerializeAsString());
    }
  }
}
