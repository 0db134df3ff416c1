// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The harness of stackrec-bench-workloads: clocks (thread CPU time, and the
// calibrated bracket each add call is timed in), the timed add loop, memory
// readings, the Measurement a run sends back, forked children to run it in,
// and figures of the machine for the header line. workloads_bench.cc says
// what is measured and why this way.
#ifndef STACKREC_BENCH_WORKLOADS_HARNESS_H_
#define STACKREC_BENCH_WORKLOADS_HARNESS_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pprof_summary.h"
#include "stackrec/stackrec.h"
#include "workload.h"

namespace stackrec_bench {

using SteadyClock = std::chrono::steady_clock;

double MsSince(SteadyClock::time_point start);

// CPU time of the calling thread. On a machine shared with other work, wall
// time also counts the time the scheduler gave to other processes; CPU time
// does not (see "Time" at the top of workloads_bench.cc).
double ThreadCpuMs();

// Both clocks from one start.
class Stopwatch {
 public:
  Stopwatch() : wall_(SteadyClock::now()), cpu_(ThreadCpuMs()) {}
  double CpuMs() const { return ThreadCpuMs() - cpu_; }
  double WallMs() const { return MsSince(wall_); }

 private:
  SteadyClock::time_point wall_;
  double cpu_;
};

// ---- Timing one call --------------------------------------------------------

// Brackets that keep the measured call between them: lfence waits for what
// came before (the sampler's copy) to finish, rdtscp for the call's own
// instructions; the "memory" clobbers stop the compiler from moving the copy
// in or the call out.
#if defined(__x86_64__)
inline uint64_t ClockBegin() {
  uint32_t lo, hi;
  asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
  return uint64_t{hi} << 32 | lo;
}
inline uint64_t ClockEnd() {
  uint32_t lo, hi;
  asm volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
  return uint64_t{hi} << 32 | lo;
}
constexpr const char* kClockName = "TSC";
#else
inline uint64_t ClockNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch())
          .count());
}
inline uint64_t ClockBegin() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return ClockNs();
}
inline uint64_t ClockEnd() {
  const uint64_t t = ClockNs();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return t;
}
constexpr const char* kClockName = "steady_clock";
#endif

struct ClockCalibration {
  double ticks_per_ns = 1;
  double overhead_ticks = 0;  // of an empty ClockBegin/ClockEnd pair
};
extern ClockCalibration g_clock;  // set in main, before any fork

// Measures the clock's rate and the cost of an empty bracket into g_clock.
void CalibrateClock();

struct AddTiming {
  bool ok;
  double ns;         // per sample, CPU time
  double wall_ns;    // per sample, wall time
  double cpu_share;  // of the loop: thread CPU time / wall time
  // Of `ns`, the calls that brought a stack the loop had not passed yet
  // (the first sample of each stack), per sample of the whole loop; and
  // what one such call took, CPU time as well.
  double first_sightings_ns;
  double first_sighting_each_ns;
  double first_sightings;  // how many: the stacks the workload samples
  // Page faults of the loop (the calls' and the sampler side's): memory
  // touched for the first time, which the adds pay for in the kernel.
  double page_faults;
  // Of `ns`, the calls that took over kSlowCallNs (a table growing, a huge
  // page faulted in, an interrupt taken), per sample; and how many.
  double slow_calls_ns;
  double slow_calls;
};

// A call this long is not an add's usual work: on the VM the targets' table
// was measured on, a known stack's call takes under 1 µs and a new stack's
// 2 to 4 µs, while a 2 MiB huge page's first fault takes 0.1 to 3 ms, the
// key index's doubling to 131,072 slots 0.2 ms, and an interrupt 20 to 90 µs.
constexpr double kSlowCallNs = 10000;

// Minor and major page faults of the calling thread so far.
double ThreadPageFaults();

