// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The pre-interned path: samples recorded by id come out exactly as the
// same samples recorded with strings.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

struct Frame {
  const char* name;
  const char* file;
  int64_t line;
};

// Interns `frames` (leaf first) into a profile's or a recorder's
// dictionary through `intern_function`, `intern_location`, and returns the
// location ids.
template <typename Handle, typename InternFunction, typename InternLocation>
std::vector<uint32_t> InternFrames(Handle* h, const std::vector<Frame>& frames,
                                   InternFunction intern_function, InternLocation intern_location) {
  std::vector<uint32_t> ids;
  for (const Frame& f : frames) {
    stackrec_function fn{};
    fn.name = S(f.name);
    fn.filename = S(f.file);
    uint32_t function_id = 0;
    REQUIRE(intern_function(h, &fn, &function_id) == STACKREC_OK);
    stackrec_interned_location loc{};
    loc.function_id = function_id;
    loc.line = f.line;
    uint32_t location_id = 0;
    REQUIRE(intern_location(h, &loc, &location_id) == STACKREC_OK);
    ids.push_back(location_id);
  }
  return ids;
}

SampleBuilder Strings(const std::vector<Frame>& frames, std::vector<int64_t> values,
                      const std::string& thread) {
  SampleBuilder b;
  for (const Frame& f : frames) b.Frame(f.name, f.file, f.line);
  b.Values(std::move(values)).Label("thread name", thread);
  return b;
}

const std::vector<Frame> kA = {{"leaf", "a.rb", 3}, {"middle", "a.rb", 7}, {"main", "m.rb", 1}};
const std::vector<Frame> kB = {{"other", "b.rb", 9}, {"middle", "a.rb", 8}, {"main", "m.rb", 1}};

}  // namespace

TEST_CASE("a profile's samples by stack id and by location ids equal the string samples") {
  auto by_id = NewProfile();
  auto by_string = NewProfile();
  const auto a = InternFrames(by_id.get(), kA, stackrec_profile_intern_function,
                              stackrec_profile_intern_location);
  const auto b = InternFrames(by_id.get(), kB, stackrec_profile_intern_function,
                              stackrec_profile_intern_location);
  uint32_t stack_a = 0;
  REQUIRE(stackrec_profile_intern_stack(by_id.get(), a.data(), a.size(), &stack_a) == STACKREC_OK);
  uint32_t again = 0;
  REQUIRE(stackrec_profile_intern_stack(by_id.get(), a.data(), a.size(), &again) == STACKREC_OK);
  CHECK(again == stack_a);

  const stackrec_label thread{S("thread name"), S("w1"), 0, {}};
  const int64_t values[] = {10, 1, 20};
  stackrec_id_sample s{};
  s.values = values;
  s.values_len = 3;
  s.labels = &thread;
  s.labels_len = 1;
  s.stack_id = stack_a;
  REQUIRE(stackrec_profile_add_ids(by_id.get(), &s) == STACKREC_OK);
  REQUIRE(stackrec_profile_add_ids(by_id.get(), &s) == STACKREC_OK);
  s.stack_id = 0;
  s.location_ids = b.data();
  s.location_ids_len = b.size();
  REQUIRE(stackrec_profile_add_ids(by_id.get(), &s) == STACKREC_OK);

  auto sa = Strings(kA, {10, 1, 20}, "w1");
  auto sb = Strings(kB, {10, 1, 20}, "w1");
  Add(by_string.get(), sa);
  Add(by_string.get(), sa);
  Add(by_string.get(), sb);
  // A string sample of the same stack aggregates with the id samples.
  Add(by_id.get(), sa);
  Add(by_string.get(), sa);

  const Profile ids_out = WithoutTimes(SerializeAndDecode(by_id.get()));
  const Profile strings_out = WithoutTimes(SerializeAndDecode(by_string.get()));
  REQUIRE(ids_out.sample_size() == 2);
  CHECK(ids_out.sample(0).value(0) == 30);
  CHECK(FrameNames(ids_out, ids_out.sample(0)) ==
        std::vector<std::string>{"leaf", "middle", "main"});
  CHECK(ids_out.SerializeAsString() == strings_out.SerializeAsString());
}

TEST_CASE("a recorder's ids hold in both slots and across flips; forget_ids makes them stale") {
  Options o;
  auto r = NewRecorder(o.opts);
  const auto a = InternFrames(r.get(), kA, stackrec_recorder_intern_function,
                              stackrec_recorder_intern_location);
  uint32_t stack_a = 0;
  REQUIRE(stackrec_recorder_intern_stack(r.get(), a.data(), a.size(), &stack_a) == STACKREC_OK);
  const int64_t values[] = {5, 1, 5};
  stackrec_id_sample s{};
  s.stack_id = stack_a;
  s.values = values;
  s.values_len = 3;
  auto serialize = [&] {
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
    CheckInvariants(out);
    return out;
  };
  for (int flip = 0; flip < 4; ++flip) {
    for (int i = 0; i <= flip; ++i)
      REQUIRE(stackrec_recorder_record_ids(r.get(), &s) == STACKREC_OK);
    const Profile out = serialize();
    REQUIRE(out.sample_size() == 1);
    CHECK(out.sample(0).value(0) == 5 * (flip + 1));
    CHECK(FrameNames(out, out.sample(0)) == std::vector<std::string>{"leaf", "middle", "main"});
  }

  // Recorded before the forget, serialized after it: still right.
  REQUIRE(stackrec_recorder_record_ids(r.get(), &s) == STACKREC_OK);
  REQUIRE(stackrec_recorder_forget_ids(r.get()) == STACKREC_OK);
  CHECK(stackrec_recorder_record_ids(r.get(), &s) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "sample.stack_id " + std::to_string(stack_a) + " is stale (interned before forget_ids)");
  Profile out = serialize();
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 5);

  // New ids, of the next generation, work in both slots.
  const auto b = InternFrames(r.get(), kB, stackrec_recorder_intern_function,
                              stackrec_recorder_intern_location);
  uint32_t stack_b = 0;
  REQUIRE(stackrec_recorder_intern_stack(r.get(), b.data(), b.size(), &stack_b) == STACKREC_OK);
  CHECK(stack_b >> 24 == 1);
  s.stack_id = stack_b;
  for (int flip = 0; flip < 2; ++flip) {
    REQUIRE(stackrec_recorder_record_ids(r.get(), &s) == STACKREC_OK);
    out = serialize();
    REQUIRE(out.sample_size() == 1);
    CHECK(FrameNames(out, out.sample(0)) == std::vector<std::string>{"other", "middle", "main"});
  }
}
