// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Live-heap tracking in the C++ core, where a test can make an encoding
// fail after the flip and read byte counts: no double counting after a
// failure, bounded memory under code that keeps changing, and the object
// table against a model.
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "catch2/catch.hpp"
#include "input/live_heap_options.h"
#include "live_heap/object_table.h"
#include "oracle/pprof_decode.h"
#include "recorder/recorder.h"

using namespace stackrec_test;

namespace {

int64_t Clock() {
  static int64_t now = 1000;
  return now += 1000;
}

struct Heap {
  stackrec::ProfileOptions options;
  stackrec::LiveHeapOptions live;
  Heap() {
    stackrec::ProfileOptions input;
    input.sample_types = {{"heap-live-samples", "count"}, {"heap-live-size", "bytes"}};
    REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
    stackrec::LiveHeapOptions in;
    in.types = {0, 1};
    REQUIRE(stackrec::MakeLiveHeapOptions(in, 2, &live).ok());
  }
};

// Tracks `id` at a one-frame stack `leaf` with `bytes`.
void Track(stackrec::Recorder& r, uint64_t id, const std::string& leaf, int64_t bytes) {
  stackrec::LocationView frame;
  frame.function.name = leaf;
  const int64_t values[2] = {1, bytes};
  stackrec::SampleView sample;
  sample.locations = absl::MakeConstSpan(&frame, 1);
  sample.values = absl::MakeConstSpan(values, 2);
  const stackrec::Status st = r.Track(id, sample);
  INFO(stackrec::LastErrorMessage());
  REQUIRE(st.ok());
}

// Leaf name -> values of one serialization.
std::map<std::string, std::vector<int64_t>> Serialize(stackrec::Recorder& r) {
  stackrec::EncodedProfile out;
  const stackrec::Status st = r.Serialize({}, &Clock, &out);
  INFO(stackrec::LastErrorMessage());
  REQUIRE(st.ok());
  const Profile p = Decode(reinterpret_cast<const uint8_t*>(out.bytes.data()), out.bytes.size());
  CheckInvariants(p);
  std::map<std::string, std::vector<int64_t>> totals;
  for (const auto& s : p.sample()) {
    const std::string leaf = FrameNames(p, s).at(0);
    CHECK(totals.count(leaf) == 0);
    totals[leaf] = std::vector<int64_t>(s.value().begin(), s.value().end());
  }
  return totals;
}

}  // namespace

TEST_CASE("a failed serialization does not count tracked objects twice") {
  Heap h;
  stackrec::Recorder r(h.options, 0, h.live);
  Track(r, 1, "kept", 100);
  Track(r, 2, "freed_before_failure", 5);
  CHECK(Serialize(r) == std::map<std::string, std::vector<int64_t>>{
                            {"kept", {1, 100}}, {"freed_before_failure", {1, 5}}});
  Track(r, 3, "new_in_failed_interval", 7);
  r.Untrack(2);
  // A gzip level the compressor refuses: the encoding fails after the flip, once the
  // deltas were folded into the totals and the totals into the slot.
  stackrec::SerializeOptions broken;
  broken.level = 42;
  stackrec::EncodedProfile failed;
  CHECK(!r.Serialize(broken, &Clock, &failed).ok());
  CHECK(failed.bytes.empty());
  // Twice, so that both slots have seen a failure.
  CHECK(!r.Serialize(broken, &Clock, &failed).ok());
  Track(r, 4, "after_failure", 9);
  const std::map<std::string, std::vector<int64_t>> expected{
      {"kept", {1, 100}}, {"new_in_failed_interval", {1, 7}}, {"after_failure", {1, 9}}};
  CHECK(Serialize(r) == expected);
  CHECK(Serialize(r) == expected);
  CHECK(Serialize(r) == expected);
  CHECK(r.stats().serializations_failed == 2);
}

TEST_CASE("memory for tracking stays bounded when every cycle's stacks are new") {
  Heap h;
  stackrec::Recorder r(h.options, 0, h.live);
  // A long-lived object beside the churn: its key must survive every
  // freeing of the others' content and every compaction of the totals,
  // with its value.
  Track(r, ~uint64_t{0}, "long_lived", 1);
  size_t after_warmup = 0, most = 0;
  constexpr int kCycles = 300, kWarmup = 30, kObjects = 200;
  // Address-like ids a page apart, as sampled objects in a large heap
  // are: shards go by page, and by the end of the warm-up every shard has
  // held objects (and kept a chunk of records for the next ones).
  auto id = [](int cycle, int i) {
    return 0x7f0000000000u + static_cast<uint64_t>(cycle * kObjects + i) * 4096;
  };
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    // New function names every cycle (a program whose code keeps
    // changing); objects live across a serialization, then are freed.
    for (int i = 0; i < kObjects; ++i) {
      Track(r, id(cycle, i), "fn_" + std::to_string(cycle) + "_" + std::to_string(i % 50), i);
    }
    const auto live = Serialize(r);
    REQUIRE(live.size() == 51);
    CHECK(live.at("long_lived") == std::vector<int64_t>{1, 1});
    for (int i = 0; i < kObjects; ++i) r.Untrack(id(cycle, i));
    CHECK(Serialize(r).size() == 1);
    if (cycle == kWarmup) after_warmup = r.LiveHeapMemoryBytes();
    if (cycle > kWarmup) most = std::max(most, r.LiveHeapMemoryBytes());
  }
  INFO("after warm-up " << after_warmup << " bytes, most after " << most);
  CHECK(most <= 2 * after_warmup);
  CHECK(r.stats().objects_tracked == 1);
}

