// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Grafana Pyroscope's acceptance of an /ingest request, ported rule by rule
// from its source, so that a test of what the exporter sends is judged by
// what Pyroscope keeps, not by our picture of it. Two versions are ported,
// where they differ: its main branch (2.x, past 2.2.1) and the last 1.x
// release (1.21.1). Each rule cites its file and line as
// "file:line@main" ("@v1" where only 1.x's line differs); defaults are
// those of pkg/validation/limits.go. The port is checked against Pyroscope's
// own test vectors in pyroscope_rules_test.cc.
//
// Not ported: the tenant's rate across requests (4 MiB/s), which depends on
// arrival times; the active-series limit (5,000 a tenant, 1.x's ingester),
// which this port reports as a count of series instead; relabeling rules
// other than the defaults, which change names but refuse nothing.
#ifndef STACKREC_TESTKIT_RECEIVER_BACKENDS_PYROSCOPE_RULES_H_
#define STACKREC_TESTKIT_RECEIVER_BACKENDS_PYROSCOPE_RULES_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "receiver/receiver.h"

namespace stackrec_test {
namespace pyroscope {

enum class Version { kMain, kV1 };
const char* VersionName(Version v);

// What Pyroscope answers and keeps.
struct Verdict {
  int status = 200;
  std::string message;  // Pyroscope's error message; "" when stored
  bool stored = false;  // 200 with nothing stored is possible, and not stored
  // The series the profile was stored under, each "{name="value", ...}"
  // sorted by name, and its profile type ids
  // ("__name__:type:unit:period_type:period_unit").
  std::set<std::string> series;
  std::set<std::string> profile_types;
};

// api/model/labelset/labelset.go Parse: `name` ("app{k=v,...}") as labels,
// "__name__" holding the app name; false with Pyroscope's message.
bool ParseName(const std::string& name, std::map<std::string, std::string>* labels,
               std::string* error);

// pkg/validation/validate.go SanitizeLegacyLabelName@v1: the name with dots
// as '_', and whether 1.x takes it.
bool SanitizeLegacyLabelName(const std::string& name, std::string* out);

// The whole of /ingest for `req`, received at `now_ns` (Unix).
Verdict Ingest(Version v, const ReceivedRequest& req, int64_t now_ns);

}  // namespace pyroscope
}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_RECEIVER_BACKENDS_PYROSCOPE_RULES_H_
