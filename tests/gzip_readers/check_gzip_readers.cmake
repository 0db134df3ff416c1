# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# cmake -DWRITER=<gzip_readers_write_outputs> -DGZREAD=<gzip_readers_gzread>
#       -DGO_CHECK=<gunzip_check.go> -DDIR=<scratch dir> -P check_gzip_readers.cmake
#
# Every gzip output must decode, to exactly the bytes zlib's inflate gives,
# with the readers profiles meet: Python's gzip module, gunzip, zlib's
# gzread, Go's compress/gzip, and go tool pprof for the pprof ones. A missing reader is
# a failure that names it (cmake/install-deps.sh installs them all), never
# a skip. Go runs offline: its caches live in DIR, the toolchain is the
# local one, and the module proxy is off.
foreach(var WRITER GZREAD GO_CHECK DIR)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_gzip_readers.cmake: -D${var}=... is required")
  endif()
endforeach()

foreach(tool python3 gunzip go)
  find_program(_tool_${tool} ${tool})
  if(NOT _tool_${tool})
    message(FATAL_ERROR "${tool} is not installed; cmake/install-deps.sh installs it")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${err}${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
run("writing the outputs" "${WRITER}" "${DIR}")
file(GLOB outputs "${DIR}/*.gz")
list(LENGTH outputs count)
if(NOT count EQUAL 8)
  message(FATAL_ERROR "expected 8 gzip outputs in ${DIR}, found ${count}")
endif()

set(go_pairs "")
foreach(gz IN LISTS outputs)
  string(REGEX REPLACE "\\.gz$" ".raw" raw "${gz}")
  run("Python's gzip on ${gz}" "${_tool_python3}" -c
      "import gzip, sys\nif gzip.open(sys.argv[1]).read() != open(sys.argv[2], 'rb').read():\n  sys.exit('not the raw bytes')"
      "${gz}" "${raw}")
  run("gunzip -t on ${gz}" "${_tool_gunzip}" -t "${gz}")
  run("zlib's gzread on ${gz}" "${GZREAD}" "${gz}" "${raw}")
  list(APPEND go_pairs "${gz}" "${raw}")
endforeach()

set(go_env
  "GOPATH=${DIR}/gopath" "GOCACHE=${DIR}/gocache" "GOTOOLCHAIN=local" "GOPROXY=off"
  "GOFLAGS=" "GO111MODULE=off" "HOME=${DIR}" "PPROF_TMPDIR=${DIR}/pprof")
run("Go's compress/gzip" "${CMAKE_COMMAND}" -E env ${go_env}
    "${_tool_go}" run "${GO_CHECK}" ${go_pairs})

foreach(gz IN LISTS outputs)
  get_filename_component(name "${gz}" NAME)
  if(NOT name MATCHES "^pprof_")
    continue()
  endif()
  run("go tool pprof -raw on ${gz}" "${CMAKE_COMMAND}" -E env ${go_env}
      "${_tool_go}" tool pprof -raw -symbolize=none "${gz}")
  if(NOT run_output MATCHES "Samples:")
    message(FATAL_ERROR "go tool pprof -raw on ${gz} printed no samples:\n${run_output}")
  endif()
endforeach()
message(STATUS "${count} gzip outputs decode with Python, gunzip, gzread, Go and go tool pprof")
