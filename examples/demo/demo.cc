// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-demo: what a host runtime's profiler does with stackrec, end to
// end, through the C API only.
//
//  1. Records 100,000 samples of a synthetic Rails application
//     (rails_workload.h: 8 Puma threads, 10 endpoints, stacks 8 to 128 frames
//     deep) with stackrec_profile_add, and each request's endpoint with
//     stackrec_profile_record_endpoint, checking every status.
//  2. Serializes the profile as gzip pprof and writes it to the output path
//     (demo.pb.gz by default); with --format otlp, as an uncompressed
//     OpenTelemetry profiles request (demo.otlp.pb), the body a collector
//     takes at POST /v1development/profiles.
//  3. Reads that file back, gunzips it, parses it with the classes generated
//     from testkit/pprof/profile.proto, and prints the top functions by cpu-time and by
//     wall-time, as `go tool pprof -top` would (OTLP: parses it with the
//     classes generated from testkit/otlp/, otlp_readback.h).
//  4. Exits non-zero unless the file holds exactly what was recorded: the
//     totals of each sample type, one sample per distinct (stack, labels),
//     each request's trace endpoint. The CTests
//     demo_writes_a_decodable_profile and demo_writes_a_decodable_otlp_request
//     rely on this.
//
// With --upload URL --protocol otlp|pyroscope|datadog, it ships the profile
// to a backend with libstackrec_export instead of writing a file
// (demo_upload.h), and prints the exporter's stats.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "demo_parts.h"
#include "demo_upload.h"
#include "otlp_readback.h"
#include "profile.pb.h"
#include "rails_workload.h"
#include "stackrec/stackrec.h"
#include "stackrec_str.h"

namespace {

namespace pprof = perftools::profiles;
using Clock = std::chrono::steady_clock;

using demo::kPeriodNs;
using demo::kSampleTypeNames;
using demo::kSampleTypes;

constexpr uint64_t kSeed = 20260101;
constexpr int kThreads = 8;
constexpr int64_t kSamples = 100000;
constexpr const char* kServiceName = "stackrec-demo";

// ---- Small helpers ---------------------------------------------------------

using stackrec_workloads::Str;

// Prints the failed call and stackrec's message for it, and exits.
void Check(stackrec_status status, const char* call) {
  if (status == STACKREC_OK) return;
  std::fprintf(stderr, "stackrec-demo: %s failed: %s: %s\n", call, stackrec_status_name(status),
               stackrec_last_error());
  std::exit(1);
}

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "stackrec-demo: %s\n", message.c_str());
  std::exit(1);
}

