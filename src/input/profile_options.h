// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What a profile measures and how far it may grow: the options a profile
// (each recorder slot) is made with, their defaults, and the pseudo-frames
// its caps write.
#ifndef STACKREC_SRC_INPUT_PROFILE_OPTIONS_H_
#define STACKREC_SRC_INPUT_PROFILE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/status.h"

namespace stackrec {

struct ValueType {
  std::string type, unit;
};

struct ProfileOptions {
  std::vector<ValueType> sample_types;
  std::vector<bool> enabled;  // empty: all enabled; else one per sample type
  ValueType period_type;
  int64_t period = 0;
  // Caps; 0 means the default below.
  size_t max_frames = 0;
  size_t max_memory_bytes = 0;
  size_t max_output_bytes = 0;
  // Written as pprof's default_sample_type, comment, drop_frames and
  // keep_frames; empty means unset. default_sample_type names an enabled
  // sample type.
  std::string default_sample_type;
  std::vector<std::string> comments;
  std::string drop_frames, keep_frames;
};

inline constexpr size_t kDefaultMaxFrames = 512;
inline constexpr size_t kDefaultMaxMemoryBytes = size_t{1} << 30;
// Below protobuf's 2 GiB message limit, which readers enforce.
inline constexpr size_t kDefaultMaxOutputBytes = size_t{1} << 30;

// The pseudo-frame that ends a stack cut to max_frames, `cut` frames
// shorter (samples by string, by location ids and interned stacks alike).
inline std::string TruncatedFrameName(size_t cut) {
  return "[" + std::to_string(cut) + " frames truncated]";
}

// Pseudo-frames the caps write (pprof has no other way to say it).
inline constexpr absl::string_view kStorageFullFrame = "[stackrec: storage full]";
inline constexpr absl::string_view kOutputLimitFrame = "[stackrec: output limit]";

// Validates and copies `in` (the names are reported as "opts.<field>").
Status MakeProfileOptions(const ProfileOptions& in, ProfileOptions* out);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_PROFILE_OPTIONS_H_
