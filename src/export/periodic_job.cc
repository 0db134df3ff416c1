// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/periodic_job.h"

#include <cstring>

#include "export/backend_rules.h"
#include "export/export_status.h"

namespace stackrec_export {
namespace {

constexpr uint32_t kMinPeriodMs = 10;
constexpr size_t kMaxStructBytes = 4096;  // as the core's growable structs

// The protocol's defaults: gzip in its format, within docs/limits.md's
// budget for the backend.
stackrec_serialize_options Defaults(stackrec_export_protocol protocol) {
  stackrec_serialize_options o;
  std::memset(&o, 0, sizeof(o));
  o.compression = STACKREC_COMPRESSION_GZIP;
  switch (protocol) {
    case STACKREC_EXPORT_OTLP:
      o.format = STACKREC_FORMAT_OTLP;
      o.part_max_uncompressed_bytes = size_t{20} << 20;
      break;
    case STACKREC_EXPORT_PYROSCOPE:
      o.format = STACKREC_FORMAT_PPROF;
      o.target = STACKREC_TARGET_PYROSCOPE;
      o.part_max_uncompressed_bytes = kPyroscopeMaxPartBytes;
      o.part_max_samples = kPyroscopeMaxSamples;
      break;
    case STACKREC_EXPORT_DATADOG_AGENT:
    case STACKREC_EXPORT_DATADOG_AGENTLESS:
      o.format = STACKREC_FORMAT_PPROF;
      o.part_max_bytes = size_t{10} << 20;
      break;
  }
  return o;
}

std::string Copy(stackrec_str s) { return s.len == 0 ? std::string() : std::string(s.ptr, s.len); }

stackrec_str View(const std::string& s) {
  return s.empty() ? stackrec_str{nullptr, 0} : stackrec_str{s.data(), s.size()};
}

// Serializes an empty profile with `opts`: the core checks every field and
// names the bad one.
stackrec_status CheckWithCore(const stackrec_serialize_options& opts) {
  stackrec_value_type type = {{"samples", 7}, {"count", 5}};
  stackrec_profile_options popts;
  std::memset(&popts, 0, sizeof(popts));
  popts.sample_types = &type;
  popts.sample_types_len = 1;
  stackrec_profile* profile = nullptr;
  stackrec_status st = stackrec_profile_new(&popts, &profile);
  stackrec_encoded* encoded = nullptr;
  if (st == STACKREC_OK) st = stackrec_profile_serialize(profile, &opts, &encoded);
  stackrec_encoded_free(encoded);
  stackrec_profile_free(profile);
  return st;
}

// Options whose every serialization the backend would refuse: Pyroscope
// takes its own names, gzip or nothing, and parts within its limits;
// Datadog parts of at most 10 MiB (backend_rules.h).
stackrec_status CheckForBackend(stackrec_export_protocol protocol,
                                const stackrec_serialize_options& o) {
  if (protocol == STACKREC_EXPORT_PYROSCOPE) {
    if (o.target != STACKREC_TARGET_PYROSCOPE) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.target is not STACKREC_TARGET_PYROSCOPE, whose names Pyroscope takes");
    }
    if (o.compression == STACKREC_COMPRESSION_ZSTD) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.compression is ZSTD, and Pyroscope's /ingest decodes gzip or nothing");
    }
    if (o.part_max_uncompressed_bytes == 0 ||
        o.part_max_uncompressed_bytes > kPyroscopeMaxPartBytes) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.part_max_uncompressed_bytes is %zu; Pyroscope takes a part of 1 to %llu "
                  "bytes (its 2 MiB rate burst less its labels)",
                  o.part_max_uncompressed_bytes,
                  static_cast<unsigned long long>(kPyroscopeMaxPartBytes));
    }
    if (o.part_max_samples == 0 || o.part_max_samples > kPyroscopeMaxSamples) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.part_max_samples is %zu; Pyroscope takes a part of 1 to 16000 samples",
                  o.part_max_samples);
    }
  } else if (protocol != STACKREC_EXPORT_OTLP) {
    if (o.part_max_bytes == 0 || o.part_max_bytes > kDatadogMaxPartBytes) {
      return Fail(STACKREC_INVALID_ARGUMENT,
                  "opts.part_max_bytes is %zu; Datadog takes a part of 1 to 10 MiB",
                  o.part_max_bytes);
    }
  }
  return STACKREC_OK;
}

}  // namespace

