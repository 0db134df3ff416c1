# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# The layer check: every #include "..." under SOURCE_DIR (src/) names a
# folder no higher than the includer's own, so that includes only point
# down and `ls src` reads as the architecture. Run as
#   cmake -DSOURCE_DIR=<src> -P check_layers.cmake
# It fails naming each file and include that breaks a rule:
# - a source file sits directly in SOURCE_DIR, or in a folder not listed;
# - an include names a layer folder above the includer's (or beside it: the
#   folders of one floor never include each other);
# - an include names an internal header without its folder;
# - a file outside capi/ includes the public header: only the C boundary
#   sees C types;
# - a file in export/ includes a core folder other than base/: the exporter
#   library is a client of the C boundary, linked against the shared
#   library whose internals are hidden, so it sees the public headers and
#   base/, which it compiles into itself, only.
# Third-party includes ("absl/...", "google/...") are not layers and pass.
cmake_minimum_required(VERSION 3.25)

# The floors, bottom to top; folders on one floor are separated by spaces.
# This list is the one statement of the order; docs/architecture.md shows
# it.
set(floors
  "base"
  "input"
  "hash"
  "concurrent"
  "tables"
  "profile"
  "live_heap encode"
  "encode/pprof encode/otlp"
  "serialize"
  "recorder"
  "capi"
  "export")
# Files that may sit directly in SOURCE_DIR.
set(top_level_files CMakeLists.txt stackrec.map)

if(NOT SOURCE_DIR OR NOT IS_DIRECTORY "${SOURCE_DIR}")
  message(FATAL_ERROR "check_layers: pass -DSOURCE_DIR=<the src/ folder>")
endif()

set(folders "")
set(floor 0)
foreach(entry IN LISTS floors)
  string(REPLACE " " ";" members "${entry}")
  foreach(folder IN LISTS members)
    set(floor_of_${folder} ${floor})
    list(APPEND folders "${folder}")
  endforeach()
  math(EXPR floor "${floor} + 1")
endforeach()

# The folder of a path relative to SOURCE_DIR: the longest listed folder it
# starts with, or "" when none.
function(folder_of path out)
  set(best "")
  foreach(folder IN LISTS folders)
    string(LENGTH "${folder}/" n)
    string(SUBSTRING "${path}" 0 ${n} head)
    string(LENGTH "${best}" best_n)
    if(head STREQUAL "${folder}/" AND n GREATER best_n)
      set(best "${folder}")
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

set(problems "")
file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*")
foreach(file IN LISTS files)
  if(NOT file MATCHES "/")
    if(NOT file IN_LIST top_level_files)
      list(APPEND problems "src/${file}: sits directly in src/, outside every layer folder")
    endif()
    continue()
  endif()
  folder_of("${file}" home)
  string(REGEX MATCH "^(.*)/[^/]*$" _ "${file}")
  set(dir "${CMAKE_MATCH_1}")
  if(NOT dir STREQUAL home)
    list(APPEND problems "src/${file}: folder ${dir}/ is not a layer of the check's list")
    continue()
  endif()
  if(NOT file MATCHES "\\.(h|cc)$")
    continue()
  endif()
  file(STRINGS "${SOURCE_DIR}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "\"([^\"]+)\"" _ "${line}")
    set(target "${CMAKE_MATCH_1}")
    if(target STREQUAL "stackrec/stackrec.h")
      if(NOT home STREQUAL "capi" AND NOT home STREQUAL "export")
        list(APPEND problems "src/${file}: includes \"${target}\": only capi/ sees the C API's types")
      endif()
      continue()
    endif()
    folder_of("${target}" there)
    if(there STREQUAL "")
      if(EXISTS "${SOURCE_DIR}/${target}" OR NOT target MATCHES "/")
        list(APPEND problems "src/${file}: includes \"${target}\" without a layer folder")
      endif()
      continue()  # third party
    endif()
    if(there STREQUAL home)
      continue()
    endif()
    if(home STREQUAL "export")
      if(NOT there STREQUAL "base")
        list(APPEND problems
          "src/${file}: includes \"${target}\": export/ uses the core through its public headers and base/ only")
      endif()
      continue()
    endif()
    if(NOT floor_of_${there} LESS floor_of_${home})
      list(APPEND problems
        "src/${file}: includes \"${target}\": ${there}/ is not below ${home}/")
    endif()
  endforeach()
endforeach()

if(problems)
  list(LENGTH problems n)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "check_layers: ${n} problem(s) with the layers:\n  ${text}")
endif()
list(LENGTH files n)
message(STATUS "check_layers: ${n} files, every include points down")
