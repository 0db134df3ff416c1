// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Str(): a C or C++ string as the C API's stackrec_str, for the workloads,
// the benchmarks and the demo. The view borrows the string, which must
// outlive every call that reads it; a temporary std::string is refused at
// compile time, since its view would dangle once the statement ends.
#ifndef STACKREC_WORKLOADS_STACKREC_STR_H_
#define STACKREC_WORKLOADS_STACKREC_STR_H_

#include <cstring>
#include <string>

#include "stackrec/stackrec.h"

namespace stackrec_workloads {

inline stackrec_str Str(const char* s) { return {s, std::strlen(s)}; }
inline stackrec_str Str(const std::string& s) { return {s.data(), s.size()}; }
stackrec_str Str(std::string&&) = delete;

}  // namespace stackrec_workloads

#endif  // STACKREC_WORKLOADS_STACKREC_STR_H_
