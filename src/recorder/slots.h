// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// ---------------------------------------------------------------------------
// The two-slot protocol, written once: the recorder's sample slots and its
// heap slots both run it, and it knows nothing of either. What a lane's
// profile holds, and what the serializer does with it, is the recorder's
// business (recorder.cc).
//
// Roles. Writers (samplers, or trackers for the heap slots) call Enter: any
// number of them, at any time, and they must never wait for the serializer
// nor for each other. One serializer thread at a time flips and takes
// lanes (the recorder's serializing_ turns a second one away). The
// recorder's ResetAfterFork runs alone, in a fork() child.
//
// State. Two slots. `active_` names the slot writers write to; the other
// belongs to the serializer. A slot is a set of lanes (lanes.h), each a
// Profile behind a spin lock: a writer writes into a lane whose lock it
// took, any lane, and the serializer takes the lanes of the slot it flipped
// out.
//
// Writer:     s = active_                      (acquire)
//             take a free lane of slot s       (try-lock: seq_cst exchange)
//               or, if every lane is held, add a lane, taken
//                                              (count moved: seq_cst CAS)
//             if active_ != s: unlock, start over              (seq_cst load)
//             write; unlock                    (release)
// Serializer: active_ = other                  (seq_cst, Flip)
//             n = old slot's lane count        (seq_cst load)
//             take each of those n lanes       (try-lock, until a deadline)
//             read and clear them; unlock them
//
// Invariant 1: while the serializer holds a lane it took after its flip,
// no writer touches that lane's profile. A writer that took the lock
// before the serializer did finished its write and unlocked first. One
// that takes it after the serializer unlocks happens after the flip store
// (the unlock synchronizes with its exchange), so its re-check of active_
// sees the flip and it backs off, unless a later flip made the slot active
// again, in which case writing there is right. A writer holding a lane can
// itself never be overtaken: the serializer's try-lock fails. A lane a
// writer adds is covered only if the serializer counts it: the CAS that
// moves the slot's lane count (Lanes::Add) and the serializer's read of the
// count after its flip are seq_cst, as are the flip and the writer's
// re-check, so either the serializer sees the new lane and tries it like
// any other, or the writer's re-check sees the flip and it backs off.
//
// Invariant 2: everything a writer wrote is visible to the serializer: the
// writer's release unlock synchronizes with the serializer's exchange that
// takes the lock; what the serializer reads and clears is published to the
// next writer of the lane by the serializer's unlock.
//
// Why a writer never waits: it only ever try-locks a lane, and a held one
// (by another writer or by the serializer) sends it to the next lane, or to
// a new one; its loop repeats only when a flip happened between its two
// loads of active_, and flips are one per serialization. A writer waits
// only when Lanes::kMaxLanes lanes are held at once. The serializer never
// waits for a writer beyond its deadline: a lane still held then is left
// as it is, and its samples wait for a later serialization.
//
// Lanes are added, never removed while the slots live: their count is the
// most writers that ever wrote at the same instant.
// ---------------------------------------------------------------------------
#ifndef STACKREC_SRC_RECORDER_SLOTS_H_
#define STACKREC_SRC_RECORDER_SLOTS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "base/spin_lock.h"
#include "base/status.h"
#include "recorder/lanes.h"

namespace stackrec {

template <typename Content>
class Slots {
 public:
  using LaneType = Lane<Content>;
  using LanesType = Lanes<Content>;

  // Which lane a thread tries first is remembered per thread, one hint for
  // each kind of slots: a thread that both samples and tracks keeps a lane
  // of each.
  enum class Hint : uint32_t { kSamples = 0, kHeap = 1 };
  // A new lane for slot `s`, not yet published, when every lane is held.
  using NewLaneFn = std::function<std::unique_ptr<LaneType>(uint32_t s)>;

  Slots(Hint hint, NewLaneFn new_lane) : hint_(hint), new_lane_(std::move(new_lane)) {}
  Slots(const Slots&) = delete;
  Slots& operator=(const Slots&) = delete;

