// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A synthetic Rails application's stack samples, for stackrec-demo.
//
// Eight Puma threads each take a sample every 10 ms of wall time, either idle
// in Puma's thread pool or inside a request (a local root span) to one of ten
// endpoints ("GET /users/:id", "POST /orders", ...). The stacks, 8 to 128
// frames deep, are walks down one calling-context tree, so they share the
// Puma / Rack / ActionPack prefix and fan out below the controllers as a real
// application's do; the frames have Ruby names, files and lines. What the leaf
// frame does (compute, allocate, wait for PostgreSQL or Redis, sleep) decides
// the sample's cpu-time, wall-time and allocation values.
//
// Everything comes from one seed through std::mt19937_64, whose output the
// C++ standard fixes; the std:: distributions are not fixed, so none is used,
// and the samples are the same with every standard library.
#ifndef STACKREC_WORKLOADS_RAILS_WORKLOAD_H_
#define STACKREC_WORKLOADS_RAILS_WORKLOAD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "stackrec/stackrec.h"

namespace demo {

// The sample types, in the order they are declared and their values passed.
enum : size_t { kCpuTime, kCpuSamples, kWallTime, kAllocSamples, kSampleTypes };
inline constexpr const char* kSampleTypeNames[kSampleTypes][2] = {{"cpu-time", "nanoseconds"},
                                                                  {"cpu-samples", "count"},
                                                                  {"wall-time", "nanoseconds"},
                                                                  {"alloc-samples", "count"}};

// A sample per thread per 10 ms of wall time.
inline constexpr int64_t kPeriodNs = 10000000;

// One sample of one thread. Valid until the next RailsWorkload::Next().
struct Tick {
  // The stack, leaf first, as stackrec_sample takes it. Its strings belong
  // to the workload.
  const stackrec_location* locations = nullptr;
  size_t locations_len = 0;
  int64_t values[kSampleTypes] = {};

  // The labels a Ruby profiler and its tracer attach.
  int64_t thread_id = 0;
  const std::string* thread_name = nullptr;  // "puma worker 3"
  int64_t span_id = 0;                       // local root span id; 0: idle
  const char* endpoint = nullptr;            // the request's route; null when idle
  bool request_started = false;              // the first sample of this request

  // For checking what a profile made of the ticks must hold: `stack` is
  // equal for equal stacks; `request` numbers the requests from 1 (0: idle);
  // `thread` is the thread's index.
  uint32_t stack = 0;
  uint32_t depth = 0;
  int64_t request = 0;
  int thread = 0;
};

class RailsWorkload {
 public:
  RailsWorkload(uint64_t seed, int threads);
  ~RailsWorkload();
  RailsWorkload(const RailsWorkload&) = delete;
  RailsWorkload& operator=(const RailsWorkload&) = delete;

  // The next sample: thread 0, 1, ..., threads - 1, then thread 0's next.
  const Tick& Next();

  size_t endpoints() const;
  size_t call_tree_nodes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  Tick tick_;
};

}  // namespace demo

#endif  // STACKREC_WORKLOADS_RAILS_WORKLOAD_H_
