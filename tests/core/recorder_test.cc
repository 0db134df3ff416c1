// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Tests of the C++ core that need more control than the C API gives: an
// injected clock to hold a serialization open.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "input/live_heap_options.h"
#include "oracle/pprof_decode.h"
#include "recorder/recorder.h"

using namespace stackrec_test;

namespace {

// An encoded profile's bytes, for the decoder.
std::string Bytes(const stackrec::EncodedProfile& encoded) {
  return std::string(encoded.bytes.data(), encoded.bytes.size());
}

// A clock for stackrec::Recorder::Serialize that stops inside the
// serialization until released, so a test can call Serialize meanwhile.
std::atomic<bool> clock_entered{false};
std::atomic<bool> clock_release{false};
int64_t BlockingClock() {
  clock_entered.store(true);
  while (!clock_release.load()) std::this_thread::yield();
  return 1000;
}
int64_t FixedClock() { return 2000; }

}  // namespace

TEST_CASE("a second concurrent serialize gets BUSY and does not disturb the first") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 500);
  stackrec::LocationView frame;
  frame.function.name = "f";
  const int64_t one = 1;
  stackrec::SampleView sample;
  sample.locations = absl::MakeConstSpan(&frame, 1);
  sample.values = absl::MakeConstSpan(&one, 1);
  REQUIRE(recorder.Record(sample).ok());

  clock_entered = false;
  clock_release = false;
  stackrec::EncodedProfile first;
  stackrec::Status first_status;
  std::thread serializer([&] { first_status = recorder.Serialize({}, &BlockingClock, &first); });
  while (!clock_entered.load()) std::this_thread::yield();
  stackrec::EncodedProfile second;
  const stackrec::Status busy = recorder.Serialize({}, &FixedClock, &second);
  CHECK(busy.code() == stackrec::Code::kBusy);
  CHECK(std::string(stackrec::LastErrorMessage()).find("another thread is serializing") !=
        std::string::npos);
  CHECK(second.bytes.empty());
  clock_release = true;
  serializer.join();

  REQUIRE(first_status.ok());
  CHECK(first.start_ns == 500);
  CHECK(first.end_ns == 1000);
  const Profile out = Decode(Bytes(first));
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 1);
  // Afterwards serialization works again, starting at the first one's end.
  stackrec::EncodedProfile third;
  REQUIRE(recorder.Serialize({}, &FixedClock, &third).ok());
  CHECK(third.start_ns == 1000);
  CHECK(third.end_ns == 2000);
  CHECK(Decode(Bytes(third)).sample_size() == 0);
}

TEST_CASE("slots keep their tables while they are in use and shed what stops being used") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 500);
  const int64_t one = 1;
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back("function_" + std::to_string(i));
  // Every flip: the same 50 stacks, but each sample with a span id never
  // seen before (a new label set), as requests come and go.
  size_t at_flip_10 = 0, most = 0;
  int64_t span = 0;
  for (int flip = 1; flip <= 60; ++flip) {
    for (int i = 0; i < 500; ++i) {
      stackrec::LocationView frames[2];
      frames[0].function.name = names[static_cast<size_t>(i % 50)];
      frames[1].function.name = "main";
      stackrec::LabelView label;
      label.key = "local root span id";
      label.num = ++span;
      stackrec::SampleView sample;
      sample.locations = absl::MakeConstSpan(frames, 2);
      sample.values = absl::MakeConstSpan(&one, 1);
      sample.labels = absl::MakeConstSpan(&label, 1);
      REQUIRE(recorder.Record(sample).ok());
    }
    stackrec::EncodedProfile out;
    REQUIRE(recorder.Serialize({}, &FixedClock, &out).ok());
    const perftools::profiles::Profile decoded = stackrec_test::Decode(Bytes(out));
    REQUIRE(decoded.sample_size() == 500);
    if (flip == 10) at_flip_10 = recorder.SlotMemoryBytes();
    if (flip > 10) most = std::max(most, recorder.SlotMemoryBytes());
  }
  // Label sets of finished requests are dropped; the rest is kept.
  CHECK(most <= 2 * at_flip_10);
}

