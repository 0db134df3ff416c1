// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/otlp_options.h"

#include "absl/container/flat_hash_map.h"
#include "base/utf8.h"

namespace stackrec {

// CMake reads the version from the public header (cmake/version.cmake).
const absl::string_view kStackrecVersion = STACKREC_VERSION_STRING;

Status ValidateOtlpOptions(const OtlpOptions& options) {
  if (!IsValidUtf8(options.service_name)) {
    return Error(Code::kInvalidArgument, "opts.service_name is not valid UTF-8");
  }
  // Key -> the index of the attribute that has it.
  absl::flat_hash_map<absl::string_view, size_t> keys;
  const auto& attributes = options.resource_attributes;
  for (size_t i = 0; i < attributes.size(); ++i) {
    const auto& [key, value] = attributes[i];
    if (key.empty()) {
      return Error(Code::kInvalidArgument, "opts.resource_attributes[%zu].key is empty", i);
    }
    if (!IsValidUtf8(key)) {
      return Error(Code::kInvalidArgument, "opts.resource_attributes[%zu].key is not valid UTF-8",
                   i);
    }
    if (!IsValidUtf8(value)) {
      return Error(Code::kInvalidArgument, "opts.resource_attributes[%zu].value is not valid UTF-8",
                   i);
    }
    if (key == kServiceNameKey && !options.service_name.empty()) {
      return Error(Code::kInvalidArgument,
                   "opts.resource_attributes[%zu].key is \"service.name\", which "
                   "opts.service_name already sets",
                   i);
    }
    const auto [it, inserted] = keys.emplace(key, i);
    if (!inserted) {
      return Error(Code::kInvalidArgument,
                   "opts.resource_attributes[%zu].key repeats opts.resource_attributes[%zu].key", i,
                   it->second);
    }
  }
  if (!IsValidUtf8(options.scope_name)) {
    return Error(Code::kInvalidArgument, "opts.scope_name is not valid UTF-8");
  }
  if (!IsValidUtf8(options.scope_version)) {
    return Error(Code::kInvalidArgument, "opts.scope_version is not valid UTF-8");
  }
  if (options.scope_name.empty() && !options.scope_version.empty()) {
    return Error(Code::kInvalidArgument,
                 "opts.scope_version is set but opts.scope_name is not: the default "
                 "scope is stackrec at its own version");
  }
  return OkStatus();
}

}  // namespace stackrec
