// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The workload measurements: stackrec on the heavy and typical workloads
// (workloads/workload.h) beside the baseline a C++ programmer would write
// instead (workloads/baseline.h: generated profile.proto classes,
// unordered_map interning, SerializeToString, zlib), and how stackrec scales.
//
// The tables (the default):
//
//   build/release/bench/stackrec-bench-workloads [--reps=5] [--heavy-reps=3]
//       [--scaling-reps=3] [--only=typical,heavy,depth,keys] [--no-verify]
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
// and one more there: BM_AddKnown, the workload added a second time into the
// same profile (every key known: the lookups alone, no interning, no page
// faults), the steadiest figure for a change to the string path's lookups.
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
//    (workloads/pprof_summary.h); the run fails unless every output holds the
//    workload's distinct keys and value totals, and all of them the same
//    content (an order-independent digest of frames, labels and values);
//    the id path's profiles (the recorder's first fill) are among them.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "baseline.h"
#include "pprof_summary.h"
#include "stackrec/stackrec.h"
#include "workload.h"

namespace stackrec_bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

double MsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

// CPU time of the calling thread. On a machine shared with other work, wall
// time also counts the time the scheduler gave to other processes; CPU time
// does not (see "Time" at the top).
double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

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
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   SteadyClock::now().time_since_epoch())
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
ClockCalibration g_clock;  // set in main, before any fork

void CalibrateClock() {
  const auto t0 = SteadyClock::now();
  const uint64_t c0 = ClockBegin();
  while (SteadyClock::now() - t0 < std::chrono::milliseconds(200)) {
  }
  const uint64_t c1 = ClockEnd();
  const auto t1 = SteadyClock::now();
  g_clock.ticks_per_ns = static_cast<double>(c1 - c0) /
                         std::chrono::duration<double, std::nano>(t1 - t0).count();
  std::vector<double> means;
  for (int round = 0; round < 21; ++round) {
    uint64_t sum = 0;
    constexpr int kPairs = 100000;
    for (int i = 0; i < kPairs; ++i) {
      const uint64_t b = ClockBegin();
      const uint64_t e = ClockEnd();
      sum += e - b;
    }
    means.push_back(static_cast<double>(sum) / kPairs);
  }
  // The least disturbed round: a round the scheduler interrupted is longer.
  g_clock.overhead_ticks = *std::min_element(means.begin(), means.end());
}

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
double ThreadPageFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_minflt + usage.ru_majflt);
}

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

// ---- Memory -----------------------------------------------------------------

// A field of /proc/self/status ("VmRSS", "VmHWM") in MiB; -1 if unreadable.
double StatusMiB(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  double mib = -1;
  const size_t len = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, len) == 0 && line[len] == ':') {
      mib = std::strtod(line + len + 1, nullptr) / 1024.0;  // kB
      break;
    }
  }
  std::fclose(f);
  return mib;
}

// Resets VmHWM to the current RSS (Linux 4.0+).
bool ResetPeakRss() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

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

enum class Impl { kProfile, kRecorder, kBaseline };
constexpr Impl kImpls[] = {Impl::kProfile, Impl::kRecorder, Impl::kBaseline};
const char* ImplName(Impl impl) {
  switch (impl) {
    case Impl::kProfile: return "stackrec profile";
    case Impl::kRecorder: return "stackrec recorder";
    case Impl::kBaseline: return "baseline";
  }
  return "?";
}

// What one run measures. Trivially copyable: a child sends it to the parent.
struct Measurement {
  bool ok;
  char error[256];
  // Times are CPU times of the measuring thread (see "Time" at the top);
  // the *_wall fields are the same in wall time.
  double add_ns;     // ns/sample: the profile, the recorder's first fill, the baseline
  double add_wall_ns;
  double cpu_share;  // of the first add loop
  double first_sightings_ns;      // of add_ns: first sightings (see AddTiming)
  double first_sighting_each_ns;  // what one took
  double first_sightings;         // how many
  double page_faults;             // during those adds
  double slow_calls_ns;           // of add_ns: calls over kSlowCallNs (see AddTiming)
  double slow_calls;              // how many
  double add2_ns;    // the recorder's second fill (into the other slot)
  double add3_ns;    // the recorder's third fill: steady state (see MeasureRecorder)
  double intern_ms;  // the id path: interning the workload once (not in add_ns)
  double gzip_ms;    // stackrec: gzip default level; baseline: SerializeToString + gzip 6
  double gzip_wall_ms;
  double zstd_ms;    // stackrec only, zstd default level
  double none_ms;    // stackrec profile, uncompressed (after the memory reading)
  double pb_ms;      // baseline: SerializeToString
  double gzip6_ms;   // baseline: gzip 6 of that
  double gzip1_ms;   // baseline: gzip 1 of that (after the memory reading)
  uint64_t gzip_bytes, zstd_bytes, none_bytes, gzip1_bytes;
  uint64_t recorder_keys;  // stats: last_distinct_keys of the first serialization
  double loaded_mib, peak_mib;
  int summaries;
  PprofSummary summary[2];
};

// The first fill's figures of `t` into `m`.
void TakeFirstFill(const AddTiming& t, Measurement* m) {
  m->add_ns = t.ns;
  m->add_wall_ns = t.wall_ns;
  m->cpu_share = t.cpu_share;
  m->first_sightings_ns = t.first_sightings_ns;
  m->first_sighting_each_ns = t.first_sighting_each_ns;
  m->first_sightings = t.first_sightings;
  m->page_faults = t.page_faults;
  m->slow_calls_ns = t.slow_calls_ns;
  m->slow_calls = t.slow_calls;
}

Measurement Failed(const char* what) {
  Measurement m = {};
  std::snprintf(m.error, sizeof m.error, "%s: %s", what, stackrec_last_error());
  return m;
}