stackrec_status MakePeriodicJob(stackrec_export_protocol protocol, stackrec_recorder* recorder,
                                const stackrec_serialize_options* opts, size_t opts_size,
                                uint32_t period_ms, std::unique_ptr<PeriodicJob>* out) {
  if (recorder == nullptr) return Fail(STACKREC_INVALID_ARGUMENT, "recorder is NULL");
  if (period_ms < kMinPeriodMs) {
    return Fail(STACKREC_INVALID_ARGUMENT, "period_ms %u is under the minimum of %u", period_ms,
                kMinPeriodMs);
  }
  auto job = std::make_unique<PeriodicJob>();
  job->recorder = recorder;
  job->period_ms = period_ms;
  if (opts == nullptr) {
    job->opts = Defaults(protocol);
    *out = std::move(job);
    return STACKREC_OK;
  }
  if (opts_size == 0 || opts_size % alignof(stackrec_serialize_options) != 0 ||
      opts_size > kMaxStructBytes) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts_size %zu is not the size of a version of the struct (a multiple of %zu, at "
                "most %zu)",
                opts_size, alignof(stackrec_serialize_options), kMaxStructBytes);
  }
  // A newer header's longer struct goes to the core as it is, which says
  // whether it knows the fields set past ours; an older one is zero-extended.
  stackrec_serialize_options o;
  std::memset(&o, 0, sizeof(o));
  std::memcpy(&o, opts, opts_size < sizeof(o) ? opts_size : sizeof(o));
  if (opts_size > sizeof(o)) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(opts);
    for (size_t i = sizeof(o); i < opts_size; ++i) {
      if (bytes[i] != 0) {
        return Fail(STACKREC_UNSUPPORTED,
                    "opts sets byte %zu of its %zu, but this libstackrec_export knows the first "
                    "%zu only",
                    i, opts_size, sizeof(o));
      }
    }
  }
  int format;
  std::memcpy(&format, &o.format, sizeof(format));
  const int wanted =
      protocol == STACKREC_EXPORT_OTLP ? STACKREC_FORMAT_OTLP : STACKREC_FORMAT_PPROF;
  if (format != wanted) {
    return Fail(STACKREC_INVALID_ARGUMENT,
                "opts.format is %d, but this exporter's protocol takes %s", format,
                wanted == STACKREC_FORMAT_OTLP ? "STACKREC_FORMAT_OTLP" : "STACKREC_FORMAT_PPROF");
  }
  stackrec_status st = CheckWithCore(o);
  if (st == STACKREC_OK) st = CheckForBackend(protocol, o);
  if (st != STACKREC_OK) return st;
  // Deep copy: the strings and attributes are the host's only for this call.
  job->service_name = Copy(o.service_name);
  job->scope_name = Copy(o.scope_name);
  job->scope_version = Copy(o.scope_version);
  for (size_t i = 0; i < o.resource_attributes_len; ++i) {
    job->attribute_text.push_back(Copy(o.resource_attributes[i].key));
    job->attribute_text.push_back(Copy(o.resource_attributes[i].value));
  }
  for (size_t i = 0; i < o.resource_attributes_len; ++i) {
    job->attributes.push_back(
        {View(job->attribute_text[2 * i]), View(job->attribute_text[2 * i + 1])});
  }
  job->opts = o;
  job->opts.service_name = View(job->service_name);
  job->opts.scope_name = View(job->scope_name);
  job->opts.scope_version = View(job->scope_version);
  job->opts.resource_attributes = job->attributes.empty() ? nullptr : job->attributes.data();
  for (size_t i = 0; i < o.series_labels_len; ++i) {
    job->series_label_text.push_back(Copy(o.series_labels[i]));
  }
  for (const std::string& label : job->series_label_text) job->series_labels.push_back(View(label));
  job->opts.series_labels = job->series_labels.empty() ? nullptr : job->series_labels.data();
  *out = std::move(job);
  return STACKREC_OK;
}

}  // namespace stackrec_export
