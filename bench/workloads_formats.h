// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The formats table of stackrec-bench-workloads: one profile of a workload
// encoded as pprof and as OTLP, side by side, at the same compression, the
// two formats taking turns; CPU time (median of the runs) and output size,
// compressed and not. Uncompressed, the row is the encoders' own cost.
#ifndef STACKREC_BENCH_WORKLOADS_FORMATS_H_
#define STACKREC_BENCH_WORKLOADS_FORMATS_H_

#include "workload.h"
#include "workloads_report.h"

namespace stackrec_bench {

// Fills a profile with `spec`'s workload, serializes it `reps` times in
// each format with gzip, then zstd, then none (the encoders alone), and
// adds a row per compression to `table` (see kFormatsHeader). Returns
// false, having printed why, on error.
bool RunFormats(const WorkloadSpec& spec, int reps, Table* table);

inline const std::vector<std::string> kFormatsHeader = {
    "workload",    "compression", "pprof ms",           "OTLP ms",          "OTLP / pprof",
    "pprof bytes", "OTLP bytes",  "pprof uncompressed", "OTLP uncompressed"};

}  // namespace stackrec_bench

#endif  // STACKREC_BENCH_WORKLOADS_FORMATS_H_
