// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#ifndef STACKREC_SRC_BASE_UTF8_H_
#define STACKREC_SRC_BASE_UTF8_H_

#include "absl/strings/string_view.h"

namespace stackrec {

// True when `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). pprof's string_table is a proto3
// `repeated string`, and proto3 parsers reject invalid UTF-8 there, so one bad
// byte would make the whole profile unreadable. We check each string once,
// when it is first interned. libstackrec_export checks its options' strings
// with it too: JSON text and the HTTP values built from them must be UTF-8.
bool IsValidUtf8(absl::string_view s);

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_UTF8_H_
