// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The profile's string path from the inside: Profile::Add with a HashedFrames
// loads the frames only for a stack it does not hold, converts only the
// frames it does not know, and checks such a sample like any other, also
// once the profile is compacted; and a new location finds its function
// field by field.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/status.h"
#include "catch2/catch.hpp"
#include "hash/fingerprint.h"
#include "profile/profile.h"
#include "stackrec/stackrec.h"
#include "support/core_test_support.h"

using stackrec::Fingerprint;
using stackrec::LocationView;
using stackrec_core_test::EachKernel;
using stackrec_core_test::Options;
using stackrec_core_test::Stack;

namespace {

// What a profile asked of a HashedFrames: the frames whole, or one at a time.
struct Conversions {
  int loads = 0;
  std::vector<size_t> frames;  // the indices asked for, in order
};

// Adds `values` with the frames of `stack` given by a HashedFrames; counts
// what was converted.
stackrec::Status AddHashed(stackrec::Profile* profile, const Stack& stack,
                           std::vector<int64_t> values, Conversions* asked,
                           std::vector<stackrec::LabelView> labels = {}) {
  stackrec::SampleView sample;
  sample.values = values;
  sample.labels = labels;
  auto load = [&](absl::Span<const LocationView>* frames) {
    ++asked->loads;
    *frames = stack.views();
    return stackrec::OkStatus();
  };
  auto frame = [&](size_t i) {
    asked->frames.push_back(i);
    return stack.views()[i];
  };
  auto any_inlined = [&] {
    return std::any_of(stack.views().begin(), stack.views().end(),
                       [](const LocationView& v) { return v.inlined; });
  };
  std::vector<uint64_t> hashes(stack.views().size());
  const Fingerprint fingerprint = stackrec::FingerprintFrames(stack.views(), hashes.data());
  const stackrec::HashedFrames hashed{fingerprint, hashes.data(), stack.views().size(),
                                      load,        frame,         any_inlined};
  return profile->Add(sample, &hashed);
}

std::vector<size_t> Range(size_t begin, size_t end) {
  std::vector<size_t> out;
  for (size_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

// The function names of the stack of key `k`, leaf first.
std::vector<std::string> KeyFrameNames(const stackrec::Profile& profile, size_t k) {
  std::vector<std::string> names;
  for (uint32_t id : profile.stacks().Get(profile.Parts().aggregate.key_stack(k))) {
    const auto& location = profile.Parts().tables.locations().Get(id);
    names.emplace_back(
        profile.strings().Get(profile.Parts().tables.functions().Get(location.function).name));
  }
  return names;
}

std::vector<std::string> Names(const Stack& stack) {
  std::vector<std::string> names;
  for (const LocationView& v : stack.views()) names.emplace_back(v.function.name);
  return names;
}

}  // namespace

// ---- Adding with a HashedFrames ------------------------------------------------

TEST_CASE("a profile adds a stack it holds by fingerprint, without loading the frames") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack known("known", 40), unknown("unknown", 40);
  Conversions asked;
  REQUIRE(AddHashed(&profile, known, {1, 100}, &asked).ok());
  // New to the profile: each of its frames, new too, converted and interned.
  CHECK(asked.loads == 0);
  CHECK(asked.frames == Range(0, 40));
  REQUIRE(AddHashed(&profile, known, {1, 50}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 40);
  // A stack added as views is found from its hashed frames as well.
  stackrec::SampleView plain;
  const std::vector<int64_t> values = {1, 25};
  plain.values = values;
  plain.locations = unknown.views();
  REQUIRE(profile.Add(plain).ok());
  REQUIRE(AddHashed(&profile, unknown, {1, 5}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 40);
  REQUIRE(profile.key_count() == 2);
  CHECK(profile.samples_added() == 4);
  CHECK(profile.stacks().size() == 3);  // the empty stack and these two
  for (size_t k = 0; k < 2; ++k) {
    const auto frames = profile.stacks().Get(profile.Parts().aggregate.key_stack(k));
    REQUIRE(frames.size() == 40);
    const int64_t* sums = profile.Parts().aggregate.key_values(k);
    const auto& leaf = profile.Parts().tables.locations().Get(frames[0]);
    const std::string name(
        profile.strings().Get(profile.Parts().tables.functions().Get(leaf.function).name));
    if (name == "known0") {
      CHECK(sums[0] == 2);
      CHECK(sums[1] == 150);
    } else {
      CHECK(name == "unknown0");
      CHECK(sums[0] == 2);
      CHECK(sums[1] == 30);
    }
  }
}

TEST_CASE("a stack given hashed, deeper than max_frames, is loaded and cut") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(8), 0);
  const Stack deep("deep", 20);
  Conversions asked;
  REQUIRE(AddHashed(&profile, deep, {1, 1}, &asked).ok());
  REQUIRE(AddHashed(&profile, deep, {1, 1}, &asked).ok());
  // Its fingerprint is of all 20 frames, the profile's stack of 8 and a
  // pseudo-frame: never the same, so every add loads.
  CHECK(asked.loads == 2);
  CHECK(asked.frames.empty());
  CHECK(profile.samples_truncated() == 2);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.stacks().Get(profile.Parts().aggregate.key_stack(0)).size() == 9);
  CHECK(profile.Parts().aggregate.key_values(0)[0] == 2);
}

