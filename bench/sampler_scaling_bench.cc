// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Sampler scaling: how fast N sampler threads record one workload's samples
// into one recorder, against one sampler recording the same samples.
//
// A run deals the workload's ticks to N threads, and each records its
// ticks, in the workload's order, by string frames or by pre-interned stack
// and label-set ids, into a fresh recorder; a tick that starts a span brings
// its endpoint record with it. The deal (--deal):
//   shares       the ticks cut into N contiguous shares;
//   round-robin  tick i to sampler i % N;
//   thread       the workload's 16 threads in N contiguous groups, each
//                sampler recording its group's ticks, as per-thread
//                samplers would: a sampler meets its own threads' keys
//                (each key names its thread), round-robin meets every
//                thread's.
// The keys (--keys):
//   known  the ticks are recorded `passes` times over, so after the first
//          pass every key is one the recorder already holds: the steady
//          state of a program whose stacks no longer change;
//   fresh  the ticks are recorded once (passes is 1, whatever --seconds
//          says), so each key is new to the recorder when first met. A
//          recorder's samplers meet fresh keys all the time: new spans, new
//          endpoints, new stacks after a deploy; this is what a new user
//          meets first. The ids path interns the workload's stacks and
//          label sets before the run, as its users do, so only the
//          aggregate's keys are fresh there.
// The run's time is wall time from the moment the threads are released
// together to the moment the last one is done: what a runtime whose threads
// all sample at once waits for. Beside it, the CPU time each sampler spent,
// per record. With --flip-ms, a serializer thread flips the recorder every
// so many milliseconds while the samplers run, as a profiler's uploader
// does; its outputs are kept and, after the run, decoded: the sums of every
// sample type over all of a run's outputs must be exactly `passes` times
// the workload's, or the run fails. The memory column is the resident
// memory the run added by the time the samplers are done, before the last
// flip: the recorder, and where a serializer ran the outputs kept so far.
//
// The trackers' path is live-heap tracking as an allocation profiler does
// it: every tick is an allocation sampled, tracked under an address-like
// id of its own; it is freed (untracked) kTrackWindow ticks later, and each
// tick also frees one object never sampled (the common free). Every value
// is a live-heap value. After the run, the profile of the last flip must
// hold exactly the objects still tracked, or the run fails.
//
// With known keys, `passes` is chosen per path and serializer setting so
// that one sampler takes about --seconds (with a serializer, at least five
// flip intervals): long enough that the threads' start and end do not
// count.
//
//   build/release/bench/stackrec-bench-sampler-scaling [--workload=typical|heavy]
//       [--runs=5] [--seconds=1] [--flip-ms=1000] [--max-samplers=N]
//       [--path=strings|ids|trackers] [--deal=shares|round-robin|thread]
//       [--keys=known|fresh]
//
// Without --max-samplers, 1, 2, 4 and 8 samplers, as far as the machine has
// CPUs. Exits 1 if a run fails.
#include <malloc.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "pprof_summary.h"
#include "stackrec/stackrec.h"
#include "stackrec_str.h"
#include "workload.h"
#include "workload_interning.h"

