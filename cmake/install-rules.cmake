# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# What `cmake --install` puts under the prefix, and the package files that
# let another build find it there:
#
#   include/stackrec/stackrec.h
#   lib/libstackrec.so.1.4.0 (SONAME libstackrec.so.1), lib/libstackrec.so
#   lib/libstackrec_static.a
#   lib/cmake/stackrec/           stackrecConfig.cmake, its version file and
#                                 the exported targets stackrec::stackrec and
#                                 stackrec::stackrec_static
#   lib/pkgconfig/stackrec.pc     the shared library
#   lib/pkgconfig/stackrec_static.pc
#                                 the static one; its dependencies are in
#                                 Requires.private, so link it with
#                                 `pkg-config --static`
#
# and, when built (STACKREC_BUILD_EXPORT), the exporter beside them:
# include/stackrec/export.h, lib/libstackrec_export.so.1 and
# lib/libstackrec_export_static.a, the targets stackrec::stackrec_export and
# stackrec::stackrec_export_static (the package's `export` component), and
# stackrec_export.pc / stackrec_export_static.pc.
#
# The build tree also gets pkgconfig/stackrec-uninstalled.pc (and the static
# one): pkg-config prefers a package's -uninstalled file when it is on
# PKG_CONFIG_PATH, so a Ruby or Python extension can be built against a tree
# that was never installed.
#
# Both package formats are relocatable (the CMake targets compute their
# prefix from where the config file is, the .pc files use ${pcfiledir}), so
# `cmake --install <build> --prefix <anywhere>` gives a usable tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STACKREC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/stackrec"
    CACHE STRING "Where stackrecConfig.cmake is installed, relative to the prefix")
set(STACKREC_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
    CACHE STRING "Where stackrec.pc is installed, relative to the prefix")
mark_as_advanced(STACKREC_INSTALL_CMAKEDIR STACKREC_INSTALL_PKGCONFIGDIR)

# ---- Files ------------------------------------------------------------------

