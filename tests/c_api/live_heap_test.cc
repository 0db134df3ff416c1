// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Live-heap tracking through the C API: tracked objects appear in every
// profile until untracked, aggregated by (stack, labels) with the samples
// recorded; replacement, objects crossing threads, the cap, bad input and
// reset_after_fork.
#include <map>
#include <thread>
#include <tuple>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;
using Strings = std::vector<std::string>;
using Values = std::vector<int64_t>;

namespace Catch {
template <>
struct StringMaker<std::map<std::pair<Strings, Strings>, Values>> {
  static std::string convert(const std::map<std::pair<Strings, Strings>, Values>& m) {
    std::string out = "{";
    for (const auto& [k, v] : m) {
      out += " [";
      for (const auto& f : k.first) out += f + ";";
      out += " |";
      for (const auto& l : k.second) out += " " + l;
      out += "] =";
      for (int64_t x : v) out += " " + std::to_string(x);
    }
    return out + " }";
  }
};
}  // namespace Catch

namespace {

// cpu-samples, heap-live-samples, heap-live-size; the last two are live-heap.
struct HeapOptions {
  std::vector<stackrec_value_type> types{
      {S("cpu-samples"), S("count")},
      {S("heap-live-samples"), S("count")},
      {S("heap-live-size"), S("bytes")},
  };
  std::vector<size_t> live{1, 2};
  stackrec_profile_options opts{};
  HeapOptions() {
    opts.sample_types = types.data();
    opts.sample_types_len = types.size();
    opts.live_heap_types = live.data();
    opts.live_heap_types_len = live.size();
  }
};

void Track(stackrec_recorder* r, uint64_t id, SampleBuilder& b) {
  const stackrec_status st = stackrec_recorder_track(r, id, &b.Get());
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

void Untrack(stackrec_recorder* r, uint64_t id) {
  REQUIRE(stackrec_recorder_untrack(r, id) == STACKREC_OK);
}

// One allocation of `bytes` at leaf <- "main", with an optional label.
SampleBuilder& Alloc(SampleBuilder& b, const std::string& leaf, int64_t bytes,
                     const std::string& thread = "") {
  b.Frame(leaf, "app.rb", 10).Frame("main", "app.rb", 1).Values({0, 1, bytes});
  if (!thread.empty()) b.Label("thread name", thread);
  return b;
}

// Decoded samples by (frame names, label strings) -> values. Fails the test
// on a repeated key: aggregation must have made it one sample.
using Key = std::pair<Strings, Strings>;
std::map<Key, Values> ByKey(const Profile& p) {
  std::map<Key, Values> out;
  for (const auto& s : p.sample()) {
    Key k{FrameNames(p, s), LabelStrings(p, s)};
    INFO("key " << k.first.front());
    CHECK(out.count(k) == 0);
    out[k] = Values(s.value().begin(), s.value().end());
  }
  return out;
}

Profile Take(stackrec_recorder* r) {
  stackrec_encoded* e = nullptr;
  const stackrec_status st = stackrec_recorder_serialize(r, nullptr, &e);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  EncodedPtr owned(e);
  Profile p = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  CheckInvariants(p);
  return p;
}

const Strings kMain{"main"};
Key K(const std::string& leaf, Strings labels = {}) {
  return {Strings{leaf, "main"}, std::move(labels)};
}

}  // namespace

TEST_CASE("a tracked object appears in every profile until it is untracked") {
  HeapOptions o;
  auto r = NewRecorder(o.opts);
  SampleBuilder a;
  Track(r.get(), 0x1000, Alloc(a, "Array#new", 4096));
  for (int i = 0; i < 3; ++i) {
    const Profile p = Take(r.get());
    CHECK(SampleTypes(p) ==
          Strings{"cpu-samples/count", "heap-live-samples/count", "heap-live-size/bytes"});
    CHECK(ByKey(p) == std::map<Key, Values>{{K("Array#new"), {0, 1, 4096}}});
  }
  Untrack(r.get(), 0x1000);
  CHECK(Take(r.get()).sample_size() == 0);
  CHECK(Take(r.get()).sample_size() == 0);
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 0);
  CHECK(s.samples_recorded == 0);  // tracking is not recording
}

