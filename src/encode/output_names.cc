// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/output_names.h"

#include <algorithm>

#include "input/backend_names.h"

namespace stackrec {

OutputNames::OutputNames(const ProfileParts& parts, const SerializeOptions& options)
    : strings_(parts.tables.strings()),
      table_size_(parts.tables.strings().size()),
      active_(options.target == Target::kPyroscope),
      series_labels_(options.series_labels) {
  const OptionStrings& ids = parts.ids;
  auto type_name = [&](StringId id) {
    return active_ && id != 0 ? Named(id, PyroscopeTypeName(strings_.Get(id))) : id;
  };
  sample_types_.reserve(ids.sample_types.size());
  for (const auto& type_unit : ids.sample_types)
    sample_types_.push_back(type_name(type_unit.first));
  period_type_ = type_name(ids.period_type.first);
  default_sample_type_ = type_name(ids.default_sample_type);
}

StringId OutputNames::Named(StringId recorded, const std::string& written) {
  if (written == strings_.Get(recorded)) return recorded;
  if (const StringId own = strings_.Find(written); own != 0) return own;
  for (size_t i = 0; i < extra_.size(); ++i) {
    if (extra_[i] == written) return static_cast<StringId>(table_size_ + i);
  }
  extra_.push_back(written);
  return static_cast<StringId>(table_size_ + extra_.size() - 1);
}

StringId OutputNames::DecideStringKey(StringId key) {
  const absl::string_view recorded = strings_.Get(key);
  if (recorded == kPyroscopeSampleLabel) return key;
  const bool series =
      std::find(series_labels_.begin(), series_labels_.end(), recorded) != series_labels_.end();
  return series ? Named(key, PrometheusName(recorded)) : kDropped;
}

}  // namespace stackrec
