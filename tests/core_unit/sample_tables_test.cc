// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The interned tables (sample_tables.h) on their own: a stack or a label
// set interned from content is found again by its fingerprint and by its
// ids, reads back as the content it came from, carries over with its cache
// entry and seed when a key uses it and not otherwise, and interning goes
// on after the caches are compacted away.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "hash/fingerprint.h"
#include "support/core_test_support.h"
#include "tables/sample_tables.h"

using stackrec::Fingerprint;
using stackrec::LabelView;
using stackrec::LocationView;
using stackrec::SampleKey;
using stackrec::SampleTables;
using stackrec_core_test::Stack;

namespace {

uint32_t InternStack(SampleTables* tables, const std::vector<LocationView>& frames,
                     Fingerprint* fp_out = nullptr) {
  std::vector<uint64_t> hashes(frames.size());
  const Fingerprint fp = stackrec::FingerprintFrames(frames, hashes.data());
  if (fp_out != nullptr) *fp_out = fp;
  uint32_t id = 0;
  if (tables->CachedStack(fp, &id)) return id;
  REQUIRE(tables->InternStack(frames, hashes.data(), fp, &id).ok());
  return id;
}

uint32_t InternLabels(SampleTables* tables, const std::vector<LabelView>& labels,
                      Fingerprint* fp_out = nullptr) {
  const Fingerprint fp = stackrec::FingerprintLabels(labels);
  if (fp_out != nullptr) *fp_out = fp;
  uint32_t id = 0;
  if (tables->CachedLabels(fp, &id)) return id;
  REQUIRE(tables->InternLabels(labels, fp, &id).ok());
  return id;
}

std::vector<LabelView> Labels(const char* str, int64_t num) {
  std::vector<LabelView> labels(2);
  labels[0].key = "thread";
  labels[0].str = str;
  labels[1].key = "bytes";
  labels[1].num = num;
  labels[1].num_unit = "bytes";
  return labels;
}

}  // namespace

TEST_CASE("a stack interned from content is found by its fingerprint and by its ids") {
  SampleTables tables;
  const Stack a("a", 5);
  Fingerprint fp;
  const uint32_t id = InternStack(&tables, a.views(), &fp);
  REQUIRE(id == 1);
  uint32_t found = 0;
  REQUIRE(tables.CachedStack(fp, &found));
  CHECK(found == id);
  // The same location ids are the same stack, whatever seed is offered.
  const auto locations = tables.stacks().Get(id);
  const std::vector<uint32_t> ids(locations.begin(), locations.end());
  CHECK(tables.InternStackIds(ids, 12345) == id);
  CHECK(tables.stack_seed(id) == SampleTables::SeedOf(fp));
  // Five frames, five locations, five functions; their strings once each.
  CHECK(tables.locations().size() == 6);
  CHECK(tables.functions().size() == 6);
  // A stack sharing its root side reuses those locations.
  const Stack b_leaf("b", 2);  // owns the names b's first frames view
  const Stack b(b_leaf, 2, a, 2);
  const uint32_t other = InternStack(&tables, b.views());
  CHECK(other == 2);
  CHECK(tables.locations().size() == 8);
}

TEST_CASE("a stack and a label set read back as the content they were interned from") {
  SampleTables tables;
  Stack a("f", 3);
  a.views()[0].address = 0x1234;
  a.views()[0].mapping.filename = "/lib/x.so";
  a.views()[0].mapping.build_id = "abcd";
  a.views()[0].mapping.memory_start = 0x1000;
  a.views()[0].mapping.memory_limit = 0x9000;
  a.views()[1].function.system_name = "_Z1fv";
  a.views()[1].function.start_line = 40;
  a.views()[2].line = 99;
  Fingerprint fp;
  const uint32_t stack = InternStack(&tables, a.views(), &fp);
  std::vector<LocationView> back;
  tables.StackViews(stack, &back);
  REQUIRE(back.size() == 3);
  std::vector<uint64_t> hashes(3);
  CHECK(stackrec::FingerprintFrames(back, hashes.data()) == fp);
  CHECK(back[0].mapping.build_id == "abcd");
  CHECK(back[0].address == 0x1234);
  CHECK(back[1].function.system_name == "_Z1fv");
  CHECK(back[1].function.start_line == 40);
  CHECK(back[2].line == 99);

  Fingerprint labels_fp;
  const uint32_t labels = InternLabels(&tables, Labels("main", 64), &labels_fp);
  std::vector<LabelView> labels_back;
  tables.LabelViews(labels, &labels_back);
  CHECK(stackrec::FingerprintLabels(labels_back) == labels_fp);
  REQUIRE(labels_back.size() == 2);
  CHECK(labels_back[0].str == "main");
  CHECK(labels_back[1].num == 64);
  CHECK(labels_back[1].num_unit == "bytes");
}

