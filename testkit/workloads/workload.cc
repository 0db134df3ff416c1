// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace stackrec_bench {

const char* const kSampleTypeNames[kSampleTypes][2] = {{"cpu-time", "nanoseconds"},
                                                       {"cpu-samples", "count"},
                                                       {"wall-time", "nanoseconds"},
                                                       {"alloc-samples", "count"}};

namespace {

// Tuned so that the workloads land near their target key counts: heavy
// ~450,000 distinct keys, typical ~60,000 (Describe() prints the actual).
constexpr double kHeavyStackSkew = 1.0;
constexpr double kTypicalStackSkew = 1.0;
constexpr double kFunctionSkew = 1.0;
// Lines per function a frame can be at (each (function, line) is one
// location): with the Zipf skew, hot functions show most of their lines.
constexpr uint64_t kLinesPerFunction = 12;

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  // Uniform in [0, n); the modulo bias is below 2^-40 for the n used here.
  uint64_t Below(uint64_t n) { return engine_() % n; }
  double Unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }

 private:
  std::mt19937_64 engine_;
};

// Draws 0..n-1 with probability proportional to 1 / (i + 1)^skew.
class Zipf {
 public:
  Zipf(size_t n, double skew) : cdf_(n) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      sum += std::pow(static_cast<double>(i + 1), -skew);
      cdf_[i] = sum;
    }
  }
  size_t Draw(Rng& rng) const {
    const double u = rng.Unit() * cdf_.back();
    const size_t i =
        static_cast<size_t>(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
    return std::min(i, cdf_.size() - 1);
  }

 private:
  std::vector<double> cdf_;
};

// A random permutation of 0..n-1, so that popularity (a Zipf rank) is not
// tied to an index's other properties (its module, its place in the tree).
std::vector<uint32_t> Permutation(size_t n, Rng& rng) {
  std::vector<uint32_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint32_t>(i);
  for (size_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng.Below(i)]);
  return p;
}

// Splits `total` into `parts` non-negative lengths of random weights in
// [0.25, 1.75) (so most requests and idle stretches are of middling length).
std::vector<size_t> Split(size_t total, size_t parts, Rng& rng) {
  std::vector<double> w(parts);
  double sum = 0;
  for (double& x : w) sum += x = 0.25 + 1.5 * rng.Unit();
  std::vector<size_t> lengths(parts);
  double cum = 0;
  size_t given = 0;
  for (size_t i = 0; i < parts; ++i) {
    cum += w[i];
    const size_t upto =
        i + 1 == parts ? total : static_cast<size_t>(cum / sum * static_cast<double>(total));
    lengths[i] = upto - given;
    given = upto;
  }
  return lengths;
}

// A triangular distribution on [lo, hi] with its peak at mode.
uint32_t TriangularDepth(uint32_t lo, uint32_t mode, uint32_t hi, Rng& rng) {
  if (lo >= hi) return lo;
  const double a = lo, b = hi + 1.0, c = mode + 0.5;  // +1: hi is reachable
  const double u = rng.Unit();
  const double f = (c - a) / (b - a);
  const double x =
      u < f ? a + std::sqrt(u * (b - a) * (c - a)) : b - std::sqrt((1 - u) * (b - a) * (b - c));
  return std::min(hi, std::max(lo, static_cast<uint32_t>(x)));
}

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

std::string Thousands(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

}  // namespace

WorkloadSpec HeavySpec() {
  WorkloadSpec s;
  s.name = "heavy";
  s.stacks = 20000;
  s.samples = 1000000;
  s.stack_skew = kHeavyStackSkew;
  s.function_skew = kFunctionSkew;
  s.seed = 20260401;
  return s;
}

WorkloadSpec TypicalSpec() {
  WorkloadSpec s;
  s.name = "typical";
  s.stacks = 5000;
  s.samples = 100000;
  s.stack_skew = kTypicalStackSkew;
  s.function_skew = kFunctionSkew;
  s.seed = 20260402;
  return s;
}

WorkloadSpec DepthSpec(uint32_t depth) {
  WorkloadSpec s = TypicalSpec();
  s.name = "depth " + std::to_string(depth);
  s.min_depth = s.mode_depth = s.max_depth = depth;
  return s;
}

WorkloadSpec KeysSpec(size_t keys) {
  WorkloadSpec s = HeavySpec();
  s.name = Thousands(keys) + " keys";
  s.samples = keys;
  s.distinct_keys = keys;
  return s;
}

