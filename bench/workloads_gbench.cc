// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-bench-workloads --gbench: the measurements of the tables as
// Google Benchmark cases, in this process, with no memory figures; and
// BM_AddKnown, the workload added a second time into the same profile.
// The workloads typical_sys and heavy_sys are typical and heavy with every
// function's system name set (WithSystemNames), for the string path's rows.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "workloads_cases.h"

namespace stackrec_bench {
namespace {

// The workloads, made on first use and kept.
const Workload& Get(const WorkloadSpec& spec) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Workload>>();
  std::unique_ptr<Workload>& w = (*cache)[spec.name];
  if (w == nullptr) w.reset(new Workload(spec));
  return *w;
}

// "typical", "heavy", or either with "_sys" (WithSystemNames).
WorkloadSpec SpecNamed(const std::string& name) {
  const bool sys = name.size() > 4 && name.compare(name.size() - 4, 4, "_sys") == 0;
  const WorkloadSpec spec = name.compare(0, 5, "heavy") == 0 ? HeavySpec() : TypicalSpec();
  return sys ? WithSystemNames(spec) : spec;
}

// One iteration adds the whole workload into a fresh profile, recorder or
// baseline; the time is that of the add calls alone (see TimedAdds).
void BM_Add(benchmark::State& state, const char* workload, Impl impl) {
  const Workload& w = Get(SpecNamed(workload));
  double ns = 0, first_ns = 0;
  for (auto _ : state) {
    Measurement m = impl == Impl::kProfile    ? MeasureProfile(w, false, false)
                    : impl == Impl::kRecorder ? MeasureRecorder(w, false, false)
                                              : Measurement{};
    if (impl == Impl::kBaseline) {
      BaselineProfile b(ProfileOptions());
      const AddTiming t = BaselineAdds(w, b);
      m.ok = t.ok;
      m.add_ns = t.ns;
      m.first_sightings_ns = t.first_sightings_ns;
    }
    if (!m.ok) return state.SkipWithError(m.error);
    ns = m.add_ns;
    first_ns = m.first_sightings_ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  // Of which the samples that were the first of their stack (see AddTiming).
  state.counters["first_of_stack_ns_per_sample"] = first_ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.ticks().size()));
}

// The workload added a second time into one profile, timed as BM_Add: every
// stack, label set and key is then known, so this is the lookups alone (the
// fingerprints, the caches, the key index and its row), without interning
// or first touches of memory, and varies less than a first fill.
void BM_AddKnown(benchmark::State& state, const char* workload) {
  const Workload& w = Get(SpecNamed(workload));
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) {
    return state.SkipWithError(stackrec_last_error());
  }
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner(p, stackrec_profile_free);
  auto add = [p](const stackrec_sample& s) { return stackrec_profile_add(p, &s) == STACKREC_OK; };
  auto endpoint = [p](uint64_t span, stackrec_str e) {
    return stackrec_profile_set_endpoint(p, span, e) == STACKREC_OK;
  };
  if (!TimedAdds(w, add, endpoint).ok) return state.SkipWithError(stackrec_last_error());
  double ns = 0;
  for (auto _ : state) {
    const AddTiming t = TimedAdds(w, add, endpoint);
    if (!t.ok) return state.SkipWithError(stackrec_last_error());
    ns = t.ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.ticks().size()));
}

// The same by id: the workload interned into a fresh profile or recorder
// (not timed), then added by stack id or by location ids.
void BM_AddIds(benchmark::State& state, const char* workload, Impl impl, IdMode mode) {
  const Workload& w = Get(SpecNamed(workload));
  double ns = 0;
  for (auto _ : state) {
    const Measurement m = MeasureIds(impl, w, mode, false);
    if (!m.ok) return state.SkipWithError(m.error);
    ns = m.add_ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.ticks().size()));
}

