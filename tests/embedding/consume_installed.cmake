# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DSTEP=cmake|pkg-config|export [...] -P consume_installed.cmake
# (tests/embedding/CMakeLists.txt passes the rest: the build tree, the
# scratch prefix, this build's compilers, generator and flags.) PREFIX is
# the scratch install of testkit/install/ (the fixture stackrec_installed).
#
#   cmake       configure, build and run consumer/ (C++) with
#               find_package(stackrec CONFIG) against PREFIX only, once
#               through stackrec::stackrec and once through
#               stackrec::stackrec_static.
#   pkg-config  compile, link and run consumer.c (C99) with the flags
#               `pkg-config stackrec` gives for PREFIX, then with
#               `pkg-config --static stackrec_static`.
#   export      the same for libstackrec_export: export_consumer.c built
#               with `pkg-config stackrec_export` and `--static
#               stackrec_export_static`, and export_consumer/ with
#               find_package(stackrec CONFIG COMPONENTS export).
#
# Each consumer checks that the version its package reported, the header's
# and the library's agree, then records, serializes and checks the output.

foreach(var STEP PROJECT_BINARY_DIR PREFIX WORK_DIR SOURCE_DIR EXPECTED_VERSION)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "consume_installed.cmake: -D${var}=... is required")
  endif()
endforeach()

# Runs a command, echoing it; fails the test with its output if it fails.
function(run)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "WORKING_DIRECTORY;OUTPUT_VARIABLE" "")
  list(JOIN arg_UNPARSED_ARGUMENTS " " shown)
  message(STATUS "$ ${shown}")
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${WORK_DIR}")
  endif()
  execute_process(COMMAND ${arg_UNPARSED_ARGUMENTS}
    WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}):\n${out}")
  endif()
  if(arg_OUTPUT_VARIABLE)
    string(STRIP "${out}" out)
    set(${arg_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
  else()
    message("${out}")
  endif()
endfunction()

if(NOT EXISTS "${PREFIX}/lib/cmake/stackrec/stackrecConfig.cmake")
  message(FATAL_ERROR "${PREFIX} holds no installed stackrec; the install_into_a_scratch_prefix test sets it up")
endif()

if(STEP STREQUAL "cmake")
  set(build "${WORK_DIR}/cmake")
  file(REMOVE_RECURSE "${build}")
  file(MAKE_DIRECTORY "${build}")
  # CMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY and the explicit prefix keep any
  # other stackrec on this machine out of the way; consumer/CMakeLists.txt
  # also checks where the package came from.
  run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/consumer" -B "${build}"
      -G "${GENERATOR}" "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}"
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
      "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
      "-DCMAKE_BUILD_TYPE=${CONFIG}"
      "-DCMAKE_PREFIX_PATH=${PREFIX}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      "-DSTACKREC_EXPECTED_PREFIX=${PREFIX}"
      "-DSTACKREC_EXPECTED_VERSION=${EXPECTED_VERSION}")
  run("${CMAKE_COMMAND}" --build "${build}")
  run("${build}/consumer_shared")
  run("${build}/consumer_static")
  return()
endif()

if(STEP STREQUAL "pkg-config")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "no pkg-config program was found when configuring")
  endif()
  set(build "${WORK_DIR}/pkg-config")
  file(REMOVE_RECURSE "${build}")
  file(MAKE_DIRECTORY "${build}")
  # Only the scratch prefix's .pc files, plus the system's for the static
  # library's dependencies; never a build tree's -uninstalled ones.
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/lib/pkgconfig")
  set(ENV{PKG_CONFIG_DISABLE_UNINSTALLED} 1)

  run("${PKG_CONFIG}" --modversion stackrec OUTPUT_VARIABLE pc_version)
  if(NOT pc_version STREQUAL EXPECTED_VERSION)
    message(FATAL_ERROR "pkg-config says stackrec ${pc_version}, the build is ${EXPECTED_VERSION}")
  endif()
  run("${PKG_CONFIG}" --variable=libdir stackrec OUTPUT_VARIABLE libdir)
  file(REAL_PATH "${libdir}" libdir)
  file(REAL_PATH "${PREFIX}/lib" expected_libdir)
  if(NOT libdir STREQUAL expected_libdir)
    message(FATAL_ERROR "stackrec.pc points at ${libdir}, not at the scratch prefix")
  endif()

  separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")
  separate_arguments(link_flags UNIX_COMMAND "${EXE_LINKER_FLAGS}")
  set(warnings -std=c99 -Wall -Wextra -pedantic -Werror)
  set(define "-DSTACKREC_EXPECTED_VERSION=\"${pc_version}\"")

  # Shared: the rpath lets the program find libstackrec.so.1 in the prefix.
  run("${PKG_CONFIG}" --cflags --libs stackrec OUTPUT_VARIABLE shared_flags)
  separate_arguments(shared_flags UNIX_COMMAND "${shared_flags}")
  run("${C_COMPILER}" ${c_flags} ${warnings} "${define}"
      "${SOURCE_DIR}/consumer.c" -o "${build}/consumer_shared"
      ${shared_flags} "-Wl,-rpath,${libdir}" ${link_flags})
  run("${build}/consumer_shared")

  # Static: --static adds Requires.private (abseil, protobuf-lite, zlib,
  # zstd) and Libs.private (the C++ runtime a C program does not link).
  run("${PKG_CONFIG}" --static --cflags --libs stackrec_static OUTPUT_VARIABLE static_flags)
  separate_arguments(static_flags UNIX_COMMAND "${static_flags}")
  run("${C_COMPILER}" ${c_flags} ${warnings} "${define}"
      "${SOURCE_DIR}/consumer.c" -o "${build}/consumer_static"
      ${static_flags} ${link_flags})
  run("${build}/consumer_static")
  return()