# A runtime component (what a host needs at run time: the versioned .so) and
# a development one (everything needed to build against it), as a
# distribution would split them into libstackrec0 and libstackrec-dev.
install(TARGETS stackrec
  EXPORT stackrecTargets
  LIBRARY
    DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT stackrec_Runtime
    NAMELINK_COMPONENT stackrec_Development
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
# The static library is exported on its own, so that a consumer of the
# shared library never has to find abseil, protobuf, ISA-L or zstd.
install(TARGETS stackrec_static
  EXPORT stackrecStaticTargets
  ARCHIVE
    DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    COMPONENT stackrec_Development
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/include/stackrec/stackrec.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/stackrec"
  COMPONENT stackrec_Development)
# The exporter in export sets of its own, so that the package can load it
# only where it was built, and its static half only where libcurl is found.
if(STACKREC_BUILD_EXPORT)
  install(TARGETS stackrec_export
    EXPORT stackrecExportTargets
    LIBRARY
      DESTINATION "${CMAKE_INSTALL_LIBDIR}"
      COMPONENT stackrec_Runtime
      NAMELINK_COMPONENT stackrec_Development
    INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  install(TARGETS stackrec_export_static
    EXPORT stackrecExportStaticTargets
    ARCHIVE
      DESTINATION "${CMAKE_INSTALL_LIBDIR}"
      COMPONENT stackrec_Development
    INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
  install(FILES "${PROJECT_SOURCE_DIR}/include/stackrec/export.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/stackrec"
    COMPONENT stackrec_Development)
  install(EXPORT stackrecExportTargets
    NAMESPACE stackrec::
    DESTINATION "${STACKREC_INSTALL_CMAKEDIR}"
    COMPONENT stackrec_Development)
  install(EXPORT stackrecExportStaticTargets
    NAMESPACE stackrec::
    DESTINATION "${STACKREC_INSTALL_CMAKEDIR}"
    COMPONENT stackrec_Development)
endif()

# ---- CMake package ----------------------------------------------------------

install(EXPORT stackrecTargets
  NAMESPACE stackrec::
  DESTINATION "${STACKREC_INSTALL_CMAKEDIR}"
  COMPONENT stackrec_Development)
install(EXPORT stackrecStaticTargets
  NAMESPACE stackrec::
  DESTINATION "${STACKREC_INSTALL_CMAKEDIR}"
  COMPONENT stackrec_Development)

# The ABI promise is the SONAME's: every 0.x release is link-compatible with
# every other 0.x, so the package accepts any request with the same major.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/package/stackrecConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)

# The dependencies are looked up the way cmake/dependencies.cmake looks them
# up, so the static target's link interface names the same imported targets
# (absl::*, protobuf::libprotobuf-lite, PkgConfig::ISAL, PkgConfig::ZSTD).
file(WRITE "${PROJECT_BINARY_DIR}/package/stackrecConfig.cmake" [=[
# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# find_package(stackrec CONFIG) defines
#   stackrec::stackrec         libstackrec.so; needs nothing else to be found
#   stackrec::stackrec_static  libstackrec_static.a, defined only when its
#                              dependencies (abseil, protobuf-lite, ISA-L,
#                              zstd) are found as well
#   stackrec::stackrec_export  libstackrec_export.so, when the package was
#                              built with the exporter (component `export`)
#   stackrec::stackrec_export_static
#                              its static library, when the static core is
#                              defined and libcurl is found as well
# Components: `shared`, `static` and `export`; naming one makes it
# required.
include("${CMAKE_CURRENT_LIST_DIR}/stackrecTargets.cmake")
set(stackrec_shared_FOUND TRUE)

set(stackrec_static_FOUND FALSE)
set(_stackrec_quiet QUIET)
if("static" IN_LIST stackrec_FIND_COMPONENTS AND NOT stackrec_FIND_QUIETLY)
  set(_stackrec_quiet "")  # say which dependency is missing
endif()
find_package(absl ${_stackrec_quiet} CONFIG)
find_package(Protobuf ${_stackrec_quiet})
if(NOT TARGET PkgConfig::ZSTD OR NOT TARGET PkgConfig::ISAL)
  find_package(PkgConfig ${_stackrec_quiet})
  if(PKG_CONFIG_FOUND)
    if(NOT TARGET PkgConfig::ZSTD)
      pkg_check_modules(ZSTD ${_stackrec_quiet} IMPORTED_TARGET libzstd)
    endif()
    if(NOT TARGET PkgConfig::ISAL)
      pkg_check_modules(ISAL ${_stackrec_quiet} IMPORTED_TARGET libisal)
    endif()
  endif()
endif()
if(absl_FOUND AND TARGET protobuf::libprotobuf-lite AND TARGET PkgConfig::ISAL
   AND TARGET PkgConfig::ZSTD)
  include("${CMAKE_CURRENT_LIST_DIR}/stackrecStaticTargets.cmake")
  set(stackrec_static_FOUND TRUE)
endif()

set(stackrec_export_FOUND FALSE)
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/stackrecExportTargets.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/stackrecExportTargets.cmake")
  set(stackrec_export_FOUND TRUE)
  if(stackrec_static_FOUND)
    find_package(CURL ${_stackrec_quiet})
    find_package(Threads ${_stackrec_quiet})
    if(TARGET CURL::libcurl AND TARGET Threads::Threads)
      include("${CMAKE_CURRENT_LIST_DIR}/stackrecExportStaticTargets.cmake")
    endif()
  endif()
endif()
unset(_stackrec_quiet)

foreach(_stackrec_component IN LISTS stackrec_FIND_COMPONENTS)
  if(NOT stackrec_${_stackrec_component}_FOUND
     AND stackrec_FIND_REQUIRED_${_stackrec_component})
    set(stackrec_FOUND FALSE)
    if(_stackrec_component STREQUAL "static")
      set(stackrec_NOT_FOUND_MESSAGE
          "stackrec::stackrec_static needs abseil, protobuf-lite, ISA-L and zstd, and not all of them were found")
    elseif(_stackrec_component STREQUAL "export")
      set(stackrec_NOT_FOUND_MESSAGE
          "this stackrec was built without libstackrec_export (STACKREC_BUILD_EXPORT)")
    else()
      set(stackrec_NOT_FOUND_MESSAGE
          "stackrec has no component `${_stackrec_component}` (there are `shared`, `static` and `export`)")
    endif()
  endif()
endforeach()
unset(_stackrec_component)
]=])

install(FILES
    "${PROJECT_BINARY_DIR}/package/stackrecConfig.cmake"
    "${PROJECT_BINARY_DIR}/package/stackrecConfigVersion.cmake"
  DESTINATION "${STACKREC_INSTALL_CMAKEDIR}"
  COMPONENT stackrec_Development)

# ---- pkg-config -------------------------------------------------------------

# stackrec_write_pc(<output> <name> <description> <library> <prefix> <libdir>
#                   <includedir> [<requires.private> <libs.private> [<requires>]])
# Writes one .pc file. Values may hold generator expressions (the build
# tree's libdir does) and ${...} references resolved by pkg-config.
function(stackrec_write_pc output name description library prefix libdir includedir)
  set(requires_private "${ARGV7}")
  set(libs_private "${ARGV8}")
  set(requires "${ARGV9}")
  set(content "prefix=${prefix}\nlibdir=${libdir}\nincludedir=${includedir}\n\n")
  string(APPEND content
    "Name: ${name}\n"
    "Description: ${description}\n"
    "Version: ${PROJECT_VERSION}\n")
  if(requires)
    string(APPEND content "Requires: ${requires}\n")
  endif()
  if(requires_private)
    string(APPEND content "Requires.private: ${requires_private}\n")
  endif()
  string(APPEND content "Libs: -L\${libdir} -l${library}\n")
  if(libs_private)
    string(APPEND content "Libs.private: ${libs_private}\n")
  endif()
  string(APPEND content "Cflags: -I\${includedir}\n")
  file(GENERATE OUTPUT "${output}" CONTENT "${content}")
endfunction()

# The pkg-config names of STACKREC_DEPENDENCIES (src/CMakeLists.txt), and
# what a C program linking C++ objects statically needs besides them.
set(_stackrec_pc_requires_private
    "absl_flat_hash_map absl_flat_hash_set absl_hash absl_span absl_strings protobuf-lite libisal libzstd")
set(_stackrec_pc_libs_private "-lstdc++ -lm -pthread")
set(_stackrec_pc_description "Aggregates stack samples and encodes them as pprof")

# Installed: prefix is found from the .pc file's own directory.
if(IS_ABSOLUTE "${STACKREC_INSTALL_PKGCONFIGDIR}")
  set(_stackrec_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _stackrec_pc_up "/prefix/${STACKREC_INSTALL_PKGCONFIGDIR}" "/prefix")
  string(REGEX REPLACE "/$" "" _stackrec_pc_up "${_stackrec_pc_up}")  # "../.."
  set(_stackrec_pc_prefix "\${pcfiledir}/${_stackrec_pc_up}")
endif()
foreach(_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(_stackrec_pc_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(_stackrec_pc_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
stackrec_write_pc("${PROJECT_BINARY_DIR}/package/stackrec.pc"
  stackrec "${_stackrec_pc_description}" stackrec
  "${_stackrec_pc_prefix}" "${_stackrec_pc_LIBDIR}" "${_stackrec_pc_INCLUDEDIR}")
stackrec_write_pc("${PROJECT_BINARY_DIR}/package/stackrec_static.pc"
  stackrec_static "${_stackrec_pc_description} (static library)" stackrec_static
  "${_stackrec_pc_prefix}" "${_stackrec_pc_LIBDIR}" "${_stackrec_pc_INCLUDEDIR}"
  "${_stackrec_pc_requires_private}" "${_stackrec_pc_libs_private}")
install(FILES
    "${PROJECT_BINARY_DIR}/package/stackrec.pc"
    "${PROJECT_BINARY_DIR}/package/stackrec_static.pc"
  DESTINATION "${STACKREC_INSTALL_PKGCONFIGDIR}"
  COMPONENT stackrec_Development)
# The exporter: its users call the core's functions too, so the core is a
# public requirement. libcurl is the static library's private one, named in
# Libs.private rather than Requires.private: `pkg-config --static libcurl`
# would ask for static archives of all of curl's own dependencies, which
# distributions do not ship, while -lcurl links the shared libcurl.
if(STACKREC_BUILD_EXPORT)
  stackrec_write_pc("${PROJECT_BINARY_DIR}/package/stackrec_export.pc"
    stackrec_export "Ships stackrec's profiles to profiling backends over HTTP" stackrec_export
    "${_stackrec_pc_prefix}" "${_stackrec_pc_LIBDIR}" "${_stackrec_pc_INCLUDEDIR}"
    "" "" "stackrec")
  stackrec_write_pc("${PROJECT_BINARY_DIR}/package/stackrec_export_static.pc"
    stackrec_export_static "Ships stackrec's profiles over HTTP (static library)"
    stackrec_export_static
    "${_stackrec_pc_prefix}" "${_stackrec_pc_LIBDIR}" "${_stackrec_pc_INCLUDEDIR}"
    "" "-lcurl -lstdc++ -pthread" "stackrec_static")
  install(FILES
      "${PROJECT_BINARY_DIR}/package/stackrec_export.pc"
      "${PROJECT_BINARY_DIR}/package/stackrec_export_static.pc"
    DESTINATION "${STACKREC_INSTALL_PKGCONFIGDIR}"
    COMPONENT stackrec_Development)
endif()

# The build tree: the libraries where the build put them, the header in the
# source tree.
set(STACKREC_UNINSTALLED_PKGCONFIG_DIR "${PROJECT_BINARY_DIR}/pkgconfig"
    CACHE INTERNAL "PKG_CONFIG_PATH that finds the build tree's stackrec")
stackrec_write_pc("${STACKREC_UNINSTALLED_PKGCONFIG_DIR}/stackrec-uninstalled.pc"
  stackrec "${_stackrec_pc_description} (build tree)" stackrec
  "${PROJECT_BINARY_DIR}" "$<TARGET_FILE_DIR:stackrec>" "${PROJECT_SOURCE_DIR}/include")
stackrec_write_pc("${STACKREC_UNINSTALLED_PKGCONFIG_DIR}/stackrec_static-uninstalled.pc"
  stackrec_static "${_stackrec_pc_description} (build tree, static library)" stackrec_static
  "${PROJECT_BINARY_DIR}" "$<TARGET_FILE_DIR:stackrec_static>" "${PROJECT_SOURCE_DIR}/include"
  "${_stackrec_pc_requires_private}" "${_stackrec_pc_libs_private}")

unset(_stackrec_pc_requires_private)
unset(_stackrec_pc_libs_private)
unset(_stackrec_pc_description)
unset(_stackrec_pc_prefix)
unset(_stackrec_pc_up)
unset(_stackrec_pc_LIBDIR)
unset(_stackrec_pc_INCLUDEDIR)