WorkloadSpec WithSystemNames(WorkloadSpec spec) {
  spec.name += "_sys";
  spec.system_names = true;
  return spec;
}

Workload::Workload(const WorkloadSpec& spec) : spec_(spec) {
  // Independent streams for the parts, so that changing how samples are
  // drawn does not change the program, and vice versa.
  BuildProgram();
  BuildStacks(Mix(spec.seed ^ 2));
  if (spec.distinct_keys == 0) {
    BuildTimelineTicks(Mix(spec.seed ^ 3));
  } else {
    BuildDistinctKeyTicks(Mix(spec.seed ^ 4));
  }
  Tally();
}

void Workload::BuildProgram() {
  // The names follow from the index; which functions are hot is decided by
  // BuildStacks.
  function_names_.reserve(kFunctions);
  function_files_.reserve(kFunctions);
  for (size_t i = 0; i < kFunctions; ++i) {
    // 8 methods a class, classes spread over 40 modules, one file a class.
    const size_t cls = i / 8, mod = cls % 40, file = cls / 40;
    function_names_.push_back("Mod" + std::to_string(mod) + "::Class" + std::to_string(cls) +
                              "#method_" + std::to_string(i));
    function_files_.push_back("/app/lib/mod" + std::to_string(mod) + "/file_" +
                              std::to_string(file) + ".rb");
    function_start_lines_.push_back(static_cast<int64_t>(10 + (i % 8) * 30));
  }
}

void Workload::BuildStacks(uint64_t seed) {
  Rng rng(seed);
  const Zipf function_zipf(kFunctions, spec_.function_skew);
  const std::vector<uint32_t> function_of_rank = Permutation(kFunctions, rng);

  // Locations are (function, line) pairs, made when a frame first uses one.
  std::unordered_map<uint64_t, uint32_t> location_index;
  auto new_frame = [&]() -> uint32_t {
    const uint32_t fn = function_of_rank[function_zipf.Draw(rng)];
    const uint64_t line_offset = 1 + rng.Below(kLinesPerFunction);
    const auto [it, fresh] = location_index.try_emplace(uint64_t{fn} * 64 + line_offset,
                                                        static_cast<uint32_t>(locations_.size()));
    if (fresh) {
      stackrec_location loc = {};
      loc.function.name = Str(function_names_[fn]);
      if (spec_.system_names) loc.function.system_name = loc.function.name;
      loc.function.filename = Str(function_files_[fn]);
      loc.function.start_line = function_start_lines_[fn];
      loc.line = function_start_lines_[fn] + static_cast<int64_t>(line_offset);
      locations_.push_back(loc);
    }
    return it->second;
  };

  // Stacks root first while growing the tree: stack i copies a root-side
  // prefix of an earlier stack (at least half of it, so the tree is deep and
  // bushy like a real program's) and calls fresh frames below it.
  std::vector<std::vector<uint32_t>> paths(spec_.stacks);
  std::unordered_set<uint64_t> seen;
  std::vector<uint32_t> path;
  for (size_t i = 0; i < spec_.stacks; ++i) {
    const uint32_t depth = TriangularDepth(spec_.min_depth, spec_.mode_depth, spec_.max_depth, rng);
    for (;;) {
      path.clear();
      if (i > 0) {
        const std::vector<uint32_t>& parent = paths[rng.Below(i)];
        const size_t m = std::min<size_t>(parent.size(), depth - 1);
        const size_t shared = m - rng.Below(m / 2 + 1);
        path.assign(parent.begin(), parent.begin() + static_cast<ptrdiff_t>(shared));
      }
      while (path.size() < depth) path.push_back(new_frame());
      uint64_t h = path.size();
      for (uint32_t f : path) h = Mix(h ^ f);
      if (seen.insert(h).second) break;  // a new stack; else draw again
    }
    paths[i] = path;
  }

  stack_begin_.reserve(spec_.stacks + 1);
  stack_begin_.push_back(0);
  for (const std::vector<uint32_t>& p : paths) {
    frame_index_.insert(frame_index_.end(), p.rbegin(), p.rend());  // leaf first
    stack_begin_.push_back(static_cast<uint32_t>(frame_index_.size()));
    max_depth_ = std::max(max_depth_, static_cast<uint32_t>(p.size()));
  }
  std::unordered_set<const char*> used;
  for (const stackrec_location& loc : locations_) used.insert(loc.function.name.ptr);
  functions_used_ = used.size();
}

