# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DSTEP=install|missing [...] -P gem_steps.cmake
# (bindings/ruby/CMakeLists.txt passes the rest.)
#
#   install  `gem build` the gemspec into WORK_DIR, then `gem install
#            --local` it into a fresh GEM_HOME, which compiles the extension
#            against the stackrec installed in PREFIX, found by pkg-config
#            alone (never a build tree's -uninstalled files). Fails unless
#            the gem is stackrec-VERSION, the project's version.
#   missing  the same install with no stackrec for pkg-config to find must
#            fail and say what to do.
#
# Both run offline: --local never asks a gem server.

foreach(var STEP GEM SOURCE_DIR WORK_DIR GEM_HOME PREFIX VERSION)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "gem_steps.cmake: -D${var}=... is required")
  endif()
endforeach()

set(gem_file "${WORK_DIR}/stackrec-${VERSION}.gem")
set(ENV{PKG_CONFIG_DISABLE_UNINSTALLED} 1)
if(CC)
  set(ENV{CC} "${CC}")
endif()
set(ENV{CFLAGS} "${CFLAGS}")
set(ENV{LDFLAGS} "${LDFLAGS}")
set(ENV{STACKREC_WERROR} "${WERROR}")

# Runs `gem` with `args`; the output and exit code in out and rc.
function(run_gem out rc)
  list(JOIN ARGN " " shown)
  message(STATUS "$ gem ${shown}")
  execute_process(COMMAND "${GEM}" ${ARGN}
    WORKING_DIRECTORY "${SOURCE_DIR}"
    OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)
  set(${out} "${output}" PARENT_SCOPE)
  set(${rc} "${result}" PARENT_SCOPE)
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
  run_gem(out rc build stackrec.gemspec --output "${gem_file}")
  if(NOT rc EQUAL 0 OR NOT EXISTS "${gem_file}")
    message(FATAL_ERROR "gem build failed (${rc}):\n${out}")
  endif()
  message("${out}")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/lib/pkgconfig")
  run_gem(out rc install --local --no-document --install-dir "${GEM_HOME}" "${gem_file}")
  if(NOT rc EQUAL 0)
    file(GLOB logs "${GEM_HOME}/extensions/*/*/stackrec-*/gem_make.out"
                   "${GEM_HOME}/gems/stackrec-*/ext/stackrec_ruby/mkmf.log")
    set(details "")
    foreach(log IN LISTS logs)
      file(READ "${log}" text)
      string(APPEND details "\n---- ${log}\n${text}")
    endforeach()
    message(FATAL_ERROR "gem install failed (${rc}):\n${out}${details}")
  endif()
  message("${out}")
  foreach(file lib/stackrec.rb test/stack_recorder_test.rb test/recorder_test.rb
               test/exporter_test.rb test/heap_profiler_test.rb)
    if(NOT EXISTS "${GEM_HOME}/gems/stackrec-${VERSION}/${file}")
      message(FATAL_ERROR "the installed gem has no ${file}")
    endif()
  endforeach()
  file(GLOB_RECURSE extension "${GEM_HOME}/extensions/*/stackrec_ruby.so")
  if(NOT extension)
    message(FATAL_ERROR "gem install built no stackrec_ruby.so under ${GEM_HOME}/extensions")
  endif()
  return()
endif()

if(STEP STREQUAL "missing")
  if(NOT EXISTS "${gem_file}")
    message(FATAL_ERROR "${gem_file} is missing; ruby_gem_builds_and_installs_offline builds it")
  endif()
  set(empty "${WORK_DIR}/no-stackrec")
  file(REMOVE_RECURSE "${empty}" "${WORK_DIR}/missing-home")
  file(MAKE_DIRECTORY "${empty}")
  # Neither the path nor pkg-config's own directories hold a stackrec.pc.
  set(ENV{PKG_CONFIG_PATH} "${empty}")
  set(ENV{PKG_CONFIG_LIBDIR} "${empty}")
  run_gem(out rc install --local --no-document --install-dir "${WORK_DIR}/missing-home"
          "${gem_file}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "gem install succeeded with no stackrec to find:\n${out}")
  endif()
  set(expected "pkg-config finds no stackrec")
  string(FIND "${out}" "${expected}" at)
  string(FIND "${out}" "PKG_CONFIG_PATH=<prefix>/lib/pkgconfig" hint_at)
  if(at EQUAL -1 OR hint_at EQUAL -1)
    message(FATAL_ERROR "gem install failed without saying \"${expected}\" and what to set:\n${out}")
  endif()
  message("${out}")
  return()
endif()

message(FATAL_ERROR "unknown STEP=${STEP}")
