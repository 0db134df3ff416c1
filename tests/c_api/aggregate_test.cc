// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What merges and what does not.
#include <algorithm>
#include <cstring>
#include <limits>

#include "catch2/catch.hpp"
#include "support/target.h"
#include "support/test_support.h"

using namespace stackrec_test;
using Strings = std::vector<std::string>;
using Values = std::vector<int64_t>;

namespace {

Values ValuesOf(const Sample& s) { return Values(s.value().begin(), s.value().end()); }

}  // namespace

TEST_CASE("identical stacks with identical labels aggregate") {
  auto p = NewProfile();
  for (int i = 0; i < 3; ++i) {
    SampleBuilder b;
    b.Frame("leaf", "a.rb", 10).Frame("root", "b.rb", 20).Values({100, 1, 1000 + i});
    b.NumLabel("thread id", 7).Label("thread name", "main");
    Add(p.get(), b);
  }
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(ValuesOf(out.sample(0)) == Values{300, 3, 3003});
  CHECK(FrameNames(out, out.sample(0)) == Strings{"leaf", "root"});
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"thread id=7", "thread name=main"});
}

TEST_CASE("stacks that differ in frame order do not aggregate") {
  auto p = NewProfile();
  SampleBuilder a, b;
  a.Frame("f").Frame("g").Values({1, 1, 1});
  b.Frame("g").Frame("f").Values({2, 2, 2});
  Add(p.get(), a);
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 2);
  CHECK(ValuesOf(SampleWithFrames(out, {"f", "g"})) == Values{1, 1, 1});
  CHECK(ValuesOf(SampleWithFrames(out, {"g", "f"})) == Values{2, 2, 2});
  // The two samples share their two locations and functions.
  CHECK(out.location_size() == 2);
  CHECK(out.function_size() == 2);
}

TEST_CASE("samples whose labels differ in value do not aggregate, in order only they do") {
  // A label set is a set: the same labels in another order are one key,
  // written in the order of the first sample that brought them.
  auto p = NewProfile();
  SampleBuilder ab, ba, ab2, ab_again;
  ab.Frame("f").Values({1, 0, 0}).Label("a", "x").NumLabel("b", 1);
  ba.Frame("f").Values({2, 0, 0}).NumLabel("b", 1).Label("a", "x");
  ab2.Frame("f").Values({4, 0, 0}).Label("a", "x").NumLabel("b", 2);
  ab_again.Frame("f").Values({8, 0, 0}).Label("a", "x").NumLabel("b", 1);
  Add(p.get(), ab);
  Add(p.get(), ba);
  Add(p.get(), ab2);
  Add(p.get(), ab_again);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 2);
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"a=x", "b=1"});
  CHECK(out.sample(0).value(0) == 11);
  CHECK(LabelStrings(out, out.sample(1)) == Strings{"a=x", "b=2"});
  CHECK(out.sample(1).value(0) == 4);
}

TEST_CASE("a numeric label's unit is part of its identity") {
  auto p = NewProfile();
  SampleBuilder a, b;
  a.Frame("f").Values({1, 0, 0}).NumLabel("size", 8, "bytes");
  b.Frame("f").Values({1, 0, 0}).NumLabel("size", 8);
  Add(p.get(), a);
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 2);
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"size=8[bytes]"});
  CHECK(LabelStrings(out, out.sample(1)) == Strings{"size=8"});
}

TEST_CASE("timestamped samples are kept one by one with end_timestamp_ns") {
  auto p = NewProfile();
  SampleBuilder t1, t2, plain1, plain2;
  t1.Frame("f").Values({1, 1, 1}).NumLabel("thread id", 1).Timestamp(1700000000000000001);
  t2.Frame("f").Values({2, 2, 2}).NumLabel("thread id", 1).Timestamp(1700000000000000001);
  plain1.Frame("f").Values({4, 4, 4}).NumLabel("thread id", 1);
  plain2.Frame("f").Values({8, 8, 8}).NumLabel("thread id", 1);
  Add(p.get(), t1);
  Add(p.get(), plain1);
  Add(p.get(), t2);
  Add(p.get(), plain2);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 3);
  // Aggregated samples first, then timestamped ones in the order added.
  CHECK(ValuesOf(out.sample(0)) == Values{12, 12, 12});
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"thread id=1"});
  CHECK(ValuesOf(out.sample(1)) == Values{1, 1, 1});
  CHECK(LabelStrings(out, out.sample(1)) ==
        Strings{"thread id=1", "end_timestamp_ns=1700000000000000001"});
  CHECK(ValuesOf(out.sample(2)) == Values{2, 2, 2});
  CHECK(LabelStrings(out, out.sample(2)) ==
        Strings{"thread id=1", "end_timestamp_ns=1700000000000000001"});
}