TEST_CASE("a slot cleared for the next interval frees its keys' storage") {
  // A recorder clears a slot whose entries are still in use; the slot then
  // waits a whole interval while the other fills, so it must not keep the
  // key index and rows of the interval it had.
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Profile profile(options, 0, 0);
  const int64_t one = 1;
  stackrec::LocationView frame;
  frame.function.name = "work";
  constexpr int kKeys = 20000;
  for (int i = 0; i < kKeys; ++i) {
    stackrec::LabelView label;
    label.key = "thread id";
    label.num = i;
    stackrec::SampleView sample;
    sample.locations = absl::MakeConstSpan(&frame, 1);
    sample.values = absl::MakeConstSpan(&one, 1);
    sample.labels = absl::MakeConstSpan(&label, 1);
    REQUIRE(profile.Add(sample).ok());
  }
  REQUIRE(profile.key_count() == kKeys);
  const size_t full = profile.MemoryBytes();
  profile.ClearSamples(0);
  CHECK(profile.key_count() == 0);
  // Each key held at least its (stack, labels), one value and an index
  // slot (12 bytes and a control byte).
  CHECK(full - profile.MemoryBytes() >= size_t{kKeys} * (8 + 8 + 13));
}

namespace {

// A record hook (Recorder::SetRecordHookForTesting) that stops the one
// thread it is armed for inside its record until released.
struct StopOneSampler {
  std::atomic<bool> armed{false};
  std::atomic<bool> inside{false};
  std::atomic<bool> release{false};
  std::thread::id who;
  static void Hook(void* arg) {
    auto* self = static_cast<StopOneSampler*>(arg);
    if (!self->armed.load() || std::this_thread::get_id() != self->who) return;
    self->armed = false;
    self->inside = true;
    while (!self->release.load()) std::this_thread::yield();
  }
};

// A sample of `name` called from main, with `value` at the one sample type.
struct OneFrameSample {
  std::string name;
  stackrec::LocationView frames[2];
  int64_t value;
  stackrec::SampleView view;
  OneFrameSample(std::string leaf, int64_t v) : name(std::move(leaf)), value(v) {
    frames[0].function.name = name;
    frames[1].function.name = "main";
    view.locations = absl::MakeConstSpan(frames, 2);
    view.values = absl::MakeConstSpan(&value, 1);
  }
};

// The name of a sample's leaf function.
std::string Leaf(const Profile& p, const Sample& s) {
  const auto& location = p.location(static_cast<int>(s.location_id(0) - 1));
  const auto& function = p.function(static_cast<int>(location.line(0).function_id() - 1));
  return p.string_table(static_cast<int>(function.name()));
}

// By leaf function name, the sums of the values at each sample type.
using LeafSums = std::map<std::string, std::vector<int64_t>>;
LeafSums ByLeaf(const Profile& p) {
  LeafSums sums;
  for (const auto& s : p.sample()) {
    std::vector<int64_t>& sum = sums[Leaf(p, s)];
    sum.resize(static_cast<size_t>(p.sample_type_size()), 0);
    for (int i = 0; i < p.sample_type_size(); ++i) sum[static_cast<size_t>(i)] += s.value(i);
  }
  return sums;
}
LeafSums ByLeaf(const stackrec::EncodedProfile& encoded) { return ByLeaf(Decode(Bytes(encoded))); }

}  // namespace

TEST_CASE("a sampler stopped inside a record stops neither the other samplers nor the serializer") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 500);
  StopOneSampler stopper;
  std::atomic<int> failures{0};  // Catch2 asserts on the main thread only
  recorder.SetRecordHookForTesting(&StopOneSampler::Hook, &stopper);

  // The stopped sampler holds its lane from inside its first record.
  std::thread stopped([&] {
    stopper.who = std::this_thread::get_id();
    stopper.armed = true;
    OneFrameSample sample("stopped", 1000);
    OneFrameSample after("stopped_after", 1);
    if (!recorder.Record(sample.view).ok() || !recorder.Record(after.view).ok()) failures++;
  });
  while (!stopper.inside.load()) std::this_thread::yield();

  // Three others record while it is stopped, each in turn and then all
  // together, and a serializer flips and encodes between the rounds.
  constexpr int kOthers = 3;
  constexpr int kRecords = 2000;
  std::map<std::string, int64_t> seen;
  auto serialize = [&] {
    stackrec::EncodedProfile out;
    REQUIRE(recorder.Serialize({}, &FixedClock, &out).ok());
    for (const auto& [leaf, sums] : ByLeaf(out)) seen[leaf] += sums.at(0);
  };
  for (int round = 0; round < 4; ++round) {
    std::vector<std::thread> others;
    for (int t = 0; t < kOthers; ++t) {
      others.emplace_back([&, t] {
        for (int i = 0; i < kRecords; ++i) {
          OneFrameSample sample("other" + std::to_string(t), 1);
          if (!recorder.Record(sample.view).ok()) failures++;
        }
      });
      if (round % 2 == 0) others.back().join();  // one at a time
    }
    for (auto& t : others) {
      if (t.joinable()) t.join();
    }
    serialize();
    serialize();  // both slots: every lane but the stopped one is encoded
    std::map<std::string, int64_t> expected;
    for (int t = 0; t < kOthers; ++t)
      expected["other" + std::to_string(t)] = (round + 1) * kRecords;
    CHECK(seen == expected);
  }
  CHECK(recorder.stats().samples_recorded == static_cast<uint64_t>(4 * kOthers * kRecords + 1));

  // Released, its sample reaches a later profile, whole and once.
  stopper.release = true;
  stopped.join();
  serialize();
  serialize();
  CHECK(seen["stopped"] == 1000);
  CHECK(seen["stopped_after"] == 1);
  CHECK(seen["other0"] == 4 * kRecords);
  const stackrec::RecorderStats stats = recorder.stats();
  CHECK(stats.samples_recorded == static_cast<uint64_t>(4 * kOthers * kRecords + 2));
  CHECK(stats.serializations_ok == 10);
  CHECK(failures == 0);
}

