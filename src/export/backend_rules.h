// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What each backend refuses that the exporter can tell before it sends:
// options that would be refused on every request (an app name or a tag
// Pyroscope cannot parse, a tag libdatadog rejects), and parts that would
// be (the wrong format, a name, a size, a shape, an age). A request the
// backend refuses is a lost profile, and one refused for a rule that holds
// for every retry is lost however often it is sent; refusing it here keeps
// the profile with the host, with a message that names the rule.
//
// Each rule says where the backend applies it, at the versions
// docs/exporting.md lists; the numbers are the backends' defaults. The
// checks read what stackrec_encoded says of itself and of its parts, never
// the bytes, so they cost nothing beside a serialization.
#ifndef STACKREC_SRC_EXPORT_BACKEND_RULES_H_
#define STACKREC_SRC_EXPORT_BACKEND_RULES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "export/export_config.h"
#include "stackrec/stackrec.h"

namespace stackrec_export {

// Pyroscope's defaults (pkg/validation/limits.go): a profile of at most
// 4 MiB decompressed (max_profile_size_bytes) and 16,000 samples
// (max_profile_stacktrace_samples); a tenant's rate of 4 MiB/s with a burst
// of 2 MiB (ingestion_rate_mb, ingestion_burst_size_mb), counted on the
// decompressed profile plus its series' label bytes, so that a profile over
// the burst is refused however long it waits; profiles from the last hour
// to 10 minutes ahead (reject_older_than, reject_newer_than).
inline constexpr uint64_t kPyroscopeMaxProfileBytes = uint64_t{4} << 20;
inline constexpr uint64_t kPyroscopeMaxSamples = 16000;
inline constexpr uint64_t kPyroscopeRateBytesPerSecond = uint64_t{4} << 20;
inline constexpr uint64_t kPyroscopeBurstBytes = uint64_t{2} << 20;
// The part of the burst a profile may take: the rest is left for its
// series' labels (at most 30 names of 1,024 bytes and values of 2,048).
inline constexpr uint64_t kPyroscopeMaxPartBytes = kPyroscopeBurstBytes - (uint64_t{96} << 10);
inline constexpr int64_t kPyroscopeMaxAgeNs = int64_t{3600} * 1000000000;
inline constexpr int64_t kPyroscopeMaxAheadNs = int64_t{600} * 1000000000;
// A part is refused this much before it leaves the window, for the time
// the request itself takes.
inline constexpr int64_t kWindowMarginNs = int64_t{60} * 1000000000;
// Pyroscope's 30 label names a series (max_label_names_per_series) less
// its own four (__name__, __delta__, pyroscope_spy, service_name) and the
// 16 series labels a serialization may name.
inline constexpr size_t kPyroscopeMaxTags = 10;

// Datadog's intake skips a profile over 10 MiB (libdatadog,
// libdd-profiling/src/internal/profile/mod.rs).
inline constexpr uint64_t kDatadogMaxPartBytes = uint64_t{10} << 20;

// The OpenTelemetry collector's HTTP receivers read at most
// max_request_body_size, 20 MiB by default, before and after decoding the
// body (config/confighttp/server.go, compression.go), and answer 400 past it.
inline constexpr uint64_t kCollectorMaxBodyBytes = uint64_t{20} << 20;

// Checks what the backend of `c.protocol` refuses in the options: app name
// and tags. OK, or INVALID_ARGUMENT naming the option and the rule.
stackrec_status CheckBackendOptions(const Config& c);

// What a part of an encoded profile is, as the backend's rules need it.
struct PartFacts {
  size_t index = 0, parts = 1;
  stackrec_format format = STACKREC_FORMAT_PPROF;
  stackrec_target target = STACKREC_TARGET_ANY;
  stackrec_compression compression = STACKREC_COMPRESSION_GZIP;
  std::vector<std::pair<std::string, std::string>> sample_types;  // as written
  uint64_t bytes = 0, uncompressed_bytes = 0, samples = 0;
  int64_t start_ns = 0;
};

// "" if the backend of `c.protocol` would keep the part, else what it
// would refuse it for, naming the rule and where the backend applies it.
// `now_ns` is the Unix time.
std::string CheckPart(const Config& c, const PartFacts& part, int64_t now_ns);

// "" if a part of the interval starting at `start_ns` is still inside the
// backend's ingestion window at `now_ns`, else why not: a queued part that
// aged out is dropped rather than sent to be refused.
std::string CheckAge(const Config& c, int64_t start_ns, int64_t now_ns);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_BACKEND_RULES_H_
