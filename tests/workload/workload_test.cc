// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The benchmarks' inputs, checked against the shapes they promise: the
// seeded workload generator (testkit/workloads/workload.h) and the baseline stackrec
// is measured against (testkit/workloads/baseline.h). The workload bench trusts
// both; a generator that drifted from its documented shape, or a baseline
// that wrote another profile than stackrec, would make every ratio it prints
// wrong.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "baseline.h"
#include "catch2/catch.hpp"
#include "oracle/otlp_decode.h"
#include "pprof_summary.h"
#include "support/test_support.h"
#include "workload.h"

namespace {

using stackrec_bench::Tick;
using stackrec_bench::Workload;
using stackrec_bench::WorkloadSpec;
using stackrec_test::Profile;
using stackrec_test::Sample;

std::string View(stackrec_str s) { return std::string(s.ptr, s.len); }

// Whether `s` is parts[0], digits, parts[1], digits, ..., parts.back():
// a run of one or more digits between each two literal parts. (std::regex
// would do, but GCC 12 warns inside it at -O2, which -Werror refuses.)
bool Shaped(std::string_view s, std::initializer_list<std::string_view> parts) {
  bool first = true;
  for (std::string_view part : parts) {
    if (!first) {
      size_t digits = 0;
      while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
      if (digits == 0) return false;
      s.remove_prefix(digits);
    }
    first = false;
    if (s.substr(0, part.size()) != part) return false;
    s.remove_prefix(part.size());
  }
  return s.empty();
}

// Checks the program and the stacks of `w`: functions and files named as
// testkit/workloads/workload.h names them, depths in [8, 128], every stack distinct, leaf
// first from one root, and stacks sharing their root side.
void CheckProgram(const Workload& w, size_t stacks) {
  REQUIRE(w.stacks() == stacks);
  std::set<std::string> functions, files;
  size_t lineless = 0;
  for (const stackrec_location& loc : w.locations()) {
    functions.insert(View(loc.function.name));
    files.insert(View(loc.function.filename));
    lineless += loc.line <= 0;
  }
  CHECK(lineless == 0);
  for (const std::string& n : functions) CHECK(Shaped(n, {"Mod", "::Class", "#method_", ""}));
  for (const std::string& f : files) CHECK(Shaped(f, {"/app/lib/mod", "/file_", ".rb"}));
  CHECK_FALSE(Shaped("Mod12::Class#method_6", {"Mod", "::Class", "#method_", ""}));
  CHECK_FALSE(Shaped("/app/lib/mod1/file_2.rbx", {"/app/lib/mod", "/file_", ".rb"}));
  CHECK(functions.size() <= stackrec_bench::kFunctions);
  CHECK(w.functions_used() == functions.size());

  const uint32_t root = w.frames(0)[w.depth(0) - 1];
  std::set<std::vector<uint32_t>> distinct;
  // Root-side prefixes, as a hash of the location indices from the root.
  std::unordered_set<uint64_t> prefixes;
  uint64_t depth_sum = 0, shared_sum = 0;
  size_t out_of_range = 0, rootless = 0;
  for (size_t s = 0; s < w.stacks(); ++s) {
    const uint32_t n = w.depth(s);
    const uint32_t* f = w.frames(s);
    out_of_range += n < 8 || n > 128;
    rootless += f[n - 1] != root;  // leaf first: the root frame comes last
    depth_sum += n;
    distinct.emplace(f, f + n);
    uint64_t h = 0;
    uint32_t shared = 0;
    for (uint32_t k = 1; k <= n; ++k) {
      h = (h ^ f[n - k]) * 0x9e3779b97f4a7c15ull + k;
      if (prefixes.count(h) != 0) shared = k;
    }
    h = 0;
    for (uint32_t k = 1; k <= n; ++k) {
      h = (h ^ f[n - k]) * 0x9e3779b97f4a7c15ull + k;
      prefixes.insert(h);
    }
    shared_sum += s == 0 ? 0 : shared;
  }
  CHECK(out_of_range == 0);
  CHECK(rootless == 0);
  CHECK(distinct.size() == stacks);
  const double mean_depth = static_cast<double>(depth_sum) / static_cast<double>(stacks);
  CHECK(mean_depth == Approx(w.mean_stack_depth()));
  CHECK(mean_depth > 65);
  CHECK(mean_depth < 75);
  // A call tree: a stack shares on average more than a third of its frames,
  // from the root, with a stack generated before it.
  CHECK(static_cast<double>(shared_sum) / static_cast<double>(stacks - 1) > mean_depth / 3);
}

// Checks the samples of `w`: 16 threads in turn, 2,000 spans each on one
// thread covering half of the samples, 200 endpoints, stacks drawn with a
// skew, and the labels and values a sampler would pass.
void CheckSamples(const Workload& w, size_t samples) {
  const std::vector<Tick>& ticks = w.ticks();
  REQUIRE(ticks.size() == samples);
  std::map<uint16_t, uint8_t> span_thread;
  std::set<std::string> endpoints;
  std::vector<size_t> per_stack(w.stacks());
  // Counted, not asserted a tick each: a million assertions take seconds.
  size_t in_span = 0, allocs = 0, out_of_turn = 0, bad_spans = 0, moved_spans = 0, wrong_starts = 0;
  for (size_t i = 0; i < ticks.size(); ++i) {
    const Tick& t = ticks[i];
    out_of_turn += t.thread != i % stackrec_bench::kThreads;
    ++per_stack[t.stack];
    allocs += (t.flags & Tick::kAlloc) != 0;
    if (t.span == Tick::kNoSpan) continue;
    ++in_span;
    if (t.span >= stackrec_bench::kSpans) {
      ++bad_spans;
      continue;
    }
    const auto [it, first] = span_thread.emplace(t.span, t.thread);
    moved_spans += it->second != t.thread;  // a span stays on its thread
    wrong_starts += ((t.flags & Tick::kSpanStarts) != 0) != first;
    endpoints.insert(w.span_endpoint(t.span));
  }
  CHECK(out_of_turn == 0);
  CHECK(bad_spans == 0);
  CHECK(moved_spans == 0);
  CHECK(wrong_starts == 0);
  CHECK(span_thread.size() == stackrec_bench::kSpans);
  CHECK(in_span == samples / 2);
  CHECK(endpoints.size() == stackrec_bench::kEndpoints);
  CHECK(allocs > 0);
  CHECK(allocs < samples);
  // Zipf-like: the most sampled stack far above the median one.
  std::sort(per_stack.begin(), per_stack.end());
  CHECK(per_stack.back() > 100 * std::max<size_t>(per_stack[per_stack.size() / 2], 1));

  // What the sampler side builds of a tick in a span: the stack's frames,
  // leaf first, the three labels, and the four values.
  const auto in = std::find_if(ticks.begin(), ticks.end(),
                               [](const Tick& t) { return t.span != Tick::kNoSpan; });
  REQUIRE(in != ticks.end());
  stackrec_bench::SampleBuilder builder(w);
  const stackrec_sample& s = builder.Build(*in);
  REQUIRE(s.locations_len == w.depth(in->stack));
  for (size_t d = 0; d < s.locations_len; ++d) {
    const stackrec_location& expected = w.locations()[w.frames(in->stack)[d]];
    CHECK(View(s.locations[d].function.name) == View(expected.function.name));
    CHECK(s.locations[d].line == expected.line);
  }
  REQUIRE(s.labels_len == 3);
  CHECK(View(s.labels[0].key) == stackrec_bench::kThreadIdKey);
  CHECK(s.labels[0].num == w.thread_id(in->thread));
  CHECK(View(s.labels[1].key) == stackrec_bench::kThreadNameKey);
  CHECK(View(s.labels[1].str) == w.thread_name(in->thread));
  CHECK(View(s.labels[2].key) == stackrec_bench::kSpanKey);
  CHECK(static_cast<uint64_t>(s.labels[2].num) == w.span_id(in->span));
  REQUIRE(s.values_len == stackrec_bench::kSampleTypes);
  CHECK(s.values[stackrec_bench::kCpuTime] == in->cpu_ns);
  CHECK(s.values[stackrec_bench::kCpuSamples] == 1);
  CHECK(s.values[stackrec_bench::kWallTime] == in->wall_ns);
  CHECK(s.values[stackrec_bench::kAllocSamples] == ((in->flags & Tick::kAlloc) != 0 ? 1 : 0));
  std::set<int64_t> thread_ids;
  for (size_t t = 0; t < stackrec_bench::kThreads; ++t) thread_ids.insert(w.thread_id(t));
  CHECK(thread_ids.size() == stackrec_bench::kThreads);
}

bool SameTicks(const Workload& a, const Workload& b) {
  return a.ticks().size() == b.ticks().size() &&
         std::memcmp(a.ticks().data(), b.ticks().data(), a.ticks().size() * sizeof(Tick)) == 0;
}

// The one sample of `p` with these frames and this thread and span (0:
// none); fails the test otherwise.
const Sample& SampleOf(const Profile& p, const std::vector<std::string>& frames, int64_t thread_id,
                       uint64_t span_id) {
  const Sample* found = nullptr;
  for (const Sample& s : p.sample()) {
    int64_t thread = -1;
    uint64_t span = 0;
    for (const auto& l : s.label()) {
      const std::string key = stackrec_test::Str(p, l.key());
      if (key == stackrec_bench::kThreadIdKey) thread = l.num();
      if (key == stackrec_bench::kSpanKey) span = static_cast<uint64_t>(l.num());
    }
    // The labels first: the frames' names cost more to compare.
    if (thread != thread_id || span != span_id) continue;
    if (s.location_id_size() != static_cast<int>(frames.size())) continue;
    if (stackrec_test::FrameNames(p, s) != frames) continue;
    REQUIRE(found == nullptr);
    found = &s;
  }
  REQUIRE(found != nullptr);
  return *found;
}

// Checks a decoded profile of all of `w`'s ticks: as many samples as the
// workload has keys, its totals, and the sample of the first tick's key
// field by field (frames in order with their files and lines, labels,
// endpoint) against the sums the test computes from the ticks.
void CheckProfileOf(const Workload& w, const Profile& p) {
  REQUIRE(p.sample_type_size() == static_cast<int>(stackrec_bench::kSampleTypes));
  for (size_t i = 0; i < stackrec_bench::kSampleTypes; ++i) {
    CHECK(stackrec_test::Str(p, p.sample_type(static_cast<int>(i)).type()) ==
          stackrec_bench::kSampleTypeNames[i][0]);
  }
  CHECK(static_cast<size_t>(p.sample_size()) == w.distinct_keys());
  std::vector<int64_t> totals(stackrec_bench::kSampleTypes);
  for (const Sample& s : p.sample()) {
    for (size_t i = 0; i < totals.size(); ++i) totals[i] += s.value(static_cast<int>(i));
  }
  for (size_t i = 0; i < totals.size(); ++i) CHECK(totals[i] == w.totals()[i]);

  const Tick& first = w.ticks().front();
  std::vector<int64_t> expected(stackrec_bench::kSampleTypes);
  for (const Tick& t : w.ticks()) {
    if (t.stack != first.stack || t.thread != first.thread || t.span != first.span) continue;
    expected[stackrec_bench::kCpuTime] += t.cpu_ns;
    expected[stackrec_bench::kCpuSamples] += 1;
    expected[stackrec_bench::kWallTime] += t.wall_ns;
    expected[stackrec_bench::kAllocSamples] += (t.flags & Tick::kAlloc) != 0 ? 1 : 0;
  }
  std::vector<std::string> frames;
  for (uint32_t d = 0; d < w.depth(first.stack); ++d) {
    frames.push_back(View(w.locations()[w.frames(first.stack)[d]].function.name));
  }
  const uint64_t span = first.span == Tick::kNoSpan ? 0 : w.span_id(first.span);
  const Sample& s = SampleOf(p, frames, w.thread_id(first.thread), span);
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(s.value(static_cast<int>(i)) == expected[i]);
  }
  // Each frame's file and line too, leaf first.
  for (int d = 0; d < s.location_id_size(); ++d) {
    const stackrec_location& want = w.locations()[w.frames(first.stack)[d]];
    const perftools::profiles::Location& loc = stackrec_test::FindLocation(p, s.location_id(d));
    REQUIRE(loc.line_size() == 1);
    CHECK(loc.line(0).line() == want.line);
    CHECK(stackrec_test::Str(
              p, stackrec_test::FindFunction(p, loc.line(0).function_id()).filename()) ==
          View(want.function.filename));
  }
  CHECK(stackrec_test::StrLabel(p, s, stackrec_bench::kThreadNameKey) ==
        w.thread_name(first.thread));
  CHECK(stackrec_test::StrLabel(p, s, "trace endpoint") ==
        (first.span == Tick::kNoSpan ? "" : w.span_endpoint(first.span)));
}

}  // namespace