TEST_CASE("tracked objects aggregate by stack and labels, and only by both") {
  HeapOptions o;
  auto r = NewRecorder(o.opts);
  SampleBuilder a1, a2, other_labels, other_stack;
  Track(r.get(), 1, Alloc(a1, "String#+", 40, "worker-1"));
  Track(r.get(), 2, Alloc(a2, "String#+", 60, "worker-1"));
  Track(r.get(), 3, Alloc(other_labels, "String#+", 100, "worker-2"));
  Track(r.get(), 4, Alloc(other_stack, "Hash#[]=", 7, "worker-1"));
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{
                                    {K("String#+", {"thread name=worker-1"}), {0, 2, 100}},
                                    {K("String#+", {"thread name=worker-2"}), {0, 1, 100}},
                                    {K("Hash#[]=", {"thread name=worker-1"}), {0, 1, 7}},
                                });
  // One of the two freed: the key keeps the other.
  Untrack(r.get(), 1);
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{
                                    {K("String#+", {"thread name=worker-1"}), {0, 1, 60}},
                                    {K("String#+", {"thread name=worker-2"}), {0, 1, 100}},
                                    {K("Hash#[]=", {"thread name=worker-1"}), {0, 1, 7}},
                                });
}

TEST_CASE("tracked objects and recorded samples of one stack and labels are one pprof sample") {
  HeapOptions o;
  auto r = NewRecorder(o.opts);
  SampleBuilder tracked, recorded, recorded_elsewhere;
  Track(r.get(), 1, Alloc(tracked, "Foo#bar", 512, "w"));
  recorded.Frame("Foo#bar", "app.rb", 10).Frame("main", "app.rb", 1).Values({3, 0, 0});
  recorded.Label("thread name", "w");
  recorded_elsewhere.Frame("Baz#qux").Frame("main", "app.rb", 1).Values({5, 0, 0});
  REQUIRE(stackrec_recorder_record(r.get(), &recorded.Get()) == STACKREC_OK);
  REQUIRE(stackrec_recorder_record(r.get(), &recorded_elsewhere.Get()) == STACKREC_OK);
  const Profile p1 = Take(r.get());
  CHECK(ByKey(p1) == std::map<Key, Values>{
                         {K("Foo#bar", {"thread name=w"}), {3, 1, 512}},
                         {{Strings{"Baz#qux", "main"}, Strings{}}, {5, 0, 0}},
                     });
  // The recorded samples belong to their interval; the object lives on.
  const Profile p2 = Take(r.get());
  CHECK(ByKey(p2) == std::map<Key, Values>{{K("Foo#bar", {"thread name=w"}), {0, 1, 512}}});
  // Frames in order, with their files and lines.
  REQUIRE(p2.sample_size() == 1);
  const auto& loc = p2.location(static_cast<int>(p2.sample(0).location_id(0) - 1));
  REQUIRE(loc.line_size() == 1);
  CHECK(loc.line(0).line() == 10);
}

TEST_CASE("tracking a tracked id replaces the object") {
  HeapOptions o;
  auto r = NewRecorder(o.opts);
  SampleBuilder first, second, same_key;
  Track(r.get(), 7, Alloc(first, "old_site", 100));
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{{K("old_site"), {0, 1, 100}}});
  // Replaced within one interval and across one.
  Track(r.get(), 7, Alloc(second, "new_site", 30));
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{{K("new_site"), {0, 1, 30}}});
  Track(r.get(), 7, Alloc(same_key, "new_site", 50));
  Track(r.get(), 7, same_key);
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{{K("new_site"), {0, 1, 50}}});
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 1);
}

TEST_CASE("objects tracked on one thread are untracked and replaced on others") {
  // Each thread interns its content apart from the others' (its home), so
  // this crosses homes: equal content from two threads is one key, and an
  // object is found, freed or replaced from any thread.
  HeapOptions o;
  auto r = NewRecorder(o.opts);
  auto on_thread = [&](auto&& body) {
    std::vector<stackrec_status> statuses;
    std::thread t([&] { body(&statuses); });
    t.join();
    for (size_t i = 0; i < statuses.size(); ++i) {
      INFO("call " << i);
      CHECK(statuses[i] == STACKREC_OK);
    }
  };
  auto track = [&](std::vector<stackrec_status>* st, uint64_t id, const char* leaf, int64_t bytes) {
    SampleBuilder b;
    st->push_back(stackrec_recorder_track(r.get(), id, &Alloc(b, leaf, bytes).Get()));
  };
  auto untrack = [&](std::vector<stackrec_status>* st, uint64_t id) {
    st->push_back(stackrec_recorder_untrack(r.get(), id));
  };
  on_thread([&](std::vector<stackrec_status>* st) {
    track(st, 1, "a_site", 10);
    track(st, 2, "a_site", 20);
    track(st, 3, "shared_site", 100);
    track(st, 4, "shared_site", 200);
  });
  // Within the same interval as the tracks.
  on_thread([&](std::vector<stackrec_status>* st) {
    track(st, 5, "shared_site", 400);
    untrack(st, 1);
    track(st, 2, "b_site", 70);
  });
  CHECK(ByKey(Take(r.get())) ==
        std::map<Key, Values>{{K("shared_site"), {0, 3, 700}}, {K("b_site"), {0, 1, 70}}});
  // In a later interval, from a third thread.
  on_thread([&](std::vector<stackrec_status>* st) {
    untrack(st, 3);
    untrack(st, 5);
    track(st, 4, "a_site", 5);
  });
  CHECK(ByKey(Take(r.get())) ==
        std::map<Key, Values>{{K("a_site"), {0, 1, 5}}, {K("b_site"), {0, 1, 70}}});
  on_thread([&](std::vector<stackrec_status>* st) {
    untrack(st, 2);
    untrack(st, 4);
  });
  CHECK(Take(r.get()).sample_size() == 0);
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 0);
}

