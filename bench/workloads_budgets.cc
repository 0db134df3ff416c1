// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "workloads_budgets.h"

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "workloads_harness.h"
#include "workloads_report.h"

namespace stackrec_bench {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

struct Case {
  const char* output;  // format and compression
  stackrec_format format;
  stackrec_compression compression;
  const char* budget;  // what the budget is, in words
  size_t bytes, uncompressed, samples;
};

// The largest of each figure over the parts, and how many.
struct Parts {
  size_t count = 0;
  uint64_t bytes = 0, uncompressed = 0, samples = 0, samples_sum = 0;
};

// One serialization of `p` with `o`, CPU time in *ms, its parts in *parts.
bool Measure(stackrec_profile* p, const stackrec_serialize_options& o, double* ms, Parts* parts) {
  stackrec_encoded* out = nullptr;
  const Stopwatch watch;
  const bool ok = stackrec_profile_serialize(p, &o, &out) == STACKREC_OK;
  *ms = watch.CpuMs();
  if (!ok) return false;
  *parts = Parts();
  parts->count = stackrec_encoded_parts_len(out);
  for (size_t i = 0; i < parts->count; ++i) {
    stackrec_part part{};
    if (stackrec_encoded_part(out, i, &part) != STACKREC_OK) {
      stackrec_encoded_free(out);
      return false;
    }
    parts->bytes = std::max<uint64_t>(parts->bytes, part.size);
    parts->uncompressed = std::max(parts->uncompressed, part.uncompressed_bytes);
    parts->samples = std::max(parts->samples, part.samples_written);
    parts->samples_sum += part.samples_written;
  }
  stackrec_encoded_free(out);
  return true;
}

// Peak RSS over the RSS before, in MiB, of one serialization in a child.
double PeakMiB(stackrec_profile* p, const stackrec_serialize_options& o) {
  const Measurement m = RunIsolated([&] {
    Measurement r = {};
    stackrec_encoded* out = nullptr;
    r.ok = stackrec_profile_serialize(p, &o, &out) == STACKREC_OK;
    r.peak_mib = StatusMiB("VmHWM");
    stackrec_encoded_free(out);
    return r;
  });
  return m.ok ? m.peak_mib - m.loaded_mib : -1;
}

}  // namespace

bool RunBudgets(const WorkloadSpec& spec, int reps, Table* table) {
  ProfilePtr owner = FilledProfile(spec);
  if (owner == nullptr) return false;
  stackrec_profile* const p = owner.get();
  const Case cases[] = {
      {"pprof gzip", STACKREC_FORMAT_PPROF, STACKREC_COMPRESSION_GZIP, "4 MiB uncompressed", 0,
       4 * kMiB, 0},
      {"pprof zstd", STACKREC_FORMAT_PPROF, STACKREC_COMPRESSION_ZSTD, "4 MiB uncompressed", 0,
       4 * kMiB, 0},
      {"pprof gzip", STACKREC_FORMAT_PPROF, STACKREC_COMPRESSION_GZIP, "Datadog: 10 MiB", 10 * kMiB,
       0, 0},
      {"pprof gzip", STACKREC_FORMAT_PPROF, STACKREC_COMPRESSION_GZIP,
       "Pyroscope: 1,998,848 uncompressed, 16,000 samples", 0, 2 * kMiB - 96 * 1024, 16000},
      {"OTLP gzip", STACKREC_FORMAT_OTLP, STACKREC_COMPRESSION_GZIP,
       "OTLP/HTTP: 20 MiB uncompressed", 0, 20 * kMiB, 0},
      {"OTLP gzip", STACKREC_FORMAT_OTLP, STACKREC_COMPRESSION_GZIP,
       "OTLP/gRPC: 4 MiB uncompressed", 0, 4 * kMiB, 0},
  };
  for (const Case& c : cases) {
    const stackrec_serialize_options whole = SerializeWith(c.compression, c.format);
    stackrec_serialize_options split = whole;
    split.part_max_bytes = c.bytes;
    split.part_max_uncompressed_bytes = c.uncompressed;
    split.part_max_samples = c.samples;
    std::vector<double> whole_ms, split_ms;
    Parts whole_parts, parts;
    // Whole and split take turns, the first of each round alternating.
    for (int rep = 0; rep < reps; ++rep) {
      double a = 0, b = 0;
      const bool ok = rep % 2 == 0
                          ? Measure(p, whole, &a, &whole_parts) && Measure(p, split, &b, &parts)
                          : Measure(p, split, &b, &parts) && Measure(p, whole, &a, &whole_parts);
      if (!ok) {
        std::printf("%s: serialize FAILED: %s\n", spec.name.c_str(), stackrec_last_error());
        return false;
      }
      whole_ms.push_back(a);
      split_ms.push_back(b);
    }
    const bool within = (c.bytes == 0 || parts.bytes <= c.bytes) &&
                        (c.uncompressed == 0 || parts.uncompressed <= c.uncompressed) &&
                        (c.samples == 0 || parts.samples <= c.samples);
    if (!within || parts.samples_sum != whole_parts.samples_sum) {
      std::printf("%s, %s: a part is over the budget, or the parts hold %llu samples of %llu\n",
                  spec.name.c_str(), c.budget, static_cast<unsigned long long>(parts.samples_sum),
                  static_cast<unsigned long long>(whole_parts.samples_sum));
      return false;
    }
    table->Row({spec.name, c.output, c.budget, std::to_string(parts.count),
                Bytes(static_cast<double>(parts.bytes)) + " / " +
                    Bytes(static_cast<double>(parts.uncompressed)) + " / " +
                    Thousands(static_cast<double>(parts.samples)),
                Ms(Median(whole_ms)), Ms(Median(split_ms)),
                Fixed(Median(split_ms) / Median(whole_ms), 2) + "×", Fixed(PeakMiB(p, whole), 1),
                Fixed(PeakMiB(p, split), 1)});
    std::fprintf(stderr, "  budgets: %s, %s done\n", spec.name.c_str(), c.budget);
  }
  owner.reset();
  malloc_trim(0);
  return true;
}

}  // namespace stackrec_bench
