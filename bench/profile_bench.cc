// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What a host pays per call of the public C API, measured through that API
// only (the shared library, as a host loads it).
//
//   BM_AddStringFrames/hits    stackrec_profile_add of a 64-frame stack of
//                              string frames the profile already holds: the
//                              steady state of a sampler.
//   BM_AddStringFrames/misses  the same, but every stack is new (its leaf
//                              function is): the warm-up, or a workload that
//                              never repeats itself.
//   BM_AddIds/stack_id         stackrec_profile_add_ids of one of the same
//                              1,000 stacks, pre-interned, by stack id, with
//                              a numeric and a string label.
//   BM_AddIds/location_ids     the same by its 64 location ids.
//   BM_RecordIds               stackrec_recorder_record_ids by stack id, one
//                              sampler thread, no serializer.
//   BM_Serialize/samples:<n>/compression:<c>
//                              stackrec_profile_serialize of a profile of n
//                              (10,000 or 100,000) distinct samples of the
//                              demo's Rails workload (testkit/workloads/
//                              rails_workload.h), compressed with c (0 gzip,
//                              1 none, 2 zstd); "bytes" is the output size.
//
// Run the Release build: build/release/bench/stackrec-bench-profile
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "rails_workload.h"
#include "stackrec/stackrec.h"
#include "stackrec_str.h"

namespace {

constexpr size_t kDepth = 64;
constexpr size_t kTypes = 4;
constexpr size_t kHitStacks = 1000;
// Misses restart from an empty profile after this many adds, out of the timed
// region, so the profile stays the size a real one reaches.
constexpr size_t kMissesPerProfile = 1 << 16;

using stackrec_workloads::Str;

struct ProfileDeleter {
  void operator()(stackrec_profile* p) const { stackrec_profile_free(p); }
};
using ProfilePtr = std::unique_ptr<stackrec_profile, ProfileDeleter>;

// cpu-time, cpu-samples, wall-time, alloc-samples, as a Ruby profiler would.
ProfilePtr NewProfile() {
  const stackrec_value_type types[kTypes] = {{Str("cpu-time"), Str("nanoseconds")},
                                             {Str("cpu-samples"), Str("count")},
                                             {Str("wall-time"), Str("nanoseconds")},
                                             {Str("alloc-samples"), Str("count")}};
  stackrec_profile_options opts = {};
  opts.sample_types = types;
  opts.sample_types_len = kTypes;
  opts.period_type = {Str("wall-time"), Str("nanoseconds")};
  opts.period = 10000000;
  stackrec_profile* profile = nullptr;
  if (stackrec_profile_new(&opts, &profile) != STACKREC_OK) return nullptr;
  return ProfilePtr(profile);
}

// Distinct stacks of kDepth string frames from 512 functions. A stack shares
// its root-side half with a sixteenth of the others, as stacks of one program
// do, and differs towards the leaf; the leaf's line makes each one distinct.
// The strings live as long as the Stacks.
class Stacks {
 public:
  explicit Stacks(size_t count) {
    std::mt19937_64 rng(42);
    for (size_t i = 0; i < 512; ++i) {
      names_.push_back("App::Module" + std::to_string(i % 37) + "::Worker" + std::to_string(i) +
                       "#method_" + std::to_string(i % 11));
      files_.push_back("/app/lib/module" + std::to_string(i % 37) + "/worker" + std::to_string(i) +
                       ".rb");
    }
    frames_.resize(count * kDepth);
    leaf_fn_.resize(count);
    for (size_t s = 0; s < count; ++s) {
      for (size_t f = 0; f < kDepth; ++f) {
        // Root-side half: one of 16 shared prefixes; leaf side: random.
        const size_t fn = f >= kDepth / 2 ? (s % 16 * kDepth / 2 + f) % 512 : rng() % 512;
        stackrec_location& loc = frames_[s * kDepth + f];
        loc = stackrec_location{};
        loc.function.name = Str(names_[fn]);
        loc.function.filename = Str(files_[fn]);
        loc.function.start_line = static_cast<int64_t>(fn % 50 + 1);
        loc.line = f == 0 ? static_cast<int64_t>(1000 + s) : static_cast<int64_t>(fn % 50 + 10 + f);
        if (f == 0) leaf_fn_[s] = fn;
      }
    }
  }
  size_t size() const { return frames_.size() / kDepth; }
  const stackrec_location* operator[](size_t i) const { return &frames_[i * kDepth]; }
  // Gives stack i's leaf frame another function name (not copied: `name`
  // must outlive its use), or with RestoreLeaves() its own again.
  void SetLeafName(size_t i, stackrec_str name) { frames_[i * kDepth].function.name = name; }
  void RestoreLeaves() {
    for (size_t i = 0; i < size(); ++i) {
      frames_[i * kDepth].function.name = Str(names_[leaf_fn_[i]]);
    }
  }