TEST_CASE("summed values saturate instead of wrapping") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto p = NewProfile();
  SampleBuilder a, b;
  a.Frame("f").Values({kMax - 1, kMin + 1, -5});
  b.Frame("f").Values({10, -10, 3});
  Add(p.get(), a);
  Add(p.get(), b);
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(ValuesOf(out.sample(0)) == Values{kMax, kMin, 1});
  // Once saturated, a value moving the other way comes back down from the
  // bound, as in any saturating arithmetic.
  SampleBuilder c;
  c.Frame("f").Values({-1, 1, 0});
  Add(p.get(), c);
  const Profile again = SerializeAndDecode(p.get());
  CHECK(ValuesOf(again.sample(0)) == Values{kMax - 1, kMin + 1, 1});
}

TEST_CASE("an empty stack is a valid sample") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Values({1, 2, 3});
  Add(p.get(), b);
  Add(p.get(), b);
  // By location ids, none: the same stack, so the same sample.
  const int64_t values[3] = {10, 20, 30};
  stackrec_id_sample ids{};
  ids.values = values;
  ids.values_len = 3;
  INFO(stackrec_last_error());
  REQUIRE(stackrec_profile_add_ids(p.get(), &ids) == STACKREC_OK);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).location_id_size() == 0);
  CHECK(ValuesOf(out.sample(0)) == Values{12, 24, 36});
  CHECK(out.location_size() == 0);
}

TEST_CASE("serialize does not reset, and samples keep aggregating after it") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  Add(p.get(), b);
  const Profile first = SerializeAndDecode(p.get());
  Add(p.get(), b);
  const Profile second = SerializeAndDecode(p.get());
  CHECK(first.sample(0).value(0) == 1);
  REQUIRE(second.sample_size() == 1);
  CHECK(second.sample(0).value(0) == 2);
}

TEST_CASE("a caller reusing one buffer for different strings gets distinct samples") {
  auto p = NewProfile();
  char name[16];
  char label[16];
  stackrec_location frame{};
  frame.function.name = stackrec_str{name, 5};
  stackrec_label l{};
  l.key = S("k");
  l.str = stackrec_str{label, 3};
  const int64_t values[3] = {1, 1, 1};
  stackrec_sample s{};
  s.locations = &frame;
  s.locations_len = 1;
  s.values = values;
  s.values_len = 3;
  s.labels = &l;
  s.labels_len = 1;
  for (const char* text : {"alpha", "bravo", "alpha", "bravo", "bravo"}) {
    std::memcpy(name, text, 5);
    std::memcpy(label, text, 3);
    REQUIRE(stackrec_profile_add(p.get(), &s) == STACKREC_OK);
  }
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 2);
  const Sample& alpha = SampleWithFrames(out, {"alpha"});
  CHECK(LabelStrings(out, alpha) == Strings{"k=alp"});
  CHECK(alpha.value(0) == 2);
  const Sample& bravo = SampleWithFrames(out, {"bravo"});
  CHECK(LabelStrings(out, bravo) == Strings{"k=bra"});
  CHECK(bravo.value(0) == 3);
}

