// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Pre-interned frames: samples recorded by id (a stack id, or location ids)
// come out exactly as the same samples recorded with strings do; ids live
// through serializations, resets, flips and reset_after_fork until
// forget_ids, which makes them stale; and every bad input is refused by
// name, leaving the handle as it was. Each behaviour is checked on a
// profile and on a recorder (GENERATE).
//
// Outputs are compared in a canonical form (support/canonical.h), so that
// the order in which the id and string paths happened to intern things does
// not matter, but any difference in content does. The handles, the programs
// and the ways of recording are the harness of support/target.h and
// support/id_program.h.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/canonical.h"
#include "support/id_program.h"
#include "support/target.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

// An id sample of `values` ({1, 1, 1} unless given) on a stack id, or on
// location ids; the rest of the C struct is zero until a test sets it. Not
// copyable: the struct points into it.
struct IdSample : stackrec_id_sample {
  explicit IdSample(uint32_t stack, std::vector<int64_t> v = {1, 1, 1})
      : stackrec_id_sample{}, owned_values(std::move(v)) {
    stack_id = stack;
    values = owned_values.data();
    values_len = owned_values.size();
  }
  explicit IdSample(std::vector<uint32_t> locations, std::vector<int64_t> v = {1, 1, 1})
      : stackrec_id_sample{}, owned_values(std::move(v)), owned_location_ids(std::move(locations)) {
    location_ids = owned_location_ids.data();
    location_ids_len = owned_location_ids.size();
    values = owned_values.data();
    values_len = owned_values.size();
  }
  IdSample(const IdSample&) = delete;
  IdSample& operator=(const IdSample&) = delete;

  std::vector<int64_t> owned_values;
  std::vector<uint32_t> owned_location_ids;
};

// A stack of one frame, function `name` at line 1 without a mapping.
uint32_t OneFrameStack(Target& t, const char* name) {
  return Intern(t, std::vector<uint32_t>{Intern(t, Loc(0, Intern(t, Fn(name)), 0, 1))});
}

// A handle recording by id beside a reference of the same kind recording
// the same samples with strings, for the checks that the two come out
// alike. `ids` are the program's in `t`, interned at construction.
struct ByIdAndStrings {
  ByIdAndStrings(Kind kind, const Program& program,
                 const stackrec_profile_options& opts = Options().opts)
      : prog(program), t(kind, opts), ref(kind, opts), ids(InternAll(t, prog)) {}
  // Records `s` into `t` by `via`, with `ids` or the ids `with` of a later
  // generation, and into `ref` with strings.
  void Record(const SampleSpec& s, Via via) { Record(ids, s, via); }
  void Record(const Ids& with, const SampleSpec& s, Via via) {
    stackrec_test::Record(t, prog, with, s, via);
    stackrec_test::Record(ref, prog, with, s, Via::kStrings);
  }

  const Program& prog;
  Target t, ref;
  Ids ids;
};

}  // namespace

// ---- Equivalence with the string path -------------------------------------------

TEST_CASE(
    "samples recorded by stack id or by location ids come out as the same samples with strings") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const Program& prog = FullProgram();
  const std::vector<SampleSpec> samples = FullSamples();
  Target strings(kind), by_stack(kind), by_locations(kind);
  const Ids none;
  const Ids stack_ids = InternAll(by_stack, prog);
  const Ids location_ids = InternAll(by_locations, prog);
  for (const SampleSpec& s : samples) {
    Record(strings, prog, none, s, Via::kStrings);
    Record(by_stack, prog, stack_ids, s, Via::kStackId);
    Record(by_locations, prog, location_ids, s, Via::kLocationIds);
  }
  const Strings expected = Canonical(strings.Take());
  CHECK(expected.size() == 2 + 10);  // two pairs of the 12 samples aggregate
  CHECK(Canonical(by_stack.Take()) == expected);
  CHECK(Canonical(by_locations.Take()) == expected);
}

TEST_CASE("id samples aggregate with string samples of the same stack and labels") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const Program& prog = FullProgram();
  const std::vector<SampleSpec> samples = FullSamples();
  Target strings(kind), mixed(kind);
  const Ids ids = InternAll(mixed, prog);
  // Every sample three times: with strings, by stack id, by location ids,
  // in turns, so that each way comes first for some stack.
  const Via ways[] = {Via::kStrings, Via::kStackId, Via::kLocationIds};
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < samples.size(); ++i) {
      Record(strings, prog, ids, samples[i], Via::kStrings);
      Record(mixed, prog, ids, samples[i], ways[(i + static_cast<size_t>(round)) % 3]);
    }
  }
  const Profile out = mixed.Take();
  CHECK(Canonical(out) == Canonical(strings.Take()));
  // Stack 0 with the thread labels: one sample, 3 rounds of (1,2,3)+(4,5,6).
  int found = 0;
  for (const auto& s : out.sample()) {
    if (s.location_id_size() == 2 && s.label_size() == 2 &&
        Lines(out, s.location_id(0)).size() == 3) {
      ++found;
      CHECK(std::vector<int64_t>(s.value().begin(), s.value().end()) ==
            std::vector<int64_t>{15, 21, 27});
    }
  }
  CHECK(found == 1);
}

TEST_CASE("labels, endpoints and timestamps of id samples are written as add writes them") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  const uint32_t f = Intern(t, Fn("Foo#bar", "foo.rb"));
  const uint32_t loc = Intern(t, Loc(0, f, 0, 3));
  const uint32_t stack = Intern(t, std::vector<uint32_t>{loc});
  REQUIRE(t.SetEndpoint(11, S("GET /users")) == STACKREC_OK);
  const int64_t values[] = {1, 2, 3};
  const stackrec_label labels[] = {NumLabel("thread id", 7), StrLabel("thread name", "main"),
                                   NumLabel("local root span id", 11),
                                   NumLabel("bytes", 64, "bytes")};
  IdSample s(stack, {1, 2, 3});
  s.labels = labels;
  s.labels_len = 4;
  AddIds(t, s);
  AddIds(t, s);  // aggregates
  stackrec_id_sample timed = s;
  timed.labels_len = 0;
  timed.timestamp_ns = 1000;
  AddIds(t, timed);
  timed.timestamp_ns = 2000;
  AddIds(t, timed);
  stackrec_id_sample by_location = timed;
  by_location.stack_id = 0;
  by_location.location_ids = &loc;
  by_location.location_ids_len = 1;
  by_location.timestamp_ns = 3000;
  AddIds(t, by_location);

  // The same through the string API.
  Target strings(kind);
  REQUIRE(strings.SetEndpoint(11, S("GET /users")) == STACKREC_OK);
  stackrec_location frame{};
  frame.function = Fn("Foo#bar", "foo.rb");
  frame.line = 3;
  stackrec_sample ss{};
  ss.locations = &frame;
  ss.locations_len = 1;
  ss.values = values;
  ss.values_len = 3;
  ss.labels = labels;
  ss.labels_len = 4;
  REQUIRE(strings.Add(&ss) == STACKREC_OK);
  REQUIRE(strings.Add(&ss) == STACKREC_OK);
  ss.labels_len = 0;
  for (int64_t ts : {1000, 2000, 3000}) {
    ss.timestamp_ns = ts;
    REQUIRE(strings.Add(&ss) == STACKREC_OK);
  }

  const Profile out = t.Take();
  CHECK(Canonical(out) == Canonical(strings.Take()));
  REQUIRE(out.sample_size() == 4);
  Strings got;
  for (const auto& sample : out.sample()) {
    CHECK(FrameNames(out, sample) == Strings{"Foo#bar"});
    std::string line = std::to_string(sample.value(0)) + "," + std::to_string(sample.value(1)) +
                       "," + std::to_string(sample.value(2));
    for (const std::string& l : LabelStrings(out, sample)) line += " " + l;
    got.push_back(line);
  }
  std::sort(got.begin(), got.end());
  CHECK(got == Strings{"1,2,3 end_timestamp_ns=1000", "1,2,3 end_timestamp_ns=2000",
                       "1,2,3 end_timestamp_ns=3000",
                       "2,4,6 trace endpoint=GET /users thread id=7 thread name=main "
                       "local root span id=11 bytes=64[bytes]"});
}