TEST_CASE("a frame with a string that is not UTF-8 names its field and interns no stack") {
  SampleTables tables;
  Stack a("g", 3);
  const std::string bad = "x\xff";
  a.views()[2].function.filename = bad;
  std::vector<uint64_t> hashes(3);
  const Fingerprint fp = stackrec::FingerprintFrames(a.views(), hashes.data());
  uint32_t id = 0;
  const stackrec::Status status = tables.InternStack(a.views(), hashes.data(), fp, &id);
  REQUIRE(status.code() == stackrec::Code::kInvalidArgument);
  CHECK(std::string(stackrec::LastErrorMessage()) ==
        "sample.locations[2].function.filename is not valid UTF-8");
  CHECK(tables.stacks().size() == 1);
  CHECK_FALSE(tables.CachedStack(fp, &id));
}

TEST_CASE("carrying tables over keeps what the keys use, with its cache entries and seeds") {
  SampleTables tables;
  const Stack used("used", 4), unused("unused", 4);
  Fingerprint used_fp, unused_fp, labels_fp, other_labels_fp;
  const uint32_t s_used = InternStack(&tables, used.views(), &used_fp);
  const uint32_t s_unused = InternStack(&tables, unused.views(), &unused_fp);
  const uint32_t l_used = InternLabels(&tables, Labels("a", 1), &labels_fp);
  InternLabels(&tables, Labels("b", 2), &other_labels_fp);
  const SampleKey key{s_used, l_used};

  SampleTables next;
  SampleTables::Carried carried;
  tables.CarryInto(
      &next, [&](absl::FunctionRef<void(SampleKey)> carry) { carry(key); }, &carried);
  CHECK(next.stacks().size() == 2);      // the empty stack and `used`
  CHECK(next.label_sets().size() == 2);  // the empty set and {a, 1}
  CHECK(carried.stacks[s_unused] == SampleTables::Carried::kNotCarried);
  const SampleKey moved{carried.stacks[s_used], carried.label_sets[l_used]};
  uint32_t found = 0;
  REQUIRE(next.CachedStack(used_fp, &found));
  CHECK(found == moved.stack);
  CHECK_FALSE(next.CachedStack(unused_fp, &found));
  REQUIRE(next.CachedLabels(labels_fp, &found));
  CHECK(found == moved.labels);
  CHECK_FALSE(next.CachedLabels(other_labels_fp, &found));
  // A key's tag depends on its seeds only: the same in both tables.
  CHECK(next.KeyTag(moved) == tables.KeyTag(key));
  std::vector<LocationView> back;
  next.StackViews(moved.stack, &back);
  std::vector<uint64_t> hashes(back.size());
  CHECK(stackrec::FingerprintFrames(back, hashes.data()) == used_fp);
  // Only the strings the carried entries use.
  CHECK(next.strings().Find("unused0") == 0);
  CHECK(next.strings().Find("used0") != 0);
}

TEST_CASE("compacted tables free their frame caches and go on interning the same ids") {
  SampleTables tables;
  const Stack a("c", 30), b("d", 30);
  const uint32_t s_a = InternStack(&tables, a.views());
  const size_t before = tables.MemoryBytes();
  tables.Compact();
  CHECK(tables.MemoryBytes() < before);
  // Known stack: still by fingerprint. New stack with known frames: the
  // same locations, looked up through the tables instead of the cache.
  CHECK(InternStack(&tables, a.views()) == s_a);
  const Stack mixed(b, 10, a, 10);
  const size_t locations = tables.locations().size();
  const uint32_t s_mixed = InternStack(&tables, mixed.views());
  CHECK(s_mixed == s_a + 1);
  CHECK(tables.locations().size() == locations + 10);
  const auto frames = tables.stacks().Get(s_mixed);
  const auto a_frames = tables.stacks().Get(s_a);
  CHECK(std::vector<uint32_t>(frames.begin() + 10, frames.end()) ==
        std::vector<uint32_t>(a_frames.begin() + 10, a_frames.end()));
}

TEST_CASE("cleared tables hold nothing but the empty entries, and intern from id 1 again") {
  SampleTables tables;
  InternStack(&tables, Stack("e", 3).views());
  InternLabels(&tables, Labels("x", 1));
  tables.Clear();
  CHECK(tables.stacks().size() == 1);
  CHECK(tables.label_sets().size() == 1);
  CHECK(tables.locations().size() == 1);
  CHECK(tables.strings().size() == 1);
  CHECK(InternStack(&tables, Stack("e", 3).views()) == 1);
}