  // Writer side. Runs write(lane, s) holding a lane of the active slot `s`,
  // re-checked active under the lane's lock (invariant 1), until it returns
  // a status; a std::nullopt asks to start over (a writer that re-checks
  // more under a lock of its own, as IsActive below).
  template <typename F>
  Status Enter(F&& write);
  // Whether slot `s` is still the active one, for a writer that commits
  // under a lock of its own only into an active slot.
  bool IsActive(uint32_t s) const { return active_.load(std::memory_order_acquire) == s; }

  // Serializer side.
  uint32_t active() const { return active_.load(std::memory_order_relaxed); }
  // Makes the other slot the active one and returns the slot left.
  uint32_t Flip() {
    const uint32_t old = active();
    active_.store(1 - old, std::memory_order_seq_cst);
    return old;
  }
  LanesType& lanes(uint32_t s) { return lanes_[s]; }
  const LanesType& lanes(uint32_t s) const { return lanes_[s]; }
  // In a fork() child, once the lanes are reset: slot 0 is active again.
  void ResetAfterFork() { active_.store(0, std::memory_order_relaxed); }

 private:
  // A free lane of slot `s`, the one this thread took last first; if every
  // lane is held, a new one, unless the slot stopped being active (then the
  // caller starts over). Returned locked; null at a flip or when full.
  LaneType* Take(uint32_t s);

  LanesType lanes_[2];
  std::atomic<uint32_t> active_{0};
  const Hint hint_;
  const NewLaneFn new_lane_;
};

template <typename Content>
template <typename F>
Status Slots<Content>::Enter(F&& write) {
  for (;;) {
    const uint32_t s = active_.load(std::memory_order_acquire);
    LaneType* lane = Take(s);  // its lock taken with a seq_cst exchange
    if (lane == nullptr) {
      SpinLock::CpuRelax();  // a flip, or kMaxLanes writers inside
      continue;
    }
    // Unlocked however `write` ends: a std::bad_alloc thrown inside must
    // not leave the lane held forever.
    SpinLockHolder hold(&lane->lock, SpinLockHolder::kAdopt);
    if (active_.load(std::memory_order_seq_cst) != s) {
      continue;  // the serializer flipped between our two loads: the slot is its
    }
    if (std::optional<Status> status = write(*lane, s)) return *status;
  }
}

// The lanes the serializer took, unlocked when this is destroyed, however
// the serialization ends.
template <typename Content>
class HeldLanes {
 public:
  using Deadline = std::chrono::steady_clock::time_point;
  using LaneType = Lane<Content>;
  using LanesType = Lanes<Content>;

  HeldLanes() = default;
  ~HeldLanes() { Release(); }
  HeldLanes(const HeldLanes&) = delete;
  HeldLanes& operator=(const HeldLanes&) = delete;

  // Takes every lane of `lanes` counted after the flip (invariant 1),
  // trying each until `deadline`; lanes it could not take are listed, by
  // index, in *missed.
  void TakeEach(const LanesType& lanes, Deadline deadline, std::vector<uint32_t>* missed);
  // Takes the lanes of `lanes` listed in *indexes that are free now,
  // without waiting; *indexes keeps those it could not take.
  void TakeFree(const LanesType& lanes, std::vector<uint32_t>* indexes);
  // Takes every lane of `lanes` counted after the flip, or none: false if
  // one is still held at `deadline`.
  bool TakeAll(const LanesType& lanes, Deadline deadline);
  // Unlocks every lane held.
  void Release();

  bool empty() const { return held_.empty(); }
  size_t size() const { return held_.size(); }
  LaneType* operator[](size_t i) const { return held_[i]; }
  typename std::vector<LaneType*>::iterator begin() { return held_.begin(); }
  typename std::vector<LaneType*>::iterator end() { return held_.end(); }

 private:
  std::vector<LaneType*> held_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_SLOTS_H_