// ---- Interned label sets -------------------------------------------------------------

TEST_CASE("samples by label-set id come out as the same samples with their labels") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  ByIdAndStrings p(kind, FullProgram());
  for (Target* target : {&p.t, &p.ref}) {
    REQUIRE(target->SetEndpoint(11, S("GET /users")) == STACKREC_OK);
  }
  // Each sample by stack id and by location ids, its labels by id; the
  // same twice with strings.
  for (const SampleSpec& spec : FullSamples()) {
    const uint32_t labels_id = Intern(p.t, spec.labels);
    Record(p.t, p.prog, p.ids, spec, Via::kStackId, labels_id);
    Record(p.t, p.prog, p.ids, spec, Via::kLocationIds, labels_id);
    Record(p.ref, p.prog, p.ids, spec, Via::kStrings);
    Record(p.ref, p.prog, p.ids, spec, Via::kStrings);
  }
  // Labels by id and the same labels as strings make one key.
  const std::vector<stackrec_label> thread = {NumLabel("thread id", 7),
                                              StrLabel("thread name", "main")};
  p.Record({0, {100, 100, 100}, thread}, Via::kStrings);

  const Profile out = p.t.Take();
  CHECK(Canonical(out) == Canonical(p.ref.Take()));
  int found = 0;
  for (const auto& sample : out.sample()) {
    if (sample.location_id_size() != 2 ||
        LabelStrings(out, sample) != Strings{"thread id=7", "thread name=main"}) {
      continue;
    }
    if (Lines(out, sample.location_id(0)).size() != 3) continue;  // stack 0
    ++found;
    // 2 x ((1, 2, 3) + (4, 5, 6)) + 100 each.
    CHECK(std::vector<int64_t>(sample.value().begin(), sample.value().end()) ==
          std::vector<int64_t>{110, 114, 118});
  }
  CHECK(found == 1);
}

TEST_CASE("intern_labels gives equal label sets one id, and the same labels in any order one key") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  const std::vector<stackrec_label> ab = {NumLabel("a", 1), StrLabel("b", "x")};
  const std::vector<stackrec_label> ba = {StrLabel("b", "x"), NumLabel("a", 1)};
  const uint32_t id_ab = Intern(t, ab);
  CHECK(Intern(t, ab) == id_ab);
  const uint32_t id_ba = Intern(t, ba);
  CHECK(id_ba != id_ab);
  const uint32_t id_none = Intern(t, std::vector<stackrec_label>{});
  CHECK(id_none != id_ab);
  CHECK(id_none != id_ba);
  // Ids count from 1 in the label-set table of their own.
  CHECK(id_ab == 1);
  CHECK(id_ba == 2);
  CHECK(id_none == 3);

  IdSample s(OneFrameStack(t, "f"));
  std::vector<Strings> labels;
  for (uint32_t labels_id : {id_ab, id_ba, id_none}) {
    s.labels_id = labels_id;
    AddIds(t, s);
  }
  const Profile out = t.Take();
  for (const auto& sample : out.sample()) labels.push_back(LabelStrings(out, sample));
  std::sort(labels.begin(), labels.end());
  // The ids differ, but the labels are one set: one key, in the order of
  // the set that came first.
  CHECK(labels == std::vector<Strings>{{}, {"a=1", "b=x"}});
}

TEST_CASE("a label-set id lives across serializations and flips until forget_ids") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const Program& prog = SmallProgram();
  Target t(kind);
  const Ids ids = InternAll(t, prog);
  const uint32_t labels_id = Intern(t, {NumLabel("thread id", 3), StrLabel("thread name", "w")});
  // Three intervals: for a recorder the first slot, the second, then the
  // first again (which kept its imports).
  for (int64_t round = 1; round <= 3; ++round) {
    INFO("round " << round);
    Record(t, prog, ids, {1, {round, 1, 1}, {}}, Via::kStackId, labels_id);
    const Profile out = t.Take();
    REQUIRE(out.sample_size() == 1);
    CHECK(out.sample(0).value(0) == round);
    CHECK(LabelStrings(out, out.sample(0)) == Strings{"thread id=3", "thread name=w"});
  }
  Record(t, prog, ids, {1, {9, 9, 9}, {}}, Via::kStackId, labels_id);
  Forget(t);
  const Ids again = InternAll(t, prog);
  IdSample s(again.stacks[1]);
  s.labels_id = labels_id;
  CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "sample.labels_id " + std::to_string(labels_id) + " is stale (interned before forget_ids)");
  // What was recorded before the forget stays, and interning again works.
  const uint32_t new_id = Intern(t, {NumLabel("thread id", 3), StrLabel("thread name", "w")});
  CHECK(new_id != labels_id);
  Record(t, prog, again, {1, {5, 5, 5}, {}}, Via::kStackId, new_id);
  const Profile out = t.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 14);
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"thread id=3", "thread name=w"});
}

TEST_CASE("at the memory cap, id samples needing a new stack or label set go to storage full") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Options o;
  o.opts.max_memory_bytes = 64 * 1024;
  Target t(kind, o.opts);
  IdSample s(OneFrameStack(t, "kept"));
  const uint32_t kept_labels = Intern(t, {NumLabel("thread id", 1)});
  s.labels_id = kept_labels;
  AddIds(t, s);
  // Fill the profile with keys of new label sets (by id) until it is full.
  for (int i = 2; i < 5000; ++i) {
    s.labels_id =
        Intern(t, {NumLabel("thread id", i), StrLabel("padding", std::string(64, 'x').c_str())});
    AddIds(t, s);
  }
  s.labels_id = Intern(t, {NumLabel("thread id", 99999)});
  AddIds(t, s);  // new: storage full
  // A known stack and label set still aggregate, and bad ids are still refused.
  s.labels_id = kept_labels;
  AddIds(t, s);
  s.labels_id = 4000000;
  CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "sample.labels_id 4000000 is not an interned id");

  const Profile out = t.Take();
  const Sample* full = nullptr;
  const Sample* kept = nullptr;
  int64_t total = 0;
  for (const auto& sample : out.sample()) {
    total += sample.value(0);
    if (FrameNames(out, sample) == Strings{"[stackrec: storage full]"}) full = &sample;
    if (LabelStrings(out, sample) == Strings{"thread id=1"}) kept = &sample;
  }
  CHECK(total == 5001);  // every sample once: 1 + 4998 + 1 new + 1 kept again
  REQUIRE(full != nullptr);
  CHECK(full->value(0) >= 1);
  CHECK(full->label_size() == 0);
  REQUIRE(kept != nullptr);
  CHECK(kept->value(0) == 2);
  CHECK(out.sample_size() > 100);  // many were kept before the cap
}

// ---- Inlining and truncation ------------------------------------------------------

