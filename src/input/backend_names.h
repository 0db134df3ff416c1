// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The names a backend keeps. Profilers name their sample types and label
// keys for people ("cpu-time", "thread name"); some backends refuse such
// names outright. Grafana Pyroscope refuses a whole profile whose sample
// type holds a '-' (pkg/validation/validate.go, "sample type contains -"),
// turns every string label of a sample into a series label, and, at its
// 1.x default, refuses a series label name outside [A-Za-z_.][A-Za-z0-9_.]*.
// A serialization for such a backend (SerializeOptions::target) writes the
// names given here instead of the recorded ones; the recorded profile keeps
// its own. Pure functions of the names, so the encoder, the C boundary and
// the tests all agree on them.
#ifndef STACKREC_SRC_INPUT_BACKEND_NAMES_H_
#define STACKREC_SRC_INPUT_BACKEND_NAMES_H_

#include <string>

#include "absl/strings/string_view.h"

namespace stackrec {

// The values of stackrec_target.
enum class Target : int { kAny = 0, kPyroscope = 1 };

// Pyroscope's name for a sample or period type: the well-known ones as Go's
// runtime and Pyroscope's own agents name them, so that Pyroscope files
// them under its CPU, wall and memory profile types ("cpu-time" -> "cpu",
// "wall-time" -> "wall", "alloc-samples" -> "alloc_objects", "alloc-size"
// -> "alloc_space", "heap-live-samples" -> "inuse_objects",
// "heap-live-size" -> "inuse_space", "cpu-samples" -> "samples"); any
// other, PrometheusName of it.
std::string PyroscopeTypeName(absl::string_view type);

// The profile type Pyroscope files a pprof's samples under, named after
// its sample types (pkg/og/convert/pprof/profile.go, metricName): what it
// names by a written type alone, "process_cpu" for "cpu" and "samples",
// "wall", "memory" for allocations and in-use objects and space, "mutex",
// "block", "goroutines", or the type itself. A pprof whose types share one
// lands where each belongs; types of several are written apart.
std::string PyroscopeProfileType(absl::string_view written_type);

// `name` as a Prometheus (legacy) label name, [A-Za-z_][A-Za-z0-9_]*: each
// other byte becomes '_', and a leading digit gets a '_' before it. Empty
// stays empty.
std::string PrometheusName(absl::string_view name);

// Label keys Pyroscope keeps on the sample rather than making a series of
// them: span_id at every version (pkg/model/pprofsplit/pprof_split.go).
inline constexpr absl::string_view kPyroscopeSampleLabel = "span_id";

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_BACKEND_NAMES_H_
