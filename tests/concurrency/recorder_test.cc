// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The recorder under real concurrency: samplers and trackers racing a
// serializer that flips every millisecond, and fork() in the middle of it
// all. Run under
// the tsan preset in CI. The asan preset leaves the fork test out: GCC 12's
// ASan allocator takes no lock around fork(), so a child forked while
// another thread is inside malloc can deadlock in the sanitizer's own
// allocator (glibc's malloc, used everywhere else, is fork-safe).
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

RecorderPtr NewRecorder() { return stackrec_test::NewRecorder(Options().opts); }

// Sums every sample's values of one encoded profile into `totals`.
void AddTotals(const stackrec_encoded* e, std::vector<int64_t>* totals) {
  const Profile p = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  for (const auto& s : p.sample()) {
    for (int i = 0; i < s.value_size(); ++i) (*totals)[static_cast<size_t>(i)] += s.value(i);
  }
}

// A sampler's sample number `i`: one of 64 stacks, one of 4 label sets.
void MakeSample(int thread, uint64_t i, SampleBuilder* b) {
  b->Frame("leaf" + std::to_string(i % 64)).Frame("thread" + std::to_string(thread));
  b->Values({static_cast<int64_t>(i % 1000), 1, 7});
  b->NumLabel("thread id", thread).NumLabel("local root span id", static_cast<int64_t>(i % 4) + 1);
}

// cpu-samples for records; heap-live-samples and heap-live-size tracked.
RecorderPtr NewHeapRecorder() {
  const stackrec_value_type types[] = {
      {S("cpu-samples"), S("count")},
      {S("heap-live-samples"), S("count")},
      {S("heap-live-size"), S("bytes")},
  };
  const size_t live_types[] = {1, 2};
  stackrec_profile_options opts{};
  opts.sample_types = types;
  opts.sample_types_len = 3;
  opts.live_heap_types = live_types;
  opts.live_heap_types_len = 2;
  return stackrec_test::NewRecorder(opts);
}

// Serializes `recorder` and decodes the profile; a negative live total
// (a free counted before its object) clears *never_negative.
Profile TakeChecked(stackrec_recorder* recorder, bool* never_negative) {
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(recorder, nullptr, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  Profile p = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  for (const auto& s : p.sample()) {
    if (s.value(1) < 0 || s.value(2) < 0) *never_negative = false;
  }
  return p;
}

}  // namespace

TEST_CASE("four samplers and a serializer flipping every millisecond lose nothing") {
  auto recorder = NewRecorder();
  constexpr int kSamplers = 4;
  std::atomic<bool> stop{false};
  std::vector<std::vector<int64_t>> recorded(kSamplers, std::vector<int64_t>(3, 0));
  std::vector<uint64_t> failures(kSamplers, 0);
  std::vector<std::thread> samplers;
  for (int t = 0; t < kSamplers; ++t) {
    samplers.emplace_back([&, t] {
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        SampleBuilder b;
        MakeSample(t, i, &b);
        if (i % 50 == 0) {
          const std::string endpoint = "GET /" + std::to_string(i % 4);
          if (stackrec_recorder_record_endpoint(recorder.get(), i % 4 + 1, S(endpoint)) !=
              STACKREC_OK) {
            failures[t]++;
          }
        }
        if (stackrec_recorder_record(recorder.get(), &b.Get()) != STACKREC_OK) {
          failures[t]++;
          continue;
        }
        recorded[t][0] += static_cast<int64_t>(i % 1000);
        recorded[t][1] += 1;
        recorded[t][2] += 7;
      }
    });
  }

  std::vector<int64_t> serialized(3, 0);
  int profiles = 0;
  int64_t previous_end = 0;
  bool tiled = true;
  // At least two seconds and at least 200 flips, whichever is later: the
  // test asserts on what happened, never on how fast.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline || profiles < 200) {
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(recorder.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    if (previous_end != 0 && stackrec_encoded_start_ns(e) != previous_end) tiled = false;
    previous_end = stackrec_encoded_end_ns(e);
    AddTotals(e, &serialized);
    ++profiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop = true;
  for (auto& t : samplers) t.join();
  stackrec_encoded* last = nullptr;
  REQUIRE(stackrec_recorder_serialize(recorder.get(), nullptr, &last) == STACKREC_OK);
  EncodedPtr owned_last(last);
  AddTotals(last, &serialized);

  std::vector<int64_t> expected(3, 0);
  for (const auto& r : recorded) {
    for (size_t i = 0; i < 3; ++i) expected[i] += r[i];
  }
  INFO("profiles: " << profiles << ", samples: " << expected[1]);
  CHECK(failures == std::vector<uint64_t>(kSamplers, 0));
  CHECK(profiles >= 200);
  CHECK(expected[1] > 1000);
  CHECK(serialized == expected);
  CHECK(tiled);
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(recorder.get(), &stats) == STACKREC_OK);
  CHECK(stats.samples_recorded == static_cast<uint64_t>(expected[1]));
  CHECK(stats.serializations_ok == static_cast<uint64_t>(profiles) + 1);
  CHECK(stats.records_rejected == 0);
}

