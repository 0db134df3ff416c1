// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// 50,000 random samples against a reference model that is too simple to be
// wrong: a std::map from (frames, labels) to summed values; and the OTLP of
// the same profile against its pprof.
#include <map>
#include <random>

#include "catch2/catch.hpp"
#include "oracle/otlp_decode.h"
#include "support/canonical.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

using Key = std::pair<std::vector<std::string>, std::vector<std::string>>;
using Values = std::vector<int64_t>;

struct Model {
  std::map<Key, Values> aggregated;
  std::vector<std::pair<Key, Values>> timed;  // in insertion order
};

std::string FrameName(int i) {
  return "Module" + std::to_string(i % 7) + "::fn" + std::to_string(i);
}

}  // namespace

TEST_CASE("50,000 random samples match a reference model exactly") {
  std::mt19937_64 rng(20261130);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto p = NewProfile();
  Model model;
  std::map<int64_t, std::string> endpoints;

  for (int i = 0; i < 50000; ++i) {
    SampleBuilder b;
    std::vector<std::string> frames;
    const int depth = pick(9);
    const int root = pick(4);
    for (int d = 0; d < depth; ++d) {
      // Root-side frames repeat more than leaf-side ones, as in a call tree.
      const int fn = d < depth / 2 ? root * 10 + d : pick(40);
      frames.push_back(FrameName(fn));
    }
    for (const auto& f : frames) b.Frame(f, "/app/file" + f.substr(f.size() - 1) + ".rb", 1);
    Values values = {static_cast<int64_t>(rng() % 2000001) - 1000000, 1,
                     static_cast<int64_t>(rng() % 1000)};
    b.Values(values);
    std::vector<std::string> labels;
    if (pick(4) != 0) {
      const int tid = pick(4);
      b.NumLabel("thread id", tid);
      labels.push_back("thread id=" + std::to_string(tid));
    }
    if (pick(3) == 0) {
      const std::string name = "worker " + std::to_string(pick(3));
      b.Label("thread name", name);
      labels.push_back("thread name=" + name);
    }
    if (pick(2) == 0) {
      const int64_t span = 1 + pick(50);
      b.NumLabel("local root span id", span);
      labels.push_back("local root span id=" + std::to_string(span));
    }
    if (pick(5) == 0) {
      const int64_t bytes = pick(3) * 512;
      b.NumLabel("size", bytes, "bytes");
      labels.push_back("size=" + std::to_string(bytes) + "[bytes]");
    }
    const bool timed = pick(10) == 0;
    if (timed) b.Timestamp(1700000000000000000 + i);
    Add(p.get(), b);

    Key key{frames, labels};
    if (timed) {
      key.second.push_back("end_timestamp_ns=" + std::to_string(1700000000000000000 + i));
      model.timed.emplace_back(key, values);
    } else {
      auto [it, inserted] = model.aggregated.emplace(key, values);
      if (!inserted) {
        for (size_t v = 0; v < values.size(); ++v) it->second[v] += values[v];
      }
    }
    if (pick(100) == 0) {
      const int64_t span = 1 + pick(50);
      const std::string endpoint = "GET /r" + std::to_string(pick(10));
      REQUIRE(stackrec_profile_set_endpoint(p.get(), static_cast<uint64_t>(span), S(endpoint)) ==
              STACKREC_OK);
      endpoints[span] = endpoint;
    }
  }

  // The model's view of the endpoint labels: added first, for matching spans.
  auto with_endpoint = [&](Key key) {
    for (const auto& l : key.second) {
      const std::string prefix = "local root span id=";
      if (l.compare(0, prefix.size(), prefix) == 0) {
        auto it = endpoints.find(std::stoll(l.substr(prefix.size())));
        if (it != endpoints.end()) {
          key.second.insert(key.second.begin(), "trace endpoint=" + it->second);
        }
        break;
      }
    }
    return key;
  };
  std::map<Key, Values> expected_aggregated;
  for (const auto& [key, values] : model.aggregated)
    expected_aggregated[with_endpoint(key)] = values;
  std::vector<std::pair<Key, Values>> expected_timed;
  for (const auto& [key, values] : model.timed)
    expected_timed.emplace_back(with_endpoint(key), values);

  for (auto c : {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}) {
    const Profile out = SerializeAndDecode(p.get(), c);
    std::map<Key, Values> got_aggregated;
    std::vector<std::pair<Key, Values>> got_timed;
    for (const auto& s : out.sample()) {
      Key key{FrameNames(out, s), LabelStrings(out, s)};
      Values values(s.value().begin(), s.value().end());
      const bool is_timed =
          !key.second.empty() && key.second.back().rfind("end_timestamp_ns=", 0) == 0;
      if (is_timed) {
        got_timed.emplace_back(key, values);
      } else {
        // Aggregated keys are unique in the output.
        REQUIRE(got_aggregated.emplace(key, values).second);
      }
    }
    CHECK(got_aggregated.size() == expected_aggregated.size());
    CHECK(got_aggregated == expected_aggregated);
    CHECK(got_timed.size() == expected_timed.size());
    CHECK(got_timed == expected_timed);
  }

  // The same profile as OTLP, converted back by the specification alone
  // (otlp_decode.h): the pprof above, sample type by sample type, with the
  // same stacks and lines, labels and timestamps.
  const Profile pprof = Decode(Serialize(p.get(), STACKREC_COMPRESSION_NONE));
  for (auto c : {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}) {
    const OtlpRequest r =
        DecodeOtlp(Serialize(p.get(), SerializeOptions(c, 0, STACKREC_FORMAT_OTLP)));
    CheckOtlpInvariants(r);
    CHECK(Canonical(OtlpToPprof(r)) == Canonical(pprof));
  }
}
