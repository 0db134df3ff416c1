// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/sample_checks.h"

#include <cstdio>

#include "base/utf8.h"
#include "input/label_rules.h"

namespace stackrec {

namespace {

bool SameMapping(const MappingView& a, const MappingView& b) {
  return a.memory_start == b.memory_start && a.memory_limit == b.memory_limit &&
         a.file_offset == b.file_offset && a.filename == b.filename && a.build_id == b.build_id;
}

// The name of a checked part, for its error: "sample.locations[3].mapping",
// or `part` alone ("mapping") for a part interned by itself. Formatted only
// once a rule is broken.
struct PartName {
  PartName(const char* array, size_t index, const char* part) {
    if (array == nullptr) {
      std::snprintf(text, sizeof(text), "%s", part);
    } else {
      std::snprintf(text, sizeof(text), "%s[%zu]%s%s", array, index, *part == '\0' ? "" : ".",
                    part);
    }
  }
  char text[96];
};

}  // namespace

Status CheckMappingRange(const MappingView& m, const char* array, size_t index) {
  if (m.memory_start < m.memory_limit || (m.memory_start == 0 && m.memory_limit == 0)) {
    return OkStatus();
  }
  const PartName at(array, index, "mapping");
  return Error(Code::kInvalidArgument,
               "%s.memory_limit 0x%llx is not above %s.memory_start 0x%llx: the range "
               "[memory_start, memory_limit) is %s",
               at.text, static_cast<unsigned long long>(m.memory_limit), at.text,
               static_cast<unsigned long long>(m.memory_start),
               m.memory_start == m.memory_limit ? "empty" : "inverted");
}

Status CheckFunctionFields(const FunctionView& f, const char* array, size_t index) {
  if (f.start_line < 0) {
    return Error(Code::kInvalidArgument,
                 "%s.start_line is %lld: lines count from 1, and 0 means none",
                 PartName(array, index, "function").text, static_cast<long long>(f.start_line));
  }
  if (f.start_line != 0 && f.name.empty() && f.system_name.empty() && f.filename.empty()) {
    return Error(Code::kInvalidArgument,
                 "%s has a start_line but no name, system_name or filename: a function is "
                 "named",
                 PartName(array, index, "function").text);
  }
  return OkStatus();
}

Status CheckLine(int64_t line, const char* array, size_t index) {
  if (line >= 0) return OkStatus();
  return Error(Code::kInvalidArgument, "%s is %lld: lines count from 1, and 0 means none",
               PartName(array, index, array == nullptr ? "location.line" : "line").text,
               static_cast<long long>(line));
}

Status CheckFrameFields(const LocationView& frame, size_t index) {
  static constexpr const char* kArray = "sample.locations";
  STACKREC_RETURN_IF_ERROR(CheckLine(frame.line, kArray, index));
  STACKREC_RETURN_IF_ERROR(CheckMappingRange(frame.mapping, kArray, index));
  STACKREC_RETURN_IF_ERROR(CheckFunctionFields(frame.function, kArray, index));
  if (frame.address == 0 && IsNoMapping(frame.mapping) && IsNoFunction(frame.function)) {
    return Error(Code::kInvalidArgument,
                 "%s has no mapping, function or address: a frame holds at least one",
                 PartName(kArray, index, "").text);
  }
  return OkStatus();
}

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
  // The reserved key first: on a timestamped sample it is refused for
  // what it is, whatever it holds.
  STACKREC_RETURN_IF_ERROR(CheckReservedKeys(labels, timestamp_ns));
  return ValidateLabelSet(labels, "sample.labels");
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
    STACKREC_RETURN_IF_ERROR(CheckFrameFields(f, i));
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