// Adds every tick of `w` through add(sample), timing each call alone, and
// returns the mean per sample. set_endpoint is called, untimed, at each
// span's first sample.
//
// The brackets measure wall time, which on a loaded machine includes the
// slices the scheduler gave to other processes while a call ran. Those fall
// on the loop's parts in proportion to their length, so the calls' CPU time
// is their wall time times the loop's CPU share (thread CPU time over wall
// time, 1 on an idle machine).
//
// `builder` turns a tick into the call's argument, outside the bracket: a
// SampleBuilder (string frames) or an IdSampleBuilder (pre-interned ids).
template <typename Builder, typename Add, typename SetEndpoint>
AddTiming TimedAddsWith(const Workload& w, Builder& builder, Add&& add,
                        SetEndpoint&& set_endpoint) {
  uint64_t ticks = 0, first_ticks = 0, firsts = 0, slow_ticks = 0, slow_calls = 0;
  const double slow_call_ticks = kSlowCallNs * g_clock.ticks_per_ns + g_clock.overhead_ticks;
  std::vector<bool> seen(w.stacks());
  const double faults_before = ThreadPageFaults();
  const Stopwatch loop;
  for (const Tick& tick : w.ticks()) {
    if ((tick.flags & Tick::kSpanStarts) &&
        !set_endpoint(w.span_id(tick.span), Str(w.span_endpoint(tick.span)))) {
      return {};
    }
    const auto& sample = builder.Build(tick);
    const uint64_t begin = ClockBegin();
    const bool ok = add(sample);
    const uint64_t end = ClockEnd();
    if (!ok) return {};
    ticks += end - begin;
    if (static_cast<double>(end - begin) > slow_call_ticks) {
      slow_ticks += end - begin;
      ++slow_calls;
    }
    if (!seen[tick.stack]) {
      seen[tick.stack] = true;
      first_ticks += end - begin;
      ++firsts;
    }
  }
  AddTiming t;
  t.ok = true;
  t.page_faults = ThreadPageFaults() - faults_before;
  t.cpu_share = std::min(1.0, loop.CpuMs() / loop.WallMs());
  const double samples = static_cast<double>(w.ticks().size());
  const double per_call = static_cast<double>(ticks) / samples;
  t.wall_ns = (per_call - g_clock.overhead_ticks) / g_clock.ticks_per_ns;
  t.ns = t.wall_ns * t.cpu_share;
  // The wall time of `calls` calls that took `calls_ticks` in all, each
  // bracket's own cost taken off.
  auto wall_ns_of = [](uint64_t calls_ticks, uint64_t calls) {
    return (static_cast<double>(calls_ticks) -
            g_clock.overhead_ticks * static_cast<double>(calls)) /
           g_clock.ticks_per_ns;
  };
  const double first_wall_ns = wall_ns_of(first_ticks, firsts);
  t.first_sightings_ns = first_wall_ns / samples * t.cpu_share;
  t.first_sighting_each_ns =
      firsts == 0 ? 0 : first_wall_ns / static_cast<double>(firsts) * t.cpu_share;
  t.first_sightings = static_cast<double>(firsts);
  t.slow_calls_ns = wall_ns_of(slow_ticks, slow_calls) / samples * t.cpu_share;
  t.slow_calls = static_cast<double>(slow_calls);
  return t;
}

template <typename Add, typename SetEndpoint>
AddTiming TimedAdds(const Workload& w, Add&& add, SetEndpoint&& set_endpoint) {
  SampleBuilder builder(w);
  return TimedAddsWith(w, builder, add, set_endpoint);
}

// Adds every tick of `w` to `p`, untimed, each span's endpoint at its first
// sample: a profile to serialize. False at the first call that fails
// (stackrec_last_error() says why).
bool FillProfile(const Workload& w, stackrec_profile* p);

using ProfilePtr = std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)>;
// A profile of ProfileOptions() holding `spec`'s workload (built here and
// dropped once added); null if a call failed (stackrec_last_error() says
// which).
ProfilePtr FilledProfile(const WorkloadSpec& spec);

// ---- Memory -----------------------------------------------------------------

// A field of /proc/self/status ("VmRSS", "VmHWM") in MiB; -1 if unreadable.
double StatusMiB(const char* field);

// Resets VmHWM to the current RSS (Linux 4.0+).
bool ResetPeakRss();

// Outputs kept for verification, parked in an unlinked temporary file so
// they do not count in the RSS of the child that made them.
class Parking {
 public:
  Parking() : file_(std::tmpfile()) {}
  ~Parking() {
    if (file_ != nullptr) std::fclose(file_);
  }
  void Put(const uint8_t* data, size_t size) {
    if (file_ == nullptr) return;
    std::fseek(file_, 0, SEEK_END);
    spans_.push_back({std::ftell(file_), size});
    std::fwrite(data, 1, size, file_);
  }
  std::string Get(size_t i) {
    std::string out(spans_[i].second, '\0');
    std::fflush(file_);
    std::fseek(file_, spans_[i].first, SEEK_SET);
    if (std::fread(&out[0], 1, out.size(), file_) != out.size()) out.clear();
    return out;
  }
  size_t size() const { return spans_.size(); }