// Serializes through `serialize` (timed), parks the output if verifying.
template <typename Serialize>
bool TimedSerialize(Serialize&& serialize, double* ms, uint64_t* bytes,
                    Parking* parking, double* wall_ms = nullptr) {
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

void SummarizeParked(Parking& parking, Measurement& m) {
  m.summaries = static_cast<int>(std::min<size_t>(parking.size(), 2));
  for (int i = 0; i < m.summaries; ++i) {
    const std::string bytes = parking.Get(static_cast<size_t>(i));
    m.summary[i] = Summarize(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
}

const stackrec_serialize_options kGzip = {STACKREC_COMPRESSION_GZIP, 0};
const stackrec_serialize_options kZstd = {STACKREC_COMPRESSION_ZSTD, 0};
const stackrec_serialize_options kNone = {STACKREC_COMPRESSION_NONE, 0};

Measurement MeasureProfile(const Workload& w, bool verify, bool serialize = true) {
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) return Failed("stackrec_profile_new");
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner(p, stackrec_profile_free);
  Measurement m = {};
  const AddTiming t = TimedAdds(
      w, [p](const stackrec_sample& s) { return stackrec_profile_add(p, &s) == STACKREC_OK; },
      [p](uint64_t span, stackrec_str endpoint) {
        return stackrec_profile_set_endpoint(p, span, endpoint) == STACKREC_OK;
      });
  if (!t.ok) return Failed("stackrec_profile_add");
  TakeFirstFill(t, &m);
  Parking parking;
  Parking* park = verify ? &parking : nullptr;
  if (serialize) {
    auto with = [p](const stackrec_serialize_options& o) {
      return [p, &o](stackrec_encoded** out) {
        return stackrec_profile_serialize(p, &o, out) == STACKREC_OK;
      };
    };
    if (!TimedSerialize(with(kGzip), &m.gzip_ms, &m.gzip_bytes, park, &m.gzip_wall_ms)) {
      return Failed("stackrec_profile_serialize gzip");
    }
    if (!TimedSerialize(with(kZstd), &m.zstd_ms, &m.zstd_bytes, park)) {
      return Failed("stackrec_profile_serialize zstd");
    }
    m.peak_mib = StatusMiB("VmHWM");
    if (!TimedSerialize(with(kNone), &m.none_ms, &m.none_bytes, nullptr)) {
      return Failed("stackrec_profile_serialize none");
    }
  } else {
    m.peak_mib = StatusMiB("VmHWM");
  }
  owner.reset();
  if (verify) SummarizeParked(parking, m);
  m.ok = true;
  return m;
}

Measurement MeasureRecorder(const Workload& w, bool verify, bool serialize = true) {
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_recorder* r = nullptr;
  if (stackrec_recorder_new(&opts, &r) != STACKREC_OK) return Failed("stackrec_recorder_new");
  std::unique_ptr<stackrec_recorder, void (*)(stackrec_recorder*)> owner(r, stackrec_recorder_free);
  auto record = [r](const stackrec_sample& s) {
    return stackrec_recorder_record(r, &s) == STACKREC_OK;
  };
  auto endpoint = [r](uint64_t span, stackrec_str e) {
    return stackrec_recorder_record_endpoint(r, span, e) == STACKREC_OK;
  };
  auto with = [r](const stackrec_serialize_options& o) {
    return [r, &o](stackrec_encoded** out) {
      return stackrec_recorder_serialize(r, &o, out) == STACKREC_OK;
    };
  };
  Measurement m = {};
  Parking parking;
  Parking* park = verify ? &parking : nullptr;
  const AddTiming t = TimedAdds(w, record, endpoint);
  if (!t.ok) return Failed("stackrec_recorder_record");
  TakeFirstFill(t, &m);
  if (serialize) {
    if (!TimedSerialize(with(kGzip), &m.gzip_ms, &m.gzip_bytes, park, &m.gzip_wall_ms)) {
      return Failed("stackrec_recorder_serialize gzip");
    }
    stackrec_stats stats = {};
    if (stackrec_recorder_stats(r, &stats) != STACKREC_OK) return Failed("stackrec_recorder_stats");
    m.recorder_keys = stats.last_distinct_keys;
  }
  const AddTiming t2 = TimedAdds(w, record, endpoint);
  if (!t2.ok) return Failed("stackrec_recorder_record (second fill)");
  m.add2_ns = t2.ns;
  if (serialize &&
      !TimedSerialize(with(kZstd), &m.zstd_ms, &m.zstd_bytes, park)) {
    return Failed("stackrec_recorder_serialize zstd");
  }
  m.peak_mib = StatusMiB("VmHWM");
  // The third fill goes back to the first slot, which kept the tables of
  // its interval (strings, functions, locations, stacks, label sets): what
  // a sampler meets in a long-running process, every interval but the
  // first two. After the memory reading, so that figure is unchanged.
  // (Without serializations there are no flips and no steady state.)
  if (serialize) {
    const AddTiming t3 = TimedAdds(w, record, endpoint);
    if (!t3.ok) return Failed("stackrec_recorder_record (third fill)");
    m.add3_ns = t3.ns;
  }
  owner.reset();
  if (verify) SummarizeParked(parking, m);
  m.ok = true;
  return m;
}

// ---- The id path ---------------------------------------------------------------

// By stack id with the labels as strings, by stack id and label-set id (a
// sampler that keeps its thread's and request's label set interned), by
// location ids with the labels as strings.
enum class IdMode { kStackId, kStackAndLabelsIds, kLocationIds };
constexpr IdMode kIdModes[] = {IdMode::kStackId, IdMode::kStackAndLabelsIds,
                               IdMode::kLocationIds};
const char* IdModeName(IdMode mode) {
  switch (mode) {
    case IdMode::kStackId: return "stack id";
    case IdMode::kStackAndLabelsIds: return "stack id and label-set id";
    case IdMode::kLocationIds: return "location ids";
  }
  return "";
}
// The same, as a benchmark name's last part.
const char* IdModeKey(IdMode mode) {
  switch (mode) {
    case IdMode::kStackId: return "stack_id";
    case IdMode::kStackAndLabelsIds: return "stack_and_labels_ids";
    case IdMode::kLocationIds: return "location_ids";
  }
  return "";
}

bool IsEmpty(const stackrec_mapping& m) {
  return m.memory_start == 0 && m.memory_limit == 0 && m.file_offset == 0 &&
         m.filename.len == 0 && m.build_id.len == 0;
}
bool IsEmpty(const stackrec_function& f) {
  return f.name.len == 0 && f.system_name.len == 0 && f.filename.len == 0 && f.start_line == 0;
}

// The workload's mappings, functions, locations, stacks and label sets
// interned into one profile or recorder, as a runtime does once ahead of
// sampling: the ids of every location (by index), stack, thread's label set
// outside requests and span's label set. Interning an equal function again
// returns its id, so each location's function is simply interned.
struct Interned {
  std::vector<uint32_t> location_ids, stack_ids;
  LabelSetIds label_sets;
};

template <typename Mapping, typename Function, typename Location, typename Stack,
          typename Labels>
bool InternWorkload(const Workload& w, Interned* out, Mapping&& intern_mapping,
                    Function&& intern_function, Location&& intern_location,
                    Stack&& intern_stack, Labels&& intern_labels) {
  out->location_ids.reserve(w.locations().size());
  for (const stackrec_location& loc : w.locations()) {
    stackrec_interned_location l = {};
    if (!IsEmpty(loc.mapping) && intern_mapping(&loc.mapping, &l.mapping_id) != STACKREC_OK) {
      return false;
    }
    if (!IsEmpty(loc.function) &&
        intern_function(&loc.function, &l.function_id) != STACKREC_OK) {
      return false;
    }
    l.address = loc.address;
    l.line = loc.line;
    l.inlined = loc.inlined;
    uint32_t id = 0;
    if (intern_location(&l, &id) != STACKREC_OK) return false;
    out->location_ids.push_back(id);
  }
  std::vector<uint32_t> ids(w.max_depth());
  out->stack_ids.reserve(w.stacks());
  for (size_t s = 0; s < w.stacks(); ++s) {
    const uint32_t* index = w.frames(s);
    for (uint32_t i = 0; i < w.depth(s); ++i) ids[i] = out->location_ids[index[i]];
    uint32_t id = 0;
    if (intern_stack(ids.data(), size_t{w.depth(s)}, &id) != STACKREC_OK) return false;
    out->stack_ids.push_back(id);
  }
  // The label sets the ticks use (a sampler interns its thread's once, and
  // a request's when it starts).
  LabelSetIds& sets = out->label_sets;
  stackrec_label labels[3] = {};
  for (const Tick& tick : w.ticks()) {
    uint32_t& id = tick.span == Tick::kNoSpan ? sets.thread[tick.thread] : sets.span[tick.span];
    if (id != 0) continue;
    const size_t n = FillLabels(w, tick, labels);
    if (intern_labels(labels, n, &id) != STACKREC_OK) return false;
  }
  return true;
}

// The add row by id: a fresh profile or recorder, the workload interned into
// it (timed on its own as intern_ms), then every tick added by id exactly as
// TimedAdds times the string path. With `verify`, the profile (the
// recorder's first fill) is serialized with gzip and summarized.
Measurement MeasureIds(Impl impl, const Workload& w, IdMode mode, bool verify) {
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  stackrec_recorder* r = nullptr;
  if (impl == Impl::kProfile) {
    if (stackrec_profile_new(&opts, &p) != STACKREC_OK) return Failed("stackrec_profile_new");
  } else if (stackrec_recorder_new(&opts, &r) != STACKREC_OK) {
    return Failed("stackrec_recorder_new");
  }
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner_p(p, stackrec_profile_free);
  std::unique_ptr<stackrec_recorder, void (*)(stackrec_recorder*)> owner_r(r,
                                                                          stackrec_recorder_free);
  Measurement m = {};
  Interned interned;
  const Stopwatch intern_watch;
  const bool interned_ok =
      p != nullptr
          ? InternWorkload(
                w, &interned,
                [p](const stackrec_mapping* x, uint32_t* id) {
                  return stackrec_profile_intern_mapping(p, x, id);
                },
                [p](const stackrec_function* x, uint32_t* id) {
                  return stackrec_profile_intern_function(p, x, id);
                },
                [p](const stackrec_interned_location* x, uint32_t* id) {
                  return stackrec_profile_intern_location(p, x, id);
                },
                [p](const uint32_t* x, size_t n, uint32_t* id) {
                  return stackrec_profile_intern_stack(p, x, n, id);
                },
                [p](const stackrec_label* x, size_t n, uint32_t* id) {
                  return stackrec_profile_intern_labels(p, x, n, id);
                })
          : InternWorkload(
                w, &interned,
                [r](const stackrec_mapping* x, uint32_t* id) {
                  return stackrec_recorder_intern_mapping(r, x, id);
                },
                [r](const stackrec_function* x, uint32_t* id) {
                  return stackrec_recorder_intern_function(r, x, id);
                },
                [r](const stackrec_interned_location* x, uint32_t* id) {
                  return stackrec_recorder_intern_location(r, x, id);
                },
                [r](const uint32_t* x, size_t n, uint32_t* id) {
                  return stackrec_recorder_intern_stack(r, x, n, id);
                },
                [r](const stackrec_label* x, size_t n, uint32_t* id) {
                  return stackrec_recorder_intern_labels(r, x, n, id);
                });
  m.intern_ms = intern_watch.CpuMs();
  if (!interned_ok) return Failed("interning the workload");
  IdSampleBuilder builder(w, interned.stack_ids, interned.location_ids,
                          mode == IdMode::kLocationIds,
                          mode == IdMode::kStackAndLabelsIds ? &interned.label_sets : nullptr);
  const AddTiming t =
      p != nullptr
          ? TimedAddsWith(
                w, builder,
                [p](const stackrec_id_sample& s) {
                  return stackrec_profile_add_ids(p, &s) == STACKREC_OK;
                },
                [p](uint64_t span, stackrec_str endpoint) {
                  return stackrec_profile_set_endpoint(p, span, endpoint) == STACKREC_OK;
                })
          : TimedAddsWith(
                w, builder,
                [r](const stackrec_id_sample& s) {
                  return stackrec_recorder_record_ids(r, &s) == STACKREC_OK;
                },
                [r](uint64_t span, stackrec_str endpoint) {
                  return stackrec_recorder_record_endpoint(r, span, endpoint) == STACKREC_OK;
                });
  if (!t.ok) return Failed(p != nullptr ? "stackrec_profile_add_ids" : "stackrec_recorder_record_ids");
  TakeFirstFill(t, &m);
  if (verify) {
    stackrec_encoded* out = nullptr;
    const stackrec_status st = p != nullptr ? stackrec_profile_serialize(p, &kGzip, &out)
                                            : stackrec_recorder_serialize(r, &kGzip, &out);
    if (st != STACKREC_OK) return Failed("serializing the id path's profile");
    m.summaries = 1;
    m.summary[0] = Summarize(stackrec_encoded_data(out), stackrec_encoded_size(out));
    stackrec_encoded_free(out);
  }
  if (r != nullptr) {
    // The recorder's steady state, as in MeasureRecorder: a second fill
    // into the other slot, then the third back in the first slot, which
    // kept what it imported from the dictionary. Both are timed: interning
    // imported the workload into the first slot only, so the second fill
    // is the one that imports stacks and label sets at their first use.
    auto flip = [r]() {
      stackrec_encoded* out = nullptr;
      const bool ok = stackrec_recorder_serialize(r, &kGzip, &out) == STACKREC_OK;
      stackrec_encoded_free(out);
      return ok;
    };
    auto record = [r](const stackrec_id_sample& s) {
      return stackrec_recorder_record_ids(r, &s) == STACKREC_OK;
    };
    auto endpoint = [r](uint64_t span, stackrec_str e) {
      return stackrec_recorder_record_endpoint(r, span, e) == STACKREC_OK;
    };
    if (!verify && !flip()) return Failed("the id path's first serialization");
    const AddTiming t2 = TimedAddsWith(w, builder, record, endpoint);
    if (!t2.ok || !flip()) return Failed("the id path's second fill");
    m.add2_ns = t2.ns;
    const AddTiming t3 = TimedAddsWith(w, builder, record, endpoint);
    if (!t3.ok) return Failed("the id path's third fill");
    m.add3_ns = t3.ns;
  }
  m.ok = true;
  return m;
}

AddTiming BaselineAdds(const Workload& w, BaselineProfile& b) {
  return TimedAdds(
      w, [&b](const stackrec_sample& s) { return b.Add(s); },
      [&b](uint64_t span, stackrec_str e) {
        b.SetEndpoint(span, std::string_view(e.ptr, e.len));
        return true;
      });
}

Measurement MeasureBaseline(const Workload& w, bool verify) {
  Measurement m = {};
  std::string gz;
  {
    BaselineProfile b(ProfileOptions());
    const AddTiming t = BaselineAdds(w, b);
    if (!t.ok) return Failed("BaselineProfile::Add");
    TakeFirstFill(t, &m);
    const Stopwatch watch;
    const std::string pb = b.Serialize();
    m.pb_ms = watch.CpuMs();
    gz = Gzip(pb, 6);
    m.gzip_ms = watch.CpuMs();
    m.gzip_wall_ms = watch.WallMs();
    m.gzip6_ms = m.gzip_ms - m.pb_ms;
    m.gzip_bytes = gz.size();
    m.peak_mib = StatusMiB("VmHWM");
    const Stopwatch watch1;
    const std::string gz1 = Gzip(pb, 1);
    m.gzip1_ms = watch1.CpuMs();
    m.gzip1_bytes = gz1.size();
    m.none_bytes = pb.size();
  }
  if (verify) {
    m.summaries = 1;
    m.summary[0] = Summarize(reinterpret_cast<const uint8_t*>(gz.data()), gz.size());
  }
  m.ok = true;
  return m;
}

Measurement Measure(Impl impl, const Workload& w, bool verify) {
  switch (impl) {
    case Impl::kProfile: return MeasureProfile(w, verify);
    case Impl::kRecorder: return MeasureRecorder(w, verify);
    case Impl::kBaseline: return MeasureBaseline(w, verify);
  }
  return Failed("no such implementation");
}

// ---- Fresh processes ----------------------------------------------------------

bool g_peak_reset_ok = true;

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Runs fn() in a forked child and returns its Measurement, with loaded_mib
// the child's RSS before fn ran.
Measurement RunIsolated(const std::function<Measurement()>& fn) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) return Failed("pipe");
  const pid_t pid = fork();
  if (pid < 0) return Failed("fork");
  if (pid == 0) {
    close(fds[0]);
    malloc_trim(0);  // what the parent freed must not be reused uncounted
    if (!ResetPeakRss()) g_peak_reset_ok = false;
    const double loaded = StatusMiB("VmRSS");
    Measurement m = fn();
    m.loaded_mib = loaded;
    const bool sent = WriteAll(fds[1], &m, sizeof m);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  Measurement m = {};
  const bool got = ReadAll(fds[0], &m, sizeof m);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Measurement f = {};
    std::snprintf(f.error, sizeof f.error, "the measuring child died (status %d)", status);
    return f;
  }
  return m;
}