TEST_CASE("64 threads that each record once add lanes only as far as they overlap") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  constexpr int kThreads = 64;
  auto record = [](stackrec::Recorder* recorder, int thread) {
    OneFrameSample sample("work", 1);
    stackrec::LabelView label;
    label.key = "thread id";
    label.num = thread;
    sample.view.labels = absl::MakeConstSpan(&label, 1);
    return recorder->Record(sample.view).ok();
  };
  // One thread recording all 64 samples, and 64 threads recording one each,
  // released together.
  stackrec::Recorder alone(options, 0);
  for (int t = 0; t < kThreads; ++t) REQUIRE(record(&alone, t));
  stackrec::Recorder many(options, 0);
  std::atomic<int> ready{0}, failures{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready++;
      while (!go.load()) std::this_thread::yield();
      if (!record(&many, t)) failures++;
    });
  }
  while (ready.load() < kThreads) std::this_thread::yield();
  go = true;
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  // A lane is added only when every lane is held at once: at most one per
  // thread, and far fewer on a machine with fewer cores than threads.
  const uint32_t lanes = many.LaneCount();
  const size_t bytes = many.SlotMemoryBytes(), alone_bytes = alone.SlotMemoryBytes();
  INFO("lanes " << lanes << ", bytes " << bytes << " against " << alone_bytes << " for one thread");
  CHECK(lanes <= 2 + kThreads - 1);
  CHECK(alone.LaneCount() == 2);
  // Each lane beyond the first costs the first allocation of a profile's
  // tables (about 17 KB here), however much a full slot holds; and nothing
  // is lost or counted twice.
  stackrec::EncodedProfile a, b;
  REQUIRE(many.Serialize({}, &FixedClock, &a).ok());
  const Profile out = Decode(Bytes(a));
  CHECK(out.sample_size() == kThreads);
  int64_t sum = 0;
  for (const auto& s : out.sample()) sum += s.value(0);
  CHECK(sum == kThreads);
  CHECK(bytes <= alone_bytes + (lanes - 2) * 32 * 1024);
}

