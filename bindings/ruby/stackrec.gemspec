# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# The stackrec gem. It holds the Ruby glue and the C source of its native
# extension, not the library: `gem install` builds the extension against
# an installed stackrec that pkg-config finds (ext/stackrec_ruby/extconf.rb
# says what to set when it finds none), so the gem builds and installs
# offline:
#
#   cd bindings/ruby && gem build stackrec.gemspec
#   PKG_CONFIG_PATH=<prefix>/lib/pkgconfig gem install --local stackrec-1.4.0.gem
#
# The files are listed by glob rather than by `git ls-files`, so a source
# tarball builds the same gem. The tests are shipped: test/README says how
# to run them against the installed gem.
require_relative "lib/stackrec/version"

Gem::Specification.new do |spec|
  spec.name = "stackrec"
  spec.version = Stackrec::VERSION
  spec.summary = "stackrec for Ruby: pprof and OTLP profiles, and an allocation and heap profiler"
  spec.description = <<~TEXT
    Ruby bindings of stackrec, a library that aggregates stack samples and
    encodes them as pprof or OpenTelemetry profiles: concurrent recorders,
    endpoints, upscaling, recording by id, live-heap tracking, budgets and
    compression choices; and a heap profiler that samples Ruby's object
    allocations and keeps the live ones in the profile.
  TEXT
  spec.authors = ["The stackrec Authors"]
  spec.licenses = ["Apache-2.0", "BSD-3-Clause"]
  spec.required_ruby_version = ">= 3.0"
  spec.files = Dir.glob(%w[
    stackrec.gemspec
    lib/**/*.rb
    ext/stackrec_ruby/*.{c,h,rb}
    test/**/*.rb
    test/README
  ], base: __dir__)
  spec.require_paths = ["lib"]
  spec.extensions = ["ext/stackrec_ruby/extconf.rb"]
end
