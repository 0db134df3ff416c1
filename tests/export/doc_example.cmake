# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DDOC=<embedding.md> -DNAME=<name> -DOUT=<file.c> -P doc_example.cmake
#
# Writes the C program that follows the line "<!-- example: NAME -->" in
# DOC, the body of the ```c fence right after it, to OUT. The build
# compiles and runs exactly that, so an example a reader copies cannot rot;
# a marker missing or repeated, or a fence that is not there, fails.

foreach(var DOC NAME OUT)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "doc_example.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${DOC}" doc)
set(marker "<!-- example: ${NAME} -->\n```c\n")
string(FIND "${doc}" "${marker}" first)
string(FIND "${doc}" "${marker}" last REVERSE)
if(first EQUAL -1 OR NOT first EQUAL last)
  message(FATAL_ERROR "${DOC} must hold \"<!-- example: ${NAME} -->\" and a ```c fence exactly once")
endif()
string(LENGTH "${marker}" marker_length)
math(EXPR from "${first} + ${marker_length}")
string(SUBSTRING "${doc}" ${from} -1 rest)
string(FIND "${rest}" "\n```\n" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${DOC}: the example ${NAME} has no closing fence")
endif()
string(SUBSTRING "${rest}" 0 ${end} code)
file(WRITE "${OUT}" "${code}\n")
