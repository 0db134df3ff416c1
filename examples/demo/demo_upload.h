// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The demo's --upload: the recorded profile shipped to a backend with
// libstackrec_export, as a host's profiler would at the end of a period.
#ifndef STACKREC_EXAMPLES_DEMO_DEMO_UPLOAD_H_
#define STACKREC_EXAMPLES_DEMO_DEMO_UPLOAD_H_

#include <string>

#include "stackrec/stackrec.h"

namespace demo {

// Whether --protocol names a target Upload knows.
inline bool KnownProtocol(const std::string& protocol) {
  return protocol == "otlp" || protocol == "pyroscope" || protocol == "datadog";
}

// Serializes `profile` in the format and within the budget of `protocol`,
// sends every part to `url`, flushes with a deadline and prints the
// exporter's stats. Returns the exit code: 0 when every part was sent.
// Built only with libstackrec_export (STACKREC_DEMO_UPLOAD).
int Upload(stackrec_profile* profile, const std::string& url, const std::string& protocol);

}  // namespace demo

#endif  // STACKREC_EXAMPLES_DEMO_DEMO_UPLOAD_H_
