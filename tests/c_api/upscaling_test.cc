// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Upscaling rules, checked against numbers computed by hand.
#include <climits>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

// Sample types of a heap profile: alloc-samples/count, alloc-space/bytes,
// cpu-time/nanoseconds.
struct HeapOptions {
  std::vector<stackrec_value_type> types = {{S("alloc-samples"), S("count")},
                                            {S("alloc-space"), S("bytes")},
                                            {S("cpu-time"), S("nanoseconds")}};
  stackrec_profile_options opts{};
  HeapOptions() {
    opts.sample_types = types.data();
    opts.sample_types_len = types.size();
  }
};

stackrec_upscaling_rule Proportional(const std::vector<size_t>& offsets, uint64_t sampled,
                                     uint64_t real) {
  stackrec_upscaling_rule r{};
  r.kind = STACKREC_UPSCALING_PROPORTIONAL;
  r.value_offsets = offsets.data();
  r.value_offsets_len = offsets.size();
  r.total_sampled = sampled;
  r.total_real = real;
  return r;
}

stackrec_upscaling_rule Poisson(const std::vector<size_t>& offsets, size_t sum, size_t count,
                                uint64_t distance) {
  stackrec_upscaling_rule r{};
  r.kind = STACKREC_UPSCALING_POISSON;
  r.value_offsets = offsets.data();
  r.value_offsets_len = offsets.size();
  r.sum_value_offset = sum;
  r.count_value_offset = count;
  r.sampling_distance = distance;
  return r;
}

void AddRule(stackrec_profile* p, const stackrec_upscaling_rule& r) {
  const stackrec_status st = stackrec_profile_add_upscaling_rule(p, &r);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

// Values by the sample's leaf function name.
std::map<std::string, std::vector<int64_t>> ValuesByLeaf(const Profile& out) {
  std::map<std::string, std::vector<int64_t>> by_leaf;
  for (const auto& s : out.sample()) {
    by_leaf[FrameNames(out, s).at(0)] = std::vector<int64_t>(s.value().begin(), s.value().end());
  }
  return by_leaf;
}

using Values = std::vector<int64_t>;

}  // namespace

TEST_CASE("a proportional rule multiplies by total_real / total_sampled and rounds") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> offsets = {0, 1};
  // 1,000 allocations seen out of 150,000 made: every value times 150.
  AddRule(p.get(), Proportional(offsets, 1000, 150000));
  SampleBuilder a;
  a.Frame("alloc").Values({7, 4096, 33});
  Add(p.get(), a);
  Add(p.get(), a);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  // The aggregate is scaled: (7 + 7) * 150 and (4096 + 4096) * 150; cpu-time
  // is not a target.
  CHECK(ValuesByLeaf(out)["alloc"] == Values{2100, 1228800, 66});
}

TEST_CASE("proportional scaling rounds half away from zero") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> offsets = {0, 2};
  AddRule(p.get(), Proportional(offsets, 3, 10));  // scale 3.333...
  const std::vector<std::pair<std::string, Values>> in = {
      {"one", {1, 0, 2}},     // 3.33 -> 3, 6.67 -> 7
      {"three", {3, 5, -3}},  // 10 -> 10, -10 -> -10
      {"neg", {-1, 0, -2}},   // -3.33 -> -3, -6.67 -> -7
  };
  for (const auto& [name, values] : in) {
    SampleBuilder b;
    b.Frame(name).Values(values);
    Add(p.get(), b);
  }
  SampleBuilder half;
  HeapOptions o2;
  auto q = NewProfile(o2.opts);
  AddRule(q.get(), Proportional(offsets, 2, 3));  // scale 1.5
  half.Frame("half").Values({1, 0, -1});          // 1.5 -> 2, -1.5 -> -2
  Add(q.get(), half);

  auto by_leaf = ValuesByLeaf(SerializeAndDecode(p.get()));
  CHECK(by_leaf["one"] == Values{3, 0, 7});
  CHECK(by_leaf["three"] == Values{10, 5, -10});
  CHECK(by_leaf["neg"] == Values{-3, 0, -7});
  CHECK(ValuesByLeaf(SerializeAndDecode(q.get()))["half"] == Values{2, 0, -2});
}

