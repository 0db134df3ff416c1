# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DCOMPILER=<cc or c++> -DLANGUAGE=<c|c++> -DSTANDARD=<c99|c++17>
#       -DSOURCE=<ignored_status.c> -DINCLUDE_DIR=<include> -DWORK_DIR=<dir>
#       -P check_ignored_status.cmake
#
# Proves that the header's STACKREC_NODISCARD makes a dropped status an error
# under -Werror: SOURCE must compile as it is (it checks every status), and
# must fail with -DSTACKREC_TEST_IGNORE_STATUS (it drops two), with one
# unused-result diagnostic per dropped status, the wording GCC and clang
# share. A compile that fails for any other reason fails the test.

foreach(var COMPILER LANGUAGE STANDARD SOURCE INCLUDE_DIR WORK_DIR)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_ignored_status.cmake: -D${var}=... is required")
  endif()
endforeach()

file(MAKE_DIRECTORY "${WORK_DIR}")
set(compile "${COMPILER}" -x ${LANGUAGE} -std=${STANDARD} -Wall -Wextra -pedantic -Werror
            -I "${INCLUDE_DIR}" -c "${SOURCE}")

execute_process(COMMAND ${compile} -o "${WORK_DIR}/used.o"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the statuses are checked, yet the compile failed (${rc}):\n${out}")
endif()

execute_process(COMMAND ${compile} -DSTACKREC_TEST_IGNORE_STATUS -o "${WORK_DIR}/ignored.o"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(REGEX MATCHALL "Werror[=,]-?W?unused-result" diagnostics "${out}")
list(LENGTH diagnostics count)
if(rc EQUAL 0 OR NOT count EQUAL 2)
  message(FATAL_ERROR "two statuses are dropped: expected a failed compile with two "
                      "unused-result errors, got exit code ${rc} and ${count}:\n${out}")
endif()
message(STATUS "dropping a status is an error in ${LANGUAGE} (${STANDARD}):\n${out}")
