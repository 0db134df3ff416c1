// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Pre-interned ids under real concurrency: samplers interning and recording
// by id, some with an interned label set (and some with strings), while a
// serializer flips every millisecond and another thread calls forget_ids
// now and then. A sampler whose ids went stale interns its stacks and label
// set again and retries the sample, as a runtime would.
// Run under the tsan preset in CI. Catch2's assertions run on the main
// thread only; the other threads count what went wrong.
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

constexpr int kSamplers = 4;
constexpr int kStacks = 16;
constexpr int kForgets = 5;

bool LastErrorIsStale() {
  return std::string(stackrec_last_error()).find(" is stale (interned before forget_ids)") !=
         std::string::npos;
}

enum class Result { kOk, kStale, kFailed };

Result Check(stackrec_status st) {
  if (st == STACKREC_OK) return Result::kOk;
  return st == STACKREC_INVALID_ARGUMENT && LastErrorIsStale() ? Result::kStale : Result::kFailed;
}

// Sampler t's stacks: "leaf<k>" (Ruby-like, no mapping) called from
// "thread<t>" called from the native "main" in /bin/app, which both samplers
// intern (the same content from two threads).
std::string LeafName(int t, int k) { return "leaf" + std::to_string(k) + "_t" + std::to_string(t); }
std::string ThreadName(int t) { return "thread" + std::to_string(t); }
std::string StackKey(int t, int k) { return LeafName(t, k) + ";" + ThreadName(t) + ";main"; }

struct SamplerIds {
  std::array<uint32_t, kStacks> stacks{};
  std::array<std::array<uint32_t, 3>, kStacks> locations{};  // leaf first
  uint32_t labels = 0;                                       // the label set {thread id: t}
};

Result InternStacks(stackrec_recorder* r, int t, SamplerIds* ids) {
  stackrec_mapping m{};
  m.memory_start = 0x400000;
  m.memory_limit = 0x500000;
  m.filename = S("/bin/app");
  m.build_id = S("abc123");
  uint32_t mapping = 0, main_fn = 0, thread_fn = 0, main_loc = 0, thread_loc = 0;
  stackrec_function f{};
  f.name = S("main");
  Result res;
  if ((res = Check(stackrec_recorder_intern_mapping(r, &m, &mapping))) != Result::kOk) return res;
  if ((res = Check(stackrec_recorder_intern_function(r, &f, &main_fn))) != Result::kOk) return res;
  const std::string thread = ThreadName(t);
  f.name = S(thread);
  f.filename = S("thread.rb");
  if ((res = Check(stackrec_recorder_intern_function(r, &f, &thread_fn))) != Result::kOk)
    return res;
  stackrec_interned_location l{};
  l.mapping_id = mapping;
  l.function_id = main_fn;
  l.address = 0x401000;
  if ((res = Check(stackrec_recorder_intern_location(r, &l, &main_loc))) != Result::kOk) return res;
  l = stackrec_interned_location{};
  l.function_id = thread_fn;
  l.line = 10 + t;
  if ((res = Check(stackrec_recorder_intern_location(r, &l, &thread_loc))) != Result::kOk)
    return res;
  for (int k = 0; k < kStacks; ++k) {
    const std::string leaf = LeafName(t, k);
    f.name = S(leaf);
    f.filename = S("leaf.rb");
    uint32_t leaf_fn = 0, leaf_loc = 0;
    if ((res = Check(stackrec_recorder_intern_function(r, &f, &leaf_fn))) != Result::kOk)
      return res;
    l.function_id = leaf_fn;
    l.line = k;
    if ((res = Check(stackrec_recorder_intern_location(r, &l, &leaf_loc))) != Result::kOk)
      return res;
    ids->locations[static_cast<size_t>(k)] = {leaf_loc, thread_loc, main_loc};
    const auto& locs = ids->locations[static_cast<size_t>(k)];
    if ((res = Check(stackrec_recorder_intern_stack(
             r, locs.data(), 3, &ids->stacks[static_cast<size_t>(k)]))) != Result::kOk) {
      return res;
    }
  }
  stackrec_label label{};
  label.key = S("thread id");
  label.num = t;
  return Check(stackrec_recorder_intern_labels(r, &label, 1, &ids->labels));
}

// Adds every sample's values of one encoded profile to `totals`, by stack
// and labels.
void AddTotals(const stackrec_encoded* e, std::map<std::string, std::vector<int64_t>>* totals,
               bool* frames_ok) {
  const Profile p = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  CheckInvariants(p);
  for (const auto& s : p.sample()) {
    const std::vector<std::string> names = FrameNames(p, s);
    if (names.size() != 3) *frames_ok = false;
    std::string key;
    for (const std::string& n : names) key += (key.empty() ? "" : ";") + n;
    for (const std::string& l : LabelStrings(p, s)) key += " " + l;
    std::vector<int64_t>& v = (*totals)[key];
    v.resize(3);
    for (int i = 0; i < 3; ++i) v[static_cast<size_t>(i)] += s.value(i);
  }
}

}  // namespace

