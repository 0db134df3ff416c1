# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# Builds stackrec_ruby.so, the native half of the stackrec gem, against
# the stackrec that pkg-config finds: an installed one
# (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig) or a build tree
# (PKG_CONFIG_PATH=<build>/pkgconfig, which holds stackrec-uninstalled.pc).
# `gem install` runs it; by hand, run it from the directory the extension
# should be built in:
#
#   PKG_CONFIG_PATH=... ruby path/to/extconf.rb && make
#
# CC, if set, replaces the compiler Ruby was built with, and CFLAGS and
# LDFLAGS from the environment are added to Ruby's own: the CMake build
# passes its compiler and sanitizer flags this way. STACKREC_WERROR=1 makes
# warnings errors.
require "mkmf"

RbConfig::MAKEFILE_CONFIG["CC"] = ENV["CC"] if ENV["CC"]
# Before the checks below: with an instrumented libstackrec.so, even mkmf's
# test programs only link with the same -fsanitize flags.
$CFLAGS << " " << ENV["CFLAGS"] if ENV["CFLAGS"]
$LDFLAGS << " " << ENV["LDFLAGS"] if ENV["LDFLAGS"]

unless find_executable("pkg-config")
  abort "stackrec: pkg-config is not installed, and the gem finds libstackrec " \
        "through it (Debian: apt-get install pkg-config)"
end
unless pkg_config("stackrec")
  abort "stackrec: pkg-config finds no stackrec (libstackrec and its stackrec.pc). " \
        "Install stackrec first (`cmake --install <build> --prefix <prefix>`), then set " \
        "PKG_CONFIG_PATH=<prefix>/lib/pkgconfig, e.g. " \
        "PKG_CONFIG_PATH=<prefix>/lib/pkgconfig gem install --local stackrec-*.gem"
end
unless have_header("stackrec/stackrec.h") &&
       have_func("stackrec_recorder_new", "stackrec/stackrec.h")
  abort "stackrec: pkg-config's stackrec flags do not compile and link; see mkmf.log"
end
# The gem covers the 1.2 API (budgets, compress_threads, trace links); a
# 1.x library from 1.2 on runs it.
unless try_compile("#include <stackrec/stackrec.h>\n" \
                   "#if STACKREC_VERSION_NUMBER < 10200\n#error too old\n#endif\n")
  abort "stackrec: the gem needs stackrec 1.2 or later; pkg-config found " \
        "#{pkg_config('stackrec', 'modversion')}"
end
# The heap profiler measures objects as ObjectSpace.memsize_of does.
unless have_func("rb_obj_memsize_of")
  abort "stackrec: this Ruby's libruby does not export rb_obj_memsize_of"
end

# Ruby loads the extension with dlopen(), which must then find
# libstackrec.so.1 without LD_LIBRARY_PATH: record where pkg-config found it.
# (A gem that vendors the library next to the extension would use $ORIGIN.)
libdirs = [pkg_config("stackrec", "variable=libdir")]

# Stackrec::Exporter wraps libstackrec_export, an optional part of stackrec
# (it needs libcurl): without it, the gem records and serializes, and the
# host sends the bytes its own way.
sources = Dir.glob("*.c", base: $srcdir).sort
if pkg_config("stackrec_export") && have_header("stackrec/export.h") &&
   have_func("stackrec_exporter_new_sized", "stackrec/export.h")
  $defs << "-DHAVE_STACKREC_EXPORT"
  libdirs << pkg_config("stackrec_export", "variable=libdir")
else
  message "stackrec: pkg-config finds no stackrec_export (libstackrec_export and its " \
          "stackrec_export.pc); building the gem without Stackrec::Exporter\n"
  sources.delete("exporter.c")
end
$objs = sources.map { |source| source.sub(/\.c\z/, ".o") }
libdirs.uniq.each { |libdir| $LDFLAGS << " -Wl,-rpath,#{libdir}" }

# Only Init_stackrec_ruby is exported; nothing of ours reaches the global
# symbol namespace Ruby loads extensions into. (Ruby's warnflags already hold
# -Wall -Wextra, minus the warnings its own headers would raise.)
$CFLAGS << " -fvisibility=hidden"
$CFLAGS << " -Werror" if ENV["STACKREC_WERROR"] == "1"

create_makefile("stackrec_ruby")
