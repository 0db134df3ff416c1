// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What libstackrec_export's check before sending costs beside the
// serialization whose parts it checks (src/export/backend_rules.h).
//
//   BM_SerializeForPyroscope   stackrec_profile_serialize of the typical
//                              workload (100,000 samples) with Pyroscope's
//                              target and budget, gzip; "parts" its parts.
//   BM_CheckForPyroscope       the check of all those parts, as
//                              stackrec_exporter_send runs it: what the
//                              encoded profile says of itself read through
//                              the C API, then every rule of every part.
//
// The check's share of a serialization is the second's time over the
// first's. Internal headers, so the static export library.
//   build/release/bench/stackrec-bench-export-check
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>

#include "export/backend_rules.h"
#include "export/export_config.h"
#include "stackrec/stackrec.h"
#include "stackrec_str.h"
#include "workload.h"

namespace {

using stackrec_workloads::Str;

struct EncodedDeleter {
  void operator()(stackrec_encoded* e) const { stackrec_encoded_free(e); }
};
using EncodedPtr = std::unique_ptr<stackrec_encoded, EncodedDeleter>;

// The typical workload recorded once into a profile, kept for every case.
stackrec_profile* TypicalProfile() {
  static stackrec_profile* profile = [] {
    static const stackrec_bench::Workload workload(stackrec_bench::TypicalSpec());
    stackrec_value_type types[stackrec_bench::kSampleTypes];
    for (size_t i = 0; i < stackrec_bench::kSampleTypes; ++i) {
      types[i] = {Str(stackrec_bench::kSampleTypeNames[i][0]),
                  Str(stackrec_bench::kSampleTypeNames[i][1])};
    }
    stackrec_profile_options opts = {};
    opts.sample_types = types;
    opts.sample_types_len = stackrec_bench::kSampleTypes;
    stackrec_profile* p = nullptr;
    if (stackrec_profile_new(&opts, &p) != STACKREC_OK) return p;
    stackrec_bench::SampleBuilder builder(workload);
    for (const stackrec_bench::Tick& tick : workload.ticks()) {
      if (stackrec_profile_add(p, &builder.Build(tick)) != STACKREC_OK) {
        stackrec_profile_free(p);
        return static_cast<stackrec_profile*>(nullptr);
      }
    }
    return p;
  }();
  return profile;
}

stackrec_serialize_options ForPyroscope() {
  stackrec_serialize_options o = {};
  o.target = STACKREC_TARGET_PYROSCOPE;
  o.part_max_uncompressed_bytes = stackrec_export::kPyroscopeMaxPartBytes;
  o.part_max_samples = stackrec_export::kPyroscopeMaxSamples;
  return o;
}

void BM_SerializeForPyroscope(benchmark::State& state) {
  stackrec_profile* profile = TypicalProfile();
  if (profile == nullptr) return state.SkipWithError(stackrec_last_error());
  const stackrec_serialize_options opts = ForPyroscope();
  size_t parts = 0;
  for (auto _ : state) {
    stackrec_encoded* encoded = nullptr;
    if (stackrec_profile_serialize(profile, &opts, &encoded) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    parts = stackrec_encoded_parts_len(encoded);
    stackrec_encoded_free(encoded);
  }
  state.counters["parts"] = static_cast<double>(parts);
}
BENCHMARK(BM_SerializeForPyroscope)->Unit(benchmark::kMillisecond);

void BM_CheckForPyroscope(benchmark::State& state) {
  stackrec_profile* profile = TypicalProfile();
  if (profile == nullptr) return state.SkipWithError(stackrec_last_error());
  const stackrec_serialize_options opts = ForPyroscope();
  stackrec_encoded* raw = nullptr;
  if (stackrec_profile_serialize(profile, &opts, &raw) != STACKREC_OK) {
    return state.SkipWithError(stackrec_last_error());
  }
  const EncodedPtr encoded(raw);
  stackrec_export::Config config;
  config.protocol = STACKREC_EXPORT_PYROSCOPE;
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const size_t n = stackrec_encoded_parts_len(encoded.get());
  for (auto _ : state) {
    stackrec_export::PartFacts facts;
    facts.parts = n;
    facts.format = stackrec_encoded_format(encoded.get());
    facts.target = stackrec_encoded_target(encoded.get());
    facts.compression = stackrec_encoded_compression(encoded.get());
    facts.start_ns = stackrec_encoded_start_ns(encoded.get());
    for (size_t k = 0; k < stackrec_encoded_sample_types_len(encoded.get()); ++k) {
      stackrec_str type{nullptr, 0}, unit{nullptr, 0};
      if (stackrec_encoded_sample_type(encoded.get(), k, &type, &unit) != STACKREC_OK) {
        return state.SkipWithError(stackrec_last_error());
      }
      facts.sample_types.emplace_back(std::string(type.ptr, type.len),
                                      std::string(unit.ptr, unit.len));
    }
    for (size_t i = 0; i < n; ++i) {
      stackrec_part part = {};
      if (stackrec_encoded_part(encoded.get(), i, &part) != STACKREC_OK) {
        return state.SkipWithError(stackrec_last_error());
      }
      facts.index = i;
      facts.bytes = part.size;
      facts.uncompressed_bytes = part.uncompressed_bytes;
      facts.samples = part.samples_written;
      const std::string refused = stackrec_export::CheckPart(config, facts, now_ns);
      if (!refused.empty()) return state.SkipWithError(refused.c_str());
    }
  }
  state.counters["parts"] = static_cast<double>(n);
}
BENCHMARK(BM_CheckForPyroscope)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