TEST_CASE("a Poisson rule scales by 1 / (1 - exp(-(sum / count) / distance))") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> offsets = {0, 1};
  AddRule(p.get(), Poisson(offsets, /*sum=*/1, /*count=*/0, 524288));
  SampleBuilder big, small, zero;
  // Mean 1048576 / 4 = 262144 bytes, half the distance:
  // 1 / (1 - exp(-0.5)) = 2.5414940825367984.
  big.Frame("big").Values({4, 1048576, 9});
  // Mean 300 / 2 = 150 with distance 100 in the second profile below.
  // A sum of 0: scale 1, values kept.
  zero.Frame("zero").Values({3, 0, 1});
  Add(p.get(), big);
  Add(p.get(), zero);
  auto by_leaf = ValuesByLeaf(SerializeAndDecode(p.get()));
  // 4 * 2.5415 = 10.166 -> 10; 1048576 * 2.5415 = 2664949.699 -> 2664950.
  CHECK(by_leaf["big"] == Values{10, 2664950, 9});
  CHECK(by_leaf["zero"] == Values{3, 0, 1});

  HeapOptions o2;
  auto q = NewProfile(o2.opts);
  const std::vector<size_t> space_only = {1};
  AddRule(q.get(), Poisson(space_only, 1, 0, 100));
  // Mean 150, x = 1.5: 1 / (1 - exp(-1.5)) = 1.287216916788868;
  // 300 * that = 386.165 -> 386; the count is not a target.
  small.Frame("small").Values({2, 300, 0});
  Add(q.get(), small);
  CHECK(ValuesByLeaf(SerializeAndDecode(q.get()))["small"] == Values{2, 386, 0});
}

TEST_CASE("a rule with a label scales only the samples carrying that label") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> offsets = {0};
  stackrec_upscaling_rule by_str = Proportional(offsets, 1, 10);
  by_str.label_key = S("kind");
  by_str.label_str = S("sampled");
  AddRule(p.get(), by_str);
  // Another key can be on the same sample: another offset.
  const std::vector<size_t> space = {1};
  stackrec_upscaling_rule by_num = Proportional(space, 1, 100);
  by_num.label_key = S("thread id");
  by_num.label_num = 7;
  AddRule(p.get(), by_num);

  SampleBuilder s1, s2, n7, n8, none, str7;
  s1.Frame("sampled").Values({1, 1, 1}).Label("kind", "sampled");
  s2.Frame("other kind").Values({1, 1, 1}).Label("kind", "exact");
  n7.Frame("thread 7").Values({2, 1, 1}).NumLabel("thread id", 7, "id");
  n8.Frame("thread 8").Values({2, 1, 1}).NumLabel("thread id", 8);
  none.Frame("no label").Values({3, 1, 1});
  str7.Frame("string 7").Values({4, 1, 1}).Label("thread id", "7");
  for (SampleBuilder* b : {&s1, &s2, &n7, &n8, &none, &str7}) Add(p.get(), *b);
  auto by_leaf = ValuesByLeaf(SerializeAndDecode(p.get()));
  CHECK(by_leaf["sampled"] == Values{10, 1, 1});
  CHECK(by_leaf["other kind"] == Values{1, 1, 1});
  CHECK(by_leaf["thread 7"] == Values{2, 100, 1});  // the unit is not compared
  CHECK(by_leaf["thread 8"] == Values{2, 1, 1});
  CHECK(by_leaf["no label"] == Values{3, 1, 1});
  CHECK(by_leaf["string 7"] == Values{4, 1, 1});  // a string "7" is not the number 7
}

