// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// An estimate of how many bytes a sample adds to a part of a split
// serialization (serialize/parts.h), before the part is written: its
// Sample message and whatever it is the first in the part to reach
// (locations, functions, mappings, strings; for OTLP its stack and its
// attributes too). Writing a part to learn its size would double the cost
// of a split, so the splitter cuts by this estimate, corrects it by what
// the parts already written measured, and checks every part it writes.
// Each format states its costs (PprofCostModel, OtlpCostModel); the walk
// over the tables is shared, so the formats differ only in numbers.
#ifndef STACKREC_SRC_ENCODE_PART_COSTS_H_
#define STACKREC_SRC_ENCODE_PART_COSTS_H_

#include <cstddef>
#include <cstdint>

#include "base/table_memory.h"
#include "profile/profile_parts.h"

namespace stackrec {

// Bytes a format spends on each thing, roughly (varints taken at their
// typical size); values are counted exactly.
struct PartCostModel {
  // pprof lists a sample's frames in the sample; OTLP lists a stack's
  // frames once per part, in its dictionary's stack table.
  bool frames_in_samples = true;
  // Sample messages per sample: OTLP writes one per enabled sample type.
  uint32_t messages_per_sample = 1;
  size_t message = 6;        // a Sample's own fields and framing
  size_t frame = 3;          // one frame's location reference
  size_t sample_label = 10;  // one label of a sample, in the sample
  size_t new_label = 0;      // a label first reached in the part (OTLP's attribute table)
  size_t new_stack = 4;      // a stack's entry, frames aside (OTLP)
  size_t new_location = 16, new_function = 14, new_mapping = 30;
  size_t new_string = 2;  // a string's framing, its bytes aside
};

class PartCosts {
 public:
  // `p` must outlive this estimator, and its tables stay unchanged.
  PartCosts(const ProfileParts& p, const PartCostModel& model);

  // Starts a new part: nothing is in it yet.
  void StartPart() { ++part_; }
  // The bytes of a sample's own message(s), what it adds to any part it is
  // in; for a timestamped sample, `timed`. Reads no state, so a caller may
  // compute it once per sample, in the order the samples are stored.
  size_t SampleBytes(uint32_t stack, uint32_t labels, const int64_t* values, bool timed) const;
  // The bytes a sample on `stack` with `labels`, of `sample_bytes`, adds
  // to the current part, which from now on holds it.
  size_t Add(uint32_t stack, uint32_t labels, size_t sample_bytes) {
    return sample_bytes + StackCost(stack) + LabelsCost(labels);
  }
  // The same for a pseudo-sample: one frame, a function named with
  // `name_bytes` bytes, no labels.
  size_t AddPseudo(size_t name_bytes);

 private:
  size_t StackCost(uint32_t stack);
  size_t LocationCost(uint32_t location);
  size_t LabelsCost(uint32_t labels);
  size_t StringCost(StringId id);
  // Whether `*stamp` was set in an earlier part; sets it to this one.
  bool FirstInPart(uint32_t* stamp) {
    if (*stamp == part_) return false;
    *stamp = part_;
    return true;
  }

  const ProfileParts p_;
  const PartCostModel model_;
  uint32_t part_ = 1;
  // The part that last reached each entry.
  TableVector<uint32_t> stacks_, locations_, functions_, mappings_, strings_, label_sets_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_PART_COSTS_H_
