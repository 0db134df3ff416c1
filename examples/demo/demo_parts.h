// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-demo --budget: the profile serialized within a backend's
// limits, as parts (docs/limits.md#budgets). Each part is written to a file
// of its own, read back, decoded with the generated classes and printed;
// the demo then checks that the parts together hold what was recorded.
#ifndef STACKREC_EXAMPLES_DEMO_DEMO_PARTS_H_
#define STACKREC_EXAMPLES_DEMO_DEMO_PARTS_H_

#include <cstdint>
#include <map>
#include <string>

#include "stackrec/stackrec.h"

namespace demo {

// Sets the budget fields of *opts from a backend's name ("datadog",
// "pyroscope", "otlp-http", "otlp-grpc") or from "bytes=N,uncompressed=N,
// samples=N,parts=N" (any of them). False if `text` is neither.
bool ParseBudget(const std::string& text, stackrec_serialize_options* opts);

// What the parts hold together.
struct PartsSummary {
  std::map<std::string, int64_t> totals;  // by sample type
  int64_t samples = 0;                    // pprof samples (OTLP: of each Profile)
  bool ok = true;                         // every part decoded and was within the budget
};

// Writes part i of `encoded` to "<path>.<i>", reads it back, gunzips it
// with `gunzip` when it is gzip, decodes it (pprof, or OTLP if `otlp`),
// checks it against the budget of `opts`, and prints one line for it.
PartsSummary WriteParts(const stackrec_encoded* encoded, const stackrec_serialize_options& opts,
                        const std::string& path, bool otlp,
                        std::string (*gunzip)(const std::string&));

}  // namespace demo

#endif  // STACKREC_EXAMPLES_DEMO_DEMO_PARTS_H_
