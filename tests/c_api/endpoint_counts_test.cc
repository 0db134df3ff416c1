// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Endpoint hit counts, handed back with each encoded profile.
#include <limits>
#include <utility>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

using Counts = std::vector<std::pair<std::string, int64_t>>;

Counts CountsOf(const stackrec_encoded* e) {
  Counts counts;
  for (size_t i = 0; i < stackrec_encoded_endpoint_counts_len(e); ++i) {
    stackrec_str name{};
    int64_t count = 0;
    REQUIRE(stackrec_encoded_endpoint_count(e, i, &name, &count) == STACKREC_OK);
    counts.emplace_back(std::string(name.ptr, name.len), count);
  }
  return counts;
}

EncodedPtr SerializeProfile(stackrec_profile* p) {
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_profile_serialize(p, nullptr, &e) == STACKREC_OK);
  return EncodedPtr(e);
}

EncodedPtr SerializeRecorder(stackrec_recorder* r) {
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r, nullptr, &e) == STACKREC_OK);
  return EncodedPtr(e);
}

}  // namespace

TEST_CASE("endpoint counts are summed and handed back sorted with the encoded profile") {
  auto p = NewProfile();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("POST /orders"), 2) == STACKREC_OK);
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("GET /users"), 1) == STACKREC_OK);
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("POST /orders"), 3) == STACKREC_OK);
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("GET /big"), kMax) == STACKREC_OK);
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("GET /big"), 1) == STACKREC_OK);
  auto e = SerializeProfile(p.get());
  CHECK(CountsOf(e.get()) == Counts{{"GET /big", kMax}, {"GET /users", 1}, {"POST /orders", 5}});
  // Counts do not become samples or strings of the profile itself.
  const Profile out = Decode(stackrec_encoded_data(e.get()), stackrec_encoded_size(e.get()));
  CheckInvariants(out);
  CHECK(out.sample_size() == 0);

  REQUIRE(stackrec_profile_reset(p.get()) == STACKREC_OK);
  auto after_reset = SerializeProfile(p.get());
  CHECK(stackrec_encoded_endpoint_counts_len(after_reset.get()) == 0);
}

TEST_CASE("a recorder's endpoint counts go out with their slot's profile and reset with it") {
  auto r = NewRecorder(Options().opts);
  REQUIRE(stackrec_recorder_add_endpoint_count(r.get(), S("GET /a"), 1) == STACKREC_OK);
  REQUIRE(stackrec_recorder_add_endpoint_count(r.get(), S("GET /a"), 1) == STACKREC_OK);
  auto first = SerializeRecorder(r.get());
  REQUIRE(stackrec_recorder_add_endpoint_count(r.get(), S("GET /b"), 7) == STACKREC_OK);
  auto second = SerializeRecorder(r.get());
  auto third = SerializeRecorder(r.get());
  CHECK(CountsOf(first.get()) == Counts{{"GET /a", 2}});
  CHECK(CountsOf(second.get()) == Counts{{"GET /b", 7}});
  CHECK(CountsOf(third.get()).empty());
}

TEST_CASE("bad endpoint-count calls get a status and a message naming the argument") {
  auto p = NewProfile();
  REQUIRE(stackrec_profile_add_endpoint_count(p.get(), S("GET /kept"), 1) == STACKREC_OK);
  auto expect = [](stackrec_status st, const std::string& needle) {
    INFO("message: " << stackrec_last_error());
    CHECK(st == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()).find(needle) != std::string::npos);
  };
  expect(stackrec_profile_add_endpoint_count(nullptr, S("x"), 1), "profile is NULL");
  expect(stackrec_profile_add_endpoint_count(p.get(), S(""), 1), "endpoint is empty");
  expect(stackrec_profile_add_endpoint_count(p.get(), S("\xC3("), 1),
         "endpoint is not valid UTF-8");
  expect(stackrec_profile_add_endpoint_count(p.get(), stackrec_str{nullptr, 2}, 1),
         "endpoint.ptr is NULL");
  expect(stackrec_recorder_add_endpoint_count(nullptr, S("x"), 1), "recorder is NULL");
  auto e = SerializeProfile(p.get());
  CHECK(CountsOf(e.get()) == Counts{{"GET /kept", 1}});  // nothing else changed
  stackrec_str name{};
  int64_t count = 0;
  expect(stackrec_encoded_endpoint_count(e.get(), 1, &name, &count),
         "index 1 is past the 1 endpoint counts");
  expect(stackrec_encoded_endpoint_count(nullptr, 0, &name, &count), "encoded is NULL");
  expect(stackrec_encoded_endpoint_count(e.get(), 0, nullptr, &count), "endpoint is NULL");
  expect(stackrec_encoded_endpoint_count(e.get(), 0, &name, nullptr), "count is NULL");
  CHECK(stackrec_encoded_endpoint_counts_len(nullptr) == 0);
}
