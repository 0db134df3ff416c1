// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The exported functions of stackrec.h, each a thin wrapper: check and
// convert the C arguments (c_checks.h, c_convert.h; a sample through
// c_sample.h), call the C++ core, and return its status. Every body runs
// inside Guard(), which turns any exception into a status, so nothing ever
// unwinds into C. Only this file and the c_*.h files see the C types.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "capi/c_checks.h"
#include "capi/c_convert.h"
#include "capi/c_handles.h"
#include "capi/c_sample.h"
#include "input/backend_names.h"
#include "input/live_heap_options.h"
#include "input/serialize_options.h"
#include "input/upscaling.h"
#include "profile/dictionary.h"
#include "profile/profile.h"
#include "recorder/recorder.h"
#include "serialize/serialize.h"
#include "stackrec/stackrec.h"

static_assert(STACKREC_OK == static_cast<int>(stackrec::Code::kOk), "");
static_assert(STACKREC_INVALID_ARGUMENT == static_cast<int>(stackrec::Code::kInvalidArgument), "");
static_assert(STACKREC_OUT_OF_MEMORY == static_cast<int>(stackrec::Code::kOutOfMemory), "");
static_assert(STACKREC_LIMIT_EXCEEDED == static_cast<int>(stackrec::Code::kLimitExceeded), "");
static_assert(STACKREC_BUSY == static_cast<int>(stackrec::Code::kBusy), "");
static_assert(STACKREC_INTERNAL == static_cast<int>(stackrec::Code::kInternal), "");
static_assert(STACKREC_UNSUPPORTED == static_cast<int>(stackrec::Code::kUnsupported), "");
static_assert(STACKREC_TIMED_OUT == static_cast<int>(stackrec::Code::kTimedOut), "");
static_assert(STACKREC_COMPRESSION_GZIP == static_cast<int>(stackrec::Compression::kGzip), "");
static_assert(STACKREC_COMPRESSION_NONE == static_cast<int>(stackrec::Compression::kNone), "");
static_assert(STACKREC_COMPRESSION_ZSTD == static_cast<int>(stackrec::Compression::kZstd), "");

using stackrec::Error;
using stackrec::Guard;
using stackrec::NullArgument;
using stackrec::OkStatus;
using stackrec::Status;

extern "C" {

int stackrec_version_number(void) { return STACKREC_VERSION_NUMBER; }

const char* stackrec_status_name(stackrec_status status) {
  switch (stackrec::EnumBits(status)) {
    case STACKREC_OK:
      return "STACKREC_OK";
    case STACKREC_INVALID_ARGUMENT:
      return "STACKREC_INVALID_ARGUMENT";
    case STACKREC_OUT_OF_MEMORY:
      return "STACKREC_OUT_OF_MEMORY";
    case STACKREC_LIMIT_EXCEEDED:
      return "STACKREC_LIMIT_EXCEEDED";
    case STACKREC_BUSY:
      return "STACKREC_BUSY";
    case STACKREC_INTERNAL:
      return "STACKREC_INTERNAL";
    case STACKREC_UNSUPPORTED:
      return "STACKREC_UNSUPPORTED";
    case STACKREC_TIMED_OUT:
      return "STACKREC_TIMED_OUT";
    default:
      return "STACKREC_UNKNOWN";
  }
}

const char* stackrec_last_error(void) { return stackrec::LastErrorMessage(); }

void stackrec_last_error_set(const char* message) { stackrec::SetLastErrorMessage(message); }

stackrec_status stackrec_profile_new_sized(const stackrec_profile_options* host_opts,
                                           stackrec_profile** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    stackrec_profile_options copy;
    const stackrec_profile_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::ProfileOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToOptions(opts, &options));
    auto handle = std::make_unique<stackrec_profile>();
    handle->impl =
        std::make_unique<stackrec::Profile>(std::move(options), stackrec::NowUnixNanos());
    *out = handle.release();
    return OkStatus();
  });
}

stackrec_status stackrec_profile_add_sized(stackrec_profile* profile,
                                           const stackrec_sample* host_sample, size_t sample_size) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    stackrec_sample copy;
    const stackrec_sample* sample;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample));
    return stackrec::WithSample(
        sample, [&](const stackrec::SampleView& view, const stackrec::HashedFrames* frames) {
          return profile->impl->Add(view, frames);
        });
  });
}

stackrec_status stackrec_profile_record_endpoint(stackrec_profile* profile,
                                                 uint64_t local_root_span_id,
                                                 stackrec_str endpoint) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return profile->impl->SetEndpoint(local_root_span_id, view);
  });
}