std::string Group(int64_t n) {  // 1234567 -> "1,234,567"
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Ms(int64_t ns) {  // nanoseconds as "1,234.5" milliseconds
  const int64_t tenths = (ns + 50000) / 100000;
  return Group(tenths / 10) + "." + std::to_string(tenths % 10);
}

std::string Percent(int64_t part, int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The path as a shell word, for the commands printed at the end.
std::string ShellQuote(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyz"
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_-./+:=@%") == std::string::npos;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// ---- Recording -------------------------------------------------------------

// What the demo recorded, to check the decoded file against.
struct Recorded {
  int64_t totals[kSampleTypes] = {};
  int64_t samples = 0;
  int64_t requests = 0;
  // (stack, thread, request): samples equal in all three aggregate into one.
  std::unordered_set<uint64_t> keys;
  std::unordered_set<uint32_t> stacks;
  uint32_t min_depth = UINT32_MAX, max_depth = 0;
  std::unordered_map<int64_t, const char*> endpoint_of_span;
  size_t endpoints = 0;
  size_t tree_nodes = 0;
  double add_ms = 0;  // in stackrec_profile_add, not making up the workload
};

stackrec_profile* NewProfile() {
  stackrec_value_type types[kSampleTypes];
  for (size_t i = 0; i < kSampleTypes; ++i) {
    types[i] = {Str(kSampleTypeNames[i][0]), Str(kSampleTypeNames[i][1])};
  }
  stackrec_profile_options opts = {};
  opts.sample_types = types;
  opts.sample_types_len = kSampleTypes;
  opts.period_type = {Str("wall-time"), Str("nanoseconds")};
  opts.period = kPeriodNs;
  stackrec_profile* profile = nullptr;
  Check(stackrec_profile_new(&opts, &profile), "stackrec_profile_new");
  return profile;
}

// Records kSamples ticks of the workload through the C API, and what a
// profile of them must hold.
Recorded Record(stackrec_profile* profile) {
  demo::RailsWorkload workload(kSeed, kThreads);
  Recorded rec;
  stackrec_label labels[3] = {};
  labels[0].key = Str("thread id");
  labels[1].key = Str("thread name");
  labels[2].key = Str("local root span id");
  for (int64_t i = 0; i < kSamples; ++i) {
    const demo::Tick& tick = workload.Next();
    if (tick.request_started) {  // as a tracer would report the root span
      Check(stackrec_profile_record_endpoint(profile, static_cast<uint64_t>(tick.span_id),
                                             Str(tick.endpoint)),
            "stackrec_profile_record_endpoint");
      rec.endpoint_of_span[tick.span_id] = tick.endpoint;
      ++rec.requests;
    }
    labels[0].num = tick.thread_id;
    labels[1].str = {tick.thread_name->data(), tick.thread_name->size()};
    labels[2].num = tick.span_id;

    stackrec_sample sample = {};
    sample.locations = tick.locations;
    sample.locations_len = tick.locations_len;
    sample.values = tick.values;
    sample.values_len = kSampleTypes;
    sample.labels = labels;
    sample.labels_len = tick.span_id == 0 ? 2 : 3;  // idle: no span
    const Clock::time_point add_start = Clock::now();
    const stackrec_status status = stackrec_profile_add(profile, &sample);
    rec.add_ms += MillisSince(add_start);
    Check(status, "stackrec_profile_add");

    ++rec.samples;
    for (size_t t = 0; t < kSampleTypes; ++t) rec.totals[t] += tick.values[t];
    rec.stacks.insert(tick.stack);
    rec.keys.insert(uint64_t{tick.stack} << 40 | static_cast<uint64_t>(tick.request) << 8 |
                    static_cast<uint64_t>(tick.thread));
    rec.min_depth = std::min(rec.min_depth, tick.depth);
    rec.max_depth = std::max(rec.max_depth, tick.depth);
  }
  rec.endpoints = workload.endpoints();
  rec.tree_nodes = workload.call_tree_nodes();
  return rec;
}

// ---- Reading the file back -------------------------------------------------

std::string ReadFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) Fail("cannot open " + path + ": " + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) Fail("cannot read " + path);
  return bytes;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) Fail("cannot create " + path + ": " + std::strerror(errno));
  const bool written = std::fwrite(data, 1, size, f) == size;
  if (std::fclose(f) != 0 || !written) {
    Fail("cannot write " + path + ": " + std::strerror(errno));
  }
}

// Inflates a gzip (or zlib: windowBits 15 + 32 detects which) stream.
std::string Gunzip(const std::string& in) {
  if (in.size() > UINT_MAX) Fail("the file is too large to gunzip at once");
  z_stream z = {};
  if (inflateInit2(&z, 15 + 32) != Z_OK) Fail("inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  constexpr size_t kChunk = 1 << 20;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const size_t used = out.size();
    out.resize(used + kChunk);
    z.next_out = reinterpret_cast<Bytef*>(&out[used]);
    z.avail_out = static_cast<uInt>(kChunk);
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(used + kChunk - z.avail_out);
    if (rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_in == 0 && z.avail_out > 0)) {
      inflateEnd(&z);
      Fail("the gzip stream is truncated");
    }
    if (rc != Z_OK && rc != Z_STREAM_END) {
      const std::string msg = z.msg != nullptr ? z.msg : "error " + std::to_string(rc);
      inflateEnd(&z);
      Fail("cannot gunzip: " + msg);
    }
  }
  inflateEnd(&z);
  return out;
}

// The string table index of `s`, or -1.
int64_t StringIndex(const pprof::Profile& p, const std::string& s) {
  for (int i = 0; i < p.string_table_size(); ++i) {
    if (p.string_table(i) == s) return i;
  }
  return -1;
}

const std::string& String(const pprof::Profile& p, int64_t index) {
  static const std::string kOutOfRange = "<bad string index>";
  return index >= 0 && index < p.string_table_size() ? p.string_table(index) : kOutOfRange;
}

// Flat and cumulative totals per function name (a string table index), for
// the value at `value_index` of each sample.
struct Top {
  std::vector<int64_t> flat, cum;
  int64_t total = 0;
};

