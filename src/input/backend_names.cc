// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/backend_names.h"

#include "absl/strings/match.h"

namespace stackrec {

std::string PyroscopeTypeName(absl::string_view type) {
  static constexpr struct {
    absl::string_view recorded, pyroscope;
  } kKnown[] = {
      {"cpu-time", "cpu"},
      {"cpu-samples", "samples"},
      {"wall-time", "wall"},
      {"alloc-samples", "alloc_objects"},
      {"alloc-size", "alloc_space"},
      {"heap-live-samples", "inuse_objects"},
      {"heap-live-size", "inuse_space"},
  };
  for (const auto& k : kKnown) {
    if (type == k.recorded) return std::string(k.pyroscope);
  }
  return PrometheusName(type);
}

std::string PyroscopeProfileType(absl::string_view t) {
  if (t == "wall") return "wall";
  if (t == "samples" || absl::StrContains(t, "cpu")) return "process_cpu";
  if (absl::StrContains(t, "alloc_") || absl::StrContains(t, "inuse_") || t == "space" ||
      t == "objects") {
    return "memory";
  }
  if (absl::StrContains(t, "mutex_")) return "mutex";
  if (absl::StrContains(t, "block_")) return "block";
  if (absl::StrContains(t, "goroutines")) return "goroutines";
  return std::string(t);
}

std::string PrometheusName(absl::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  if (!name.empty() && name[0] >= '0' && name[0] <= '9') out.push_back('_');
  for (const char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  return out;
}

}  // namespace stackrec
