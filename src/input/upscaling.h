// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Upscaling rules: sampled values scaled up, at serialization, to estimate
// the real ones. A rule scales a set of value offsets, of every sample or
// only of samples carrying one label (key and value).
//
// Invariant (enforced by UpscalingRules::Add): no sample can match two
// rules that scale the same offset, so each value is scaled at most once
// and the order of the rules does not matter.
#ifndef STACKREC_SRC_INPUT_UPSCALING_H_
#define STACKREC_SRC_INPUT_UPSCALING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace stackrec {

struct ProfileOptions;

struct UpscalingRule {
  enum class Kind { kProportional, kPoisson };
  Kind kind = Kind::kProportional;
  // Declared sample-type offsets (disabled types count) of the values the
  // rule scales.
  std::vector<size_t> offsets;
  // Empty: every sample. Else samples whose label `label_key` is the string
  // label_str (non-empty) or, when label_str is empty, the number label_num.
  std::string label_key, label_str;
  int64_t label_num = 0;
  // kProportional: scale = total_real / total_sampled.
  uint64_t total_sampled = 0, total_real = 0;
  // kPoisson: scale = 1 / (1 - exp(-(sum / count) / sampling_distance)),
  // from the sample's own values at these offsets; 1 if either is <= 0.
  size_t sum_offset = 0, count_offset = 0;
  uint64_t sampling_distance = 0;
};

class UpscalingRules {
 public:
  // More would be a configuration mistake, and the encoder keeps one bit
  // per rule for each label set.
  static constexpr size_t kMaxRules = 64;

  // Validates `rule` against `options` (offsets in range and enabled, no
  // duplicate offsets, a non-zero divisor, valid UTF-8) and against the
  // rules already held (the invariant above); errors name "rule.<field>".
  Status Add(UpscalingRule rule, const ProfileOptions& options);

  bool empty() const { return rules_.empty(); }
  const std::vector<UpscalingRule>& rules() const { return rules_; }

 private:
  std::vector<UpscalingRule> rules_;
};

// The factor `rule` applies to a sample whose values, one per declared
// sample type, are read through value(offset).
template <typename ValueAt>
double UpscalingFactor(const UpscalingRule& rule, ValueAt value);

// round(value * scale), half away from zero, clamped to the int64 range.
int64_t ScaleValue(int64_t value, double scale);

// 1 / (1 - exp(-(sum / count) / sampling_distance)); 1 if sum or count <= 0.
double PoissonFactor(int64_t sum, int64_t count, uint64_t sampling_distance);

template <typename ValueAt>
double UpscalingFactor(const UpscalingRule& rule, ValueAt value) {
  if (rule.kind == UpscalingRule::Kind::kProportional) {
    return static_cast<double>(rule.total_real) / static_cast<double>(rule.total_sampled);
  }
  return PoissonFactor(value(rule.sum_offset), value(rule.count_offset), rule.sampling_distance);
}

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_UPSCALING_H_