// ---- Reporting ----------------------------------------------------------------

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Thousands(double x, int decimals = 0) {
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

// A value for a table: ms with one decimal below 100, integers above.
std::string Ms(double ms) { return ms < 100 ? Fixed(ms, 1) : Thousands(ms); }
std::string Bytes(double b) { return Fixed(b / 1e6, 2) + " MB"; }
std::string Ratio(double base, double ours) {
  return ours > 0 ? Fixed(base / ours, 1) + "×" : "–";
}
std::string Range(const std::vector<double>& v, int decimals) {
  if (v.empty()) return "";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return Thousands(*lo, decimals) + "–" + Thousands(*hi, decimals);
}

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
            std::string* report) {
  bool ok = true;
  char buf[512];
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
                  "%s with an endpoint, equal content (digest %016" PRIx64 ")",
                  names.c_str(), Thousands(static_cast<double>(first->samples)).c_str(),
                  Thousands(static_cast<double>(first->totals[0])).c_str(),
                  Thousands(static_cast<double>(first->totals[1])).c_str(),
                  Thousands(static_cast<double>(first->totals[2])).c_str(),
                  Thousands(static_cast<double>(first->totals[3])).c_str(),
                  Thousands(static_cast<double>(first->endpoint_labels)).c_str(),
                  first->digest);
    *report = buf;
  } else {
    *report = "VERIFICATION FAILED\n" + problems;
  }
  return ok;
}

