// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// BytesShare: one owner's part of a byte count that several owners keep
// together, each on its own thread (a recorder slot's lanes and tables
// share one max_memory_bytes). Each owner publishes its own count into the
// total as a change since its last publication, and reads the total to
// compare it with a cap. Knows nothing of what the bytes are.
//
// Memory ordering: relaxed throughout. The total is a bound that may be
// read a publication late; nothing else is ordered by it, and a cap that
// is reached one table growth late is still reached.
#ifndef STACKREC_SRC_CONCURRENT_BYTES_SHARE_H_
#define STACKREC_SRC_CONCURRENT_BYTES_SHARE_H_

#include <atomic>
#include <cstddef>

namespace stackrec {

class BytesShare {
 public:
  BytesShare() = default;
  // Withdraws what it published: an owner destroyed no longer counts.
  ~BytesShare() { Leave(); }
  BytesShare(const BytesShare&) = delete;
  BytesShare& operator=(const BytesShare&) = delete;

  // Whether this owner counts into a total at all (Join).
  bool joined() const { return total_ != nullptr; }
  // Counts into *total from now on, after withdrawing from the total it
  // counted into before, if any; nothing is published until Publish.
  void Join(std::atomic<size_t>* total) {
    Leave();
    total_ = total;
  }
  // Makes the total count `own` for this owner. One relaxed add when it
  // changed, none when not, so an owner may call it on every check.
  void Publish(size_t own) {
    if (total_ == nullptr || own == published_) return;
    // Modular: an owner that shrank adds the two's complement of the drop.
    total_->fetch_add(own - published_, std::memory_order_relaxed);
    published_ = own;
  }
  // The sum of every joined owner's last publication, and where it is kept
  // (for another owner to Join).
  size_t total() const { return total_->load(std::memory_order_relaxed); }
  std::atomic<size_t>* total_counter() const { return total_; }

 private:
  void Leave() {
    if (total_ != nullptr) total_->fetch_sub(published_, std::memory_order_relaxed);
    published_ = 0;
  }

  std::atomic<size_t>* total_ = nullptr;
  size_t published_ = 0;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_CONCURRENT_BYTES_SHARE_H_