// Computes Top for each of `value_indices` in one pass over the samples.
std::vector<Top> Aggregate(const pprof::Profile& p, const std::vector<int>& value_indices) {
  std::unordered_map<uint64_t, int64_t> name_of_function;
  for (const pprof::Function& f : p.function()) {
    name_of_function[f.id()] = f.name();
  }
  // Each location's function names, innermost (line[0]) first.
  std::unordered_map<uint64_t, std::vector<int64_t>> names_of_location;
  for (const pprof::Location& loc : p.location()) {
    std::vector<int64_t>& names = names_of_location[loc.id()];
    for (const pprof::Line& line : loc.line()) {
      const auto it = name_of_function.find(line.function_id());
      names.push_back(it == name_of_function.end() ? 0 : it->second);
    }
  }
  const size_t strings = static_cast<size_t>(p.string_table_size());
  std::vector<Top> tops(value_indices.size());
  for (Top& t : tops) {
    t.flat.assign(strings, 0);
    t.cum.assign(strings, 0);
  }
  // last_sample[name] == s: the name was already counted for sample s.
  std::vector<int> last_sample(strings, -1);
  std::vector<const std::vector<int64_t>*> frames;
  for (int s = 0; s < p.sample_size(); ++s) {
    const pprof::Sample& sample = p.sample(s);
    frames.clear();
    for (uint64_t id : sample.location_id()) {
      const auto it = names_of_location.find(id);
      if (it == names_of_location.end()) {
        Fail("a sample names location " + std::to_string(id) + ", which is not in the file");
      }
      frames.push_back(&it->second);
    }
    for (size_t v = 0; v < value_indices.size(); ++v) {
      const int64_t value = sample.value(value_indices[v]);
      tops[v].total += value;
      if (!frames.empty() && !frames[0]->empty()) {
        tops[v].flat[static_cast<size_t>((*frames[0])[0])] += value;
      }
    }
    for (const std::vector<int64_t>* names : frames) {
      for (int64_t name : *names) {
        if (last_sample[static_cast<size_t>(name)] == s) continue;
        last_sample[static_cast<size_t>(name)] = s;
        for (size_t v = 0; v < value_indices.size(); ++v) {
          tops[v].cum[static_cast<size_t>(name)] += sample.value(value_indices[v]);
        }
      }
    }
  }
  return tops;
}

void PrintTop(const pprof::Profile& p, const Top& top, const char* type) {
  std::vector<size_t> names;
  for (size_t i = 0; i < top.flat.size(); ++i) {
    if (top.flat[i] != 0 || top.cum[i] != 0) names.push_back(i);
  }
  std::sort(names.begin(), names.end(), [&](size_t a, size_t b) {
    return std::make_tuple(-top.flat[a], -top.cum[a], String(p, a)) <
           std::make_tuple(-top.flat[b], -top.cum[b], String(p, b));
  });
  std::printf("\nTop 10 functions by %s (%s ms in total)\n", type, Ms(top.total).c_str());
  std::printf("%12s %6s %12s %6s  %s\n", "flat ms", "flat%", "cum ms", "cum%", "function");
  for (size_t i = 0; i < names.size() && i < 10; ++i) {
    const size_t n = names[i];
    std::printf("%12s %6s %12s %6s  %s\n", Ms(top.flat[n]).c_str(),
                Percent(top.flat[n], top.total).c_str(), Ms(top.cum[n]).c_str(),
                Percent(top.cum[n], top.total).c_str(), String(p, n).c_str());
  }
}