namespace {

// Labels and values common to both kinds of samples.
struct TickMaker {
  Rng& rng;
  Tick Make(uint32_t stack, size_t thread, uint16_t span) {
    Tick t = {};
    t.stack = stack;
    t.thread = static_cast<uint8_t>(thread);
    t.span = span;
    // Wall time is the 10 ms period with jitter; cpu-time is a part of it,
    // a small one for a thread waiting between requests.
    t.wall_ns = static_cast<uint32_t>(kPeriodNs - 50000 + static_cast<int64_t>(rng.Below(100000)));
    t.cpu_ns = static_cast<uint32_t>(span == Tick::kNoSpan ? rng.Below(t.wall_ns / 20)
                                                           : rng.Below(t.wall_ns + 1));
    t.flags = rng.Chance(0.25) ? Tick::kAlloc : 0;
    return t;
  }
};

// The labels' values: thread ids like a Linux tid, span ids like a tracer's
// random 63-bit ids, endpoints like a Rails app's routes.
void MakeLabelValues(Rng& rng, std::vector<int64_t>& thread_ids,
                     std::vector<std::string>& thread_names, std::vector<uint64_t>& span_ids,
                     std::vector<uint16_t>& span_endpoint, std::vector<std::string>& endpoints) {
  for (size_t t = 0; t < kThreads; ++t) {
    thread_ids.push_back(static_cast<int64_t>(41200 + 3 * t));
    char name[32];
    std::snprintf(name, sizeof name, "puma srv tp %03zu", t + 1);
    thread_names.push_back(name);
  }
  static const char* const kVerbs[] = {"GET", "GET", "POST", "PUT", "DELETE"};
  for (size_t e = 0; e < kEndpoints; ++e) {
    endpoints.push_back(std::string(kVerbs[e % 5]) + " /api/v" + std::to_string(1 + e % 2) +
                        "/mod" + std::to_string(e % 40) + "/resource_" + std::to_string(e) +
                        (e % 3 == 0 ? "/:id" : ""));
  }
  const Zipf endpoint_zipf(kEndpoints, 1.0);
  std::unordered_set<uint64_t> unique;
  for (size_t s = 0; s < kSpans; ++s) {
    uint64_t id;
    do {
      id = (rng.Next() >> 1) | 1;  // positive as an int64, never 0
    } while (!unique.insert(id).second);
    span_ids.push_back(id);
    span_endpoint.push_back(static_cast<uint16_t>(endpoint_zipf.Draw(rng)));
  }
  // The skew leaves a few endpoints without a span (12 of typical's 200):
  // each takes the last span of the endpoint with the most, so that all
  // 200 are served, as the workloads promise. No draw from `rng`, so the ticks made
  // after this are the same as without it.
  std::vector<size_t> spans_of(kEndpoints);
  for (uint16_t e : span_endpoint) ++spans_of[e];
  for (size_t e = 0; e < kEndpoints; ++e) {
    if (spans_of[e] != 0) continue;
    const size_t most =
        static_cast<size_t>(std::max_element(spans_of.begin(), spans_of.end()) - spans_of.begin());
    size_t s = kSpans;
    while (span_endpoint[--s] != most) {
    }
    span_endpoint[s] = static_cast<uint16_t>(e);
    --spans_of[most];
    spans_of[e] = 1;
  }
}

}  // namespace

void Workload::BuildTimelineTicks(uint64_t seed) {
  Rng rng(seed);
  MakeLabelValues(rng, thread_ids_, thread_names_, span_ids_, span_endpoint_, endpoints_);
  const Zipf stack_zipf(spec_.stacks, spec_.stack_skew);
  const std::vector<uint32_t> stack_of_rank = Permutation(spec_.stacks, rng);

  // Each thread's timeline: idle, span, idle, span, ..., idle; its spans
  // (t, t + 16, t + 32, ...) in order, covering half of its samples.
  std::vector<std::vector<uint16_t>> timeline(kThreads);
  for (size_t t = 0; t < kThreads; ++t) {
    const size_t n = spec_.samples / kThreads + (t < spec_.samples % kThreads);
    std::vector<uint16_t> spans;
    for (size_t s = t; s < kSpans; s += kThreads) spans.push_back(static_cast<uint16_t>(s));
    const std::vector<size_t> busy = Split(n / 2, spans.size(), rng);
    const std::vector<size_t> idle = Split(n - n / 2, spans.size() + 1, rng);
    std::vector<uint16_t>& line = timeline[t];
    line.reserve(n);
    for (size_t k = 0; k <= spans.size(); ++k) {
      line.insert(line.end(), idle[k], Tick::kNoSpan);
      if (k < spans.size()) line.insert(line.end(), busy[k], spans[k]);
    }
  }

  TickMaker maker{rng};
  std::vector<size_t> next(kThreads, 0);
  std::vector<bool> started(kSpans, false);
  ticks_.reserve(spec_.samples);
  for (size_t i = 0; i < spec_.samples; ++i) {
    const size_t t = i % kThreads;  // the threads take turns, as in a sampler
    const uint16_t span = timeline[t][next[t]++];
    Tick tick = maker.Make(stack_of_rank[stack_zipf.Draw(rng)], t, span);
    if (span != Tick::kNoSpan && !started[span]) {
      started[span] = true;
      tick.flags |= Tick::kSpanStarts;
    }
    ticks_.push_back(tick);
  }
}

