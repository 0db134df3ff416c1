// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// PendingSamples: samples a lane of a recorder slot accepted while the
// slot's new-entry lock was busy (slot_tables.h). A sampler that needs a
// new entry never waits for another's: it checks the sample as interning
// would, keeps a copy of it here, and returns; the lane adds the copies,
// in order, the next time one of its samplers holds the lock, and the
// serializer adds what is left before it reads the lane. The copies own
// their strings: the caller's buffers are gone by then.
#ifndef STACKREC_SRC_RECORDER_PENDING_SAMPLES_H_
#define STACKREC_SRC_RECORDER_PENDING_SAMPLES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "input/sample_view.h"

namespace stackrec {

class PendingSamples {
 public:
  // Copies `sample`; throws std::bad_alloc with nothing changed.
  void Add(const SampleView& sample);
  bool empty() const { return taken_ == samples_.size(); }
  // Runs add(sample) on each sample not yet taken, in the order they came,
  // as views of its copy, then forgets them all. If add throws, the
  // samples before the one it threw on stay taken: none is added twice.
  template <typename F>
  void TakeEach(F&& add) {
    for (; taken_ < samples_.size(); ++taken_) add(Get(taken_));
    Clear();
  }
  void Clear();
  size_t MemoryBytes() const { return bytes_; }

 private:
  struct Copy {
    std::unique_ptr<char[]> strings;  // every string of the sample, back to back
    std::vector<LocationView> frames;
    std::vector<LabelView> labels;
    std::vector<int64_t> values;
    int64_t timestamp_ns = 0;
  };
  SampleView Get(size_t i) const;

  std::vector<Copy> samples_;
  size_t taken_ = 0;  // samples_[0, taken_) were added
  size_t bytes_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_PENDING_SAMPLES_H_
