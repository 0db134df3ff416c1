// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Saturating arithmetic on sample values: a sum that would overflow int64
// stays at its bound, so that a profile's totals never wrap to the other
// sign however long an interval runs.
#ifndef STACKREC_SRC_BASE_SATURATING_H_
#define STACKREC_SRC_BASE_SATURATING_H_

#include <cstdint>
#include <limits>

namespace stackrec {

// a + b, clamped to the int64 range instead of wrapping: how sample values
// are summed everywhere.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return sum;
}

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_SATURATING_H_
