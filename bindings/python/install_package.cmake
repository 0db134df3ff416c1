# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DPYTHON=... -DSOURCE_DIR=bindings/python -DWORK_DIR=... -DPREFIX=...
#       -P install_package.cmake
#
# Installs the stackrec Python package as its guide (README.md) tells a
# user to: into a fresh virtual environment that sees Debian's pip,
# setuptools and protobuf (--system-site-packages), with
# `pip install --no-build-isolation --no-index`, so nothing is downloaded.
# setuptools builds in the folder it is given, so it gets a copy of the
# package: the source tree stays clean. The package is not imported here,
# since it loads the library: the tests that need the fixture do that.

foreach(var PYTHON SOURCE_DIR WORK_DIR PREFIX)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_package.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  list(JOIN ARGN " " shown)
  message(STATUS "$ ${shown}")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${WORK_DIR}"
    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc})")
  endif()
endfunction()

if(NOT EXISTS "${PREFIX}/lib/pkgconfig/stackrec.pc")
  message(FATAL_ERROR "${PREFIX} holds no installed stackrec; the install_into_a_scratch_prefix test sets it up")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/package")
file(COPY "${SOURCE_DIR}/pyproject.toml" DESTINATION "${WORK_DIR}/package")
file(COPY "${SOURCE_DIR}/src" DESTINATION "${WORK_DIR}/package"
  PATTERN "__pycache__" EXCLUDE
  PATTERN "*.egg-info" EXCLUDE)

# --without-pip: the environment uses Debian's pip (seen through
# --system-site-packages), which saves copying a pip into it.
run("${PYTHON}" -m venv --without-pip --system-site-packages "${WORK_DIR}/venv")
run("${WORK_DIR}/venv/bin/python" -m pip install --no-build-isolation --no-index
    --no-cache-dir --disable-pip-version-check "${WORK_DIR}/package")

# The package came from the environment's site-packages, not from a copy
# elsewhere on the path.
run("${WORK_DIR}/venv/bin/python" -c
    "import importlib.util, sys; origin = importlib.util.find_spec('stackrec').origin; print(origin); sys.exit(not origin.startswith(sys.prefix))")