// The older name, kept in 1.x: the same call.
stackrec_status stackrec_profile_set_endpoint(stackrec_profile* profile,
                                              uint64_t local_root_span_id, stackrec_str endpoint) {
  return stackrec_profile_record_endpoint(profile, local_root_span_id, endpoint);
}

stackrec_status stackrec_profile_add_endpoint_count(stackrec_profile* profile,
                                                    stackrec_str endpoint, int64_t value) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return profile->impl->AddEndpointCount(view, value);
  });
}

stackrec_status stackrec_profile_add_upscaling_rule_sized(stackrec_profile* profile,
                                                          const stackrec_upscaling_rule* host_rule,
                                                          size_t rule_size) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    stackrec_upscaling_rule copy;
    const stackrec_upscaling_rule* rule;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_rule, rule_size, "rule", &copy, &rule));
    stackrec::UpscalingRule converted;
    STACKREC_RETURN_IF_ERROR(stackrec::ToUpscalingRule(rule, &converted));
    return profile->impl->AddUpscalingRule(std::move(converted));
  });
}

namespace stackrec {
namespace {

// Notes on `encoded` what a serialization with `options` of a profile
// created with `profile` wrote: the format, the target, the compression
// and the enabled sample types under the target's names.
void DescribeOutput(const ProfileOptions& profile, const SerializeOptions& options,
                    stackrec_encoded* encoded) {
  encoded->format = static_cast<stackrec_format>(options.format);
  encoded->target = static_cast<stackrec_target>(options.target);
  encoded->compression = static_cast<stackrec_compression>(options.compression);
  for (size_t i = 0; i < profile.sample_types.size(); ++i) {
    if (!profile.enabled.empty() && !profile.enabled[i]) continue;
    const ValueType& t = profile.sample_types[i];
    encoded->sample_types.emplace_back(
        options.target == Target::kPyroscope ? PyroscopeTypeName(t.type) : t.type, t.unit);
  }
}

}  // namespace
}  // namespace stackrec

stackrec_status stackrec_profile_serialize_sized(stackrec_profile* profile,
                                                 const stackrec_serialize_options* host_opts,
                                                 stackrec_encoded** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (profile == nullptr) return NullArgument("profile");
    stackrec_serialize_options copy;
    const stackrec_serialize_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::SerializeOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToSerializeOptions(opts, &options));
    STACKREC_RETURN_IF_ERROR(stackrec::CheckBudget(profile->impl->options(), options));
    auto encoded = std::make_unique<stackrec_encoded>();
    encoded->start_ns = profile->impl->start_ns();
    encoded->end_ns = stackrec::NowUnixNanos();
    STACKREC_RETURN_IF_ERROR(stackrec::SerializeProfile(*profile->impl, options, encoded->end_ns,
                                                        &encoded->bytes, &encoded->stats,
                                                        &profile->output_sizes));
    encoded->endpoint_counts = profile->impl->EndpointCounts();
    stackrec::DescribeOutput(profile->impl->options(), options, encoded.get());
    *out = encoded.release();
    return OkStatus();
  });
}

stackrec_status stackrec_profile_reset(stackrec_profile* profile) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    profile->impl->Reset(stackrec::NowUnixNanos());
    return OkStatus();
  });
}

void stackrec_profile_free(stackrec_profile* profile) { delete profile; }

const uint8_t* stackrec_encoded_data(const stackrec_encoded* encoded) {
  return encoded == nullptr ? nullptr : reinterpret_cast<const uint8_t*>(encoded->bytes.data());
}

size_t stackrec_encoded_size(const stackrec_encoded* encoded) {
  if (encoded == nullptr) return 0;
  return encoded->stats.parts.empty() ? encoded->bytes.size() : encoded->stats.parts[0].size;
}

size_t stackrec_encoded_parts_len(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->stats.parts.size();
}

stackrec_status stackrec_encoded_part_sized(const stackrec_encoded* encoded, size_t index,
                                            stackrec_part* host_out, size_t out_size) {
  return Guard([&]() -> Status {
    if (encoded == nullptr) return NullArgument("encoded");
    if (host_out == nullptr) return NullArgument("out");
    const std::vector<stackrec::OutputPart>& parts = encoded->stats.parts;
    if (index >= parts.size()) {
      return stackrec::Error(stackrec::Code::kInvalidArgument, "index is %zu, past the %zu part(s)",
                             index, parts.size());
    }
    const stackrec::OutputPart& part = parts[index];
    stackrec_part out{};
    out.data = reinterpret_cast<const uint8_t*>(encoded->bytes.data()) + part.offset;
    out.size = part.size;
    out.samples_written = part.samples;
    out.uncompressed_bytes = part.uncompressed_bytes;
    return stackrec::WriteGrowable(out, out_size, "out", host_out);
  });
}

