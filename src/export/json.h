// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The few text encodings Datadog's event.json needs: a JSON string literal
// and an RFC 3339 time with nanoseconds. Written by hand because the event
// has six fields and the library should not carry a JSON library for them;
// the escaper is the part that must be exactly right, and is tested alone.
#ifndef STACKREC_SRC_EXPORT_JSON_H_
#define STACKREC_SRC_EXPORT_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace stackrec_export {

// Appends `s`, valid UTF-8, as a JSON string literal with its quotes: `"`
// and `\` escaped, control characters as \n, \t, ... or \u00XX, and the rest
// (non-ASCII included) as is, which RFC 8259 allows.
void AppendJsonString(std::string_view s, std::string* out);

// Unix nanoseconds as "2026-01-02T03:04:05.123456789Z" (UTC, always nine
// digits). Negative times are written as 1970-01-01T00:00:00.000000000Z.
std::string Rfc3339Nanos(int64_t unix_ns);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_JSON_H_
