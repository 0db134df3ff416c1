// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The two-slot recorder: ordering and timing of consecutive profiles,
// endpoints across a flip, BUSY, disabled types, stats and bad input.
#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;
using Strings = std::vector<std::string>;

namespace {

void Record(stackrec_recorder* r, SampleBuilder& b) {
  const stackrec_status st = stackrec_recorder_record(r, &b.Get());
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

struct Taken {
  Profile profile;
  int64_t start_ns, end_ns;
};

Taken Take(stackrec_recorder* r) {
  stackrec_encoded* e = nullptr;
  const stackrec_status st = stackrec_recorder_serialize(r, nullptr, &e);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  EncodedPtr owned(e);
  Taken t{Decode(stackrec_encoded_data(e), stackrec_encoded_size(e)), stackrec_encoded_start_ns(e),
          stackrec_encoded_end_ns(e)};
  CheckInvariants(t.profile);
  return t;
}

}  // namespace

TEST_CASE("consecutive recorder profiles hold what was recorded between flips and tile time") {
  Options o;
  auto r = NewRecorder(o.opts);
  SampleBuilder a, b;
  a.Frame("first").Values({1, 1, 1});
  b.Frame("second").Values({2, 2, 2});
  Record(r.get(), a);
  Record(r.get(), a);
  const Taken p1 = Take(r.get());
  Record(r.get(), b);
  const Taken p2 = Take(r.get());
  const Taken p3 = Take(r.get());  // nothing recorded in between

  REQUIRE(p1.profile.sample_size() == 1);
  CHECK(FrameNames(p1.profile, p1.profile.sample(0)) == Strings{"first"});
  CHECK(p1.profile.sample(0).value(0) == 2);
  REQUIRE(p2.profile.sample_size() == 1);
  CHECK(FrameNames(p2.profile, p2.profile.sample(0)) == Strings{"second"});
  CHECK(p2.profile.sample(0).value(0) == 2);
  CHECK(p3.profile.sample_size() == 0);
  CHECK(SampleTypes(p3.profile) ==
        Strings{"cpu-time/nanoseconds", "cpu-samples/count", "wall-time/nanoseconds"});

  // Each profile starts where the previous one ended.
  CHECK(p2.start_ns == p1.end_ns);
  CHECK(p3.start_ns == p2.end_ns);
  CHECK(p1.start_ns <= p1.end_ns);
  for (const Taken* t : {&p1, &p2, &p3}) {
    CHECK(t->profile.time_nanos() == t->start_ns);
    CHECK(t->profile.time_nanos() + t->profile.duration_nanos() == t->end_ns);
  }
}

TEST_CASE("an endpoint recorded before a flip labels its span's samples after the flip") {
  Options o;
  auto r = NewRecorder(o.opts);
  REQUIRE(stackrec_recorder_record_endpoint(r.get(), 5, S("GET /long")) == STACKREC_OK);
  REQUIRE(stackrec_recorder_record_endpoint(r.get(), 6, S("GET /old")) == STACKREC_OK);
  SampleBuilder span5, span6;
  span5.Frame("work").Values({1, 1, 1}).NumLabel("local root span id", 5);
  span6.Frame("work").Values({1, 1, 1}).NumLabel("local root span id", 6);
  Record(r.get(), span5);
  const Taken p1 = Take(r.get());
  REQUIRE(p1.profile.sample_size() == 1);
  CHECK(StrLabel(p1.profile, p1.profile.sample(0), "trace endpoint") == "GET /long");

  // After the flip: span 5 keeps its endpoint; span 6 is renamed in the new
  // profile, and the new name wins.
  REQUIRE(stackrec_recorder_record_endpoint(r.get(), 6, S("GET /new")) == STACKREC_OK);
  Record(r.get(), span5);
  Record(r.get(), span6);
  const Taken p2 = Take(r.get());
  REQUIRE(p2.profile.sample_size() == 2);
  CHECK(StrLabel(p2.profile, p2.profile.sample(0), "trace endpoint") == "GET /long");
  CHECK(StrLabel(p2.profile, p2.profile.sample(1), "trace endpoint") == "GET /new");

  // Two flips later, span 5's mapping has expired; span 6's was set in p2.
  Record(r.get(), span5);
  Record(r.get(), span6);
  const Taken p3 = Take(r.get());
  REQUIRE(p3.profile.sample_size() == 2);
  CHECK(StrLabel(p3.profile, p3.profile.sample(0), "trace endpoint") == "");
  CHECK(StrLabel(p3.profile, p3.profile.sample(1), "trace endpoint") == "GET /new");
}

TEST_CASE("a recorder leaves disabled sample types out while samplers pass every value") {
  const stackrec_value_type types[] = {
      {S("cpu-time"), S("nanoseconds")},
      {S("cpu-samples"), S("count")},
      {S("wall-time"), S("nanoseconds")},
      {S("alloc-samples"), S("count")},
  };
  const bool enabled[] = {false, true, true, false};
  stackrec_profile_options opts{};
  opts.sample_types = types;
  opts.sample_types_len = 4;
  opts.sample_types_enabled = enabled;
  auto r = NewRecorder(opts);
  SampleBuilder b;
  b.Frame("f").Values({100, 1, 5000, 7});
  Record(r.get(), b);
  Record(r.get(), b);
  const Taken t = Take(r.get());
  CHECK(SampleTypes(t.profile) == Strings{"cpu-samples/count", "wall-time/nanoseconds"});
  REQUIRE(t.profile.sample_size() == 1);
  CHECK(std::vector<int64_t>(t.profile.sample(0).value().begin(),
                             t.profile.sample(0).value().end()) == std::vector<int64_t>{2, 10000});
}

TEST_CASE("recorder stats count records, rejections and serializations") {
  Options o;
  auto r = NewRecorder(o.opts);
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.samples_recorded == 0);
  CHECK(s.serializations_ok == 0);

