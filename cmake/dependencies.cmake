# Every dependency comes from a Debian 12 package (cmake/install-deps.sh
# installs the missing ones); nothing is downloaded at build time.
find_package(absl REQUIRED CONFIG)
find_package(Protobuf REQUIRED)   # CMake's FindProtobuf: libprotobuf + protoc
find_package(ZLIB REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(ISAL REQUIRED IMPORTED_TARGET libisal)
if(STACKREC_BUILD_EXPORT)
  find_package(CURL REQUIRED)  # CMake's FindCURL: CURL::libcurl
  find_package(Threads REQUIRED)
endif()

if(STACKREC_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED CONFIG)
  list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")  # for include(Catch)
endif()
if(STACKREC_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED CONFIG)
endif()
