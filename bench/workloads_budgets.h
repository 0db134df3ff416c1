// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The budgets table of stackrec-bench-workloads: one profile of a workload
// serialized whole and split within a budget (docs/limits.md#budgets),
// side by side, the two taking turns; CPU time (median of the runs), the
// parts and the largest of each of their figures, and the peak memory of
// one serialization of each in a forked child.
#ifndef STACKREC_BENCH_WORKLOADS_BUDGETS_H_
#define STACKREC_BENCH_WORKLOADS_BUDGETS_H_

#include <string>
#include <vector>

#include "workload.h"
#include "workloads_report.h"

namespace stackrec_bench {

// Fills a profile with `spec`'s workload and adds a row per budget to
// `table` (see kBudgetsHeader). Returns false, having printed why, on
// error, or if a part is over its budget or the parts do not hold every
// sample of the whole.
bool RunBudgets(const WorkloadSpec& spec, int reps, Table* table);

inline const std::vector<std::string> kBudgetsHeader = {
    "workload", "output",   "budget per part", "parts",          "largest part",
    "whole ms", "split ms", "split / whole",   "whole peak MiB", "split peak MiB"};

}  // namespace stackrec_bench

#endif  // STACKREC_BENCH_WORKLOADS_BUDGETS_H_