TEST_CASE("a sample given hashed, of a known stack, is checked like any other") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack known("known", 10);
  Conversions asked;
  REQUIRE(AddHashed(&profile, known, {1, 7}, &asked).ok());
  const stackrec::Status values = AddHashed(&profile, known, {1, 7, 9}, &asked);
  CHECK(values.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.values_len is 3 but the profile declares 2 sample types");
  stackrec::LabelView empty_key;
  empty_key.str = "v";
  const stackrec::Status labels = AddHashed(&profile, known, {1, 7}, &asked, {empty_key});
  CHECK(labels.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) == "sample.labels[0].key is empty");
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 10);  // the first add's
  CHECK(profile.samples_added() == 1);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.Parts().aggregate.key_values(0)[0] == 1);
  CHECK(profile.Parts().aggregate.key_values(0)[1] == 7);
}

TEST_CASE("a new stack given hashed converts only the frames the profile does not know") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack root("root", 30), leaves("leaf", 4);
  Conversions asked;
  REQUIRE(AddHashed(&profile, root, {1, 10}, &asked).ok());
  REQUIRE(asked.frames == Range(0, 30));
  // Four new leaf frames on root's frames 10 to 29, as a call tree grows.
  const Stack branch(leaves, 4, root, 10);
  asked.frames.clear();
  REQUIRE(AddHashed(&profile, branch, {1, 20}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames == Range(0, 4));
  CHECK(profile.Parts().tables.locations().size() == 1 + 30 + 4);
  REQUIRE(profile.key_count() == 2);
  CHECK(KeyFrameNames(profile, 0) == Names(root));
  CHECK(KeyFrameNames(profile, 1) == Names(branch));
  CHECK(profile.Parts().aggregate.key_values(1)[0] == 1);
  CHECK(profile.Parts().aggregate.key_values(1)[1] == 20);
  // Found by fingerprint from now on, as any stack interned otherwise.
  asked.frames.clear();
  REQUIRE(AddHashed(&profile, branch, {1, 5}, &asked).ok());
  CHECK(asked.frames.empty());
  CHECK(profile.Parts().aggregate.key_values(1)[1] == 25);
}