TEST_CASE("objects keep their stacks when freed content's numbers are reused within an interval") {
  Heap h;
  stackrec::Recorder r(h.options, 0, h.live);
  // Distinct leaves, then most of them freed in the same interval: their
  // content blobs go, and new content takes their numbers while the heap
  // lane still remembers rows under the old ones.
  constexpr int kObjects = 200, kKept = 10;
  for (int i = 0; i < kObjects; ++i) Track(r, i, "old_" + std::to_string(i), i + 1);
  for (int i = kKept; i < kObjects; ++i) r.Untrack(i);
  // New keys take numbers that old keys had.
  for (int i = 0; i < kObjects; ++i) Track(r, 1000 + i, "new_" + std::to_string(i), 1000 + i);
  for (int i = 0; i < kKept / 2; ++i) r.Untrack(i);
  for (int i = 0; i < kObjects; i += 2) r.Untrack(1000 + i);
  std::map<std::string, std::vector<int64_t>> expected;
  for (int i = kKept / 2; i < kKept; ++i) expected["old_" + std::to_string(i)] = {1, i + 1};
  for (int i = 1; i < kObjects; i += 2) expected["new_" + std::to_string(i)] = {1, 1000 + i};
  CHECK(Serialize(r) == expected);
  CHECK(Serialize(r) == expected);
  CHECK(r.stats().objects_tracked == expected.size());
}

TEST_CASE("the object table agrees with a map through inserts, replacements and erases") {
  constexpr size_t kWidth = 2;
  stackrec::ObjectTable table(kWidth, 1 << 20);
  std::unordered_map<uint64_t, std::pair<uint32_t, int64_t>> model;
  std::mt19937_64 rng(7);
  std::vector<uint64_t> ids;
  auto check = [&](uint64_t id) {
    const uint32_t r = table.Find(id);
    auto it = model.find(id);
    if (it == model.end()) {
      CHECK(r == stackrec::ObjectTable::kNone);
      return;
    }
    REQUIRE(r != stackrec::ObjectTable::kNone);
    CHECK(table.key(r) == it->second.first);
    int64_t v[kWidth];
    table.values(r, v);
    CHECK(v[0] == it->second.second);
    CHECK(v[1] == -it->second.second);
  };
  for (int step = 0; step < 200000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 5 || ids.empty()) {
      // Addresses: 16-byte aligned, clustered, as a runtime's would be.
      const uint64_t id = 0x7f0000000000u + (rng() % 100000) * 16;
      const auto key = static_cast<uint32_t>(rng() % 1000);
      const auto value = static_cast<int64_t>(rng() % 1000000);
      const int64_t v[kWidth] = {value, -value};
      const uint32_t r = table.Find(id);
      if (r == stackrec::ObjectTable::kNone) {
        table.Reserve();
        table.Insert(id, key, v);
        ids.push_back(id);
      } else {
        table.Set(r, key, v);
      }
      model[id] = {key, value};
    } else if (op < 9) {
      const size_t i = rng() % ids.size();
      const uint64_t id = ids[i];
      ids[i] = ids.back();
      ids.pop_back();
      const uint32_t r = table.Find(id);
      if (r != stackrec::ObjectTable::kNone) table.Erase(r);
      model.erase(id);
    } else {
      check(rng());  // almost surely absent
    }
    if (step % 1000 == 0) {
      REQUIRE(table.size() == model.size());
      for (const auto& [id, entry] : model) check(id);
    }
  }
  // Erasing everything gives the memory back but for one spare chunk of
  // records (kept so that a boundary does not free and allocate a chunk
  // per call) and a minimal index.
  CHECK(table.MemoryBytes() > 2 * stackrec::ObjectTable::kChunkRecords * (12 + 8 * kWidth));
  for (uint64_t id : ids) {
    const uint32_t r = table.Find(id);
    if (r != stackrec::ObjectTable::kNone) table.Erase(r);
  }
  CHECK(table.size() == 0);
  CHECK(table.MemoryBytes() <= stackrec::ObjectTable::kChunkRecords * (12 + 8 * kWidth) + 1024);
}
