// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The guard every exported function of both libraries runs its body in: no
// C++ exception may unwind into C, so one becomes a status and a message.
//
// What is caught, and which code each gets, is written once here. Where the
// message goes is the boundary's: capi/ writes this thread's buffer of
// base/status directly, while libstackrec_export, a shared library of its
// own, must not compile status.cc (its copy of the thread-local buffer would
// be a second one, which stackrec_last_error() never reads) and hands the
// message to the core through the exported stackrec_last_error_set. So the
// caller passes how to fail.
#ifndef STACKREC_SRC_BASE_GUARD_H_
#define STACKREC_SRC_BASE_GUARD_H_

#include <cstdio>
#include <exception>
#include <new>

#include "base/status.h"

namespace stackrec {

// Returns what `body()` returns or, when it throws, what
// `fail(Code, const char* message)` returns: kOutOfMemory for
// std::bad_alloc (the core reports bad input through its status and throws
// nothing else), kInternal with the exception's what() for anything else.
// The message is built on the stack, so failing after a std::bad_alloc does
// not allocate again; `fail` must not throw.
template <typename Fail, typename Body>
auto GuardedCall(Fail&& fail, Body&& body) noexcept -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(Code::kOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    char message[kErrorMessageBytes];
    std::snprintf(message, sizeof(message), "internal error: %s", e.what());
    return fail(Code::kInternal, message);
  } catch (...) {
    return fail(Code::kInternal, "internal error: unknown exception");
  }
}

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_GUARD_H_
