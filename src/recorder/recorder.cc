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
// A sample slot's lanes share one set of tables (profile/slot_tables.h):
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
// encodes the slot's copies and never reads the dictionary. forget_ids publishes the new generation in dict_generation_
// (release); a sampler compares it (acquire) with the generation its
// lane's copies belong to and drops them when they differ, so an id from
// before the forget is refused.
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

#include <algorithm>
#include <chrono>
#include <new>
#include <utility>
#include <vector>

#include "base/table_growth.h"
#include "serialize/serialize.h"

namespace stackrec {
namespace {

// Ends the serializer's turn however Serialize exits, exceptions included.
class SerializerTurn {
 public:
  explicit SerializerTurn(std::atomic<bool>* serializing) : serializing_(serializing) {}
  ~SerializerTurn() { serializing_->store(false, std::memory_order_release); }
  SerializerTurn(const SerializerTurn&) = delete;
  SerializerTurn& operator=(const SerializerTurn&) = delete;

 private:
  std::atomic<bool>* serializing_;
};

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

// How long the serializer tries a lane a sampler holds: a record takes
// microseconds, so a lane still held after this is held by a sampler that
// was descheduled or stopped inside.
constexpr std::chrono::milliseconds kLaneWait{2};
// How long the serializer waits for the new-entry lock of the slot it
// encodes (slot_tables.h). Only a sampler in a lane it could not take can
// hold it, one descheduled while it interned, which a loaded machine may
// keep off its core for several time slices; past this, it was stopped
// there, and the slot's samples wait for a later serialization.
constexpr std::chrono::milliseconds kTablesWait{100};

}  // namespace

Recorder::Recorder(const ProfileOptions& options, int64_t now_ns, const LiveHeapOptions& live_heap)
    : options_(options),
      dict_(std::make_unique<Dictionary>(options.max_frames)),
      // A lane added by a sampler starts at 0: the slot keeps the start.
      samples_(Slots::Hint::kSamples, [this](uint32_t s) { return NewLane(s, 0); }),
      heap_(Slots::Hint::kHeap, [this](uint32_t) { return NewHeapLane(0); }),
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

std::unique_ptr<Lane> Recorder::NewHeapLane(int64_t start_ns) {
  auto lane = std::make_unique<Lane>();
  lane->profile = std::make_unique<Profile>(options_, start_ns, live_heap_options_.types.size());
  return lane;
}

std::unique_ptr<Lane> Recorder::NewLane(uint32_t s, int64_t start_ns) {
  auto lane = std::make_unique<Lane>();
  lane->profile = std::make_unique<Profile>(options_, start_ns, *slot_state_[s].tables);
  lane->profile->ShareMemoryCap(&slot_state_[s].memory_bytes);
  return lane;
}

template <typename F>
Status Recorder::RecordWith(F&& add) {
  const Status status = samples_.Enter([&](Lane& lane, uint32_t) -> std::optional<Status> {
    Profile& profile = *lane.profile;
    const uint64_t truncated = profile.samples_truncated();
    const uint64_t over_memory = profile.samples_over_memory();
    Status s = add(profile);
    // Only this sampler (holding the lane's lock) writes these: a plain
    // addition through relaxed load and store, no read-modify-write. The
    // caps' counts by what changed: a record may also add samples parked
    // in the lane earlier (profile_lane.cc), which count then.
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
      profile.SettlePending();
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
  return RecordWith([&](Profile& profile) { return profile.Add(sample, frames); });
}

Status Recorder::RecordIds(const IdSampleView& sample) {
  return RecordWith([&](Profile& profile) {
    // The lane's own imports are read without the dictionary; a stack it
    // has not imported yet is copied in under the dictionary lock, which
    // only samplers take.
    return profile.AddIds(sample, dict_generation_.load(std::memory_order_acquire),
                          [&](absl::FunctionRef<Status(const Dictionary&)> import) {
                            SpinLockHolder hold(&dict_lock_);
                            return import(*dict_);
                          });
  });
}

Status Recorder::RecordEndpoint(uint64_t local_root_span_id, absl::string_view endpoint) {
  return samples_.Enter([&](Lane& lane, uint32_t) -> std::optional<Status> {
    return lane.profile->SetEndpoint(local_root_span_id, endpoint);
  });
}

Status Recorder::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  return samples_.Enter([&](Lane& lane, uint32_t) -> std::optional<Status> {
    return lane.profile->AddEndpointCount(endpoint, value);
  });
}

Status Recorder::AddUpscalingRule(UpscalingRule rule) {
  SpinLockHolder hold(&upscaling_lock_);
  return upscaling_.Add(std::move(rule), options_);
}

Status Recorder::Serialize(const SerializeOptions& options, int64_t (*clock)(),
                           EncodedProfile* out) {
  bool expected = false;
  if (!serializing_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
    return Error(Code::kBusy, "recorder: another thread is serializing this recorder");
  }
  SerializerTurn turn(&serializing_);
  // A budget no part can meet is refused while the samples are still
  // where the next serialization finds them.
  STACKREC_RETURN_IF_ERROR(CheckBudget(options_, options));
  const uint32_t old_index = samples_.active();
  SlotState& old = slot_state_[old_index];
  const int64_t flip_ns = FlipSlots(clock);
  const Deadline deadline = std::chrono::steady_clock::now() + kLaneWait;
  FlipHeapSlots(deadline, flip_ns);

  // The lanes taken are ours until `held` unlocks them (invariant 1), and
  // the slot's tables while we hold its new-entry lock, which is free
  // unless a sampler stopped inside a lane we could not take holds it.
  HeldLanes held;
  held.TakeEach(samples_.lanes(old_index), deadline, &old.skipped);
  SlotTables& tables = *old.tables;
  if (!tables.lock().TryLockUntil(std::chrono::steady_clock::now() + kTablesWait)) {
    // The samples stay in the slot for a later serialization, as after a
    // failed encoding.
    held.Release();
    old.kept_failed = true;
    {
      SpinLockHolder hold(&stats_lock_);
      stats_.serializations_failed++;
    }
    return Error(Code::kBusy,
                 "recorder: a sampler stopped while adding to this slot's tables holds them; "
                 "the slot's samples wait for a later serialization");
  }
  SpinLockHolder hold_tables(&tables.lock(), SpinLockHolder::kAdopt);
  // Whether every lane of the slot is ours: only then may its tables be
  // replaced (Recycle).
  const bool whole_slot =
      old.skipped.empty() && samples_.lanes(old_index).count_seq_cst() == held.size();
  const size_t from_old = held.size();
  std::unique_ptr<Profile> spare;
  Profile& profile = *GatherLanes(old_index, &held, &spare);
  Lane* const target = held.empty() ? nullptr : held[0];
  absl::flat_hash_map<uint64_t, std::string> own_endpoints = AddRulesAndEndpoints(&profile);
  KeyUndo live_undo;
  AddLiveTotals(&profile, &live_undo);

  out->bytes.clear();
  out->start_ns = old.start_ns;
  out->end_ns = flip_ns;
  out->endpoint_counts = profile.EndpointCounts();
  // Encoding is the recorder's memory peak (the other slot's tables, this
  // one's, and the output and compressor on top): what only speeds up
  // adding goes before it, once nothing more is added (the live totals
  // above intern their stacks here). Nothing adds to the slot after it
  // either, until it is the active slot again.
  profile.Compact();
  if (spare == nullptr) tables.Compact();
  Status status;
  try {
    status = SerializeProfile(profile, options, flip_ns, &out->bytes, &out->stats, &output_sizes_);
  } catch (...) {
    profile.Undo(live_undo);
    throw;
  }
  CountSerialization(status.ok(), profile, target, out->stats);
  if (status.ok()) {
    if (spare == nullptr) {
      Recycle(old_index, held, from_old, out->stats.encoded, flip_ns, whole_slot);
    }
    carried_endpoints_ = std::move(own_endpoints);
    old.kept_failed = false;
  } else {
    // Nothing recorded is dropped: the samples stay in the slot and are
    // reported, with the old start, by a later serialization, beside the
    // live totals of that later time. The deltas stay consumed.
    profile.Undo(live_undo);
    out->bytes.clear();
    old.kept_failed = true;
  }
  return status;
}

int64_t Recorder::FlipSlots(int64_t (*clock)()) {
  // The slots' starts are the serializer's alone.
  const int64_t flip_ns = clock();
  SlotState& next = slot_state_[1 - samples_.active()];
  // (A slot still holding samples from a failed serialization keeps its
  // start, so those samples are not attributed to a later interval alone.)
  if (!next.kept_failed) next.start_ns = flip_ns;
  samples_.Flip();
  return flip_ns;
}

void Recorder::FlipHeapSlots(Deadline deadline, int64_t flip_ns) {
  if (live_totals_ == nullptr) return;
  if (heap_pending_) heap_pending_ = !AbsorbHeapLanes(deadline, flip_ns);
  if (!heap_pending_) {
    heap_.Flip();
    heap_pending_ = true;  // until absorbed, should Absorb throw
    heap_pending_ = !AbsorbHeapLanes(deadline, flip_ns);
  }
}

bool Recorder::AbsorbHeapLanes(Deadline deadline, int64_t now_ns) {
  // All or none: an object tracked in one lane and freed in another must
  // reach the totals in the same absorption, or the totals could go
  // negative meanwhile.
  HeldLanes held;
  if (!held.TakeAll(heap_.lanes(1 - heap_.active()), deadline)) return false;
  for (Lane* lane : held) {
    live_totals_->Absorb(lane->profile.get());
    // Its keys were only for the deltas, which are consumed.
    lane->profile->Reset(now_ns);
  }
  return true;
}

Profile* Recorder::GatherLanes(uint32_t old, HeldLanes* held, std::unique_ptr<Profile>* spare) {
  // A sampler inside a lane leaves it within microseconds, unless it was
  // descheduled or stopped there: such a lane is left as it is, samples
  // and all, rather than waited for. The next serialization takes it if it
  // is free by then, though its slot is the active one: its lock is all
  // that keeps samplers out, and the sums stay exact (its samples reach a
  // profile one interval late).
  SlotState& state = slot_state_[old];
  const size_t from_old = held->size();
  if (from_old == 0) {
    // Every lane of the slot is held by a stopped sampler: an empty profile
    // (lanes of the other slot wait too, for a target that can keep them
    // should encoding fail).
    *spare = std::make_unique<Profile>(options_, state.start_ns);
    return spare->get();
  }
  // Parked samples first: the lanes' rows are then all there is.
  for (Lane* lane : *held) lane->profile->AddPendingSamples();
  // The lane with the most keys receives the others' samples: the least
  // to copy. It goes first in *held.
  auto most = std::max_element(held->begin(), held->end(), [](const Lane* a, const Lane* b) {
    return a->profile->key_count() < b->profile->key_count();
  });
  std::iter_swap(held->begin(), most);
  Lane& target = *(*held)[0];
  auto move_counts = [&target](Lane& lane) {
    auto move = [](std::atomic<uint64_t>& from, std::atomic<uint64_t>& to) {
      to.store(to.load(std::memory_order_relaxed) + from.exchange(0, std::memory_order_relaxed),
               std::memory_order_relaxed);
    };
    move(lane.samples, target.samples);
    move(lane.truncated, target.truncated);
    move(lane.over_memory, target.over_memory);
  };
  // The slot's lanes share its tables: merged by key ids.
  for (size_t i = 1; i < from_old; ++i) {
    Lane& lane = *(*held)[i];
    target.profile->MergeLane(*lane.profile);  // all or nothing
    move_counts(lane);
    // The lane keeps its dictionary imports, for its sampler's next records.
    lane.profile->ClearSamples(state.start_ns);
  }
  // Lanes of the active slot skipped last time, if free now and if its
  // tables are free to read: merged by content.
  SlotState& active = slot_state_[1 - old];
  if (!active.skipped.empty() && active.tables->lock().TryLock()) {
    SpinLockHolder hold_active(&active.tables->lock(), SpinLockHolder::kAdopt);
    held->TakeFree(samples_.lanes(1 - old), &active.skipped);
    for (size_t i = from_old; i < held->size(); ++i) {
      Lane& lane = *(*held)[i];
      lane.profile->AddPendingSamples();
      target.profile->MergeFrom(*lane.profile);  // all or nothing
      move_counts(lane);
      lane.profile->ClearSamples(slot_state_[1 - old].start_ns);
    }
  }
  target.profile->set_start_ns(state.start_ns);
  return target.profile.get();
}

absl::flat_hash_map<uint64_t, std::string> Recorder::AddRulesAndEndpoints(Profile* profile) {
  {
    SpinLockHolder hold(&upscaling_lock_);
    profile->set_upscaling_rules(upscaling_);
  }
  // A lane keeps endpoints by name until now (endpoint_names.h).
  profile->SettleEndpoints();
  absl::flat_hash_map<uint64_t, std::string> own_endpoints;
  for (const auto& [span, id] : profile->endpoints()) {
    EmplaceGrowingFirst(own_endpoints, span, std::string(profile->strings().Get(id)));
  }
  for (const auto& [span, endpoint] : carried_endpoints_) {
    if (own_endpoints.count(span) == 0) {
      // Valid UTF-8 and non-empty: it was accepted once already.
      const Status carried = profile->SetEndpoint(span, endpoint);
      (void)carried;
    }
  }
  profile->SettleEndpoints();
  return own_endpoints;
}

void Recorder::AddLiveTotals(Profile* profile, KeyUndo* undo) {
  // The deltas are consumed for good; the totals' addition to the keys is
  // taken back (undo) if encoding fails.
  undo->key_count = profile->key_count();
  if (live_totals_ == nullptr) return;
  try {
    live_totals_->AddTo(profile, undo);
  } catch (...) {
    profile->Undo(*undo);
    throw;
  }
}

void Recorder::CountSerialization(bool ok, const Profile& profile, Lane* target,
                                  const SerializationStats& stats) {
  std::atomic<uint64_t> no_count{0};
  std::atomic<uint64_t>& samples_count = target != nullptr ? target->samples : no_count;
  const uint64_t samples = samples_count.load(std::memory_order_relaxed);
  const int64_t encode_ns = stats.encode_ns;
  SpinLockHolder hold(&stats_lock_);
  if (!ok) {
    stats_.serializations_failed++;
    return;
  }
  stats_.last_samples = samples;
  stats_.last_distinct_keys = profile.key_count() + profile.timed_count();
  stats_.last_serialize_ns = encode_ns;
  stats_.serialize_ns_min =
      stats_.serializations_ok == 0 ? encode_ns : std::min(stats_.serialize_ns_min, encode_ns);
  stats_.serialize_ns_max = std::max(stats_.serialize_ns_max, encode_ns);
  stats_.serialize_ns_total += encode_ns;
  stats_.serializations_ok++;
  // Moved from the slot's count to the lifetime count in one step, so
  // that stats() never sees them twice or not at all.
  stats_.samples_recorded += samples;
  samples_count.store(0, std::memory_order_relaxed);
  stats_.samples_left_out_of_output += stats.encoded.samples_left_out;
  if (target != nullptr) {
    stats_.samples_truncated += target->truncated.exchange(0, std::memory_order_relaxed);
    stats_.samples_over_memory += target->over_memory.exchange(0, std::memory_order_relaxed);
  }
}

void Recorder::Recycle(uint32_t old, const HeldLanes& held, size_t from_old,
                       const EncodeStats& used, int64_t flip_ns, bool whole_slot) {
  // The slot's next interval starts with the tables this one used, so
  // samplers do not intern the program's recurring stacks again after
  // every flip (SlotTables::CarryOver); the rest is freed.
  //
  // Copying is O(entries), so it is only worth it when a good part of
  // the entries went unused; otherwise the tables stay as they are. The
  // stacks and label sets tell (new span ids make new label sets, new
  // code new stacks): while three quarters of each are still used, the
  // tables hold at most 4/3 of what the program uses. Replacing the
  // tables needs every lane of the slot: a sampler stopped in one may
  // still read them.
  SlotTables& tables = *slot_state_[old].tables;
  Profile& profile = *held[0]->profile;
  const bool mostly_used = used.stacks_used * 4 >= profile.stacks().size() * 3 &&
                           used.label_sets_used * 4 >= profile.label_sets().size() * 3;
  if (whole_slot && !mostly_used) {
    SampleTables::Carried carried;
    try {
      tables.CarryOver(
          [&profile](absl::FunctionRef<void(SampleKey)> carry) { profile.ForEachKey(carry); },
          &carried);
      profile.ClearSamples(flip_ns);
      // The slot's lanes, not the other slot's that GatherLanes took.
      for (size_t i = 0; i < from_old; ++i) held[i]->profile->RebindSlotTables(carried);
    } catch (const std::bad_alloc&) {
      // The tables stay as they are.
    }
  }
  profile.ClearSamples(flip_ns);
  if (whole_slot) tables.FreeRetired();
  tables.PublishMemory();
}

RecorderStats Recorder::stats() const {
  RecorderStats out;
  {
    SpinLockHolder hold(&stats_lock_);
    out = stats_;
    // Plus what the two slots hold now, not yet serialized.
    auto add = [&out](const Lane& lane) {
      out.samples_recorded += lane.samples.load(std::memory_order_relaxed);
      out.samples_truncated += lane.truncated.load(std::memory_order_relaxed);
      out.samples_over_memory += lane.over_memory.load(std::memory_order_relaxed);
    };
    for (uint32_t s = 0; s < 2; ++s) {
      const Lanes& lanes = samples_.lanes(s);
      for (uint32_t l = 0; l < lanes.count(); ++l) add(*lanes.at(l));
    }
    // Their truncations only: a heap lane's counts are never moved.
    for (uint32_t h = 0; h < 2; ++h) {
      const Lanes& lanes = heap_.lanes(h);
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
  for (const Slots* slots : {&samples_, &heap_}) {
    for (uint32_t s = 0; s < 2; ++s) {
      const Lanes& lanes = slots->lanes(s);
      for (uint32_t l = 0; l < lanes.count(); ++l) bytes += lanes.at(l)->profile->MemoryBytes();
    }
  }
  for (const SlotState& state : slot_state_) bytes += state.tables->MemoryBytes();
  return bytes;
}

}  // namespace stackrec
