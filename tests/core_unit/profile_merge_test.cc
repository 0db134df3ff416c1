// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile::MergeFrom, with which a recorder gathers a slot's lanes: what
// two profiles hold after one merges the other is what one profile holds
// after every add of both, sample by sample, and a merge that runs out of
// memory changes no sample.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/table_memory.h"
#include "catch2/catch.hpp"
#include "oracle/pprof_decode.h"
#include "profile/profile.h"
#include "serialize/serialize.h"
#include "support/core_test_support.h"

using stackrec_core_test::Options;
using stackrec_core_test::Stack;

namespace {

// One add: a stack, a thread id label (and a span id when `span` > 0),
// values, and a timestamp (0: none).
struct Add {
  std::string stack;
  int depth;
  int64_t thread;
  int64_t span;
  int64_t timestamp;
  std::vector<int64_t> values;
};

void Apply(stackrec::Profile* profile, const Add& add) {
  const Stack stack(add.stack, static_cast<size_t>(add.depth));
  std::vector<stackrec::LabelView> labels(1);
  labels[0].key = "thread id";
  labels[0].num = add.thread;
  if (add.span > 0) {
    labels.emplace_back();
    labels.back().key = "local root span id";
    labels.back().num = add.span;
  }
  stackrec::SampleView sample;
  sample.locations = stack.views();
  sample.labels = labels;
  sample.values = add.values;
  sample.timestamp_ns = add.timestamp;
  REQUIRE(profile->Add(sample).ok());
}

// Every sample of the encoded profile as one line: its frames leaf first,
// its labels and values, sorted.
std::vector<std::string> Samples(stackrec::Profile& profile) {
  stackrec::TableString bytes;
  stackrec::SerializationStats stats;
  REQUIRE(stackrec::SerializeProfile(profile, {stackrec::Compression::kNone, 0}, 1, &bytes, &stats)
              .ok());
  const auto p = stackrec_test::Decode(std::string(bytes.data(), bytes.size()));
  auto str = [&](int64_t i) { return p.string_table(static_cast<int>(i)); };
  std::vector<std::string> lines;
  for (const auto& s : p.sample()) {
    std::string line;
    for (uint64_t id : s.location_id()) {
      const auto& location = p.location(static_cast<int>(id - 1));
      line += str(p.function(static_cast<int>(location.line(0).function_id() - 1)).name()) + ";";
    }
    for (const auto& l : s.label()) {
      line += " " + str(l.key()) + "=" + (l.str() != 0 ? str(l.str()) : std::to_string(l.num()));
    }
    for (int64_t v : s.value()) line += " " + std::to_string(v);
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

const std::vector<Add> kFirst = {
    {"a", 3, 1, 0, 0, {1, 10}},   {"a", 3, 1, 0, 0, {1, 11}}, {"b", 5, 1, 7, 0, {1, 12}},
    {"c", 2, 2, 0, 500, {1, 13}}, {"a", 3, 2, 0, 0, {1, 14}},
};
const std::vector<Add> kSecond = {
    {"a", 3, 1, 0, 0, {1, 20}},   {"b", 5, 1, 7, 0, {1, 21}},   {"d", 4, 3, 8, 0, {1, 22}},
    {"c", 2, 2, 0, 600, {1, 23}}, {"c", 2, 2, 0, 500, {1, 24}}, {"a", 3, 3, 0, 0, {1, 25}},
};

}  // namespace

TEST_CASE("a profile merged into another holds what one profile of every add holds") {
  stackrec::Profile into(Options(), 0), from(Options(), 0), both(Options(), 0);
  for (const Add& add : kFirst) Apply(&into, add);
  for (const Add& add : kSecond) Apply(&from, add);
  for (const Add& add : kFirst) Apply(&both, add);
  for (const Add& add : kSecond) Apply(&both, add);
  REQUIRE(into.SetEndpoint(7, "GET /users").ok());
  REQUIRE(from.SetEndpoint(8, "POST /orders").ok());
  REQUIRE(both.SetEndpoint(7, "GET /users").ok());
  REQUIRE(both.SetEndpoint(8, "POST /orders").ok());
  REQUIRE(into.AddEndpointCount("GET /users", 2).ok());
  REQUIRE(from.AddEndpointCount("GET /users", 3).ok());
  REQUIRE(from.AddEndpointCount("POST /orders", 1).ok());
  REQUIRE(both.AddEndpointCount("GET /users", 5).ok());
  REQUIRE(both.AddEndpointCount("POST /orders", 1).ok());

  into.MergeFrom(from);
  // Aggregated keys summed across the two, timestamped samples kept one by
  // one, endpoints labelled on the spans of either.
  const std::vector<std::string> merged = Samples(into);
  CHECK(merged == Samples(both));
  CHECK(merged ==
        std::vector<std::string>{
            "a0;a1;a2; thread id=1 3 41",
            "a0;a1;a2; thread id=2 1 14",
            "a0;a1;a2; thread id=3 1 25",
            "b0;b1;b2;b3;b4; trace endpoint=GET /users thread id=1 local root span id=7 2 33",
            "c0;c1; thread id=2 end_timestamp_ns=500 1 13",
            "c0;c1; thread id=2 end_timestamp_ns=500 1 24",
            "c0;c1; thread id=2 end_timestamp_ns=600 1 23",
            "d0;d1;d2;d3; trace endpoint=POST /orders thread id=3 local root span id=8 1 22",
        });
  CHECK(into.EndpointCounts() == both.EndpointCounts());
  CHECK(into.samples_added() == kFirst.size() + kSecond.size());
  CHECK(into.key_count() == both.key_count());
  CHECK(into.timed_count() == 3);
}

TEST_CASE("a merge that runs out of memory changes no sample of the profile merged into") {
  stackrec::Profile into(Options(), 0), from(Options(), 0);
  for (const Add& add : kFirst) Apply(&into, add);
  for (const Add& add : kSecond) Apply(&from, add);
  // Many new keys, so that the merge must grow the key table.
  for (int i = 0; i < 3000; ++i) Apply(&from, {"e", 2, 100 + i, 0, i % 2 == 0 ? 0 : 900, {1, 1}});
  const std::vector<std::string> before = Samples(into);
  const auto counts_before = into.EndpointCounts();
  bool threw = false;
  // Each allocation of the merge fails in turn until one merge goes through.
  for (uint64_t n = 1; n < 200; ++n) {
    stackrec::table_memory::FailAllocationsForTesting(n);
    try {
      into.MergeFrom(from);
      stackrec::table_memory::FailAllocationsForTesting(0);
      break;
    } catch (const std::bad_alloc&) {
      stackrec::table_memory::FailAllocationsForTesting(0);
      threw = true;
      CHECK(Samples(into) == before);
      CHECK(into.EndpointCounts() == counts_before);
    }
  }
  CHECK(threw);
  stackrec::Profile both(Options(), 0);
  for (const Add& add : kFirst) Apply(&both, add);
  for (const Add& add : kSecond) Apply(&both, add);
  for (int i = 0; i < 3000; ++i) Apply(&both, {"e", 2, 100 + i, 0, i % 2 == 0 ? 0 : 900, {1, 1}});
  CHECK(Samples(into) == Samples(both));
}
