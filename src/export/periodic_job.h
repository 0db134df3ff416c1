// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Periodic mode's job: which recorder to serialize, how, and how often. The
// serialize options are the host's, copied with every string and attribute
// they point to, because the host's copy is only borrowed for the call that
// starts the job while the job runs until shutdown.
#ifndef STACKREC_SRC_EXPORT_PERIODIC_JOB_H_
#define STACKREC_SRC_EXPORT_PERIODIC_JOB_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stackrec/export.h"

namespace stackrec_export {

struct PeriodicJob {
  stackrec_recorder* recorder = nullptr;
  uint32_t period_ms = 0;
  stackrec_serialize_options opts{};  // its pointers point into the members below
  std::string service_name, scope_name, scope_version;
  std::vector<std::string> attribute_text;  // key, value, key, value, ...
  std::vector<stackrec_attribute> attributes;
  std::vector<std::string> series_label_text;
  std::vector<stackrec_str> series_labels;
};

// Checks the arguments of stackrec_exporter_start_periodic_sized and builds
// the job: `opts` NULL takes `protocol`'s defaults (docs/limits.md's
// budgets); a given one must have the protocol's format and is checked by
// serializing an empty profile with it, so a bad option is refused now, by
// the core's own message, and not at every period; and so are options
// whose every output the backend would refuse (backend_rules.h), which
// would lose each interval's samples.
stackrec_status MakePeriodicJob(stackrec_export_protocol protocol, stackrec_recorder* recorder,
                                const stackrec_serialize_options* opts, size_t opts_size,
                                uint32_t period_ms, std::unique_ptr<PeriodicJob>* out);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_PERIODIC_JOB_H_