TEST_CASE("untracking an id that is not tracked is OK and changes nothing") {
  HeapOptions o;
  auto r = NewRecorder(o.opts);
  SampleBuilder a;
  Track(r.get(), 1, Alloc(a, "kept", 8));
  Untrack(r.get(), 2);
  Untrack(r.get(), 0);
  Untrack(r.get(), ~uint64_t{0});
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{{K("kept"), {0, 1, 8}}});
  Untrack(r.get(), 1);
  Untrack(r.get(), 1);  // twice: the second is a no-op
  CHECK(Take(r.get()).sample_size() == 0);
  // Untrack on a recorder without live-heap types is OK too: nothing is tracked.
  Options plain;
  auto without = NewRecorder(plain.opts);
  CHECK(stackrec_recorder_untrack(without.get(), 1) == STACKREC_OK);
}

TEST_CASE("at max_tracked_objects a new object is LIMIT_EXCEEDED and counted") {
  HeapOptions o;
  o.opts.max_tracked_objects = 3;
  auto r = NewRecorder(o.opts);
  SampleBuilder a, over;
  Alloc(a, "site", 10);
  for (uint64_t id = 1; id <= 3; ++id) Track(r.get(), id, a);
  Alloc(over, "never_seen", 99);
  CHECK(stackrec_recorder_track(r.get(), 4, &over.Get()) == STACKREC_LIMIT_EXCEEDED);
  CHECK(std::string(stackrec_last_error()).find("opts.max_tracked_objects") != std::string::npos);
  CHECK(stackrec_recorder_track(r.get(), 5, &over.Get()) == STACKREC_LIMIT_EXCEEDED);
  // Replacing a tracked object needs no room.
  SampleBuilder bigger;
  Track(r.get(), 3, Alloc(bigger, "site", 20));
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 3);
  CHECK(s.objects_not_tracked == 2);
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{{K("site"), {0, 3, 40}}});
  // A free makes room again.
  Untrack(r.get(), 1);
  Track(r.get(), 4, over);
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 3);
  CHECK(s.objects_not_tracked == 2);
  CHECK(ByKey(Take(r.get())) ==
        std::map<Key, Values>{{K("site"), {0, 2, 30}}, {K("never_seen"), {0, 1, 99}}});
}

TEST_CASE("bad track input gets a status and a message naming the field, and tracked data stays") {
  HeapOptions o;
  o.opts.max_frames = 4;
  auto r = NewRecorder(o.opts);
  SampleBuilder good;
  Track(r.get(), 1, Alloc(good, "kept", 64, "w"));

  auto expect = [&](uint64_t id, const stackrec_sample* sample, const std::string& needle) {
    CHECK(stackrec_recorder_track(r.get(), id, sample) == STACKREC_INVALID_ARGUMENT);
    INFO("message: " << stackrec_last_error());
    CHECK(std::string(stackrec_last_error()).find(needle) != std::string::npos);
  };
  SampleBuilder timed, not_heap, wrong_count, dup, bad_utf8, bad_label;
  Alloc(timed, "t", 1).Timestamp(5);
  not_heap.Frame("n").Values({3, 1, 1});
  wrong_count.Frame("w").Values({1, 1});
  Alloc(dup, "d", 1).Label("k", "a").Label("k", "b");
  Alloc(bad_utf8, "\xff", 1);
  Alloc(bad_label, "l", 1).NumLabel("", 3);
  // The same ids as the good object: a refused track must not replace it.
  expect(1, &timed.Get(), "sample.timestamp_ns");
  expect(1, &not_heap.Get(), "sample.values[0]");
  expect(1, &wrong_count.Get(), "sample.values_len is 2");
  expect(1, &dup.Get(), "sample.labels[1].key repeats");
  expect(1, &bad_utf8.Get(), "sample.locations[0].function.name is not valid UTF-8");
  expect(1, &bad_label.Get(), "sample.labels[0].key is empty");
  expect(1, nullptr, "sample is NULL");
  CHECK(stackrec_recorder_track(nullptr, 1, &good.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("recorder is NULL") != std::string::npos);
  CHECK(stackrec_recorder_untrack(nullptr, 1) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("recorder is NULL") != std::string::npos);

  // At the cap, bad input is still reported as bad input.
  HeapOptions capped;
  capped.opts.max_tracked_objects = 1;
  auto full = NewRecorder(capped.opts);
  Track(full.get(), 1, good);
  CHECK(stackrec_recorder_track(full.get(), 2, &bad_utf8.Get()) == STACKREC_INVALID_ARGUMENT);

  // max_frames applies: a deep stack keeps 4 frames and the pseudo-frame.
  SampleBuilder deep;
  for (int i = 0; i < 6; ++i) deep.Frame("f" + std::to_string(i));
  deep.Values({0, 1, 1});
  Track(r.get(), 2, deep);

  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 2);
  CHECK(s.objects_not_tracked == 0);
  CHECK(s.samples_truncated == 1);
  CHECK(ByKey(Take(r.get())) ==
        std::map<Key, Values>{
            {K("kept", {"thread name=w"}), {0, 1, 64}},
            {{Strings{"f0", "f1", "f2", "f3", "[2 frames truncated]"}, Strings{}}, {0, 1, 1}}});
}