 private:
  FILE* file_;
  std::vector<std::pair<long, size_t>> spans_;
};

// ---- One measurement --------------------------------------------------------

// What one run measures. Trivially copyable: a child sends it to the parent.
struct Measurement {
  bool ok;
  char error[256];
  // Times are CPU times of the measuring thread (see "Time" at the top);
  // the *_wall fields are the same in wall time.
  double add_ns;  // ns/sample: the profile, the recorder's first fill, the baseline
  double add_wall_ns;
  double cpu_share;               // of the first add loop
  double first_sightings_ns;      // of add_ns: first sightings (see AddTiming)
  double first_sighting_each_ns;  // what one took
  double first_sightings;         // how many
  double page_faults;             // during those adds
  double slow_calls_ns;           // of add_ns: calls over kSlowCallNs (see AddTiming)
  double slow_calls;              // how many
  double add2_ns;                 // the recorder's second fill (into the other slot)
  double add3_ns;                 // the recorder's third fill: steady state (see MeasureRecorder)
  double intern_ms;               // the id path: interning the workload once (not in add_ns)
  double gzip_ms;  // stackrec: gzip default level; baseline: SerializeToString + gzip 6
  double gzip_wall_ms;
  double zstd_ms;   // stackrec only, zstd default level
  double none_ms;   // stackrec profile, uncompressed (after the memory reading)
  double pb_ms;     // baseline: SerializeToString
  double gzip6_ms;  // baseline: gzip 6 of that
  double gzip1_ms;  // baseline: gzip 1 of that (after the memory reading)
  uint64_t gzip_bytes, zstd_bytes, none_bytes, gzip1_bytes;
  uint64_t recorder_keys;  // stats: last_distinct_keys of the first serialization
  double loaded_mib, peak_mib;
  int summaries;
  PprofSummary summary[2];
};

// The first fill's figures of `t` into `m`.
void TakeFirstFill(const AddTiming& t, Measurement* m);

// A failed Measurement: `what`, and stackrec's message for it.
Measurement Failed(const char* what);

// Serializes through `serialize` (timed), parks the output if verifying.
template <typename Serialize>
bool TimedSerialize(Serialize&& serialize, double* ms, uint64_t* bytes, Parking* parking,
                    double* wall_ms = nullptr) {
  stackrec_encoded* out = nullptr;
  const Stopwatch watch;
  const bool ok = serialize(&out);
  *ms = watch.CpuMs();
  if (wall_ms != nullptr) *wall_ms = watch.WallMs();
  if (!ok) return false;
  *bytes = stackrec_encoded_size(out);
  if (parking != nullptr) parking->Put(stackrec_encoded_data(out), *bytes);
  stackrec_encoded_free(out);
  return true;
}

// Serialize options of a compression (at its default level) and a format.
inline stackrec_serialize_options SerializeWith(stackrec_compression compression,
                                                stackrec_format format = STACKREC_FORMAT_PPROF) {
  stackrec_serialize_options o{};
  o.compression = compression;
  o.format = format;
  return o;
}

// The first two outputs parked, decompressed and summarized into m.summary.
void SummarizeParked(Parking& parking, Measurement& m);

// ---- Fresh processes ----------------------------------------------------------

// Cleared in a child whose peak RSS could not be reset: that child's copy
// only, so RunTables's warning, which reads the parent's, never fires.
extern bool g_peak_reset_ok;

// Runs fn() in a forked child and returns its Measurement, with loaded_mib
// the child's RSS before fn ran.
Measurement RunIsolated(const std::function<Measurement()>& fn);

// ---- The machine --------------------------------------------------------------

// CPU ns of a dependent load from a random place in `mib` MiB: what a
// cache miss costs on this machine, now (it rises with other processes'
// use of the shared caches and memory).
double LoadLatencyNs(size_t mib);

// CPU µs of the first touch of a 4 KiB page of fresh anonymous memory (a
// page fault): what memory a fill touches for the first time costs on
// this machine, beside the page-fault counts of the tables. (A virtual
// machine's page faults may cost tens of times a physical one's.)
double PageFaultUs();

// The 1, 5 and 15 minute load averages, as /proc/loadavg gives them.
std::string LoadAverage();

}  // namespace stackrec_bench

#endif  // STACKREC_BENCH_WORKLOADS_HARNESS_H_
