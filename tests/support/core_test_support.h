// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the tests of the C++ core share: running a test case once per
// fingerprint kernel, profile options that passed the checks, and stacks of
// frame views that own their names.
#ifndef STACKREC_TESTS_SUPPORT_CORE_TEST_SUPPORT_H_
#define STACKREC_TESTS_SUPPORT_CORE_TEST_SUPPORT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "hash/fingerprint.h"
#include "input/profile_options.h"
#include "input/sample_view.h"

namespace stackrec_core_test {

// The fingerprint kernels this machine can run: the portable one always.
std::vector<stackrec::FingerprintKernel> AvailableKernels();

// Runs the rest of the test case once per available kernel, and restores
// the process's kernel after.
class EachKernel {
 public:
  EachKernel();
  ~EachKernel();
  EachKernel(const EachKernel&) = delete;
  EachKernel& operator=(const EachKernel&) = delete;

 private:
  stackrec::FingerprintKernel saved_;
};

// Two sample types (samples/count, cpu/nanoseconds), checked by
// MakeProfileOptions; 0: no max_frames.
stackrec::ProfileOptions Options(size_t max_frames = 0);

// A stack of `depth` frames named "<prefix>0", "<prefix>1", ...
class Stack {
 public:
  Stack(const std::string& prefix, size_t depth) {
    for (size_t i = 0; i < depth; ++i) names_.push_back(prefix + std::to_string(i));
    for (const std::string& n : names_) {
      stackrec::LocationView v;
      v.function.name = n;
      v.function.filename = "/app/stack.rb";
      v.line = 7;
      views_.push_back(v);
    }
  }
  // `other`'s first frames, then this stack's from frame `from` on (the
  // names stay owned by their stacks).
  Stack(const Stack& other, size_t leaf_frames, const Stack& rest, size_t from)
      : views_(other.views_.begin(), other.views_.begin() + leaf_frames) {
    views_.insert(views_.end(), rest.views_.begin() + from, rest.views_.end());
  }
  const std::vector<stackrec::LocationView>& views() const { return views_; }
  std::vector<stackrec::LocationView>& views() { return views_; }

 private:
  std::vector<std::string> names_;
  std::vector<stackrec::LocationView> views_;
};

}  // namespace stackrec_core_test

#endif  // STACKREC_TESTS_SUPPORT_CORE_TEST_SUPPORT_H_
