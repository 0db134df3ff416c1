// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The two-slot protocol's lane taking: a writer's free lane or new one, and
// the serializer's bounded takes (the protocol is in slots.h).
#include "recorder/slots.h"

#include <utility>

#include "profile/profile.h"
#include "recorder/sample_lane.h"

namespace stackrec {
namespace {

// The lane each thread took last, per kind of slots, in whichever recorder:
// where it looks first, so that each writer keeps to a lane of its own and
// its lines stay in its core's cache. Initial-exec: a load at a fixed
// offset from the thread pointer rather than a call to __tls_get_addr on
// every record (eight bytes of the static TLS that glibc keeps for
// libraries loaded later).
__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_lane_hints[2] = {0, 0};

}  // namespace

template <typename Content>
typename Slots<Content>::LaneType* Slots<Content>::Take(uint32_t s) {
  uint32_t& hint = t_lane_hints[static_cast<uint32_t>(hint_)];
  LanesType& lanes = lanes_[s];
  const uint32_t n = lanes.count();
  uint32_t i = hint < n ? hint : 0;
  for (uint32_t tried = 0; tried < n; ++tried) {
    LaneType* lane = lanes.at(i);
    if (lane->lock.TryLock()) {
      hint = i;
      return lane;
    }
    if (++i == n) i = 0;
  }
  // Every lane is held, by other writers or by the serializer after a flip.
  if (active_.load(std::memory_order_seq_cst) != s) return nullptr;
  std::unique_ptr<LaneType> fresh = new_lane_(s);
  fresh->lock.Lock();  // not published yet: free
  LaneType* lane = fresh.get();
  const uint32_t index = lanes.Add(std::move(fresh));
  if (index == LanesType::kMaxLanes) return nullptr;
  hint = index;
  return lane;
}

template <typename Content>
void HeldLanes<Content>::TakeEach(const LanesType& lanes, Deadline deadline,
                                  std::vector<uint32_t>* missed) {
  const uint32_t n = lanes.count_seq_cst();  // after the flip (invariant 1)
  held_.reserve(held_.size() + n);
  missed->clear();
  for (uint32_t i = 0; i < n; ++i) {
    LaneType* lane = lanes.at(i);
    if (lane->lock.TryLockUntil(deadline)) {
      held_.push_back(lane);
    } else {
      missed->push_back(i);
    }
  }
}

template <typename Content>
void HeldLanes<Content>::TakeFree(const LanesType& lanes, std::vector<uint32_t>* indexes) {
  held_.reserve(held_.size() + indexes->size());
  size_t kept = 0;
  for (uint32_t i : *indexes) {
    LaneType* lane = lanes.at(i);
    if (lane->lock.TryLock()) {
      held_.push_back(lane);
    } else {
      (*indexes)[kept++] = i;
    }
  }
  indexes->resize(kept);
}

template <typename Content>
bool HeldLanes<Content>::TakeAll(const LanesType& lanes, Deadline deadline) {
  const uint32_t n = lanes.count_seq_cst();  // after the flip (invariant 1)
  const size_t before = held_.size();
  held_.reserve(before + n);
  for (uint32_t i = 0; i < n; ++i) {
    LaneType* lane = lanes.at(i);
    if (!lane->lock.TryLockUntil(deadline)) {
      for (size_t j = before; j < held_.size(); ++j) held_[j]->lock.Unlock();
      held_.resize(before);
      return false;
    }
    held_.push_back(lane);
  }
  return true;
}

template <typename Content>
void HeldLanes<Content>::Release() {
  for (LaneType* lane : held_) lane->lock.Unlock();
  held_.clear();
}

// The two kinds of slots a recorder has.
template class Slots<SampleLane>;
template class Slots<Profile>;
template class HeldLanes<SampleLane>;
template class HeldLanes<Profile>;

}  // namespace stackrec
