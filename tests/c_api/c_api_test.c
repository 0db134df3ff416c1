/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * The whole header, used from C99 (compiled with -std=c99 -Wall -Wextra
 * -pedantic -Werror). c_api_c99_test.cc runs it and decodes what it wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackrec/stackrec.h"

#define STR(literal) \
  { literal, sizeof(literal) - 1 }

static int fail(const char *what, stackrec_status status) {
  fprintf(stderr, "%s: %s: %s\n", what, stackrec_status_name(status), stackrec_last_error());
  return 0;
}

/* Records three samples and an endpoint, serializes with `compression`,
 * and hands the bytes back in a malloc'd buffer. Returns 1 on success. */
int stackrec_c_api_exercise(int compression, unsigned char **bytes, size_t *size, int64_t *start_ns,
                            int64_t *end_ns) {
  static const stackrec_value_type types[2] = {{STR("cpu-time"), STR("nanoseconds")},
                                               {STR("cpu-samples"), STR("count")}};
  stackrec_profile_options opts;
  stackrec_profile *profile = NULL;
  stackrec_encoded *encoded = NULL;
  stackrec_location frames[2];
  stackrec_label labels[2];
  stackrec_sample sample;
  stackrec_serialize_options sopts;
  stackrec_status st;
  int64_t values[2] = {1000, 1};
  stackrec_str endpoint = STR("GET /c");
  int ok = 0;

  if (stackrec_version_number() != STACKREC_VERSION_NUMBER) {
    fprintf(stderr, "version mismatch\n");
    return 0;
  }
  memset(&opts, 0, sizeof(opts));
  opts.sample_types = types;
  opts.sample_types_len = 2;
  opts.period_type.type = types[0].type;
  opts.period_type.unit = types[0].unit;
  opts.period = 10;
  st = stackrec_profile_new(&opts, &profile);
  if (st != STACKREC_OK) return fail("stackrec_profile_new", st);

  memset(frames, 0, sizeof(frames));
  frames[0].function.name = (stackrec_str)STR("c_leaf");
  frames[0].function.filename = (stackrec_str)STR("leaf.c");
  frames[0].line = 12;
  frames[1].function.name = (stackrec_str)STR("main");
  frames[1].mapping.filename = (stackrec_str)STR("/bin/c");
  frames[1].mapping.build_id = (stackrec_str)STR("abc123");
  frames[1].mapping.memory_start = 0x1000;
  frames[1].mapping.memory_limit = 0x2000;
  frames[1].address = 0x1234;
  memset(labels, 0, sizeof(labels));
  labels[0].key = (stackrec_str)STR("thread name");
  labels[0].str = (stackrec_str)STR("c thread");
  labels[1].key = (stackrec_str)STR("local root span id");
  labels[1].num = 77;
  memset(&sample, 0, sizeof(sample));
  sample.locations = frames;
  sample.locations_len = 2;
  sample.values = values;
  sample.values_len = 2;
  sample.labels = labels;
  sample.labels_len = 2;

  if ((st = stackrec_profile_add(profile, &sample)) != STACKREC_OK) {
    fail("stackrec_profile_add", st);
    goto done;
  }
  if ((st = stackrec_profile_add(profile, &sample)) != STACKREC_OK) {
    fail("stackrec_profile_add", st);
    goto done;
  }
  sample.timestamp_ns = 123456789;
  if ((st = stackrec_profile_add(profile, &sample)) != STACKREC_OK) {
    fail("stackrec_profile_add", st);
    goto done;
  }
  /* A rejected call: the wrong number of values. */
  sample.values_len = 1;
  if (stackrec_profile_add(profile, &sample) != STACKREC_INVALID_ARGUMENT ||
      strstr(stackrec_last_error(), "sample.values_len") == NULL) {
    fprintf(stderr, "a bad sample was not rejected\n");
    goto done;
  }
  if ((st = stackrec_profile_record_endpoint(profile, 77, endpoint)) != STACKREC_OK) {
    fail("stackrec_profile_record_endpoint", st);
    goto done;
  }
  if ((st = stackrec_profile_add_endpoint_count(profile, endpoint, 3)) != STACKREC_OK) {
    fail("stackrec_profile_add_endpoint_count", st);
    goto done;
  }
  memset(&sopts, 0, sizeof(sopts));
  sopts.compression = (stackrec_compression)compression;
  sopts.level = 0;
  if ((st = stackrec_profile_serialize(profile, &sopts, &encoded)) != STACKREC_OK) {
    fail("stackrec_profile_serialize", st);
    goto done;
  }
  *size = stackrec_encoded_size(encoded);
  *bytes = (unsigned char *)malloc(*size);
  if (*bytes == NULL) goto done;
  memcpy(*bytes, stackrec_encoded_data(encoded), *size);
  *start_ns = stackrec_encoded_start_ns(encoded);
  *end_ns = stackrec_encoded_end_ns(encoded);
  {
    stackrec_str name;
    int64_t count = 0;
    if (stackrec_encoded_endpoint_counts_len(encoded) != 1 ||
        stackrec_encoded_endpoint_count(encoded, 0, &name, &count) != STACKREC_OK ||
        name.len != endpoint.len || memcmp(name.ptr, endpoint.ptr, name.len) != 0 || count != 3) {
      fprintf(stderr, "endpoint counts did not come back\n");
      goto done;
    }
  }
  if ((st = stackrec_profile_reset(profile)) != STACKREC_OK) {
    fail("stackrec_profile_reset", st);
    goto done;
  }
  ok = 1;
done:
  stackrec_encoded_free(encoded);
  stackrec_profile_free(profile);
  stackrec_profile_free(NULL);
  stackrec_encoded_free(NULL);
  return ok;
}

