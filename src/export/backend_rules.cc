// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/backend_rules.h"

#include <set>

#include "export/export_status.h"

namespace stackrec_export {
namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Pyroscope's /ingest reads the series from `name=app{k=v,...}`
// (api/model/labelset/labelset.go); an app name may hold [A-Za-z0-9_.-/]
// (validate.go, IsServiceNameRuneAllowed), a label name [A-Za-z0-9_.]
// (validate.go, ValidateLabelName), and at 1.x's default a label name may
// not start with a digit (pkg/validation/validate.go,
// SanitizeLegacyLabelName). Keys starting "__" are dropped
// (pkg/model/labels.go, IsLabelAllowedForIngestion), and so are empty
// values (the labels builder deletes them).
stackrec_status CheckPyroscopeOptions(const Config& c) {
  for (const char ch : c.app_name) {
    if (!IsAsciiAlnum(ch) && ch != '_' && ch != '.' && ch != '-' && ch != '/') {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.app_name holds '%c', and Pyroscope takes a service name of "
                  "[A-Za-z0-9_.-/] only (api/model/labelset/validate.go)",
                  ch);
    }
  }
  if (c.tags.size() > kPyroscopeMaxTags) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts.tags_len %zu: Pyroscope takes 30 label names a series, of which its own take "
                "4 and series labels up to 16, so at most %zu tags (pkg/validation/limits.go, "
                "max_label_names_per_series)",
                c.tags.size(), kPyroscopeMaxTags);
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < c.tags.size(); ++i) {
    const auto& [key, value] = c.tags[i];
    for (const char ch : key) {
      if (!IsAsciiAlnum(ch) && ch != '_' && ch != '.') {
        return Fail(STACKREC_INVALID_ARGUMENT,
                    "opts.tags[%zu].key holds '%c', and Pyroscope takes a label name of "
                    "[A-Za-z0-9_.] only (api/model/labelset/validate.go)",
                    i, ch);
      }
    }
    if (key[0] >= '0' && key[0] <= '9') {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu].key starts with a digit, which Pyroscope 1.x refuses "
                  "(pkg/validation/validate.go, SanitizeLegacyLabelName)",
                  i);
    }
    if (key.compare(0, 2, "__") == 0) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu].key starts with \"__\", which Pyroscope drops "
                  "(pkg/model/labels.go, IsLabelAllowedForIngestion)",
                  i);
    }
    if (key.size() > 1024 || value.size() > 2048) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu] is longer than Pyroscope's 1,024-byte label names or 2,048-byte "
                  "values (pkg/validation/limits.go)",
                  i);
    }
    if (value.empty()) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu].value is empty, and Pyroscope drops a label without a value", i);
    }
    if (!seen.insert(key).second) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu].key repeats an earlier key, and Pyroscope keeps only the last",
                  i);
    }
  }
  return STACKREC_OK;
}

// libdatadog's runtime check of a tag (libdd-common/src/tag.rs, validate):
// the key neither empty nor starting with ':', the value neither empty nor
// ending with ':'. Ruby's profiler skips such a tag, Python's refuses the
// exporter; a tag must say what it means, so it is refused here.
stackrec_status CheckDatadogOptions(const Config& c) {
  for (size_t i = 0; i < c.tags.size(); ++i) {
    const auto& [key, value] = c.tags[i];
    if (key.front() == ':') {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu].key begins with a colon, which libdatadog refuses "
                  "(libdd-common/src/tag.rs)",
                  i);
    }
    if (value.empty() || value.back() == ':') {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.tags[%zu].value is %s, and libdatadog refuses a tag that ends with a colon "
                  "(libdd-common/src/tag.rs)",
                  i, value.empty() ? "empty" : "ending with ':'");
    }
  }
  return STACKREC_OK;
}

const char* FormatName(stackrec_format f) { return f == STACKREC_FORMAT_OTLP ? "OTLP" : "pprof"; }

std::string PartName(const PartFacts& p) {
  return "part " + std::to_string(p.index) + " of " + std::to_string(p.parts) + ": ";
}

