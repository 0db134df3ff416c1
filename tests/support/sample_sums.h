// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Values summed by (frames, labels): what concurrency tests compare, the
// samples a test recorded against those its serialized profiles hold,
// whichever way the samples were split among profiles or parts.
#ifndef STACKREC_TESTS_SUPPORT_SAMPLE_SUMS_H_
#define STACKREC_TESTS_SUPPORT_SAMPLE_SUMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "oracle/pprof_decode.h"

namespace stackrec_test {

// A sample's frames and labels, its timestamp label last when it has one.
using SampleKey = std::pair<std::vector<std::string>, std::vector<std::string>>;
using Sums = std::map<SampleKey, std::vector<int64_t>>;

inline void AddTo(Sums* sums, const SampleKey& key, const std::vector<int64_t>& values) {
  auto [it, inserted] = sums->emplace(key, values);
  if (inserted) return;
  for (size_t i = 0; i < values.size(); ++i) it->second[i] += values[i];
}

// Every sample of `p`, by its frame names and label strings.
inline void AddProfile(const Profile& p, Sums* sums) {
  for (const Sample& s : p.sample()) {
    AddTo(sums, {FrameNames(p, s), LabelStrings(p, s)},
          std::vector<int64_t>(s.value().begin(), s.value().end()));
  }
}

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_SUPPORT_SAMPLE_SUMS_H_
