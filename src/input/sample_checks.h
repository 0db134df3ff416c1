// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The checks a sample given by content passes before any of it is
// interned, errors naming the caller's field ("sample.labels[2].key").
// What passed them once is not checked again: the caches of
// sample_tables.h find it by fingerprint.
#ifndef STACKREC_SRC_INPUT_SAMPLE_CHECKS_H_
#define STACKREC_SRC_INPUT_SAMPLE_CHECKS_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "base/status.h"
#include "input/sample_view.h"

namespace stackrec {

// No end_timestamp_ns key on a timestamped sample: the key is written for
// its timestamp.
Status CheckReservedKeys(absl::Span<const LabelView> labels, int64_t timestamp_ns);
// ValidateLabelSet's rules (label_rules.h) and CheckReservedKeys.
Status CheckLabels(absl::Span<const LabelView> labels, int64_t timestamp_ns);
// Each inlined frame is followed by a frame with its address and mapping.
Status CheckInlining(absl::Span<const LocationView> frames);
// The UTF-8 of frames[first, end). A stack's frames past max_frames are
// never interned, and a string of the caller's is valid UTF-8 or refused,
// whether it is kept or not.
Status CheckFrameStrings(absl::Span<const LocationView> frames, size_t first);
// The UTF-8 checks interning would make, for samples that skip interning.
Status CheckStrings(absl::Span<const LocationView> frames, absl::Span<const LabelView> labels);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_SAMPLE_CHECKS_H_
