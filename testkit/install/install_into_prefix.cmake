# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DPROJECT_BINARY_DIR=<build> -DPREFIX=<dir> [-DCONFIG=<config>]
#       -P install_into_prefix.cmake
# `cmake --install` the build into a fresh PREFIX, and check that the files
# every consumer needs are there.

foreach(var PROJECT_BINARY_DIR PREFIX)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_into_prefix.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")
set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
set(command "${CMAKE_COMMAND}" --install "${PROJECT_BINARY_DIR}" --prefix "${PREFIX}" ${config_args})
list(JOIN command " " shown)
message(STATUS "$ ${shown}")
execute_process(COMMAND ${command}
  WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "failed (${rc}):\n${out}")
endif()
message("${out}")

foreach(file include/stackrec/stackrec.h lib/libstackrec.so lib/libstackrec_static.a
             lib/cmake/stackrec/stackrecConfig.cmake
             lib/cmake/stackrec/stackrecConfigVersion.cmake
             lib/pkgconfig/stackrec.pc lib/pkgconfig/stackrec_static.pc)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "cmake --install did not create ${PREFIX}/${file}")
  endif()
endforeach()
