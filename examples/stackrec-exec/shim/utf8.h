// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec refuses strings that are not UTF-8 (pprof's readers would), but
// what the shim finds in a process is bytes: thread names, file paths, symbol
// names. This makes any of them acceptable.
#ifndef STACKREC_EXEC_SHIM_UTF8_H_
#define STACKREC_EXEC_SHIM_UTF8_H_

#include <string>
#include <string_view>

namespace stackrec_exec {

// `in` with every byte that does not start a valid, shortest-form UTF-8
// sequence (no surrogates, nothing past U+10FFFF) replaced by '?'.
std::string SanitizeUtf8(std::string_view in);

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_UTF8_H_
