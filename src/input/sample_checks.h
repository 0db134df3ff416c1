// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The checks a sample given by content passes before any of it is
// interned, errors naming the caller's field ("sample.labels[2].key").
// What passed them once is not checked again: the caches of
// sample_tables.h find it by fingerprint. The rules of a frame's numbers
// are shared with the dictionary (dictionary.cc), so that a frame given by
// content and one given by ids are refused alike.
#ifndef STACKREC_SRC_INPUT_SAMPLE_CHECKS_H_
#define STACKREC_SRC_INPUT_SAMPLE_CHECKS_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "base/status.h"
#include "input/sample_view.h"

namespace stackrec {

// Timestamps count nanoseconds since the Unix epoch, 0 for none: a
// negative one would be written as an unsigned number years ahead.
inline Status CheckTimestamp(int64_t timestamp_ns) {
  if (timestamp_ns >= 0) return OkStatus();
  return Error(Code::kInvalidArgument,
               "sample.timestamp_ns is %lld: a timestamp counts nanoseconds since the Unix "
               "epoch, and 0 means none",
               static_cast<long long>(timestamp_ns));
}

// The rules no valid profile breaks, for the parts of frame `index` of
// `array` ("sample.locations[3].line") or, with `array` nullptr, for a part
// interned alone ("function.start_line"):
// - a mapping with addresses has a non-empty range, memory_start below
//   memory_limit (one known by its file alone has no addresses);
// - a function has a name, system name or file name, and its start line is
//   not negative;
// - a frame's line is not negative (lines count from 1, 0 means none), and
//   a frame holds a mapping, a function or an address: an empty one would
//   be written as the all-zero location, which both formats reserve.
Status CheckMappingRange(const MappingView& m, const char* array, size_t index);
Status CheckFunctionFields(const FunctionView& f, const char* array, size_t index);
Status CheckLine(int64_t line, const char* array, size_t index);
// All of the above for a frame of a sample, "sample.locations[i]".
Status CheckFrameFields(const LocationView& frame, size_t index);

// No end_timestamp_ns key on a timestamped sample: the key is written for
// its timestamp.
Status CheckReservedKeys(absl::Span<const LabelView> labels, int64_t timestamp_ns);
// CheckReservedKeys and ValidateLabelSet's rules (label_rules.h).
Status CheckLabels(absl::Span<const LabelView> labels, int64_t timestamp_ns);
// Each inlined frame is followed by a frame with its address and mapping.
Status CheckInlining(absl::Span<const LocationView> frames);
// The UTF-8 and CheckFrameFields of frames[first, end). A stack's frames
// past max_frames are never interned, and a frame of the caller's is valid
// or refused, whether it is kept or not.
Status CheckFrameStrings(absl::Span<const LocationView> frames, size_t first);
// The checks interning would make, for samples that skip interning.
Status CheckStrings(absl::Span<const LocationView> frames, absl::Span<const LabelView> labels);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_SAMPLE_CHECKS_H_
