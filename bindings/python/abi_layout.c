/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Prints the layout of the header's structures as the C compiler sees it,
 * one line per structure ("stackrec_stats 112") and per field
 * ("stackrec_stats.records_rejected 72 8": offset, size).
 * The Python package's test_recorder.py compares it with the ctypes mirrors
 * in src/stackrec/_native.py and exporter.py, which cannot read the header themselves; a
 * structure that grew in the header shows up as a size mismatch even before
 * its field is listed here. */
#include <stddef.h>
#include <stdio.h>

#include "stackrec/export.h"
#include "stackrec/stackrec.h"

#define STRUCT(type) printf("%s %zu\n", #type, sizeof(type))
#define FIELD(type, field) \
  printf("%s.%s %zu %zu\n", #type, #field, offsetof(type, field), sizeof(((type *)0)->field))

int main(void) {
  STRUCT(stackrec_str);
  FIELD(stackrec_str, ptr);
  FIELD(stackrec_str, len);

  STRUCT(stackrec_value_type);
  FIELD(stackrec_value_type, type);
  FIELD(stackrec_value_type, unit);

  STRUCT(stackrec_mapping);
  FIELD(stackrec_mapping, memory_start);
  FIELD(stackrec_mapping, memory_limit);
  FIELD(stackrec_mapping, file_offset);
  FIELD(stackrec_mapping, filename);
  FIELD(stackrec_mapping, build_id);

  STRUCT(stackrec_function);
  FIELD(stackrec_function, name);
  FIELD(stackrec_function, system_name);
  FIELD(stackrec_function, filename);
  FIELD(stackrec_function, start_line);

  STRUCT(stackrec_location);
  FIELD(stackrec_location, mapping);
  FIELD(stackrec_location, function);
  FIELD(stackrec_location, address);
  FIELD(stackrec_location, line);
  FIELD(stackrec_location, inlined);

  STRUCT(stackrec_label);
  FIELD(stackrec_label, key);
  FIELD(stackrec_label, str);
  FIELD(stackrec_label, num);
  FIELD(stackrec_label, num_unit);

  STRUCT(stackrec_link);
  FIELD(stackrec_link, trace_id);
  FIELD(stackrec_link, span_id);

  STRUCT(stackrec_sample);
  FIELD(stackrec_sample, locations);
  FIELD(stackrec_sample, locations_len);
  FIELD(stackrec_sample, values);
  FIELD(stackrec_sample, values_len);
  FIELD(stackrec_sample, labels);
  FIELD(stackrec_sample, labels_len);
  FIELD(stackrec_sample, timestamp_ns);
  FIELD(stackrec_sample, link);

  STRUCT(stackrec_interned_location);
  FIELD(stackrec_interned_location, mapping_id);
  FIELD(stackrec_interned_location, function_id);
  FIELD(stackrec_interned_location, address);
  FIELD(stackrec_interned_location, line);
  FIELD(stackrec_interned_location, inlined);

  STRUCT(stackrec_id_sample);
  FIELD(stackrec_id_sample, stack_id);
  FIELD(stackrec_id_sample, location_ids);
  FIELD(stackrec_id_sample, location_ids_len);
  FIELD(stackrec_id_sample, values);
  FIELD(stackrec_id_sample, values_len);
  FIELD(stackrec_id_sample, labels);
  FIELD(stackrec_id_sample, labels_len);
  FIELD(stackrec_id_sample, timestamp_ns);
  FIELD(stackrec_id_sample, labels_id);
  FIELD(stackrec_id_sample, link);

  STRUCT(stackrec_profile_options);
  FIELD(stackrec_profile_options, sample_types);
  FIELD(stackrec_profile_options, sample_types_len);
  FIELD(stackrec_profile_options, period_type);
  FIELD(stackrec_profile_options, period);
  FIELD(stackrec_profile_options, sample_types_enabled);
  FIELD(stackrec_profile_options, max_frames);
  FIELD(stackrec_profile_options, max_memory_bytes);
  FIELD(stackrec_profile_options, max_output_bytes);
  FIELD(stackrec_profile_options, default_sample_type);
  FIELD(stackrec_profile_options, comments);
  FIELD(stackrec_profile_options, comments_len);
  FIELD(stackrec_profile_options, drop_frames);
  FIELD(stackrec_profile_options, keep_frames);
  FIELD(stackrec_profile_options, live_heap_types);
  FIELD(stackrec_profile_options, live_heap_types_len);
  FIELD(stackrec_profile_options, max_tracked_objects);

  STRUCT(stackrec_attribute);
  FIELD(stackrec_attribute, key);
  FIELD(stackrec_attribute, value);

  STRUCT(stackrec_serialize_options);
  FIELD(stackrec_serialize_options, compression);
  FIELD(stackrec_serialize_options, level);
  FIELD(stackrec_serialize_options, format);
  FIELD(stackrec_serialize_options, service_name);
  FIELD(stackrec_serialize_options, resource_attributes);
  FIELD(stackrec_serialize_options, resource_attributes_len);
  FIELD(stackrec_serialize_options, scope_name);
  FIELD(stackrec_serialize_options, scope_version);
  FIELD(stackrec_serialize_options, part_max_bytes);
  FIELD(stackrec_serialize_options, part_max_uncompressed_bytes);
  FIELD(stackrec_serialize_options, part_max_samples);
  FIELD(stackrec_serialize_options, max_parts);
  FIELD(stackrec_serialize_options, compress_threads);
  FIELD(stackrec_serialize_options, target);
  FIELD(stackrec_serialize_options, series_labels);
  FIELD(stackrec_serialize_options, series_labels_len);

  STRUCT(stackrec_part);
  FIELD(stackrec_part, data);
  FIELD(stackrec_part, size);
  FIELD(stackrec_part, samples_written);
  FIELD(stackrec_part, uncompressed_bytes);

  STRUCT(stackrec_encode_stats);
  FIELD(stackrec_encode_stats, samples_recorded);
  FIELD(stackrec_encode_stats, samples_truncated);
  FIELD(stackrec_encode_stats, samples_over_memory);
  FIELD(stackrec_encode_stats, samples_written);
  FIELD(stackrec_encode_stats, samples_left_out);
  FIELD(stackrec_encode_stats, locations_written);
  FIELD(stackrec_encode_stats, functions_written);
  FIELD(stackrec_encode_stats, mappings_written);
  FIELD(stackrec_encode_stats, strings_written);
  FIELD(stackrec_encode_stats, uncompressed_bytes);
  FIELD(stackrec_encode_stats, compressed_bytes);
  FIELD(stackrec_encode_stats, encode_ns);
  FIELD(stackrec_encode_stats, parts);
  FIELD(stackrec_encode_stats, folded_because);

  STRUCT(stackrec_stats);
  FIELD(stackrec_stats, last_samples_recorded);
  FIELD(stackrec_stats, last_distinct_keys);
  FIELD(stackrec_stats, last_serialize_ns);
  FIELD(stackrec_stats, serializations_ok);
  FIELD(stackrec_stats, serializations_failed);
  FIELD(stackrec_stats, serialize_ns_min);
  FIELD(stackrec_stats, serialize_ns_max);
  FIELD(stackrec_stats, serialize_ns_total);
  FIELD(stackrec_stats, samples_recorded);
  FIELD(stackrec_stats, records_rejected);
  FIELD(stackrec_stats, samples_truncated);
  FIELD(stackrec_stats, samples_over_memory);
  FIELD(stackrec_stats, samples_left_out_of_output);
  FIELD(stackrec_stats, objects_tracked);
  FIELD(stackrec_stats, objects_not_tracked);

  STRUCT(stackrec_upscaling_rule);
  FIELD(stackrec_upscaling_rule, kind);
  FIELD(stackrec_upscaling_rule, value_offsets);
  FIELD(stackrec_upscaling_rule, value_offsets_len);
  FIELD(stackrec_upscaling_rule, label_key);
  FIELD(stackrec_upscaling_rule, label_str);
  FIELD(stackrec_upscaling_rule, label_num);
  FIELD(stackrec_upscaling_rule, total_sampled);
  FIELD(stackrec_upscaling_rule, total_real);
  FIELD(stackrec_upscaling_rule, sum_value_offset);
  FIELD(stackrec_upscaling_rule, count_value_offset);
  FIELD(stackrec_upscaling_rule, sampling_distance);

  /* The exporter's (export.h), mirrored in src/stackrec/exporter.py. */
  STRUCT(stackrec_exporter_options);
  FIELD(stackrec_exporter_options, protocol);
  FIELD(stackrec_exporter_options, endpoint);
  FIELD(stackrec_exporter_options, site);
  FIELD(stackrec_exporter_options, api_key);
  FIELD(stackrec_exporter_options, app_name);
  FIELD(stackrec_exporter_options, spy_name);
  FIELD(stackrec_exporter_options, sample_rate);
  FIELD(stackrec_exporter_options, tags);
  FIELD(stackrec_exporter_options, tags_len);
  FIELD(stackrec_exporter_options, basic_auth_user);
  FIELD(stackrec_exporter_options, basic_auth_password);
  FIELD(stackrec_exporter_options, bearer_token);
  FIELD(stackrec_exporter_options, tenant_id);
  FIELD(stackrec_exporter_options, family);
  FIELD(stackrec_exporter_options, origin);
  FIELD(stackrec_exporter_options, origin_version);
  FIELD(stackrec_exporter_options, otlp_development_header);
  FIELD(stackrec_exporter_options, headers);
  FIELD(stackrec_exporter_options, headers_len);
  FIELD(stackrec_exporter_options, max_queue_bytes);
  FIELD(stackrec_exporter_options, max_queue_requests);
  FIELD(stackrec_exporter_options, connect_timeout_ms);
  FIELD(stackrec_exporter_options, timeout_ms);
  FIELD(stackrec_exporter_options, max_retries);
  FIELD(stackrec_exporter_options, initial_backoff_ms);
  FIELD(stackrec_exporter_options, max_backoff_ms);
  FIELD(stackrec_exporter_options, ca_file);
  FIELD(stackrec_exporter_options, insecure);

  STRUCT(stackrec_export_stats);
  FIELD(stackrec_export_stats, requests_queued);
  FIELD(stackrec_export_stats, queued);
  FIELD(stackrec_export_stats, requests_sent);
  FIELD(stackrec_export_stats, bytes_sent);
  FIELD(stackrec_export_stats, retries);
  FIELD(stackrec_export_stats, failed_http_4xx);
  FIELD(stackrec_export_stats, failed_too_large);
  FIELD(stackrec_export_stats, failed_http_5xx);
  FIELD(stackrec_export_stats, failed_connection);
  FIELD(stackrec_export_stats, dropped);
  FIELD(stackrec_export_stats, abandoned);
  FIELD(stackrec_export_stats, partial_success_rejected);
  FIELD(stackrec_export_stats, serialize_failed);
  FIELD(stackrec_export_stats, last_http_status);
  FIELD(stackrec_export_stats, last_error);
  FIELD(stackrec_export_stats, refused_before_sending);
  FIELD(stackrec_export_stats, dropped_too_old);
  return 0;
}