struct Options {
  int reps = 5;
  int heavy_reps = 3;    // a heavy run takes ~55 s of CPU, most of it the baseline's
  int scaling_reps = 3;
  bool verify = true;
  std::vector<std::string> only = {"typical", "heavy", "depth", "keys"};
  bool Wants(const std::string& part) const {
    return std::find(only.begin(), only.end(), part) != only.end();
  }
};

// The targets per workload, the last column of its table: add, gzip ms,
// gzip bytes, zstd ms, MiB; and add by pre-interned stack id.
struct Targets {
  double add_ns, gzip_ms, gzip_mb, zstd_ms, mem_mib, ids_add_ns;
};

std::string Target(double measured, double target, const std::string& shown) {
  return "≤ " + shown + (measured <= target ? " ✓" : " ✗");
}

// Runs the comparison with the baseline on one workload and prints its
// table. Returns false if a run failed or the outputs did not verify.
bool RunWorkload(const WorkloadSpec& spec, int reps, const Options& opt, const Targets& t) {
  const auto gen_start = SteadyClock::now();
  std::unique_ptr<Workload> w(new Workload(spec));
  const double gen_ms = MsSince(gen_start);
  malloc_trim(0);
  std::printf("\n## %s: %s\n(generated in %.1f s; %d run%s of each, medians; every run "
              "in a fresh process)\n\n",
              spec.name.c_str(), w->Describe().c_str(), gen_ms / 1000, reps, reps == 1 ? "" : "s");
  std::map<Impl, std::vector<Measurement>> runs;
  // The id path, for the profile and the recorder.
  std::map<std::pair<Impl, IdMode>, std::vector<Measurement>> id_runs;
  for (int rep = 0; rep < reps; ++rep) {
    // The implementations take turns, so that a change in the machine's
    // load falls on all of them alike.
    for (Impl impl : kImpls) {
      const bool verify = opt.verify && rep == 0;
      const Measurement m = RunIsolated([&] { return Measure(impl, *w, verify); });
      if (!m.ok) {
        std::printf("%s, run %d: FAILED: %s\n", ImplName(impl), rep + 1, m.error);
        return false;
      }
      runs[impl].push_back(m);
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
        RunIsolated([&] { return MeasureIds(Impl::kProfile, *w, IdMode::kStackId, false); });
    if (!warm.ok) {
      std::printf("the warm-up child, run %d: FAILED: %s\n", rep + 1, warm.error);
      return false;
    }
    for (Impl impl : {Impl::kProfile, Impl::kRecorder}) {
      for (IdMode mode : kIdModes) {
        const bool verify = opt.verify && rep == 0;
        const Measurement m = RunIsolated([&] { return MeasureIds(impl, *w, mode, verify); });
        if (!m.ok) {
          std::printf("%s by %s, run %d: FAILED: %s\n", ImplName(impl), IdModeName(mode),
                      rep + 1, m.error);
          return false;
        }
        id_runs[{impl, mode}].push_back(m);
      }
    }
    std::fprintf(stderr, "  %s: run %d of %d done\n", spec.name.c_str(), rep + 1, reps);
  }

  auto values = [&](Impl impl, double Measurement::*field) {
    std::vector<double> v;
    for (const Measurement& m : runs[impl]) v.push_back(m.*field);
    return v;
  };
  auto bytes = [&](Impl impl, uint64_t Measurement::*field) {
    std::vector<double> v;
    for (const Measurement& m : runs[impl]) v.push_back(static_cast<double>(m.*field));
    return v;
  };
  auto mem = [&](Impl impl) {
    std::vector<double> v;
    for (const Measurement& m : runs[impl]) v.push_back(m.peak_mib - m.loaded_mib);
    return v;
  };
  auto med = [&](Impl impl, double Measurement::*field) { return Median(values(impl, field)); };
  const Impl P = Impl::kProfile, R = Impl::kRecorder, B = Impl::kBaseline;

  Table table({"", "stackrec profile", "stackrec recorder", "baseline",
               "baseline ÷ profile", "baseline ÷ recorder", "issue target"});
  const double add_p = med(P, &Measurement::add_ns), add_r = med(R, &Measurement::add_ns),
               add_b = med(B, &Measurement::add_ns);
  table.Row({"add, ns/sample (string frames, CPU)", Thousands(add_p), Thousands(add_r),
             Thousands(add_b), Ratio(add_b, add_p), Ratio(add_b, add_r),
             Target(std::max(add_p, add_r), t.add_ns, Thousands(t.add_ns))});
  // Where the first interval's string add goes: a stack's first sample
  // interns it (its frames, their functions and strings), the others find
  // it by fingerprint.
  auto first = [&](Impl impl) {
    return Thousands(med(impl, &Measurement::first_sightings_ns)) + " (" +
           Fixed(med(impl, &Measurement::first_sighting_each_ns) / 1000, 1) + " µs each)";
  };
  table.Row({"of which first samples of a stack (" +
                 Thousands(med(P, &Measurement::first_sightings)) + " stacks), ns/sample",
             first(P), first(R), first(B), "", "", ""});
  table.Row({"page faults during the adds (memory touched the first time)",
             Thousands(med(P, &Measurement::page_faults)),
             Thousands(med(R, &Measurement::page_faults)),
             Thousands(med(B, &Measurement::page_faults)), "", "", ""});
  // What the rare long calls cost, apart from the usual ones: the first
  // interval grows every table, and on a VM a huge page's first fault or
  // an interrupt lands on whichever call is running.
  auto slow = [](const std::vector<double>& ns, const std::vector<double>& calls) {
    return Fixed(Median(ns), 1) + " (" + Thousands(Median(calls)) + " calls)";
  };
  auto slow_row = [&](Impl impl) {
    return slow(values(impl, &Measurement::slow_calls_ns), values(impl, &Measurement::slow_calls));
  };
  table.Row({"of which calls over 10 µs (tables growing, huge pages faulted in, interrupts), "
             "ns/sample",
             slow_row(P), slow_row(R), "", "", "", ""});
  auto id_values = [&](Impl impl, IdMode mode, double Measurement::*field) {
    std::vector<double> v;
    for (const Measurement& m : id_runs[{impl, mode}]) v.push_back(m.*field);
    return v;
  };
  auto id_med = [&](Impl impl, IdMode mode, double Measurement::*field) {
    return Median(id_values(impl, mode, field));
  };
  const double ids_p = id_med(P, IdMode::kStackId, &Measurement::add_ns),
               ids_r = id_med(R, IdMode::kStackId, &Measurement::add_ns);
  table.Row({"add, ns/sample (pre-interned ids: stack id, CPU)", Thousands(ids_p),
             Thousands(ids_r), "–", Ratio(add_b, ids_p), Ratio(add_b, ids_r),
             Target(std::max(ids_p, ids_r), t.ids_add_ns, Thousands(t.ids_add_ns))});
  auto slow_ids = [&](Impl impl) {
    return slow(id_values(impl, IdMode::kStackId, &Measurement::slow_calls_ns),
                id_values(impl, IdMode::kStackId, &Measurement::slow_calls));
  };
  table.Row({"of which calls over 10 µs, ns/sample (stack id)", slow_ids(P), slow_ids(R), "",
             "", "", ""});
  const double both_p = id_med(P, IdMode::kStackAndLabelsIds, &Measurement::add_ns),
               both_r = id_med(R, IdMode::kStackAndLabelsIds, &Measurement::add_ns);
  table.Row({"add, ns/sample (pre-interned ids: stack id and label-set id, CPU)",
             Thousands(both_p), Thousands(both_r), "–", Ratio(add_b, both_p),
             Ratio(add_b, both_r),
             Target(std::max(both_p, both_r), t.ids_add_ns, Thousands(t.ids_add_ns))});
  table.Row({"add, ns/sample (pre-interned ids: location ids, CPU)",
             Thousands(id_med(P, IdMode::kLocationIds, &Measurement::add_ns)),
             Thousands(id_med(R, IdMode::kLocationIds, &Measurement::add_ns)), "–",
             Ratio(add_b, id_med(P, IdMode::kLocationIds, &Measurement::add_ns)),
             Ratio(add_b, id_med(R, IdMode::kLocationIds, &Measurement::add_ns)), ""});
  table.Row({"intern the workload once, CPU ms (not in the id rows)",
             Ms(id_med(P, IdMode::kStackId, &Measurement::intern_ms)),
             Ms(id_med(R, IdMode::kStackId, &Measurement::intern_ms)), "", "", "", ""});
  const double gz_p = med(P, &Measurement::gzip_ms), gz_r = med(R, &Measurement::gzip_ms),
               gz_b = med(B, &Measurement::gzip_ms);
  table.Row({"serialize gzip, CPU ms (stackrec level 1; baseline SerializeToString + gzip 6)",
             Ms(gz_p), Ms(gz_r),
             Ms(gz_b) + " (" + Ms(med(B, &Measurement::pb_ms)) + " + " +
                 Ms(med(B, &Measurement::gzip6_ms)) + ")",
             Ratio(gz_b, gz_p), Ratio(gz_b, gz_r),
             Target(std::max(gz_p, gz_r), t.gzip_ms, Thousands(t.gzip_ms))});
  const double gzb_p = Median(bytes(P, &Measurement::gzip_bytes)),
               gzb_r = Median(bytes(R, &Measurement::gzip_bytes)),
               gzb_b = Median(bytes(B, &Measurement::gzip_bytes));
  table.Row({"gzip output", Bytes(gzb_p), Bytes(gzb_r), Bytes(gzb_b), Ratio(gzb_b, gzb_p),
             Ratio(gzb_b, gzb_r),
             Target(std::max(gzb_p, gzb_r) / 1e6, t.gzip_mb, Fixed(t.gzip_mb, 1) + " MB")});
  const double zs_p = med(P, &Measurement::zstd_ms), zs_r = med(R, &Measurement::zstd_ms);
  table.Row({"serialize zstd, CPU ms (level 1)", Ms(zs_p), Ms(zs_r), "–", "", "",
             Target(std::max(zs_p, zs_r), t.zstd_ms, Thousands(t.zstd_ms))});
  table.Row({"zstd output", Bytes(Median(bytes(P, &Measurement::zstd_bytes))),
             Bytes(Median(bytes(R, &Measurement::zstd_bytes))), "–", "", "", ""});
  const double mem_p = Median(mem(P)), mem_r = Median(mem(R)), mem_b = Median(mem(B));
  // One decimal: a target is met or not by the exact figure (VmHWM and
  // VmRSS are in kB).
  table.Row({"memory, MiB (peak RSS − loaded RSS)", Thousands(mem_p, 1), Thousands(mem_r, 1),
             Thousands(mem_b, 1), Ratio(mem_b, mem_p), Ratio(mem_b, mem_r),
             Target(std::max(mem_p, mem_r), t.mem_mib, Thousands(t.mem_mib))});
  table.Row({"uncompressed pprof", Bytes(Median(bytes(P, &Measurement::none_bytes))), "",
             Bytes(Median(bytes(B, &Measurement::none_bytes))), "", "", ""});
  table.Row({"serialize uncompressed, CPU ms", Ms(med(P, &Measurement::none_ms)), "",
             Ms(med(B, &Measurement::pb_ms)) + " (SerializeToString)", "", "", ""});
  table.Row({"recorder's second fill, ns/sample: string frames", "",
             Thousands(med(R, &Measurement::add2_ns)),
             "", "", "", ""});
  table.Row({"recorder's second fill, ns/sample: stack id and label-set id", "",
             Thousands(id_med(R, IdMode::kStackAndLabelsIds, &Measurement::add2_ns)), "", "",
             "", ""});
  table.Row({"recorder's steady state (third fill), ns/sample: string frames", "",
             Thousands(med(R, &Measurement::add3_ns)), "", "", "", ""});
  table.Row({"recorder's steady state (third fill), ns/sample: stack id", "",
             Thousands(id_med(R, IdMode::kStackId, &Measurement::add3_ns)), "", "", "", ""});
  table.Row({"recorder's steady state (third fill), ns/sample: stack id and label-set id",
             "", Thousands(id_med(R, IdMode::kStackAndLabelsIds, &Measurement::add3_ns)), "",
             "", "", ""});
  table.Row({"recorder's steady state (third fill), ns/sample: location ids", "",
             Thousands(id_med(R, IdMode::kLocationIds, &Measurement::add3_ns)), "", "", "",
             ""});
  table.Row({"add, wall ns/sample", Thousands(med(P, &Measurement::add_wall_ns)),
             Thousands(med(R, &Measurement::add_wall_ns)),
             Thousands(med(B, &Measurement::add_wall_ns)), "", "", ""});
  table.Row({"serialize gzip, wall ms", Ms(med(P, &Measurement::gzip_wall_ms)),
             Ms(med(R, &Measurement::gzip_wall_ms)), Ms(med(B, &Measurement::gzip_wall_ms)),
             "", "", ""});
  table.Row({"add by stack id, wall ns/sample",
             Thousands(id_med(P, IdMode::kStackId, &Measurement::add_wall_ns)),
             Thousands(id_med(R, IdMode::kStackId, &Measurement::add_wall_ns)), "", "", "", ""});
  table.Row({"CPU share during the adds (CPU ÷ wall time)", Fixed(med(P, &Measurement::cpu_share), 2),
             Fixed(med(R, &Measurement::cpu_share), 2), Fixed(med(B, &Measurement::cpu_share), 2),
             "", "", ""});
  table.Row({"CPU share during the adds by stack id",
             Fixed(id_med(P, IdMode::kStackId, &Measurement::cpu_share), 2),
             Fixed(id_med(R, IdMode::kStackId, &Measurement::cpu_share), 2), "", "", "", ""});
  const double gz1_b = med(B, &Measurement::gzip1_ms);
  table.Row({"baseline with gzip 1: CPU ms, output", "", "",
             Ms(med(B, &Measurement::pb_ms) + gz1_b) + " ms, " +
                 Bytes(Median(bytes(B, &Measurement::gzip1_bytes))),
             Ratio(med(B, &Measurement::pb_ms) + gz1_b, gz_p),
             Ratio(med(B, &Measurement::pb_ms) + gz1_b, gz_r), ""});
  table.Print();

  std::printf("\nspread (min–max over the runs; CPU time unless wall):\n\n");
  Table spread({"", "stackrec profile", "stackrec recorder", "baseline"});
  spread.Row({"add, ns/sample", Range(values(P, &Measurement::add_ns), 0),
              Range(values(R, &Measurement::add_ns), 0), Range(values(B, &Measurement::add_ns), 0)});
  for (IdMode mode : kIdModes) {
    spread.Row({std::string("add by ") + IdModeName(mode) + ", ns/sample",
                Range(id_values(P, mode, &Measurement::add_ns), 0),
                Range(id_values(R, mode, &Measurement::add_ns), 0), ""});
  }
  spread.Row({"add, wall ns/sample", Range(values(P, &Measurement::add_wall_ns), 0),
              Range(values(R, &Measurement::add_wall_ns), 0),
              Range(values(B, &Measurement::add_wall_ns), 0)});
  spread.Row({"serialize gzip, ms", Range(values(P, &Measurement::gzip_ms), 0),
              Range(values(R, &Measurement::gzip_ms), 0), Range(values(B, &Measurement::gzip_ms), 0)});
  spread.Row({"serialize zstd, ms", Range(values(P, &Measurement::zstd_ms), 0),
              Range(values(R, &Measurement::zstd_ms), 0), ""});
  spread.Row({"memory, MiB", Range(mem(P), 1), Range(mem(R), 1), Range(mem(B), 1)});
  spread.Row({"loaded RSS, MiB", Range(values(P, &Measurement::loaded_mib), 0),
              Range(values(R, &Measurement::loaded_mib), 0),
              Range(values(B, &Measurement::loaded_mib), 0)});
  spread.Print();

  bool ok = true;
  for (const Measurement& m : runs[R]) {
    if (m.recorder_keys != w->distinct_keys()) {
      std::printf("\nrecorder stats: last_distinct_keys %" PRIu64 ", expected %zu\n",
                  m.recorder_keys, w->distinct_keys());
      ok = false;
      break;
    }
  }
  if (opt.verify) {
    std::vector<std::pair<std::string, PprofSummary>> outputs = {
        {"profile gzip", runs[P][0].summary[0]},
        {"profile zstd", runs[P][0].summary[1]},
        {"recorder gzip", runs[R][0].summary[0]},
        {"recorder zstd (second fill)", runs[R][0].summary[1]},
        {"baseline gzip", runs[B][0].summary[0]},
        {"profile by stack id", id_runs[{P, IdMode::kStackId}][0].summary[0]},
        {"profile by location ids", id_runs[{P, IdMode::kLocationIds}][0].summary[0]},
        {"recorder by stack id", id_runs[{R, IdMode::kStackId}][0].summary[0]},
        {"profile by stack and label-set ids",
         id_runs[{P, IdMode::kStackAndLabelsIds}][0].summary[0]},
        {"recorder by stack and label-set ids",
         id_runs[{R, IdMode::kStackAndLabelsIds}][0].summary[0]},
        {"recorder by location ids", id_runs[{R, IdMode::kLocationIds}][0].summary[0]}};
    std::string report;
    ok = Verify(*w, outputs, &report) && ok;
    std::printf("\n%s\n", report.c_str());
  }
  return ok;
}

// Scaling: add ns/sample against stack depth.
bool RunDepthScaling(const Options& opt) {
  std::printf("\n## scaling: add against stack depth (typical's samples, every stack "
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
  std::printf("\n## scaling: serialize and memory against distinct keys (heavy's "
              "stacks, one sample per key; stackrec profile; %d runs, medians)\n\n",
              opt.scaling_reps);
  Table table({"distinct keys", "add ns/sample", "gzip ms", "gzip µs/key", "zstd ms",
               "zstd µs/key", "gzip bytes/key", "zstd bytes/key", "memory MiB",
               "memory bytes/key"});
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
  std::printf("\n(memory includes what does not grow with the keys: the program's strings, "
              "functions and locations, and the serializer's buffers)\n");
  return ok;
}

// CPU ns of a dependent load from a random place in `mib` MiB: what a
// cache miss costs on this machine, now (it rises with other processes'
// use of the shared caches and memory).
double LoadLatencyNs(size_t mib) {
  const size_t n = mib * 1024 * 1024 / 64;  // one load a cache line
  std::vector<uint64_t> next(n * 8);
  std::vector<uint64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(7);
  for (size_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);
  for (size_t i = 0; i < n; ++i) next[order[i] * 8] = order[(i + 1) % n] * 8;
  uint64_t p = 0;
  for (size_t i = 0; i < n; ++i) p = next[p];  // warm the TLB and caches
  constexpr size_t kSteps = 2000000;
  const Stopwatch watch;
  for (size_t i = 0; i < kSteps; ++i) p = next[p];
  const double ns = watch.CpuMs() * 1e6 / kSteps;
  benchmark::DoNotOptimize(p);
  return ns;
}

// CPU µs of the first touch of a 4 KiB page of fresh anonymous memory (a
// page fault): what memory a fill touches for the first time costs on
// this machine, beside the page-fault counts of the tables. (A virtual
// machine's page faults may cost tens of times a physical one's.)
double PageFaultUs() {
  constexpr size_t kBytes = size_t{16} << 20, kPage = 4096;
  void* const mem = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
  if (mem == MAP_FAILED) return 0;
  volatile char* const bytes = static_cast<volatile char*>(mem);
  const Stopwatch watch;
  for (size_t at = 0; at < kBytes; at += kPage) bytes[at] = 1;
  const double us = watch.CpuMs() * 1e3 / (kBytes / kPage);
  munmap(mem, kBytes);
  return us;
}

std::string LoadAverage() {
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return "?";
  char buf[128] = {};
  if (std::fgets(buf, sizeof buf, f) == nullptr) buf[0] = '\0';
  std::fclose(f);
  std::string s = buf;
  size_t end = 0;
  for (int i = 0; i < 3 && end != std::string::npos; ++i) end = s.find(' ', end + 1);
  return s.substr(0, end);
}

int RunTables(const Options& opt) {
  std::printf("# stackrec-bench-workloads (issue 4)\n\n");
  std::printf("machine: %u CPUs, load average %s at the start; a dependent load costs "
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
  if (opt.Wants("depth")) ok = RunDepthScaling(opt) && ok;
  if (opt.Wants("keys")) ok = RunKeyScaling(opt) && ok;
  if (!g_peak_reset_ok) {
    std::printf("\nwarning: /proc/self/clear_refs could not reset VmHWM; memory "
                "figures rely on the child's peak starting at its RSS after fork\n");
  }
  std::printf("\ntotal %.0f s; load average %s at the end\n", MsSince(start) / 1000,
              LoadAverage().c_str());
  return ok ? 0 : 1;
}

// ---- Google Benchmark cases ---------------------------------------------------

// The workloads, made on first use and kept.
const Workload& Get(const WorkloadSpec& spec) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Workload>>();
  std::unique_ptr<Workload>& w = (*cache)[spec.name];
  if (w == nullptr) w.reset(new Workload(spec));
  return *w;
}

WorkloadSpec SpecNamed(const std::string& name) {
  return name == "heavy" ? HeavySpec() : TypicalSpec();
}

// One iteration adds the whole workload into a fresh profile, recorder or
// baseline; the time is that of the add calls alone (see TimedAdds).
void BM_Add(benchmark::State& state, const char* workload, Impl impl) {
  const Workload& w = Get(SpecNamed(workload));
  double ns = 0, first_ns = 0;
  for (auto _ : state) {
    Measurement m = impl == Impl::kProfile    ? MeasureProfile(w, false, false)
                    : impl == Impl::kRecorder ? MeasureRecorder(w, false, false)
                                              : Measurement{};
    if (impl == Impl::kBaseline) {
      BaselineProfile b(ProfileOptions());
      const AddTiming t = BaselineAdds(w, b);
      m.ok = t.ok;
      m.add_ns = t.ns;
      m.first_sightings_ns = t.first_sightings_ns;
    }
    if (!m.ok) return state.SkipWithError(m.error);
    ns = m.add_ns;
    first_ns = m.first_sightings_ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  // Of which the samples that were the first of their stack (see AddTiming).
  state.counters["first_of_stack_ns_per_sample"] = first_ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.ticks().size()));
}

// The workload added a second time into one profile, timed as BM_Add: every
// stack, label set and key is then known, so this is the lookups alone (the
// fingerprints, the caches, the key index and its row), without interning
// or first touches of memory, and varies less than a first fill.
void BM_AddKnown(benchmark::State& state, const char* workload) {
  const Workload& w = Get(SpecNamed(workload));
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) {
    return state.SkipWithError(stackrec_last_error());
  }
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner(p, stackrec_profile_free);
  auto add = [p](const stackrec_sample& s) { return stackrec_profile_add(p, &s) == STACKREC_OK; };
  auto endpoint = [p](uint64_t span, stackrec_str e) {
    return stackrec_profile_set_endpoint(p, span, e) == STACKREC_OK;
  };
  if (!TimedAdds(w, add, endpoint).ok) return state.SkipWithError(stackrec_last_error());
  double ns = 0;
  for (auto _ : state) {
    const AddTiming t = TimedAdds(w, add, endpoint);
    if (!t.ok) return state.SkipWithError(stackrec_last_error());
    ns = t.ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.ticks().size()));
}

