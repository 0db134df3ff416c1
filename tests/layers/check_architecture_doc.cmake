# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Keeps docs/architecture.md true to the tree: every .h and .cc under
# SOURCE_DIR (src/) is named in its folder's section of DOC ("### `folder/`"),
# and every file a section names exists in that folder. Run as
#   cmake -DSOURCE_DIR=<src> -DDOC=<architecture.md> -P check_architecture_doc.cmake
cmake_minimum_required(VERSION 3.25)

if(NOT IS_DIRECTORY "${SOURCE_DIR}" OR NOT EXISTS "${DOC}")
  message(FATAL_ERROR "check_architecture_doc: pass -DSOURCE_DIR=<src> -DDOC=<architecture.md>")
endif()

# The doc's lines, each section's file names gathered under its folder.
file(STRINGS "${DOC}" lines)
set(folder "")
set(folders "")
foreach(line IN LISTS lines)
  if(line MATCHES "^### `([a-z_/]+)/`$")
    set(folder "${CMAKE_MATCH_1}")
    list(APPEND folders "${folder}")
    string(MAKE_C_IDENTIFIER "${folder}" id)
    set(named_${id} "")
  elseif(line MATCHES "^## ")
    set(folder "")
  elseif(NOT folder STREQUAL "" AND line MATCHES "^\\| ([^|]+) \\|")
    string(REGEX MATCHALL "`[A-Za-z0-9_]+\\.(h|cc)`" names "${CMAKE_MATCH_1}")
    string(MAKE_C_IDENTIFIER "${folder}" id)
    foreach(name IN LISTS names)
      string(REPLACE "`" "" name "${name}")
      list(APPEND named_${id} "${name}")
    endforeach()
  endif()
endforeach()

set(problems "")
file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*.h" "${SOURCE_DIR}/*.cc")
foreach(source IN LISTS sources)
  string(REGEX MATCH "^(.*)/([^/]+)$" _ "${source}")
  set(dir "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  string(MAKE_C_IDENTIFIER "${dir}" id)
  if(NOT dir IN_LIST folders)
    list(APPEND problems "src/${source}: the doc has no section for ${dir}/")
  elseif(NOT name IN_LIST named_${id})
    list(APPEND problems "src/${source}: not named in the doc's ${dir}/ section")
  endif()
endforeach()
foreach(folder IN LISTS folders)
  string(MAKE_C_IDENTIFIER "${folder}" id)
  foreach(name IN LISTS named_${id})
    if(NOT EXISTS "${SOURCE_DIR}/${folder}/${name}")
      list(APPEND problems "${folder}/${name}: named in the doc but not in src/${folder}/")
    endif()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "check_architecture_doc: ${DOC} does not match the tree:\n  ${text}")
endif()
list(LENGTH sources n)
message(STATUS "check_architecture_doc: all ${n} files are in the map")
