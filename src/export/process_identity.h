// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Who is sending: what Datadog's tracers say of their process with every
// profile, so that the backend can match a profile to its host, container
// and traces. Read once per exporter (a child after fork gets its own):
// the process id, a runtime id (a random UUID, new in every process, as a
// tracer's is), the host and kernel names, and the container, read from
// /proc/self/cgroup as libdatadog reads it
// (libdd-common/src/entity_id/unix/).
#ifndef STACKREC_SRC_EXPORT_PROCESS_IDENTITY_H_
#define STACKREC_SRC_EXPORT_PROCESS_IDENTITY_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace stackrec_export {

struct ProcessIdentity {
  int64_t pid = 0;
  std::string runtime_id;  // a version 4 UUID, lowercase
  std::string hostname;
  std::string kernel_name, kernel_release, kernel_version;  // uname(2)
  // The platform as libdatadog names it, a Rust target triple
  // ("x86_64-unknown-linux-gnu").
  std::string runtime_platform;
  std::string container_id;  // "" outside a container
  // "ci-<container id>", else "in-<cgroup inode>", else "".
  std::string entity_id;
  std::string external_env;  // DD_EXTERNAL_ENV, "" if unset
};

// Reads this process's identity. Never fails: what cannot be read is "".
ProcessIdentity ReadProcessIdentity();

// The container id in one line of /proc/self/cgroup
// ("13:name=systemd:/docker/<64 hex>"), or "" if the line names none: a
// 64-hex id, a UUID (with '-' or '_'), a Cloud Foundry id or an ECS task
// id, optionally followed by ".scope", at the end of the line's path.
std::string ContainerIdOfCgroupLine(std::string_view line);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_PROCESS_IDENTITY_H_
