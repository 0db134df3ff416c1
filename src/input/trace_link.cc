// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/trace_link.h"

namespace stackrec {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

template <size_t N>
bool AllZero(const uint8_t (&id)[N]) {
  uint8_t any = 0;
  for (uint8_t b : id) any |= b;
  return any == 0;
}

template <size_t N>
absl::string_view ToHex(const uint8_t (&id)[N], char* out) {
  for (size_t i = 0; i < N; ++i) {
    out[2 * i] = kHexDigits[id[i] >> 4];
    out[2 * i + 1] = kHexDigits[id[i] & 0xf];
  }
  return absl::string_view(out, 2 * N);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

Status LinkLabels(const uint8_t (&trace_id)[kTraceIdBytes], const uint8_t (&span_id)[kSpanIdBytes],
                  const char* field, LinkHex* hex, LabelView* out) {
  // The W3C trace context, which OpenTelemetry's ids follow, makes an
  // all-zero trace id or span id invalid.
  if (AllZero(trace_id)) {
    return Error(Code::kInvalidArgument,
                 "%s.trace_id is all zero, which OpenTelemetry defines as an invalid trace id",
                 field);
  }
  if (AllZero(span_id)) {
    return Error(Code::kInvalidArgument,
                 "%s.span_id is all zero, which OpenTelemetry defines as an invalid span id",
                 field);
  }
  out[0] = LabelView{kTraceIdKey, ToHex(trace_id, hex->trace), kLinkLabelNum, {}, true};
  out[1] = LabelView{kSpanIdKey, ToHex(span_id, hex->span), kLinkLabelNum, {}, true};
  return OkStatus();
}

bool LinkIdBytes(absl::string_view hex, uint8_t* out) {
  if (hex.size() % 2 != 0) return false;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i / 2] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

}  // namespace stackrec
