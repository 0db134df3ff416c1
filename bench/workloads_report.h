// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The report of stackrec-bench-workloads: figures formatted for a table, a
// markdown table with padded columns, the check of every verified output
// against the workload, and a workload's comparison table with the spread
// of its runs.
#ifndef STACKREC_BENCH_WORKLOADS_REPORT_H_
#define STACKREC_BENCH_WORKLOADS_REPORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pprof_summary.h"
#include "workload.h"
#include "workloads_cases.h"
#include "workloads_harness.h"

namespace stackrec_bench {

// ---- Figures ----------------------------------------------------------------

double Median(std::vector<double> v);
// With thousands separators: 1,234,567.
std::string Thousands(double x, int decimals = 0);
std::string Fixed(double x, int decimals);
// A value for a table: ms with one decimal below 100, integers above.
std::string Ms(double ms);
std::string Bytes(double b);                                    // "1.92 MB"
std::string Ratio(double base, double ours);                    // "3.3×"; "–" without ours
std::string Range(const std::vector<double>& v, int decimals);  // "min–max"

// A markdown table with padded columns.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void Print() const {
    std::vector<size_t> width;
    for (const auto& r : rows_) {
      for (size_t i = 0; i < r.size(); ++i) {
        if (width.size() <= i) width.push_back(0);
        width[i] = std::max(width[i], Columns(r[i]));
      }
    }
    for (size_t k = 0; k < rows_.size(); ++k) {
      std::string line = "|";
      for (size_t i = 0; i < width.size(); ++i) {
        const std::string cell = i < rows_[k].size() ? rows_[k][i] : "";
        line += " " + cell + std::string(width[i] - Columns(cell), ' ') + " |";
      }
      std::printf("%s\n", line.c_str());
      if (k == 0) {
        std::string rule = "|";
        for (size_t w : width) rule += std::string(w + 2, '-') + "|";
        std::printf("%s\n", rule.c_str());
      }
    }
  }

 private:
  static size_t Columns(const std::string& s) {  // UTF-8 code points
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xc0) != 0x80;
    return n;
  }
  std::vector<std::vector<std::string>> rows_;
};

// Checks every verified output against the workload and each other.
bool Verify(const Workload& w, const std::vector<std::pair<std::string, PprofSummary>>& outputs,
            std::string* report);

// ---- A workload's comparison ----------------------------------------------------

// The targets per workload, the last column of its table: add, gzip ms,
// gzip bytes, zstd ms, MiB; and add by pre-interned stack id.
struct Targets {
  double add_ns, gzip_ms, gzip_mb, zstd_ms, mem_mib, ids_add_ns;
};

// Every run of one workload: the string path's by implementation, the id
// path's (the profile's and the recorder's) by implementation and mode.
struct WorkloadRuns {
  std::map<Impl, std::vector<Measurement>> runs;
  std::map<std::pair<Impl, IdMode>, std::vector<Measurement>> id_runs;

  // A figure of every run, in run order; its median.
  std::vector<double> Values(Impl impl, double Measurement::*field) const;
  std::vector<double> ByteValues(Impl impl, uint64_t Measurement::*field) const;
  std::vector<double> Memory(Impl impl) const;  // peak RSS − loaded RSS, MiB
  double Med(Impl impl, double Measurement::*field) const;
  std::vector<double> IdValues(Impl impl, IdMode mode, double Measurement::*field) const;
  double IdMed(Impl impl, IdMode mode, double Measurement::*field) const;
};

// Prints the comparison table (medians, ratios, targets), then the spread
// of the runs.
void PrintWorkloadTables(const WorkloadRuns& r, const Targets& t);

// Checks the recorder's distinct keys and, with `verify`, that every
// output of the first runs holds the workload (Verify); prints what it
// found. Returns false if a check failed.
bool CheckWorkloadRuns(const Workload& w, const WorkloadRuns& r, bool verify);

}  // namespace stackrec_bench

#endif  // STACKREC_BENCH_WORKLOADS_REPORT_H_
