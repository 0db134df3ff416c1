// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#ifndef STACKREC_SRC_BASE_CLOCK_H_
#define STACKREC_SRC_BASE_CLOCK_H_

#include <cstdint>

namespace stackrec {

// Wall-clock time in Unix nanoseconds: what pprof's time_nanos means. The
// core never reads the clock itself; callers pass instants in, which keeps
// the profile deterministic under test.
int64_t NowUnixNanos();

// A monotonic clock for measuring how long something took.
int64_t MonotonicNanos();

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_CLOCK_H_
