// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#ifndef STACKREC_SRC_BASE_SPIN_LOCK_H_
#define STACKREC_SRC_BASE_SPIN_LOCK_H_

#include <sched.h>

#include <atomic>
#include <chrono>

#include "absl/base/thread_annotations.h"

namespace stackrec {

// A test-and-test-and-set lock for critical sections of a microsecond or
// two. Why not a mutex: its state is one atomic flag, so after fork() the
// child can put it back to "unlocked" whatever the parent's threads were
// doing, which no pthread or absl mutex allows; and the uncontended path is
// one atomic exchange, with no system call.
class ABSL_LOCKABLE SpinLock {
 public:
  static void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  // The taking exchange is seq_cst, not just acquire, so that a recorder
  // can order it against its flips (recorder/slots.h, invariant 1). On x86
  // both are the same xchg.
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    LockUnless([] { return false; });
  }
  // Takes the lock if it comes free before `deadline`, waiting as Lock()
  // does; seq_cst as Lock(). For a thread that must not wait long on a
  // holder that may have been descheduled or stopped inside.
  bool TryLockUntil(std::chrono::steady_clock::time_point deadline)
      ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    return LockUnless([deadline] { return std::chrono::steady_clock::now() >= deadline; });
  }
  // Takes the lock if it is free, never waiting; seq_cst as Lock(). Reads
  // first, so that a held lock's line is not taken from its holder's core.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_seq_cst);
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() { locked_.store(false, std::memory_order_release); }
  bool IsLocked(std::memory_order order) const { return locked_.load(order); }
  // For the child of a fork() only: the thread that held it does not exist.
  void ForceUnlockAfterFork() { locked_.store(false, std::memory_order_relaxed); }

 private:
  // Lock() and TryLockUntil(): takes the lock, unless give_up() says so
  // first (then false). The uncontended path is the first exchange.
  template <typename GiveUp>
  bool LockUnless(GiveUp give_up) {
    for (int spins = 0; locked_.exchange(true, std::memory_order_seq_cst);) {
      while (locked_.load(std::memory_order_relaxed)) {
        // Contention means another thread is inside a short critical
        // section: spin politely, and only give the core away if that
        // thread was descheduled. give_up() is asked only then, so that a
        // deadline's clock is not read while spinning.
        if (++spins < 1024) {
          CpuRelax();
        } else {
          if (give_up()) return false;
          sched_yield();
        }
      }
    }
    return true;
  }

  std::atomic<bool> locked_{false};
};

class ABSL_SCOPED_LOCKABLE SpinLockHolder {
 public:
  explicit SpinLockHolder(SpinLock* lock) ABSL_EXCLUSIVE_LOCK_FUNCTION(lock) : lock_(lock) {
    lock_->Lock();
  }
  // For a lock the caller already holds (TryLock, TryLockUntil).
  enum Adopt { kAdopt };
  SpinLockHolder(SpinLock* lock, Adopt) ABSL_EXCLUSIVE_LOCKS_REQUIRED(lock) : lock_(lock) {}
  ~SpinLockHolder() ABSL_UNLOCK_FUNCTION() { lock_->Unlock(); }
  SpinLockHolder(const SpinLockHolder&) = delete;
  SpinLockHolder& operator=(const SpinLockHolder&) = delete;

 private:
  SpinLock* lock_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_SPIN_LOCK_H_