namespace {

using stackrec_bench::IdSampleBuilder;
using stackrec_bench::Interned;
using stackrec_bench::SampleBuilder;
using stackrec_bench::Tick;
using stackrec_bench::Workload;
using Clock = std::chrono::steady_clock;

enum class Path { kStrings, kIds, kTrack };
constexpr Path kAllPaths[] = {Path::kStrings, Path::kIds, Path::kTrack};

const char* PathName(Path path) {
  switch (path) {
    case Path::kStrings:
      return "strings";
    case Path::kIds:
      return "ids";
    case Path::kTrack:
      return "trackers";
  }
  return "?";
}

// How the ticks are dealt to the samplers (see the top of the file).
enum class Deal { kShares, kRoundRobin, kThread };
constexpr Deal kAllDeals[] = {Deal::kShares, Deal::kRoundRobin, Deal::kThread};

const char* DealName(Deal deal) {
  switch (deal) {
    case Deal::kShares:
      return "shares";
    case Deal::kRoundRobin:
      return "round-robin";
    case Deal::kThread:
      return "thread";
  }
  return "?";
}

// Whether a run meets keys its recorder holds already (see the top).
enum class Keys { kKnown, kFresh };

// How many ticks an object a tracker tracked stays alive.
constexpr size_t kTrackWindow = 1024;

// Tracker `t`'s object id for its `n`th allocation: address-like, 16-byte
// aligned, distinct across trackers; +8 is an object never sampled.
uint64_t ObjectId(int t, size_t n) {
  return 0x7f0000000000u + (static_cast<uint64_t>(t) << 36) + static_cast<uint64_t>(n) * 16;
}

struct Flags {
  std::string workload = "typical";
  int runs = 5;
  double seconds = 1.0;
  int flip_ms = 1000;
  int max_samplers = 0;  // 0: up to 8, as far as the machine has CPUs
  std::vector<Path> paths{std::begin(kAllPaths), std::end(kAllPaths)};
  Deal deal = Deal::kShares;
  Keys keys = Keys::kKnown;
};

double ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double MsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct RunResult {
  bool ok = false;
  std::string error;
  double wall_ms = 0;
  double cpu_ns_per_record = 0;
  uint64_t flips = 0;
  double memory_mb = 0;  // resident memory the run added, once the samplers are done
};

// The process's resident memory now. The recorder's large tables are
// mapped outside malloc (src/base/table_memory.h), so malloc's own count would
// miss them; what malloc holds free is given back first (malloc_trim), so
// that the difference of two readings is what was allocated in between.
double ResidentBytes() {
  malloc_trim(0);
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const int got = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return got == 2 ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0;
}

// Each of `samplers` samplers' ticks, as indices into the workload's, in
// the workload's order. Dealt before a run, so that dealing costs the
// measured loops nothing and one loop serves every deal.
using Shares = std::vector<std::vector<uint32_t>>;
Shares DealTicks(const Workload& w, Deal deal, int samplers) {
  const size_t ticks = w.ticks().size(), n = static_cast<size_t>(samplers);
  Shares shares(n);
  if (deal == Deal::kShares) {
    for (size_t t = 0; t < n; ++t) {
      const size_t begin = ticks * t / n, end = ticks * (t + 1) / n;
      shares[t].resize(end - begin);
      std::iota(shares[t].begin(), shares[t].end(), static_cast<uint32_t>(begin));
    }
    return shares;
  }
  for (std::vector<uint32_t>& share : shares) share.reserve(ticks / n + 1);
  for (size_t i = 0; i < ticks; ++i) {
    const size_t sampler = deal == Deal::kRoundRobin
                               ? i % n
                               : size_t{w.ticks()[i].thread} * n / stackrec_bench::kThreads;
    shares[sampler].push_back(static_cast<uint32_t>(i));
  }
  return shares;
}

// Records the ticks of `share` `passes` times; returns false on a failed
// call.
template <typename Record>
bool RecordShare(stackrec_recorder* r, const Workload& w, const std::vector<uint32_t>& share,
                 int passes, Record&& record) {
  for (int pass = 0; pass < passes; ++pass) {
    for (const uint32_t i : share) {
      const Tick& tick = w.ticks()[i];
      if ((tick.flags & Tick::kSpanStarts) &&
          stackrec_recorder_record_endpoint(r, w.span_id(tick.span),
                                            stackrec_bench::Str(w.span_endpoint(tick.span))) !=
              STACKREC_OK) {
        return false;
      }
      if (!record(tick)) return false;
    }
  }
  return true;
}

// One run: `shares.size()` samplers, each recording its share.
RunResult RunOnce(const Workload& w, Path path, const Shares& shares, int passes, int flip_ms) {
  RunResult result;
  const int samplers = static_cast<int>(shares.size());
  const double resident_before = ResidentBytes();
  stackrec_profile_options opts = stackrec_bench::ProfileOptions();
  static const size_t kAllTypes[] = {0, 1, 2, 3};
  static_assert(sizeof(kAllTypes) / sizeof(kAllTypes[0]) == stackrec_bench::kSampleTypes);
  if (path == Path::kTrack) {
    opts.live_heap_types = kAllTypes;
    opts.live_heap_types_len = stackrec_bench::kSampleTypes;
  }
  stackrec_recorder* r = nullptr;
  if (stackrec_recorder_new(&opts, &r) != STACKREC_OK) {
    result.error = std::string("recorder_new: ") + stackrec_last_error();
    return result;
  }
  Interned interned;
  if (path == Path::kIds && !stackrec_bench::InternInto(nullptr, r, w, &interned)) {
    result.error = std::string("interning: ") + stackrec_last_error();
    stackrec_recorder_free(r);
    return result;
  }

  const size_t ticks = w.ticks().size();
  std::atomic<int> ready{0};
  std::atomic<bool> go{false}, failed{false};
  std::atomic<int> running{samplers};
  std::vector<double> cpu_ns(static_cast<size_t>(samplers), 0);
  std::vector<Clock::time_point> done(static_cast<size_t>(samplers));
  std::vector<std::thread> threads;
  for (int t = 0; t < samplers; ++t) {
    threads.emplace_back([&, t] {
      const std::vector<uint32_t>& share = shares[static_cast<size_t>(t)];
      SampleBuilder strings(w);
      IdSampleBuilder ids(w, interned.stack_ids, interned.location_ids, false,
                          &interned.label_sets);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      const double cpu_start = ThreadCpuNs();
      size_t allocations = 0;
      bool ok = false;
      switch (path) {
        case Path::kStrings:
          ok = RecordShare(r, w, share, passes, [&](const Tick& tick) {
            return stackrec_recorder_record(r, &strings.Build(tick)) == STACKREC_OK;
          });
          break;
        case Path::kIds:
          ok = RecordShare(r, w, share, passes, [&](const Tick& tick) {
            return stackrec_recorder_record_ids(r, &ids.Build(tick)) == STACKREC_OK;
          });
          break;
        case Path::kTrack:
          ok = RecordShare(r, w, share, passes, [&](const Tick& tick) {
            const size_t n = allocations++;
            if (n >= kTrackWindow &&
                stackrec_recorder_untrack(r, ObjectId(t, n - kTrackWindow)) != STACKREC_OK) {
              return false;
            }
            return stackrec_recorder_untrack(r, ObjectId(t, n) + 8) == STACKREC_OK &&
                   stackrec_recorder_track(r, ObjectId(t, n), &strings.Build(tick)) == STACKREC_OK;
          });
          break;
      }
      cpu_ns[static_cast<size_t>(t)] = ThreadCpuNs() - cpu_start;
      done[static_cast<size_t>(t)] = Clock::now();
      if (!ok) failed.store(true);
      running.fetch_sub(1, std::memory_order_release);
    });
  }

  std::vector<stackrec_encoded*> outputs;
  bool serialize_failed = false;
  auto flip = [&] {
    stackrec_encoded* e = nullptr;
    if (stackrec_recorder_serialize(r, nullptr, &e) != STACKREC_OK) {
      serialize_failed = true;
      return;
    }
    outputs.push_back(e);
  };
  while (ready.load() < samplers) {
  }
  const Clock::time_point start = Clock::now();
  go.store(true, std::memory_order_release);
  if (flip_ms > 0) {
    Clock::time_point next_flip = start + std::chrono::milliseconds(flip_ms);
    while (running.load(std::memory_order_acquire) > 0) {
      if (Clock::now() >= next_flip) {
        flip();
        ++result.flips;
        next_flip += std::chrono::milliseconds(flip_ms);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
  }
  for (std::thread& t : threads) t.join();
  const Clock::time_point end = *std::max_element(done.begin(), done.end());
  // The recorder with everything since the last flip (and, with a
  // serializer, the outputs kept so far).
  result.memory_mb = (ResidentBytes() - resident_before) / 1e6;
  flip();  // what the last interval recorded

  // Nothing lost: every output's sums add up to the passes' sums, or, for
  // trackers, the last output holds exactly the objects still alive.
  int64_t totals[stackrec_bench::kSampleTypes] = {};
  std::array<int64_t, stackrec_bench::kSampleTypes> expected = w.totals();
  for (int64_t& e : expected) e *= passes;
  if (path == Path::kTrack) {
    expected = {};
    SampleBuilder strings(w);
    for (const std::vector<uint32_t>& share : shares) {
      const size_t allocations = share.size() * static_cast<size_t>(passes);
      for (size_t n = allocations - std::min(allocations, kTrackWindow); n < allocations; ++n) {
        const stackrec_sample& s = strings.Build(w.ticks()[share[n % share.size()]]);
        for (size_t i = 0; i < stackrec_bench::kSampleTypes; ++i) expected[i] += s.values[i];
      }
    }
    for (size_t i = 0; i + 1 < outputs.size(); ++i) stackrec_encoded_free(outputs[i]);
    outputs.erase(outputs.begin(), outputs.end() - 1);
  }
  for (stackrec_encoded* e : outputs) {
    const stackrec_bench::PprofSummary s =
        stackrec_bench::Summarize(stackrec_encoded_data(e), stackrec_encoded_size(e));
    if (!s.ok) {
      result.error = std::string("an output: ") + s.error;
    }
    for (size_t i = 0; i < stackrec_bench::kSampleTypes; ++i) totals[i] += s.totals[i];
    stackrec_encoded_free(e);
  }
  stackrec_recorder_free(r);
  if (failed.load()) result.error = "a record failed";
  if (serialize_failed) result.error = "a serialize failed";
  for (size_t i = 0; i < stackrec_bench::kSampleTypes && result.error.empty(); ++i) {
    if (totals[i] != expected[i]) {
      result.error = std::string("the sums of ") + stackrec_bench::kSampleTypeNames[i][0] +
                     " are " + std::to_string(totals[i]) + ", not " + std::to_string(expected[i]);
    }
  }
  if (!result.error.empty()) return result;
  double cpu = 0;
  for (double c : cpu_ns) cpu += c;
  result.ok = true;
  result.wall_ms = MsBetween(start, end);
  result.cpu_ns_per_record = cpu / (static_cast<double>(ticks) * passes);
  return result;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The path PathName calls `name`.
bool PathNamed(const std::string& name, Path* out) {
  for (Path path : kAllPaths) {
    if (name == PathName(path)) {
      *out = path;
      return true;
    }
  }
  return false;
}

// The deal DealName calls `name`.
bool DealNamed(const std::string& name, Deal* out) {
  for (Deal deal : kAllDeals) {
    if (name == DealName(deal)) {
      *out = deal;
      return true;
    }
  }
  return false;
}

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) != 0) return false;
      *out = a.substr(prefix.size());
      return true;
    };
    std::string v;
    Path path;
    Deal deal;
    if (value("--workload", &v) && (v == "typical" || v == "heavy")) {
      f->workload = v;
    } else if (value("--runs", &v) && std::atoi(v.c_str()) > 0) {
      f->runs = std::atoi(v.c_str());
    } else if (value("--seconds", &v) && std::atof(v.c_str()) > 0) {
      f->seconds = std::atof(v.c_str());
    } else if (value("--flip-ms", &v) && std::atoi(v.c_str()) > 0) {
      f->flip_ms = std::atoi(v.c_str());
    } else if (value("--max-samplers", &v) && std::atoi(v.c_str()) > 0) {
      f->max_samplers = std::atoi(v.c_str());
    } else if (value("--path", &v) && PathNamed(v, &path)) {
      f->paths = {path};
    } else if (value("--deal", &v) && DealNamed(v, &deal)) {
      f->deal = deal;
    } else if (value("--keys", &v) && (v == "known" || v == "fresh")) {
      f->keys = v == "fresh" ? Keys::kFresh : Keys::kKnown;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--workload=typical|heavy] [--runs=N] [--seconds=S] "
                   "[--flip-ms=MS] [--max-samplers=N] [--path=strings|ids|trackers] "
                   "[--deal=shares|round-robin|thread] [--keys=known|fresh]\n",
                   argv[0]);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) return 2;
  const Workload w(flags.workload == "heavy" ? stackrec_bench::HeavySpec()
                                             : stackrec_bench::TypicalSpec());
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> counts;
  for (int n : {1, 2, 4, 8}) {
    if (n <= (flags.max_samplers > 0 ? flags.max_samplers : std::min(cpus, 8))) counts.push_back(n);
  }

  std::printf("# stackrec-bench-sampler-scaling\n\n");
  std::printf("%s workload: %s\n", flags.workload.c_str(), w.Describe().c_str());
  const bool fresh = flags.keys == Keys::kFresh;
  std::printf(
      "%d CPUs; medians of %d runs; deal: %s; keys: %s; "
      "a serializer, where there is one, flips every %d ms\n\n",
      cpus, flags.runs, DealName(flags.deal),
      fresh ? "fresh (one pass, each key new to its recorder)"
            : "known (the ticks recorded over and over)",
      flags.flip_ms);
  std::printf(
      "| path | serializer | deal | samplers | records | wall ms | M records/s | speedup "
      "| CPU ns/record | flips | memory MB | memory vs 1 |\n");
  std::printf(
      "|------|------------|------|----------|---------|---------|-------------|---------|"
      "---------------|-------|-----------|-------------|\n");
  bool all_ok = true;
  for (Path path : flags.paths) {
    for (int flip_ms : {0, flags.flip_ms}) {
      // With known keys, one sampler, one pass, dealt as the runs are, sizes
      // the runs; fresh keys are recorded once, so they need no sizing.
      int passes = 1;
      if (!fresh) {
        const RunResult probe = RunOnce(w, path, DealTicks(w, flags.deal, 1), 1, 0);
        if (!probe.ok) {
          std::fprintf(stderr, "sizing run failed: %s\n", probe.error.c_str());
          return 1;
        }
        const double target_ms = std::max(flags.seconds * 1000.0, flip_ms * 5.0);
        passes = std::max(1, static_cast<int>(std::ceil(target_ms / probe.wall_ms)));
      }
      double one_wall = 0, one_memory = 0;
      for (int n : counts) {
        const Shares shares = DealTicks(w, flags.deal, n);
        std::vector<double> wall, cpu, flips, memory;
        for (int run = 0; run < flags.runs; ++run) {
          const RunResult res = RunOnce(w, path, shares, passes, flip_ms);
          if (!res.ok) {
            std::fprintf(stderr, "%d samplers: %s\n", n, res.error.c_str());
            all_ok = false;
            break;
          }
          wall.push_back(res.wall_ms);
          cpu.push_back(res.cpu_ns_per_record);
          flips.push_back(static_cast<double>(res.flips));
          memory.push_back(res.memory_mb);
        }
        if (wall.size() != static_cast<size_t>(flags.runs)) continue;
        const double median_wall = Median(wall);
        const double median_memory = Median(memory);
        if (n == 1) {
          one_wall = median_wall;
          one_memory = median_memory;
        }
        const double records = static_cast<double>(w.ticks().size()) * passes;
        std::printf(
            "| %s | %s | %s | %d | %.0f | %.0f | %.2f | %.2f× | %.0f | %.0f | %.1f | %.2f× |\n",
            PathName(path), flip_ms == 0 ? "none" : "flips", DealName(flags.deal), n, records,
            median_wall, records / median_wall / 1000.0,
            one_wall > 0 ? one_wall / median_wall : 0.0, Median(cpu), Median(flips), median_memory,
            one_memory > 0 ? median_memory / one_memory : 0.0);
        std::fflush(stdout);
      }
    }
  }
  return all_ok ? 0 : 1;
}
