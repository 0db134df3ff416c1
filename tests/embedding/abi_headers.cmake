# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DHEADER=<stackrec.h> -DOUT=<dir> -P abi_headers.cmake
#
# Writes two copies of the public header for the ABI tests:
#  - <dir>/older/stackrec/stackrec.h, a header of an older 1.x version: every
#    growable struct without its last member;
#  - <dir>/newer/stackrec/stackrec.h, a header of a newer one: every growable
#    struct with one more member at its end, `uint64_t abi_test_new_field`.
# The growable structs are the ones the header's stackrec_*_sized entry
# points take with a size, so a struct that becomes growable is covered
# without this script changing.

foreach(var HEADER OUT)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "abi_headers.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${HEADER}" header)

# The struct (not opaque handle) types that the _sized entry points take.
string(REGEX MATCHALL "stackrec_[a-z_]+_sized\\([^)]*\\)" sized "${header}")
set(growable "")
foreach(prototype IN LISTS sized)
  string(REGEX MATCHALL "stackrec_[a-z_]+ \\*[a-z_]+" params "${prototype}")
  foreach(param IN LISTS params)
    string(REGEX REPLACE " .*" "" type "${param}")
    string(FIND "${header}" "typedef struct ${type} {" body_at)
    if(NOT body_at EQUAL -1)
      list(APPEND growable "${type}")
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES growable)
if(growable STREQUAL "")
  message(FATAL_ERROR "abi_headers.cmake: found no growable struct in ${HEADER}")
endif()

set(older "${header}")
set(newer "${header}")
foreach(type IN LISTS growable)
  # The body of `typedef struct T { ... } T;` and its last member, from the
  # `;` before it (or the `{`) to its own `;`.
  string(FIND "${older}" "typedef struct ${type} {" start)
  string(FIND "${older}" "} ${type};" end)
  math(EXPR body_start "${start} + 1")
  math(EXPR body_len "${end} - ${body_start}")
  string(SUBSTRING "${older}" ${body_start} ${body_len} body)
  string(FIND "${body}" ";" last REVERSE)
  string(SUBSTRING "${body}" 0 ${last} before_last)
  string(FIND "${before_last}" ";" previous REVERSE)
  if(previous EQUAL -1)
    message(FATAL_ERROR "abi_headers.cmake: ${type} has one member only")
  endif()
  math(EXPR keep "${previous} + 1")
  string(SUBSTRING "${body}" 0 ${keep} kept)
  string(REPLACE "${body}" "${kept}\n" older "${older}")

  string(REPLACE "} ${type};" "  uint64_t abi_test_new_field;\n} ${type};" newer "${newer}")
  message(STATUS "abi_headers.cmake: ${type}")
endforeach()

file(WRITE "${OUT}/older/stackrec/stackrec.h" "${older}")
file(WRITE "${OUT}/newer/stackrec/stackrec.h" "${newer}")
