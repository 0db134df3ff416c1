// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SpinLock::TryLockUntil (src/base/spin_lock.h): what the serializer uses to
// take a lane a sampler may be stopped inside. The deadlines are far in
// the past or far in the future, so no outcome depends on how fast the
// machine is. Run under the tsan preset with the other concurrency tests.
#include <atomic>
#include <chrono>
#include <thread>

#include "base/spin_lock.h"
#include "catch2/catch.hpp"

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

TEST_CASE("a spin lock held past its deadline is not taken by TryLockUntil") {
  stackrec::SpinLock lock;
  lock.Lock();
  CHECK_FALSE(lock.TryLockUntil(Clock::now() - std::chrono::seconds(1)));
  CHECK(lock.IsLocked(std::memory_order_relaxed));
  lock.Unlock();
}

TEST_CASE("a free spin lock is taken by TryLockUntil whatever the deadline") {
  stackrec::SpinLock lock;
  CHECK(lock.TryLockUntil(Clock::now() - std::chrono::seconds(1)));
  CHECK(lock.IsLocked(std::memory_order_relaxed));
  lock.Unlock();
  CHECK(lock.TryLockUntil(Clock::now() + std::chrono::hours(1)));
  CHECK(lock.IsLocked(std::memory_order_relaxed));
  lock.Unlock();
}

TEST_CASE("a spin lock released by another thread before the deadline is taken by TryLockUntil") {
  stackrec::SpinLock lock;
  lock.Lock();
  // Written by the holder before it unlocks: the taker must see it (tsan
  // checks that the unlock and the taking exchange synchronize).
  int written = 0;
  std::atomic<bool> waiting{false};
  std::thread holder([&] {
    while (!waiting.load()) std::this_thread::yield();
    // Likely, not needed: the taker is inside TryLockUntil by now.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    written = 1;
    lock.Unlock();
  });
  waiting = true;
  const bool taken = lock.TryLockUntil(Clock::now() + std::chrono::hours(1));
  const int seen = taken ? written : -1;
  if (taken) lock.Unlock();
  holder.join();
  CHECK(taken);
  CHECK(seen == 1);
}
