// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// How long a sampler's stackrec_recorder_record takes, as a distribution,
// with and without a serializer flipping the slots every 20 ms, next to a
// baseline that puts one mutex around one profile (so a sampler that
// arrives during a serialization waits for all of it).
//
//   BM_RecordLatency/impl:0/samplers:S/serializer:F   stackrec's recorder
//   BM_RecordLatency/impl:1/samplers:S/serializer:F   mutex + profile
//
// Each run records for 2 s from S sampler threads (1 or 2) cycling through
// 60,000 distinct (stack, labels) keys of 32 string frames, while a
// serializer (F = 1) serializes every 20 ms from a thread at nice 19. Counters: latency percentiles
// in ns (p50, p99, p99.9, p99.99, max), records per second, failures (any
// non-OK status), and (stackrec only) the mean number of distinct keys per
// serialized profile. Both implementations are warmed up first: every key recorded,
// and for stackrec both slots filled once, so the runs measure the steady
// state rather than the first growth of the tables.
//
// Run the Release build: build/release/bench/stackrec-bench-recorder-latency
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stackrec/stackrec.h"
#include "stackrec_str.h"

namespace {

constexpr size_t kDepth = 32;
constexpr size_t kStacks = 6000;
constexpr size_t kThreadIds = 10;  // kStacks * kThreadIds = 60,000 keys
constexpr auto kRunTime = std::chrono::seconds(2);
constexpr auto kFlipEvery = std::chrono::milliseconds(20);

using stackrec_workloads::Str;

const stackrec_value_type kTypes[] = {
    {Str("cpu-time"), Str("nanoseconds")},
    {Str("cpu-samples"), Str("count")},
    {Str("wall-time"), Str("nanoseconds")},
};

stackrec_profile_options Options() {
  stackrec_profile_options opts = {};
  opts.sample_types = kTypes;
  opts.sample_types_len = 3;
  return opts;
}

// kStacks distinct stacks of kDepth frames, sharing root-side prefixes.
class Workload {
 public:
  Workload() {
    for (size_t i = 0; i < 400; ++i) {
      names_.push_back("App::Service" + std::to_string(i % 23) + "#handler_" + std::to_string(i));
      files_.push_back("/app/services/service_" + std::to_string(i % 23) + ".rb");
    }
    stacks_.resize(kStacks);
    for (size_t s = 0; s < kStacks; ++s) {
      auto& frames = stacks_[s];
      frames.resize(kDepth);
      for (size_t d = 0; d < kDepth; ++d) {
        // Root side (high d) from few functions, leaf side from many.
        const size_t fn = d >= kDepth / 2 ? (s / 97 + d) % 60 : (s * 31 + d * 7) % names_.size();
        stackrec_location& loc = frames[d];
        loc = stackrec_location{};
        loc.function.name = Str(names_[fn]);
        loc.function.filename = Str(files_[fn]);
        loc.line = static_cast<int64_t>(d == 0 ? s : 10 + d);
      }
    }
  }
  const stackrec_location* stack(size_t i) const { return stacks_[i].data(); }

 private:
  std::vector<std::string> names_, files_;
  std::vector<std::vector<stackrec_location>> stacks_;
};

const Workload& TheWorkload() {
  static const Workload* w = new Workload();
  return *w;
}

// Setting up or resetting a recorder cannot fail on a machine that can run
// the benchmark; if it does, there is nothing to measure.
void CheckOk(stackrec_status status, const char* what) {
  if (status == STACKREC_OK) return;
  std::fprintf(stderr, "%s: %s: %s\n", what, stackrec_status_name(status), stackrec_last_error());
  std::abort();
}

// The two recorders behind one interface.
class Recorder {
 public:
  virtual ~Recorder() = default;
  virtual stackrec_status Record(const stackrec_sample* s) = 0;
  // Returns the distinct keys of what it serialized.
  virtual uint64_t Serialize() = 0;
};

class StackrecRecorder final : public Recorder {
 public:
  StackrecRecorder() {
    const stackrec_profile_options opts = Options();
    CheckOk(stackrec_recorder_new(&opts, &r_), "stackrec_recorder_new");
  }
  ~StackrecRecorder() override { stackrec_recorder_free(r_); }
  stackrec_status Record(const stackrec_sample* s) override {
    return stackrec_recorder_record(r_, s);
  }
  uint64_t Serialize() override {
    stackrec_encoded* e = nullptr;
    if (stackrec_recorder_serialize(r_, nullptr, &e) != STACKREC_OK) return 0;
    stackrec_encoded_free(e);
    stackrec_stats stats;
    CheckOk(stackrec_recorder_stats(r_, &stats), "stackrec_recorder_stats");
    return stats.last_distinct_keys;
  }

