/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * The header's STACKREC_NODISCARD at work. Built with
 * -DSTACKREC_TEST_IGNORE_STATUS, this drops the status of an exported call
 * and of an inline wrapper, and -Werror must turn both warnings into errors;
 * built without, it checks them and must compile. The code is C99 and C++17
 * alike, so check_ignored_status.cmake compiles this one file as both. */
#include "stackrec/stackrec.h"

int ignore_or_check(stackrec_recorder *recorder, const stackrec_sample *sample);

int ignore_or_check(stackrec_recorder *recorder, const stackrec_sample *sample) {
#ifdef STACKREC_TEST_IGNORE_STATUS
  stackrec_recorder_untrack(recorder, 1);
  stackrec_recorder_record(recorder, sample);
  return 0;
#else
  if (stackrec_recorder_untrack(recorder, 1) != STACKREC_OK) return 1;
  return stackrec_recorder_record(recorder, sample) == STACKREC_OK ? 0 : 1;
#endif
}
