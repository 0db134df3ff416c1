# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DLIBRARY=<libstackrec.so> -DHEADER=<stackrec.h> -DNM=<nm>
#       -DOBJDUMP=<objdump> -DSOVERSION=<n> [-DSONAME_BASE=<libname.so>]
#       [-DMIN_DECLARED=<n>] [-DFORBID_NEEDED=<prefix>] -P check_exports.cmake
# (libstackrec_export is checked the same way against export.h.)
#
# A host loads libstackrec.so next to its own abseil, protobuf and C++
# standard library, often with RTLD_GLOBAL (Ruby does). Any symbol of those
# that we exported could interpose on the host's copy, or the host's on ours,
# and the two need not be the same version. So the dynamic symbol table must
# hold exactly the functions the header declares with STACKREC_API: fewer
# means the version script (src/stackrec.map) or an implementation is
# missing, more means something leaked.

foreach(var LIBRARY HEADER NM OBJDUMP SOVERSION)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_exports.cmake: -D${var}=... is required")
  endif()
endforeach()

# What the library defines.
execute_process(COMMAND "${NM}" -D --defined-only "${LIBRARY}"
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed: ${rc}")
endif()
string(REPLACE "\n" ";" nm_lines "${nm_out}")
set(exported "")
foreach(line IN LISTS nm_lines)
  # "<address> <type> <name>[@<version>]"
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] ([^ @]+)")
    list(APPEND exported "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(SORT exported)

# What the header declares: STACKREC_API <return type> <name>(.
file(READ "${HEADER}" header)
string(REGEX MATCHALL "STACKREC_API[^;(#]*\\(" declarations "${header}")
set(declared "")
foreach(decl IN LISTS declarations)
  if(decl MATCHES "[ *\n](stackrec_[a-z0-9_]+)[ \n]*\\($")
    list(APPEND declared "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(SORT declared)
list(LENGTH declared declared_count)
if(NOT MIN_DECLARED)
  set(MIN_DECLARED 10)
endif()
if(NOT SONAME_BASE)
  set(SONAME_BASE libstackrec.so)
endif()
if(declared_count LESS MIN_DECLARED)  # the parse broke, not the library
  message(FATAL_ERROR "found only ${declared_count} STACKREC_API declarations in ${HEADER}")
endif()

set(foreign "${exported}")
list(FILTER foreign EXCLUDE REGEX "^stackrec_")
set(undeclared "${exported}")
list(REMOVE_ITEM undeclared ${declared})
list(FILTER undeclared INCLUDE REGEX "^stackrec_")
set(missing "${declared}")
list(REMOVE_ITEM missing ${exported})

set(failures "")
if(foreign)
  list(JOIN foreign "\n  " lines)
  string(APPEND failures "exported symbols outside the C API:\n  ${lines}\n")
endif()
if(undeclared)
  list(JOIN undeclared "\n  " lines)
  string(APPEND failures "exported stackrec_ symbols the header does not declare:\n  ${lines}\n")
endif()
if(missing)
  list(JOIN missing "\n  " lines)
  string(APPEND failures "declared in the header but not exported:\n  ${lines}\n")
endif()

# Hosts load the library by its SONAME, which changes with the ABI.
execute_process(COMMAND "${OBJDUMP}" -p "${LIBRARY}" OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT dyn MATCHES "SONAME +([^\n]+)")
  string(APPEND failures "${OBJDUMP} -p found no SONAME\n")
elseif(NOT CMAKE_MATCH_1 STREQUAL "${SONAME_BASE}.${SOVERSION}")
  string(APPEND failures "SONAME is ${CMAKE_MATCH_1}, expected ${SONAME_BASE}.${SOVERSION}\n")
endif()

# A library the shared object must not depend on (the core never links
# libcurl: only libstackrec_export does).
if(FORBID_NEEDED AND dyn MATCHES "NEEDED +(${FORBID_NEEDED}[^\n]*)")
  string(APPEND failures "it links ${CMAKE_MATCH_1}, which it must not\n")
endif()

if(failures)
  message(FATAL_ERROR "${LIBRARY}:\n${failures}")
endif()
list(LENGTH exported exported_count)
message(STATUS "${LIBRARY} exports the ${exported_count} functions of the C API and nothing else")
