// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "workloads_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace stackrec_bench {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Thousands(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  std::string s = buf;
  const size_t dot = s.find('.');
  const size_t int_end = dot == std::string::npos ? s.size() : dot;
  const size_t first = s[0] == '-' ? 1 : 0;
  for (size_t i = int_end; i > first + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

std::string Fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

std::string Ms(double ms) { return ms < 100 ? Fixed(ms, 1) : Thousands(ms); }
std::string Bytes(double b) { return Fixed(b / 1e6, 2) + " MB"; }
std::string Ratio(double base, double ours) { return ours > 0 ? Fixed(base / ours, 1) + "×" : "–"; }
std::string Range(const std::vector<double>& v, int decimals) {
  if (v.empty()) return "";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return Thousands(*lo, decimals) + "–" + Thousands(*hi, decimals);
}

bool Verify(const Workload& w, const std::vector<std::pair<std::string, PprofSummary>>& outputs,
            std::string* report) {
  bool ok = true;
  char buf[768];
  std::string problems;
  const PprofSummary* first = nullptr;
  for (const auto& [name, s] : outputs) {
    auto fail = [&](const std::string& why) {
      problems += "  " + name + ": " + why + "\n";
      ok = false;
    };
    if (!s.ok) {
      fail(s.error);
      continue;
    }
    if (s.samples != w.distinct_keys()) {
      fail(std::to_string(s.samples) + " samples, the workload has " +
           std::to_string(w.distinct_keys()) + " distinct keys");
    }
    if (s.sample_types != kSampleTypes) fail("wrong number of sample types");
    for (size_t i = 0; i < kSampleTypes && i < s.sample_types; ++i) {
      if (s.totals[i] != w.totals()[i]) {
        fail(std::string(kSampleTypeNames[i][0]) + " totals " + std::to_string(s.totals[i]) +
             ", the workload's " + std::to_string(w.totals()[i]));
      }
    }
    if (s.endpoint_labels != w.distinct_keys_in_spans()) {
      fail(std::to_string(s.endpoint_labels) + " samples with a trace endpoint, expected " +
           std::to_string(w.distinct_keys_in_spans()));
    }
    // Every function's system name is its name, or none has one.
    const uint64_t with = w.spec().system_names ? s.functions : 0;
    if (s.functions == 0 || s.functions_with_system_name != with || s.system_names_not_name != 0) {
      fail(std::to_string(s.functions_with_system_name) + " of " + std::to_string(s.functions) +
           " functions with a system name, expected " + std::to_string(with) + "; " +
           std::to_string(s.system_names_not_name) + " of them not the function's name");
    }
    if (first == nullptr) {
      first = &s;
    } else if (s.digest != first->digest) {
      fail("content differs from " + outputs.front().first + "'s (digest)");
    }
  }
  if (ok && first != nullptr) {
    std::string names;
    for (const auto& o : outputs) names += (names.empty() ? "" : ", ") + o.first;
    std::snprintf(buf, sizeof buf,
                  "verified: %s decode to %s samples, totals cpu-time %s ns, "
                  "cpu-samples %s, wall-time %s ns, alloc-samples %s (= the workload's), "
                  "%s with an endpoint, %s functions (%s with a system name), "
                  "equal content (digest %016" PRIx64 ")",
                  names.c_str(), Thousands(static_cast<double>(first->samples)).c_str(),
                  Thousands(static_cast<double>(first->totals[0])).c_str(),
                  Thousands(static_cast<double>(first->totals[1])).c_str(),
                  Thousands(static_cast<double>(first->totals[2])).c_str(),
                  Thousands(static_cast<double>(first->totals[3])).c_str(),
                  Thousands(static_cast<double>(first->endpoint_labels)).c_str(),
                  Thousands(static_cast<double>(first->functions)).c_str(),
                  Thousands(static_cast<double>(first->functions_with_system_name)).c_str(),
                  first->digest);
    *report = buf;
  } else {
    *report = "VERIFICATION FAILED\n" + problems;
  }
  return ok;
}

std::string Target(double measured, double target, const std::string& shown) {
  return "≤ " + shown + (measured <= target ? " ✓" : " ✗");
}

std::vector<double> WorkloadRuns::Values(Impl impl, double Measurement::*field) const {
  std::vector<double> v;
  if (runs.count(impl) == 0) return v;
  for (const Measurement& m : runs.at(impl)) v.push_back(m.*field);
  return v;
}

std::vector<double> WorkloadRuns::ByteValues(Impl impl, uint64_t Measurement::*field) const {
  std::vector<double> v;
  if (runs.count(impl) == 0) return v;
  for (const Measurement& m : runs.at(impl)) v.push_back(static_cast<double>(m.*field));
  return v;
}

std::vector<double> WorkloadRuns::Memory(Impl impl) const {
  std::vector<double> v;
  if (runs.count(impl) == 0) return v;
  for (const Measurement& m : runs.at(impl)) v.push_back(m.peak_mib - m.loaded_mib);
  return v;
}

double WorkloadRuns::Med(Impl impl, double Measurement::*field) const {
  return Median(Values(impl, field));
}

std::vector<double> WorkloadRuns::IdValues(Impl impl, IdMode mode,
                                           double Measurement::*field) const {
  std::vector<double> v;
  if (id_runs.count({impl, mode}) == 0) return v;
  for (const Measurement& m : id_runs.at({impl, mode})) v.push_back(m.*field);
  return v;
}

double WorkloadRuns::IdMed(Impl impl, IdMode mode, double Measurement::*field) const {
  return Median(IdValues(impl, mode, field));
}

namespace {

constexpr Impl P = Impl::kProfile, R = Impl::kRecorder, B = Impl::kBaseline;

// What the rare long calls cost, apart from the usual ones: the first
// interval grows every table, and on a VM a huge page's first fault or
// an interrupt lands on whichever call is running.
std::string Slow(const std::vector<double>& ns, const std::vector<double>& calls) {
  return Fixed(Median(ns), 1) + " (" + Thousands(Median(calls)) + " calls)";
}

// The string path's adds: the first fill's ns/sample, its first sightings,
// page faults and slow calls.
void AddStringRows(Table& table, const WorkloadRuns& r, const Targets& t) {
  const double add_p = r.Med(P, &Measurement::add_ns), add_r = r.Med(R, &Measurement::add_ns),
               add_b = r.Med(B, &Measurement::add_ns);
  table.Row({"add, ns/sample (string frames, CPU)", Thousands(add_p), Thousands(add_r),
             Thousands(add_b), Ratio(add_b, add_p), Ratio(add_b, add_r),
             Target(std::max(add_p, add_r), t.add_ns, Thousands(t.add_ns))});
  // Where the first interval's string add goes: a stack's first sample
  // interns it (its frames, their functions and strings), the others find
  // it by fingerprint.
  auto first = [&](Impl impl) {
    return Thousands(r.Med(impl, &Measurement::first_sightings_ns)) + " (" +
           Fixed(r.Med(impl, &Measurement::first_sighting_each_ns) / 1000, 1) + " µs each)";
  };
  table.Row({"of which first samples of a stack (" +
                 Thousands(r.Med(P, &Measurement::first_sightings)) + " stacks), ns/sample",
             first(P), first(R), first(B), "", "", ""});
  table.Row({"page faults during the adds (memory touched the first time)",
             Thousands(r.Med(P, &Measurement::page_faults)),
             Thousands(r.Med(R, &Measurement::page_faults)),
             Thousands(r.Med(B, &Measurement::page_faults)), "", "", ""});
  auto slow_row = [&](Impl impl) {
    return Slow(r.Values(impl, &Measurement::slow_calls_ns),
                r.Values(impl, &Measurement::slow_calls));
  };
  table.Row(
      {"of which calls over 10 µs (tables growing, huge pages faulted in, interrupts), "
       "ns/sample",
       slow_row(P), slow_row(R), "", "", "", ""});
}

// The id path's adds, by each mode, and interning the workload.
void AddIdRows(Table& table, const WorkloadRuns& r, const Targets& t) {
  const double add_b = r.Med(B, &Measurement::add_ns);
  const double ids_p = r.IdMed(P, IdMode::kStackId, &Measurement::add_ns),
               ids_r = r.IdMed(R, IdMode::kStackId, &Measurement::add_ns);
  table.Row({"add, ns/sample (pre-interned ids: stack id, CPU)", Thousands(ids_p), Thousands(ids_r),
             "–", Ratio(add_b, ids_p), Ratio(add_b, ids_r),
             Target(std::max(ids_p, ids_r), t.ids_add_ns, Thousands(t.ids_add_ns))});
  auto slow_ids = [&](Impl impl) {
    return Slow(r.IdValues(impl, IdMode::kStackId, &Measurement::slow_calls_ns),
                r.IdValues(impl, IdMode::kStackId, &Measurement::slow_calls));
  };
  table.Row({"of which calls over 10 µs, ns/sample (stack id)", slow_ids(P), slow_ids(R), "", "",
             "", ""});
  const double both_p = r.IdMed(P, IdMode::kStackAndLabelsIds, &Measurement::add_ns),
               both_r = r.IdMed(R, IdMode::kStackAndLabelsIds, &Measurement::add_ns);
  table.Row({"add, ns/sample (pre-interned ids: stack id and label-set id, CPU)", Thousands(both_p),
             Thousands(both_r), "–", Ratio(add_b, both_p), Ratio(add_b, both_r),
             Target(std::max(both_p, both_r), t.ids_add_ns, Thousands(t.ids_add_ns))});
  table.Row({"add, ns/sample (pre-interned ids: location ids, CPU)",
             Thousands(r.IdMed(P, IdMode::kLocationIds, &Measurement::add_ns)),
             Thousands(r.IdMed(R, IdMode::kLocationIds, &Measurement::add_ns)), "–",
             Ratio(add_b, r.IdMed(P, IdMode::kLocationIds, &Measurement::add_ns)),
             Ratio(add_b, r.IdMed(R, IdMode::kLocationIds, &Measurement::add_ns)), ""});
  table.Row({"intern the workload once, CPU ms (not in the id rows)",
             Ms(r.IdMed(P, IdMode::kStackId, &Measurement::intern_ms)),
             Ms(r.IdMed(R, IdMode::kStackId, &Measurement::intern_ms)), "", "", "", ""});
}

// Serialization times, output sizes and memory.
void AddSerializeRows(Table& table, const WorkloadRuns& r, const Targets& t) {
  const double gz_p = r.Med(P, &Measurement::gzip_ms), gz_r = r.Med(R, &Measurement::gzip_ms),
               gz_b = r.Med(B, &Measurement::gzip_ms);
  table.Row({"serialize gzip, CPU ms (stackrec level 1; baseline SerializeToString + gzip 6)",
             Ms(gz_p), Ms(gz_r),
             Ms(gz_b) + " (" + Ms(r.Med(B, &Measurement::pb_ms)) + " + " +
                 Ms(r.Med(B, &Measurement::gzip6_ms)) + ")",
             Ratio(gz_b, gz_p), Ratio(gz_b, gz_r),
             Target(std::max(gz_p, gz_r), t.gzip_ms, Thousands(t.gzip_ms))});
  const double gzb_p = Median(r.ByteValues(P, &Measurement::gzip_bytes)),
               gzb_r = Median(r.ByteValues(R, &Measurement::gzip_bytes)),
               gzb_b = Median(r.ByteValues(B, &Measurement::gzip_bytes));
  table.Row({"gzip output", Bytes(gzb_p), Bytes(gzb_r), Bytes(gzb_b), Ratio(gzb_b, gzb_p),
             Ratio(gzb_b, gzb_r),
             Target(std::max(gzb_p, gzb_r) / 1e6, t.gzip_mb, Fixed(t.gzip_mb, 1) + " MB")});
  const double zs_p = r.Med(P, &Measurement::zstd_ms), zs_r = r.Med(R, &Measurement::zstd_ms);
  table.Row({"serialize zstd, CPU ms (level 1)", Ms(zs_p), Ms(zs_r), "–", "", "",
             Target(std::max(zs_p, zs_r), t.zstd_ms, Thousands(t.zstd_ms))});
  table.Row({"zstd output", Bytes(Median(r.ByteValues(P, &Measurement::zstd_bytes))),
             Bytes(Median(r.ByteValues(R, &Measurement::zstd_bytes))), "–", "", "", ""});
  const double mem_p = Median(r.Memory(P)), mem_r = Median(r.Memory(R)),
               mem_b = Median(r.Memory(B));
  // One decimal: a target is met or not by the exact figure (VmHWM and
  // VmRSS are in kB).
  table.Row({"memory, MiB (peak RSS − loaded RSS)", Thousands(mem_p, 1), Thousands(mem_r, 1),
             Thousands(mem_b, 1), Ratio(mem_b, mem_p), Ratio(mem_b, mem_r),
             Target(std::max(mem_p, mem_r), t.mem_mib, Thousands(t.mem_mib))});
  table.Row({"uncompressed pprof", Bytes(Median(r.ByteValues(P, &Measurement::none_bytes))), "",
             Bytes(Median(r.ByteValues(B, &Measurement::none_bytes))), "", "", ""});
  table.Row({"serialize uncompressed, CPU ms", Ms(r.Med(P, &Measurement::none_ms)), "",
             Ms(r.Med(B, &Measurement::pb_ms)) + " (SerializeToString)", "", "", ""});
}

// The recorder's second and third fills.
void AddFillRows(Table& table, const WorkloadRuns& r) {
  table.Row({"recorder's second fill, ns/sample: string frames", "",
             Thousands(r.Med(R, &Measurement::add2_ns)), "", "", "", ""});
  table.Row({"recorder's second fill, ns/sample: stack id and label-set id", "",
             Thousands(r.IdMed(R, IdMode::kStackAndLabelsIds, &Measurement::add2_ns)), "", "", "",
             ""});
  table.Row({"recorder's steady state (third fill), ns/sample: string frames", "",
             Thousands(r.Med(R, &Measurement::add3_ns)), "", "", "", ""});
  table.Row({"recorder's steady state (third fill), ns/sample: stack id", "",
             Thousands(r.IdMed(R, IdMode::kStackId, &Measurement::add3_ns)), "", "", "", ""});
  table.Row({"recorder's steady state (third fill), ns/sample: stack id and label-set id", "",
             Thousands(r.IdMed(R, IdMode::kStackAndLabelsIds, &Measurement::add3_ns)), "", "", "",
             ""});
  table.Row({"recorder's steady state (third fill), ns/sample: location ids", "",
             Thousands(r.IdMed(R, IdMode::kLocationIds, &Measurement::add3_ns)), "", "", "", ""});
}

// Wall-time figures, the CPU share, and the baseline at gzip level 1.
void AddWallRows(Table& table, const WorkloadRuns& r) {
  const double gz_p = r.Med(P, &Measurement::gzip_ms), gz_r = r.Med(R, &Measurement::gzip_ms);
  table.Row({"add, wall ns/sample", Thousands(r.Med(P, &Measurement::add_wall_ns)),
             Thousands(r.Med(R, &Measurement::add_wall_ns)),
             Thousands(r.Med(B, &Measurement::add_wall_ns)), "", "", ""});
  table.Row({"serialize gzip, wall ms", Ms(r.Med(P, &Measurement::gzip_wall_ms)),
             Ms(r.Med(R, &Measurement::gzip_wall_ms)), Ms(r.Med(B, &Measurement::gzip_wall_ms)), "",
             "", ""});
  table.Row({"add by stack id, wall ns/sample",
             Thousands(r.IdMed(P, IdMode::kStackId, &Measurement::add_wall_ns)),
             Thousands(r.IdMed(R, IdMode::kStackId, &Measurement::add_wall_ns)), "", "", "", ""});
  table.Row({"CPU share during the adds (CPU ÷ wall time)",
             Fixed(r.Med(P, &Measurement::cpu_share), 2),
             Fixed(r.Med(R, &Measurement::cpu_share), 2),
             Fixed(r.Med(B, &Measurement::cpu_share), 2), "", "", ""});
  table.Row({"CPU share during the adds by stack id",
             Fixed(r.IdMed(P, IdMode::kStackId, &Measurement::cpu_share), 2),
             Fixed(r.IdMed(R, IdMode::kStackId, &Measurement::cpu_share), 2), "", "", "", ""});
  const double gz1_b = r.Med(B, &Measurement::gzip1_ms);
  table.Row({"baseline with gzip 1: CPU ms, output", "", "",
             Ms(r.Med(B, &Measurement::pb_ms) + gz1_b) + " ms, " +
                 Bytes(Median(r.ByteValues(B, &Measurement::gzip1_bytes))),
             Ratio(r.Med(B, &Measurement::pb_ms) + gz1_b, gz_p),
             Ratio(r.Med(B, &Measurement::pb_ms) + gz1_b, gz_r), ""});
}

void PrintSpread(const WorkloadRuns& r) {
  std::printf("\nspread (min–max over the runs; CPU time unless wall):\n\n");
  Table spread({"", "stackrec profile", "stackrec recorder", "baseline"});
  spread.Row({"add, ns/sample", Range(r.Values(P, &Measurement::add_ns), 0),
              Range(r.Values(R, &Measurement::add_ns), 0),
              Range(r.Values(B, &Measurement::add_ns), 0)});
  for (IdMode mode : kIdModes) {
    spread.Row({std::string("add by ") + IdModeName(mode) + ", ns/sample",
                Range(r.IdValues(P, mode, &Measurement::add_ns), 0),
                Range(r.IdValues(R, mode, &Measurement::add_ns), 0), ""});
  }
  spread.Row({"add, wall ns/sample", Range(r.Values(P, &Measurement::add_wall_ns), 0),
              Range(r.Values(R, &Measurement::add_wall_ns), 0),
              Range(r.Values(B, &Measurement::add_wall_ns), 0)});
  spread.Row({"serialize gzip, ms", Range(r.Values(P, &Measurement::gzip_ms), 0),
              Range(r.Values(R, &Measurement::gzip_ms), 0),
              Range(r.Values(B, &Measurement::gzip_ms), 0)});
  spread.Row({"serialize zstd, ms", Range(r.Values(P, &Measurement::zstd_ms), 0),
              Range(r.Values(R, &Measurement::zstd_ms), 0), ""});
  spread.Row({"memory, MiB", Range(r.Memory(P), 1), Range(r.Memory(R), 1), Range(r.Memory(B), 1)});
  spread.Row({"loaded RSS, MiB", Range(r.Values(P, &Measurement::loaded_mib), 0),
              Range(r.Values(R, &Measurement::loaded_mib), 0),
              Range(r.Values(B, &Measurement::loaded_mib), 0)});
  spread.Print();
}

}  // namespace

void PrintWorkloadTables(const WorkloadRuns& r, const Targets& t) {
  Table table({"", "stackrec profile", "stackrec recorder", "baseline", "baseline ÷ profile",
               "baseline ÷ recorder", "target"});
  AddStringRows(table, r, t);
  AddIdRows(table, r, t);
  AddSerializeRows(table, r, t);
  AddFillRows(table, r);
  AddWallRows(table, r);
  table.Print();
  PrintSpread(r);
}

bool CheckWorkloadRuns(const Workload& w, const WorkloadRuns& r, bool verify) {
  bool ok = true;
  for (const Measurement& m : r.runs.at(R)) {
    if (m.recorder_keys != w.distinct_keys()) {
      std::printf("\nrecorder stats: last_distinct_keys %" PRIu64 ", expected %zu\n",
                  m.recorder_keys, w.distinct_keys());
      ok = false;
      break;
    }
  }
  if (verify) {
    std::vector<std::pair<std::string, PprofSummary>> outputs = {
        {"profile gzip", r.runs.at(P)[0].summary[0]},
        {"profile zstd", r.runs.at(P)[0].summary[1]},
        {"recorder gzip", r.runs.at(R)[0].summary[0]},
        {"recorder zstd (second fill)", r.runs.at(R)[0].summary[1]},
        {"baseline gzip", r.runs.at(B)[0].summary[0]},
        {"profile by stack id", r.id_runs.at({P, IdMode::kStackId})[0].summary[0]},
        {"profile by location ids", r.id_runs.at({P, IdMode::kLocationIds})[0].summary[0]},
        {"recorder by stack id", r.id_runs.at({R, IdMode::kStackId})[0].summary[0]},
        {"profile by stack and label-set ids",
         r.id_runs.at({P, IdMode::kStackAndLabelsIds})[0].summary[0]},
        {"recorder by stack and label-set ids",
         r.id_runs.at({R, IdMode::kStackAndLabelsIds})[0].summary[0]},
        {"recorder by location ids", r.id_runs.at({R, IdMode::kLocationIds})[0].summary[0]}};
    std::string report;
    ok = Verify(w, outputs, &report) && ok;
    std::printf("\n%s\n", report.c_str());
  }
  return ok;
}

}  // namespace stackrec_bench
