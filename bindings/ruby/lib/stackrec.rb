# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
#
# The stackrec gem: stackrec's profile aggregation and pprof/OTLP encoding
# for Ruby. `require "stackrec"` loads all of it:
#
# - Stackrec::Recorder (recorder.rb): samples from any number of threads,
#   periodic serialization; the whole C API, with keyword arguments.
# - Stackrec::Profile: the single-threaded aggregate, with the same methods
#   under the C API's names (add, set_endpoint, add_ids, reset).
# - Stackrec::HeapProfiler (heap_profiler.rb): samples object allocations
#   and keeps the live ones in the recorder's heap profile.
# - Stackrec::StackRecorder (stack_recorder.rb): the surface of the
#   StackRecorder in Datadog's Ruby profiler, kept as it was.
# - Stackrec::Encoded (encoded.rb): what #serialize returns.
# - Stackrec::Exporter: ships Encodeds to an OTLP collector, Pyroscope or
#   Datadog from a thread of its own (libstackrec_export): new(protocol:,
#   endpoint:, ...) with stackrec_exporter_options' fields as keywords,
#   #send(encoded), #start_periodic(recorder, period_ms, **serialize
#   options), #flush(timeout_ms), #stats, #shutdown(timeout_ms),
#   #reset_after_fork, and Exporter.serialize_options(protocol), what
#   #serialize takes to make what that backend keeps (exporter.rb). Defined
#   only when the extension was built against a stackrec with
#   libstackrec_export (ext/stackrec_ruby/exporter.c).
#
# The native half (ext/stackrec_ruby) links the installed libstackrec.so.1;
# the gem's README.md (bindings/ruby in stackrec's repository) is the
# user's guide.
require "logger"
require "stackrec/version"
require "stackrec_ruby"
require "stackrec/errors"
require "stackrec/encoded"
require "stackrec/recorder"
require "stackrec/stack_recorder"
require "stackrec/heap_profiler"
require "stackrec/exporter"