std::string CheckPyroscopePart(const PartFacts& p) {
  if (p.target != STACKREC_TARGET_PYROSCOPE) {
    return "it was not serialized for Pyroscope: set opts.target = STACKREC_TARGET_PYROSCOPE, "
           "which writes the type and label names Pyroscope takes";
  }
  if (p.compression == STACKREC_COMPRESSION_ZSTD) {
    return "it is zstd, and Pyroscope's /ingest decodes gzip or nothing (pkg/pprof/pprof.go): "
           "serialize with gzip";
  }
  for (const auto& [type, unit] : p.sample_types) {
    if (type.find('-') != std::string::npos) {
      return "its sample type '" + type +
             "' holds a '-', and Pyroscope refuses the whole profile (pkg/validation/validate.go, "
             "\"sample type contains -\")";
    }
  }
  if (p.uncompressed_bytes > kPyroscopeMaxPartBytes) {
    return "it is " + std::to_string(p.uncompressed_bytes) + " bytes uncompressed, over the " +
           std::to_string(kPyroscopeMaxPartBytes) +
           " of Pyroscope's 2 MiB rate burst a profile can take (pkg/validation/limits.go, "
           "ingestion_burst_size_mb): serialize with part_max_uncompressed_bytes at most that";
  }
  if (p.samples > kPyroscopeMaxSamples) {
    return "it has " + std::to_string(p.samples) +
           " samples, over Pyroscope's 16,000 (pkg/validation/limits.go, "
           "max_profile_stacktrace_samples): serialize with part_max_samples = 16000";
  }
  return "";
}

}  // namespace

stackrec_status CheckBackendOptions(const Config& c) {
  switch (c.protocol) {
    case STACKREC_EXPORT_PYROSCOPE:
      return CheckPyroscopeOptions(c);
    case STACKREC_EXPORT_DATADOG_AGENT:
    case STACKREC_EXPORT_DATADOG_AGENTLESS:
      return CheckDatadogOptions(c);
    case STACKREC_EXPORT_OTLP:
      break;
  }
  return STACKREC_OK;
}

std::string CheckPart(const Config& c, const PartFacts& p, int64_t now_ns) {
  const stackrec_format wanted =
      c.protocol == STACKREC_EXPORT_OTLP ? STACKREC_FORMAT_OTLP : STACKREC_FORMAT_PPROF;
  if (p.format != wanted) {
    return PartName(p) + "it is " + FormatName(p.format) + ", and this protocol sends " +
           FormatName(wanted) + ": serialize with opts.format " + FormatName(wanted);
  }
  std::string problem;
  switch (c.protocol) {
    case STACKREC_EXPORT_PYROSCOPE:
      problem = CheckPyroscopePart(p);
      if (problem.empty()) problem = CheckAge(c, p.start_ns, now_ns);
      break;
    case STACKREC_EXPORT_DATADOG_AGENT:
    case STACKREC_EXPORT_DATADOG_AGENTLESS:
      if (p.bytes > kDatadogMaxPartBytes) {
        problem = "it is " + std::to_string(p.bytes) +
                  " bytes, and Datadog's intake skips a profile over 10 MiB "
                  "(libdd-profiling/src/internal/profile/mod.rs): serialize with "
                  "part_max_bytes = 10 MiB";
      }
      break;
    case STACKREC_EXPORT_OTLP:
      if (p.bytes > kCollectorMaxBodyBytes || p.uncompressed_bytes > kCollectorMaxBodyBytes) {
        problem = "it is " + std::to_string(p.uncompressed_bytes) +
                  " bytes uncompressed, and the collector reads at most 20 MiB of a request, "
                  "decoded or not (config/confighttp, max_request_body_size): serialize with "
                  "part_max_uncompressed_bytes = 20 MiB";
      }
      break;
  }
  return problem.empty() ? problem : PartName(p) + problem;
}

std::string CheckAge(const Config& c, int64_t start_ns, int64_t now_ns) {
  if (c.protocol != STACKREC_EXPORT_PYROSCOPE) return "";
  // Pyroscope keeps a profile whose time is after now - 1 h and before
  // now + 10 min (pkg/validation/validate.go, newIngestionWindow); the
  // margin leaves the request time to arrive.
  if (start_ns <= now_ns - kPyroscopeMaxAgeNs + kWindowMarginNs) {
    return "it starts " + std::to_string((now_ns - start_ns) / 1000000000) +
           " s ago, and Pyroscope refuses a profile older than 1 hour (pkg/validation/limits.go, "
           "reject_older_than)";
  }
  if (start_ns >= now_ns + kPyroscopeMaxAheadNs - kWindowMarginNs) {
    return "it starts " + std::to_string((start_ns - now_ns) / 1000000000) +
           " s from now, and Pyroscope refuses a profile more than 10 minutes ahead "
           "(pkg/validation/limits.go, reject_newer_than)";
  }
  return "";
}

}  // namespace stackrec_export
