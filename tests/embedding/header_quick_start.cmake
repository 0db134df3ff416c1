# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DHEADER=<stackrec.h> -DOUT=<file.c> -P header_quick_start.cmake
#
# Writes the quick start of the header's opening comment to OUT: the lines
# between " * ---- quick start ----" and " * ---- end of quick start ----",
# each without its leading " * " (or " *" when empty). The build compiles
# and runs exactly that, so the example a reader copies cannot rot. Any other
# shape of the block (a marker missing or repeated, a line outside the
# comment's margin) fails rather than compiling something else.

foreach(var HEADER OUT)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "header_quick_start.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${HEADER}" header)
set(begin_marker "\n * ---- quick start ----\n")
set(end_marker "\n * ---- end of quick start ----\n")
foreach(marker begin_marker end_marker)
  string(FIND "${header}" "${${marker}}" first)
  string(FIND "${header}" "${${marker}}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "${HEADER} must hold the line \"${${marker}}\" exactly once")
  endif()
  set(${marker}_at ${first})
endforeach()

# From the newline that ends the begin marker to the one before the end marker.
string(LENGTH "${begin_marker}" begin_length)
math(EXPR from "${begin_marker_at} + ${begin_length} - 1")
math(EXPR length "${end_marker_at} - ${from}")
if(length LESS 1)
  message(FATAL_ERROR "${HEADER}: the quick start's end marker comes before its beginning")
endif()
string(SUBSTRING "${header}" ${from} ${length} block)

# Every line is " *" or " * " and code.
string(REGEX MATCH "\n([^ ]| [^*]| \\*[^ \n])[^\n]*" stray "${block}")
if(NOT stray STREQUAL "")
  message(FATAL_ERROR "${HEADER}: a quick start line outside the comment's margin:${stray}")
endif()
string(REPLACE "\n *" "\n" code "${block}")
string(REPLACE "\n " "\n" code "${code}")
string(SUBSTRING "${code}" 1 -1 code)  # the begin marker's newline
file(WRITE "${OUT}" "${code}\n")