/* The recorder half of the header, from C: records one sample from this
 * thread, serializes it, checks the stats and hands the bytes back. */
int stackrec_c_api_exercise_recorder(unsigned char **bytes, size_t *size) {
  static const stackrec_value_type types[1] = {{STR("cpu-samples"), STR("count")}};
  static const bool enabled[1] = {true};
  stackrec_profile_options opts;
  stackrec_recorder *recorder = NULL;
  stackrec_encoded *encoded = NULL;
  stackrec_location frame;
  stackrec_label label;
  stackrec_sample sample;
  stackrec_stats stats;
  stackrec_status st;
  int64_t value = 5;
  stackrec_str endpoint = STR("GET /r");
  int ok = 0;

  memset(&opts, 0, sizeof(opts));
  opts.sample_types = types;
  opts.sample_types_len = 1;
  opts.sample_types_enabled = enabled;
  opts.max_frames = 64;
  opts.max_memory_bytes = 1 << 24;
  opts.max_output_bytes = 1 << 20;
  if ((st = stackrec_recorder_new(&opts, &recorder)) != STACKREC_OK) {
    return fail("stackrec_recorder_new", st);
  }
  memset(&frame, 0, sizeof(frame));
  frame.function.name = (stackrec_str)STR("recorded_from_c");
  memset(&label, 0, sizeof(label));
  label.key = (stackrec_str)STR("local root span id");
  label.num = 9;
  memset(&sample, 0, sizeof(sample));
  sample.locations = &frame;
  sample.locations_len = 1;
  sample.values = &value;
  sample.values_len = 1;
  sample.labels = &label;
  sample.labels_len = 1;
  if ((st = stackrec_recorder_record_endpoint(recorder, 9, endpoint)) != STACKREC_OK ||
      (st = stackrec_recorder_add_endpoint_count(recorder, endpoint, 1)) != STACKREC_OK ||
      (st = stackrec_recorder_record(recorder, &sample)) != STACKREC_OK ||
      (st = stackrec_recorder_serialize(recorder, NULL, &encoded)) != STACKREC_OK ||
      (st = stackrec_recorder_stats(recorder, &stats)) != STACKREC_OK) {
    fail("recorder call", st);
    goto done;
  }
  if (stats.samples_recorded != 1 || stats.serializations_ok != 1 ||
      stats.last_distinct_keys != 1 || stats.records_rejected != 0 ||
      stats.samples_truncated != 0 || stats.samples_over_memory != 0 ||
      stats.samples_left_out_of_output != 0 || stackrec_encoded_endpoint_counts_len(encoded) != 1) {
    fprintf(stderr, "unexpected recorder stats\n");
    goto done;
  }
  *size = stackrec_encoded_size(encoded);
  *bytes = (unsigned char *)malloc(*size);
  if (*bytes == NULL) goto done;
  memcpy(*bytes, stackrec_encoded_data(encoded), *size);
  if ((st = stackrec_recorder_reset_after_fork(recorder)) != STACKREC_OK) {
    fail("stackrec_recorder_reset_after_fork", st);
    goto done;
  }
  ok = 1;
done:
  stackrec_encoded_free(encoded);
  stackrec_recorder_free(recorder);
  stackrec_recorder_free(NULL);
  return ok;
}