 private:
  std::vector<std::string> names_, files_;
  std::vector<size_t> leaf_fn_;  // each stack's own leaf function
  std::vector<stackrec_location> frames_;
};

stackrec_sample Sample(const stackrec_location* frames, const int64_t* values) {
  stackrec_sample sample = {};
  sample.locations = frames;
  sample.locations_len = kDepth;
  sample.values = values;
  sample.values_len = kTypes;
  return sample;
}

const int64_t kValues[kTypes] = {9500000, 1, 10000000, 0};

enum class Mode { kHits, kMisses };

// Adds each stack once: afterwards, only what a stack changes is new.
bool AddAll(stackrec_profile* profile, const Stacks& stacks) {
  for (size_t i = 0; i < stacks.size(); ++i) {
    const stackrec_sample sample = Sample(stacks[i], kValues);
    if (stackrec_profile_add(profile, &sample) != STACKREC_OK) return false;
  }
  return true;
}

void BM_AddStringFrames(benchmark::State& state, Mode mode) {
  ProfilePtr profile = NewProfile();
  Stacks stacks(kHitStacks);
  if (profile == nullptr || !AddAll(profile.get(), stacks)) {
    return state.SkipWithError(stackrec_last_error());
  }
  // Misses: add k gives its stack the leaf function leaves[k], which no add
  // used since the profile was last reset; the stack's 63 other frames are
  // known, so each add interns one string, function, location and stack.
  std::vector<std::string> leaves;
  if (mode == Mode::kMisses) {
    leaves.reserve(kMissesPerProfile);
    for (size_t i = 0; i < kMissesPerProfile; ++i) {
      leaves.push_back("Leaf#method_" + std::to_string(i));
    }
  }

  size_t next = 0, added = 0;
  for (auto _ : state) {
    if (mode == Mode::kMisses) {
      if (added == kMissesPerProfile) {
        state.PauseTiming();
        stacks.RestoreLeaves();
        if (stackrec_profile_reset(profile.get()) != STACKREC_OK ||
            !AddAll(profile.get(), stacks)) {
          return state.SkipWithError(stackrec_last_error());
        }
        added = 0;
        state.ResumeTiming();
      }
      stacks.SetLeafName(next, Str(leaves[added++]));
    }
    const stackrec_sample sample = Sample(stacks[next], kValues);
    if (stackrec_profile_add(profile.get(), &sample) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    if (++next == stacks.size()) next = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["frames"] = benchmark::Counter(static_cast<double>(state.iterations() * kDepth),
                                                benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_AddStringFrames, hits, Mode::kHits);
BENCHMARK_CAPTURE(BM_AddStringFrames, misses, Mode::kMisses);

// The Stacks, interned into a profile's or a recorder's dictionary through
// the given calls: each stack's location ids and its stack id.
struct InternedStacks {
  std::vector<std::vector<uint32_t>> locations;
  std::vector<uint32_t> stacks;
};

template <typename Handle, typename Fn, typename Loc, typename Stack>
bool Intern(Handle* h, const Stacks& stacks, Fn intern_function, Loc intern_location,
            Stack intern_stack, InternedStacks* out) {
  for (size_t s = 0; s < stacks.size(); ++s) {
    std::vector<uint32_t> ids;
    for (size_t f = 0; f < kDepth; ++f) {
      const stackrec_location& frame = stacks[s][f];
      uint32_t fn = 0, loc = 0;
      if (intern_function(h, &frame.function, &fn) != STACKREC_OK) return false;
      stackrec_interned_location l = {};
      l.function_id = fn;
      l.line = frame.line;
      if (intern_location(h, &l, &loc) != STACKREC_OK) return false;
      ids.push_back(loc);
    }
    uint32_t stack = 0;
    if (intern_stack(h, ids.data(), ids.size(), &stack) != STACKREC_OK) return false;
    out->locations.push_back(std::move(ids));
    out->stacks.push_back(stack);
  }
  return true;
}

const stackrec_label kIdLabels[2] = {{Str("thread id"), {}, 7, {}},
                                     {Str("thread name"), Str("worker-7"), 0, {}}};

// The values and labels of every id sample; the stack is set per call.
stackrec_id_sample IdSample() {
  stackrec_id_sample sample = {};
  sample.values = kValues;
  sample.values_len = kTypes;
  sample.labels = kIdLabels;
  sample.labels_len = 2;
  return sample;
}

// By stack id or location ids with the labels above; or by stack id and
// the id of those labels interned as a label set.
enum class By { kStackId, kStackAndLabelsIds, kLocationIds };

void BM_AddIds(benchmark::State& state, By by) {
  ProfilePtr profile = NewProfile();
  Stacks stacks(kHitStacks);
  InternedStacks ids;
  if (profile == nullptr ||
      !Intern(profile.get(), stacks, stackrec_profile_intern_function,
              stackrec_profile_intern_location, stackrec_profile_intern_stack, &ids)) {
    return state.SkipWithError(stackrec_last_error());
  }
  stackrec_id_sample sample = IdSample();
  if (by == By::kStackAndLabelsIds) {
    if (stackrec_profile_intern_labels(profile.get(), sample.labels, sample.labels_len,
                                       &sample.labels_id) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    sample.labels = nullptr;
    sample.labels_len = 0;
  }
  size_t next = 0;
  for (auto _ : state) {
    if (by != By::kLocationIds) {
      sample.stack_id = ids.stacks[next];
    } else {
      sample.location_ids = ids.locations[next].data();
      sample.location_ids_len = kDepth;
    }
    if (stackrec_profile_add_ids(profile.get(), &sample) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    if (++next == stacks.size()) next = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_AddIds, stack_id, By::kStackId);
BENCHMARK_CAPTURE(BM_AddIds, stack_and_labels_ids, By::kStackAndLabelsIds);
BENCHMARK_CAPTURE(BM_AddIds, location_ids, By::kLocationIds);

void BM_RecordIds(benchmark::State& state, By by) {
  const stackrec_value_type types[kTypes] = {{Str("cpu-time"), Str("nanoseconds")},
                                             {Str("cpu-samples"), Str("count")},
                                             {Str("wall-time"), Str("nanoseconds")},
                                             {Str("alloc-samples"), Str("count")}};
  stackrec_profile_options opts = {};
  opts.sample_types = types;
  opts.sample_types_len = kTypes;
  stackrec_recorder* recorder = nullptr;
  if (stackrec_recorder_new(&opts, &recorder) != STACKREC_OK) {
    return state.SkipWithError(stackrec_last_error());
  }
  Stacks stacks(kHitStacks);
  InternedStacks ids;
  if (!Intern(recorder, stacks, stackrec_recorder_intern_function,
              stackrec_recorder_intern_location, stackrec_recorder_intern_stack, &ids)) {
    stackrec_recorder_free(recorder);
    return state.SkipWithError(stackrec_last_error());
  }
  stackrec_id_sample sample = IdSample();
  if (by == By::kStackAndLabelsIds) {
    if (stackrec_recorder_intern_labels(recorder, sample.labels, sample.labels_len,
                                        &sample.labels_id) != STACKREC_OK) {
      stackrec_recorder_free(recorder);
      return state.SkipWithError(stackrec_last_error());
    }
    sample.labels = nullptr;
    sample.labels_len = 0;
  }
  size_t next = 0;
  for (auto _ : state) {
    sample.stack_id = ids.stacks[next];
    if (stackrec_recorder_record_ids(recorder, &sample) != STACKREC_OK) {
      stackrec_recorder_free(recorder);
      return state.SkipWithError(stackrec_last_error());
    }
    if (++next == stacks.size()) next = 0;
  }
  stackrec_recorder_free(recorder);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_RecordIds, stack_id, By::kStackId);
BENCHMARK_CAPTURE(BM_RecordIds, stack_and_labels_ids, By::kStackAndLabelsIds);

// A profile of `count` distinct samples (distinct stack or labels) of the
// demo's Rails workload: 8 threads, stacks 8 to 128 frames deep, thread and
// span labels, an endpoint per span. Built once per size and kept, since
// building it takes longer than serializing it.
stackrec_profile* SerializeFixture(int64_t count) {
  static auto* fixtures = new std::map<int64_t, ProfilePtr>();
  ProfilePtr& profile = (*fixtures)[count];
  if (profile != nullptr) return profile.get();
  ProfilePtr p = NewProfile();
  if (p == nullptr) return nullptr;
  demo::RailsWorkload workload(/*seed=*/1, /*threads=*/8);
  std::unordered_set<uint64_t> keys;  // what aggregates, as in demo.cc
  stackrec_label labels[3] = {};
  labels[0].key = Str("thread id");
  labels[1].key = Str("thread name");
  labels[2].key = Str("local root span id");
  while (static_cast<int64_t>(keys.size()) < count) {
    const demo::Tick& tick = workload.Next();
    if (tick.request_started &&
        stackrec_profile_set_endpoint(p.get(), static_cast<uint64_t>(tick.span_id),
                                      Str(tick.endpoint)) != STACKREC_OK) {
      return nullptr;
    }
    labels[0].num = tick.thread_id;
    labels[1].str = Str(*tick.thread_name);
    labels[2].num = tick.span_id;
    stackrec_sample sample = {};
    sample.locations = tick.locations;
    sample.locations_len = tick.locations_len;
    sample.values = tick.values;
    sample.values_len = demo::kSampleTypes;
    sample.labels = labels;
    sample.labels_len = tick.span_id == 0 ? 2 : 3;
    if (stackrec_profile_add(p.get(), &sample) != STACKREC_OK) return nullptr;
    keys.insert(uint64_t{tick.stack} << 40 | static_cast<uint64_t>(tick.request) << 8 |
                static_cast<uint64_t>(tick.thread));
  }
  profile = std::move(p);
  return profile.get();
}

void BM_Serialize(benchmark::State& state) {
  stackrec_profile* profile = SerializeFixture(state.range(0));
  if (profile == nullptr) return state.SkipWithError(stackrec_last_error());
  stackrec_serialize_options opts = {};
  opts.compression = static_cast<stackrec_compression>(state.range(1));
  size_t bytes = 0;
  for (auto _ : state) {
    stackrec_encoded* encoded = nullptr;
    if (stackrec_profile_serialize(profile, &opts, &encoded) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    bytes = stackrec_encoded_size(encoded);
    stackrec_encoded_free(encoded);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  static const char* const kNames[] = {"gzip", "none", "zstd"};
  state.SetLabel(kNames[state.range(1)]);
}
BENCHMARK(BM_Serialize)
    ->ArgNames({"samples", "compression"})
    ->ArgsProduct({{100, 10000, 100000},
                   {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_NONE,
                    STACKREC_COMPRESSION_ZSTD}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
