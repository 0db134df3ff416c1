# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DEXPECTED=<abi_host built against the header>
#       -DACTUAL=<abi_host built against an older or a newer copy> -P abi_compare.cmake
#
# Both must succeed and print the same: the same calls give the same result
# whatever the 1.x header the host was built against.
foreach(var EXPECTED ACTUAL)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "abi_compare.cmake: -D${var}=... is required")
  endif()
endforeach()
foreach(which EXPECTED ACTUAL)
  execute_process(COMMAND "${${which}}" OUTPUT_VARIABLE out_${which}
    ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${${which}} failed (${rc}):\n${err}${out_${which}}")
  endif()
endforeach()
if(NOT out_EXPECTED STREQUAL out_ACTUAL)
  message(FATAL_ERROR "the hosts differ.\n${EXPECTED}:\n${out_EXPECTED}\n${ACTUAL}:\n${out_ACTUAL}")
endif()
message(STATUS "the same output:\n${out_ACTUAL}")
