// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What an OTLP output says about where its profiles come from, beside the
// profiles themselves: the resource (the service and any other attributes
// the host gives) and the instrumentation scope. OTLP carries these once per
// request; pprof has no place for them, so a pprof serialization checks them
// and writes none.
#ifndef STACKREC_SRC_INPUT_OTLP_OPTIONS_H_
#define STACKREC_SRC_INPUT_OTLP_OPTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/status.h"

namespace stackrec {

// The OpenTelemetry semantic conventions' resource attribute naming the
// service, and the value their SDKs give a service that names none.
inline constexpr absl::string_view kServiceNameKey = "service.name";
inline constexpr absl::string_view kUnknownService = "unknown_service";
// The instrumentation scope when the host names none: this library, at
// its version ("1.0.0", from the public header's STACKREC_VERSION_*).
inline constexpr absl::string_view kStackrecScopeName = "stackrec";
extern const absl::string_view kStackrecVersion;

struct OtlpOptions {
  std::string service_name;  // "": a "service.name" attribute's, or kUnknownService
  std::vector<std::pair<std::string, std::string>> resource_attributes;  // key, value
  std::string scope_name;     // "": kStackrecScopeName, with this library's version
  std::string scope_version;  // only with a scope_name
};

// Checks `options`, naming the field ("opts.resource_attributes[2].key"):
// every string valid UTF-8 (OTLP's strings are proto3 strings, which
// readers reject otherwise), attribute keys non-empty and unique (OTLP
// requires it of a resource), "service.name" given once at most, and no
// scope_version without a scope_name.
Status ValidateOtlpOptions(const OtlpOptions& options);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_OTLP_OPTIONS_H_
