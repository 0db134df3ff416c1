// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The rules every label set follows, whether it comes with a sample or is
// interned on its own, and the label keys that carry a meaning.
#ifndef STACKREC_SRC_INPUT_LABEL_RULES_H_
#define STACKREC_SRC_INPUT_LABEL_RULES_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/status.h"
#include "input/sample_view.h"

namespace stackrec {

// Label keys with a meaning (pprof and the profilers that read it agree on
// them): a sample's end timestamp, which a sample that has timestamp_ns may
// not also carry as a label, and no sample carries as a number; the local
// root span id and the trace endpoint, which tie a sample to the endpoint
// it served.
inline constexpr absl::string_view kEndTimestampKey = "end_timestamp_ns";
inline constexpr absl::string_view kLocalRootSpanIdKey = "local root span id";
inline constexpr absl::string_view kTraceEndpointKey = "trace endpoint";

// The rules every label set follows, errors naming "<array>[i]": a
// non-empty key, not repeated; a string or a number (with its unit), not
// both; no number keyed end_timestamp_ns, which pprof readers take for a
// timestamp and OTLP for an attribute. UTF-8 is checked where strings are
// interned.
Status ValidateLabelSet(absl::Span<const LabelView> labels, const char* array);
// The UTF-8 of every label's key, str and num_unit, errors naming
// "<array>[i].<field>", for callers that check before they intern.
Status ValidateLabelStrings(absl::Span<const LabelView> labels, const char* array);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_LABEL_RULES_H_