endif()

if(STEP STREQUAL "export")
  set(build "${WORK_DIR}/export")
  file(REMOVE_RECURSE "${build}")
  file(MAKE_DIRECTORY "${build}/cmake")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/lib/pkgconfig")
  set(ENV{PKG_CONFIG_DISABLE_UNINSTALLED} 1)
  separate_arguments(c_flags UNIX_COMMAND "${C_FLAGS}")
  separate_arguments(link_flags UNIX_COMMAND "${EXE_LINKER_FLAGS}")
  set(warnings -std=c99 -Wall -Wextra -pedantic -Werror)
  run("${PKG_CONFIG}" --variable=libdir stackrec_export OUTPUT_VARIABLE libdir)
  run("${PKG_CONFIG}" --cflags --libs stackrec_export OUTPUT_VARIABLE shared_flags)
  separate_arguments(shared_flags UNIX_COMMAND "${shared_flags}")
  run("${C_COMPILER}" ${c_flags} ${warnings} "${SOURCE_DIR}/export_consumer.c"
      -o "${build}/export_consumer_shared" ${shared_flags} "-Wl,-rpath,${libdir}" ${link_flags})
  run("${build}/export_consumer_shared")
  run("${PKG_CONFIG}" --static --cflags --libs stackrec_export_static OUTPUT_VARIABLE static_flags)
  separate_arguments(static_flags UNIX_COMMAND "${static_flags}")
  run("${C_COMPILER}" ${c_flags} ${warnings} "${SOURCE_DIR}/export_consumer.c"
      -o "${build}/export_consumer_static" ${static_flags} ${link_flags})
  run("${build}/export_consumer_static")

  run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/export_consumer" -B "${build}/cmake"
      -G "${GENERATOR}" "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}"
      "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_C_FLAGS=${C_FLAGS}"
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
      "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
      "-DCMAKE_BUILD_TYPE=${CONFIG}"
      "-DCMAKE_PREFIX_PATH=${PREFIX}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      "-DSTACKREC_EXPECTED_PREFIX=${PREFIX}")
  run("${CMAKE_COMMAND}" --build "${build}/cmake")
  run("${build}/cmake/export_consumer_shared")
  run("${build}/cmake/export_consumer_static")
  return()
endif()

message(FATAL_ERROR "unknown STEP=${STEP}")