// Compares the decoded profile with what was recorded; prints each check and
// returns false if any failed.
bool Verify(const pprof::Profile& p, const Recorded& rec) {
  bool ok = true;
  auto report = [&](bool passed, const std::string& what) {
    std::printf("  %-4s %s\n", passed ? "ok" : "FAIL", what.c_str());
    ok = ok && passed;
  };

  bool types = p.sample_type_size() == static_cast<int>(kSampleTypes);
  for (int i = 0; types && i < p.sample_type_size(); ++i) {
    types = String(p, p.sample_type(i).type()) == kSampleTypeNames[i][0] &&
            String(p, p.sample_type(i).unit()) == kSampleTypeNames[i][1];
  }
  report(types && String(p, p.period_type().type()) == "wall-time" &&
             String(p, p.period_type().unit()) == "nanoseconds" && p.period() == kPeriodNs,
         "sample types and period as declared");

  int64_t totals[kSampleTypes] = {};
  bool widths = true;
  for (const pprof::Sample& s : p.sample()) {
    if (s.value_size() != static_cast<int>(kSampleTypes)) {
      widths = false;
      continue;
    }
    for (size_t i = 0; i < kSampleTypes; ++i) {
      totals[i] += s.value(static_cast<int>(i));
    }
  }
  for (size_t i = 0; i < kSampleTypes; ++i) {
    report(widths && totals[i] == rec.totals[i],
           std::string(kSampleTypeNames[i][0]) + " total " + Group(totals[i]) +
               (totals[i] == rec.totals[i] ? " equals" : " differs from") + " the recorded " +
               Group(rec.totals[i]));
  }

  report(p.sample_size() == static_cast<int64_t>(rec.keys.size()),
         Group(p.sample_size()) + " pprof samples, one per distinct (stack, " +
             "labels) recorded: " + Group(static_cast<int64_t>(rec.keys.size())));

  const int64_t span_key = StringIndex(p, "local root span id");
  const int64_t endpoint_key = StringIndex(p, "trace endpoint");
  int64_t with_span = 0, wrong = 0;
  for (const pprof::Sample& s : p.sample()) {
    const pprof::Label* span = nullptr;
    const pprof::Label* endpoint = nullptr;
    for (const pprof::Label& l : s.label()) {
      if (l.key() == span_key) span = &l;
      if (l.key() == endpoint_key) endpoint = &l;
    }
    if (span == nullptr) {
      wrong += endpoint != nullptr;
      continue;
    }
    ++with_span;
    const auto it = rec.endpoint_of_span.find(span->num());
    wrong += it == rec.endpoint_of_span.end() || endpoint == nullptr ||
             String(p, endpoint->str()) != it->second;
  }
  report(wrong == 0 && with_span > 0, "each of the " + Group(with_span) +
                                          " samples in a request carries its trace endpoint" +
                                          (wrong == 0 ? "" : " (" + Group(wrong) + " do not)"));
  return ok;
}

// --format otlp: the file as OTLP, read back and checked (otlp_readback.h).
int FinishOtlp(const std::string& path, const Recorded& rec, size_t file_size, double record_ms,
               double serialize_ms) {
  const std::string raw = ReadFile(path);
  std::printf("stackrec-demo: a Rails app on %d Puma threads, %zu endpoints, %s requests\n",
              kThreads, rec.endpoints, Group(rec.requests).c_str());
  std::printf("\nChecks against what was recorded\n");
  demo::OtlpExpected expected{kSampleTypeNames,      rec.totals,  kSampleTypes, rec.keys.size(),
                              &rec.endpoint_of_span, kServiceName};
  int64_t samples = 0;
  const bool ok = demo::VerifyOtlp(raw, expected, &samples);
  std::printf("\nsamples     %s recorded, %s distinct (stack, labels) in each profile\n",
              Group(rec.samples).c_str(), Group(samples).c_str());
  std::printf("file        %s: %s bytes of OTLP (uncompressed protobuf)\n", path.c_str(),
              Group(static_cast<int64_t>(file_size)).c_str());
  std::printf("time        record %.0f ms, serialize %.0f ms\n", record_ms, serialize_ms);
  std::printf(
      "\nSend it to an OpenTelemetry collector (OTLP/HTTP, profiles enabled) with:\n"
      "  curl -X POST -H 'Content-Type: application/x-protobuf' \\\n"
      "       --data-binary @%s http://localhost:4318/v1development/profiles\n",
      ShellQuote(path).c_str());
  if (!ok) {
    std::fprintf(stderr, "stackrec-demo: %s does not hold what was recorded\n", path.c_str());
    return 1;
  }
  return 0;
}