TEST_CASE(
    "samplers tracking and untracking while a serializer flips every millisecond end with exact "
    "live totals") {
  auto recorder = NewHeapRecorder();

  constexpr int kSamplers = 4;
  std::atomic<bool> stop{false};
  // Per thread: object id -> (leaf, size) of what it tracks now.
  std::vector<std::map<uint64_t, std::pair<int, int64_t>>> live(kSamplers);
  std::vector<int64_t> recorded(kSamplers, 0);
  std::vector<uint64_t> failures(kSamplers, 0);
  std::vector<std::thread> samplers;
  for (int t = 0; t < kSamplers; ++t) {
    samplers.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(t) + 1);
      const std::string thread = "thread" + std::to_string(t);
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        const int op = static_cast<int>(rng() % 8);
        // Ids of both threads interleave: the table is shared.
        const uint64_t id = (rng() % 512) * kSamplers + static_cast<uint64_t>(t);
        if (op < 4) {  // track, replacing when the id is live already
          const int leaf = static_cast<int>(rng() % 16);
          const auto size = static_cast<int64_t>(rng() % 4096) + 1;
          SampleBuilder b;
          b.Frame("alloc" + std::to_string(leaf)).Frame(thread).Values({0, 1, size});
          if (stackrec_recorder_track(recorder.get(), id, &b.Get()) != STACKREC_OK) {
            failures[t]++;
            continue;
          }
          live[t][id] = {leaf, size};
        } else if (op < 7) {
          if (stackrec_recorder_untrack(recorder.get(), id) != STACKREC_OK) failures[t]++;
          live[t].erase(id);
        } else {
          SampleBuilder b;
          b.Frame("recorded").Frame(thread).Values({1, 0, 0});
          if (stackrec_recorder_record(recorder.get(), &b.Get()) != STACKREC_OK) {
            failures[t]++;
            continue;
          }
          recorded[t]++;
        }
      }
    });
  }

  // Every profile: no negative live total anywhere (each object's plus
  // reaches the totals before its minus), and the recorded counts add up.
  int64_t serialized_records = 0;
  bool never_negative = true;
  int profiles = 0;
  auto take = [&](std::map<std::pair<std::string, std::string>, std::vector<int64_t>>* heap) {
    const Profile p = TakeChecked(recorder.get(), &never_negative);
    for (const auto& s : p.sample()) {
      serialized_records += s.value(0);
      const auto names = FrameNames(p, s);
      if (heap != nullptr && names.at(0) != "recorded") {
        (*heap)[{names.at(0), names.at(1)}] = {s.value(1), s.value(2)};
      }
    }
    ++profiles;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline || profiles < 200) {
    take(nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop = true;
  for (auto& t : samplers) t.join();
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> heap;
  take(&heap);

  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> expected;
  uint64_t objects = 0;
  int64_t expected_records = 0;
  for (int t = 0; t < kSamplers; ++t) {
    expected_records += recorded[t];
    objects += live[t].size();
    for (const auto& [id, object] : live[t]) {
      auto& v = expected[{"alloc" + std::to_string(object.first), "thread" + std::to_string(t)}];
      v.resize(2);
      v[0] += 1;
      v[1] += object.second;
    }
  }
  INFO("profiles: " << profiles << ", live objects: " << objects);
  CHECK(failures == std::vector<uint64_t>(kSamplers, 0));
  CHECK(profiles >= 200);
  CHECK(objects > 100);
  CHECK(heap == expected);
  CHECK(never_negative);
  CHECK(serialized_records == expected_records);
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(recorder.get(), &stats) == STACKREC_OK);
  CHECK(stats.objects_tracked == objects);
  CHECK(stats.objects_not_tracked == 0);
}