TEST_CASE("where one string ends and the next begins is part of a sample's identity") {
  auto p = NewProfile();
  SampleBuilder a, b, c, d;
  a.Frame("ab", "c").Values({1, 0, 0});
  b.Frame("a", "bc").Values({2, 0, 0});
  c.Frame("x").Values({4, 0, 0}).Label("ab", "c");
  d.Frame("x").Values({8, 0, 0}).Label("a", "bc");
  for (auto* s : {&a, &b, &c, &d}) Add(p.get(), *s);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 4);
  std::vector<int64_t> values;
  for (const Sample& s : out.sample()) values.push_back(s.value(0));
  std::sort(values.begin(), values.end());
  CHECK(values == std::vector<int64_t>{1, 2, 4, 8});
}

TEST_CASE("a sample with more labels than c_api converts on the stack keeps them all, in order") {
  // Up to 8 labels are converted into room on the caller's stack, more in
  // a thread-local buffer: both aggregate and keep every label.
  for (int count : {8, 12}) {
    INFO(count << " labels");
    auto p = NewProfile();
    SampleBuilder b;
    b.Frame("leaf").Values({1, 2, 3});
    Strings expected;
    for (int i = 0; i < count; ++i) {
      if (i % 2 == 0) {
        b.NumLabel("n" + std::to_string(i), i);
        expected.push_back("n" + std::to_string(i) + "=" + std::to_string(i));
      } else {
        b.Label("s" + std::to_string(i), "v" + std::to_string(i));
        expected.push_back("s" + std::to_string(i) + "=v" + std::to_string(i));
      }
    }
    Add(p.get(), b);
    Add(p.get(), b);
    const Profile out = SerializeAndDecode(p.get());
    REQUIRE(out.sample_size() == 1);
    CHECK(ValuesOf(out.sample(0)) == Values{2, 4, 6});
    CHECK(LabelStrings(out, out.sample(0)) == expected);
  }
}

TEST_CASE("stacks deeper than c_api hashes on the stack aggregate and keep every frame, in order") {
  // Up to 128 frames' hashes go into room on the caller's stack, more into
  // a thread-local buffer; a stack that shares its first 128 frames with
  // another is still its own.
  auto p = NewProfile();
  SampleBuilder at_room, over_room, other_tail;
  Strings room_names, over_names, other_names;
  for (int i = 0; i < 200; ++i) {
    const std::string name = "f" + std::to_string(i);
    if (i < 128) {
      at_room.Frame(name);
      room_names.push_back(name);
    }
    over_room.Frame(name);
    over_names.push_back(name);
    const std::string other = i < 128 ? name : "g" + std::to_string(i);
    other_tail.Frame(other);
    other_names.push_back(other);
  }
  at_room.Values({1, 2, 3});
  over_room.Values({10, 20, 30});
  other_tail.Values({100, 200, 300});
  for (int i = 0; i < 2; ++i) {
    Add(p.get(), at_room);
    Add(p.get(), over_room);
    Add(p.get(), other_tail);
  }
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 3);
  CHECK(ValuesOf(SampleWithFrames(out, room_names)) == Values{2, 4, 6});
  CHECK(ValuesOf(SampleWithFrames(out, over_names)) == Values{20, 40, 60});
  CHECK(ValuesOf(SampleWithFrames(out, other_names)) == Values{200, 400, 600});
}

TEST_CASE("a frame that recurs within a new stack is one location") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("visit", "tree.rb", 12).Frame("walk", "tree.rb", 30);
  b.Frame("visit", "tree.rb", 12).Frame("walk", "tree.rb", 30);
  b.Frame("main", "app.rb", 3).Values({5, 1, 5});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());  // CheckInvariants: no location twice
  REQUIRE(out.sample_size() == 1);
  const Sample& s = out.sample(0);
  CHECK(FrameNames(out, s) == Strings{"visit", "walk", "visit", "walk", "main"});
  REQUIRE(s.location_id_size() == 5);
  CHECK(s.location_id(0) == s.location_id(2));
  CHECK(s.location_id(1) == s.location_id(3));
  CHECK(out.location_size() == 3);
  CHECK(out.function_size() == 3);
}

