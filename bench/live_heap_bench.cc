// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Live-heap tracking at a million objects: 1,000,000 objects over 1,000
// distinct stacks of depth 20, 2 live-heap types (heap-live-samples,
// heap-live-size), a size that varies per object, ids that look like
// addresses. Prints
//  - bytes per object from the RSS delta of tracking them (everything:
//    tables, content blobs, the heap lanes' and the totals' interned stacks),
//  - bytes per object of the object table alone, as it counts itself,
//  - ns per track, per untrack of a tracked object and of an untracked one
//    (the free of an object never sampled), and one serialize's time,
// through the C API (linked statically, so the same binary can read the
// table's byte count from the C++ core). Release build only:
//   cmake --preset release && cmake --build --preset release --target stackrec-bench-live-heap
//   build/release/bench/stackrec-bench-live-heap
#include <time.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "input/live_heap_options.h"
#include "recorder/recorder.h"
#include "stackrec/stackrec.h"
#include "stackrec_str.h"

namespace {

constexpr size_t kObjects = 1000000;
constexpr size_t kStacks = 1000;
constexpr size_t kDepth = 20;
constexpr uint64_t kBaseAddress = 0x7f0000000000u;

long RssBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

using stackrec_workloads::Str;

int64_t SizeOf(size_t i) { return 16 + static_cast<int64_t>((i * 7919) % 4096); }

}  // namespace

int main() {
  // 1,000 stacks of 20 frames: 20 frames shared by all (the runtime's
  // entry), the leaf-side ones per stack, as real stacks share roots.
  std::vector<std::string> names;
  for (size_t s = 0; s < kStacks; ++s) {
    for (size_t d = 0; d < kDepth; ++d) {
      names.push_back(d >= kDepth / 2
                          ? "Framework#dispatch_" + std::to_string(d)
                          : "App::Model" + std::to_string(s) + "#method_" + std::to_string(d));
    }
  }
  const std::string file = "app/models/model.rb";
  std::vector<stackrec_location> frames(kStacks * kDepth);
  for (size_t i = 0; i < frames.size(); ++i) {
    frames[i] = stackrec_location{};
    frames[i].function.name = Str(names[i]);
    frames[i].function.filename = Str(file);
    frames[i].line = static_cast<int64_t>(i % kDepth) + 1;
  }
  const stackrec_value_type types[] = {{{"heap-live-samples", 17}, {"count", 5}},
                                       {{"heap-live-size", 14}, {"bytes", 5}}};
  const size_t live_types[] = {0, 1};
  stackrec_profile_options opts = {};
  opts.sample_types = types;
  opts.sample_types_len = 2;
  opts.live_heap_types = live_types;
  opts.live_heap_types_len = 2;
  auto sample = [&](size_t i, int64_t* values) {
    stackrec_sample s = {};
    s.locations = &frames[(i % kStacks) * kDepth];
    s.locations_len = kDepth;
    values[0] = 1;
    values[1] = SizeOf(i);
    s.values = values;
    s.values_len = 2;
    return s;
  };

  // ---- Through the C API: time and RSS ------------------------------------
  const long rss_before = RssBytes();
  stackrec_recorder* recorder = nullptr;
  if (stackrec_recorder_new(&opts, &recorder) != STACKREC_OK) return 1;
  double start = Now();
  for (size_t i = 0; i < kObjects; ++i) {
    int64_t values[2];
    const stackrec_sample s = sample(i, values);
    if (stackrec_recorder_track(recorder, kBaseAddress + i * 48, &s) != STACKREC_OK) {
      std::fprintf(stderr, "track: %s\n", stackrec_last_error());
      return 1;
    }
  }
  const double track_ns = (Now() - start) / kObjects;
  start = Now();
  stackrec_encoded* encoded = nullptr;
  if (stackrec_recorder_serialize(recorder, nullptr, &encoded) != STACKREC_OK) return 1;
  const double serialize_ms = (Now() - start) / 1e6;
  const size_t encoded_bytes = stackrec_encoded_size(encoded);
  stackrec_encoded_free(encoded);
  const long rss_tracked = RssBytes();
  start = Now();
  for (size_t i = 0; i < kObjects; ++i) {
    // Never tracked: between the tracked addresses.
    if (stackrec_recorder_untrack(recorder, kBaseAddress + i * 48 + 16) != STACKREC_OK) return 1;
  }
  const double untrack_miss_ns = (Now() - start) / kObjects;
  start = Now();
  for (size_t i = 0; i < kObjects; ++i) {
    if (stackrec_recorder_untrack(recorder, kBaseAddress + i * 48) != STACKREC_OK) return 1;
  }
  const double untrack_ns = (Now() - start) / kObjects;
  stackrec_stats stats = {};
  const stackrec_status stats_status = stackrec_recorder_stats(recorder, &stats);
  stackrec_recorder_free(recorder);
  if (stats_status != STACKREC_OK) return 1;

  // ---- The C++ core: the table's own byte count ------------------------------
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"heap-live-samples", "count"}, {"heap-live-size", "bytes"}};
  stackrec::LiveHeapOptions live_input, live;
  live_input.types = {0, 1};
  if (!stackrec::MakeProfileOptions(input, &options).ok() ||
      !stackrec::MakeLiveHeapOptions(live_input, 2, &live).ok()) {
    return 1;
  }
  size_t table_bytes = 0, all_bytes = 0;
  {
    stackrec::Recorder core(options, 0, live);
    std::vector<stackrec::LocationView> views(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
      views[i].function.name = names[i];
      views[i].function.filename = file;
      views[i].line = frames[i].line;
    }
    for (size_t i = 0; i < kObjects; ++i) {
      const int64_t values[2] = {1, SizeOf(i)};
      stackrec::SampleView s;
      s.locations = absl::MakeConstSpan(&views[(i % kStacks) * kDepth], kDepth);
      s.values = absl::MakeConstSpan(values, 2);
      if (!core.Track(kBaseAddress + i * 48, s).ok()) return 1;
    }
    table_bytes = core.TrackedTableBytes();
    all_bytes = core.LiveHeapMemoryBytes();
  }

  std::printf("objects tracked: %llu (%zu stacks of depth %zu, 2 live-heap types)\n",
              static_cast<unsigned long long>(kObjects), kStacks, kDepth);
  std::printf("bytes/object, RSS delta (everything, 1 serialize done): %.1f\n",
              static_cast<double>(rss_tracked - rss_before) / kObjects);
  std::printf("bytes/object, object table's own count: %.1f\n",
              static_cast<double>(table_bytes) / kObjects);
  std::printf("bytes/object, tables + content (before a serialize): %.1f\n",
              static_cast<double>(all_bytes) / kObjects);
  std::printf("track: %.0f ns/object\n", track_ns);
  std::printf("untrack of a tracked object: %.0f ns\n", untrack_ns);
  std::printf("untrack of an id never tracked: %.0f ns\n", untrack_miss_ns);
  std::printf("serialize (gzip) with 1M live objects: %.1f ms, %zu bytes\n", serialize_ms,
              encoded_bytes);
  std::printf("objects tracked after untracking all: %llu\n",
              static_cast<unsigned long long>(stats.objects_tracked));
  return stats.objects_tracked == 0 ? 0 : 1;
}