TEST_CASE("rules on disjoint offsets both apply, each from the recorded values") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> counts = {0}, space = {1};
  // The Poisson rule reads the count at offset 0 before the proportional
  // rule scales it: mean 1000 / 10 = 100, distance 100: 1 / (1 - e^-1) =
  // 1.5819767068693265; 1000 * that = 1581.98 -> 1582.
  AddRule(p.get(), Proportional(counts, 1, 2));
  AddRule(p.get(), Poisson(space, 1, 0, 100));
  SampleBuilder b;
  b.Frame("f").Values({10, 1000, 5});
  Add(p.get(), b);
  CHECK(ValuesByLeaf(SerializeAndDecode(p.get()))["f"] == Values{20, 1582, 5});
}

TEST_CASE("timestamped samples and pseudo-samples are scaled too; saturation clamps") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> offsets = {0, 2};
  AddRule(p.get(), Proportional(offsets, 1, 4));
  SampleBuilder timed, huge;
  timed.Frame("timed").Values({1, 1, 2}).Timestamp(99);
  huge.Frame("huge").Values({INT64_MAX / 2, 0, INT64_MIN / 2});
  Add(p.get(), timed);
  Add(p.get(), huge);
  auto by_leaf = ValuesByLeaf(SerializeAndDecode(p.get()));
  CHECK(by_leaf["timed"] == Values{4, 1, 8});
  CHECK(by_leaf["huge"] == Values{INT64_MAX, 0, INT64_MIN});

  // A profile at its memory cap from the start: every sample goes to the
  // storage-full pseudo-sample, which has no labels.
  HeapOptions full;
  full.opts.max_memory_bytes = 1;
  auto q = NewProfile(full.opts);
  AddRule(q.get(), Proportional(offsets, 1, 4));
  SampleBuilder a, b;
  a.Frame("a").Values({1, 1, 1}).Label("kind", "x");
  b.Frame("b").Values({2, 2, 2});
  Add(q.get(), a);
  Add(q.get(), b);
  CHECK(ValuesByLeaf(SerializeAndDecode(q.get()))["[stackrec: storage full]"] == Values{12, 3, 12});
}

TEST_CASE("overlapping rules are refused and leave the rules as they were") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> a = {0, 1}, b = {1, 2}, c = {2};
  AddRule(p.get(), Proportional(a, 1, 2));
  // Every sample matches both: offset 1 twice.
  stackrec_upscaling_rule global = Proportional(b, 1, 3);
  CHECK(stackrec_profile_add_upscaling_rule(p.get(), &global) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "rule.value_offsets: offset 1 is already scaled by rule 0 for samples this rule also "
        "matches");
  // A labelled rule matches a subset of every sample: still overlapping.
  stackrec_upscaling_rule labelled = Proportional(b, 1, 3);
  labelled.label_key = S("kind");
  labelled.label_str = S("x");
  CHECK(stackrec_profile_add_upscaling_rule(p.get(), &labelled) == STACKREC_INVALID_ARGUMENT);

  HeapOptions o2;
  auto q = NewProfile(o2.opts);
  stackrec_upscaling_rule kx = Proportional(a, 1, 2);
  kx.label_key = S("kind");
  kx.label_str = S("x");
  AddRule(q.get(), kx);
  // Same key, other value: no sample carries both, so the rules coexist.
  stackrec_upscaling_rule ky = kx;
  ky.label_str = S("y");
  ky.total_real = 5;
  AddRule(q.get(), ky);
  // Same key and value: refused.
  stackrec_upscaling_rule kx2 = Proportional(b, 1, 3);
  kx2.label_key = S("kind");
  kx2.label_str = S("x");
  CHECK(stackrec_profile_add_upscaling_rule(q.get(), &kx2) == STACKREC_INVALID_ARGUMENT);
  // Another key: a sample may carry both labels, refused.
  stackrec_upscaling_rule other_key = Proportional(b, 1, 3);
  other_key.label_key = S("thread id");
  other_key.label_num = 1;
  CHECK(stackrec_profile_add_upscaling_rule(q.get(), &other_key) == STACKREC_INVALID_ARGUMENT);
  // Disjoint offsets never conflict.
  AddRule(q.get(), Proportional(c, 1, 7));

  SampleBuilder x, y, z;
  x.Frame("x").Values({1, 1, 1}).Label("kind", "x");
  y.Frame("y").Values({1, 1, 1}).Label("kind", "y");
  z.Frame("z").Values({1, 1, 1});
  for (SampleBuilder* s : {&x, &y, &z}) Add(q.get(), *s);
  auto by_leaf = ValuesByLeaf(SerializeAndDecode(q.get()));
  CHECK(by_leaf["x"] == Values{2, 2, 7});
  CHECK(by_leaf["y"] == Values{5, 5, 7});
  CHECK(by_leaf["z"] == Values{1, 1, 7});
}