TEST_CASE("a sampler stopped inside a record by ids stops neither samplers by id nor endpoints") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 500);
  // One stack per leaf, interned once, from one thread.
  std::map<std::string, uint32_t> stacks;
  for (const std::string leaf : {"stopped", "other0", "other1"}) {
    stackrec::FunctionView function;
    function.name = leaf;
    uint32_t function_id = 0, location_id = 0;
    REQUIRE(recorder.InternFunction(function, &function_id).ok());
    REQUIRE(recorder.InternLocation(0, function_id, 0, 0, false, &location_id).ok());
    REQUIRE(recorder.InternStack(absl::MakeConstSpan(&location_id, 1), &stacks[leaf]).ok());
  }
  auto record = [&](const std::string& leaf, int64_t value, uint64_t span) {
    stackrec::LabelView label;
    label.key = "local root span id";
    label.num = static_cast<int64_t>(span);
    stackrec::IdSampleView sample;
    sample.stack_id = stacks.at(leaf);
    sample.values = absl::MakeConstSpan(&value, 1);
    sample.labels = absl::MakeConstSpan(&label, 1);
    return recorder.RecordIds(sample).ok();
  };
  StopOneSampler stopper;
  std::atomic<int> failures{0};
  recorder.SetRecordHookForTesting(&StopOneSampler::Hook, &stopper);
  std::thread stopped([&] {
    stopper.who = std::this_thread::get_id();
    stopper.armed = true;
    if (!record("stopped", 1000, 1)) failures++;
  });
  while (!stopper.inside.load()) std::this_thread::yield();

  constexpr int kRecords = 2000;
  std::vector<std::thread> others;
  for (int t = 0; t < 2; ++t) {
    others.emplace_back([&, t] {
      const uint64_t span = static_cast<uint64_t>(t) + 2;
      if (!recorder.RecordEndpoint(span, "GET /" + std::to_string(t)).ok()) failures++;
      for (int i = 0; i < kRecords; ++i) {
        if (!record("other" + std::to_string(t), 1, span)) failures++;
      }
    });
  }
  for (auto& t : others) t.join();
  // Each leaf's sum, and the endpoint its samples carry.
  std::map<std::string, int64_t> sums;
  std::map<std::string, std::string> endpoints;
  auto serialize = [&] {
    stackrec::EncodedProfile out;
    REQUIRE(recorder.Serialize({}, &FixedClock, &out).ok());
    const Profile p = Decode(Bytes(out));
    for (const auto& [leaf, values] : ByLeaf(p)) sums[leaf] += values.at(0);
    for (const auto& s : p.sample()) {
      for (const auto& l : s.label()) {
        if (p.string_table(static_cast<int>(l.key())) == "trace endpoint") {
          endpoints[Leaf(p, s)] = p.string_table(static_cast<int>(l.str()));
        }
      }
    }
  };
  serialize();
  serialize();
  CHECK(sums == std::map<std::string, int64_t>{{"other0", kRecords}, {"other1", kRecords}});
  CHECK(endpoints ==
        std::map<std::string, std::string>{{"other0", "GET /0"}, {"other1", "GET /1"}});
  stopper.release = true;
  stopped.join();
  serialize();
  serialize();
  CHECK(sums["stopped"] == 1000);
  CHECK(failures == 0);
}

TEST_CASE("the lanes of a slot share its memory cap") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  input.max_memory_bytes = size_t{1} << 20;
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 0);
  // Distinct keys: one stack, a new thread id label each.
  auto record = [&](const std::string& leaf, int64_t thread) {
    OneFrameSample sample(leaf, 1);
    stackrec::LabelView label;
    label.key = "thread id";
    label.num = thread;
    sample.view.labels = absl::MakeConstSpan(&label, 1);
    return recorder.Record(sample.view).ok();
  };
  // The first sampler fills its lane to about half the cap, then stops
  // inside a record, holding that lane.
  StopOneSampler stopper;
  std::atomic<int> failures{0};
  recorder.SetRecordHookForTesting(&StopOneSampler::Hook, &stopper);
  std::atomic<bool> half{false};
  std::thread first([&] {
    int64_t thread = 0;
    while (recorder.SlotMemoryBytes() < options.max_memory_bytes / 2) {
      if (!record("first", thread++)) failures++;
    }
    half = true;
    stopper.who = std::this_thread::get_id();
    stopper.armed = true;
    if (!record("first", -1)) failures++;
  });
  while (!stopper.inside.load()) std::this_thread::yield();
  REQUIRE(half.load());
  const uint64_t over_before = recorder.stats().samples_over_memory;
  // The second sampler gets a lane of its own; its new keys go to the
  // storage-full sample once both lanes together reach the cap, which its
  // lane alone is far from.
  std::thread second([&] {
    for (int64_t thread = 0; thread < 200000; ++thread) {
      if (!record("second", 1000000 + thread)) failures++;
    }
  });
  second.join();
  const uint64_t over = recorder.stats().samples_over_memory - over_before;
  const size_t bytes = recorder.SlotMemoryBytes();
  CHECK(recorder.LaneCount() == 3);
  CHECK(over > 0);
  CHECK(bytes < options.max_memory_bytes + options.max_memory_bytes / 4);
  stopper.release = true;
  first.join();
  CHECK(failures == 0);
}

// A recorder that records cpu-samples and tracks heap-live-samples and
// heap-live-size, with a tracker that its hook stops inside a track.
struct StoppedTracker {
  static stackrec::ProfileOptions Options() {
    stackrec::ProfileOptions input, options;
    input.sample_types = {
        {"cpu-samples", "count"}, {"heap-live-samples", "count"}, {"heap-live-size", "bytes"}};
    REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
    return options;
  }
  static stackrec::LiveHeapOptions Live() {
    stackrec::LiveHeapOptions live_in, live;
    live_in.types = {1, 2};
    REQUIRE(stackrec::MakeLiveHeapOptions(live_in, 3, &live).ok());
    return live;
  }

