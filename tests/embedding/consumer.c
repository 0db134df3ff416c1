/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * A C99 program that knows stackrec only as an installed package found
 * through pkg-config (consume_installed.cmake builds it against the shared
 * and the static library). STACKREC_EXPECTED_VERSION is what
 * `pkg-config --modversion stackrec` said. */
#include <stackrec/stackrec.h>
#include <stdio.h>
#include <string.h>

#define STR(literal) \
  { literal, sizeof(literal) - 1 }

#define CHECK(cond)                                                                           \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, \
              stackrec_last_error());                                                         \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

/* Whether `needle` occurs in the `size` bytes at `haystack`. */
static int contains(const uint8_t *haystack, size_t size, const char *needle) {
  size_t n = strlen(needle), i;
  for (i = 0; n <= size && i <= size - n; i++) {
    if (memcmp(haystack + i, needle, n) == 0) return 1;
  }
  return 0;
}

int main(void) {
  static const stackrec_value_type types[1] = {{STR("cpu-samples"), STR("count")}};
  stackrec_profile_options opts;
  stackrec_serialize_options sopts;
  stackrec_recorder *recorder = NULL;
  stackrec_encoded *encoded = NULL;
  stackrec_location frames[2];
  stackrec_sample sample;
  stackrec_stats stats;
  int64_t values[1] = {1};
  char version[32];
  int i;

  /* The package, the header and the library are the same version. */
  snprintf(version, sizeof(version), "%d.%d.%d", STACKREC_VERSION_MAJOR, STACKREC_VERSION_MINOR,
           STACKREC_VERSION_PATCH);
  CHECK(strcmp(version, STACKREC_EXPECTED_VERSION) == 0);
  CHECK(stackrec_version_number() == STACKREC_VERSION_NUMBER);

  memset(&opts, 0, sizeof(opts));
  opts.sample_types = types;
  opts.sample_types_len = 1;
  CHECK(stackrec_recorder_new(&opts, &recorder) == STACKREC_OK);

  memset(frames, 0, sizeof(frames));
  frames[0].function.name = (stackrec_str)STR("pkg_config_consumer_leaf");
  frames[0].line = 7;
  frames[1].function.name = (stackrec_str)STR("main");
  memset(&sample, 0, sizeof(sample));
  sample.locations = frames;
  sample.locations_len = 2;
  sample.values = values;
  sample.values_len = 1;
  for (i = 0; i < 3; i++) {
    CHECK(stackrec_recorder_record(recorder, &sample) == STACKREC_OK);
  }
  CHECK(stackrec_recorder_stats(recorder, &stats) == STACKREC_OK);
  CHECK(stats.samples_recorded == 3);

  /* Uncompressed, so the strings can be seen in the bytes. */
  memset(&sopts, 0, sizeof(sopts));
  sopts.compression = STACKREC_COMPRESSION_NONE;
  CHECK(stackrec_recorder_serialize(recorder, &sopts, &encoded) == STACKREC_OK);
  CHECK(contains(stackrec_encoded_data(encoded), stackrec_encoded_size(encoded),
                 "pkg_config_consumer_leaf"));
  CHECK(contains(stackrec_encoded_data(encoded), stackrec_encoded_size(encoded), "cpu-samples"));
  CHECK(stackrec_encoded_start_ns(encoded) <= stackrec_encoded_end_ns(encoded));
  printf("pkg-config consumer: stackrec %s, %zu bytes of pprof\n", version,
         stackrec_encoded_size(encoded));
  stackrec_encoded_free(encoded);
  stackrec_recorder_free(recorder);
  return 0;
}