TEST_CASE("bad upscaling rules are refused, naming the field") {
  static const bool kEnabled[] = {true, true, false};
  const std::vector<size_t> ok = {0}, none, out_of_range = {3}, twice = {0, 0}, disabled = {2};
  struct Case {
    const char* name;
    stackrec_upscaling_rule rule;
    const char* message;
  };
  stackrec_upscaling_rule bad_kind = Proportional(ok, 1, 2);
  int kind_bits = 7;
  std::memcpy(&bad_kind.kind, &kind_bits, sizeof(kind_bits));
  stackrec_upscaling_rule null_offsets = Proportional(ok, 1, 2);
  null_offsets.value_offsets = nullptr;
  stackrec_upscaling_rule value_without_key = Proportional(ok, 1, 2);
  value_without_key.label_num = 3;
  stackrec_upscaling_rule both_values = Proportional(ok, 1, 2);
  both_values.label_key = S("k");
  both_values.label_str = S("v");
  both_values.label_num = 3;
  stackrec_upscaling_rule bad_utf8 = Proportional(ok, 1, 2);
  bad_utf8.label_key = {"\xC3\x28", 2};
  stackrec_upscaling_rule null_key = Proportional(ok, 1, 2);
  null_key.label_key = {nullptr, 4};
  const Case cases[] = {
      {"kind", bad_kind, "rule.kind 7 is not a stackrec_upscaling_kind"},
      {"no offsets", Proportional(none, 1, 2),
       "rule.value_offsets_len is 0: a rule scales at least one value"},
      {"NULL offsets", null_offsets, "rule.value_offsets is NULL but rule.value_offsets_len is 1"},
      {"offset out of range", Proportional(out_of_range, 1, 2),
       "rule.value_offsets[0] is 3 but the profile declares 3 sample types"},
      {"offset twice", Proportional(twice, 1, 2),
       "rule.value_offsets[1] repeats rule.value_offsets[0] (0)"},
      {"disabled offset", Proportional(disabled, 1, 2),
       "rule.value_offsets[0] is 2, a disabled sample type (\"cpu-time\")"},
      {"zero sampled", Proportional(ok, 0, 2), "rule.total_sampled is 0"},
      {"zero distance", Poisson(ok, 1, 0, 0), "rule.sampling_distance is 0"},
      {"sum out of range", Poisson(ok, 5, 0, 10),
       "rule.sum_value_offset is 5 but the profile declares 3 sample types"},
      {"count disabled", Poisson(ok, 1, 2, 10),
       "rule.count_value_offset is 2, a disabled sample type (\"cpu-time\")"},
      {"value without key", value_without_key,
       "rule.label_key is empty but a label value is set (an empty key means every sample)"},
      {"string and number", both_values,
       "rule.label_str and rule.label_num are both set: a label is a string or a number"},
      {"key not UTF-8", bad_utf8, "rule.label_key is not valid UTF-8"},
      {"key NULL with length", null_key, "rule.label_key.ptr is NULL but its len is 4"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      HeapOptions o;
      o.opts.sample_types_enabled = kEnabled;
      auto p = NewProfile(o.opts);
      SampleBuilder b;
      b.Frame("f").Values({1, 1, 1});
      Add(p.get(), b);
      CHECK(stackrec_profile_add_upscaling_rule(p.get(), &c.rule) == STACKREC_INVALID_ARGUMENT);
      CHECK(std::string(stackrec_last_error()) == c.message);
      auto r = NewRecorder(o.opts);
      CHECK(stackrec_recorder_add_upscaling_rule(r.get(), &c.rule) == STACKREC_INVALID_ARGUMENT);
      CHECK(std::string(stackrec_last_error()) == c.message);
      // Nothing was added: values come out as recorded.
      CHECK(ValuesByLeaf(SerializeAndDecode(p.get()))["f"] == Values{1, 1});
    }
  }
  SECTION("NULL handles and rule") {
    const stackrec_upscaling_rule r = Proportional(ok, 1, 2);
    CHECK(stackrec_profile_add_upscaling_rule(nullptr, &r) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == "profile is NULL");
    CHECK(stackrec_recorder_add_upscaling_rule(nullptr, &r) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == "recorder is NULL");
    auto p = NewProfile();
    CHECK(stackrec_profile_add_upscaling_rule(p.get(), nullptr) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == "rule is NULL");
  }
}