TEST_CASE(
    "the typical workload has its declared shape: 5,000 stacks, 100,000 samples, 59,201 keys") {
  const Workload w(stackrec_bench::TypicalSpec());
  CheckProgram(w, 5000);
  CheckSamples(w, 100000);
  // About 60,000 by design; this seed's exact count, which the bench's
  // digests depend on.
  CHECK(w.distinct_keys() == 59201);
  CHECK(w.functions_used() == 4945);
  CHECK(w.locations().size() == 29706);
}

TEST_CASE(
    "the heavy workload has its declared shape: 20,000 stacks, 1,000,000 samples, 450,387 keys") {
  const Workload w(stackrec_bench::HeavySpec());
  CheckProgram(w, 20000);
  CheckSamples(w, 1000000);
  CHECK(w.distinct_keys() == 450387);  // "about 450,000"
}

TEST_CASE("a workload is a function of its spec: the same seed gives the same ticks") {
  WorkloadSpec spec = stackrec_bench::TypicalSpec();
  spec.samples = 20000;
  const Workload a(spec), b(spec);
  CHECK(SameTicks(a, b));
  REQUIRE(a.stacks() == b.stacks());
  for (size_t s = 0; s < a.stacks(); ++s) {
    REQUIRE(a.depth(s) == b.depth(s));
    CHECK(std::equal(a.frames(s), a.frames(s) + a.depth(s), b.frames(s)));
  }
  CHECK(a.distinct_keys() == b.distinct_keys());
  CHECK(a.totals() == b.totals());
  spec.seed += 1;
  const Workload c(spec);
  CHECK_FALSE(SameTicks(a, c));
}

