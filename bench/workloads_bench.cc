// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The workload measurements: stackrec on the heavy and typical workloads
// (testkit/workloads/workload.h) beside the baseline a C++ programmer would write
// instead (testkit/workloads/baseline.h: generated profile.proto classes,
// unordered_map interning, SerializeToString, zlib), and how stackrec scales.
//
// The tables (the default):
//
//   build/release/bench/stackrec-bench-workloads [--reps=5] [--heavy-reps=3]
//       [--scaling-reps=3] [--format-reps=11]
//       [--only=typical,heavy,depth,keys,formats,budgets] [--no-verify]
//
//   --only also takes typical_sys and heavy_sys, not run by default: the
//   same workloads with every function's system name set to its name
//   (WithSystemNames in testkit/workloads/workload.h), three strings a frame.
//
//   For each workload and implementation (stackrec_profile_*, the two-slot
//   stackrec_recorder_*, the baseline):
//     add        ns per sample of the add/record call, string frames;
//                of which the first sample of each stack (which interns
//                it), per sample of the workload and per such call;
//     add by id  ns per sample of add_ids/record_ids, pre-interned: the
//                workload's functions, locations and stacks interned once
//                into a fresh profile or recorder before the timed loop
//                (not counted; that time is a row of its own), then each
//                sample by its stack id, or by its location ids;
//     serialize  ms to encode and compress: stackrec at its default levels
//                (gzip 1, zstd 1), the baseline SerializeToString + gzip 6
//                (the targets' reference), and gzip 1 for comparison;
//     bytes      of the output;
//     memory     peak RSS minus RSS once the workload is loaded.
//   Then the scaling runs (stackrec only): add ns/sample at stack
//   depths 8, 32, 128, 512 (typical's samples otherwise); serialize time and
//   peak memory at 1,000 to 1,000,000 distinct keys (heavy's stacks, one
//   sample per key).
//   Then the formats table: one profile of each workload serialized as
//   pprof and as OTLP (stackrec_serialize_options.format), gzip, zstd, none,
//   the formats taking turns within one process, --format-reps times each;
//   CPU ms (medians) and bytes, compressed and not.
//   Then the budgets table: the heavy profile serialized whole and split
//   into parts within each common backend's budget (docs/limits.md), the
//   two taking turns, --format-reps times each; CPU ms (medians), the parts
//   and the largest part, and the peak memory of one serialization of each
//   in a forked child.
//   Every figure is the median of --reps runs (heavy: --heavy-reps, scaling:
//   --scaling-reps), each in a fresh forked process; in each round the
//   implementations take turns, with an untimed stackrec child between the
//   baseline's and the next (see RunWorkload). A full run takes about
//   5 minutes of CPU: heavy gets 3 runs by default, since one takes ~55 s,
//   ~30 s of it the baseline's adds. On a machine busy with other work the
//   wall time grows with the load (the CPU share printed in the tables).
//
// Google Benchmark cases of the same measurements, in this process, with no
// memory figures:
//
//   build/release/bench/stackrec-bench-workloads --gbench [--benchmark_filter=...]
//
// and two more there: BM_AddKnown, the workload added a second time into
// the same profile (every key known: the lookups alone, no interning, no
// page faults), the steadiest figure for a change to the string path's
// lookups; and BM_SerializeParts, the heavy profile whole and in 4 MiB
// parts, one case at a time, for a profiler to look at.
//
// How, and why:
//  - Add. The sampler's buffer of frames is built fresh for every sample and
//    that is not the library's cost, so every call is timed on its own: the
//    stack's frames are copied into one reused stackrec_location buffer
//    (SampleBuilder), then the add call alone is bracketed by
//    lfence;rdtsc / rdtscp;lfence. The clock is calibrated against
//    steady_clock once, and the cost of an empty bracket (the least disturbed
//    of 21 rounds of 100,000) is subtracted. The figure is the mean over all
//    samples of the workload, first sightings included, as a profile sees
//    them; the 2,000 calls that set endpoints are not counted. Of that mean,
//    the calls over 10 µs are shown on rows of their own (kSlowCallNs): a
//    large table growing, a huge page's first fault, an interrupt. The recorder
//    is filled three times, with a flip after each fill: the first fill is
//    the reported one, the second goes to the other slot, the third back to
//    the first slot, which kept its tables (the steady state of a long-running
//    process, reported on its own rows). The id rows are timed the same way
//    (the same bracket, around add_ids/record_ids alone) in a process of
//    their own with a fresh profile or recorder (the recorder filled three
//    times too: the first fill reported, the second, into the slot that
//    interning did not import into, on a row of its own, the third its
//    steady state): the sample's stack id, values and labels are set
//    outside the bracket (IdSampleBuilder), and by location ids the stack's
//    ids are copied into one reused buffer there, as a sampler fills its
//    buffer.
//  - Time. The figures are CPU time, because the machines this runs on are
//    shared (the targets' is a 2-core machine that also builds): wall time
//    would count the slices the scheduler gives other processes. Serialize
//    is measured with the thread's CPU clock (stackrec serializes on the
//    calling thread). The add brackets measure wall time; preemptions fall
//    on the loop's parts in proportion to their length, so the calls' CPU
//    time is their wall time times the loop's CPU share (thread CPU time
//    over wall time; 1 on an idle machine; printed). Wall-time figures are
//    printed as well. Cache misses caused by other processes are not
//    removed: the header line gives the machine's load and the cost of a
//    dependent load that misses L2, at the start of the run.
//  - Serialize. A profile is serialized with gzip then zstd, its first and
//    second serialization; the recorder's gzip is fill 1's and its zstd
//    fill 2's, each the first of its slot. The baseline's figure is
//    SerializeToString plus gzip 6, the targets' reference; its gzip 1 is
//    shown too, at stackrec's default level.
//  - Memory. Each (workload, implementation, run) is measured in a child
//    forked once the workload is loaded, so peaks do not carry over. The
//    child returns free heap to the kernel (malloc_trim: memory the parent
//    freed must not be reused uncounted), resets its peak
//    (`echo 5 > /proc/self/clear_refs`), reads VmRSS as the loaded RSS, runs
//    the adds and serializations, and reads VmHWM. Outputs kept for
//    verification are parked in an unlinked temporary file, outside the RSS.
//  - Verification. In the first run of each implementation the outputs are
//    decompressed, parsed with the generated classes and summarized
//    (testkit/workloads/pprof_summary.h); the run fails unless every output holds the
//    workload's distinct keys and value totals, and all of them the same
//    content (an order-independent digest of frames, labels and values);
//    the id path's profiles (the recorder's first fill) are among them;
//    and that every function written has a system name, its name, in the
//    _sys workloads, and none in the others.
//
// The program's parts: this file holds the flags and the runs of each table
// (which children run, in which order, how many times);
// workloads_harness.h the clocks, the timed add loop, memory readings and
// the forked children; workloads_cases.h what one run of each
// implementation measures; workloads_report.h the tables and the
// verification; workloads_gbench.cc the Google Benchmark cases.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "workload.h"
#include "workloads_budgets.h"
#include "workloads_cases.h"
#include "workloads_formats.h"
#include "workloads_harness.h"
#include "workloads_report.h"

