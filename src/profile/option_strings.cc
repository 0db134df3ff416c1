// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// InternOptionStrings: the strings a profile's options give the encoders,
// interned up front into a profile's or a recorder slot's tables, so that
// serialization never has to add a string.
#include "input/label_rules.h"
#include "profile/profile_parts.h"

namespace stackrec {

OptionStrings InternOptionStrings(const ProfileOptions& options, StringTable* strings) {
  // The label keys reach the output only if a sample uses them.
  auto intern = [strings](absl::string_view s) {
    StringId id = 0;
    const bool valid = strings->Intern(s, &id);
    (void)valid;
    return id;
  };
  OptionStrings ids;
  for (const ValueType& t : options.sample_types) {
    ids.sample_types.emplace_back(intern(t.type), intern(t.unit));
  }
  ids.period_type = {intern(options.period_type.type), intern(options.period_type.unit)};
  ids.default_sample_type = intern(options.default_sample_type);
  for (const std::string& c : options.comments) ids.comments.push_back(intern(c));
  ids.drop_frames = intern(options.drop_frames);
  ids.keep_frames = intern(options.keep_frames);
  ids.end_timestamp_key = intern(kEndTimestampKey);
  ids.local_root_span_id_key = intern(kLocalRootSpanIdKey);
  ids.trace_endpoint_key = intern(kTraceEndpointKey);
  return ids;
}

}  // namespace stackrec
