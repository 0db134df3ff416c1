# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Fails, naming each file and line, when clang-format would change a C or
# C++ source under the folders ROOTS of SOURCE_DIR (the layout is
# .clang-format's, at the top of the repository and in the folders that
# state their own). One clang-format run over every file: a few seconds.
#
#   cmake -DCLANG_FORMAT=<clang-format> -DSOURCE_DIR=<repository>
#         -DROOTS="src;include;..." [-DEXCLUDE=<regex>] -P check_format.cmake
if(NOT CLANG_FORMAT OR NOT EXISTS "${CLANG_FORMAT}")
  message(FATAL_ERROR
    "check_format: clang-format was not found (cmake/install-deps.sh installs it)")
endif()
if(NOT SOURCE_DIR OR NOT IS_DIRECTORY "${SOURCE_DIR}" OR NOT ROOTS)
  message(FATAL_ERROR "check_format: pass -DSOURCE_DIR=<repository> and -DROOTS=<folders>")
endif()

set(files "")
foreach(root IN LISTS ROOTS)
  file(GLOB_RECURSE found LIST_DIRECTORIES false
    "${SOURCE_DIR}/${root}/*.h" "${SOURCE_DIR}/${root}/*.cc" "${SOURCE_DIR}/${root}/*.c")
  list(APPEND files ${found})
endforeach()
if(EXCLUDE)
  list(FILTER files EXCLUDE REGEX "${EXCLUDE}")
endif()
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "check_format: no C or C++ source under ${ROOTS}")
endif()
list(SORT files)

execute_process(
  COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${files}
  WORKING_DIRECTORY "${SOURCE_DIR}"
  RESULT_VARIABLE result
  ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  # clang-format says "<file>:<line>:<column>: error: code should be
  # clang-formatted"; the lines that follow show the text.
  string(REGEX MATCHALL "[^\n]*: error: [^\n]*" where "${errors}")
  list(LENGTH where deviations)
  string(REPLACE ";" "\n  " where "${where}")
  message(FATAL_ERROR
    "check_format: ${deviations} place(s) differ from .clang-format; "
    "run clang-format -i on the files named:\n  ${where}")
endif()
message(STATUS "check_format: ${count} files laid out as .clang-format says")
