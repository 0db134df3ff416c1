// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "base/status.h"

#include <cstdarg>
#include <cstdio>

namespace stackrec {
namespace {

// Fixed size so that reporting an error never allocates. Long messages are
// truncated; they always name the argument first.
thread_local char last_error[kErrorMessageBytes] = "";

}  // namespace

Status Error(Code code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(last_error, sizeof(last_error), format, args);
  va_end(args);
  return Status(code);
}

const char* LastErrorMessage() { return last_error; }

void SetLastErrorMessage(const char* message) {
  std::snprintf(last_error, sizeof(last_error), "%s", message == nullptr ? "" : message);
}

}  // namespace stackrec
