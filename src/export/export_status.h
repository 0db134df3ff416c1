// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// How the exporter reports a failed call: a stackrec_status, and a message
// naming the argument that stackrec_last_error() then returns. The exporter
// is a client of libstackrec's C API, not part of it, so it hands its
// messages to the core's per-thread buffer through stackrec_last_error_set
// rather than keeping a second buffer a host would have to know about.
#ifndef STACKREC_SRC_EXPORT_EXPORT_STATUS_H_
#define STACKREC_SRC_EXPORT_EXPORT_STATUS_H_

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>

#include "stackrec/stackrec.h"

namespace stackrec_export {

// Formats the message (cut to 512 bytes, as the core's buffer holds) and
// returns `code`.
__attribute__((format(printf, 2, 3))) inline stackrec_status Fail(stackrec_status code,
                                                                  const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  stackrec_last_error_set(message);
  return code;
}

// Runs an exported function's body so that no exception unwinds into C.
template <typename F>
stackrec_status Guard(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(STACKREC_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Fail(STACKREC_INTERNAL, "internal error: %s", e.what());
  } catch (...) {
    return Fail(STACKREC_INTERNAL, "internal error: unknown exception");
  }
}

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_EXPORT_STATUS_H_