TEST_CASE("a new stack given hashed with an inlined frame is loaded whole and checked") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  Stack bad("bad", 5);
  bad.views()[4].inlined = true;  // the root: nothing to be inlined into
  Conversions asked;
  const stackrec::Status status = AddHashed(&profile, bad, {1, 1}, &asked);
  CHECK(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[4].inlined is set on the last (root) frame, which has no caller to "
        "be inlined into");
  CHECK(asked.loads == 1);
  CHECK(asked.frames.empty());
  CHECK(profile.key_count() == 0);
  CHECK(profile.samples_added() == 0);
  Stack good("good", 5);
  good.views()[1].inlined = true;
  good.views()[1].address = good.views()[2].address = 0x1234;
  REQUIRE(AddHashed(&profile, good, {1, 1}, &asked).ok());
  CHECK(asked.loads == 2);
  REQUIRE(profile.key_count() == 1);
  CHECK(KeyFrameNames(profile, 0) == Names(good));
  const auto ids = profile.stacks().Get(profile.Parts().aggregate.key_stack(0));
  CHECK(profile.Parts().tables.locations().Get(ids[1]).inlined);
  CHECK_FALSE(profile.Parts().tables.locations().Get(ids[2]).inlined);
}

TEST_CASE("a new stack given hashed names a frame whose string is not UTF-8 and changes nothing") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const Stack known("known", 6);
  Conversions asked;
  REQUIRE(AddHashed(&profile, known, {1, 3}, &asked).ok());
  const std::string bad_name = "caf\xc3";  // a truncated two-byte sequence
  Stack bad(known, 6, known, 6);           // known's frames...
  LocationView leaf;
  leaf.function.name = bad_name;
  leaf.function.filename = "/app/stack.rb";
  bad.views().insert(bad.views().begin(), leaf);  // ...under a new leaf
  asked.frames.clear();
  const stackrec::Status status = AddHashed(&profile, bad, {1, 4}, &asked);
  CHECK(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[0].function.name is not valid UTF-8");
  CHECK(asked.frames == std::vector<size_t>{0});
  CHECK(profile.samples_added() == 1);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.Parts().aggregate.key_values(0)[1] == 3);
  CHECK(profile.stacks().size() == 2);  // the empty stack and known
}

TEST_CASE(
    "a new stack given hashed past the memory cap is loaded whole into the storage-full sample") {
  const EachKernel kernel;
  stackrec::ProfileOptions options = Options();
  options.max_memory_bytes = 1;  // full from the first add on
  stackrec::Profile profile(options, 0);
  const Stack stack("s", 8);
  Conversions asked;
  REQUIRE(AddHashed(&profile, stack, {1, 9}, &asked).ok());
  CHECK(asked.loads == 1);
  CHECK(asked.frames.empty());
  CHECK(profile.samples_over_memory() == 1);
  REQUIRE(profile.key_count() == 1);
  CHECK(profile.Parts().aggregate.key_values(0)[1] == 9);
}

TEST_CASE(
    "Compact frees the frame and function caches and the stack pool's slack, and adding goes on") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  std::vector<Stack> stacks;
  for (int i = 0; i < 300; ++i) stacks.emplace_back("s" + std::to_string(i) + "_", 12);
  Conversions asked;
  for (const Stack& stack : stacks) REQUIRE(AddHashed(&profile, stack, {1, 1}, &asked).ok());
  REQUIRE(asked.frames.size() == 3600);
  const size_t before = profile.MemoryBytes();
  profile.Compact();
  // 3,600 distinct frames of as many functions: the frame cache and the
  // function cache hold 3,600 entries each, as this map does.
  absl::flat_hash_map<uint64_t, uint32_t> same;
  for (uint32_t i = 0; i < 3600; ++i) same.emplace(i, i);
  const size_t cache_bytes = same.capacity() * (sizeof(std::pair<const uint64_t, uint32_t>) + 1);
  CHECK(before - profile.MemoryBytes() >= 2 * cache_bytes);
  // Known stacks are still found by fingerprint, without their frames.
  for (const Stack& stack : stacks) REQUIRE(AddHashed(&profile, stack, {1, 2}, &asked).ok());
  CHECK(asked.loads == 0);
  CHECK(asked.frames.size() == 3600);
  CHECK(profile.key_count() == 300);
  CHECK(profile.Parts().aggregate.key_values(299)[0] == 2);
  CHECK(profile.Parts().aggregate.key_values(299)[1] == 3);
  // A new stack of known frames is interned through the string table.
  stackrec::SampleView sample;
  const std::vector<int64_t> values = {1, 7};
  sample.values = values;
  std::vector<LocationView> frames = stacks[5].views();
  std::reverse(frames.begin(), frames.end());
  sample.locations = frames;
  const size_t locations = profile.Parts().tables.locations().size();
  REQUIRE(profile.Add(sample).ok());
  CHECK(profile.Parts().tables.locations().size() == locations);  // no frame is new
  REQUIRE(profile.key_count() == 301);
  const auto ids = profile.stacks().Get(profile.Parts().aggregate.key_stack(300));
  REQUIRE(ids.size() == 12);
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto& location = profile.Parts().tables.locations().Get(ids[i]);
    CHECK(profile.strings().Get(profile.Parts().tables.functions().Get(location.function).name) ==
          "s5_" + std::to_string(11 - i));
  }
}

