// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/sample_checks.h"

#include "base/utf8.h"
#include "input/label_rules.h"

namespace stackrec {

namespace {

bool SameMapping(const MappingView& a, const MappingView& b) {
  return a.memory_start == b.memory_start && a.memory_limit == b.memory_limit &&
         a.file_offset == b.file_offset && a.filename == b.filename && a.build_id == b.build_id;
}

}  // namespace

Status CheckReservedKeys(absl::Span<const LabelView> labels, int64_t timestamp_ns) {
  if (timestamp_ns == 0) return OkStatus();
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].key == kEndTimestampKey) {
      return Error(Code::kInvalidArgument,
                   "sample.labels[%zu].key \"end_timestamp_ns\" is reserved for the sample's "
                   "timestamp_ns",
                   i);
    }
  }
  return OkStatus();
}

Status CheckLabels(absl::Span<const LabelView> labels, int64_t timestamp_ns) {
  if (labels.empty()) return OkStatus();  // the id path's usual case
  STACKREC_RETURN_IF_ERROR(ValidateLabelSet(labels, "sample.labels"));
  return CheckReservedKeys(labels, timestamp_ns);
}

Status CheckInlining(absl::Span<const LocationView> frames) {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (!frames[i].inlined) continue;
    if (i + 1 == frames.size()) {
      return Error(Code::kInvalidArgument,
                   "sample.locations[%zu].inlined is set on the last (root) frame, "
                   "which has no caller to be inlined into",
                   i);
    }
    const LocationView& caller = frames[i + 1];
    if (caller.address != frames[i].address || !SameMapping(caller.mapping, frames[i].mapping)) {
      return Error(Code::kInvalidArgument,
                   "sample.locations[%zu].inlined is set but sample.locations[%zu] has "
                   "another address or mapping",
                   i, i + 1);
    }
  }
  return OkStatus();
}

Status CheckFrameStrings(absl::Span<const LocationView> frames, size_t first) {
  struct Field {
    absl::string_view s;
    const char* name;
  };
  for (size_t i = first; i < frames.size(); ++i) {
    const LocationView& f = frames[i];
    for (const Field& field :
         {Field{f.mapping.filename, "mapping.filename"},
          Field{f.mapping.build_id, "mapping.build_id"}, Field{f.function.name, "function.name"},
          Field{f.function.system_name, "function.system_name"},
          Field{f.function.filename, "function.filename"}}) {
      if (!IsValidUtf8(field.s)) {
        return Error(Code::kInvalidArgument, "sample.locations[%zu].%s is not valid UTF-8", i,
                     field.name);
      }
    }
  }
  return OkStatus();
}

Status CheckStrings(absl::Span<const LocationView> frames, absl::Span<const LabelView> labels) {
  STACKREC_RETURN_IF_ERROR(CheckFrameStrings(frames, 0));
  return ValidateLabelStrings(labels, "sample.labels");
}

}  // namespace stackrec