int64_t stackrec_encoded_start_ns(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->start_ns;
}

int64_t stackrec_encoded_end_ns(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->end_ns;
}

size_t stackrec_encoded_endpoint_counts_len(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->endpoint_counts.size();
}

stackrec_status stackrec_encoded_endpoint_count(const stackrec_encoded* encoded, size_t index,
                                                stackrec_str* endpoint, int64_t* count) {
  return Guard([&]() -> Status {
    if (encoded == nullptr) return NullArgument("encoded");
    if (endpoint == nullptr) return NullArgument("endpoint");
    if (count == nullptr) return NullArgument("count");
    if (index >= encoded->endpoint_counts.size()) {
      return Error(stackrec::Code::kInvalidArgument, "index %zu is past the %zu endpoint counts",
                   index, encoded->endpoint_counts.size());
    }
    const auto& [name, n] = encoded->endpoint_counts[index];
    *endpoint = stackrec_str{name.data(), name.size()};
    *count = n;
    return OkStatus();
  });
}

stackrec_format stackrec_encoded_format(const stackrec_encoded* encoded) {
  return encoded == nullptr ? STACKREC_FORMAT_PPROF : encoded->format;
}

stackrec_target stackrec_encoded_target(const stackrec_encoded* encoded) {
  return encoded == nullptr ? STACKREC_TARGET_ANY : encoded->target;
}

stackrec_compression stackrec_encoded_compression(const stackrec_encoded* encoded) {
  return encoded == nullptr ? STACKREC_COMPRESSION_GZIP : encoded->compression;
}

size_t stackrec_encoded_sample_types_len(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->sample_types.size();
}

stackrec_status stackrec_encoded_sample_type(const stackrec_encoded* encoded, size_t index,
                                             stackrec_str* type, stackrec_str* unit) {
  return Guard([&]() -> Status {
    if (encoded == nullptr) return NullArgument("encoded");
    if (type == nullptr) return NullArgument("type");
    if (unit == nullptr) return NullArgument("unit");
    if (index >= encoded->sample_types.size()) {
      return Error(stackrec::Code::kInvalidArgument, "index %zu is past the %zu sample types",
                   index, encoded->sample_types.size());
    }
    const auto& [t, u] = encoded->sample_types[index];
    *type = stackrec_str{t.data(), t.size()};
    *unit = stackrec_str{u.data(), u.size()};
    return OkStatus();
  });
}

stackrec_status stackrec_encoded_stats_sized(const stackrec_encoded* encoded,
                                             stackrec_encode_stats* host_out, size_t out_size) {
  return Guard([&]() -> Status {
    if (encoded == nullptr) return NullArgument("encoded");
    if (host_out == nullptr) return NullArgument("out");
    const stackrec::SerializationStats& s = encoded->stats;
    stackrec_encode_stats stats{};
    stackrec_encode_stats* out = &stats;
    out->samples_recorded = s.samples_added;
    out->samples_truncated = s.samples_truncated;
    out->samples_over_memory = s.samples_over_memory;
    out->samples_written = s.encoded.samples_written;
    out->samples_left_out = s.encoded.samples_left_out;
    out->locations_written = s.encoded.locations_written;
    out->functions_written = s.encoded.functions_written;
    out->mappings_written = s.encoded.mappings_written;
    out->strings_written = s.encoded.strings_written;
    out->uncompressed_bytes = s.encoded.uncompressed_bytes;
    out->compressed_bytes = encoded->bytes.size();
    out->encode_ns = s.encode_ns;
    out->parts = s.parts.size();
    out->folded_because = static_cast<stackrec_fold_reason>(s.folded_because);
    return stackrec::WriteGrowable(stats, out_size, "out", host_out);
  });
}

void stackrec_encoded_free(stackrec_encoded* encoded) { delete encoded; }

stackrec_status stackrec_recorder_new_sized(const stackrec_profile_options* host_opts,
                                            stackrec_recorder** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    stackrec_profile_options copy;
    const stackrec_profile_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::ProfileOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToOptions(opts, &options));
    stackrec::LiveHeapOptions live_heap;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ToLiveHeapOptions(opts, options.sample_types.size(), &live_heap));
    auto handle = std::make_unique<stackrec_recorder>();
    handle->impl =
        std::make_unique<stackrec::Recorder>(options, stackrec::NowUnixNanos(), live_heap);
    *out = handle.release();
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_record_sized(stackrec_recorder* recorder,
                                               const stackrec_sample* host_sample,
                                               size_t sample_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    bool converted = false;
    stackrec_sample copy;
    const stackrec_sample* sample;
    Status status = stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample);
    if (status.ok()) {
      status = stackrec::WithSample(
          sample, [&](const stackrec::SampleView& view, const stackrec::HashedFrames* frames) {
            converted = true;
            return recorder->impl->Record(view, frames);
          });
    }
    if (!converted) recorder->impl->CountRejected();
    return status;
  });
}