// ---- Interning new locations -------------------------------------------------

namespace {

// A sample of one stack of `frames` (leaf first), values {1, 1}.
stackrec::Status AddFrames(stackrec::Profile* profile, const std::vector<LocationView>& frames) {
  stackrec::SampleView sample;
  const std::vector<int64_t> values = {1, 1};
  sample.values = values;
  sample.locations = frames;
  return profile->Add(sample);
}

// The function name, function file, start line and line of each frame of
// key `key`'s stack, leaf first.
std::vector<std::string> Frames(const stackrec::Profile& profile, size_t key) {
  REQUIRE(key < profile.key_count());  // settles what is pending
  std::vector<std::string> out;
  for (uint32_t id : profile.stacks().Get(profile.Parts().aggregate.key_stack(key))) {
    const auto& location = profile.Parts().tables.locations().Get(id);
    const auto& function = profile.Parts().tables.functions().Get(location.function);
    out.push_back(std::string(profile.strings().Get(function.name)) + " " +
                  std::string(profile.strings().Get(function.filename)) + " " +
                  std::to_string(function.start_line) + " " + std::to_string(location.line));
  }
  return out;
}

LocationView Frame(absl::string_view name, absl::string_view file, int64_t start_line,
                   int64_t line) {
  LocationView v;
  v.function.name = name;
  v.function.filename = file;
  v.function.start_line = start_line;
  v.line = line;
  return v;
}

}  // namespace

TEST_CASE("new locations of known functions find their function, field by field") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 10), Frame("g", "a.rb", 5, 20)}).ok());
  REQUIRE(profile.Parts().tables.functions().size() == 3);  // id 0 and two
  const size_t strings = profile.strings().size();
  // New locations of f and g: no new function, no new string.
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 11), Frame("g", "a.rb", 5, 21),
                               Frame("f", "a.rb", 1, 12)})
              .ok());
  CHECK(profile.Parts().tables.functions().size() == 3);
  CHECK(profile.strings().size() == strings);
  CHECK(Frames(profile, 1) ==
        std::vector<std::string>{"f a.rb 1 11", "g a.rb 5 21", "f a.rb 1 12"});
  // Functions that differ from f in one field each are functions of their own.
  LocationView system = Frame("f", "a.rb", 1, 13);
  system.function.system_name = "_Z1fv";
  REQUIRE(AddFrames(&profile, {Frame("f", "b.rb", 1, 13), Frame("f", "a.rb", 2, 13), system,
                               Frame("h", "a.rb", 1, 13)})
              .ok());
  CHECK(profile.Parts().tables.functions().size() == 7);
  CHECK(Frames(profile, 2) ==
        std::vector<std::string>{"f b.rb 1 13", "f a.rb 2 13", "f a.rb 1 13", "h a.rb 1 13"});
  const auto stack = profile.stacks().Get(profile.Parts().aggregate.key_stack(2));
  const auto& tables = profile.Parts().tables;
  CHECK(profile.strings().Get(
            tables.functions().Get(tables.locations().Get(stack[2]).function).system_name) ==
        "_Z1fv");
}