  SampleBuilder a, b, bad;
  a.Frame("a").Values({1, 1, 1});
  b.Frame("b").Values({1, 1, 1});
  bad.Frame("a").Values({1});
  Record(r.get(), a);
  Record(r.get(), a);
  Record(r.get(), b);
  CHECK(stackrec_recorder_record(r.get(), &bad.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(stackrec_recorder_record(r.get(), nullptr) == STACKREC_INVALID_ARGUMENT);
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.samples_recorded == 3);
  CHECK(s.records_rejected == 2);

  Take(r.get());
  Record(r.get(), a);
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.last_samples_recorded == 3);
  CHECK(s.last_distinct_keys == 2);
  CHECK(s.last_serialize_ns > 0);
  CHECK(s.serializations_ok == 1);
  CHECK(s.serializations_failed == 0);
  CHECK(s.serialize_ns_min == s.last_serialize_ns);
  CHECK(s.serialize_ns_max == s.last_serialize_ns);
  CHECK(s.serialize_ns_total == s.last_serialize_ns);
  CHECK(s.samples_recorded == 4);

  Take(r.get());
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.last_samples_recorded == 1);
  CHECK(s.last_distinct_keys == 1);
  CHECK(s.serializations_ok == 2);
  CHECK(s.serialize_ns_min <= s.serialize_ns_max);
  CHECK(s.serialize_ns_total >= s.serialize_ns_max);
  CHECK(s.samples_recorded == 4);
}

