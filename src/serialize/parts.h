// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A serialization cut into parts that each fit a budget (Budget, in
// input/serialize_options.h): every part a complete profile of its own
// (pprof, or an OTLP request) with its own string table and dictionary,
// the same sample types, period, interval and resource, and every sample
// of the profile in exactly one part, so the parts together say exactly
// what the unsplit profile says.
//
// How parts are cut: the samples are taken in the order the encoder writes
// them (keys by stack from the root, then the timestamped samples), so a
// part holds neighbouring stacks and repeats little of the dictionary; a
// part ends where an estimate of its size (encode/part_costs.h) reaches
// the budget. The estimate is corrected by what the parts written so far
// measured, and each part is checked once written; one over its budget is
// cut shorter and written again. Nothing depends on timing or addresses,
// so the same profile and budget always give the same parts.
//
// When parts are not enough, samples are summed into the pseudo-sample
// "[stackrec: output limit]", which rides in the last part, so totals stay
// exact: a sample too big for a part on its own, or, when the budget's
// part count is reached, the samples with the smallest first values
// (FoldWeight), as the output limit of an unsplit profile does.
#ifndef STACKREC_SRC_SERIALIZE_PARTS_H_
#define STACKREC_SRC_SERIALIZE_PARTS_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "base/table_memory.h"
#include "encode/encode_plan.h"
#include "input/profile_options.h"
#include "input/serialize_options.h"
#include "profile/profile.h"

namespace stackrec {

// One part of an output: its bytes are [offset, offset + size) of the
// output buffer.
struct OutputPart {
  size_t offset = 0, size = 0;
  uint64_t samples = 0;             // Samples written (OTLP: of each sample type)
  uint64_t uncompressed_bytes = 0;  // the message before compression
};

// Why samples were summed into "[stackrec: output limit]" (the values of
// stackrec_fold_reason).
enum class FoldReason : int {
  kNone = 0,
  kOutputLimit = 1,   // the profile's max_output_bytes, unsplit
  kSampleTooBig = 2,  // a sample does not fit a part on its own
  kPartsLimit = 3,    // the budget's part count was reached
};

// How heavy a sample is when choosing what to keep: its first value's
// magnitude, so that the samples kept are those that move the totals most.
inline int64_t FoldWeight(const int64_t* values) {
  const int64_t v = values[0];
  return v == INT64_MIN ? INT64_MAX : (v < 0 ? -v : v);
}

// Appends the parts of `profile` in options.format, covering
// [start, end_ns], to *out, each within options.budget and within
// `max_part_bytes` compressed, and describes them in *parts. *stats sums
// what the parts wrote; stats->samples_left_out counts the samples folded
// and *reason says why. Fails with kLimitExceeded, leaving *out as it
// was, only if a part holding nothing but the pseudo-sample does not fit
// (CheckBudget refuses such a budget beforehand).
Status EncodeInParts(Profile& profile, const SerializeOptions& options, size_t max_part_bytes,
                     int64_t end_ns, TableString* out, std::vector<OutputPart>* parts,
                     EncodeStats* stats, FoldReason* reason);

// Fails with kInvalidArgument, naming the field of the budget, if a part
// holding only the pseudo-sample, with the largest values, would not fit
// options.budget for a profile of `profile_options`: no serialization
// could then meet the budget. Cheap (a profile of one sample is written),
// so a recorder checks before it flips its slots.
Status CheckBudget(const ProfileOptions& profile_options, const SerializeOptions& options);

}  // namespace stackrec

#endif  // STACKREC_SRC_SERIALIZE_PARTS_H_
