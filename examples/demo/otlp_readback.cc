// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "otlp_readback.h"

#include <cstdio>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"

namespace demo {
namespace {

namespace otlp = opentelemetry::proto::profiles::v1development;
using opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest;

const std::string& String(const otlp::ProfilesDictionary& d, int32_t index) {
  static const std::string kOutOfRange = "<bad string index>";
  return index >= 0 && index < d.string_table_size() ? d.string_table(index) : kOutOfRange;
}

}  // namespace

bool VerifyOtlp(const std::string& raw, const OtlpExpected& expected, int64_t* samples) {
  ExportProfilesServiceRequest r;
  if (!r.ParseFromString(raw)) {
    std::printf("  FAIL the file is not an ExportProfilesServiceRequest\n");
    return false;
  }
  bool ok = true;
  auto report = [&](bool passed, const std::string& what) {
    std::printf("  %-4s %s\n", passed ? "ok" : "FAIL", what.c_str());
    ok = ok && passed;
  };
  if (r.resource_profiles_size() != 1 || r.resource_profiles(0).scope_profiles_size() != 1) {
    report(false, "one resource with one scope");
    return false;
  }
  const auto& resource = r.resource_profiles(0).resource();
  report(resource.attributes_size() >= 1 && resource.attributes(0).key() == "service.name" &&
             resource.attributes(0).value().string_value() == expected.service_name,
         "the resource's service.name is " + expected.service_name);
  const auto& scope = r.resource_profiles(0).scope_profiles(0);
  report(scope.scope().name() == "stackrec",
         "the instrumentation scope is stackrec " + scope.scope().version());
  const otlp::ProfilesDictionary& d = r.dictionary();
  report(scope.profiles_size() == static_cast<int>(expected.type_count),
         std::to_string(scope.profiles_size()) + " profiles, one per sample type");
  if (!ok) return false;
  *samples = scope.profiles(0).samples_size();
  for (size_t t = 0; t < expected.type_count; ++t) {
    const otlp::Profile& p = scope.profiles(static_cast<int>(t));
    int64_t total = 0;
    for (const otlp::Sample& s : p.samples()) {
      for (int64_t v : s.values()) total += v;
    }
    const bool type = String(d, p.sample_type().type_strindex()) == expected.types[t][0] &&
                      String(d, p.sample_type().unit_strindex()) == expected.types[t][1];
    report(
        type && total == expected.totals[t] && p.samples_size() == static_cast<int>(expected.keys),
        std::string(expected.types[t][0]) + ": total " + std::to_string(total) + ", " +
            std::to_string(p.samples_size()) + " samples, one per distinct (stack, labels)");
  }
  // Each sample in a request carries its trace endpoint as an attribute.
  int64_t with_span = 0, wrong = 0;
  for (const otlp::Sample& s : scope.profiles(0).samples()) {
    const otlp::KeyValueAndUnit* span = nullptr;
    const otlp::KeyValueAndUnit* endpoint = nullptr;
    for (int32_t i : s.attribute_indices()) {
      if (i <= 0 || i >= d.attribute_table_size()) continue;
      const otlp::KeyValueAndUnit& a = d.attribute_table(i);
      const std::string& key = String(d, a.key_strindex());
      if (key == "local root span id") span = &a;
      if (key == "trace endpoint") endpoint = &a;
    }
    if (span == nullptr) {
      wrong += endpoint != nullptr;
      continue;
    }
    ++with_span;
    const auto it = expected.endpoint_of_span->find(span->value().int_value());
    wrong += it == expected.endpoint_of_span->end() || endpoint == nullptr ||
             endpoint->value().string_value() != it->second;
  }
  report(wrong == 0 && with_span > 0, "each of the " + std::to_string(with_span) +
                                          " samples in a request carries its trace endpoint");
  return ok;
}

}  // namespace demo
