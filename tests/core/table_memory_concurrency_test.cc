// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Table memory (src/base/table_memory.h) from two threads at once, as a sampler
// growing the active slot's tables and a serializer freeing the other's:
// no block is handed out twice (each keeps the bytes its owner wrote), and
// once everything is freed every chunk is unmapped. Run under the tsan
// preset with the other concurrency tests.
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "base/table_memory.h"
#include "catch2/catch.hpp"

namespace memory = stackrec::table_memory;

TEST_CASE("two threads allocate and free table memory without sharing a block") {
  auto work = [](uint32_t seed, bool* ok) {
    std::mt19937 rng(seed);
    struct Block {
      unsigned char* p;
      size_t bytes;
      unsigned char tag;
    };
    std::vector<Block> live;
    bool good = true;
    auto release = [&](size_t i) {
      const Block b = live[i];
      for (size_t j = 0; j < b.bytes; j += 1024) good = good && b.p[j] == b.tag;
      good = good && b.p[b.bytes - 1] == b.tag;
      memory::Deallocate(b.p, b.bytes);
      live[i] = live.back();
      live.pop_back();
    };
    for (int i = 0; i < 3000; ++i) {
      if (live.size() == 24 || (!live.empty() && rng() % 3 == 0)) release(rng() % live.size());
      // Mostly table-sized blocks, sometimes one over a huge page.
      const size_t bytes =
          memory::kMinBytes + rng() % (rng() % 16 == 0 ? size_t{3} << 20 : size_t{256} << 10);
      const auto tag = static_cast<unsigned char>(seed * 31 + static_cast<uint32_t>(i));
      auto* p = static_cast<unsigned char*>(memory::Allocate(bytes));
      for (size_t j = 0; j < bytes; j += 1024) p[j] = tag;
      p[bytes - 1] = tag;
      live.push_back({p, bytes, tag});
    }
    while (!live.empty()) release(live.size() - 1);
    *ok = good;
  };
  bool ok1 = false, ok2 = false;
  std::thread t1(work, 1, &ok1);
  std::thread t2(work, 2, &ok2);
  t1.join();
  t2.join();
  CHECK(ok1);
  CHECK(ok2);
  const memory::Usage end = memory::CurrentUsage();
  CHECK(end.used_bytes == 0);
  CHECK(end.mapped_bytes == 0);
  CHECK(end.chunks == 0);
}