TEST_CASE("bad recorder input gets a status and a message, and recorded data stays") {
  Options o;
  auto r = NewRecorder(o.opts);
  SampleBuilder good, wrong_count, dup;
  good.Frame("kept").Values({1, 2, 3}).NumLabel("local root span id", 9);
  wrong_count.Frame("f").Values({1, 2});
  dup.Frame("f").Values({1, 2, 3}).Label("k", "a").Label("k", "b");
  Record(r.get(), good);
  REQUIRE(stackrec_recorder_record_endpoint(r.get(), 9, S("GET /kept")) == STACKREC_OK);

  auto expect = [](stackrec_status st, const std::string& needle) {
    INFO("message: " << stackrec_last_error());
    CHECK(st == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()).find(needle) != std::string::npos);
  };
  expect(stackrec_recorder_record(nullptr, &good.Get()), "recorder is NULL");
  expect(stackrec_recorder_record(r.get(), nullptr), "sample is NULL");
  expect(stackrec_recorder_record(r.get(), &wrong_count.Get()), "sample.values_len is 2");
  expect(stackrec_recorder_record(r.get(), &dup.Get()), "sample.labels[1].key repeats");
  expect(stackrec_recorder_record_endpoint(nullptr, 1, S("x")), "recorder is NULL");
  expect(stackrec_recorder_record_endpoint(r.get(), 0, S("x")), "local_root_span_id is 0");
  expect(stackrec_recorder_record_endpoint(r.get(), 1, S("")), "endpoint is empty");
  expect(stackrec_recorder_record_endpoint(r.get(), 1, stackrec_str{nullptr, 1}),
         "endpoint.ptr is NULL");
  stackrec_encoded* e = reinterpret_cast<stackrec_encoded*>(0x1);
  expect(stackrec_recorder_serialize(nullptr, nullptr, &e), "recorder is NULL");
  CHECK(e == nullptr);
  expect(stackrec_recorder_serialize(r.get(), nullptr, nullptr), "out is NULL");
  const stackrec_serialize_options bad_level = SerializeOptions(STACKREC_COMPRESSION_ZSTD, 42);
  expect(stackrec_recorder_serialize(r.get(), &bad_level, &e), "opts.level is 42");
  expect(stackrec_recorder_reset_after_fork(nullptr), "recorder is NULL");
  stackrec_stats s;
  expect(stackrec_recorder_stats(nullptr, &s), "recorder is NULL");
  expect(stackrec_recorder_stats(r.get(), nullptr), "out is NULL");
  stackrec_recorder* created = reinterpret_cast<stackrec_recorder*>(0x1);
  expect(stackrec_recorder_new(nullptr, &created), "opts is NULL");
  CHECK(created == nullptr);
  expect(stackrec_recorder_new(&o.opts, nullptr), "out is NULL");
  stackrec_recorder_free(nullptr);

  // None of it touched what was recorded: still one sample, with its endpoint.
  const Taken t = Take(r.get());
  REQUIRE(t.profile.sample_size() == 1);
  CHECK(FrameNames(t.profile, t.profile.sample(0)) == Strings{"kept"});
  CHECK(std::vector<int64_t>(t.profile.sample(0).value().begin(),
                             t.profile.sample(0).value().end()) == std::vector<int64_t>{1, 2, 3});
  CHECK(StrLabel(t.profile, t.profile.sample(0), "trace endpoint") == "GET /kept");
}

TEST_CASE("what a slot carries over between its profiles never shows in a later profile") {
  Options o;
  auto r = NewRecorder(o.opts);
  // Each profile uses functions of its own; slots alternate, so profile 3
  // reuses the slot of profile 1, which carried profile 1's functions over.
  for (int round = 0; round < 6; ++round) {
    SampleBuilder b, shared;
    b.Frame("only_in_" + std::to_string(round), "f" + std::to_string(round) + ".rb", round)
        .Values({round, 1, 1})
        .Label("round", std::to_string(round));
    shared.Frame("every_round").Values({1, 1, 1});
    Record(r.get(), b);
    Record(r.get(), shared);
    const Taken t = Take(r.get());  // CheckInvariants: nothing unreferenced
    REQUIRE(t.profile.sample_size() == 2);
    const Sample& own = SampleWithFrames(t.profile, {"only_in_" + std::to_string(round)});
    CHECK(LabelStrings(t.profile, own) == Strings{"round=" + std::to_string(round)});
    CHECK(own.value(0) == round);
    CHECK(SampleWithFrames(t.profile, {"every_round"}).value(0) == 1);
    CHECK(t.profile.function_size() == 2);
  }
}

TEST_CASE("a slot's known frames in a new stack after a flip are its old locations") {
  Options o;
  auto r = NewRecorder(o.opts);
  // Every round a new stack over the same two callers, and the stacks of
  // the rounds before: after each flip the slot's frame lookups start
  // empty while its locations stay, so the callers are found by content.
  std::vector<SampleBuilder> stacks(6);
  for (int round = 0; round < 6; ++round) {
    stacks[static_cast<size_t>(round)]
        .Frame("leaf_" + std::to_string(round), "leaf.rb", round + 1)
        .Frame("handle", "server.rb", 40)
        .Frame("main", "app.rb", 3)
        .Values({1, 1, 1});
    for (int i = 0; i <= round; ++i) Record(r.get(), stacks[static_cast<size_t>(i)]);
    const Taken t = Take(r.get());  // CheckInvariants: no location twice
    REQUIRE(t.profile.sample_size() == round + 1);
    CHECK(t.profile.location_size() == round + 3);
    CHECK(t.profile.function_size() == round + 3);
    const Sample& newest =
        SampleWithFrames(t.profile, {"leaf_" + std::to_string(round), "handle", "main"});
    CHECK(newest.value(0) == 1);
    for (const auto& s : t.profile.sample()) {
      REQUIRE(s.location_id_size() == 3);
      CHECK(s.location_id(1) == newest.location_id(1));
      CHECK(s.location_id(2) == newest.location_id(2));
    }
  }
}