TEST_CASE(
    "with system names a workload has the same ticks and stacks, each function's system name its "
    "name") {
  WorkloadSpec spec = stackrec_bench::TypicalSpec();
  spec.samples = 20000;
  const Workload a(spec), b(stackrec_bench::WithSystemNames(spec));
  CHECK(b.spec().name == "typical_sys");
  CHECK(SameTicks(a, b));
  REQUIRE(a.stacks() == b.stacks());
  for (size_t s = 0; s < a.stacks(); ++s) {
    REQUIRE(a.depth(s) == b.depth(s));
    CHECK(std::equal(a.frames(s), a.frames(s) + a.depth(s), b.frames(s)));
  }
  REQUIRE(a.locations().size() == b.locations().size());
  for (size_t i = 0; i < a.locations().size(); ++i) {
    const stackrec_location& x = a.locations()[i];
    const stackrec_location& y = b.locations()[i];
    CHECK(x.function.system_name.len == 0);
    CHECK(View(y.function.system_name) == View(y.function.name));
    CHECK(View(y.function.name) == View(x.function.name));
    CHECK(View(y.function.filename) == View(x.function.filename));
    CHECK(y.line == x.line);
  }
}

namespace {

// The small workload of `spec`'s seed through the baseline and a profile:
// both decode to the workload, and to the same content.
void CheckBaselineAndStackrecAgree(const WorkloadSpec& spec) {
  const Workload w(spec);
  const stackrec_profile_options opts = stackrec_bench::ProfileOptions();

  stackrec_bench::BaselineProfile baseline(opts);
  stackrec_test::ProfilePtr profile = stackrec_test::NewProfile(opts);
  stackrec_bench::SampleBuilder builder(w);
  for (const Tick& t : w.ticks()) {
    if ((t.flags & Tick::kSpanStarts) != 0) {
      const std::string& endpoint = w.span_endpoint(t.span);
      baseline.SetEndpoint(w.span_id(t.span), endpoint);
      REQUIRE(stackrec_profile_set_endpoint(profile.get(), w.span_id(t.span),
                                            stackrec_bench::Str(endpoint)) == STACKREC_OK);
    }
    const stackrec_sample& s = builder.Build(t);
    REQUIRE(baseline.Add(s));
    if (stackrec_profile_add(profile.get(), &s) != STACKREC_OK) FAIL(stackrec_last_error());
  }
  const std::string baseline_bytes = baseline.Serialize();
  const std::string stackrec_bytes = stackrec_test::Serialize(profile.get());

  const Profile from_baseline = stackrec_test::Decode(baseline_bytes);
  const Profile from_stackrec = stackrec_test::Decode(stackrec_bytes);
  stackrec_test::CheckInvariants(from_stackrec);
  {
    INFO("the baseline");
    CheckProfileOf(w, from_baseline);
  }
  {
    INFO("stackrec");
    CheckProfileOf(w, from_stackrec);
  }
  // Everything else alike too, whatever ids and order each chose: every
  // sample's frames, labels and values (pprof_summary.h's digest).
  const stackrec_bench::PprofSummary a = stackrec_bench::Summarize(
      reinterpret_cast<const uint8_t*>(baseline_bytes.data()), baseline_bytes.size());
  const stackrec_bench::PprofSummary b = stackrec_bench::Summarize(
      reinterpret_cast<const uint8_t*>(stackrec_bytes.data()), stackrec_bytes.size());
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(a.samples == w.distinct_keys());
  CHECK(a.endpoint_labels == w.distinct_keys_in_spans());
  CHECK(b.endpoint_labels == w.distinct_keys_in_spans());
  CHECK(a.digest == b.digest);
  // The digest covers system names; these say that they were there.
  for (const stackrec_bench::PprofSummary* x : {&a, &b}) {
    CHECK(x->functions > 0);
    CHECK(x->functions_with_system_name == (spec.system_names ? x->functions : 0));
    CHECK(x->system_names_not_name == 0);
  }
}

WorkloadSpec SmallSpec() {
  WorkloadSpec spec = stackrec_bench::TypicalSpec();
  spec.name = "small";
  spec.stacks = 400;
  spec.samples = 20000;
  spec.seed = 7;
  return spec;
}

}  // namespace

