// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "capi/c_convert.h"

#include <string>
#include <utility>

#include "capi/c_checks.h"

namespace stackrec {

Status ToOptions(const stackrec_profile_options* opts, ProfileOptions* out) {
  if (opts == nullptr) return NullArgument("opts");
  STACKREC_RETURN_IF_ERROR(
      CheckArray(opts->sample_types, opts->sample_types_len, "opts.sample_types"));
  ProfileOptions in;
  in.sample_types.resize(opts->sample_types_len);
  for (size_t i = 0; i < opts->sample_types_len; ++i) {
    absl::string_view type, unit;
    STACKREC_RETURN_IF_ERROR(
        ToView(opts->sample_types[i].type, "opts.sample_types", i, "type", &type));
    STACKREC_RETURN_IF_ERROR(
        ToView(opts->sample_types[i].unit, "opts.sample_types", i, "unit", &unit));
    in.sample_types[i] = ValueType{std::string(type), std::string(unit)};
  }
  if (opts->sample_types_enabled != nullptr) {
    in.enabled.assign(opts->sample_types_enabled,
                      opts->sample_types_enabled + opts->sample_types_len);
  }
  absl::string_view ptype, punit;
  STACKREC_RETURN_IF_ERROR(ToView(opts->period_type.type, "opts.period_type.type", &ptype));
  STACKREC_RETURN_IF_ERROR(ToView(opts->period_type.unit, "opts.period_type.unit", &punit));
  in.period_type = ValueType{std::string(ptype), std::string(punit)};
  in.period = opts->period;
  in.max_frames = opts->max_frames;
  in.max_memory_bytes = opts->max_memory_bytes;
  in.max_output_bytes = opts->max_output_bytes;
  absl::string_view view;
  STACKREC_RETURN_IF_ERROR(ToView(opts->default_sample_type, "opts.default_sample_type", &view));
  in.default_sample_type = std::string(view);
  STACKREC_RETURN_IF_ERROR(CheckArray(opts->comments, opts->comments_len, "opts.comments"));
  for (size_t i = 0; i < opts->comments_len; ++i) {
    STACKREC_RETURN_IF_ERROR(ToView(opts->comments[i], "opts.comments", i, "", &view));
    in.comments.emplace_back(view);
  }
  STACKREC_RETURN_IF_ERROR(ToView(opts->drop_frames, "opts.drop_frames", &view));
  in.drop_frames = std::string(view);
  STACKREC_RETURN_IF_ERROR(ToView(opts->keep_frames, "opts.keep_frames", &view));
  in.keep_frames = std::string(view);
  // Only recorders read the live-heap types; the array is checked for both,
  // as every array of the header is.
  STACKREC_RETURN_IF_ERROR(
      CheckArray(opts->live_heap_types, opts->live_heap_types_len, "opts.live_heap_types"));
  return MakeProfileOptions(in, out);
}

Status ToLiveHeapOptions(const stackrec_profile_options* opts, size_t sample_types,
                         LiveHeapOptions* out) {
  LiveHeapOptions in;
  if (opts->live_heap_types_len != 0) {
    in.types.assign(opts->live_heap_types, opts->live_heap_types + opts->live_heap_types_len);
  }
  in.max_objects = opts->max_tracked_objects;
  return MakeLiveHeapOptions(in, sample_types, out);
}

Status ToSerializeOptions(const stackrec_serialize_options* opts, SerializeOptions* out) {
  *out = SerializeOptions();
  if (opts != nullptr) {
    out->compression = static_cast<Compression>(EnumBits(opts->compression));
    out->level = opts->level;
    out->format = static_cast<Format>(EnumBits(opts->format));
    OtlpOptions& otlp = out->otlp;
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(ToView(opts->service_name, "opts.service_name", &view));
    otlp.service_name = std::string(view);
    STACKREC_RETURN_IF_ERROR(CheckArray(opts->resource_attributes, opts->resource_attributes_len,
                                        "opts.resource_attributes"));
    otlp.resource_attributes.resize(opts->resource_attributes_len);
    for (size_t i = 0; i < opts->resource_attributes_len; ++i) {
      absl::string_view key, value;
      STACKREC_RETURN_IF_ERROR(
          ToView(opts->resource_attributes[i].key, "opts.resource_attributes", i, "key", &key));
      STACKREC_RETURN_IF_ERROR(ToView(opts->resource_attributes[i].value,
                                      "opts.resource_attributes", i, "value", &value));
      otlp.resource_attributes[i] = {std::string(key), std::string(value)};
    }
    STACKREC_RETURN_IF_ERROR(ToView(opts->scope_name, "opts.scope_name", &view));
    otlp.scope_name = std::string(view);
    STACKREC_RETURN_IF_ERROR(ToView(opts->scope_version, "opts.scope_version", &view));
    otlp.scope_version = std::string(view);
    out->budget.part_bytes = opts->part_max_bytes;
    out->budget.part_uncompressed_bytes = opts->part_max_uncompressed_bytes;
    out->budget.part_samples = opts->part_max_samples;
    out->budget.parts = opts->max_parts;
    out->compress_threads = opts->compress_threads;
    out->target = static_cast<Target>(EnumBits(opts->target));
    STACKREC_RETURN_IF_ERROR(
        CheckArray(opts->series_labels, opts->series_labels_len, "opts.series_labels"));
    out->series_labels.resize(opts->series_labels_len);
    for (size_t i = 0; i < opts->series_labels_len; ++i) {
      STACKREC_RETURN_IF_ERROR(ToView(opts->series_labels[i], "opts.series_labels", i, "", &view));
      out->series_labels[i] = std::string(view);
    }
  }
  return ValidateSerializeOptions(*out);
}

Status ToUpscalingRule(const stackrec_upscaling_rule* r, UpscalingRule* out) {
  if (r == nullptr) return NullArgument("rule");
  switch (EnumBits(r->kind)) {
    case STACKREC_UPSCALING_PROPORTIONAL:
      out->kind = UpscalingRule::Kind::kProportional;
      break;
    case STACKREC_UPSCALING_POISSON:
      out->kind = UpscalingRule::Kind::kPoisson;
      break;
    default:
      return Error(Code::kInvalidArgument, "rule.kind %d is not a stackrec_upscaling_kind",
                   EnumBits(r->kind));
  }
  STACKREC_RETURN_IF_ERROR(
      CheckArray(r->value_offsets, r->value_offsets_len, "rule.value_offsets"));
  out->offsets.assign(r->value_offsets, r->value_offsets + r->value_offsets_len);
  absl::string_view view;
  STACKREC_RETURN_IF_ERROR(ToView(r->label_key, "rule.label_key", &view));
  out->label_key = std::string(view);
  STACKREC_RETURN_IF_ERROR(ToView(r->label_str, "rule.label_str", &view));
  out->label_str = std::string(view);
  out->label_num = r->label_num;
  out->total_sampled = r->total_sampled;
  out->total_real = r->total_real;
  out->sum_offset = r->sum_value_offset;
  out->count_offset = r->count_value_offset;
  out->sampling_distance = r->sampling_distance;
  return OkStatus();
}

Status ToMappingView(const stackrec_mapping* m, MappingView* out) {
  if (m == nullptr) return NullArgument("mapping");
  out->memory_start = m->memory_start;
  out->memory_limit = m->memory_limit;
  out->file_offset = m->file_offset;
  STACKREC_RETURN_IF_ERROR(ToView(m->filename, "mapping.filename", &out->filename));
  return ToView(m->build_id, "mapping.build_id", &out->build_id);
}

Status ToFunctionView(const stackrec_function* f, FunctionView* out) {
  if (f == nullptr) return NullArgument("function");
  out->start_line = f->start_line;
  STACKREC_RETURN_IF_ERROR(ToView(f->name, "function.name", &out->name));
  STACKREC_RETURN_IF_ERROR(ToView(f->system_name, "function.system_name", &out->system_name));
  return ToView(f->filename, "function.filename", &out->filename);
}

}  // namespace stackrec