namespace stackrec_bench {
namespace {

struct Options {
  int reps = 5;
  int heavy_reps = 3;  // a heavy run takes ~55 s of CPU, most of it the baseline's
  int scaling_reps = 3;
  int format_reps = 11;
  bool verify = true;
  std::vector<std::string> only = {"typical", "heavy", "depth", "keys", "formats", "budgets"};
  bool Wants(const std::string& part) const {
    return std::find(only.begin(), only.end(), part) != only.end();
  }
};

// One round of a workload's runs, each in a child of its own: every
// implementation's string path, an untimed warm-up child, then every id
// mode of the profile and the recorder. With `verify`, the runs summarize
// their outputs. Returns false, having printed why, if a run failed.
bool RunRound(const Workload& w, int rep, bool verify, WorkloadRuns* r) {
  // The implementations take turns, so that a change in the machine's
  // load falls on all of them alike.
  for (Impl impl : kImpls) {
    const Measurement m = RunIsolated([&] { return Measure(impl, w, verify); });
    if (!m.ok) {
      std::printf("%s, run %d: FAILED: %s\n", ImplName(impl), rep + 1, m.error);
      return false;
    }
    r->runs[impl].push_back(m);
  }
  // An untimed stackrec child first: the first child after the baseline's
  // ran slower than its turn elsewhere. Typical's profile by stack id,
  // the row that used to follow the baseline: 125 / 125 ns a sample
  // without this child, 96 / 98 with it (the recorder's row: 107 / 98
  // and 101 / 98), and with the baseline's turn moved to the front the
  // profile's string add, then after it, was the slow one (630 ns
  // against the recorder's 518). A pause after the baseline did not
  // help; not traced further (docs/performance.md).
  const Measurement warm =
      RunIsolated([&] { return MeasureIds(Impl::kProfile, w, IdMode::kStackId, false); });
  if (!warm.ok) {
    std::printf("the warm-up child, run %d: FAILED: %s\n", rep + 1, warm.error);
    return false;
  }
  for (Impl impl : {Impl::kProfile, Impl::kRecorder}) {
    for (IdMode mode : kIdModes) {
      const Measurement m = RunIsolated([&] { return MeasureIds(impl, w, mode, verify); });
      if (!m.ok) {
        std::printf("%s by %s, run %d: FAILED: %s\n", ImplName(impl), IdModeName(mode), rep + 1,
                    m.error);
        return false;
      }
      r->id_runs[{impl, mode}].push_back(m);
    }
  }
  return true;
}

// Runs the comparison with the baseline on one workload and prints its
// table. Returns false if a run failed or the outputs did not verify.
bool RunWorkload(const WorkloadSpec& spec, int reps, const Options& opt, const Targets& t) {
  const auto gen_start = SteadyClock::now();
  std::unique_ptr<Workload> w(new Workload(spec));
  const double gen_ms = MsSince(gen_start);
  malloc_trim(0);
  std::printf(
      "\n## %s: %s\n(generated in %.1f s; %d run%s of each, medians; every run "
      "in a fresh process)\n\n",
      spec.name.c_str(), w->Describe().c_str(), gen_ms / 1000, reps, reps == 1 ? "" : "s");
  WorkloadRuns runs;
  for (int rep = 0; rep < reps; ++rep) {
    if (!RunRound(*w, rep, opt.verify && rep == 0, &runs)) return false;
    std::fprintf(stderr, "  %s: run %d of %d done\n", spec.name.c_str(), rep + 1, reps);
  }
  PrintWorkloadTables(runs, t);
  return CheckWorkloadRuns(*w, runs, opt.verify);
}

// Scaling: add ns/sample against stack depth.
bool RunDepthScaling(const Options& opt) {
  std::printf(
      "\n## scaling: add against stack depth (typical's samples, every stack "
      "of the given depth; %d runs, medians)\n\n",
      opt.scaling_reps);
  Table table({"depth", "profile ns/sample", "profile ns/frame", "recorder ns/sample",
               "recorder ns/frame", "distinct keys"});
  for (uint32_t depth : {8u, 32u, 128u, 512u}) {
    std::unique_ptr<Workload> w(new Workload(DepthSpec(depth)));
    malloc_trim(0);
    std::vector<double> p, r;
    for (int rep = 0; rep < opt.scaling_reps; ++rep) {
      const Measurement mp = RunIsolated([&] { return MeasureProfile(*w, false, false); });
      const Measurement mr = RunIsolated([&] { return MeasureRecorder(*w, false, false); });
      if (!mp.ok || !mr.ok) {
        std::printf("depth %u: FAILED: %s\n", depth, mp.ok ? mr.error : mp.error);
        return false;
      }
      p.push_back(mp.add_ns);
      r.push_back(mr.add_ns);
    }
    const double d = w->mean_sample_depth();
    table.Row({std::to_string(depth), Thousands(Median(p)), Fixed(Median(p) / d, 1),
               Thousands(Median(r)), Fixed(Median(r) / d, 1),
               Thousands(static_cast<double>(w->distinct_keys()))});
    std::fprintf(stderr, "  depth %u done\n", depth);
  }
  table.Print();
  return true;
}

// Scaling: serialize time and peak memory against the number of distinct keys.
bool RunKeyScaling(const Options& opt) {
  std::printf(
      "\n## scaling: serialize and memory against distinct keys (heavy's "
      "stacks, one sample per key; stackrec profile; %d runs, medians)\n\n",
      opt.scaling_reps);
  Table table({"distinct keys", "add ns/sample", "gzip ms", "gzip µs/key", "zstd ms", "zstd µs/key",
               "gzip bytes/key", "zstd bytes/key", "memory MiB", "memory bytes/key"});
  bool ok = true;
  for (size_t keys : {size_t{1000}, size_t{10000}, size_t{100000}, size_t{1000000}}) {
    std::unique_ptr<Workload> w(new Workload(KeysSpec(keys)));
    malloc_trim(0);
    std::vector<double> add, gz, zs, gzb, zsb, mem;
    for (int rep = 0; rep < opt.scaling_reps; ++rep) {
      const bool verify = opt.verify && rep == 0;
      const Measurement m = RunIsolated([&] { return MeasureProfile(*w, verify); });
      if (!m.ok) {
        std::printf("%zu keys: FAILED: %s\n", keys, m.error);
        return false;
      }
      if (verify) {
        std::string report;
        if (!Verify(*w, {{"gzip", m.summary[0]}, {"zstd", m.summary[1]}}, &report)) {
          std::printf("%zu keys: %s\n", keys, report.c_str());
          ok = false;
        }
      }
      add.push_back(m.add_ns);
      gz.push_back(m.gzip_ms);
      zs.push_back(m.zstd_ms);
      gzb.push_back(static_cast<double>(m.gzip_bytes));
      zsb.push_back(static_cast<double>(m.zstd_bytes));
      mem.push_back(m.peak_mib - m.loaded_mib);
    }
    const double k = static_cast<double>(keys);
    table.Row({Thousands(k), Thousands(Median(add)), Ms(Median(gz)),
               Fixed(Median(gz) * 1000 / k, 2), Ms(Median(zs)), Fixed(Median(zs) * 1000 / k, 2),
               Fixed(Median(gzb) / k, 1), Fixed(Median(zsb) / k, 1), Fixed(Median(mem), 1),
               Thousands(Median(mem) * 1048576 / k)});
    std::fprintf(stderr, "  %zu keys done\n", keys);
  }
  table.Print();
  std::printf(
      "\n(memory includes what does not grow with the keys: the program's strings, "
      "functions and locations, and the serializer's buffers)\n");
  return ok;
}

// pprof and OTLP side by side, on both workloads.
bool RunFormatTables(const Options& opt) {
  std::printf(
      "\n## formats: one profile encoded as pprof and as OTLP, at the same "
      "compression (%d runs each, taking turns; medians, CPU time)\n\n",
      opt.format_reps);
  Table table(kFormatsHeader);
  for (const WorkloadSpec& spec : {TypicalSpec(), HeavySpec()}) {
    if (!RunFormats(spec, opt.format_reps, &table)) return false;
    std::fprintf(stderr, "  formats: %s done\n", spec.name.c_str());
  }
  table.Print();
  return true;
}

// The heavy workload whole and split within each backend's budget.
bool RunBudgetTables(const Options& opt) {
  std::printf(
      "\n## budgets: one profile serialized whole and split into parts within a budget "
      "(%d runs each, taking turns; medians, CPU time; largest part: bytes / uncompressed / "
      "samples)\n\n",
      opt.format_reps);
  Table table(kBudgetsHeader);
  if (!RunBudgets(HeavySpec(), opt.format_reps, &table)) return false;
  table.Print();
  return true;
}

int RunTables(const Options& opt) {
  std::printf("# stackrec-bench-workloads\n\n");
  std::printf(
      "machine: %u CPUs, load average %s at the start; a dependent load costs "
      "%.0f ns within 1 MiB, %.0f ns within 64 MiB, a page fault %.1f µs (CPU time); "
      "clock %s at %.3f GHz, empty bracket %.1f ns (subtracted from every call)\n",
      std::thread::hardware_concurrency(), LoadAverage().c_str(), LoadLatencyNs(1),
      LoadLatencyNs(64), PageFaultUs(), kClockName, g_clock.ticks_per_ns,
      g_clock.overhead_ticks / g_clock.ticks_per_ns);
  const auto start = SteadyClock::now();
  bool ok = true;
  if (opt.Wants("typical")) {
    ok = RunWorkload(TypicalSpec(), opt.reps, opt, {500, 120, 5.6, 40, 20, 80}) && ok;
  }
  if (opt.Wants("heavy")) {
    ok = RunWorkload(HeavySpec(), opt.heavy_reps, opt, {700, 1000, 53, 300, 120, 150}) && ok;
  }
  // The same with system names (WithSystemNames): only when asked for.
  if (opt.Wants("typical_sys")) {
    ok = RunWorkload(WithSystemNames(TypicalSpec()), opt.reps, opt, {500, 120, 5.6, 40, 20, 80}) &&
         ok;
  }
  if (opt.Wants("heavy_sys")) {
    ok = RunWorkload(WithSystemNames(HeavySpec()), opt.heavy_reps, opt,
                     {700, 1000, 53, 300, 120, 150}) &&
         ok;
  }
  if (opt.Wants("depth")) ok = RunDepthScaling(opt) && ok;
  if (opt.Wants("keys")) ok = RunKeyScaling(opt) && ok;
  if (opt.Wants("formats")) ok = RunFormatTables(opt) && ok;
  if (opt.Wants("budgets")) ok = RunBudgetTables(opt) && ok;
  if (!g_peak_reset_ok) {
    std::printf(
        "\nwarning: /proc/self/clear_refs could not reset VmHWM; memory "
        "figures rely on the child's peak starting at its RSS after fork\n");
  }
  std::printf("\ntotal %.0f s; load average %s at the end\n", MsSince(start) / 1000,
              LoadAverage().c_str());
  return ok ? 0 : 1;
}

// Reads the flags into `opt`, `gbench` and, for Google Benchmark, `rest`.
// Returns false on a flag it does not know.
bool ParseFlags(int argc, char** argv, Options* opt, bool* gbench, std::vector<char*>* rest) {
  bool heavy_reps_set = false, scaling_reps_set = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (a == "--gbench") {
      *gbench = true;
    } else if (const char* v = value("--reps=")) {
      opt->reps = std::max(1, std::atoi(v));
    } else if (const char* v = value("--heavy-reps=")) {
      opt->heavy_reps = std::max(1, std::atoi(v));
      heavy_reps_set = true;
    } else if (const char* v = value("--scaling-reps=")) {
      opt->scaling_reps = std::max(1, std::atoi(v));
      scaling_reps_set = true;
    } else if (const char* v = value("--format-reps=")) {
      opt->format_reps = std::max(1, std::atoi(v));
    } else if (const char* v = value("--only=")) {
      opt->only.clear();
      std::string list = v;
      for (size_t pos = 0; pos <= list.size();) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        opt->only.push_back(list.substr(pos, comma - pos));
        pos = comma + 1;
      }
    } else if (a == "--no-verify") {
      opt->verify = false;
    } else if (*gbench || a.compare(0, 12, "--benchmark_") == 0) {
      rest->push_back(argv[i]);
    } else {
      return false;
    }
  }
  // --reps alone sets them all, up to the defaults of the slow parts.
  if (!heavy_reps_set) opt->heavy_reps = std::min(opt->heavy_reps, opt->reps);
  if (!scaling_reps_set) opt->scaling_reps = std::min(opt->scaling_reps, opt->reps);
  return true;
}

}  // namespace
}  // namespace stackrec_bench

int main(int argc, char** argv) {
  using namespace stackrec_bench;
  CalibrateClock();
  bool gbench = false;
  Options opt;
  std::vector<char*> rest = {argv[0]};
  if (!ParseFlags(argc, argv, &opt, &gbench, &rest)) {
    std::fprintf(
        stderr,
        "usage: %s [--reps=N] [--heavy-reps=N] [--scaling-reps=N] [--format-reps=N]\n"
        "          [--only=typical,heavy,depth,keys,formats,budgets,typical_sys,heavy_sys] "
        "[--no-verify]\n       %s --gbench [--benchmark_...]\n",
        argv[0], argv[0]);
    return 2;
  }
  if (gbench) {
    int n = static_cast<int>(rest.size());
    benchmark::Initialize(&n, rest.data());
    RegisterBenchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  return RunTables(opt);
}
