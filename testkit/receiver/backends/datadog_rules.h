// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What Datadog keeps of a profile upload, ported from the sources that say
// it: the agent's proxy (datadog-agent pkg/trace/api/profiles.go, which
// checks the path and forwards the request as it is), and, for the intake
// behind it, whose source is not public, the request libdatadog's exporter
// builds and the intake is written for (libdatadog 41, libdd-profiling 1.0,
// libdd-profiling/src/exporter/profile_exporter.rs): the multipart parts,
// every event.json field with its type, the tags as libdatadog's own check
// takes them (libdd-common/src/tag.rs), the attachments it names, and the
// 10 MiB the intake skips a profile over
// (libdd-profiling/src/internal/profile/mod.rs). Checked against
// libdatadog's tests in tests/export/backend_rules_test.cc.
#ifndef STACKREC_TESTKIT_RECEIVER_BACKENDS_DATADOG_RULES_H_
#define STACKREC_TESTKIT_RECEIVER_BACKENDS_DATADOG_RULES_H_

#include <string>
#include <vector>

#include "receiver/receiver.h"

namespace stackrec_test {
namespace datadog {

// libdd-common/src/tag.rs:155-165 validate_value: "" if libdatadog takes
// the tag `tag` ("key:value"), else its message ("tag is empty", "tag 'x:'
// ends with a colon", ...).
std::string ValidateTag(const std::string& tag);

// What became of an upload: the status the agent answers (200 when kept),
// why not, and the tags it was filed under.
struct Verdict {
  int status = 200;
  std::string message;
  std::vector<std::string> tags;
  bool stored() const { return status == 200; }
};

// `req` as the agent (agentless false: at /profiling/v1/input) or the
// intake (true: at /api/v2/profile, with DD-API-KEY) takes it.
Verdict Upload(const ReceivedRequest& req, bool agentless);

}  // namespace datadog
}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_RECEIVER_BACKENDS_DATADOG_RULES_H_
