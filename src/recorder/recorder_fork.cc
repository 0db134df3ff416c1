// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The recorder in a fork() child: empty and usable again, whatever the
// parent's threads were doing at the fork. What a parent thread may have
// been changing is abandoned, never touched; the rest is reset in place.
// ResetAfterFork runs each part's own reset, in the order they depend on
// each other.
#include <atomic>
#include <memory>
#include <vector>

#include "recorder/recorder.h"

namespace stackrec {
namespace {

// Hands *owner's object to a list of objects a fork() child must neither
// use nor free: a thread of the parent may have been in the middle of
// changing them. Reachable from the list, so leak checkers do not report
// them.
template <typename T>
void Abandon(std::unique_ptr<T>* owner) {
  static auto* abandoned = new std::vector<const void*>();
  abandoned->push_back(owner->release());
}

// Frees *owner's object, or abandons it if a parent thread may have been
// in it.
template <typename T>
void FreeOrAbandon(std::unique_ptr<T>* owner, bool in_use) {
  if (in_use) {
    Abandon(owner);
  } else {
    owner->reset();
  }
}

}  // namespace

void Recorder::ResetAfterFork(int64_t now_ns) {
  // Only this thread exists in the child.
  const bool serializer_was_busy = serializing_.load(std::memory_order_relaxed);
  const uint32_t active = samples_.active();
  for (uint32_t s = 0; s < 2; ++s) {
    ResetSampleSlotAfterFork(s, serializer_was_busy && s != active, now_ns);
  }
  ResetHeapSlotsAfterFork(serializer_was_busy, now_ns);
  samples_.ResetAfterFork();
  carried_endpoints_.clear();
  // The rules are configuration: the child keeps them.
  upscaling_lock_.ForceUnlockAfterFork();
  ResetDictionaryAfterFork();
  ResetTrackingAfterFork(serializer_was_busy);
  stats_lock_.ForceUnlockAfterFork();
  {
    SpinLockHolder hold(&stats_lock_);
    stats_ = RecorderStats();
  }
  records_rejected_.store(0, std::memory_order_relaxed);
  serializing_.store(false, std::memory_order_release);
}

void Recorder::ResetSampleSlotAfterFork(uint32_t s, bool serializers, int64_t now_ns) {
  // The lanes' contents and the slot's tables, made anew: a lane or the
  // tables a parent thread held (a sampler inside, or the serializer when
  // `serializers`) are abandoned, the rest freed.
  SlotState& state = slot_state_[s];
  auto& lanes = samples_.lanes(s);
  for (uint32_t l = 0; l < lanes.count(); ++l) {
    SampleLaneOf* lane = lanes.at(l);
    FreeOrAbandon(&lane->content, serializers || lane->lock.IsLocked(std::memory_order_relaxed));
  }
  FreeOrAbandon(&state.tables,
                serializers || state.tables->lock().IsLocked(std::memory_order_relaxed));
  // What abandoned parts published is never withdrawn: count anew.
  state.memory_bytes.store(0, std::memory_order_relaxed);
  state.tables = std::make_unique<SlotTables>(options_, &state.memory_bytes);
  for (uint32_t l = 0; l < lanes.count(); ++l) {
    SampleLaneOf* lane = lanes.at(l);
    lane->content =
        std::make_unique<SampleLane>(options_, now_ns, *state.tables, &state.memory_bytes);
    lane->ResetAfterFork();
  }
  state.start_ns = now_ns;
  state.kept_failed = false;
  state.skipped.clear();
}

void Recorder::ResetHeapSlotsAfterFork(bool serializer_was_busy, int64_t now_ns) {
  // A heap lane's profile has tables of its own and shares no cap; one a
  // tracker or the serializer was in is abandoned.
  const size_t heap_width = live_heap_options_.types.size();
  for (uint32_t h = 0; h < 2; ++h) {
    auto& lanes = heap_.lanes(h);
    for (uint32_t l = 0; l < lanes.count(); ++l) {
      HeapLane* lane = lanes.at(l);
      if (lane->content == nullptr) continue;  // a heap lane without tracking
      if (serializer_was_busy || lane->lock.IsLocked(std::memory_order_relaxed)) {
        Abandon(&lane->content);
        lane->content = std::make_unique<Profile>(options_, now_ns, heap_width);
      } else {
        lane->content->Reset(now_ns);
      }
      lane->ResetAfterFork();
    }
  }
  heap_.ResetAfterFork();
  heap_pending_ = false;
}

void Recorder::ResetDictionaryAfterFork() {
  // The dictionary is kept (ids stay valid) unless a parent sampler was
  // interning at the fork: then it is abandoned, and a new one hands out
  // ids of the next generation, so the old ones are refused as stale.
  if (dict_lock_.IsLocked(std::memory_order_relaxed)) {
    Abandon(&dict_);
    const uint32_t next = dict_generation_.load(std::memory_order_relaxed) + 1;
    dict_ = std::make_unique<Dictionary>(options_.max_frames, next);
    dict_generation_.store(dict_->generation(), std::memory_order_relaxed);
  }
  dict_lock_.ForceUnlockAfterFork();
}

void Recorder::ResetTrackingAfterFork(bool serializer_was_busy) {
  // Every tracked object is forgotten: the child's heap is the parent's,
  // but its frees are its own business from here on. Tables a parent
  // tracker was changing (a shard's or a stripe's lock held) or totals a
  // parent serializer was changing are abandoned like slots.
  objects_not_tracked_.store(0, std::memory_order_relaxed);
  if (tracked_ == nullptr) return;
  if (tracked_->AnyLockHeld()) Abandon(&tracked_);
  tracked_ = std::make_unique<TrackedObjects>(options_, live_heap_options_);
  if (serializer_was_busy) Abandon(&live_totals_);
  live_totals_ = std::make_unique<LiveTotals>(options_, live_heap_options_);
}

}  // namespace stackrec
