// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/live_heap_options.h"

namespace stackrec {

Status MakeLiveHeapOptions(const LiveHeapOptions& in, size_t sample_types, LiveHeapOptions* out) {
  for (size_t i = 0; i < in.types.size(); ++i) {
    if (in.types[i] >= sample_types) {
      return Error(Code::kInvalidArgument,
                   "opts.live_heap_types[%zu] is %zu, but opts.sample_types_len is %zu", i,
                   in.types[i], sample_types);
    }
    for (size_t j = 0; j < i; ++j) {
      if (in.types[j] == in.types[i]) {
        return Error(Code::kInvalidArgument,
                     "opts.live_heap_types[%zu] repeats opts.live_heap_types[%zu]", i, j);
      }
    }
  }
  if (in.max_objects > kMaxTrackedObjectsLimit) {
    return Error(Code::kInvalidArgument, "opts.max_tracked_objects is %zu, over the limit of %zu",
                 in.max_objects, kMaxTrackedObjectsLimit);
  }
  *out = in;
  if (out->max_objects == 0) out->max_objects = kDefaultMaxTrackedObjects;
  return OkStatus();
}

}  // namespace stackrec