stackrec_status stackrec_recorder_record_endpoint(stackrec_recorder* recorder,
                                                  uint64_t local_root_span_id,
                                                  stackrec_str endpoint) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return recorder->impl->RecordEndpoint(local_root_span_id, view);
  });
}

stackrec_status stackrec_recorder_add_endpoint_count(stackrec_recorder* recorder,
                                                     stackrec_str endpoint, int64_t value) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return recorder->impl->AddEndpointCount(view, value);
  });
}

stackrec_status stackrec_recorder_add_upscaling_rule_sized(stackrec_recorder* recorder,
                                                           const stackrec_upscaling_rule* host_rule,
                                                           size_t rule_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec_upscaling_rule copy;
    const stackrec_upscaling_rule* rule;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_rule, rule_size, "rule", &copy, &rule));
    stackrec::UpscalingRule converted;
    STACKREC_RETURN_IF_ERROR(stackrec::ToUpscalingRule(rule, &converted));
    return recorder->impl->AddUpscalingRule(std::move(converted));
  });
}

stackrec_status stackrec_recorder_track_sized(stackrec_recorder* recorder, uint64_t object_id,
                                              const stackrec_sample* host_sample,
                                              size_t sample_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec_sample copy;
    const stackrec_sample* sample;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample));
    stackrec::SampleView view;
    stackrec::LabelRoom room;
    STACKREC_RETURN_IF_ERROR(stackrec::ToSample(sample, &room, &view));
    return recorder->impl->Track(object_id, view);
  });
}

stackrec_status stackrec_recorder_untrack(stackrec_recorder* recorder, uint64_t object_id) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    recorder->impl->Untrack(object_id);
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_serialize_sized(stackrec_recorder* recorder,
                                                  const stackrec_serialize_options* host_opts,
                                                  stackrec_encoded** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec_serialize_options copy;
    const stackrec_serialize_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::SerializeOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToSerializeOptions(opts, &options));
    stackrec::EncodedProfile profile;
    STACKREC_RETURN_IF_ERROR(recorder->impl->Serialize(options, &stackrec::NowUnixNanos, &profile));
    auto encoded = std::make_unique<stackrec_encoded>();
    encoded->bytes = std::move(profile.bytes);
    encoded->start_ns = profile.start_ns;
    encoded->end_ns = profile.end_ns;
    encoded->endpoint_counts = std::move(profile.endpoint_counts);
    encoded->stats = profile.stats;
    stackrec::DescribeOutput(recorder->impl->options(), options, encoded.get());
    *out = encoded.release();
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_reset_after_fork(stackrec_recorder* recorder) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    recorder->impl->ResetAfterFork(stackrec::NowUnixNanos());
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_stats_sized(const stackrec_recorder* recorder,
                                              stackrec_stats* host_out, size_t out_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    if (host_out == nullptr) return NullArgument("out");
    const stackrec::RecorderStats s = recorder->impl->stats();
    stackrec_stats stats{};
    stackrec_stats* out = &stats;
    out->last_samples_recorded = s.last_samples;
    out->last_distinct_keys = s.last_distinct_keys;
    out->last_serialize_ns = s.last_serialize_ns;
    out->serializations_ok = s.serializations_ok;
    out->serializations_failed = s.serializations_failed;
    out->serialize_ns_min = s.serialize_ns_min;
    out->serialize_ns_max = s.serialize_ns_max;
    out->serialize_ns_total = s.serialize_ns_total;
    out->samples_recorded = s.samples_recorded;
    out->records_rejected = s.records_rejected;
    out->samples_truncated = s.samples_truncated;
    out->samples_over_memory = s.samples_over_memory;
    out->samples_left_out_of_output = s.samples_left_out_of_output;
    out->objects_tracked = s.objects_tracked;
    out->objects_not_tracked = s.objects_not_tracked;
    return stackrec::WriteGrowable(stats, out_size, "out", host_out);
  });
}

void stackrec_recorder_free(stackrec_recorder* recorder) { delete recorder; }

}  // extern "C"
