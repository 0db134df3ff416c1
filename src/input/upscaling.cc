// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/upscaling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "base/utf8.h"
#include "input/profile_options.h"

namespace stackrec {
namespace {

// Declared offset `offset` of `field` must name an enabled sample type.
Status CheckOffset(size_t offset, const ProfileOptions& options, const char* field) {
  const size_t types = options.sample_types.size();
  if (offset >= types) {
    return Error(Code::kInvalidArgument, "%s is %zu but the profile declares %zu sample types",
                 field, offset, types);
  }
  if (!options.enabled.empty() && !options.enabled[offset]) {
    return Error(Code::kInvalidArgument, "%s is %zu, a disabled sample type (\"%s\")", field,
                 offset, options.sample_types[offset].type.c_str());
  }
  return OkStatus();
}

// Whether one sample can carry the labels both rules ask for. A sample has
// at most one label per key, so only the same key with different values
// excludes the other rule; a rule without a label matches every sample.
bool CanMatchTheSameSample(const UpscalingRule& a, const UpscalingRule& b) {
  if (a.label_key.empty() || b.label_key.empty()) return true;
  if (a.label_key != b.label_key) return true;
  return a.label_str == b.label_str && a.label_num == b.label_num;
}

}  // namespace

Status UpscalingRules::Add(UpscalingRule rule, const ProfileOptions& options) {
  if (rule.offsets.empty()) {
    return Error(Code::kInvalidArgument,
                 "rule.value_offsets_len is 0: a rule scales at least one value");
  }
  char field[64];
  for (size_t i = 0; i < rule.offsets.size(); ++i) {
    std::snprintf(field, sizeof(field), "rule.value_offsets[%zu]", i);
    STACKREC_RETURN_IF_ERROR(CheckOffset(rule.offsets[i], options, field));
    for (size_t j = 0; j < i; ++j) {
      if (rule.offsets[j] == rule.offsets[i]) {
        return Error(Code::kInvalidArgument,
                     "rule.value_offsets[%zu] repeats rule.value_offsets[%zu] (%zu)", i, j,
                     rule.offsets[i]);
      }
    }
  }
  switch (rule.kind) {
    case UpscalingRule::Kind::kProportional:
      if (rule.total_sampled == 0) {
        return Error(Code::kInvalidArgument, "rule.total_sampled is 0");
      }
      break;
    case UpscalingRule::Kind::kPoisson:
      STACKREC_RETURN_IF_ERROR(CheckOffset(rule.sum_offset, options, "rule.sum_value_offset"));
      STACKREC_RETURN_IF_ERROR(CheckOffset(rule.count_offset, options, "rule.count_value_offset"));
      if (rule.sampling_distance == 0) {
        return Error(Code::kInvalidArgument, "rule.sampling_distance is 0");
      }
      break;
  }
  if (rule.label_key.empty() && (!rule.label_str.empty() || rule.label_num != 0)) {
    return Error(Code::kInvalidArgument,
                 "rule.label_key is empty but a label value is set (an empty key "
                 "means every sample)");
  }
  if (!rule.label_str.empty() && rule.label_num != 0) {
    return Error(Code::kInvalidArgument,
                 "rule.label_str and rule.label_num are both set: a label is a "
                 "string or a number");
  }
  if (!IsValidUtf8(rule.label_key)) {
    return Error(Code::kInvalidArgument, "rule.label_key is not valid UTF-8");
  }
  if (!IsValidUtf8(rule.label_str)) {
    return Error(Code::kInvalidArgument, "rule.label_str is not valid UTF-8");
  }
  for (size_t r = 0; r < rules_.size(); ++r) {
    const UpscalingRule& other = rules_[r];
    if (!CanMatchTheSameSample(rule, other)) continue;
    for (size_t offset : rule.offsets) {
      if (std::find(other.offsets.begin(), other.offsets.end(), offset) != other.offsets.end()) {
        return Error(Code::kInvalidArgument,
                     "rule.value_offsets: offset %zu is already scaled by rule %zu "
                     "for samples this rule also matches",
                     offset, r);
      }
    }
  }
  if (rules_.size() == kMaxRules) {
    return Error(Code::kLimitExceeded,
                 "the profile has %zu upscaling rules already, the most it takes", kMaxRules);
  }
  rules_.push_back(std::move(rule));
  return OkStatus();
}

double PoissonFactor(int64_t sum, int64_t count, uint64_t sampling_distance) {
  if (sum <= 0 || count <= 0) return 1.0;
  const double mean = static_cast<double>(sum) / static_cast<double>(count);
  // 1 - exp(-x) through expm1, which stays exact for the small x of a mean
  // far below the sampling distance.
  return 1.0 / -std::expm1(-mean / static_cast<double>(sampling_distance));
}

int64_t ScaleValue(int64_t value, double scale) {
  if (value == 0) return 0;
  // long double keeps int64 values exact (64-bit mantissa on x86-64).
  const long double scaled = static_cast<long double>(value) * scale;
  // Anything that would round to 2^63 or beyond saturates (llroundl would
  // overflow); scale is finite and positive, so scaled is not NaN.
  constexpr long double kLimit = 9223372036854775807.5L;  // 2^63 - 0.5
  if (scaled >= kLimit) return std::numeric_limits<int64_t>::max();
  if (scaled <= -kLimit - 1) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(std::llroundl(scaled));
}

}  // namespace stackrec