TEST_CASE("an interned inline run is written as one location with a line per frame, callee first") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const Program& prog = FullProgram();
  Target t(kind);
  const Ids ids = InternAll(t, prog);
  Record(t, prog, ids, {0, {1, 1, 1}, {}}, Via::kStackId);
  Record(t, prog, ids, {0, {1, 1, 1}, {}}, Via::kLocationIds);
  const Profile out = t.Take();
  REQUIRE(out.sample_size() == 1);
  const Sample& s = out.sample(0);
  CHECK(s.value(0) == 2);
  CHECK(Levels(out, s) ==
        std::vector<Strings>{
            {"std::vector::push_back:88", "Buffer::Append:120", "Server::Handle:42"}, {"main:7"}});
  REQUIRE(out.location_size() == 2);
  REQUIRE(out.mapping_size() == 1);
  for (const auto& l : out.location()) {
    if (l.id() != s.location_id(0)) continue;
    CHECK(l.address() == 0x401010);
    CHECK(l.mapping_id() == out.mapping(0).id());
  }
  CHECK(Str(out, out.mapping(0).build_id()) == "8f3a9c0de1b2");
  CHECK(out.function_size() == 4);
}

TEST_CASE("intern_stack cuts a stack deeper than max_frames and its samples count as truncated") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Options o;
  o.opts.max_frames = 3;
  Target t(kind, o.opts), strings(kind, o.opts);
  std::vector<uint32_t> deep;
  SampleBuilder b;
  const char* names[] = {"f0", "f1", "f2", "f3", "f4"};
  for (const char* name : names) {
    deep.push_back(Intern(t, Loc(0, Intern(t, Fn(name)), 0, 0)));
    b.Frame(name);
  }
  b.Values({1, 1, 1});
  const uint32_t stack = Intern(t, deep);
  const std::vector<uint32_t> shallow_ids(deep.begin(), deep.begin() + 3);
  const uint32_t shallow = Intern(t, shallow_ids);
  IdSample s(stack);
  AddIds(t, s);
  AddIds(t, s);
  s.stack_id = 0;
  s.location_ids = deep.data();
  s.location_ids_len = deep.size();
  AddIds(t, s);
  REQUIRE(t.Add(&b.Get()) == STACKREC_OK);
  s.location_ids = nullptr;
  s.location_ids_len = 0;
  s.stack_id = shallow;  // exactly max_frames: not cut
  AddIds(t, s);
  REQUIRE(strings.Add(&b.Get()) == STACKREC_OK);

  if (kind == Kind::kRecorder) {
    stackrec_stats stats{};
    REQUIRE(stackrec_recorder_stats(t.recorder(), &stats) == STACKREC_OK);
    CHECK(stats.samples_recorded == 5);
    CHECK(stats.samples_truncated == 4);
  }
  EncodedPtr e = t.TakeEncoded();
  stackrec_encode_stats es{};
  REQUIRE(stackrec_encoded_stats(e.get(), &es) == STACKREC_OK);
  CHECK(es.samples_recorded == 5);
  CHECK(es.samples_truncated == 4);
  const Profile out = Decode(stackrec_encoded_data(e.get()), stackrec_encoded_size(e.get()));
  CheckInvariants(out);
  REQUIRE(out.sample_size() == 2);
  Strings got;
  for (const auto& sample : out.sample()) {
    std::string line = std::to_string(sample.value(0));
    for (const std::string& name : FrameNames(out, sample)) line += " " + name;
    got.push_back(line);
  }
  std::sort(got.begin(), got.end());
  CHECK(got == Strings{"1 f0 f1 f2", "4 f0 f1 f2 [2 frames truncated]"});
  // The string path's truncated stack is the same location list.
  const Profile ref = strings.Take();
  REQUIRE(ref.sample_size() == 1);
  CHECK(FrameNames(ref, ref.sample(0)) == Strings{"f0", "f1", "f2", "[2 frames truncated]"});
}

TEST_CASE("an inline run cut by max_frames at intern_stack keeps its leaf side as one location") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Options o;
  o.opts.max_frames = 2;
  ByIdAndStrings p(kind, FullProgram(), o.opts);
  p.Record({0, {1, 1, 1}, {}}, Via::kStackId);
  const Profile out = p.t.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(Levels(out, out.sample(0)) ==
        std::vector<Strings>{{"std::vector::push_back:88", "Buffer::Append:120"},
                             {"[2 frames truncated]:0"}});
  CHECK(Canonical(out) == Canonical(p.ref.Take()));
}

// ---- Ids: equality and lifetime -----------------------------------------------------

TEST_CASE("equal content interns to equal ids, different content to different ids") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  // Equal content from different buffers.
  std::string file1 = "/usr/bin/app", file2 = "/usr/bin/app";
  stackrec_mapping m1 = Mapping(0x400000, 0x500000, 0, "", "abc");
  stackrec_mapping m2 = m1;
  m1.filename = S(file1);
  m2.filename = S(file2);
  const uint32_t mapping = Intern(t, m1);
  CHECK(Intern(t, m2) == mapping);
  stackrec_mapping other_build = m1;
  other_build.build_id = S("abd");
  CHECK(Intern(t, other_build) != mapping);

  std::string name1 = "Foo#bar", name2 = "Foo#bar";
  stackrec_function f1 = Fn("", "foo.rb", 10), f2 = f1;
  f1.name = S(name1);
  f2.name = S(name2);
  const uint32_t function = Intern(t, f1);
  CHECK(Intern(t, f2) == function);
  stackrec_function other_start = f1;
  other_start.start_line = 11;
  CHECK(Intern(t, other_start) != function);
  stackrec_function with_system_name = f1;
  with_system_name.system_name = S("bar");
  CHECK(Intern(t, with_system_name) != function);

  const uint32_t loc = Intern(t, Loc(mapping, function, 0x401000, 5));
  CHECK(Intern(t, Loc(mapping, function, 0x401000, 5)) == loc);
  CHECK(Intern(t, Loc(mapping, function, 0x401000, 6)) != loc);
  CHECK(Intern(t, Loc(mapping, function, 0x401004, 5)) != loc);
  CHECK(Intern(t, Loc(0, function, 0x401000, 5)) != loc);
  CHECK(Intern(t, Loc(mapping, 0, 0x401000, 5)) != loc);
  const uint32_t inlined = Intern(t, Loc(mapping, function, 0x401000, 5, true));
  CHECK(inlined != loc);
  const uint32_t caller = Intern(t, Loc(mapping, function, 0x401000, 9));

  const uint32_t stack = Intern(t, std::vector<uint32_t>{loc, caller});
  CHECK(Intern(t, std::vector<uint32_t>{loc, caller}) == stack);
  CHECK(Intern(t, std::vector<uint32_t>{caller, loc}) != stack);
  CHECK(Intern(t, std::vector<uint32_t>{loc}) != stack);
  CHECK(Intern(t, std::vector<uint32_t>{inlined, caller}) != stack);
  const uint32_t empty = Intern(t, std::vector<uint32_t>{});
  uint32_t again = 0;
  REQUIRE(t.InternStack(nullptr, 0, &again) == STACKREC_OK);  // {NULL, 0}: the empty stack too
  CHECK(again == empty);
  CHECK(empty != stack);
}

TEST_CASE("a profile's ids stay valid across serializations and resets") {
  const std::vector<SampleSpec> samples = FullSamples();
  ByIdAndStrings p(Kind::kProfile, FullProgram());
  // Serialized three times without a reset: the content accumulates.
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < samples.size(); ++i) {
      p.Record(samples[i], i % 2 == 0 ? Via::kStackId : Via::kLocationIds);
    }
    INFO("round " << round);
    const Profile out = Decode(Serialize(p.t.profile()));
    CheckInvariants(out);
    CHECK(Canonical(out) == Canonical(Decode(Serialize(p.ref.profile()))));
  }
  // After a reset the same ids still work.
  REQUIRE(stackrec_profile_reset(p.t.profile()) == STACKREC_OK);
  REQUIRE(stackrec_profile_reset(p.ref.profile()) == STACKREC_OK);
  for (const SampleSpec& s : samples) p.Record(s, Via::kStackId);
  CHECK(Canonical(p.t.Take()) == Canonical(p.ref.Take()));
  // And interning the same content again gives the same ids.
  CHECK(InternAll(p.t, p.prog) == p.ids);
}

