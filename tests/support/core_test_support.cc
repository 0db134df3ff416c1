// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "support/core_test_support.h"

#include "catch2/catch.hpp"

namespace stackrec_core_test {

std::vector<stackrec::FingerprintKernel> AvailableKernels() {
  std::vector<stackrec::FingerprintKernel> kernels;
  for (auto k : {stackrec::FingerprintKernel::kPortable, stackrec::FingerprintKernel::kAes}) {
    if (stackrec::FingerprintKernelAvailable(k)) kernels.push_back(k);
  }
  return kernels;
}

EachKernel::EachKernel() : saved_(stackrec::ActiveFingerprintKernel()) {
  const stackrec::FingerprintKernel kernel =
      GENERATE(Catch::Generators::from_range(AvailableKernels()));
  stackrec::SetFingerprintKernelForTesting(kernel);
}

EachKernel::~EachKernel() { stackrec::SetFingerprintKernelForTesting(saved_); }

stackrec::ProfileOptions Options(size_t max_frames) {
  stackrec::ProfileOptions in;
  in.sample_types = {{"samples", "count"}, {"cpu", "nanoseconds"}};
  in.max_frames = max_frames;
  stackrec::ProfileOptions out;
  REQUIRE(stackrec::MakeProfileOptions(in, &out).ok());
  return out;
}

}  // namespace stackrec_core_test
