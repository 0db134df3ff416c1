// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "workloads_formats.h"

#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "workloads_harness.h"
#include "workloads_report.h"

namespace stackrec_bench {
namespace {

struct Figures {
  std::vector<double> ms;
  uint64_t bytes = 0, raw_bytes = 0;
};

// One serialization of `p`, CPU time, into *f.
bool Measure(stackrec_profile* p, const stackrec_serialize_options& o, Figures* f) {
  stackrec_encoded* out = nullptr;
  const Stopwatch watch;
  const bool ok = stackrec_profile_serialize(p, &o, &out) == STACKREC_OK;
  const double ms = watch.CpuMs();
  if (!ok) return false;
  stackrec_encode_stats stats = {};
  if (stackrec_encoded_stats(out, &stats) != STACKREC_OK) {
    stackrec_encoded_free(out);
    return false;
  }
  f->ms.push_back(ms);
  f->bytes = stackrec_encoded_size(out);
  f->raw_bytes = stats.uncompressed_bytes;
  stackrec_encoded_free(out);
  return true;
}

}  // namespace

bool RunFormats(const WorkloadSpec& spec, int reps, Table* table) {
  ProfilePtr owner = FilledProfile(spec);
  if (owner == nullptr) return false;
  stackrec_profile* const p = owner.get();
  for (stackrec_compression c :
       {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD, STACKREC_COMPRESSION_NONE}) {
    Figures pprof, otlp;
    const stackrec_serialize_options as_pprof = SerializeWith(c);
    const stackrec_serialize_options as_otlp = SerializeWith(c, STACKREC_FORMAT_OTLP);
    // The formats take turns, and the first of each round alternates, so
    // that a change in the machine's load falls on both alike.
    for (int rep = 0; rep < reps; ++rep) {
      const bool pprof_first = rep % 2 == 0;
      if (!Measure(p, pprof_first ? as_pprof : as_otlp, pprof_first ? &pprof : &otlp) ||
          !Measure(p, pprof_first ? as_otlp : as_pprof, pprof_first ? &otlp : &pprof)) {
        std::printf("%s: serialize FAILED: %s\n", spec.name.c_str(), stackrec_last_error());
        return false;
      }
    }
    const double pprof_ms = Median(pprof.ms), otlp_ms = Median(otlp.ms);
    const char* name = c == STACKREC_COMPRESSION_GZIP   ? "gzip"
                       : c == STACKREC_COMPRESSION_ZSTD ? "zstd"
                                                        : "none";
    table->Row({spec.name, name, Ms(pprof_ms), Ms(otlp_ms), Fixed(otlp_ms / pprof_ms, 2) + "×",
                Bytes(static_cast<double>(pprof.bytes)), Bytes(static_cast<double>(otlp.bytes)),
                Bytes(static_cast<double>(pprof.raw_bytes)),
                Bytes(static_cast<double>(otlp.raw_bytes))});
  }
  owner.reset();
  malloc_trim(0);
  return true;
}

}  // namespace stackrec_bench
