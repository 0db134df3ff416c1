// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/sample_scaler.h"

#include <algorithm>

#include "input/upscaling.h"

namespace stackrec {

SampleScaler::SampleScaler(const ProfileParts& parts)
    : rules_(parts.upscaling.rules()),
      width_(parts.aggregate.width()),
      label_rules_(parts.tables.label_sets().size(), 0) {
  const ProfileOptions& o = parts.options;
  int stored = 0;
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    stored_index_.push_back(o.enabled[i] ? stored++ : -1);
  }
  const StringTable& strings = parts.tables.strings();
  for (size_t r = 0; r < rules_.size(); ++r) {
    const UpscalingRule& rule = rules_[r];
    if (rule.label_key.empty()) {
      unconditional_rules_ |= uint64_t{1} << r;
      rule_labels_.emplace_back(0, 0);
      continue;
    }
    // A string the profile never interned is on no label: key 0.
    const StringId key = strings.Find(rule.label_key);
    const StringId str = rule.label_str.empty() ? 0 : strings.Find(rule.label_str);
    const bool findable = rule.label_str.empty() || str != 0;
    rule_labels_.emplace_back(findable ? key : 0, str);
  }
  scaled_.resize(width_);
}

void SampleScaler::MatchLabels(uint32_t labels, absl::Span<const Label> set) {
  for (size_t r = 0; r < rules_.size(); ++r) {
    const auto [key, str] = rule_labels_[r];
    if (key == 0) continue;
    for (const Label& l : set) {
      if (l.key != key) continue;
      const bool match =
          rules_[r].label_str.empty() ? l.str == 0 && l.num == rules_[r].label_num : l.str == str;
      if (match) label_rules_[labels] |= uint64_t{1} << r;
    }
  }
}

const int64_t* SampleScaler::Scaled(uint32_t labels, const int64_t* values) const {
  uint64_t rules = unconditional_rules_ | label_rules_[labels];
  if (rules == 0) return values;
  std::copy(values, values + width_, scaled_.begin());
  // Offsets of the rules applying to one sample never overlap (see
  // upscaling.h), so each reads the values as recorded.
  auto value_at = [&](size_t offset) { return values[stored_index_[offset]]; };
  while (rules != 0) {
    const UpscalingRule& rule = rules_[static_cast<size_t>(__builtin_ctzll(rules))];
    rules &= rules - 1;
    const double scale = UpscalingFactor(rule, value_at);
    for (size_t offset : rule.offsets) {
      const int i = stored_index_[offset];
      scaled_[i] = ScaleValue(values[i], scale);
    }
  }
  return scaled_.data();
}

}  // namespace stackrec