TEST_CASE(
    "objects tracked on some threads and freed or replaced on another end with exact live totals") {
  // Each thread interns its objects' content in a home of its own; here
  // one thread frees and replaces the others' objects while they track
  // more and a serializer flips every millisecond.
  auto recorder = NewHeapRecorder();

  constexpr int kProducers = 2;
  constexpr uint64_t kObjects = 3000;  // per producer
  auto id_of = [](int t, uint64_t n) {
    return 0x7f0000000000u + (n * kProducers + static_cast<uint64_t>(t)) * 64;
  };
  std::mutex handoff_mu;
  std::vector<std::pair<int, uint64_t>> handoff;  // (producer, n) tracked
  std::atomic<int> producing{kProducers};
  std::atomic<uint64_t> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kProducers; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t n = 0; n < kObjects; ++n) {
        SampleBuilder b;
        b.Frame("alloc" + std::to_string(n % 16)).Frame("producer" + std::to_string(t));
        b.Values({0, 1, static_cast<int64_t>(n % 100) + 1});
        if (stackrec_recorder_track(recorder.get(), id_of(t, n), &b.Get()) != STACKREC_OK) {
          failures++;
          continue;
        }
        std::lock_guard<std::mutex> hold(handoff_mu);
        handoff.emplace_back(t, n);
      }
      producing--;
    });
  }
  // The consumer: of each producer's objects, n % 3 == 0 stay, 1 are
  // replaced by an object of its own content, 2 are freed.
  threads.emplace_back([&] {
    for (;;) {
      const bool last_round = producing.load() == 0;
      std::vector<std::pair<int, uint64_t>> batch;
      {
        std::lock_guard<std::mutex> hold(handoff_mu);
        batch.swap(handoff);
      }
      for (const auto& [t, n] : batch) {
        if (n % 3 == 1) {
          SampleBuilder b;
          b.Frame("moved").Frame("consumer").Values({0, 1, 5});
          if (stackrec_recorder_track(recorder.get(), id_of(t, n), &b.Get()) != STACKREC_OK) {
            failures++;
          }
        } else if (n % 3 == 2) {
          if (stackrec_recorder_untrack(recorder.get(), id_of(t, n)) != STACKREC_OK) failures++;
        }
      }
      if (last_round) break;
      if (batch.empty()) std::this_thread::yield();
    }
  });

  using Heap = std::map<std::pair<std::string, std::string>, std::vector<int64_t>>;
  bool never_negative = true;
  int profiles = 0;
  auto take = [&](Heap* heap) {
    const Profile p = TakeChecked(recorder.get(), &never_negative);
    for (const auto& s : p.sample()) {
      const auto names = FrameNames(p, s);
      if (heap != nullptr) (*heap)[{names.at(0), names.at(1)}] = {s.value(1), s.value(2)};
    }
    ++profiles;
  };
  while (producing.load() > 0) {
    take(nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (auto& t : threads) t.join();
  Heap heap;
  take(&heap);

  Heap expected;
  for (int t = 0; t < kProducers; ++t) {
    for (uint64_t n = 0; n < kObjects; ++n) {
      if (n % 3 == 2) continue;
      auto& v = n % 3 == 0
                    ? expected[{"alloc" + std::to_string(n % 16), "producer" + std::to_string(t)}]
                    : expected[{"moved", "consumer"}];
      v.resize(2);
      v[0] += 1;
      v[1] += n % 3 == 0 ? static_cast<int64_t>(n % 100) + 1 : 5;
    }
  }
  INFO("profiles: " << profiles);
  CHECK(failures.load() == 0);
  CHECK(heap == expected);
  CHECK(never_negative);
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(recorder.get(), &stats) == STACKREC_OK);
  CHECK(stats.objects_tracked == 2 * kProducers * kObjects / 3);
}