// --budget: the parts, each in a file of its own, read back and checked
// together against what was recorded (demo_parts.h).
int FinishParts(stackrec_encoded* encoded, const stackrec_serialize_options& opts,
                const std::string& path, bool otlp, const Recorded& rec,
                stackrec_profile* profile) {
  stackrec_encode_stats stats{};
  Check(stackrec_encoded_stats(encoded, &stats), "stackrec_encoded_stats");
  const demo::PartsSummary parts = demo::WriteParts(encoded, opts, path, otlp, &Gunzip);
  stackrec_encoded_free(encoded);
  stackrec_profile_free(profile);
  std::printf("\nChecks against what was recorded\n");
  bool ok = parts.ok;
  for (size_t i = 0; i < kSampleTypes; ++i) {
    const auto it = parts.totals.find(kSampleTypeNames[i][0]);
    const int64_t got = it == parts.totals.end() ? 0 : it->second;
    std::printf("  %-4s %s: %s in the parts, %s recorded\n", got == rec.totals[i] ? "ok" : "FAIL",
                kSampleTypeNames[i][0], Group(got).c_str(), Group(rec.totals[i]).c_str());
    ok = ok && got == rec.totals[i];
  }
  // Every distinct (stack, labels) once, or summed into the pseudo-sample.
  const int64_t expected = static_cast<int64_t>(rec.keys.size()) -
                           static_cast<int64_t>(stats.samples_left_out) +
                           (stats.samples_left_out != 0 ? 1 : 0);
  std::printf(
      "  %-4s %s samples in the parts: %s distinct recorded, %s summed into the "
      "output limit's pseudo-sample\n",
      parts.samples == expected ? "ok" : "FAIL", Group(parts.samples).c_str(),
      Group(static_cast<int64_t>(rec.keys.size())).c_str(),
      Group(static_cast<int64_t>(stats.samples_left_out)).c_str());
  ok = ok && parts.samples == expected;
  std::printf("\ntime        serialize %.0f ms for %llu part(s)\n",
              static_cast<double>(stats.encode_ns) / 1e6,
              static_cast<unsigned long long>(stats.parts));
  if (!ok) std::fprintf(stderr, "stackrec-demo: the parts do not hold what was recorded\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  bool otlp = false;
  stackrec_serialize_options budget = {};
  bool budgeted = false;
  std::string upload_url, upload_protocol;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (;;) {
    if (args.size() >= 2 && args[0] == "--format" && (args[1] == "pprof" || args[1] == "otlp")) {
      otlp = args[1] == "otlp";
    } else if (args.size() >= 2 && args[0] == "--upload") {
      upload_url = args[1];
    } else if (args.size() >= 2 && args[0] == "--protocol" && demo::KnownProtocol(args[1])) {
      upload_protocol = args[1];
    } else if (args.size() >= 2 && args[0] == "--budget" && demo::ParseBudget(args[1], &budget)) {
      budgeted = true;
    } else {
      break;
    }
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() > 1 || (!args.empty() && args[0].rfind("--", 0) == 0) ||
      upload_url.empty() != upload_protocol.empty()) {
    std::fprintf(stderr,
                 "usage: %s [--format pprof|otlp] [--budget BUDGET] [output]\n"
                 "       %s --upload URL --protocol otlp|pyroscope|datadog\n"
                 "  BUDGET: datadog, pyroscope, otlp-http, otlp-grpc, or any of\n"
                 "          bytes=N,uncompressed=N,samples=N,parts=N (per part; parts in all)\n",
                 argv[0], argv[0]);
    return 2;
  }
  const std::string path = !args.empty() ? args[0] : (otlp ? "demo.otlp.pb" : "demo.pb.gz");
  if (stackrec_version_number() != STACKREC_VERSION_NUMBER) {
    Fail("libstackrec is version " + std::to_string(stackrec_version_number()) +
         ", this demo was built against " + std::to_string(STACKREC_VERSION_NUMBER));
  }
  const Clock::time_point start = Clock::now();

  // Record and serialize, through the C API only.
  stackrec_profile* profile = NewProfile();
  const Recorded rec = Record(profile);
  const double record_ms = MillisSince(start);
  if (!upload_url.empty()) {
#ifdef STACKREC_DEMO_UPLOAD
    const int code = demo::Upload(profile, upload_url, upload_protocol);
    stackrec_profile_free(profile);
    return code;
#else
    Fail("this demo was built without libstackrec_export (STACKREC_BUILD_EXPORT=OFF)");
#endif
  }

  const Clock::time_point serialize_start = Clock::now();
  stackrec_serialize_options opts = {};
  opts.compression = STACKREC_COMPRESSION_GZIP;
  if (otlp) {
    // OTLP/HTTP takes the protobuf as it is (or with Content-Encoding: gzip).
    opts.compression = STACKREC_COMPRESSION_NONE;
    opts.format = STACKREC_FORMAT_OTLP;
    opts.service_name = Str(kServiceName);
  }
  if (budgeted) {
    opts.part_max_bytes = budget.part_max_bytes;
    opts.part_max_uncompressed_bytes = budget.part_max_uncompressed_bytes;
    opts.part_max_samples = budget.part_max_samples;
    opts.max_parts = budget.max_parts;
  }
  stackrec_encoded* encoded = nullptr;
  Check(stackrec_profile_serialize(profile, &opts, &encoded), "stackrec_profile_serialize");
  if (budgeted) return FinishParts(encoded, opts, path, otlp, rec, profile);
  const double serialize_ms = MillisSince(serialize_start);
  const size_t file_size = stackrec_encoded_size(encoded);
  WriteFile(path, stackrec_encoded_data(encoded), file_size);
  stackrec_encoded_free(encoded);
  stackrec_profile_free(profile);
  if (otlp) return FinishOtlp(path, rec, file_size, record_ms, serialize_ms);

  // Read the file back, as any pprof consumer would.
  const Clock::time_point decode_start = Clock::now();
  const std::string raw = Gunzip(ReadFile(path));
  pprof::Profile decoded;
  if (!decoded.ParseFromString(raw)) Fail(path + " is not a pprof Profile");
  const double decode_ms = MillisSince(decode_start);

  const Clock::time_point report_start = Clock::now();
  const int64_t cpu_index = StringIndex(decoded, "cpu-time");
  const int64_t wall_index = StringIndex(decoded, "wall-time");
  int cpu_value = -1, wall_value = -1;
  for (int i = 0; i < decoded.sample_type_size(); ++i) {
    if (decoded.sample_type(i).type() == cpu_index) cpu_value = i;
    if (decoded.sample_type(i).type() == wall_index) wall_value = i;
  }
  if (cpu_value < 0 || wall_value < 0) {
    Fail(path + " lacks cpu-time or wall-time");
  }
  const std::vector<Top> tops = Aggregate(decoded, std::vector<int>{cpu_value, wall_value});

  std::printf(
      "stackrec-demo: a Rails app on %d Puma threads, %zu endpoints, "
      "%s requests\n",
      kThreads, rec.endpoints, Group(rec.requests).c_str());
  PrintTop(decoded, tops[0], "cpu-time");
  PrintTop(decoded, tops[1], "wall-time");
  const double report_ms = MillisSince(report_start);

  std::printf("\nChecks against what was recorded\n");
  const bool ok = Verify(decoded, rec);

  std::printf("\n");
  std::printf("samples     %s recorded, %s distinct (stack, labels) in the file\n",
              Group(rec.samples).c_str(), Group(decoded.sample_size()).c_str());
  std::printf(
      "stacks      %s distinct, %u to %u frames deep (%s call-tree "
      "nodes)\n",
      Group(static_cast<int64_t>(rec.stacks.size())).c_str(), rec.min_depth, rec.max_depth,
      Group(static_cast<int64_t>(rec.tree_nodes)).c_str());
  std::printf("file        %s: %s bytes gzip, %s bytes of pprof\n", path.c_str(),
              Group(static_cast<int64_t>(file_size)).c_str(),
              Group(static_cast<int64_t>(raw.size())).c_str());
  std::printf("time        %.0f ms in all\n", MillisSince(start));
  std::printf(
      "  record    %5.0f ms, of which stackrec_profile_add %.0f ms (%.2f us "
      "per call)\n",
      record_ms, rec.add_ms, 1000 * rec.add_ms / static_cast<double>(kSamples));
  std::printf("  serialize %5.0f ms (gzip)\n", serialize_ms);
  std::printf("  read back %5.0f ms (read, gunzip, parse)\n", decode_ms);
  std::printf("  report    %5.0f ms (top functions)\n", report_ms);
  std::printf(
      "\nExplore it with:\n  go tool pprof -top %s\n"
      "  go tool pprof -http=: %s\n",
      ShellQuote(path).c_str(), ShellQuote(path).c_str());

  if (!ok) {
    std::fprintf(stderr, "stackrec-demo: %s does not hold what was recorded\n", path.c_str());
    return 1;
  }
  return 0;
}