TEST_CASE("a new function whose system name is its name interns the string once, and keeps both") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  const std::string name = "main.(*Server).Serve", copy = name, other = "main.(*Server).Servf";
  LocationView go = Frame(name, "server.go", 3, 10);
  go.function.system_name = go.function.name;      // the name's own bytes
  const size_t before = profile.strings().size();  // the options' strings
  REQUIRE(AddFrames(&profile, {go}).ok());
  REQUIRE(profile.key_count() == 1);  // settles what is pending
  const size_t strings = profile.strings().size();
  CHECK(strings == before + 2);  // the name and the file
  const auto& tables = profile.Parts().tables;
  const auto& fn = tables.functions().Get(
      tables.locations()
          .Get(profile.stacks().Get(profile.Parts().aggregate.key_stack(0))[0])
          .function);
  CHECK(fn.system_name == fn.name);
  CHECK(profile.strings().Get(fn.system_name) == name);
  // A copy of the name is the same function; a system name that differs
  // from it in one byte, or none, a function of its own.
  LocationView copied = go, differs = go, none = go;
  copied.function.system_name = copy;
  differs.function.system_name = other;
  none.function.system_name = absl::string_view();
  REQUIRE(AddFrames(&profile, {copied, differs, none}).ok());
  REQUIRE(profile.key_count() == 2);
  CHECK(profile.Parts().tables.functions().size() == 4);  // id 0, and three
  CHECK(profile.strings().size() == strings + 1);
  const auto stack = profile.stacks().Get(profile.Parts().aggregate.key_stack(1));
  REQUIRE(stack.size() == 3);
  auto system_name = [&](uint32_t location) {
    const auto& f = tables.functions().Get(tables.locations().Get(location).function);
    return std::string(profile.strings().Get(f.system_name));
  };
  CHECK(stack[0] == profile.stacks().Get(profile.Parts().aggregate.key_stack(0))[0]);
  CHECK(system_name(stack[0]) == name);
  CHECK(system_name(stack[1]) == other);
  CHECK(system_name(stack[2]).empty());
}

TEST_CASE("after a reset, the function of a new location is interned again") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 10)}).ok());
  profile.Reset(0);
  // g now takes the id f had; f's next location must not find that id.
  REQUIRE(AddFrames(&profile, {Frame("g", "a.rb", 1, 10)}).ok());
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 11)}).ok());
  CHECK(Frames(profile, 0) == std::vector<std::string>{"g a.rb 1 10"});
  CHECK(Frames(profile, 1) == std::vector<std::string>{"f a.rb 1 11"});
}

TEST_CASE("a new frame twice in a new stack is one location; a bad frame interns none") {
  const EachKernel kernel;
  stackrec::Profile profile(Options(), 0);
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 10), Frame("g", "a.rb", 1, 10),
                               Frame("f", "a.rb", 1, 10)})
              .ok());
  REQUIRE(profile.key_count() == 1);  // settles what is pending
  const auto ids = profile.stacks().Get(profile.Parts().aggregate.key_stack(0));
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] == ids[2]);
  CHECK(ids[0] != ids[1]);
  CHECK(profile.Parts().tables.locations().size() == 3);  // id 0 and two
  // New frames before a bad one: the add fails naming it, and none of its
  // locations is interned.
  const std::string bad = "\xff";
  const stackrec::Status status = AddFrames(
      &profile, {Frame("f", "a.rb", 1, 30), Frame("k", "a.rb", 1, 31), Frame(bad, "a.rb", 1, 32)});
  CHECK(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[2].function.name is not valid UTF-8");
  CHECK(profile.Parts().tables.locations().size() == 3);
  CHECK(profile.key_count() == 1);
  // The same frames with a good last one go in whole.
  REQUIRE(AddFrames(&profile, {Frame("f", "a.rb", 1, 30), Frame("k", "a.rb", 1, 31),
                               Frame("m", "a.rb", 1, 32)})
              .ok());
  CHECK(Frames(profile, 1) ==
        std::vector<std::string>{"f a.rb 1 30", "k a.rb 1 31", "m a.rb 1 32"});
}
