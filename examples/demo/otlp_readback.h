// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-demo --format otlp: the file read back as an OpenTelemetry
// profiles request, with the classes generated from testkit/otlp/, and checked
// against what the demo recorded, as the pprof file is.
#ifndef STACKREC_EXAMPLES_DEMO_OTLP_READBACK_H_
#define STACKREC_EXAMPLES_DEMO_OTLP_READBACK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace demo {

// What the file must hold: per sample type (in declaration order) its name,
// unit and total; the number of distinct (stack, labels) recorded; each
// request's endpoint by span id; the service the resource names.
struct OtlpExpected {
  const char* const (*types)[2];
  const int64_t* totals;
  size_t type_count;
  size_t keys;
  const std::unordered_map<int64_t, const char*>* endpoint_of_span;
  std::string service_name;
};

// Parses `raw` (uncompressed) and prints each check as the demo does;
// returns false if the bytes do not parse or a check failed. *samples is
// set to the number of Samples of each Profile.
bool VerifyOtlp(const std::string& raw, const OtlpExpected& expected, int64_t* samples);

}  // namespace demo

#endif  // STACKREC_EXAMPLES_DEMO_OTLP_READBACK_H_
