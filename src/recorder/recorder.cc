// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// ---------------------------------------------------------------------------
// The recorder over the two-slot protocol (slots.h, whose invariants 1 and 2
// this builds on). Samplers enter a lane of the active sample slot
// (Slots::Enter) and add to its profile; the serializer flips the slots and
// merges the old slot's lanes into one profile, which it encodes as
// [old.start, flip instant]. The serializer tries each lane for at most
// kLaneWait (2 ms), trackers' heap lanes included, and never waits longer.
//
// A sample slot's lanes share one set of tables (recorder/slot_tables.h):
// a sampler finds known stacks and label sets lock-free and adds to its
// lane's own rows; a new entry is interned under the slot's new-entry
// lock, taken with a try-lock, or the sample is parked in the lane. A
// sampler holds that lock only while it holds a lane of the slot, so once
// the serializer holds every lane of the old slot the lock is free; it
// takes it anyway, to read and change the tables, waiting up to
// kTablesWait for a sampler in a lane it could not take. It adds the
// lanes' parked samples, and merges the lanes by key ids, the tables being
// the same. Replacing the tables (SlotTables::CarryOver) waits for a
// serialization that held every lane.
//
// Lanes the serializer could not take in time (a sampler descheduled or
// stopped inside) keep their samples: it tries them again, without
// waiting, at its next serialization, although their slot is then the
// active one (a lane's lock is what keeps samplers out, whatever its slot),
// merging them by content under that slot's new-entry lock if it is free,
// and at the slot's next serialization. Their samples reach a profile one
// or two intervals late, and the sums over all profiles stay exact; a
// serialization after the samplers stopped takes every lane.
//
// A slot's lanes and tables share max_memory_bytes: each publishes its
// size into the slot's counter when it grows or shrinks, and checks the
// sum (Profile::ShareMemoryCap, SlotTables::PublishMemory).
//
// Time tiles: the flip instant t ends the old slot's profile and starts the
// new active one, so consecutive profiles cover adjacent intervals.
//
// Upscaling rules are configuration, not samples: AddUpscalingRule keeps
// them under a lock only it and the serializer take, and the serializer
// copies them into the slot it encodes, so they hold for every profile
// from the next serialization on, whatever the flips.
//
// Pre-interned ids (dictionary.h): one Dictionary for both slots, under
// dict_lock_, which only samplers (intern_*, record_ids, forget_ids) take.
// Each lane copies what its samples use out of the dictionary once into
// its slot's tables, under the slot's new-entry lock and then that one
// (the one order: an intern only tries the slot's lock), and afterwards
// finds it by id alone (samplers wait for each other there only while a
// lane imports a stack or label set it has not seen); the serializer
// encodes the slot's copies and never reads the dictionary. forget_ids
// publishes the new generation in dict_generation_ (release); a sampler
// compares it (acquire) with the generation its lane's imports belong to
// and drops them when they differ, so an id from before the forget is
// refused.
//
// Endpoints: RecordEndpoint writes into a lane of the active slot, and the
// merge gathers them with the samples. A request may outlive a flip, so the
// endpoints of the slot serialized last are carried into the next
// serialization and apply to spans that slot does not name itself (one
// flip of grace).
//
// Live-heap tracking (live_heap/) adds three pieces of state, one per
// owner:
//  - two heap slots (`heap_`, slots.h like the sample slots), whose lanes'
//    Profiles hold "heap deltas": Track adds the object's values at the
//    live-heap types to its (stack, labels) row, Untrack subtracts them.
//    Trackers write to the active heap slot under the same protocol: a
//    tracker takes any free lane of it, or adds one, and never waits for
//    another tracker's lane (heap_.Enter). The serializer flips the heap
//    slots right after the slots and takes all the old one's lanes with
//    the same bounded try, or none: an object tracked in one lane and
//    freed in another must reach the totals in one absorption. If a
//    tracker still holds one, the serializer does not flip the heap slots
//    again until it has absorbed them all: meanwhile trackers go on in the
//    active heap slot, and the profiles carry the totals as of the last
//    heap slot absorbed.
//  - TrackedObjects (samplers only): the objects, in shards by id, each
//    under a spin lock of its own, and their content (stacks, label sets)
//    interned in the tracking thread's home (a ContentBlobs, striped under
//    spin locks of its own), so that Untrack can name the object's key in
//    whatever heap lane it entered. Lock order: a heap lane's lock, then a
//    shard's, then a stripe's. The serializer takes none of the shards'
//    and stripes' locks; trackers wait for each other on them only for one
//    lookup or commit in the same shard or stripe. Records never take
//    them.
//  - LiveTotals (serializer only, during its turn): the heap lanes taken
//    are added to the running totals by content and cleared; then every
//    non-zero total is added to the merged profile's ordinary keys before
//    encoding. If encoding fails, that addition is undone (KeyUndo) while
//    the deltas stay consumed, so the next profile counts each object once.
//
// Invariant 3: each object's deltas reach the totals in the order they
// were made. A tracker commits a delta under its object's shard lock only
// if the heap slot of the lane it entered is still active (it re-reads
// heap_.IsActive under the lock); otherwise it leaves and enters the new
// one. Without that, an Untrack that entered the old heap slot before a
// flip, but took the shard lock after a Track that went to the new one,
// would put the object's minus into an earlier absorption than its plus.
// Why the check suffices: while a tracker holds a heap lane, the
// serializer cannot flip the heap slots a second time (it absorbs every
// lane of the old one, taking their locks, before it flips again), so
// "still active" means "no flip since I entered", and every delta of the
// object committed before it under the shard lock went to this heap slot
// or to one absorbed earlier. A commit that read the active heap slot
// after the flip store is ordered before ours by the shard lock, and
// coherence then makes our read of it see the flip too. The retry is the
// same loop as the entry's: once per flip, never a wait. Heap slots are
// absorbed whole, in the order they were flipped out, so the totals take
// each object's deltas in order.
// ---------------------------------------------------------------------------
#include "recorder/recorder.h"

