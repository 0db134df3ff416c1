// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// How the exporter reports a failed call: a stackrec_status, and a message
// naming the argument that stackrec_last_error() then returns. The exporter
// is a client of libstackrec's C API, not part of it, so it hands its
// messages to the core's per-thread buffer through stackrec_last_error_set
// rather than keeping a second buffer a host would have to know about: it
// never calls base/status's Error() or SetLastErrorMessage(), which the
// shared libstackrec_export does not compile (its link, with
// --no-undefined, would fail if it did).
#ifndef STACKREC_SRC_EXPORT_EXPORT_STATUS_H_
#define STACKREC_SRC_EXPORT_EXPORT_STATUS_H_

#include <cstdarg>
#include <cstdio>

#include "base/guard.h"
#include "base/status.h"
#include "stackrec/stackrec.h"

namespace stackrec_export {

// Formats the message (cut to what the core's buffer holds) and returns
// `code`.
__attribute__((format(printf, 2, 3))) inline stackrec_status Fail(stackrec_status code,
                                                                  const char* format, ...) {
  char message[stackrec::kErrorMessageBytes];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  stackrec_last_error_set(message);
  return code;
}

// Runs an exported function's body in base/'s guard, which reports an
// exception's message through Fail(), so that no exception unwinds into C.
// base's codes mirror stackrec_status value for value (capi/c_api.cc
// static_asserts it).
template <typename F>
stackrec_status Guard(F&& body) noexcept {
  return stackrec::GuardedCall(
      [](stackrec::Code code, const char* message) {
        return Fail(static_cast<stackrec_status>(code), "%s", message);
      },
      body);
}

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_EXPORT_STATUS_H_