TEST_CASE("a recorder's ids work in both slots across flips") {
  const std::vector<SampleSpec> samples = FullSamples();
  ByIdAndStrings p(Kind::kRecorder, FullProgram());
  for (int flip = 0; flip < 4; ++flip) {
    // A different part of the samples each time, so a profile holding the
    // previous slot's samples would show.
    for (size_t i = static_cast<size_t>(flip) % 2; i < samples.size(); i += 2) {
      p.Record(samples[i],
               (i + static_cast<size_t>(flip)) % 2 == 0 ? Via::kStackId : Via::kLocationIds);
    }
    INFO("serialization " << flip + 1);
    CHECK(Canonical(p.t.Take()) == Canonical(p.ref.Take()));
    CHECK(InternAll(p.t, p.prog) == p.ids);
  }
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(p.t.recorder(), &stats) == STACKREC_OK);
  CHECK(stats.samples_recorded == 2 * samples.size());
  CHECK(stats.records_rejected == 0);
}

namespace {

// In a fork() child: reset_after_fork, then the parent's ids must still
// work and give `expected`. Returns the child's exit code, 0 if all is well
// (no Catch2 assertion may run in the child).
int ChildRecordsByIds(Target& t, const Program& prog, const Ids& ids,
                      const std::vector<SampleSpec>& samples, const Strings& expected) {
  if (stackrec_recorder_reset_after_fork(t.recorder()) != STACKREC_OK) return 10;
  // The dictionary survived: interning the same content gives the same ids.
  uint32_t id = 0;
  if (t.InternMapping(&prog.mappings[0], &id) != STACKREC_OK || id != ids.mappings[0]) return 11;
  const std::vector<uint32_t> locations = ids.LocationIds(prog, 0);
  if (t.InternStack(locations.data(), locations.size(), &id) != STACKREC_OK ||
      id != ids.stacks[0]) {
    return 12;
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    const SampleSpec& s = samples[i];
    std::vector<uint32_t> loc_ids = ids.LocationIds(prog, s.stack);
    stackrec_id_sample sample{};
    if (i % 2 == 0) {
      sample.stack_id = ids.stacks[static_cast<size_t>(s.stack)];
    } else {
      sample.location_ids = loc_ids.data();
      sample.location_ids_len = loc_ids.size();
    }
    sample.values = s.values.data();
    sample.values_len = s.values.size();
    sample.labels = s.labels.data();
    sample.labels_len = s.labels.size();
    sample.timestamp_ns = s.timestamp_ns;
    if (t.AddIds(&sample) != STACKREC_OK) return 13;
  }
  stackrec_encoded* e = nullptr;
  if (stackrec_recorder_serialize(t.recorder(), nullptr, &e) != STACKREC_OK) return 14;
  const std::string bytes(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                          stackrec_encoded_size(e));
  stackrec_encoded_free(e);
  std::string raw;
  Profile out;
  if (!DecompressAny(bytes, &raw) || !out.ParseFromString(raw)) return 15;
  try {
    if (Canonical(out) != expected) return 16;
  } catch (...) {
    return 17;
  }
  return 0;
}

}  // namespace

TEST_CASE("a recorder's ids stay valid after reset_after_fork in the child") {
  const std::vector<SampleSpec> samples = FullSamples();
  ByIdAndStrings p(Kind::kRecorder, FullProgram());
  for (const SampleSpec& s : samples) {
    p.Record(s, Via::kStackId);  // the parent's samples, left unserialized
  }
  const Strings expected = Canonical(p.ref.Take());
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(60);
    _exit(ChildRecordsByIds(p.t, p.prog, p.ids, samples, expected));
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("wait status " << status);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // The parent is unaffected.
  CHECK(Canonical(p.t.Take()) == expected);
}

// ---- forget_ids ---------------------------------------------------------------------

TEST_CASE("forget_ids makes old ids stale, keeps what was recorded, and new ids work") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const std::vector<SampleSpec> samples = FullSamples();
  ByIdAndStrings p(kind, FullProgram());
  Target& t = p.t;
  const Ids old_ids = p.ids;
  for (size_t i = 0; i < samples.size(); ++i) {
    p.Record(samples[i], i % 2 == 0 ? Via::kStackId : Via::kLocationIds);
  }
  Forget(t);

  // Old ids are refused as stale, naming the field and the id.
  const std::string stale = " is stale (interned before forget_ids)";
  IdSample s(old_ids.stacks[0]);
  CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "sample.stack_id " + std::to_string(old_ids.stacks[0]) + stale);
  uint32_t id = 0;
  const stackrec_interned_location old_loc = Loc(old_ids.mappings[0], old_ids.functions[0], 1, 1);
  CHECK(t.InternLocation(&old_loc, &id) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "location.mapping_id " + std::to_string(old_ids.mappings[0]) + stale);

  // What was recorded before the forget comes out right, and samples of the
  // same keys recorded with the new ids aggregate with it.
  const Ids new_ids = InternAll(t, p.prog);
  for (size_t k = 0; k < new_ids.stacks.size(); ++k) CHECK(new_ids.stacks[k] != old_ids.stacks[k]);
  for (size_t k = 0; k < new_ids.locations.size(); ++k) {
    CHECK(new_ids.locations[k] != old_ids.locations[k]);
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    p.Record(new_ids, samples[i], i % 2 == 0 ? Via::kLocationIds : Via::kStackId);
  }
  CHECK(Canonical(t.Take()) == Canonical(p.ref.Take()));
  // The next profile (a recorder's other slot) works with the new ids only.
  for (const SampleSpec& sample : samples) p.Record(new_ids, sample, Via::kStackId);
  CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
  CHECK(Canonical(t.Take()) == Canonical(p.ref.Take()));
}

TEST_CASE("forget_ids between a recorder's flips: each profile holds its own samples") {
  const std::vector<SampleSpec> samples = FullSamples();
  ByIdAndStrings p(Kind::kRecorder, FullProgram());
  for (int flip = 0; flip < 4; ++flip) {
    for (size_t i = 0; i < samples.size(); ++i) {
      p.Record(samples[i], i % 2 == 0 ? Via::kStackId : Via::kLocationIds);
      if (i == samples.size() / 2) {  // forget in the middle of a profile
        Forget(p.t);
        p.ids = InternAll(p.t, p.prog);
      }
    }
    INFO("serialization " << flip + 1);
    CHECK(Canonical(p.t.Take()) == Canonical(p.ref.Take()));
  }
}

TEST_CASE(
    "ids count from 1 per table, and after forget_ids carry the generation in their top 8 bits") {
  // The one test that relies on the id layout.
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  for (uint32_t generation = 0; generation < 3; ++generation) {
    INFO("generation " << generation);
    const uint32_t g = generation << 24;
    CHECK(Intern(t, Mapping(1, 2, 0, "a", "")) == (g | 1));
    CHECK(Intern(t, Mapping(1, 2, 0, "b", "")) == (g | 2));
    CHECK(Intern(t, Fn("f1")) == (g | 1));
    CHECK(Intern(t, Fn("f2")) == (g | 2));
    CHECK(Intern(t, Fn("f3")) == (g | 3));
    CHECK(Intern(t, Loc(g | 1, g | 1, 0x10, 1)) == (g | 1));
    CHECK(Intern(t, Loc(0, g | 2, 0, 2)) == (g | 2));
    CHECK(Intern(t, Loc(g | 2, 0, 0x20, 0)) == (g | 3));
    CHECK(Intern(t, std::vector<uint32_t>{g | 1, g | 2}) == (g | 1));
    CHECK(Intern(t, std::vector<uint32_t>{g | 3}) == (g | 2));
    Forget(t);
  }
}