TEST_CASE("the baseline and stackrec write the same profile of a workload") {
  CheckBaselineAndStackrecAgree(SmallSpec());
}

TEST_CASE("the baseline and stackrec write the same profile of a workload with system names") {
  CheckBaselineAndStackrecAgree(stackrec_bench::WithSystemNames(SmallSpec()));
}

namespace {

// A workload the benchmark measures, serialized as pprof and as OTLP: the
// OTLP, converted back by the specification alone (otlp_decode.h), holds the
// pprof's samples, sample type by sample type (values, stacks with their
// lines, labels; pprof_summary.h's digest of every sample).
void CheckOtlpOf(const WorkloadSpec& spec) {
  {
    INFO(spec.name);
    const Workload w(spec);
    stackrec_test::ProfilePtr profile = stackrec_test::NewProfile(stackrec_bench::ProfileOptions());
    stackrec_bench::SampleBuilder builder(w);
    for (const Tick& t : w.ticks()) {
      if ((t.flags & Tick::kSpanStarts) != 0) {
        REQUIRE(stackrec_profile_set_endpoint(profile.get(), w.span_id(t.span),
                                              stackrec_bench::Str(w.span_endpoint(t.span))) ==
                STACKREC_OK);
      }
      const stackrec_sample& s = builder.Build(t);
      if (stackrec_profile_add(profile.get(), &s) != STACKREC_OK) FAIL(stackrec_last_error());
    }
    const std::string pprof = stackrec_test::Serialize(profile.get(), STACKREC_COMPRESSION_ZSTD);
    const std::string otlp = stackrec_test::Serialize(
        profile.get(),
        stackrec_test::SerializeOptions(STACKREC_COMPRESSION_ZSTD, 0, STACKREC_FORMAT_OTLP));
    profile.reset();
    std::string converted;
    {
      const stackrec_test::OtlpRequest r = stackrec_test::DecodeOtlp(otlp);
      stackrec_test::CheckOtlpInvariants(r);
      REQUIRE(r.resource_profiles(0).scope_profiles(0).profiles_size() ==
              static_cast<int>(stackrec_bench::kSampleTypes));
      converted = stackrec_test::OtlpToPprof(r).SerializeAsString();
    }
    const stackrec_bench::PprofSummary a =
        stackrec_bench::Summarize(reinterpret_cast<const uint8_t*>(pprof.data()), pprof.size());
    const stackrec_bench::PprofSummary b = stackrec_bench::Summarize(
        reinterpret_cast<const uint8_t*>(converted.data()), converted.size());
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    CHECK(a.samples == w.distinct_keys());
    CHECK(b.samples == a.samples);
    CHECK(b.sample_types == a.sample_types);
    for (size_t t = 0; t < stackrec_bench::kSampleTypes; ++t) {
      CHECK(b.totals[t] == a.totals[t]);
      CHECK(b.totals[t] == w.totals()[t]);
    }
    CHECK(b.endpoint_labels == a.endpoint_labels);
    CHECK(b.digest == a.digest);
  }
}

}  // namespace

TEST_CASE("the OTLP of the typical workload converts back into its pprof") {
  CheckOtlpOf(stackrec_bench::TypicalSpec());
}

TEST_CASE("the OTLP of the heavy workload converts back into its pprof") {
  CheckOtlpOf(stackrec_bench::HeavySpec());
}
