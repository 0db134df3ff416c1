// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/profile_options.h"

#include <cinttypes>

#include "base/utf8.h"

namespace stackrec {
namespace {

Status CheckUtf8(absl::string_view s, const char* field) {
  if (!IsValidUtf8(s)) {
    return Error(Code::kInvalidArgument, "%s is not valid UTF-8", field);
  }
  return OkStatus();
}

}  // namespace

Status MakeProfileOptions(const ProfileOptions& in, ProfileOptions* out) {
  if (in.sample_types.empty()) {
    return Error(Code::kInvalidArgument,
                 "opts.sample_types_len is 0: a profile needs at least one "
                 "sample type");
  }
  if (!in.enabled.empty() && in.enabled.size() != in.sample_types.size()) {
    return Error(Code::kInternal, "opts.sample_types_enabled has %zu flags for %zu types",
                 in.enabled.size(), in.sample_types.size());
  }
  bool any_enabled = in.enabled.empty();
  for (size_t i = 0; i < in.sample_types.size(); ++i) {
    const ValueType& t = in.sample_types[i];
    if (t.type.empty()) {
      return Error(Code::kInvalidArgument, "opts.sample_types[%zu].type is empty", i);
    }
    if (!IsValidUtf8(t.type)) {
      return Error(Code::kInvalidArgument, "opts.sample_types[%zu].type is not valid UTF-8", i);
    }
    if (!IsValidUtf8(t.unit)) {
      return Error(Code::kInvalidArgument, "opts.sample_types[%zu].unit is not valid UTF-8", i);
    }
    if (!in.enabled.empty() && in.enabled[i]) any_enabled = true;
  }
  if (!any_enabled) {
    return Error(Code::kInvalidArgument, "opts.sample_types_enabled disables every sample type");
  }
  if (in.period < 0) {
    return Error(Code::kInvalidArgument, "opts.period is negative (%" PRId64 ")", in.period);
  }
  if (in.period_type.type.empty() && !in.period_type.unit.empty()) {
    return Error(Code::kInvalidArgument, "opts.period_type.type is empty but its unit is set");
  }
  STACKREC_RETURN_IF_ERROR(CheckUtf8(in.period_type.type, "opts.period_type.type"));
  STACKREC_RETURN_IF_ERROR(CheckUtf8(in.period_type.unit, "opts.period_type.unit"));
  if (!in.default_sample_type.empty()) {
    bool found = false;
    for (size_t i = 0; i < in.sample_types.size() && !found; ++i) {
      found = in.sample_types[i].type == in.default_sample_type &&
              (in.enabled.empty() || in.enabled[i]);
    }
    if (!found) {
      return Error(Code::kInvalidArgument,
                   "opts.default_sample_type \"%s\" is not the type of an "
                   "enabled sample type",
                   in.default_sample_type.c_str());
    }
  }
  for (size_t i = 0; i < in.comments.size(); ++i) {
    if (!IsValidUtf8(in.comments[i])) {
      return Error(Code::kInvalidArgument, "opts.comments[%zu] is not valid UTF-8", i);
    }
  }
  STACKREC_RETURN_IF_ERROR(CheckUtf8(in.drop_frames, "opts.drop_frames"));
  STACKREC_RETURN_IF_ERROR(CheckUtf8(in.keep_frames, "opts.keep_frames"));
  *out = in;
  if (out->max_frames == 0) out->max_frames = kDefaultMaxFrames;
  if (out->max_memory_bytes == 0) out->max_memory_bytes = kDefaultMaxMemoryBytes;
  if (out->max_output_bytes == 0) out->max_output_bytes = kDefaultMaxOutputBytes;
  return OkStatus();
}

}  // namespace stackrec