namespace {

// Runs in a fork() child: the recorder must come back empty and work.
// Returns the child's exit code: 0 when everything checked out.
int ChildChecks(stackrec_recorder* recorder) {
  if (stackrec_recorder_reset_after_fork(recorder) != STACKREC_OK) return 10;
  SampleBuilder b;
  b.Frame("child_leaf").Frame("child_root").Values({11, 1, 22}).NumLabel("thread id", 99);
  for (int i = 0; i < 3; ++i) {
    if (stackrec_recorder_record(recorder, &b.Get()) != STACKREC_OK) return 11;
  }
  stackrec_encoded* e = nullptr;
  if (stackrec_recorder_serialize(recorder, nullptr, &e) != STACKREC_OK) return 12;
  const std::string bytes(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                          stackrec_encoded_size(e));
  stackrec_encoded_free(e);
  Profile p;
  try {
    p = Decode(bytes);
  } catch (...) {
    return 13;
  }
  if (p.sample_size() != 1) return 14;  // nothing of the parent's
  if (p.sample(0).value(0) != 33 || p.sample(0).value(1) != 3 || p.sample(0).value(2) != 66) {
    return 15;
  }
  if (FrameNames(p, p.sample(0)) != std::vector<std::string>{"child_leaf", "child_root"}) {
    return 16;
  }
  stackrec_stats stats{};
  if (stackrec_recorder_stats(recorder, &stats) != STACKREC_OK) return 17;
  if (stats.serializations_ok != 1 || stats.samples_recorded != 3) return 18;
  return 0;
}

}  // namespace

// Under GCC 12's AddressSanitizer (Debian 12's) a fork child hangs in its
// first malloc if another thread of the parent held one of ASan's
// allocator locks at the fork: that runtime registers no fork handler
// (LLVM's gained one in December 2023, llvm/llvm-project#75290), unlike
// glibc's malloc. One child in 30 hung so on a slow day, in operator new
// in the test's own SampleBuilder. Under ASan the parent therefore forks
// while the other threads wait at a gate between two calls, where they
// hold no lock of ASan's; everywhere else (the dev and tsan presets) it
// forks in the middle of their records and serializations.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kForkAtGate = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kForkAtGate = true;
#else
constexpr bool kForkAtGate = false;
#endif
#else
constexpr bool kForkAtGate = false;
#endif