TEST_CASE("a stack id that intern_stack never gave is refused, also in a fresh dictionary") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  for (uint32_t stack_id : {1u, 2u}) {
    INFO("stack_id " << stack_id);
    IdSample s(stack_id);
    CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) ==
          "sample.stack_id " + std::to_string(stack_id) + " is not an interned id");
  }
  CHECK(t.Take().sample_size() == 0);
}

TEST_CASE("an id stays stale through the next 255 forget_ids") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  const uint32_t stack = OneFrameStack(t, "f");
  IdSample s(stack);
  AddIds(t, s);
  for (int i = 0; i < 255; ++i) {
    Forget(t);
    INFO("after " << i + 1 << " forget_ids");
    REQUIRE(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    REQUIRE(std::string(stackrec_last_error()) ==
            "sample.stack_id " + std::to_string(stack) + " is stale (interned before forget_ids)");
  }
  const Profile out = t.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(FrameNames(out, out.sample(0)) == Strings{"f"});
  CHECK(out.sample(0).value(0) == 1);
}

// ---- Bad input ------------------------------------------------------------------------

namespace {

// A few samples of the small program, some by id, some with strings.
void RecordSome(Target& t, const Ids& ids) {
  const Program& prog = SmallProgram();
  Record(t, prog, ids, {0, {1, 2, 3}, {NumLabel("thread id", 1)}}, Via::kStackId);
  Record(t, prog, ids, {1, {4, 5, 6}, {}}, Via::kLocationIds);
  Record(t, prog, ids, {2, {7, 8, 9}, {}, 99}, Via::kStrings);
  Record(t, prog, ids, {0, {1, 1, 1}, {NumLabel("thread id", 1)}}, Via::kLocationIds);
}

using Call = std::function<stackrec_status(Target&, const Ids&)>;
using Message = std::function<std::string(const Ids&)>;

// Two handles of `kind` get the same small program interned and the same
// samples (and, with `forget_first`, a forget_ids after them). `call` runs on
// one of them, with the ids interned before, and must be refused with
// exactly `message`. That handle must be left as it was: a profile
// serializes to the same content as before; interning the program again and
// something new gives both handles the same ids; and after the same further
// samples both serialize to the same content.
void ExpectRefused(Kind kind, bool forget_first, const Call& call, const Message& message) {
  const Program& prog = SmallProgram();
  Target a(kind), b(kind);
  const Ids ia = InternAll(a, prog), ib = InternAll(b, prog);
  REQUIRE(ia == ib);
  RecordSome(a, ia);
  RecordSome(b, ib);
  if (forget_first) {
    Forget(a);
    Forget(b);
  }
  const std::string before = kind == Kind::kProfile ? Snapshot(a.profile()) : "";
  const stackrec_status st = call(a, ia);
  const std::string got = stackrec_last_error();
  CHECK(st == STACKREC_INVALID_ARGUMENT);
  CHECK(got == message(ia));
  if (kind == Kind::kProfile) CHECK(Snapshot(a.profile()) == before);

  const Ids ja = InternAll(a, prog), jb = InternAll(b, prog);
  CHECK(ja == jb);
  const uint32_t fa = Intern(a, Fn("after")), fb = Intern(b, Fn("after"));
  CHECK(fa == fb);
  const uint32_t ma = Intern(a, Mapping(1, 2, 3, "after", "")),
                 mb = Intern(b, Mapping(1, 2, 3, "after", ""));
  CHECK(ma == mb);
  const uint32_t la = Intern(a, Loc(ma, fa, 0x1, 1)), lb = Intern(b, Loc(mb, fb, 0x1, 1));
  CHECK(la == lb);
  CHECK(Intern(a, std::vector<uint32_t>{la, la}) == Intern(b, std::vector<uint32_t>{lb, lb}));
  RecordSome(a, ja);
  RecordSome(b, jb);
  if (kind == Kind::kRecorder) {
    stackrec_stats sa{}, sb{};
    REQUIRE(stackrec_recorder_stats(a.recorder(), &sa) == STACKREC_OK);
    REQUIRE(stackrec_recorder_stats(b.recorder(), &sb) == STACKREC_OK);
    CHECK(sa.samples_recorded == sb.samples_recorded);
  }
  CHECK(a.TakeBytes() == b.TakeBytes());
}

void ExpectRefused(Kind kind, const Call& call, const std::string& message) {
  ExpectRefused(kind, false, call, [message](const Ids&) { return message; });
}

// ExpectRefused's calls of one intern call, the id it gives thrown away:
// of a mapping or a function as given (copied; NULL passes NULL) or a label
// set, or of a location or a stack made from the ids interned before.
Call InternsMapping(const stackrec_mapping* m) {
  const std::optional<stackrec_mapping> copy =
      m ? std::optional<stackrec_mapping>(*m) : std::nullopt;
  return [copy](Target& t, const Ids&) {
    uint32_t id = 0;
    return t.InternMapping(copy ? &*copy : nullptr, &id);
  };
}
Call InternsFunction(const stackrec_function* f) {
  const std::optional<stackrec_function> copy =
      f ? std::optional<stackrec_function>(*f) : std::nullopt;
  return [copy](Target& t, const Ids&) {
    uint32_t id = 0;
    return t.InternFunction(copy ? &*copy : nullptr, &id);
  };
}
Call InternsLabels(const std::vector<stackrec_label>& labels) {
  return [labels](Target& t, const Ids&) {
    uint32_t id = 0;
    return t.InternLabels(labels.data(), labels.size(), &id);
  };
}
Call InternsLocation(std::function<stackrec_interned_location(const Ids&)> make) {
  return [make](Target& t, const Ids& ids) {
    const stackrec_interned_location l = make(ids);
    uint32_t id = 0;
    return t.InternLocation(&l, &id);
  };
}
Call InternsStack(std::function<std::vector<uint32_t>(const Ids&)> make) {
  return [make](Target& t, const Ids& ids) {
    const std::vector<uint32_t> locations = make(ids);
    uint32_t id = 0;
    return t.InternStack(locations.data(), locations.size(), &id);
  };
}

// The ids of the small program's locations `frames`, by index.
std::vector<uint32_t> LocationIdsOf(const Ids& ids, const std::vector<int>& frames) {
  std::vector<uint32_t> out;
  for (int f : frames) out.push_back(ids.locations[static_cast<size_t>(f)]);
  return out;
}

const char kBadUtf8[] = "bad\xC3(utf8";

}  // namespace

