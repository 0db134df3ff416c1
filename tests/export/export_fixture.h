// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the exporter's tests share: an owning exporter handle, options with
// the short timeouts and backoffs that keep the suite fast under the
// sanitizers, and small profiles whose frames say which one they are.
#ifndef STACKREC_TESTS_EXPORT_EXPORT_FIXTURE_H_
#define STACKREC_TESTS_EXPORT_EXPORT_FIXTURE_H_

#include <memory>
#include <string>

#include "catch2/catch.hpp"
#include "stackrec/export.h"
#include "support/test_support.h"

namespace stackrec_test {

struct ExporterDeleter {
  void operator()(stackrec_exporter* e) const { stackrec_exporter_free(e); }
};
using ExporterPtr = std::unique_ptr<stackrec_exporter, ExporterDeleter>;

// Options for `protocol` at `url` (kept alive by the caller), with timeouts
// of a few hundred ms and backoffs of a few ms.
inline stackrec_exporter_options FastOptions(stackrec_export_protocol protocol,
                                             const std::string& url) {
  stackrec_exporter_options o{};
  o.protocol = protocol;
  o.endpoint = S(url);
  o.app_name = S("checkout");
  o.connect_timeout_ms = 500;
  o.timeout_ms = 2000;
  o.initial_backoff_ms = 2;
  o.max_backoff_ms = 20;
  return o;
}

inline ExporterPtr NewExporter(const stackrec_exporter_options& o) {
  stackrec_exporter* e = nullptr;
  const stackrec_status st = stackrec_exporter_new(&o, &e);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  return ExporterPtr(e);
}

inline stackrec_export_stats StatsOf(const stackrec_exporter* e) {
  stackrec_export_stats s{};
  REQUIRE(stackrec_exporter_stats(e, &s) == STACKREC_OK);
  return s;
}

// A profile of cpu-time and cpu-samples with `samples` samples, each the
// stack {name, "main"} with its own line, serialized gzip'd as `format`
// with `opts`' budgets. pprof is serialized for Pyroscope unless `opts`
// names a target: every pprof protocol takes what Pyroscope takes, and
// both types are one Pyroscope profile type, so the output is one part.
inline EncodedPtr ProfileNamed(const std::string& name, stackrec_format format, int samples = 1,
                               stackrec_serialize_options opts = stackrec_serialize_options{}) {
  ProfilePtr p = NewProfile(Options(2).opts);
  for (int i = 0; i < samples; ++i) {
    SampleBuilder b;
    b.Frame(name, "app.cc", i + 1).Frame("main").Values({10, 1});
    Add(p.get(), b);
  }
  opts.format = format;
  if (format == STACKREC_FORMAT_PPROF && opts.target == STACKREC_TARGET_ANY) {
    opts.target = STACKREC_TARGET_PYROSCOPE;
  }
  stackrec_encoded* out = nullptr;
  const stackrec_status st = stackrec_profile_serialize(p.get(), &opts, &out);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  return EncodedPtr(out);
}

inline void SendOk(stackrec_exporter* e, const stackrec_encoded* encoded) {
  const stackrec_status st = stackrec_exporter_send(e, encoded);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

inline void FlushOk(stackrec_exporter* e, uint32_t timeout_ms = 5000) {
  const stackrec_status st = stackrec_exporter_flush(e, timeout_ms);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_EXPORT_EXPORT_FIXTURE_H_
