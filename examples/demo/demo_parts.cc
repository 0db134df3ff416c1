// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "demo_parts.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "profile.pb.h"

namespace demo {

namespace {

using OtlpRequest =
    opentelemetry::proto::collector::profiles::v1development::ExportProfilesServiceRequest;

constexpr size_t kMiB = size_t{1} << 20;

bool ParseSize(const std::string& text, size_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  *out = static_cast<size_t>(std::strtoull(text.c_str(), nullptr, 10));
  return true;
}

}  // namespace

bool ParseBudget(const std::string& text, stackrec_serialize_options* opts) {
  // The backends' defaults (docs/limits.md#budgets).
  if (text == "datadog") {
    opts->part_max_bytes = 10 * kMiB;
  } else if (text == "pyroscope") {
    // Its 2 MiB rate burst, less room for the series' labels.
    opts->part_max_uncompressed_bytes = 2 * kMiB - 96 * 1024;
    opts->part_max_samples = 16000;
  } else if (text == "otlp-http") {
    opts->part_max_uncompressed_bytes = 20 * kMiB;
  } else if (text == "otlp-grpc") {
    opts->part_max_uncompressed_bytes = 4 * kMiB;
  } else {
    std::stringstream items(text);
    std::string item;
    bool any = false;
    while (std::getline(items, item, ',')) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos) return false;
      const std::string key = item.substr(0, eq);
      size_t* field = key == "bytes"          ? &opts->part_max_bytes
                      : key == "uncompressed" ? &opts->part_max_uncompressed_bytes
                      : key == "samples"      ? &opts->part_max_samples
                      : key == "parts"        ? &opts->max_parts
                                              : nullptr;
      if (field == nullptr || !ParseSize(item.substr(eq + 1), field)) return false;
      any = true;
    }
    return any;
  }
  return true;
}

PartsSummary WriteParts(const stackrec_encoded* encoded, const stackrec_serialize_options& opts,
                        const std::string& path, bool otlp,
                        std::string (*gunzip)(const std::string&)) {
  PartsSummary summary;
  const size_t n = stackrec_encoded_parts_len(encoded);
  std::printf("\n%zu part(s) within the budget", n);
  if (opts.part_max_bytes != 0) std::printf(" bytes<=%zu", opts.part_max_bytes);
  if (opts.part_max_uncompressed_bytes != 0) {
    std::printf(" uncompressed<=%zu", opts.part_max_uncompressed_bytes);
  }
  if (opts.part_max_samples != 0) std::printf(" samples<=%zu", opts.part_max_samples);
  if (opts.max_parts != 0) std::printf(" parts<=%zu", opts.max_parts);
  std::printf("\n  %-28s %12s %14s %9s\n", "file", "bytes", "uncompressed", "samples");
  for (size_t i = 0; i < n; ++i) {
    stackrec_part part{};
    if (stackrec_encoded_part(encoded, i, &part) != STACKREC_OK) {
      std::printf("  part %zu: %s\n", i, stackrec_last_error());
      summary.ok = false;
      continue;
    }
    const std::string file = path + "." + std::to_string(i);
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(part.data), static_cast<std::streamsize>(part.size));
    std::ifstream in(file, std::ios::binary);
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (raw.size() >= 2 && static_cast<uint8_t>(raw[0]) == 0x1f &&
        static_cast<uint8_t>(raw[1]) == 0x8b) {
      raw = gunzip(raw);
    }
    int64_t samples = 0;
    bool decoded = false;
    if (otlp) {
      OtlpRequest request;
      decoded = request.ParseFromString(raw);
      const auto& strings = request.dictionary().string_table();
      for (const auto& rp : request.resource_profiles()) {
        for (const auto& sp : rp.scope_profiles()) {
          for (const auto& p : sp.profiles()) {
            const int index = p.sample_type().type_strindex();
            const std::string type = index < strings.size() ? strings[index] : "?";
            for (const auto& s : p.samples()) {
              for (int64_t v : s.values()) summary.totals[type] += v;
            }
            samples = p.samples_size();
          }
        }
      }
    } else {
      perftools::profiles::Profile profile;
      decoded = profile.ParseFromString(raw);
      for (const auto& s : profile.sample()) {
        for (int t = 0; t < s.value_size() && t < profile.sample_type_size(); ++t) {
          summary.totals[profile.string_table(profile.sample_type(t).type())] += s.value(t);
        }
      }
      samples = profile.sample_size();
    }
    const bool within =
        (opts.part_max_bytes == 0 || part.size <= opts.part_max_bytes) &&
        (opts.part_max_uncompressed_bytes == 0 || raw.size() <= opts.part_max_uncompressed_bytes) &&
        (opts.part_max_samples == 0 || static_cast<size_t>(samples) <= opts.part_max_samples);
    std::printf("  %-28s %12zu %14zu %9lld%s\n", file.c_str(), part.size, raw.size(),
                static_cast<long long>(samples),
                !decoded ? "  does not decode" : (within ? "" : "  over the budget"));
    summary.ok = summary.ok && decoded && within;
    summary.samples += samples;
  }
  return summary;
}

}  // namespace demo