TEST_CASE("NULL handles, arguments and outputs of the id calls are refused by name") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const stackrec_mapping m = Mapping(1, 2, 0, "m", "");
  const stackrec_function f = Fn("f");
  const stackrec_interned_location l = Loc(0, 0, 0x10, 0);
  SECTION("NULL handle") {
    Target null = Target::Null(kind);
    const std::string handle = kind == Kind::kProfile ? "profile is NULL" : "recorder is NULL";
    uint32_t id = 0;
    const uint32_t loc_ids[] = {1};
    IdSample s(1);
    CHECK(null.InternMapping(&m, &id) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
    CHECK(null.InternFunction(&f, &id) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
    CHECK(null.InternLocation(&l, &id) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
    CHECK(null.InternStack(loc_ids, 1, &id) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
    CHECK(null.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
    const stackrec_label label = NumLabel("a", 1);
    CHECK(null.InternLabels(&label, 1, &id) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
    CHECK(null.Forget() == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == handle);
  }
  SECTION("mapping is NULL") { ExpectRefused(kind, InternsMapping(nullptr), "mapping is NULL"); }
  SECTION("function is NULL") { ExpectRefused(kind, InternsFunction(nullptr), "function is NULL"); }
  SECTION("location is NULL") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids&) {
          uint32_t id = 0;
          return t.InternLocation(nullptr, &id);
        },
        "location is NULL");
  }
  SECTION("id is NULL, intern_mapping") {
    ExpectRefused(
        kind, [&](Target& t, const Ids&) { return t.InternMapping(&m, nullptr); }, "id is NULL");
  }
  SECTION("id is NULL, intern_function") {
    ExpectRefused(
        kind, [&](Target& t, const Ids&) { return t.InternFunction(&f, nullptr); }, "id is NULL");
  }
  SECTION("id is NULL, intern_location") {
    ExpectRefused(
        kind, [&](Target& t, const Ids&) { return t.InternLocation(&l, nullptr); }, "id is NULL");
  }
  SECTION("id is NULL, intern_stack") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids& ids) {
          const uint32_t loc = ids.locations[2];
          return t.InternStack(&loc, 1, nullptr);
        },
        "id is NULL");
  }
  SECTION("id is NULL, intern_labels") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids&) {
          const stackrec_label label = NumLabel("a", 1);
          return t.InternLabels(&label, 1, nullptr);
        },
        "id is NULL");
  }
  SECTION("sample is NULL") {
    ExpectRefused(
        kind, [](Target& t, const Ids&) { return t.AddIds(nullptr); }, "sample is NULL");
  }
}

TEST_CASE("a NULL array or string with a non-zero length is refused by name") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  SECTION("location_ids") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids&) {
          uint32_t id = 0;
          return t.InternStack(nullptr, 2, &id);
        },
        "location_ids is NULL but location_ids_len is 2");
  }
  SECTION("sample.location_ids") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids&) {
          IdSample s(0);
          s.location_ids_len = 2;
          return t.AddIds(&s);
        },
        "sample.location_ids is NULL but sample.location_ids_len is 2");
  }
  SECTION("labels") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids&) {
          uint32_t id = 0;
          return t.InternLabels(nullptr, 2, &id);
        },
        "labels is NULL but labels_len is 2");
  }
  SECTION("labels[1].str") {
    std::vector<stackrec_label> labels = {NumLabel("a", 1), StrLabel("b", "x")};
    labels[1].str = stackrec_str{nullptr, 3};
    ExpectRefused(kind, InternsLabels(labels), "labels[1].str.ptr is NULL but its len is 3");
  }
  const std::pair<const char*, stackrec_str stackrec_function::*> function_fields[] = {
      {"name", &stackrec_function::name},
      {"system_name", &stackrec_function::system_name},
      {"filename", &stackrec_function::filename}};
  for (const auto& field : function_fields) {
    DYNAMIC_SECTION("function." << field.first) {
      stackrec_function f = Fn("f", "f.rb", 1, "sys");
      f.*(field.second) = stackrec_str{nullptr, 3};
      ExpectRefused(kind, InternsFunction(&f),
                    "function." + std::string(field.first) + ".ptr is NULL but its len is 3");
    }
  }
  const std::pair<const char*, stackrec_str stackrec_mapping::*> mapping_fields[] = {
      {"filename", &stackrec_mapping::filename}, {"build_id", &stackrec_mapping::build_id}};
  for (const auto& field : mapping_fields) {
    DYNAMIC_SECTION("mapping." << field.first) {
      stackrec_mapping m = Mapping(1, 2, 0, "m", "b");
      m.*(field.second) = stackrec_str{nullptr, 3};
      ExpectRefused(kind, InternsMapping(&m),
                    "mapping." + std::string(field.first) + ".ptr is NULL but its len is 3");
    }
  }
}

TEST_CASE("an empty mapping or function is refused: id 0 means none") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const std::string no_mapping = "mapping is empty: use mapping_id 0 for no mapping";
  const std::string no_function = "function is empty: use function_id 0 for no function";
  SECTION("mapping all zero") {
    const stackrec_mapping m{};
    ExpectRefused(kind, InternsMapping(&m), no_mapping);
  }
  SECTION("mapping of empty, non-NULL strings") {
    const stackrec_mapping m = Mapping(0, 0, 0, "", "");
    ExpectRefused(kind, InternsMapping(&m), no_mapping);
  }
  SECTION("function all zero") {
    const stackrec_function f{};
    ExpectRefused(kind, InternsFunction(&f), no_function);
  }
  SECTION("function of empty, non-NULL strings") {
    const stackrec_function f = Fn("", "", 0, "");
    ExpectRefused(kind, InternsFunction(&f), no_function);
  }
}

TEST_CASE("invalid UTF-8 in an interned mapping or function is refused, naming the field") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const std::pair<const char*, stackrec_str stackrec_function::*> function_fields[] = {
      {"name", &stackrec_function::name},
      {"system_name", &stackrec_function::system_name},
      {"filename", &stackrec_function::filename}};
  for (const auto& field : function_fields) {
    DYNAMIC_SECTION("function." << field.first) {
      stackrec_function f = Fn("f", "f.rb", 1, "sys");
      f.*(field.second) = S(kBadUtf8);
      ExpectRefused(kind, InternsFunction(&f),
                    "function." + std::string(field.first) + " is not valid UTF-8");
    }
  }
  const std::pair<const char*, stackrec_str stackrec_mapping::*> mapping_fields[] = {
      {"filename", &stackrec_mapping::filename}, {"build_id", &stackrec_mapping::build_id}};
  for (const auto& field : mapping_fields) {
    DYNAMIC_SECTION("mapping." << field.first) {
      stackrec_mapping m = Mapping(1, 2, 0, "m", "b");
      m.*(field.second) = S("\xED\xA0\x80");  // a UTF-16 surrogate
      ExpectRefused(kind, InternsMapping(&m),
                    "mapping." + std::string(field.first) + " is not valid UTF-8");
    }
  }
}

TEST_CASE("ids that were never interned are refused, naming the field and the id") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  // The small program has 2 mappings, 3 functions, 6 locations, 3 stacks.
  SECTION("location.mapping_id") {
    ExpectRefused(
        kind, InternsLocation([](const Ids& ids) { return Loc(12, ids.functions[0], 0x10, 1); }),
        "location.mapping_id 12 is not an interned id");
  }
  SECTION("location.function_id") {
    ExpectRefused(kind,
                  InternsLocation([](const Ids& ids) { return Loc(ids.mappings[0], 12, 0x10, 1); }),
                  "location.function_id 12 is not an interned id");
  }
  SECTION("location_ids[1]") {
    ExpectRefused(kind, InternsStack([](const Ids& ids) {
                    return std::vector<uint32_t>{ids.locations[0], 77, ids.locations[1]};
                  }),
                  "location_ids[1] 77 is not an interned id");
  }
  SECTION("location_ids[0] is 0") {
    ExpectRefused(kind, InternsStack([](const Ids& ids) {
                    return std::vector<uint32_t>{0, ids.locations[1]};
                  }),
                  "location_ids[0] 0 is not an interned id");
  }
  SECTION("sample.stack_id") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids&) {
          IdSample s(5);
          return t.AddIds(&s);
        },
        "sample.stack_id 5 is not an interned id");
  }
  SECTION("sample.location_ids[2]") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids& ids) {
          IdSample s(std::vector<uint32_t>{ids.locations[0], ids.locations[1], 9});
          return t.AddIds(&s);
        },
        "sample.location_ids[2] 9 is not an interned id");
  }
  SECTION("sample.labels_id") {
    ExpectRefused(
        kind,
        [](Target& t, const Ids& ids) {
          IdSample s(ids.stacks[0]);
          s.labels_id = 77;
          return t.AddIds(&s);
        },
        "sample.labels_id 77 is not an interned id");
  }
}