TEST_CASE(
    "samplers recording by id while a serializer flips and forget_ids runs end with exact totals") {
  auto recorder = NewRecorder(Options().opts);
  stackrec_recorder* r = recorder.get();
  std::atomic<bool> stop{false};
  // Per sampler: what it recorded by stack, what went wrong, how often its
  // ids went stale.
  std::vector<std::array<std::array<int64_t, 3>, kStacks>> recorded(kSamplers);
  std::vector<uint64_t> failures(kSamplers, 0), stale(kSamplers, 0), reinterns(kSamplers, 0);
  std::atomic<uint64_t> by_stack_id{0}, by_location_ids{0}, by_strings{0};
  std::vector<std::thread> samplers;
  for (int t = 0; t < kSamplers; ++t) {
    samplers.emplace_back([&, t] {
      SamplerIds ids;
      bool interned = false;
      const std::string thread = ThreadName(t);
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        const int k = static_cast<int>(i % kStacks);
        const int64_t values[3] = {static_cast<int64_t>(i % 1000), 1, 7};
        stackrec_label label{};
        label.key = S("thread id");
        label.num = t;
        // 0: stack id; 1: stack id and label-set id; 2: location ids; 3: strings
        const int way = static_cast<int>(i % 4);
        bool done = false;
        while (!done) {
          if (!interned) {
            const Result res = InternStacks(r, t, &ids);
            if (res == Result::kFailed) {
              failures[static_cast<size_t>(t)]++;
              break;
            }
            if (res == Result::kStale) continue;  // a forget ran mid-way: again
            interned = true;
            reinterns[static_cast<size_t>(t)]++;
          }
          stackrec_status st;
          if (way == 3) {
            SampleBuilder b;
            b.Frame(LeafName(t, k), "leaf.rb", k).Frame(thread, "thread.rb", 10 + t);
            stackrec_location main_loc{};
            main_loc.mapping.memory_start = 0x400000;
            main_loc.mapping.memory_limit = 0x500000;
            main_loc.mapping.filename = S("/bin/app");
            main_loc.mapping.build_id = S("abc123");
            main_loc.function.name = S("main");
            main_loc.address = 0x401000;
            b.Location(main_loc).Values({values[0], values[1], values[2]}).NumLabel("thread id", t);
            st = stackrec_recorder_record(r, &b.Get());
          } else {
            stackrec_id_sample s{};
            if (way < 2) {
              s.stack_id = ids.stacks[static_cast<size_t>(k)];
            } else {
              s.location_ids = ids.locations[static_cast<size_t>(k)].data();
              s.location_ids_len = 3;
            }
            s.values = values;
            s.values_len = 3;
            if (way == 1) {
              s.labels_id = ids.labels;
            } else {
              s.labels = &label;
              s.labels_len = 1;
            }
            st = stackrec_recorder_record_ids(r, &s);
          }
          const Result res = Check(st);
          if (res == Result::kOk) {
            done = true;
          } else if (res == Result::kStale && way != 3) {
            stale[static_cast<size_t>(t)]++;
            interned = false;  // intern again and retry the sample
          } else {
            failures[static_cast<size_t>(t)]++;
            break;
          }
        }
        if (!done) continue;
        (way < 2 ? by_stack_id : way == 2 ? by_location_ids : by_strings)++;
        for (size_t v = 0; v < 3; ++v)
          recorded[static_cast<size_t>(t)][static_cast<size_t>(k)][v] += values[v];
      }
    });
  }
  std::atomic<int> forgets{0}, forget_failures{0};
  std::thread forgetter([&] {
    for (int j = 0; j < kForgets; ++j) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      if (stackrec_recorder_forget_ids(r) == STACKREC_OK) {
        forgets++;
      } else {
        forget_failures++;
      }
    }
  });

  std::map<std::string, std::vector<int64_t>> serialized;
  bool frames_ok = true;
  int profiles = 0;
  int64_t previous_end = 0;
  bool tiled = true;
  auto take = [&] {
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(r, nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    if (previous_end != 0 && stackrec_encoded_start_ns(e) != previous_end) tiled = false;
    previous_end = stackrec_encoded_end_ns(e);
    AddTotals(e, &serialized, &frames_ok);
    ++profiles;
  };
  // At least two seconds, 200 flips and every forget, whichever comes last.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline || profiles < 200 ||
         forgets + forget_failures < kForgets) {
    take();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  forgetter.join();
  // Let the samplers record with the last generation's ids for a while.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  for (auto& t : samplers) t.join();
  take();

  std::map<std::string, std::vector<int64_t>> expected;
  uint64_t samples = 0;
  for (int t = 0; t < kSamplers; ++t) {
    for (int k = 0; k < kStacks; ++k) {
      const auto& v = recorded[static_cast<size_t>(t)][static_cast<size_t>(k)];
      if (v[1] == 0) continue;
      expected[StackKey(t, k) + " thread id=" + std::to_string(t)] = {v[0], v[1], v[2]};
      samples += static_cast<uint64_t>(v[1]);
    }
  }
  INFO("profiles: " << profiles << ", samples: " << samples << " (by stack id " << by_stack_id
                    << ", by location ids " << by_location_ids << ", with strings " << by_strings
                    << "); stale errors per sampler: " << stale[0] << ", " << stale[1]
                    << "; interned " << reinterns[0] << ", " << reinterns[1] << " times");
  CHECK(failures == std::vector<uint64_t>(kSamplers, 0));
  CHECK(forgets == kForgets);
  CHECK(forget_failures == 0);
  CHECK(profiles >= 200);
  CHECK(samples > 1000);
  CHECK(by_location_ids > 0);
  CHECK(by_strings > 0);
  for (int t = 0; t < kSamplers; ++t) {
    // Every forget made this sampler's ids stale (several forgets may fall
    // between two of its samples).
    CHECK(stale[static_cast<size_t>(t)] >= 1);
    CHECK(reinterns[static_cast<size_t>(t)] == stale[static_cast<size_t>(t)] + 1);
  }
  CHECK(frames_ok);
  CHECK(tiled);
  CHECK(serialized == expected);
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(r, &stats) == STACKREC_OK);
  CHECK(stats.samples_recorded == samples);
  CHECK(stats.serializations_ok == static_cast<uint64_t>(profiles));
}