TEST_CASE("at most 64 rules") {
  HeapOptions o;
  auto p = NewProfile(o.opts);
  const std::vector<size_t> offsets = {0};
  std::vector<std::string> values(65);
  for (size_t i = 0; i < 65; ++i) {
    values[i] = "v" + std::to_string(i);
    stackrec_upscaling_rule r = Proportional(offsets, 1, 2);
    r.label_key = S("k");
    r.label_str = S(values[i]);
    const stackrec_status st = stackrec_profile_add_upscaling_rule(p.get(), &r);
    if (i < 64) {
      REQUIRE(st == STACKREC_OK);
    } else {
      CHECK(st == STACKREC_LIMIT_EXCEEDED);
      CHECK(std::string(stackrec_last_error()) ==
            "the profile has 64 upscaling rules already, the most it takes");
    }
  }
  // The 64th rule (bit 63) works.
  SampleBuilder b;
  b.Frame("f").Values({3, 1, 1}).Label("k", "v63");
  Add(p.get(), b);
  CHECK(ValuesByLeaf(SerializeAndDecode(p.get()))["f"] == Values{6, 1, 1});
}

TEST_CASE("rules survive resets of a profile and flips of a recorder") {
  HeapOptions o;
  const std::vector<size_t> offsets = {1};
  const stackrec_upscaling_rule rule = Proportional(offsets, 1, 3);
  auto p = NewProfile(o.opts);
  AddRule(p.get(), rule);
  SampleBuilder b;
  b.Frame("f").Values({1, 5, 1});
  for (int i = 0; i < 3; ++i) {
    Add(p.get(), b);
    CHECK(ValuesByLeaf(SerializeAndDecode(p.get()))["f"] == Values{1, 15, 1});
    REQUIRE(stackrec_profile_reset(p.get()) == STACKREC_OK);
  }

  auto r = NewRecorder(o.opts);
  REQUIRE(stackrec_recorder_add_upscaling_rule(r.get(), &rule) == STACKREC_OK);
  for (int flip = 0; flip < 4; ++flip) {
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
    CheckInvariants(out);
    CHECK(ValuesByLeaf(out)["f"] == Values{2, 30, 2});
  }
  // reset_after_fork keeps them (configuration, not samples).
  REQUIRE(stackrec_recorder_reset_after_fork(r.get()) == STACKREC_OK);
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  CHECK(ValuesByLeaf(Decode(stackrec_encoded_data(e), stackrec_encoded_size(e)))["f"] ==
        Values{1, 15, 1});
}