TEST_CASE(
    "a recorder without live-heap types refuses track, and bad live-heap options are refused") {
  Options plain;
  auto r = NewRecorder(plain.opts);
  SampleBuilder a;
  a.Frame("f").Values({0, 0, 0});
  CHECK(stackrec_recorder_track(r.get(), 1, &a.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts.live_heap_types is empty") !=
        std::string::npos);

  auto refused = [](const stackrec_profile_options& opts, const std::string& needle) {
    stackrec_recorder* out = reinterpret_cast<stackrec_recorder*>(0x1);
    CHECK(stackrec_recorder_new(&opts, &out) == STACKREC_INVALID_ARGUMENT);
    INFO("message: " << stackrec_last_error());
    CHECK(out == nullptr);
    CHECK(std::string(stackrec_last_error()).find(needle) != std::string::npos);
  };
  HeapOptions past;
  past.live = {1, 3};
  past.opts.live_heap_types = past.live.data();
  refused(past.opts, "opts.live_heap_types[1] is 3");
  HeapOptions repeated;
  repeated.live = {2, 1, 2};
  repeated.opts.live_heap_types = repeated.live.data();
  repeated.opts.live_heap_types_len = 3;
  refused(repeated.opts, "opts.live_heap_types[2] repeats opts.live_heap_types[0]");
  HeapOptions null_types;
  null_types.opts.live_heap_types = nullptr;
  refused(null_types.opts, "opts.live_heap_types is NULL");
  HeapOptions too_many;
  too_many.opts.max_tracked_objects = size_t{1} << 33;
  refused(too_many.opts, "opts.max_tracked_objects");

  // A profile ignores the live-heap fields, checked or not.
  HeapOptions for_profile;
  for_profile.live = {9, 9};
  for_profile.opts.live_heap_types = for_profile.live.data();
  auto p = NewProfile(for_profile.opts);
  CHECK(p != nullptr);
}

TEST_CASE("a disabled live-heap type is tracked but left out like any disabled type") {
  HeapOptions o;
  const bool enabled[] = {true, true, false};
  o.opts.sample_types_enabled = enabled;
  auto r = NewRecorder(o.opts);
  SampleBuilder a;
  Track(r.get(), 1, Alloc(a, "site", 1000));
  const Profile p = Take(r.get());
  CHECK(SampleTypes(p) == Strings{"cpu-samples/count", "heap-live-samples/count"});
  CHECK(ByKey(p) == std::map<Key, Values>{{K("site"), {0, 1}}});
}

TEST_CASE("reset_after_fork forgets every tracked object") {
  HeapOptions o;
  o.opts.max_tracked_objects = 2;
  auto r = NewRecorder(o.opts);
  SampleBuilder a, b;
  Track(r.get(), 1, Alloc(a, "parent_site", 10));
  Track(r.get(), 2, a);
  CHECK(stackrec_recorder_track(r.get(), 3, &a.Get()) == STACKREC_LIMIT_EXCEEDED);
  Take(r.get());  // the totals hold them now, too
  Track(r.get(), 1, Alloc(b, "replaced_after_flip", 5));
  REQUIRE(stackrec_recorder_reset_after_fork(r.get()) == STACKREC_OK);
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.objects_tracked == 0);
  CHECK(s.objects_not_tracked == 0);
  CHECK(Take(r.get()).sample_size() == 0);
  Untrack(r.get(), 1);  // forgotten: a no-op
  SampleBuilder child;
  Track(r.get(), 1, Alloc(child, "child_site", 3));
  Track(r.get(), 2, child);  // the cap counts the child's objects only
  CHECK(ByKey(Take(r.get())) == std::map<Key, Values>{{K("child_site"), {0, 2, 6}}});
}
