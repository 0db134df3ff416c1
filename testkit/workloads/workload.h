// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The benchmarks' two workloads, a heavy and a typical one, generated
// deterministically from a seed, so that every run and every machine
// measures the same samples.
//
//   heavy    5,000 functions, 20,000 distinct stacks 8 to 128 frames deep
//            (mean about 70), 1,000,000 samples, about 450,000 distinct
//            (stack, labels) keys.
//   typical  the same program with 5,000 stacks and 100,000 samples, about
//            60,000 distinct keys.
//
// The program: functions are named like `Mod12::Class345#method_678` and
// live in files like `/app/lib/mod12/file_34.rb`. Stacks are paths in one
// random call tree: each new stack branches off an existing one somewhere in
// its root-side half or deeper, so stacks share root-side prefixes as a real
// program's do (every stack starts at the same root); the frames below the
// branch point call functions drawn with a Zipf skew. Samples pick a stack
// with a Zipf skew too.
//
// The samples: 16 threads take samples in turn (thread 0, 1, ..., 15, 0, ...),
// as a sampler ticking every 10 ms does. Each thread's timeline alternates
// idle stretches with requests (local root spans): 2,000 spans, each on one
// thread (span i on thread i % 16), covering half of the samples, each span
// going to one of 200 endpoints (with a skew, each endpoint serving at least
// one span). Labels: `thread id` (numeric), `thread name` (string) and,
// inside a span, `local root span id` (numeric). Values:
// cpu-time (ns), cpu-samples (1), wall-time (ns), alloc-samples (0 or 1).
//
// Everything is precomputed: the frames as stackrec_location records pointing
// into strings the Workload owns, each stack as indices of those records, and
// each sample as a compact record. SampleBuilder turns a sample into the
// stackrec_sample a sampler would hand over, in buffers it reuses, so the
// measured loops spend nothing on generation.
//
// Only std::mt19937_64 is used for randomness (the standard fixes its output;
// it does not fix the std:: distributions, so none is used): the workloads
// are the same with every standard library.
#ifndef STACKREC_WORKLOADS_WORKLOAD_H_
#define STACKREC_WORKLOADS_WORKLOAD_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stackrec/stackrec.h"
#include "stackrec_str.h"

namespace stackrec_bench {

// The sample types, in the order they are declared and their values passed.
enum : size_t { kCpuTime, kCpuSamples, kWallTime, kAllocSamples, kSampleTypes };
extern const char* const kSampleTypeNames[kSampleTypes][2];
inline constexpr int64_t kPeriodNs = 10000000;  // a sample per 10 ms of wall time

inline constexpr size_t kThreads = 16;
inline constexpr size_t kSpans = 2000;
inline constexpr size_t kEndpoints = 200;
inline constexpr size_t kFunctions = 5000;

// The label keys, as the Ruby profiler and tracer name them.
inline constexpr const char* kThreadIdKey = "thread id";
inline constexpr const char* kThreadNameKey = "thread name";
inline constexpr const char* kSpanKey = "local root span id";

struct WorkloadSpec {
  std::string name;
  size_t stacks = 0;
  size_t samples = 0;
  // Stack depths follow a triangular distribution on [min, max] peaking at
  // mode, whose mean is (min + mode + max) / 3; min == max fixes the depth.
  uint32_t min_depth = 8, mode_depth = 74, max_depth = 128;
  // Zipf exponents: of how often a sample hits each stack, and of how often
  // the call tree calls each function.
  double stack_skew = 1.0;
  double function_skew = 1.0;
  // 0: samples follow the threads' timelines (above). Otherwise exactly this
  // many samples, one per distinct key: key k is stack k % stacks with
  // label set k / stacks (a thread, and beyond the first 16 sets a span of
  // that thread). For measuring serialization against the number of keys.
  size_t distinct_keys = 0;
  // Whether every frame's function carries a system name: its name, the
  // same string (as a Go runtime's frames do), so that a sampler passes
  // three strings a frame instead of two. The program and the samples are
  // otherwise those of the spec without.
  bool system_names = false;
  uint64_t seed = 1;
};

// The heavy and typical workloads described at the top.
WorkloadSpec HeavySpec();
WorkloadSpec TypicalSpec();
// Typical's program and samples, every stack exactly `depth` frames deep.
WorkloadSpec DepthSpec(uint32_t depth);
// Heavy's program, `keys` samples each of its own key (see distinct_keys).
WorkloadSpec KeysSpec(size_t keys);
// `spec` with system names (see system_names), named `spec.name` + "_sys".
WorkloadSpec WithSystemNames(WorkloadSpec spec);

// One sampler tick, compact (16 bytes) so that a million of them stay small.
struct Tick {
  enum : uint8_t { kAlloc = 1, kSpanStarts = 2 };
  static constexpr uint16_t kNoSpan = UINT16_MAX;
  uint32_t stack;
  uint32_t cpu_ns;
  uint32_t wall_ns;
  uint16_t span;  // kNoSpan: the thread is not inside a request
  uint8_t thread;
  uint8_t flags;  // kAlloc: alloc-samples is 1; kSpanStarts: the span's first
};

class Workload {
 public:
  explicit Workload(const WorkloadSpec& spec);
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  const WorkloadSpec& spec() const { return spec_; }