TEST_CASE("fork while other threads record and serialize leaves the child a working recorder") {
  auto recorder = NewRecorder();
  std::atomic<bool> stop{false};
  // kForkAtGate: closed while the parent forks; `parked` counts the threads
  // waiting at it.
  std::atomic<bool> gate_closed{false};
  std::atomic<int> parked{0};
  // Catch2's assertions are for the main thread: the samplers count.
  std::atomic<int> failed_records{0};
  auto wait_at_gate = [&] {
    if (!gate_closed.load()) return;
    parked.fetch_add(1);
    while (gate_closed.load()) std::this_thread::yield();
    parked.fetch_sub(1);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        wait_at_gate();
        SampleBuilder b;
        MakeSample(t, i, &b);
        if (stackrec_recorder_record(recorder.get(), &b.Get()) != STACKREC_OK) failed_records++;
      }
    });
  }
  threads.emplace_back([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      wait_at_gate();
      stackrec_encoded* e = nullptr;
      if (stackrec_recorder_serialize(recorder.get(), nullptr, &e) == STACKREC_OK) {
        stackrec_encoded_free(e);
      }
    }
  });
  auto fork_now = [&] {
    if (!kForkAtGate) return fork();
    gate_closed = true;
    while (parked.load() != static_cast<int>(threads.size())) std::this_thread::yield();
    const pid_t pid = fork();
    gate_closed = false;
    return pid;
  };

  constexpr int kForks = 30;
  int ok_children = 0;
  for (int i = 0; i < kForks; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    const pid_t pid = fork_now();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      alarm(60);  // a hung child fails the test (SIGALRM) instead of hanging it
      _exit(ChildChecks(recorder.get()));
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    INFO("fork " << i << ": wait status " << status);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++ok_children;
  }
  stop = true;
  for (auto& t : threads) t.join();
  CHECK(ok_children == kForks);
  CHECK(failed_records == 0);
  // The parent's recorder is unaffected by its children.
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(recorder.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  CheckInvariants(Decode(stackrec_encoded_data(e), stackrec_encoded_size(e)));
}

TEST_CASE("upscaling rules added while samplers record and a serializer flips apply whole") {
  auto recorder = NewRecorder();
  constexpr int kRules = 64;
  std::vector<std::string> values(kRules);
  for (int j = 0; j < kRules; ++j) values[static_cast<size_t>(j)] = "v" + std::to_string(j);
  std::atomic<bool> stop{false};
  // Catch2's assertions are for the main thread: the others count.
  std::atomic<int> failed_records{0}, failed_rules{0};
  std::atomic<bool> configured{false};
  std::vector<std::thread> samplers;
  for (int t = 0; t < 2; ++t) {
    samplers.emplace_back([&, t] {
      SampleBuilder b[kRules];
      for (int j = 0; j < kRules; ++j) {
        b[j].Frame("f" + std::to_string(t))
            .Values({1, 1, 0})
            .Label("k", values[static_cast<size_t>(j)]);
      }
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        if (stackrec_recorder_record(recorder.get(), &b[i % kRules].Get()) != STACKREC_OK) {
          failed_records++;
        }
      }
    });
  }
  // Rule j scales cpu-time (offset 0) of the samples labelled k=v<j> by
  // j + 2; cpu-samples (offset 1) keeps the raw count beside it.
  std::thread configurer([&] {
    const size_t offsets[] = {0};
    for (int j = 0; j < kRules; ++j) {
      stackrec_upscaling_rule r{};
      r.kind = STACKREC_UPSCALING_PROPORTIONAL;
      r.value_offsets = offsets;
      r.value_offsets_len = 1;
      r.label_key = S("k");
      r.label_str = S(values[static_cast<size_t>(j)]);
      r.total_sampled = 1;
      r.total_real = static_cast<uint64_t>(j) + 2;
      if (stackrec_recorder_add_upscaling_rule(recorder.get(), &r) != STACKREC_OK) failed_rules++;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    configured = true;
  });
  auto check = [&](const stackrec_encoded* e, bool all_scaled) {
    const Profile p = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
    for (const auto& s : p.sample()) {
      const std::string label = StrLabel(p, s, "k");
      const int64_t factor = std::stoll(label.substr(1)) + 2;
      // Each profile is encoded with one set of rules: a value is either
      // as recorded or scaled whole.
      const bool scaled = s.value(0) == s.value(1) * factor;
      CHECK((scaled || (!all_scaled && s.value(0) == s.value(1))));
    }
  };
  // Flip while the rules come in, and at least 20 times whatever the
  // machine's load.
  for (int serializations = 0; !configured.load() || serializations < 20; ++serializations) {
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(recorder.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    check(e, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  configurer.join();
  stop = true;
  for (auto& t : samplers) t.join();
  // Every rule is in by now: the next two profiles (both slots) are scaled.
  for (int i = 0; i < 2; ++i) {
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(recorder.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    check(e, true);
  }
  CHECK(failed_records == 0);
  CHECK(failed_rules == 0);
}
