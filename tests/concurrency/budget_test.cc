// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A recorder's serializer splitting each profile into parts within a
// budget while samplers record: every part decodes and is within the
// budget, and all the parts of all the profiles hold exactly what was
// recorded, key by key, timestamps included. Run under the tsan preset in
// CI (label concurrency).
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "oracle/otlp_decode.h"
#include "support/sample_sums.h"
#include "support/test_support.h"

using namespace stackrec_test;

TEST_CASE("samplers record while a serializer splits every profile into parts, losing nothing") {
  auto recorder = NewRecorder(Options().opts);
  constexpr int kSamplers = 2;
  // A bounded number of samples each, so that the test's work is bounded
  // however fast the samplers run against the serializer.
  constexpr uint64_t kSamplesEach = 20000;
  std::atomic<int> running{kSamplers};
  std::vector<Sums> recorded(kSamplers);
  std::vector<uint64_t> failures(kSamplers, 0);
  std::vector<std::thread> samplers;
  for (int t = 0; t < kSamplers; ++t) {
    samplers.emplace_back([&, t] {
      for (uint64_t i = 0; i < kSamplesEach; ++i) {
        if (i % 64 == 0) std::this_thread::yield();
        SampleBuilder b;
        // Deep enough stacks with distinct leaves that a part holds tens.
        const std::string leaf = "leaf_function_with_a_long_name_" + std::to_string(i % 400);
        const std::string mid = "middle_" + std::to_string(i % 13);
        const std::string root = "thread" + std::to_string(t);
        const std::vector<int64_t> values = {static_cast<int64_t>(i % 1000), 1, 7};
        b.Frame(leaf).Frame(mid).Frame(root).Values(values).NumLabel("thread id", t);
        SampleKey key{{leaf, mid, root}, {"thread id=" + std::to_string(t)}};
        if (i % 11 == 0) {
          const int64_t ts = 1700000000000000000 + static_cast<int64_t>(i) * 2 + t;
          b.Timestamp(ts);
          key.second.push_back("end_timestamp_ns=" + std::to_string(ts));
        }
        if (stackrec_recorder_record(recorder.get(), &b.Get()) != STACKREC_OK) {
          failures[t]++;
          continue;
        }
        AddTo(&recorded[t], key, values);
      }
      running.fetch_sub(1);
    });
  }

  constexpr size_t kPartBytes = 16384;
  Sums serialized;
  int profiles = 0;
  size_t most_parts = 0;
  auto take = [&] {
    const bool otlp = profiles % 2 == 1;
    stackrec_serialize_options o =
        SerializeOptions(otlp ? STACKREC_COMPRESSION_ZSTD : STACKREC_COMPRESSION_GZIP, 0,
                         otlp ? STACKREC_FORMAT_OTLP : STACKREC_FORMAT_PPROF);
    o.part_max_uncompressed_bytes = kPartBytes;
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(recorder.get(), &o, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    stackrec_encode_stats stats{};
    REQUIRE(stackrec_encoded_stats(e, &stats) == STACKREC_OK);
    REQUIRE(stats.samples_left_out == 0);
    const size_t n = stackrec_encoded_parts_len(e);
    most_parts = std::max(most_parts, n);
    for (size_t i = 0; i < n; ++i) {
      stackrec_part part{};
      REQUIRE(stackrec_encoded_part(e, i, &part) == STACKREC_OK);
      REQUIRE(part.uncompressed_bytes <= kPartBytes);
      const std::string bytes(reinterpret_cast<const char*>(part.data), part.size);
      Profile p;
      if (otlp) {
        const OtlpRequest r = DecodeOtlp(bytes);
        CheckOtlpInvariants(r);
        p = OtlpToPprof(r);
      } else {
        p = Decode(bytes);
        CheckInvariants(p);
      }
      REQUIRE(Decompress(bytes).size() == part.uncompressed_bytes);
      AddProfile(p, &serialized);
    }
    ++profiles;
  };
  // Flips until the samplers are done, and at least 20 times: the test
  // asserts on what happened, never on how fast.
  while (running.load() != 0 || profiles < 20) {
    take();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (auto& t : samplers) t.join();
  take();

  Sums expected;
  for (const Sums& r : recorded) {
    for (const auto& [key, values] : r) AddTo(&expected, key, values);
  }
  INFO("profiles: " << profiles << ", keys: " << expected.size() << ", most parts " << most_parts);
  CHECK(failures == std::vector<uint64_t>(kSamplers, 0));
  CHECK(most_parts > 1);
  CHECK(serialized.size() == expected.size());
  CHECK(serialized == expected);
}