TEST_CASE("ids from before forget_ids are refused as stale, naming the field and the id") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  const std::string stale = " is stale (interned before forget_ids)";
  SECTION("location.mapping_id") {
    ExpectRefused(kind, true,
                  InternsLocation([](const Ids& ids) { return Loc(ids.mappings[1], 0, 0x10, 1); }),
                  [&](const Ids& ids) {
                    return "location.mapping_id " + std::to_string(ids.mappings[1]) + stale;
                  });
  }
  SECTION("location.function_id") {
    ExpectRefused(kind, true,
                  InternsLocation([](const Ids& ids) { return Loc(0, ids.functions[2], 0, 1); }),
                  [&](const Ids& ids) {
                    return "location.function_id " + std::to_string(ids.functions[2]) + stale;
                  });
  }
  SECTION("location_ids[0]") {
    ExpectRefused(kind, true, InternsStack([](const Ids& ids) {
                    return std::vector<uint32_t>{ids.locations[2]};
                  }),
                  [&](const Ids& ids) {
                    return "location_ids[0] " + std::to_string(ids.locations[2]) + stale;
                  });
  }
  SECTION("sample.stack_id") {
    ExpectRefused(
        kind, true,
        [](Target& t, const Ids& ids) {
          IdSample s(ids.stacks[1]);
          return t.AddIds(&s);
        },
        [&](const Ids& ids) { return "sample.stack_id " + std::to_string(ids.stacks[1]) + stale; });
  }
  SECTION("sample.location_ids[0]") {
    ExpectRefused(
        kind, true,
        [](Target& t, const Ids& ids) {
          IdSample s(ids.LocationIds(SmallProgram(), 0));
          return t.AddIds(&s);
        },
        [&](const Ids& ids) {
          return "sample.location_ids[0] " + std::to_string(ids.locations[0]) + stale;
        });
  }
  SECTION("sample.labels_id") {
    // Id 1 of the first generation, whether or not it was handed out.
    ExpectRefused(
        kind, true,
        [](Target& t, const Ids&) {
          const uint32_t labels = Intern(t, {NumLabel("thread id", 1)});
          REQUIRE(labels != 1);
          IdSample s(1);
          s.stack_id = 0;
          s.labels_id = 1;
          return t.AddIds(&s);
        },
        [&](const Ids&) { return "sample.labels_id 1" + stale; });
  }
}

TEST_CASE("an interned inlined location needs a caller at its address and mapping") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  // Small program: location 3 is inlined at 0x401010 of mapping 0; location
  // 0 is at 0x401000; location 5 is at 0x401010 of mapping 1.
  struct Case {
    const char* name;
    std::vector<int> frames;
    const char* message;
  };
  const Case cases[] = {
      {"other address",
       {3, 0},
       "location_ids[0] is inlined but location_ids[1] has another address or mapping"},
      {"other mapping",
       {1, 3, 5},
       "location_ids[1] is inlined but location_ids[2] has another address or mapping"},
      {"root inlined", {0, 3}, "location_ids[1] is inlined but is the last (root) location"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION("intern_stack: " << c.name) {
      ExpectRefused(kind,
                    InternsStack([&](const Ids& ids) { return LocationIdsOf(ids, c.frames); }),
                    c.message);
    }
    DYNAMIC_SECTION("sample.location_ids: " << c.name) {
      std::string message = c.message;
      // Both indices get the prefix: "sample.location_ids[0] ... sample.location_ids[1]".
      for (size_t at = message.find("location_ids"); at != std::string::npos;
           at = message.find("location_ids", at + 20)) {
        message.insert(at, "sample.");
      }
      ExpectRefused(
          kind,
          [&](Target& t, const Ids& ids) {
            IdSample s(LocationIdsOf(ids, c.frames));
            return t.AddIds(&s);
          },
          message);
    }
  }
}

TEST_CASE("a sample with both a stack id and location ids is refused") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  ExpectRefused(
      kind,
      [](Target& t, const Ids& ids) {
        IdSample s(ids.LocationIds(SmallProgram(), 0));
        s.stack_id = ids.stacks[0];
        return t.AddIds(&s);
      },
      "sample.stack_id and sample.location_ids are both set");
}

TEST_CASE("a sample with both a label-set id and labels is refused") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  ExpectRefused(
      kind,
      [](Target& t, const Ids& ids) {
        IdSample s(ids.stacks[0]);
        const stackrec_label label = NumLabel("a", 1);
        s.labels_id = Intern(t, {label});
        s.labels = &label;
        s.labels_len = 1;
        return t.AddIds(&s);
      },
      "sample.labels_id and sample.labels are both set");
}

TEST_CASE("a label set with end_timestamp_ns is refused for timestamped samples only") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  // New to the profile (refused before it is imported)...
  ExpectRefused(
      kind,
      [](Target& t, const Ids& ids) {
        IdSample s(ids.stacks[0]);
        s.labels_id = Intern(t, {StrLabel("end_timestamp_ns", "5")});
        s.timestamp_ns = 99;
        return t.AddIds(&s);
      },
      "sample.labels_id 1 has the key \"end_timestamp_ns\", reserved for the sample's "
      "timestamp_ns");
  // ...and imported by an untimed sample first, for which it is an
  // ordinary label.
  Target t(kind);
  const uint32_t stack = OneFrameStack(t, "f");
  const uint32_t labels_id = Intern(t, {StrLabel("end_timestamp_ns", "5")});
  IdSample s(stack, {1, 2, 3});
  s.labels_id = labels_id;
  AddIds(t, s);
  s.timestamp_ns = 99;
  CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "sample.labels_id " + std::to_string(labels_id) +
            " has the key \"end_timestamp_ns\", reserved for the sample's timestamp_ns");
  const Profile out = t.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"end_timestamp_ns=5"});
  CHECK(out.sample(0).value(2) == 3);
}

TEST_CASE(
    "labels as strings with end_timestamp_ns, known from an untimed sample, are refused with a "
    "timestamp") {
  // A label set the profile already holds is not validated again in full
  // (AddKey finds it by fingerprint), but the reserved key is still
  // checked against each sample's timestamp, by string and by id.
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  const uint32_t stack = OneFrameStack(t, "f");
  const stackrec_label label = StrLabel("end_timestamp_ns", "5");
  const int64_t values[] = {1, 2, 3};
  IdSample by_id(stack, {1, 2, 3});
  by_id.labels = &label;
  by_id.labels_len = 1;
  stackrec_location frame{};
  frame.function.name = S("f");
  frame.line = 1;
  stackrec_sample by_string{};
  by_string.locations = &frame;
  by_string.locations_len = 1;
  by_string.values = values;
  by_string.values_len = 3;
  by_string.labels = &label;
  by_string.labels_len = 1;
  AddIds(t, by_id);  // untimed: an ordinary label
  REQUIRE(t.Add(&by_string) == STACKREC_OK);
  by_id.timestamp_ns = by_string.timestamp_ns = 99;
  for (int attempt = 0; attempt < 2; ++attempt) {
    CHECK(t.AddIds(&by_id) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) ==
          "sample.labels[0].key \"end_timestamp_ns\" is reserved for the sample's timestamp_ns");
    CHECK(t.Add(&by_string) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) ==
          "sample.labels[0].key \"end_timestamp_ns\" is reserved for the sample's timestamp_ns");
  }
  const Profile out = t.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"end_timestamp_ns=5"});
  CHECK(out.sample(0).value(0) == 2);
  CHECK(out.sample(0).value(2) == 6);
}

