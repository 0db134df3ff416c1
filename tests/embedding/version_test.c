/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * The version is written once, as STACKREC_VERSION_{MAJOR,MINOR,PATCH} in
 * the header; everything else is derived from it. This checks that the
 * derivations agree: STACKREC_VERSION_NUMBER, what the shared library was
 * built with (stackrec_version_number()), and STACKREC_EXPECTED_VERSION, the
 * project version CMake read from the header and stamped on the library's
 * file name and on its CMake and pkg-config packages. */
#include <stdio.h>
#include <string.h>

#include "stackrec/stackrec.h"

int main(void) {
  char macros[64];
  int failures = 0;

  snprintf(macros, sizeof(macros), "%d.%d.%d", STACKREC_VERSION_MAJOR, STACKREC_VERSION_MINOR,
           STACKREC_VERSION_PATCH);
  if (strcmp(macros, STACKREC_EXPECTED_VERSION) != 0) {
    fprintf(stderr, "header says %s, CMake's project version is %s\n", macros,
            STACKREC_EXPECTED_VERSION);
    failures++;
  }
  /* Two digits each for minor and patch, so the number orders as the
   * version does. */
  if (STACKREC_VERSION_MINOR > 99 || STACKREC_VERSION_PATCH > 99 ||
      STACKREC_VERSION_NUMBER !=
          STACKREC_VERSION_MAJOR * 10000 + STACKREC_VERSION_MINOR * 100 + STACKREC_VERSION_PATCH) {
    fprintf(stderr, "STACKREC_VERSION_NUMBER %d does not encode %s\n", STACKREC_VERSION_NUMBER,
            macros);
    failures++;
  }
  if (stackrec_version_number() != STACKREC_VERSION_NUMBER) {
    fprintf(stderr,
            "the library was built with version number %d, this header has "
            "%d\n",
            stackrec_version_number(), STACKREC_VERSION_NUMBER);
    failures++;
  }
  if (failures == 0) printf("stackrec %s agrees everywhere\n", macros);
  return failures == 0 ? 0 : 1;
}
