// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What live-heap tracking tracks and how many objects it may hold: the
// options a recorder's tracking is made with, their defaults and their
// checks. Plain data, so that the C boundary fills it and live_heap/ reads
// it without either knowing the other.
#ifndef STACKREC_SRC_INPUT_LIVE_HEAP_OPTIONS_H_
#define STACKREC_SRC_INPUT_LIVE_HEAP_OPTIONS_H_

#include <cstddef>
#include <vector>

#include "base/status.h"

namespace stackrec {

struct LiveHeapOptions {
  // Offsets into the sample types of the values a tracked object carries
  // (e.g. heap-live-samples, heap-live-size). Empty: tracking is off.
  std::vector<size_t> types;
  size_t max_objects = 0;  // 0: kDefaultMaxTrackedObjects
};

inline constexpr size_t kDefaultMaxTrackedObjects = size_t{1} << 22;
// Record numbers are uint32 and ObjectTable::kNone (live_heap/object_table.h)
// is the largest one.
inline constexpr size_t kMaxTrackedObjectsLimit = 0xFFFFFFFEu;

// Validates `in` against `sample_types` declared types and copies it with
// its defaults (names are reported as "opts.<field>").
Status MakeLiveHeapOptions(const LiveHeapOptions& in, size_t sample_types, LiveHeapOptions* out);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_LIVE_HEAP_OPTIONS_H_