TEST_CASE("bad label sets get the messages of add, naming labels[i]") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  stackrec_label both = StrLabel("mixed", "text");
  both.num = 3;
  stackrec_label str_unit = StrLabel("mixed", "text");
  str_unit.num_unit = S("bytes");
  const std::pair<const char*, std::vector<stackrec_label>> cases[] = {
      {"empty key", {StrLabel("", "x")}},
      {"duplicate key", {StrLabel("a", "x"), NumLabel("b", 1), NumLabel("a", 2)}},
      {"string and num", {NumLabel("n", 1), both}},
      {"string and num_unit", {str_unit}},
      {"label key not UTF-8", {NumLabel("\xFF", 1)}},
      {"label str not UTF-8", {StrLabel("k", "\xC0\x80")}},
      {"num_unit not UTF-8", {NumLabel("k", 2), NumLabel("n", 1, "\xF4\x90\x80\x80")}},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.first) {
      // The message the string path gives for the same labels, with
      // "sample.labels" read as "labels".
      Target strings(kind);
      SampleBuilder b;
      b.Frame("f").Values({1, 1, 1});
      stackrec_sample sample = b.Get();
      sample.labels = c.second.data();
      sample.labels_len = c.second.size();
      REQUIRE(strings.Add(&sample) == STACKREC_INVALID_ARGUMENT);
      std::string message = stackrec_last_error();
      for (size_t at = message.find("sample.labels"); at != std::string::npos;
           at = message.find("sample.labels", at)) {
        message.erase(at, std::string("sample.").size());
      }
      INFO(message);
      CHECK(message.rfind("labels[", 0) == 0);
      ExpectRefused(kind, InternsLabels(c.second), message);
    }
  }
}

TEST_CASE("bad values, labels and timestamps of an id sample get add's messages") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  struct Case {
    const char* name;
    std::vector<int64_t> values;
    bool null_values;
    std::vector<stackrec_label> labels;
    bool null_labels;
    int64_t timestamp_ns;
  };
  stackrec_label both = StrLabel("mixed", "text");
  both.num = 3;
  stackrec_label str_unit = StrLabel("mixed", "text");
  str_unit.num_unit = S("bytes");
  const Case cases[] = {
      {"two values", {1, 2}, false, {}, false, 0},
      {"four values", {1, 2, 3, 4}, false, {}, false, 0},
      {"values NULL", {1, 2, 3}, true, {}, false, 0},
      {"labels NULL", {1, 1, 1}, false, {NumLabel("a", 1)}, true, 0},
      {"empty key", {1, 1, 1}, false, {StrLabel("", "x")}, false, 0},
      {"duplicate key",
       {1, 1, 1},
       false,
       {StrLabel("a", "x"), NumLabel("b", 1), NumLabel("a", 2)},
       false,
       0},
      {"string and num", {1, 1, 1}, false, {both}, false, 0},
      {"string and num_unit", {1, 1, 1}, false, {str_unit}, false, 0},
      {"end_timestamp_ns with a timestamp",
       {1, 1, 1},
       false,
       {NumLabel("end_timestamp_ns", 5)},
       false,
       99},
      {"label key not UTF-8", {1, 1, 1}, false, {NumLabel("\xFF", 1)}, false, 0},
      {"label str not UTF-8", {1, 1, 1}, false, {StrLabel("k", "\xC0\x80")}, false, 0},
      {"num_unit not UTF-8", {1, 1, 1}, false, {NumLabel("n", 1, "\xF4\x90\x80\x80")}, false, 0},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      // The message the string path gives for the same sample.
      Target strings(kind);
      stackrec_location frame{};
      frame.function.name = S("f");
      stackrec_sample string_sample{};
      string_sample.locations = &frame;
      string_sample.locations_len = 1;
      string_sample.values = c.null_values ? nullptr : c.values.data();
      string_sample.values_len = c.values.size();
      string_sample.labels = c.null_labels ? nullptr : c.labels.data();
      string_sample.labels_len = c.labels.size();
      string_sample.timestamp_ns = c.timestamp_ns;
      REQUIRE(strings.Add(&string_sample) == STACKREC_INVALID_ARGUMENT);
      const std::string message = stackrec_last_error();
      REQUIRE_FALSE(message.empty());
      if (c.values.size() == 2) {
        CHECK(message == "sample.values_len is 2 but the profile declares 3 sample types");
      }
      for (bool by_stack : {true, false}) {
        INFO((by_stack ? "by stack id" : "by location ids"));
        ExpectRefused(
            kind,
            [&](Target& t, const Ids& ids) {
              IdSample s =
                  by_stack ? IdSample(ids.stacks[0]) : IdSample(ids.LocationIds(SmallProgram(), 0));
              s.values = c.null_values ? nullptr : c.values.data();
              s.values_len = c.values.size();
              s.labels = c.null_labels ? nullptr : c.labels.data();
              s.labels_len = c.labels.size();
              s.timestamp_ns = c.timestamp_ns;
              return t.AddIds(&s);
            },
            message);
      }
    }
  }
}

TEST_CASE("a refused intern call sets *id to 0") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  uint32_t id = 77;
  const stackrec_mapping m{};
  CHECK(t.InternMapping(&m, &id) == STACKREC_INVALID_ARGUMENT);
  CHECK(id == 0);
  id = 77;
  const stackrec_function f{};
  CHECK(t.InternFunction(&f, &id) == STACKREC_INVALID_ARGUMENT);
  CHECK(id == 0);
  id = 77;
  const stackrec_interned_location l = Loc(12, 0, 0, 0);
  CHECK(t.InternLocation(&l, &id) == STACKREC_INVALID_ARGUMENT);
  CHECK(id == 0);
  id = 77;
  const uint32_t locs[] = {77};
  CHECK(t.InternStack(locs, 1, &id) == STACKREC_INVALID_ARGUMENT);
  CHECK(id == 0);
}

TEST_CASE("labels by id and by string, in any order, are one key") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target t(kind);
  const uint32_t stack = OneFrameStack(t, "f");
  const uint32_t ba = Intern(t, {StrLabel("b", "x"), NumLabel("a", 1)});
  const stackrec_label ab[] = {NumLabel("a", 1), StrLabel("b", "x")};
  const int64_t values[] = {1, 1, 1};
  IdSample by_id(stack);
  by_id.labels_id = ba;
  AddIds(t, by_id);
  by_id.labels_id = 0;
  by_id.labels = ab;
  by_id.labels_len = 2;
  AddIds(t, by_id);
  stackrec_location frame{};
  frame.function.name = S("f");
  frame.line = 1;
  stackrec_sample by_string{};
  by_string.locations = &frame;
  by_string.locations_len = 1;
  by_string.values = values;
  by_string.values_len = 3;
  by_string.labels = ab;
  by_string.labels_len = 2;
  REQUIRE(t.Add(&by_string) == STACKREC_OK);
  const Profile out = t.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"b=x", "a=1"});
  CHECK(out.sample(0).value(0) == 3);
}