  bool Track(uint64_t id, const std::string& leaf, int64_t bytes) {
    OneFrameSample sample(leaf, 0);
    const int64_t values[3] = {0, 1, bytes};
    sample.view.values = absl::MakeConstSpan(values, 3);
    return recorder.Track(id, sample.view).ok();
  }
  bool Record(const std::string& leaf) {
    OneFrameSample sample(leaf, 0);
    const int64_t values[3] = {1, 0, 0};
    sample.view.values = absl::MakeConstSpan(values, 3);
    return recorder.Record(sample.view).ok();
  }
  // Per leaf: cpu-samples, heap-live-samples, heap-live-size, of one profile.
  LeafSums Serialize() {
    stackrec::EncodedProfile out;
    REQUIRE(recorder.Serialize({}, &FixedClock, &out).ok());
    return ByLeaf(out);
  }
  // Tracks (id, leaf, bytes) on a thread of its own, and returns once the
  // hook holds that thread inside the track.
  void StopInsideTrack(uint64_t id, const std::string& leaf, int64_t bytes) {
    recorder.SetRecordHookForTesting(&StopOneSampler::Hook, &stopper);
    stopped = std::thread([this, id, leaf, bytes] {
      stopper.who = std::this_thread::get_id();
      stopper.armed = true;
      if (!Track(id, leaf, bytes)) failures++;
    });
    while (!stopper.inside.load()) std::this_thread::yield();
  }
  void Release() {
    stopper.release = true;
    stopped.join();
  }
  // A test that ends early (a failed REQUIRE) still lets its tracker out.
  ~StoppedTracker() {
    if (stopped.joinable()) Release();
  }

  stackrec::Recorder recorder{Options(), 0, Live()};
  StopOneSampler stopper;
  std::thread stopped;
  std::atomic<int> failures{0};
};

TEST_CASE("a tracker stopped inside a track stops neither samplers nor the serializer") {
  StoppedTracker t;
  REQUIRE(t.Track(1, "kept", 100));
  CHECK(t.Serialize() == LeafSums{{"kept", {0, 1, 100}}});

  t.StopInsideTrack(2, "stopped", 40);
  // Records go on, and each serialization encodes them with the totals as
  // of the last heap deltas it could read: object 1 alone.
  for (int round = 0; round < 3; ++round) {
    std::thread sampler([&] {
      for (int i = 0; i < 1000; ++i) {
        if (!t.Record("work")) t.failures++;
      }
    });
    sampler.join();
    CHECK(t.Serialize() == LeafSums{{"kept", {0, 1, 100}}, {"work", {1000, 0, 0}}});
  }
  t.Release();
  // Object 2 joins the totals once its tracker is out, and untracking
  // object 1 takes it out.
  CHECK(t.Serialize() == LeafSums{{"kept", {0, 1, 100}}, {"stopped", {0, 1, 40}}});
  t.recorder.Untrack(1);
  CHECK(t.Serialize() == LeafSums{{"stopped", {0, 1, 40}}});
  CHECK(t.failures == 0);
}

TEST_CASE("a tracker stopped inside a track stops no other tracker") {
  StoppedTracker t;
  REQUIRE(t.Track(1, "kept", 100));
  CHECK(t.Serialize() == LeafSums{{"kept", {0, 1, 100}}});

  t.StopInsideTrack(2, "stopped", 40);
  // Another tracker tracks and frees objects, sharing ids' shards and the
  // content with the stopped one, while it is inside.
  std::atomic<bool> other_done{false};
  std::thread other([&] {
    for (uint64_t i = 0; i < 1000; ++i) {
      if (!t.Track(1000 + i, i % 2 == 0 ? "other" : "stopped", 1)) t.failures++;
    }
    for (uint64_t i = 0; i < 999; ++i) t.recorder.Untrack(1000 + i);
    other_done = true;
  });
  // A liveness bound, not a speed one: trackers that waited for each other
  // would never get here.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!other_done.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  const bool other_finished = other_done.load();
  // While a lane of the heap slot is held, the totals stay as of the last
  // slot absorbed whole.
  CHECK(t.Serialize() == LeafSums{{"kept", {0, 1, 100}}});
  t.Release();
  other.join();
  CHECK(other_finished);
  // Object 1999 (odd: "stopped") is the other tracker's one left.
  CHECK(t.Serialize() == LeafSums{{"kept", {0, 1, 100}}, {"stopped", {0, 2, 41}}});
  CHECK(t.failures == 0);
}