void Workload::BuildDistinctKeyTicks(uint64_t seed) {
  Rng rng(seed);
  MakeLabelValues(rng, thread_ids_, thread_names_, span_ids_, span_endpoint_, endpoints_);
  TickMaker maker{rng};
  ticks_.reserve(spec_.distinct_keys);
  for (size_t k = 0; k < spec_.distinct_keys; ++k) {
    const size_t set = k / spec_.stacks;
    const size_t thread = set % kThreads;
    const size_t span = set < kThreads ? Tick::kNoSpan : (set / kThreads - 1) * kThreads + thread;
    if (span != Tick::kNoSpan && span >= kSpans) {
      std::fprintf(stderr, "workload: %zu keys need more than %zu spans\n", spec_.distinct_keys,
                   kSpans);
      std::abort();
    }
    ticks_.push_back(
        maker.Make(static_cast<uint32_t>(k % spec_.stacks), thread, static_cast<uint16_t>(span)));
  }
  // Shuffled, so that consecutive samples differ in stack and labels as a
  // sampler's do, rather than come in the order they were enumerated.
  for (size_t i = ticks_.size(); i > 1; --i) std::swap(ticks_[i - 1], ticks_[rng.Below(i)]);
  std::vector<bool> started(kSpans, false);
  for (Tick& tick : ticks_) {
    if (tick.span != Tick::kNoSpan && !started[tick.span]) {
      started[tick.span] = true;
      tick.flags |= Tick::kSpanStarts;
    }
  }
}

void Workload::Tally() {
  std::unordered_set<uint64_t> keys;
  keys.reserve(ticks_.size());
  for (const Tick& t : ticks_) {
    // The labels are a function of (thread, span): the key is those and the stack.
    if (keys.insert(uint64_t{t.stack} << 32 | uint64_t{t.thread} << 16 | t.span).second &&
        t.span != Tick::kNoSpan) {
      ++distinct_keys_in_spans_;
    }
    totals_[kCpuTime] += t.cpu_ns;
    totals_[kCpuSamples] += 1;
    totals_[kWallTime] += t.wall_ns;
    totals_[kAllocSamples] += (t.flags & Tick::kAlloc) ? 1 : 0;
  }
  distinct_keys_ = keys.size();
}

double Workload::mean_stack_depth() const {
  return static_cast<double>(frame_index_.size()) / static_cast<double>(stacks());
}

double Workload::mean_sample_depth() const {
  double sum = 0;
  for (const Tick& t : ticks_) sum += depth(t.stack);
  return ticks_.empty() ? 0 : sum / static_cast<double>(ticks_.size());
}

std::string Workload::Describe() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s samples, %s stacks (depth %u-%u, mean %.1f per stack, "
                "%.1f per sample), %s of %s functions used, %s locations, "
                "%s distinct keys%s",
                Thousands(ticks_.size()).c_str(), Thousands(stacks()).c_str(), spec_.min_depth,
                max_depth_, mean_stack_depth(), mean_sample_depth(),
                Thousands(functions_used_).c_str(), Thousands(kFunctions).c_str(),
                Thousands(locations_.size()).c_str(), Thousands(distinct_keys_).c_str(),
                spec_.system_names ? ", every function's system name its name" : "");
  return buf;
}

