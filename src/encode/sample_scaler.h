// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SampleScaler: a profile's upscaling rules (upscaling.h) applied as an
// encoder writes its samples. Which rules match a label set is worked out
// once per label set, not once per sample.
#ifndef STACKREC_SRC_ENCODE_SAMPLE_SCALER_H_
#define STACKREC_SRC_ENCODE_SAMPLE_SCALER_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "base/table_memory.h"
#include "input/upscaling.h"
#include "profile/profile_parts.h"
#include "tables/records.h"

namespace stackrec {

class SampleScaler {
 public:
  // For the rules the profile of `parts` has now; they must not change
  // while this lives.
  explicit SampleScaler(const ProfileParts& parts);
  // Notes which rules match label set `labels` of content `set`; called
  // for each label set before Scaled is asked of it.
  void MatchLabels(uint32_t labels, absl::Span<const Label> set);
  // The values to write for a sample of label set `labels` with recorded
  // `values`: `values` itself, or upscaled into a buffer valid until the
  // next call.
  const int64_t* Scaled(uint32_t labels, const int64_t* values) const;

 private:
  const std::vector<UpscalingRule>& rules_;
  const size_t width_;  // values per sample
  // The rules matching every sample, and each rule's label as string ids
  // (key 0: matches no label set here).
  uint64_t unconditional_rules_ = 0;
  std::vector<std::pair<StringId, StringId>> rule_labels_;
  // Per label set: bit r set when rule r matches it by label.
  TableVector<uint64_t> label_rules_;
  // Declared value offset -> stored index (-1: disabled).
  std::vector<int> stored_index_;
  mutable std::vector<int64_t> scaled_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_SAMPLE_SCALER_H_
