// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The string path's fingerprint alone, under each kernel this processor
// runs (src/hash/fingerprint.h): the pass over a sample's frames that finds a
// known stack, as c_api.cc runs it on the caller's stackrec_location array
// (FingerprintFrameArray, the frames' hashes stored). What a string add
// costs beyond it is the key's lookups (and, for a new stack, interning).
//
//   BM_Fingerprint/copy      the sampler's side only: the typical
//                            workload's samples (testkit/workloads/workload.h), in
//                            order, each stack's frames copied into one
//                            reused buffer, as a sampler fills its own.
//   BM_Fingerprint/touch     the same, then a read of the first and last
//                            byte of each frame's name and file: the
//                            least any pass over the strings costs.
//   BM_Fingerprint/<kernel>  the same as copy, then the fingerprint of the buffer
//                            with the portable or the aes kernel. Its time
//                            less copy's is the fingerprint's.
//   BM_Fingerprint/native_<copy or kernel>  the same, each frame given a
//                            mapping (start, limit, offset, a shared
//                            library's path and build id) after the copy, as
//                            a native profiler's frames have: the hash's
//                            other branch. Its time less native_copy's.
//
// Counters: ns_per_sample and ns_per_frame (66.7 frames a sample).
// Run the Release build: build/release/bench/stackrec-bench-fingerprint
// --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
// for medians of runs that alternate, on a machine whose speed drifts.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "hash/fingerprint.h"
#include "hash/frame_strings.h"
#include "workload.h"

namespace {

using stackrec::FingerprintKernel;

const stackrec_bench::Workload& Typical() {
  static const stackrec_bench::Workload* const workload =
      new stackrec_bench::Workload(stackrec_bench::TypicalSpec());
  return *workload;
}

constexpr int kCopy = 0, kTouch = -1;

// Gives every frame of `frames` a mapping, as a native profiler's frames
// have one.
void AddMappings(std::vector<stackrec_location>* frames) {
  static constexpr char kLibrary[] = "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2";
  static constexpr char kBuildId[] = "4f2d0c3b1a9e8d7c6b5a49382716051403f2e1d0";
  for (stackrec_location& f : *frames) {
    f.mapping.memory_start = 0x7f3a12400000;
    f.mapping.memory_limit = 0x7f3a12800000;
    f.mapping.file_offset = 0x1000;
    f.mapping.filename = {kLibrary, sizeof kLibrary - 1};
    f.mapping.build_id = {kBuildId, sizeof kBuildId - 1};
  }
}

// `kernel`: a FingerprintKernel, or kCopy or kTouch; `native`: the frames
// get mappings (AddMappings).
void BM_Fingerprint(benchmark::State& state, int kernel, bool native) {
  const stackrec_bench::Workload& w = Typical();
  if (kernel > 0) {
    const auto k = static_cast<FingerprintKernel>(kernel);
    if (!stackrec::FingerprintKernelAvailable(k)) {
      state.SkipWithError("this processor does not run this kernel");
      return;
    }
    stackrec::SetFingerprintKernelForTesting(k);
  }
  stackrec_bench::SampleBuilder builder(w);
  std::vector<uint64_t> hashes(1024);
  // Each string checked as c_api.cc's FingerprintSampleFrames views it.
  bool bad = false;
  auto view = [&bad](stackrec_str s) {
    const bool ok = s.len < (size_t{1} << 24) && (s.ptr != nullptr || s.len == 0);
    bad |= !ok;
    return ok ? absl::string_view(s.ptr, s.len) : absl::string_view();
  };
  auto raw = [](stackrec_str s) { return stackrec::RawString{s.ptr, s.len}; };
  size_t next = 0, samples = 0, frames = 0;
  std::vector<stackrec_location> native_frames;
  for (auto _ : state) {
    stackrec_sample s = builder.Build(w.ticks()[next]);
    next = next + 1 == w.ticks().size() ? 0 : next + 1;
    if (native) {
      native_frames.assign(s.locations, s.locations + s.locations_len);
      AddMappings(&native_frames);
      s.locations = native_frames.data();
    }
    stackrec::Fingerprint f;
    if (kernel == kCopy) {
      benchmark::DoNotOptimize(s.locations);
    } else if (kernel == kTouch) {
      uint64_t sum = 0;
      for (size_t i = 0; i < s.locations_len; ++i) {
        const stackrec_str name = s.locations[i].function.name;
        const stackrec_str file = s.locations[i].function.filename;
        sum += static_cast<unsigned char>(name.ptr[0]) +
               static_cast<unsigned char>(name.ptr[name.len - 1]) +
               static_cast<unsigned char>(file.ptr[0]) +
               static_cast<unsigned char>(file.ptr[file.len - 1]);
      }
      f.lo = sum;
    } else {
      f = stackrec::FingerprintFrameArray(s.locations, s.locations_len, view, raw, hashes.data());
    }
    benchmark::DoNotOptimize(f);
    benchmark::DoNotOptimize(bad);
    benchmark::ClobberMemory();
    ++samples;
    frames += s.locations_len;
  }
  state.counters["ns_per_sample"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_frame"] = benchmark::Counter(
      static_cast<double>(frames), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_Fingerprint, copy, kCopy, false);
BENCHMARK_CAPTURE(BM_Fingerprint, touch, kTouch, false);
BENCHMARK_CAPTURE(BM_Fingerprint, portable, static_cast<int>(FingerprintKernel::kPortable), false);
BENCHMARK_CAPTURE(BM_Fingerprint, aes, static_cast<int>(FingerprintKernel::kAes), false);
BENCHMARK_CAPTURE(BM_Fingerprint, native_copy, kCopy, true);
BENCHMARK_CAPTURE(BM_Fingerprint, native_portable, static_cast<int>(FingerprintKernel::kPortable),
                  true);
BENCHMARK_CAPTURE(BM_Fingerprint, native_aes, static_cast<int>(FingerprintKernel::kAes), true);

}  // namespace

BENCHMARK_MAIN();