namespace {

// The leaf frame of `s`, field by field: "name|system name|file|start
// line|line|mapping file|address".
std::string LeafFields(const Profile& p, const Sample& s) {
  REQUIRE(s.location_id_size() == 2);
  const auto& loc = FindLocation(p, s.location_id(0));
  REQUIRE(loc.line_size() == 1);
  const auto& fn = FindFunction(p, loc.line(0).function_id());
  std::string mapping;
  for (const auto& m : p.mapping()) {
    if (m.id() == loc.mapping_id()) mapping = Str(p, m.filename());
  }
  return Str(p, fn.name()) + "|" + Str(p, fn.system_name()) + "|" + Str(p, fn.filename()) + "|" +
         std::to_string(fn.start_line()) + "|" + std::to_string(loc.line(0).line()) + "|" +
         mapping + "|" + std::to_string(loc.address());
}

}  // namespace

TEST_CASE(
    "a system name is part of a function's identity, and one equal to the name is kept as given") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  // Two names of one length that differ in their last byte, and a copy of
  // the first: the same bytes at another address.
  const std::string f = "main.(*Server).Serve", g = "main.(*Server).Servf", f_copy = f,
                    f_longer = f + "x", file = "server.go", lib = "/usr/lib/libgo.so";
  auto leaf = [&](const std::string& name, stackrec_str system_name) {
    stackrec_location l{};
    l.function.name = S(name);
    l.function.system_name = system_name;
    l.function.filename = S(file);
    l.function.start_line = 3;
    l.line = 10;
    return l;
  };
  std::vector<stackrec_location> leaves = {
      leaf(f, S("")),        // 0: no system name
      leaf(f, S("")),        // 1: the name's own string, set below
      leaf(f, S(f_copy)),    // 2: a copy of the name: as 1
      leaf(f, S(g)),         // 3: as long as the name, a byte apart
      leaf(g, S(f)),         // 4: 3's names swapped
      leaf(g, S("")),        // 5: g's own string, set below
      leaf(f, S("")),        // 6: as 1, with a mapping
      leaf(f, S("")),        // 7: as 0, with that mapping
      leaf(f, S(f_longer)),  // 8: the name and a byte more
  };
  leaves[1].function.system_name = leaves[1].function.name;
  leaves[5].function.system_name = leaves[5].function.name;
  leaves[6].function.system_name = leaves[6].function.name;
  for (size_t i : {6, 7}) {
    leaves[i].mapping.memory_start = 0x400000;
    leaves[i].mapping.memory_limit = 0x800000;
    leaves[i].mapping.filename = S(lib);
    leaves[i].address = 0x401234;
  }
  stackrec_location frames[2] = {};
  frames[1].function.name = S("main.main");
  const int64_t values[3] = {1, 1, 1};
  stackrec_sample s{};
  s.locations = frames;
  s.locations_len = 2;
  s.values = values;
  s.values_len = 3;
  // Twice each: the second time each stack is known.
  for (int round = 0; round < 2; ++round) {
    for (const stackrec_location& l : leaves) {
      frames[0] = l;
      INFO(stackrec_last_error());
      REQUIRE(t.Add(&s) == STACKREC_OK);
    }
  }
  const Profile out = t.Take();
  std::vector<std::pair<std::string, int64_t>> got;
  for (const Sample& sample : out.sample()) {
    CHECK(FrameNames(out, sample)[1] == "main.main");
    got.emplace_back(LeafFields(out, sample), sample.value(0));
  }
  std::sort(got.begin(), got.end());
  const std::string tail = "|server.go|3|10||0";
  std::vector<std::pair<std::string, int64_t>> expected = {
      {f + "|" + tail, 2},
      {f + "|" + f + tail, 4},  // the name's own string and its copy, one sample
      {f + "|" + g + tail, 2},
      {g + "|" + f + tail, 2},
      {g + "|" + g + tail, 2},
      {f + "||server.go|3|10|" + lib + "|4198964", 2},
      {f + "|" + f + "|server.go|3|10|" + lib + "|4198964", 2},
      {f + "|" + f_longer + tail, 2},
  };
  std::sort(expected.begin(), expected.end());
  CHECK(got == expected);
  // Six functions with a leaf's name (6 and 7 share 1's and 0's), and main.
  CHECK(out.function_size() == 7);
  CHECK(out.location_size() == 9);
}