SampleBuilder::SampleBuilder(const Workload& workload)
    : workload_(workload), frames_(workload.max_depth()) {
  labels_[0].key = Str(kThreadIdKey);
  labels_[1].key = Str(kThreadNameKey);
  labels_[2].key = Str(kSpanKey);
  sample_.locations = frames_.data();
  sample_.values = values_;
  sample_.values_len = kSampleTypes;
  sample_.labels = labels_;
}

namespace {

// A tick's label values (the keys are set once); returns labels_len.
size_t FillLabelValues(const Workload& w, const Tick& tick, stackrec_label* labels) {
  labels[0].num = w.thread_id(tick.thread);
  labels[1].str = Str(w.thread_name(tick.thread));
  if (tick.span == Tick::kNoSpan) return 2;
  labels[2].num = static_cast<int64_t>(w.span_id(tick.span));
  return 3;
}

// A tick's values and label values; returns labels_len.
size_t FillValuesAndLabels(const Workload& w, const Tick& tick, int64_t* values,
                           stackrec_label* labels) {
  values[kCpuTime] = tick.cpu_ns;
  values[kCpuSamples] = 1;
  values[kWallTime] = tick.wall_ns;
  values[kAllocSamples] = (tick.flags & Tick::kAlloc) ? 1 : 0;
  return FillLabelValues(w, tick, labels);
}

}  // namespace

size_t FillLabels(const Workload& w, const Tick& tick, stackrec_label* labels) {
  labels[0] = {};
  labels[0].key = Str(kThreadIdKey);
  labels[1] = {};
  labels[1].key = Str(kThreadNameKey);
  labels[2] = {};
  labels[2].key = Str(kSpanKey);
  return FillLabelValues(w, tick, labels);
}

const stackrec_sample& SampleBuilder::Build(const Tick& tick) {
  const uint32_t depth = workload_.depth(tick.stack);
  const uint32_t* index = workload_.frames(tick.stack);
  const stackrec_location* locations = workload_.locations().data();
  for (uint32_t i = 0; i < depth; ++i) frames_[i] = locations[index[i]];
  sample_.locations_len = depth;
  sample_.labels_len = FillValuesAndLabels(workload_, tick, values_, labels_);
  return sample_;
}

IdSampleBuilder::IdSampleBuilder(const Workload& workload, const std::vector<uint32_t>& stack_ids,
                                 const std::vector<uint32_t>& location_ids, bool by_location_ids,
                                 const LabelSetIds* label_sets)
    : workload_(workload),
      stack_ids_(stack_ids),
      location_ids_(location_ids),
      by_location_ids_(by_location_ids),
      label_sets_(label_sets),
      frames_(workload.max_depth()) {
  labels_[0].key = Str(kThreadIdKey);
  labels_[1].key = Str(kThreadNameKey);
  labels_[2].key = Str(kSpanKey);
  sample_.values = values_;
  sample_.values_len = kSampleTypes;
  sample_.labels = labels_;
  if (by_location_ids_) sample_.location_ids = frames_.data();
}

const stackrec_id_sample& IdSampleBuilder::Build(const Tick& tick) {
  if (by_location_ids_) {
    const uint32_t depth = workload_.depth(tick.stack);
    const uint32_t* index = workload_.frames(tick.stack);
    for (uint32_t i = 0; i < depth; ++i) frames_[i] = location_ids_[index[i]];
    sample_.location_ids_len = depth;
  } else {
    sample_.stack_id = stack_ids_[tick.stack];
  }
  sample_.labels_len = FillValuesAndLabels(workload_, tick, values_, labels_);
  if (label_sets_ != nullptr) {
    sample_.labels_len = 0;
    sample_.labels_id = tick.span == Tick::kNoSpan ? label_sets_->thread[tick.thread]
                                                   : label_sets_->span[tick.span];
  }
  return sample_;
}

stackrec_profile_options ProfileOptions() {
  static const stackrec_value_type kTypes[kSampleTypes] = {
      {Str(kSampleTypeNames[0][0]), Str(kSampleTypeNames[0][1])},
      {Str(kSampleTypeNames[1][0]), Str(kSampleTypeNames[1][1])},
      {Str(kSampleTypeNames[2][0]), Str(kSampleTypeNames[2][1])},
      {Str(kSampleTypeNames[3][0]), Str(kSampleTypeNames[3][1])}};
  stackrec_profile_options opts = {};
  opts.sample_types = kTypes;
  opts.sample_types_len = kSampleTypes;
  opts.period_type = {Str("wall-time"), Str("nanoseconds")};
  opts.period = kPeriodNs;
  return opts;
}

}  // namespace stackrec_bench
