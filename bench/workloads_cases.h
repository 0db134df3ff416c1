// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The cases of stackrec-bench-workloads: what one run of each
// implementation measures (stackrec's profile and recorder by string frames
// and by pre-interned ids, and the baseline), each meant to run in a child
// of its own (RunIsolated); and the same as Google Benchmark cases
// (workloads_gbench.cc).
#ifndef STACKREC_BENCH_WORKLOADS_CASES_H_
#define STACKREC_BENCH_WORKLOADS_CASES_H_

#include "baseline.h"
#include "workload.h"
#include "workloads_harness.h"

namespace stackrec_bench {

enum class Impl { kProfile, kRecorder, kBaseline };
constexpr Impl kImpls[] = {Impl::kProfile, Impl::kRecorder, Impl::kBaseline};
const char* ImplName(Impl impl);

// By stack id with the labels as strings, by stack id and label-set id (a
// sampler that keeps its thread's and request's label set interned), by
// location ids with the labels as strings.
enum class IdMode { kStackId, kStackAndLabelsIds, kLocationIds };
constexpr IdMode kIdModes[] = {IdMode::kStackId, IdMode::kStackAndLabelsIds, IdMode::kLocationIds};
const char* IdModeName(IdMode mode);
// The same, as a benchmark name's last part.
const char* IdModeKey(IdMode mode);

// The string path: a fresh profile (a recorder) filled with the workload,
// timed call by call, then serialized with gzip and zstd (the recorder
// filled three times, a serialization after each of the first two; see
// "Add" and "Serialize" at the top of workloads_bench.cc). Without
// `serialize`, the adds alone. With `verify`, the outputs are summarized.
Measurement MeasureProfile(const Workload& w, bool verify, bool serialize = true);
Measurement MeasureRecorder(const Workload& w, bool verify, bool serialize = true);

// The add row by id: a fresh profile or recorder, the workload interned into
// it (timed on its own as intern_ms), then every tick added by id exactly as
// TimedAdds times the string path. With `verify`, the profile (the
// recorder's first fill) is serialized with gzip and summarized.
Measurement MeasureIds(Impl impl, const Workload& w, IdMode mode, bool verify);

// The baseline's adds, timed as TimedAdds times stackrec's.
AddTiming BaselineAdds(const Workload& w, BaselineProfile& b);
// The baseline filled, serialized and gzipped (levels 6 and 1).
Measurement MeasureBaseline(const Workload& w, bool verify);

// The string path's run of `impl`.
Measurement Measure(Impl impl, const Workload& w, bool verify);

// Registers the Google Benchmark cases (workloads_gbench.cc).
void RegisterBenchmarks();

}  // namespace stackrec_bench

#endif  // STACKREC_BENCH_WORKLOADS_CASES_H_