  size_t stacks() const { return stack_begin_.size() - 1; }
  uint32_t depth(size_t stack) const { return stack_begin_[stack + 1] - stack_begin_[stack]; }
  // Stack `stack`'s frames, leaf first, as indices into locations().
  const uint32_t* frames(size_t stack) const { return &frame_index_[stack_begin_[stack]]; }
  const std::vector<stackrec_location>& locations() const { return locations_; }
  uint32_t max_depth() const { return max_depth_; }
  double mean_stack_depth() const;  // over the distinct stacks

  const std::vector<Tick>& ticks() const { return ticks_; }
  double mean_sample_depth() const;  // over the samples

  int64_t thread_id(size_t thread) const { return thread_ids_[thread]; }
  const std::string& thread_name(size_t thread) const { return thread_names_[thread]; }
  uint64_t span_id(size_t span) const { return span_ids_[span]; }
  const std::string& span_endpoint(size_t span) const { return endpoints_[span_endpoint_[span]]; }

  // What a correct profile of all the ticks holds: its samples (distinct
  // keys), and the sum of each sample type's values.
  size_t distinct_keys() const { return distinct_keys_; }
  // Of those, the ones inside a span: each gets a `trace endpoint` label.
  size_t distinct_keys_in_spans() const { return distinct_keys_in_spans_; }
  const std::array<int64_t, kSampleTypes>& totals() const { return totals_; }
  size_t functions_used() const { return functions_used_; }

  // One line: samples, stacks, depths, locations, keys.
  std::string Describe() const;

 private:
  void BuildProgram();
  void BuildStacks(uint64_t seed);
  void BuildTimelineTicks(uint64_t seed);
  void BuildDistinctKeyTicks(uint64_t seed);
  void Tally();

  WorkloadSpec spec_;
  // The program. Strings are made first and never change, so the pointers
  // in locations_ stay valid.
  std::vector<std::string> function_names_, function_files_;
  std::vector<int64_t> function_start_lines_;
  std::vector<stackrec_location> locations_;
  std::vector<uint32_t> frame_index_;  // all stacks' frames, leaf first
  std::vector<uint32_t> stack_begin_;  // stack s: [begin[s], begin[s + 1])
  uint32_t max_depth_ = 0;
  // The samples and their labels.
  std::vector<Tick> ticks_;
  std::vector<int64_t> thread_ids_;
  std::vector<std::string> thread_names_;
  std::vector<uint64_t> span_ids_;
  std::vector<uint16_t> span_endpoint_;
  std::vector<std::string> endpoints_;
  // Expectations.
  size_t distinct_keys_ = 0;
  size_t distinct_keys_in_spans_ = 0;
  size_t functions_used_ = 0;
  std::array<int64_t, kSampleTypes> totals_ = {};
};

// The sampler's side: turns a tick into the stackrec_sample a runtime's
// sampler would build, copying the stack's frames into one reused buffer, as
// a sampler fills its frame buffer fresh for every sample. The result is
// valid until the next Build.
class SampleBuilder {
 public:
  explicit SampleBuilder(const Workload& workload);
  const stackrec_sample& Build(const Tick& tick);

 private:
  const Workload& workload_;
  std::vector<stackrec_location> frames_;
  int64_t values_[kSampleTypes] = {};
  stackrec_label labels_[3] = {};
  stackrec_sample sample_ = {};
};

// Label-set ids of a workload's ticks: a thread's outside requests, and a
// span's (0: not interned).
struct LabelSetIds {
  std::vector<uint32_t> thread = std::vector<uint32_t>(256);  // Tick::thread is 8 bits
  std::vector<uint32_t> span = std::vector<uint32_t>(Tick::kNoSpan);
};

// A tick's labels (thread id, thread name and, inside a request, local root
// span id) into `labels`; returns how many.
size_t FillLabels(const Workload& w, const Tick& tick, stackrec_label* labels);

// The id path's sampler side: the same samples as SampleBuilder's, recorded
// by id. `stack_ids` (by stack) and `location_ids` (by location index) are
// what one profile or recorder gave when the workload was interned into it.
// A sample carries its stack id alone, or, with by_location_ids, the stack's
// location ids, copied into one reused buffer per sample as a sampler fills
// its buffer. The result is valid until the next Build.
class IdSampleBuilder {
 public:
  // With `label_sets`, samples carry their tick's label-set id instead of
  // labels.
  IdSampleBuilder(const Workload& workload, const std::vector<uint32_t>& stack_ids,
                  const std::vector<uint32_t>& location_ids, bool by_location_ids,
                  const LabelSetIds* label_sets = nullptr);
  const stackrec_id_sample& Build(const Tick& tick);

 private:
  const Workload& workload_;
  const std::vector<uint32_t>& stack_ids_;
  const std::vector<uint32_t>& location_ids_;
  const bool by_location_ids_;
  const LabelSetIds* const label_sets_;
  std::vector<uint32_t> frames_;
  int64_t values_[kSampleTypes] = {};
  stackrec_label labels_[3] = {};
  stackrec_id_sample sample_ = {};
};

// The profile options every measured implementation uses: the four sample
// types, period 10 ms of wall time.
stackrec_profile_options ProfileOptions();

using stackrec_workloads::Str;

}  // namespace stackrec_bench

#endif  // STACKREC_WORKLOADS_WORKLOAD_H_