#include <utility>

namespace stackrec {
namespace {

// Which thread is running, as a value that no other live thread has: the
// thread pointer, one register read where the compiler offers it (a
// thread_local's address is a call to __tls_get_addr from a shared
// library, as pthread_self() is a call into libc).
const void* ThisThread() {
#if defined(__x86_64__) || defined(__aarch64__)
  return __builtin_thread_pointer();
#else
  static thread_local char marker;
  return &marker;
#endif
}

}  // namespace

Recorder::Recorder(const ProfileOptions& options, int64_t now_ns, const LiveHeapOptions& live_heap)
    : options_(options),
      dict_(std::make_unique<Dictionary>(options.max_frames)),
      // A lane added by a sampler starts at 0: the slot keeps the start.
      samples_(SampleSlots::Hint::kSamples, [this](uint32_t s) { return NewLane(s, 0); }),
      heap_(HeapSlots::Hint::kHeap, [this](uint32_t) { return NewHeapLane(0); }),
      live_heap_options_(live_heap) {
  for (uint32_t s = 0; s < 2; ++s) {
    slot_state_[s].tables = std::make_unique<SlotTables>(options_, &slot_state_[s].memory_bytes);
    samples_.lanes(s).Add(NewLane(s, now_ns));
    slot_state_[s].start_ns = now_ns;
  }
  if (!live_heap_options_.types.empty()) {
    for (uint32_t h = 0; h < 2; ++h) heap_.lanes(h).Add(NewHeapLane(now_ns));
    live_totals_ = std::make_unique<LiveTotals>(options_, live_heap_options_);
    tracked_ = std::make_unique<TrackedObjects>(options_, live_heap_options_);
  }
}

Recorder::~Recorder() = default;

std::unique_ptr<Recorder::HeapLane> Recorder::NewHeapLane(int64_t start_ns) {
  auto lane = std::make_unique<HeapLane>();
  lane->content = std::make_unique<Profile>(options_, start_ns, live_heap_options_.types.size());
  return lane;
}

std::unique_ptr<Recorder::SampleLaneOf> Recorder::NewLane(uint32_t s, int64_t start_ns) {
  auto lane = std::make_unique<SampleLaneOf>();
  lane->content = std::make_unique<SampleLane>(options_, start_ns, *slot_state_[s].tables,
                                               &slot_state_[s].memory_bytes);
  return lane;
}

template <typename F>
Status Recorder::RecordWith(F&& add) {
  const Status status = samples_.Enter([&](SampleLaneOf& lane, uint32_t) -> std::optional<Status> {
    SampleLane& content = *lane.content;
    const Profile& profile = content.profile();
    const uint64_t truncated = profile.samples_truncated();
    const uint64_t over_memory = profile.samples_over_memory();
    Status s = add(content);
    // Only this sampler (holding the lane's lock) writes these: a plain
    // addition through relaxed load and store, no read-modify-write. The
    // caps' counts by what changed: a record may also add samples parked
    // in the lane earlier (sample_lane.h), which count then.
    auto bump = [](std::atomic<uint64_t>& counter, uint64_t by) {
      counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
    };
    if (s.ok()) bump(lane.samples, 1);
    bump(lane.truncated, profile.samples_truncated() - truncated);
    bump(lane.over_memory, profile.samples_over_memory() - over_memory);
    // Samplers taking turns on this lane (this one follows another): the
    // next sampler is likely another thread too, so this sample's deferred
    // lookup (aggregate.h) is settled now, while the lines it
    // prefetched are in this core's cache, rather than left for that
    // sampler to read from here. A sampler alone keeps the deferral, which
    // saves it the lookup's miss.
    const void* const self = ThisThread();
    if (self != lane.last_sampler) {
      lane.last_sampler = self;
      content.profile().SettlePending();
    }
    if (void (*hook)(void*) = record_hook_.load(std::memory_order_acquire)) {
      hook(record_hook_arg_);
    }
    return s;
  });
  if (!status.ok()) records_rejected_.fetch_add(1, std::memory_order_relaxed);
  return status;
}

Status Recorder::Record(const SampleView& sample, const HashedFrames* frames) {
  return RecordWith([&](SampleLane& lane) { return lane.Add(sample, frames); });
}

Status Recorder::RecordIds(const IdSampleView& sample) {
  return RecordWith([&](SampleLane& lane) {
    // The lane's own imports are read without the dictionary; a stack it
    // has not imported yet is copied in under the dictionary lock, which
    // only samplers take.
    return lane.AddIds(sample, dict_generation_.load(std::memory_order_acquire),
                       [&](absl::FunctionRef<Status(const Dictionary&)> import) {
                         SpinLockHolder hold(&dict_lock_);
                         return import(*dict_);
                       });
  });
}

Status Recorder::RecordEndpoint(uint64_t local_root_span_id, absl::string_view endpoint) {
  return samples_.Enter([&](SampleLaneOf& lane, uint32_t) -> std::optional<Status> {
    return lane.content->SetEndpoint(local_root_span_id, endpoint);
  });
}

Status Recorder::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  return samples_.Enter([&](SampleLaneOf& lane, uint32_t) -> std::optional<Status> {
    return lane.content->AddEndpointCount(endpoint, value);
  });
}

