// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The names an encoding writes when it is for a backend with naming rules
// of its own (SerializeOptions::target, input/backend_names.h): which
// string each sample type, the period type and each label key is written
// as, and which labels are left out. A name the profile does not hold gets
// an id past the end of the profile's string table, which DenseIds numbers
// like any other and the writer looks up here; nothing is added to the
// profile, which keeps its own names for the next serialization.
//
// With no target every call returns the id it is given, so an untargeted
// encoding writes exactly what it always did.
#ifndef STACKREC_SRC_ENCODE_OUTPUT_NAMES_H_
#define STACKREC_SRC_ENCODE_OUTPUT_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/table_memory.h"
#include "input/serialize_options.h"
#include "profile/profile_parts.h"

namespace stackrec {

class OutputNames {
 public:
  // A label key that is not written: the label is left out.
  static constexpr StringId kDropped = ~StringId{0};

  OutputNames(const ProfileParts& parts, const SerializeOptions& options);

  // Whether the encoding is for a backend with names of its own; if not,
  // every call below returns what it is given.
  bool active() const { return active_; }

  // The type string of the i-th declared sample type, of the period type,
  // and default_sample_type, as written.
  StringId SampleType(size_t i) const { return sample_types_[i]; }
  StringId PeriodType() const { return period_type_; }
  StringId DefaultSampleType() const { return default_sample_type_; }

  // The key a label keyed `key` is written with, or kDropped; `is_string`
  // says whether it is a string label (str set) or a numeric one.
  StringId LabelKey(StringId key, bool is_string) {
    if (!active_ || !is_string) return key;
    if (key >= string_keys_.size()) string_keys_.resize(size_t{key} + 1, kUnknown);
    StringId& out = string_keys_[key];
    if (out == kUnknown) out = DecideStringKey(key);
    return out;
  }

  // LabelKey for a key LabelKey has decided already: what a writer looks
  // up per sample, after marking every label set it writes.
  StringId DecidedLabelKey(StringId key, bool is_string) const {
    return !active_ || !is_string ? key : string_keys_[key];
  }

  // The text of a string id: the profile's, or one of this encoding's own.
  absl::string_view Text(StringId id) const {
    return id < table_size_ ? strings_.Get(id) : absl::string_view(extra_[id - table_size_]);
  }

 private:
  static constexpr StringId kUnknown = 0;  // no key is id 0 ("")
  // The id to write for `written`, which stands for the recorded string
  // `recorded`: that one if unchanged, else the profile's own copy of
  // `written` if it has one, else one of this encoding's own ids.
  StringId Named(StringId recorded, const std::string& written);
  StringId DecideStringKey(StringId key);

  const StringTable& strings_;
  const size_t table_size_;
  const bool active_;
  const std::vector<std::string>& series_labels_;
  std::vector<std::string> extra_;  // ids table_size_ + i
  std::vector<StringId> sample_types_;
  StringId period_type_ = 0, default_sample_type_ = 0;
  // Per string-label key id: its decision, once made (kUnknown before).
  TableVector<StringId> string_keys_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_OUTPUT_NAMES_H_
