// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The program stackrec-exec-overhead measures: a fixed amount of CPU-bound
// work (so its CPU time is comparable from run to run), done at the bottom
// of a 20- to 27-frame-deep call chain, so each sample costs the unwinder
// what a real program's would.
//
//   stackrec_exec_cpu_bound [ROUNDS [THREADS]]   (default 8000 rounds, 1 thread)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

__attribute__((noinline)) uint64_t Leaf(uint64_t n, uint64_t x) {
  for (uint64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    if ((x >> 61) == 7) x ^= i;
    asm volatile("" : "+r"(x));
  }
  return x;
}

__attribute__((noinline)) uint64_t Descend(int depth, uint64_t n, uint64_t x) {
  uint64_t r = depth == 0 ? Leaf(n, x) : Descend(depth - 1, n, x + 1);
  asm volatile("" : "+r"(r));  // no tail call: every level stays on the stack
  return r + static_cast<uint64_t>(depth);
}

uint64_t Work(long rounds) {
  uint64_t sink = 0;
  for (long i = 0; i < rounds; ++i) sink += Descend(20 + static_cast<int>(i % 8), 100000, sink);
  return sink;
}

}  // namespace

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? std::atol(argv[1]) : 8000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  std::vector<std::thread> workers;
  std::vector<uint64_t> sinks(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] { sinks[static_cast<size_t>(t)] = Work(rounds); });
  }
  for (auto& w : workers) w.join();
  uint64_t total = 0;
  for (uint64_t s : sinks) total += s;
  std::printf("%llu\n", static_cast<unsigned long long>(total));  // keeps the work alive
  return 0;
}
