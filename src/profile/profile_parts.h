// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What an encoder reads of a profile: its parts themselves, as const
// references, handed out once by Profile::Parts(). The encoders
// (encode_plan.h and the formats under encode/) read the tables, the
// aggregate and the rest here rather than through one Profile accessor per
// table, so Profile stays a facade for writers and the encoders need not
// see it. Readers keep the struct by value: a member of it is one pointer
// away from its part, as a member of Profile was, so the per-sample loops
// pay no extra load.
#ifndef STACKREC_SRC_PROFILE_PROFILE_PARTS_H_
#define STACKREC_SRC_PROFILE_PROFILE_PARTS_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "input/profile_options.h"
#include "input/upscaling.h"
#include "profile/endpoints.h"
#include "tables/aggregate.h"
#include "tables/sample_tables.h"
#include "tables/string_table.h"

namespace stackrec {

// String ids of what the encoders write from the options, and of the
// well-known label keys, interned at every (re)start of a profile so that
// encoding never adds a string (0: unset).
struct OptionStrings {
  // Each declared sample type's (type, unit), enabled or not.
  std::vector<std::pair<StringId, StringId>> sample_types;
  std::pair<StringId, StringId> period_type;
  StringId default_sample_type = 0, drop_frames = 0, keep_frames = 0;
  std::vector<StringId> comments;
  StringId end_timestamp_key = 0, local_root_span_id_key = 0, trace_endpoint_key = 0;
};

// Interns what OptionStrings names into `strings`. The options were
// validated as UTF-8 and the keys are ASCII, so this cannot fail; it may
// throw std::bad_alloc.
OptionStrings InternOptionStrings(const ProfileOptions& options, StringTable* strings);

// Valid while the profile lives; what it refers to must not change while
// an encoder reads it.
struct ProfileParts {
  const ProfileOptions& options;
  // Applied as the samples are written (sample_scaler.h).
  const UpscalingRules& upscaling;
  const SampleTables& tables;
  // The samples: aggregated keys and timestamped samples, each with
  // aggregate.width() values (the enabled sample types).
  const Aggregate& aggregate;
  // Endpoint names by local root span id.
  const Endpoints& endpoints;
  const OptionStrings& ids;
  int64_t start_ns;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_PROFILE_PARTS_H_