 private:
  stackrec_recorder* r_ = nullptr;
};

// The baseline: one profile, one mutex, serialize + reset under the lock.
class MutexRecorder final : public Recorder {
 public:
  MutexRecorder() {
    const stackrec_profile_options opts = Options();
    CheckOk(stackrec_profile_new(&opts, &p_), "stackrec_profile_new");
  }
  ~MutexRecorder() override { stackrec_profile_free(p_); }
  stackrec_status Record(const stackrec_sample* s) override {
    std::lock_guard<std::mutex> hold(mu_);
    return stackrec_profile_add(p_, s);
  }
  // The C API does not count a profile's keys; the workload is the same as
  // stackrec's, so its keys_per_profile applies here too.
  uint64_t Serialize() override {
    std::lock_guard<std::mutex> hold(mu_);
    stackrec_encoded* e = nullptr;
    if (stackrec_profile_serialize(p_, nullptr, &e) != STACKREC_OK) return 0;
    stackrec_encoded_free(e);
    CheckOk(stackrec_profile_reset(p_), "stackrec_profile_reset");
    return 0;
  }

 private:
  std::mutex mu_;
  stackrec_profile* p_ = nullptr;
};

struct Sampler {
  std::vector<int64_t> latencies_ns;
  uint64_t failures = 0;
};

// Records key `i` of the 60,000.
stackrec_status RecordKey(Recorder* r, uint64_t i) {
  const int64_t values[3] = {10000000, 1, 10000000};
  stackrec_label label = {};
  label.key = Str("thread id");
  label.num = static_cast<int64_t>(i % kThreadIds);
  stackrec_sample s = {};
  s.locations = TheWorkload().stack((i / kThreadIds) % kStacks);
  s.locations_len = kDepth;
  s.values = values;
  s.values_len = 3;
  s.labels = &label;
  s.labels_len = 1;
  return r->Record(&s);
}

void BM_RecordLatency(benchmark::State& state) {
  const bool baseline = state.range(0) == 1;
  const int samplers = static_cast<int>(state.range(1));
  const bool with_serializer = state.range(2) == 1;
  std::unique_ptr<Recorder> recorder;
  if (baseline) {
    recorder = std::make_unique<MutexRecorder>();
  } else {
    recorder = std::make_unique<StackrecRecorder>();
  }
  // Warm up: every key in the table (both slots for stackrec).
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < kStacks * kThreadIds; ++i) RecordKey(recorder.get(), i);
    if (with_serializer) recorder->Serialize();
  }

  std::vector<Sampler> results(static_cast<size_t>(samplers));
  uint64_t profiles = 0, keys = 0;
  for (auto _ : state) {
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < samplers; ++t) {
      threads.emplace_back([&, t] {
        Sampler& me = results[static_cast<size_t>(t)];
        me.latencies_ns.reserve(8 << 20);
        // Threads walk the keys from different places, as threads of one
        // program sample different code.
        for (uint64_t i = static_cast<uint64_t>(t) * 7919; !stop.load(std::memory_order_relaxed);
             ++i) {
          const auto start = std::chrono::steady_clock::now();
          const stackrec_status st = RecordKey(recorder.get(), i * 7);
          const auto end = std::chrono::steady_clock::now();
          me.latencies_ns.push_back(
              std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
          if (st != STACKREC_OK) me.failures++;
        }
      });
    }
    // The serializer is a background thread at the lowest priority, as a
    // profiler's should be: on a 2-core machine two samplers and an encoding
    // serializer are three busy threads, and the samplers must win.
    std::thread serializer([&] {
      setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
      const auto deadline = std::chrono::steady_clock::now() + kRunTime;
      while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(kFlipEvery);
        if (with_serializer) {
          keys += recorder->Serialize();
          profiles++;
        }
      }
    });
    serializer.join();
    stop = true;
    for (auto& t : threads) t.join();
  }

  std::vector<int64_t> all;
  uint64_t failures = 0;
  for (const Sampler& s : results) {
    all.insert(all.end(), s.latencies_ns.begin(), s.latencies_ns.end());
    failures += s.failures;
  }
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    if (all.empty()) return 0.0;
    const size_t i =
        std::min(all.size() - 1, static_cast<size_t>(p * static_cast<double>(all.size())));
    return static_cast<double>(all[i]);
  };
  state.counters["p50_ns"] = pct(0.50);
  state.counters["p99_ns"] = pct(0.99);
  state.counters["p99.9_ns"] = pct(0.999);
  state.counters["p99.99_ns"] = pct(0.9999);
  state.counters["max_ns"] = all.empty() ? 0.0 : static_cast<double>(all.back());
  state.counters["records_per_s"] =
      static_cast<double>(all.size()) / std::chrono::duration<double>(kRunTime).count();
  state.counters["failures"] = static_cast<double>(failures);
  state.counters["keys_per_profile"] =
      profiles == 0 ? 0.0 : static_cast<double>(keys) / static_cast<double>(profiles);
}

BENCHMARK(BM_RecordLatency)
    ->ArgNames({"impl", "samplers", "serializer"})
    ->ArgsProduct({{0, 1}, {1, 2}, {0, 1}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
