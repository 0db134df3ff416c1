/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * A C99 program built against an installed libstackrec_export, through
 * its pkg-config files and its CMake targets (consume_installed.cmake): it
 * creates an exporter, has a bad option refused by name, and ships nothing,
 * so it needs no server. */
#include <stackrec/export.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  stackrec_exporter_options opts = {0};
  stackrec_exporter *exporter = NULL;
  stackrec_export_stats stats;
  opts.protocol = STACKREC_EXPORT_OTLP;
  opts.endpoint = (stackrec_str){"http://127.0.0.1:4318", 21};
  if (stackrec_exporter_new(&opts, &exporter) != STACKREC_OK) {
    fprintf(stderr, "exporter_new: %s\n", stackrec_last_error());
    return 1;
  }
  if (stackrec_exporter_stats(exporter, &stats) != STACKREC_OK || stats.requests_queued != 0) {
    fprintf(stderr, "stats: %s\n", stackrec_last_error());
    return 1;
  }
  stackrec_exporter_free(exporter);
  exporter = NULL;
  opts.endpoint = (stackrec_str){"ftp://127.0.0.1", 15};
  if (stackrec_exporter_new(&opts, &exporter) != STACKREC_INVALID_ARGUMENT ||
      strstr(stackrec_last_error(), "opts.endpoint") == NULL) {
    fprintf(stderr, "a bad endpoint was not refused by name: %s\n", stackrec_last_error());
    return 1;
  }
  printf("libstackrec_export %d: ok\n", stackrec_version_number());
  return 0;
}