// The same by id: the workload interned into a fresh profile or recorder
// (not timed), then added by stack id or by location ids.
void BM_AddIds(benchmark::State& state, const char* workload, Impl impl, IdMode mode) {
  const Workload& w = Get(SpecNamed(workload));
  double ns = 0;
  for (auto _ : state) {
    const Measurement m = MeasureIds(impl, w, mode, false);
    if (!m.ok) return state.SkipWithError(m.error);
    ns = m.add_ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.ticks().size()));
}

// Serializing one filled profile (or baseline) again and again.
void BM_Serialize(benchmark::State& state, const char* workload, Impl impl,
                  stackrec_compression compression) {
  const Workload& w = Get(SpecNamed(workload));
  uint64_t bytes = 0;
  if (impl == Impl::kBaseline) {
    BaselineProfile b(ProfileOptions());
    SampleBuilder builder(w);
    for (const Tick& t : w.ticks()) {
      if (t.flags & Tick::kSpanStarts) b.SetEndpoint(w.span_id(t.span), w.span_endpoint(t.span));
      b.Add(builder.Build(t));
    }
    for (auto _ : state) {
      const std::string gz = Gzip(b.Serialize(), 6);
      bytes = gz.size();
    }
  } else {
    const stackrec_profile_options opts = ProfileOptions();
    stackrec_profile* p = nullptr;
    if (stackrec_profile_new(&opts, &p) != STACKREC_OK) {
      return state.SkipWithError(stackrec_last_error());
    }
    SampleBuilder builder(w);
    for (const Tick& t : w.ticks()) {
      if (t.flags & Tick::kSpanStarts) {
        stackrec_profile_set_endpoint(p, w.span_id(t.span), Str(w.span_endpoint(t.span)));
      }
      if (stackrec_profile_add(p, &builder.Build(t)) != STACKREC_OK) {
        stackrec_profile_free(p);
        return state.SkipWithError(stackrec_last_error());
      }
    }
    const stackrec_serialize_options o = {compression, 0};
    for (auto _ : state) {
      stackrec_encoded* out = nullptr;
      if (stackrec_profile_serialize(p, &o, &out) != STACKREC_OK) {
        stackrec_profile_free(p);
        return state.SkipWithError(stackrec_last_error());
      }
      bytes = stackrec_encoded_size(out);
      stackrec_encoded_free(out);
    }
    stackrec_profile_free(p);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void BM_AddDepth(benchmark::State& state) {
  const Workload& w = Get(DepthSpec(static_cast<uint32_t>(state.range(0))));
  double ns = 0;
  for (auto _ : state) {
    const Measurement m = MeasureProfile(w, false, false);
    if (!m.ok) return state.SkipWithError(m.error);
    ns = m.add_ns;
    state.SetIterationTime(ns * static_cast<double>(w.ticks().size()) * 1e-9);
  }
  state.counters["ns_per_sample"] = ns;
  state.counters["ns_per_frame"] = ns / w.mean_sample_depth();
}

void BM_SerializeKeys(benchmark::State& state) {
  const Workload& w = Get(KeysSpec(static_cast<size_t>(state.range(0))));
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) {
    return state.SkipWithError(stackrec_last_error());
  }
  SampleBuilder builder(w);
  for (const Tick& t : w.ticks()) {
    if (t.flags & Tick::kSpanStarts) {
      stackrec_profile_set_endpoint(p, w.span_id(t.span), Str(w.span_endpoint(t.span)));
    }
    stackrec_profile_add(p, &builder.Build(t));
  }
  const stackrec_serialize_options o = {static_cast<stackrec_compression>(state.range(1)), 0};
  uint64_t bytes = 0;
  for (auto _ : state) {
    stackrec_encoded* out = nullptr;
    if (stackrec_profile_serialize(p, &o, &out) != STACKREC_OK) {
      stackrec_profile_free(p);
      return state.SkipWithError(stackrec_last_error());
    }
    bytes = stackrec_encoded_size(out);
    stackrec_encoded_free(out);
  }
  stackrec_profile_free(p);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["us_per_key"] = benchmark::Counter(
      static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
      benchmark::Counter::kIs1000);
}

void RegisterBenchmarks() {
  for (const char* workload : {"typical", "heavy"}) {
    for (Impl impl : kImpls) {
      const std::string impl_name = impl == Impl::kProfile    ? "profile"
                                    : impl == Impl::kRecorder ? "recorder"
                                                              : "baseline";
      benchmark::RegisterBenchmark(
          ("BM_Add/" + std::string(workload) + "/" + impl_name).c_str(),
          [workload, impl](benchmark::State& s) { BM_Add(s, workload, impl); })
          ->UseManualTime()
          ->Iterations(1)
          ->Repetitions(5)
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark(("BM_AddKnown/" + std::string(workload) + "/profile").c_str(),
                                 [workload](benchmark::State& s) { BM_AddKnown(s, workload); })
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
    for (Impl impl : {Impl::kProfile, Impl::kRecorder}) {
      for (IdMode mode : kIdModes) {
        const std::string name = std::string("BM_AddIds/") + workload + "/" +
                                 (impl == Impl::kProfile ? "profile" : "recorder") + "/" +
                                 IdModeKey(mode);
        benchmark::RegisterBenchmark(
            name.c_str(),
            [workload, impl, mode](benchmark::State& s) { BM_AddIds(s, workload, impl, mode); })
            ->UseManualTime()
            ->Iterations(1)
            ->Repetitions(5)
            ->ReportAggregatesOnly(true)
            ->Unit(benchmark::kMillisecond);
      }
    }
    for (auto [impl, compression, name] :
         {std::make_tuple(Impl::kProfile, STACKREC_COMPRESSION_GZIP, "profile/gzip"),
          std::make_tuple(Impl::kProfile, STACKREC_COMPRESSION_ZSTD, "profile/zstd"),
          std::make_tuple(Impl::kBaseline, STACKREC_COMPRESSION_GZIP, "baseline/gzip6")}) {
      benchmark::RegisterBenchmark(
          ("BM_Serialize/" + std::string(workload) + "/" + name).c_str(),
          [workload, impl = impl, compression = compression](benchmark::State& s) {
            BM_Serialize(s, workload, impl, compression);
          })
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RegisterBenchmark("BM_AddDepth", BM_AddDepth)
      ->ArgName("depth")
      ->Arg(8)->Arg(32)->Arg(128)->Arg(512)
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_SerializeKeys", BM_SerializeKeys)
      ->ArgNames({"keys", "compression"})
      ->ArgsProduct({{1000, 10000, 100000, 1000000},
                     {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}})
      ->Unit(benchmark::kMillisecond);
}

}  // namespace
}  // namespace stackrec_bench

int main(int argc, char** argv) {
  using namespace stackrec_bench;
  CalibrateClock();
  bool gbench = false;
  Options opt;
  bool heavy_reps_set = false, scaling_reps_set = false;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (a == "--gbench") {
      gbench = true;
    } else if (const char* v = value("--reps=")) {
      opt.reps = std::max(1, std::atoi(v));
    } else if (const char* v = value("--heavy-reps=")) {
      opt.heavy_reps = std::max(1, std::atoi(v));
      heavy_reps_set = true;
    } else if (const char* v = value("--scaling-reps=")) {
      opt.scaling_reps = std::max(1, std::atoi(v));
      scaling_reps_set = true;
    } else if (const char* v = value("--only=")) {
      opt.only.clear();
      std::string list = v;
      for (size_t pos = 0; pos <= list.size();) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        opt.only.push_back(list.substr(pos, comma - pos));
        pos = comma + 1;
      }
    } else if (a == "--no-verify") {
      opt.verify = false;
    } else if (gbench || a.compare(0, 12, "--benchmark_") == 0) {
      rest.push_back(argv[i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--reps=N] [--heavy-reps=N] [--scaling-reps=N]\n"
                   "          [--only=typical,heavy,depth,keys] "
                   "[--no-verify]\n       %s --gbench [--benchmark_...]\n",
                   argv[0], argv[0]);
      return 2;
    }
  }
  // --reps alone sets them all, up to the defaults of the slow parts.
  if (!heavy_reps_set) opt.heavy_reps = std::min(opt.heavy_reps, opt.reps);
  if (!scaling_reps_set) opt.scaling_reps = std::min(opt.scaling_reps, opt.reps);
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