/* Tracks two objects of one stack and frees one, from C99: the profile
 * taken afterwards holds the survivor. Returns 1 on success. */
int stackrec_c_api_exercise_live_heap(unsigned char **bytes, size_t *size) {
  static const stackrec_value_type types[2] = {{STR("heap-live-samples"), STR("count")},
                                               {STR("heap-live-size"), STR("bytes")}};
  static const size_t live_types[2] = {0, 1};
  stackrec_profile_options opts;
  stackrec_recorder *recorder = NULL;
  stackrec_encoded *encoded = NULL;
  stackrec_location frame;
  stackrec_sample sample;
  stackrec_stats stats;
  stackrec_status st;
  int64_t values[2] = {1, 4096};
  int ok = 0;

  memset(&opts, 0, sizeof(opts));
  opts.sample_types = types;
  opts.sample_types_len = 2;
  opts.live_heap_types = live_types;
  opts.live_heap_types_len = 2;
  opts.max_tracked_objects = 2;
  memset(&frame, 0, sizeof(frame));
  frame.function.name = (stackrec_str)STR("c_alloc");
  memset(&sample, 0, sizeof(sample));
  sample.locations = &frame;
  sample.locations_len = 1;
  sample.values = values;
  sample.values_len = 2;
  if ((st = stackrec_recorder_new(&opts, &recorder)) != STACKREC_OK ||
      (st = stackrec_recorder_track(recorder, 0x1000, &sample)) != STACKREC_OK ||
      (st = stackrec_recorder_track(recorder, 0x2000, &sample)) != STACKREC_OK ||
      (st = stackrec_recorder_untrack(recorder, 0x1000)) != STACKREC_OK ||
      (st = stackrec_recorder_untrack(recorder, 0x3000)) != STACKREC_OK) {
    fail("live-heap call", st);
    goto done;
  }
  if (stackrec_recorder_track(recorder, 0x3000, &sample) != STACKREC_OK ||
      stackrec_recorder_track(recorder, 0x4000, &sample) != STACKREC_LIMIT_EXCEEDED) {
    fprintf(stderr, "expected the cap of 2 objects\n");
    goto done;
  }
  if ((st = stackrec_recorder_serialize(recorder, NULL, &encoded)) != STACKREC_OK ||
      (st = stackrec_recorder_stats(recorder, &stats)) != STACKREC_OK) {
    fail("recorder call", st);
    goto done;
  }
  if (stats.objects_tracked != 2 || stats.objects_not_tracked != 1) {
    fprintf(stderr, "unexpected live-heap stats\n");
    goto done;
  }
  *size = stackrec_encoded_size(encoded);
  *bytes = (unsigned char *)malloc(*size);
  if (*bytes == NULL) goto done;
  memcpy(*bytes, stackrec_encoded_data(encoded), *size);
  ok = 1;
done:
  stackrec_encoded_free(encoded);
  stackrec_recorder_free(recorder);
  return ok;
}
