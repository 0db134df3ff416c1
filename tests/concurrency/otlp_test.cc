// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A recorder's serializer writing OTLP while samplers record: every profile,
// pprof and OTLP in turn, decodes, the OTLP ones converted back into pprof's
// model by the specification (otlp_decode.h); together they hold exactly
// what was recorded, key by key, timestamps included. Run under the tsan
// preset in CI (label concurrency).
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

TEST_CASE("samplers record while a serializer writes OTLP and pprof in turn, losing nothing") {
  auto recorder = NewRecorder(Options().opts);
  constexpr int kSamplers = 2;
  std::atomic<bool> stop{false};
  std::vector<Sums> recorded(kSamplers);
  std::vector<uint64_t> failures(kSamplers, 0);
  std::vector<std::thread> samplers;
  for (int t = 0; t < kSamplers; ++t) {
    samplers.emplace_back([&, t] {
      for (uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        SampleBuilder b;
        const std::string leaf = "leaf" + std::to_string(i % 32);
        const std::string root = "thread" + std::to_string(t);
        const std::vector<int64_t> values = {static_cast<int64_t>(i % 1000), 1, 7};
        b.Frame(leaf).Frame(root).Values(values).NumLabel("thread id", t);
        SampleKey key{{leaf, root}, {"thread id=" + std::to_string(t)}};
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
    });
  }

  Sums serialized;
  int profiles = 0;
  auto take = [&] {
    const bool otlp = profiles % 2 == 1;
    const stackrec_serialize_options o =
        SerializeOptions(otlp ? STACKREC_COMPRESSION_ZSTD : STACKREC_COMPRESSION_GZIP, 0,
                         otlp ? STACKREC_FORMAT_OTLP : STACKREC_FORMAT_PPROF);
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(recorder.get(), &o, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    const std::string bytes(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                            stackrec_encoded_size(e));
    if (otlp) {
      const OtlpRequest r = DecodeOtlp(bytes);
      CheckOtlpInvariants(r);
      AddProfile(OtlpToPprof(r), &serialized);
    } else {
      AddProfile(Decode(bytes), &serialized);
    }
    ++profiles;
  };
  // At least a second and at least 100 flips, whichever is later: the test
  // asserts on what happened, never on how fast.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline || profiles < 100) {
    take();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop = true;
  for (auto& t : samplers) t.join();
  take();

  Sums expected;
  for (const Sums& r : recorded) {
    for (const auto& [key, values] : r) AddTo(&expected, key, values);
  }
  INFO("profiles: " << profiles << ", keys: " << expected.size());
  CHECK(failures == std::vector<uint64_t>(kSamplers, 0));
  CHECK(expected.size() > 100);
  CHECK(serialized.size() == expected.size());
  CHECK(serialized == expected);
}
