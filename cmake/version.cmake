# The version lives in one place, include/stackrec/stackrec.h; CMake reads it
# from there so the library, its package files and the header cannot disagree.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../include/stackrec/stackrec.h"
     _stackrec_version_lines REGEX "^#define STACKREC_VERSION_(MAJOR|MINOR|PATCH) ")
foreach(_part MAJOR MINOR PATCH)
  string(REGEX MATCH "STACKREC_VERSION_${_part} ([0-9]+)" _ "${_stackrec_version_lines}")
  set(STACKREC_VERSION_${_part} "${CMAKE_MATCH_1}")
endforeach()
set(STACKREC_VERSION
    "${STACKREC_VERSION_MAJOR}.${STACKREC_VERSION_MINOR}.${STACKREC_VERSION_PATCH}")
