// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A sample's trace link (the trace and span it ran under) as two labels
// the profile keeps with the sample's own: "trace_id" and "span_id", each
// the id in lowercase hex. As labels, a link takes part in the label set,
// so it is part of the sample's identity, is summed and carried like any
// label, and costs the tables nothing new; pprof writes the two as they
// are, and the OTLP encoder turns them back into a Link.
//
// Invariant: a stored link label is the only label with both a string and
// a non-zero number (kLinkLabelNum), which ValidateLabelSet refuses for a
// caller's labels; so the encoders tell a link from a caller's "trace_id"
// label without doubt.
#ifndef STACKREC_SRC_INPUT_TRACE_LINK_H_
#define STACKREC_SRC_INPUT_TRACE_LINK_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "base/status.h"
#include "input/sample_view.h"

namespace stackrec {

inline constexpr size_t kTraceIdBytes = 16, kSpanIdBytes = 8;
inline constexpr absl::string_view kTraceIdKey = "trace_id";
inline constexpr absl::string_view kSpanIdKey = "span_id";
inline constexpr int64_t kLinkLabelNum = 1;
inline constexpr size_t kLinkLabels = 2;

// Room for the two ids in hex, which the views LinkLabels makes point into.
struct LinkHex {
  char trace[2 * kTraceIdBytes];
  char span[2 * kSpanIdBytes];
};

// The link's two labels into out[0] and out[1], their strings in *hex.
// An id all zero is refused, naming "<field>.trace_id" or
// "<field>.span_id".
Status LinkLabels(const uint8_t (&trace_id)[kTraceIdBytes], const uint8_t (&span_id)[kSpanIdBytes],
                  const char* field, LinkHex* hex, LabelView* out);

// The bytes a link label's hex string stands for, into `out` (of
// hex.size() / 2 bytes); false unless `hex` is lowercase hex of an even
// length.
bool LinkIdBytes(absl::string_view hex, uint8_t* out);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_TRACE_LINK_H_