Status Recorder::AddUpscalingRule(UpscalingRule rule) {
  SpinLockHolder hold(&upscaling_lock_);
  return upscaling_.Add(std::move(rule), options_);
}

RecorderStats Recorder::stats() const {
  RecorderStats out;
  {
    SpinLockHolder hold(&stats_lock_);
    out = stats_;
    // Plus what the two slots hold now, not yet serialized.
    auto add = [&out](const auto& lane) {
      out.samples_recorded += lane.samples.load(std::memory_order_relaxed);
      out.samples_truncated += lane.truncated.load(std::memory_order_relaxed);
      out.samples_over_memory += lane.over_memory.load(std::memory_order_relaxed);
    };
    for (uint32_t s = 0; s < 2; ++s) {
      const auto& lanes = samples_.lanes(s);
      for (uint32_t l = 0; l < lanes.count(); ++l) add(*lanes.at(l));
    }
    // Their truncations only: a heap lane's counts are never moved.
    for (uint32_t h = 0; h < 2; ++h) {
      const auto& lanes = heap_.lanes(h);
      for (uint32_t l = 0; l < lanes.count(); ++l) add(*lanes.at(l));
    }
  }
  out.records_rejected = records_rejected_.load(std::memory_order_relaxed);
  out.objects_tracked = tracked_ == nullptr ? 0 : tracked_->size();
  out.objects_not_tracked = objects_not_tracked_.load(std::memory_order_relaxed);
  return out;
}

size_t Recorder::SlotMemoryBytes() const {
  size_t bytes = 0;
  for (uint32_t s = 0; s < 2; ++s) {
    const auto& lanes = samples_.lanes(s);
    for (uint32_t l = 0; l < lanes.count(); ++l) bytes += lanes.at(l)->content->MemoryBytes();
    const auto& heap_lanes = heap_.lanes(s);
    for (uint32_t l = 0; l < heap_lanes.count(); ++l) {
      bytes += heap_lanes.at(l)->content->MemoryBytes();
    }
  }
  for (const SlotState& state : slot_state_) bytes += state.tables->MemoryBytes();
  return bytes;
}

}  // namespace stackrec
