// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The trackers' shared content (content_blobs.h) under threads: equal
// content interned by several threads at once is one blob, and every blob
// goes with its last reference.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "tables/content_blobs.h"

using stackrec::ContentBlobs;

TEST_CASE("content blobs: threads interning the same content share each blob, and free all") {
  ContentBlobs blobs;
  constexpr int kThreads = 4, kRounds = 2000, kContents = 64;
  std::vector<std::thread> threads;
  std::vector<std::vector<uint32_t>> numbers(kThreads, std::vector<uint32_t>(kContents));
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        for (int c = 0; c < kContents; ++c) {
          const std::string bytes = "content " + std::to_string(c);
          bool added;
          const uint32_t n = blobs.Acquire(bytes, ContentBlobs::HashBytes(bytes), &added).number;
          if (round == kRounds - 1) {
            numbers[t][c] = n;  // kept: released below, after the join
          } else {
            blobs.Release(n);
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(blobs.size() == kContents);
  for (int t = 1; t < kThreads; ++t) CHECK(numbers[t] == numbers[0]);
  for (int c = 0; c < kContents; ++c) {
    CHECK(blobs.Get(numbers[0][c]).bytes == "content " + std::to_string(c));
  }
  for (int t = 0; t < kThreads; ++t) {
    for (uint32_t n : numbers[t]) blobs.Release(n);
  }
  CHECK(blobs.size() == 0);
}