// Serializing one filled profile (or baseline) again and again.
void BM_Serialize(benchmark::State& state, const char* workload, Impl impl,
                  stackrec_compression compression) {
  const Workload& w = Get(SpecNamed(workload));
  uint64_t bytes = 0;
  if (impl == Impl::kBaseline) {
    BaselineProfile b(ProfileOptions());
    SampleBuilder builder(w);
    for (const Tick& t : w.ticks()) {
      if (t.flags & Tick::kSpanStarts) b.SetEndpoint(w.span_id(t.span), w.span_endpoint(t.span));
      b.Add(builder.Build(t));
    }
    for (auto _ : state) {
      const std::string gz = Gzip(b.Serialize(), 6);
      bytes = gz.size();
    }
  } else {
    const stackrec_profile_options opts = ProfileOptions();
    stackrec_profile* p = nullptr;
    if (stackrec_profile_new(&opts, &p) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    if (!FillProfile(w, p)) {
      stackrec_profile_free(p);
      return state.SkipWithError(stackrec_last_error());
    }
    const stackrec_serialize_options o = SerializeWith(compression);
    for (auto _ : state) {
      stackrec_encoded* out = nullptr;
      if (stackrec_profile_serialize(p, &o, &out) != STACKREC_OK) {
        stackrec_profile_free(p);
        return state.SkipWithError(stackrec_last_error());
      }
      bytes = stackrec_encoded_size(out);
      stackrec_encoded_free(out);
    }
    stackrec_profile_free(p);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_AddDepth(benchmark::State& state) {
  const Workload& w = Get(DepthSpec(static_cast<uint32_t>(state.range(0))));
  double ns = 0;
  for (auto _ : state) {
    const Measurement m = MeasureProfile(w, false, false);
    if (!m.ok) return state.SkipWithError(m.error);
    ns = m.add_ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  state.counters["ns_per_frame"] = ns / w.mean_sample_depth();
}

void BM_SerializeKeys(benchmark::State& state) {
  const Workload& w = Get(KeysSpec(static_cast<size_t>(state.range(0))));
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) {
    return state.SkipWithError(stackrec_last_error());
  }
  if (!FillProfile(w, p)) {
    stackrec_profile_free(p);
    return state.SkipWithError(stackrec_last_error());
  }
  const stackrec_serialize_options o =
      SerializeWith(static_cast<stackrec_compression>(state.range(1)));
  uint64_t bytes = 0;
  for (auto _ : state) {
    stackrec_encoded* out = nullptr;
    if (stackrec_profile_serialize(p, &o, &out) != STACKREC_OK) {
      stackrec_profile_free(p);
      return state.SkipWithError(stackrec_last_error());
    }
    bytes = stackrec_encoded_size(out);
    stackrec_encoded_free(out);
  }
  stackrec_profile_free(p);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["us_per_key"] = benchmark::Counter(
      static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}

// The heavy profile serialized in parts of at most range(0) MiB
// uncompressed (0: whole), with compression range(1): the budgets table's
// rows, one at a time, for a profiler.
void BM_SerializeParts(benchmark::State& state) {
  ProfilePtr p = FilledProfile(HeavySpec());
  if (p == nullptr) return state.SkipWithError(stackrec_last_error());
  stackrec_serialize_options o = SerializeWith(static_cast<stackrec_compression>(state.range(1)));
  o.part_max_uncompressed_bytes = static_cast<size_t>(state.range(0)) << 20;
  size_t parts = 0;
  for (auto _ : state) {
    stackrec_encoded* out = nullptr;
    if (stackrec_profile_serialize(p.get(), &o, &out) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    parts = stackrec_encoded_parts_len(out);
    stackrec_encoded_free(out);
  }
  state.counters["parts"] = static_cast<double>(parts);
}

}  // namespace

void RegisterBenchmarks() {
  for (const char* workload : {"typical", "heavy", "typical_sys", "heavy_sys"}) {
    // With system names (WithSystemNames), the string path's rows alone:
    // the id path and serializing read no frame strings per sample.
    const bool sys = std::string(workload).find("_sys") != std::string::npos;
    for (Impl impl : kImpls) {
      if (sys && impl == Impl::kBaseline) continue;
      const std::string impl_name = impl == Impl::kProfile    ? "profile"
                                    : impl == Impl::kRecorder ? "recorder"
                                                              : "baseline";
      benchmark::RegisterBenchmark(
          ("BM_Add/" + std::string(workload) + "/" + impl_name).c_str(),
          [workload, impl](benchmark::State& s) { BM_Add(s, workload, impl); })
          ->UseManualTime()
          ->Iterations(1)
          ->Repetitions(5)
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("BM_AddKnown/" + std::string(workload) + "/profile").c_str(),
                                 [workload](benchmark::State& s) { BM_AddKnown(s, workload); })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
    if (sys) continue;
    for (Impl impl : {Impl::kProfile, Impl::kRecorder}) {
      for (IdMode mode : kIdModes) {
        const std::string name = std::string("BM_AddIds/") + workload + "/" +
                                 (impl == Impl::kProfile ? "profile" : "recorder") + "/" +
                                 IdModeKey(mode);
        benchmark::RegisterBenchmark(
            name.c_str(),
            [workload, impl, mode](benchmark::State& s) { BM_AddIds(s, workload, impl, mode); })
            ->UseManualTime()
            ->Iterations(1)
            ->Repetitions(5)
            ->ReportAggregatesOnly(true)
            ->Unit(benchmark::kMillisecond);
      }
    }
    for (auto [impl, compression, name] :
         {std::make_tuple(Impl::kProfile, STACKREC_COMPRESSION_GZIP, "profile/gzip"),
          std::make_tuple(Impl::kProfile, STACKREC_COMPRESSION_ZSTD, "profile/zstd"),
          std::make_tuple(Impl::kBaseline, STACKREC_COMPRESSION_GZIP, "baseline/gzip6")}) {
      benchmark::RegisterBenchmark(
          ("BM_Serialize/" + std::string(workload) + "/" + name).c_str(),
          [workload, impl = impl, compression = compression](benchmark::State& s) {
            BM_Serialize(s, workload, impl, compression);
          })
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RegisterBenchmark("BM_AddDepth", BM_AddDepth)
      ->ArgName("depth")
      ->Arg(8)
      ->Arg(32)
      ->Arg(128)
      ->Arg(512)
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_SerializeParts", BM_SerializeParts)
      ->ArgNames({"part_mib", "compression"})
      ->ArgsProduct({{0, 4}, {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}})
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_SerializeKeys", BM_SerializeKeys)
      ->ArgNames({"keys", "compression"})
      ->ArgsProduct(
          {{1000, 10000, 100000, 1000000}, {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}})
      ->Unit(benchmark::kMillisecond);
}

}  // namespace stackrec_bench
