// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The C++ shape of a sample as a caller hands it in: borrowed views, valid
// for one call. c_sample.h and c_convert.h convert stackrec.h's structs into these.
#ifndef STACKREC_SRC_INPUT_SAMPLE_VIEW_H_
#define STACKREC_SRC_INPUT_SAMPLE_VIEW_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace stackrec {

struct MappingView {
  uint64_t memory_start = 0, memory_limit = 0, file_offset = 0;
  absl::string_view filename, build_id;
};
struct FunctionView {
  absl::string_view name, system_name, filename;
  int64_t start_line = 0;
};
struct LocationView {
  MappingView mapping;
  FunctionView function;
  uint64_t address = 0;
  int64_t line = 0;
  // Inlined into the next frame, which has the same address and mapping.
  bool inlined = false;
};
struct LabelView {
  absl::string_view key, str;
  int64_t num = 0;
  absl::string_view num_unit;
  // One of the two labels a sample's trace link becomes (label_rules.h,
  // LinkLabels): the rules of a caller's labels do not apply to it. Not
  // part of the label's content: a label set read back from a table, whose
  // views have it false, fingerprints and interns as it did.
  bool link = false;
};
struct SampleView {
  absl::Span<const LocationView> locations;
  absl::Span<const int64_t> values;
  absl::Span<const LabelView> labels;
  int64_t timestamp_ns = 0;
};

// A sample by pre-interned ids (dictionary.h): a stack id, or, when it is
// 0, a sequence of location ids.
struct IdSampleView {
  uint32_t stack_id = 0;
  absl::Span<const uint32_t> location_ids;
  absl::Span<const int64_t> values;
  absl::Span<const LabelView> labels;
  int64_t timestamp_ns = 0;
  uint32_t labels_id = 0;  // 0: `labels`
  // `labels` ends with the trace link's two labels, and holds only them
  // when labels_id is set.
  bool has_link = false;
};

// All zero and empty: the frame has no mapping, or no function, and is
// written without one.
inline bool IsNoMapping(const MappingView& m) {
  return m.memory_start == 0 && m.memory_limit == 0 && m.file_offset == 0 && m.filename.empty() &&
         m.build_id.empty();
}
inline bool IsNoFunction(const FunctionView& f) {
  return f.name.empty() && f.system_name.empty() && f.filename.empty() && f.start_line == 0;
}

// Frame i of a sample's frames as a view.
using FrameAt = absl::FunctionRef<LocationView(size_t)>;

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_SAMPLE_VIEW_H_
