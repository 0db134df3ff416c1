// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// ---------------------------------------------------------------------------
// The two-slot protocol
//
// Roles. Sampler threads call Record / RecordEndpoint: any number of them,
// at any time, and they must never wait for the serializer nor for each
// other. One serializer thread at a time calls Serialize (serializing_
// turns a second one away with kBusy). ResetAfterFork runs alone, in a
// fork() child.
//
// State. Two slots. `active_` names the slot samplers write to; the other
// belongs to the serializer. A slot is a set of lanes (sampler_lanes.h),
// each a Profile behind a spin lock: a sampler writes into a lane whose
// lock it took, any lane, and the serializer merges the lanes of the slot
// it encodes into one profile.
//
// Sampler:   s = active_                      (acquire)
//            take a free lane of slots[s]     (try-lock: seq_cst exchange)
//              or, if every lane is held, add a lane, taken
//                                             (count moved: seq_cst CAS)
//            if active_ != s: unlock, start over              (seq_cst load)
//            write; unlock                    (release)
// Serializer: set the idle slot's start to the flip instant t
//            active_ = other                  (seq_cst)
//            n = old's lane count             (seq_cst load)
//            take each of those n lanes       (try-lock, for at most 2 ms)
//            merge the lanes taken; encode as [old.start, t]; clear them
//            unlock them
//
// Invariant 1: while the serializer holds a lane it took after its flip,
// no sampler touches that lane's profile. A sampler that took the lock
// before the serializer did finished its write and unlocked first. One
// that takes it after the serializer unlocks happens after the flip store
// (the unlock synchronizes with its exchange), so its re-check of active_
// sees the flip and it backs off, unless a later flip made the slot active
// again, in which case writing there is right. A sampler holding a lane
// can itself never be overtaken: the serializer's try-lock fails. A lane a
// sampler adds is covered only if the serializer counts it: the CAS that
// moves the slot's lane count (Lanes::Add) and the serializer's read of
// the count after its flip are seq_cst, as are the flip and the sampler's
// re-check, so either the serializer sees the new lane and tries it like
// any other, or the sampler's re-check sees the flip and it backs off.
//
// Invariant 2: everything a sampler wrote is visible to the serializer: the
// sampler's release unlock synchronizes with the serializer's exchange
// that takes the lock; the serializer's merge and clearing are published
// to the next sampler of the lane by the serializer's unlock.
//
// Lanes the serializer could not take in time (a sampler descheduled or
// stopped inside) keep their samples: it tries them again, without
// waiting, at its next serialization, although their slot is then the
// active one (a lane's lock is what keeps samplers out, whatever its slot),
// and at the slot's next serialization. Their samples reach a profile one
// or two intervals late, and the sums over all profiles stay exact; a
// serialization after the samplers stopped takes every lane.
//
// Why a sampler never waits: it only ever try-locks a lane, and a held one
// (by another sampler or by the serializer) sends it to the next lane, or
// to a new one; its loop repeats only when a flip happened between its two
// loads of active_, and flips are one per serialization. A sampler waits
// only when kMaxLanes lanes are held at once. The serializer never waits
// for a sampler beyond its 2 ms, trackers included.
//
// Lanes are added, never removed while the recorder lives: their count is
// the most samplers that ever recorded at the same instant. A lane that
// recorded nothing in an interval is emptied by the merge (CarryOver keeps
// only what its samples used). A slot's lanes share max_memory_bytes: each
// publishes its size into the slot's counter when its tables grow or
// shrink, and checks the sum (Profile::ShareMemoryCap).
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
// Each lane copies what its samples use out of the dictionary once, under
// that lock, and afterwards finds it by id alone (samplers wait for each
// other there only while a lane imports a stack or label set it has not
// seen); the serializer encodes the lanes' copies and never reads the
// dictionary. forget_ids publishes
// the new generation in dict_generation_ (release); a sampler compares it
// (acquire) with the generation its lane's copies belong to and drops
// them when they differ, so an id from before the forget is refused.
//
// Endpoints: RecordEndpoint writes into a lane of the active slot, and the
// merge gathers them with the samples. A request may outlive a flip, so the
// endpoints of the slot serialized last are carried into the next
// serialization and apply to spans that slot does not name itself (one
// flip of grace).
//
// Live-heap tracking (live_heap.h) adds three pieces of state, one per
// owner:
//  - two heap slots (`heap_lanes_`), each a set of lanes like a slot's,
//    whose Profiles hold "heap deltas": Track adds the object's values at
//    the live-heap types to its (stack, labels) row, Untrack subtracts
//    them. `heap_active_` names the heap slot trackers write to, under the
//    protocol above: a tracker takes any free lane of it, or adds one, and
//    never waits for another tracker's lane (EnterHeapLane). The
//    serializer flips the heap slots right after the slots and takes all
//    the old one's lanes with the same bounded try, or none: an object
//    tracked in one lane and freed in another must reach the totals in
//    one absorption. If a tracker still holds one, the serializer does not
//    flip the heap slots again until it has absorbed them all: meanwhile
//    trackers go on in the active heap slot, and the profiles carry the
//    totals as of the last heap slot absorbed.
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
// heap_active_ under the lock); otherwise it leaves and enters the new
// one. Without that, an Untrack that entered the old heap slot before a
// flip, but took the shard lock after a Track that went to the new one,
// would put the object's minus into an earlier absorption than its plus.
// Why the check suffices: while a tracker holds a heap lane, the
// serializer cannot flip the heap slots a second time (it absorbs every
// lane of the old one, taking their locks, before it flips again), so
// "still active" means "no flip since I entered", and every delta of the
// object committed before it under the shard lock went to this heap slot
// or to one absorbed earlier. A commit that read heap_active_ after the
// flip store is ordered before ours by the shard lock, and coherence then
// makes our read of heap_active_ see the flip too. The retry is the same
// loop as the entry's: once per flip, never a wait. Heap slots are
// absorbed whole, in the order they were flipped out, so the totals take
// each object's deltas in order.
// ---------------------------------------------------------------------------
#include "recorder/recorder.h"
#include "recorder/recorder_enter.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/table_growth.h"
#include "serialize/serialize.h"

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

// Replaces *profile by its carry-over or, if memory for that is short,
// resets it in place.
void CarryOverOrReset(std::unique_ptr<Profile>* profile, int64_t start_ns) {
  try {
    *profile = (*profile)->CarryOver(start_ns);
  } catch (const std::bad_alloc&) {
    (*profile)->Reset(start_ns);
  }
}

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

}  // namespace

Recorder::Recorder(const ProfileOptions& options, int64_t now_ns,
                   const LiveHeapOptions& live_heap)
    : options_(options),
      dict_(std::make_unique<Dictionary>(options.max_frames)),
      live_heap_options_(live_heap) {
  for (Slot& slot : slots_) {
    slot.lanes.Add(NewLane(slot, now_ns));
    slot.start_ns = now_ns;
  }
  if (!live_heap_options_.types.empty()) {
    for (Lanes& lanes : heap_lanes_) lanes.Add(NewHeapLane(now_ns));
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

std::unique_ptr<Lane> Recorder::NewLane(Slot& slot, int64_t start_ns) {
  auto lane = std::make_unique<Lane>();
  lane->profile = std::make_unique<Profile>(options_, start_ns);
  lane->profile->ShareMemoryCap(&slot.memory_bytes);
  return lane;
}

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

// The lane this thread took last, in whichever recorder: where it looks
// first, so that each sampler keeps to a lane of its own and its lines stay
// in its core's cache. Initial-exec: a load at a fixed offset from the
// thread pointer rather than a call to __tls_get_addr on every record (four
// bytes of the static TLS that glibc keeps for libraries loaded later).
// Trackers keep a hint of their own, to the heap lane where their objects'
// rows are remembered.
__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_lane_hint = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_heap_lane_hint = 0;

// A free lane of `lanes`, slot `s` of those `active` names, trying `*hint`
// first; if every lane is held, by other samplers or by the serializer
// after a flip, a new one from new_lane(), unless it is the flip (then the
// caller starts over). Returned locked; null at a flip or when full.
template <typename NewLaneFn>
Lane* TakeFreeLane(Lanes& lanes, uint32_t* hint, const std::atomic<uint32_t>& active,
                   uint32_t s, NewLaneFn&& new_lane) {
  const uint32_t n = lanes.count();
  uint32_t i = *hint < n ? *hint : 0;
  for (uint32_t tried = 0; tried < n; ++tried) {
    Lane* lane = lanes.at(i);
    if (lane->lock.TryLock()) {
      *hint = i;
      return lane;
    }
    if (++i == n) i = 0;
  }
  if (active.load(std::memory_order_seq_cst) != s) return nullptr;
  std::unique_ptr<Lane> fresh = new_lane();
  fresh->lock.Lock();  // not published yet: free
  Lane* lane = fresh.get();
  const uint32_t index = lanes.Add(std::move(fresh));
  if (index == Lanes::kMaxLanes) return nullptr;
  *hint = index;
  return lane;
}

}  // namespace

Lane* Recorder::TakeLane(uint32_t s) {
  return TakeFreeLane(slots_[s].lanes, &t_lane_hint, active_, s,
                      [&] { return NewLane(slots_[s], 0); });  // the slot keeps the start
}

Lane* Recorder::TakeHeapLane(uint32_t h) {
  return TakeFreeLane(heap_lanes_[h], &t_heap_lane_hint, heap_active_, h,
                      [&] { return NewHeapLane(0); });
}

template <typename F>
Status Recorder::RecordWith(F&& add) {
  const Status status = EnterLane([&](Lane& lane, uint32_t) -> std::optional<Status> {
    Profile& profile = *lane.profile;
    const uint64_t truncated = profile.samples_truncated();
    const uint64_t over_memory = profile.samples_over_memory();
    Status s = add(profile);
    if (s.ok()) {
      // Only this sampler (holding the lane's lock) writes these: a plain
      // increment through relaxed load and store, no read-modify-write.
      auto bump = [](std::atomic<uint64_t>& counter) {
        counter.store(counter.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
      };
      bump(lane.samples);
      if (profile.samples_truncated() != truncated) bump(lane.truncated);
      if (profile.samples_over_memory() != over_memory) bump(lane.over_memory);
    }
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

Status Recorder::RecordEndpoint(uint64_t local_root_span_id,
                                absl::string_view endpoint) {
  return EnterLane([&](Lane& lane, uint32_t) -> std::optional<Status> {
    return lane.profile->SetEndpoint(local_root_span_id, endpoint);
  });
}

Status Recorder::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  return EnterLane([&](Lane& lane, uint32_t) -> std::optional<Status> {
    return lane.profile->AddEndpointCount(endpoint, value);
  });
}

Status Recorder::AddUpscalingRule(UpscalingRule rule) {
  SpinLockHolder hold(&upscaling_lock_);
  return upscaling_.Add(std::move(rule), options_);
}

namespace {

// How long the serializer tries a lane a sampler holds: a record takes
// microseconds, so a lane still held after this is held by a sampler that
// was descheduled or stopped inside.
constexpr std::chrono::milliseconds kLaneWait{2};

}  // namespace

Status Recorder::Serialize(const SerializeOptions& options, int64_t (*clock)(),
                           EncodedProfile* out) {
  bool expected = false;
  if (!serializing_.compare_exchange_strong(expected, true,
                                            std::memory_order_acquire)) {
    return Error(Code::kBusy,
                 "recorder: another thread is serializing this recorder");
  }
  SerializerTurn turn(&serializing_);
  const uint32_t old_index = active_.load(std::memory_order_relaxed);
  Slot& old = slots_[old_index];
  Slot& next = slots_[1 - old_index];

  // The flip. The slots' starts are the serializer's alone.
  const int64_t flip_ns = clock();
  // (A slot still holding samples from a failed serialization keeps its
  // start, so those samples are not attributed to a later interval alone.)
  if (!next.kept_failed) next.start_ns = flip_ns;
  active_.store(1 - old_index, std::memory_order_seq_cst);
  // The heap deltas flip with the slots, unless those of an earlier flip
  // are still held by a tracker (invariant 3: they are absorbed in order).
  const auto deadline = std::chrono::steady_clock::now() + kLaneWait;
  if (live_totals_ != nullptr) {
    if (heap_pending_) heap_pending_ = !AbsorbHeapLanes(deadline, flip_ns);
    if (!heap_pending_) {
      heap_active_.store(1 - heap_active_.load(std::memory_order_relaxed),
                         std::memory_order_seq_cst);
      heap_pending_ = true;  // until absorbed, should Absorb throw
      heap_pending_ = !AbsorbHeapLanes(deadline, flip_ns);
    }
  }
  // The lanes taken are ours until the guard unlocks them (invariant 1).
  std::vector<Lane*> lanes_held;
  struct Unlocker {
    std::vector<Lane*>* lanes;
    ~Unlocker() {
      for (Lane* lane : *lanes) lane->lock.Unlock();
    }
  } unlocker{&lanes_held};
  std::unique_ptr<Profile> spare;
  Profile& profile = *GatherLanes(&old, &next, deadline, &lanes_held, &spare);
  Lane* const target = lanes_held.empty() ? nullptr : lanes_held.front();

  {
    SpinLockHolder hold(&upscaling_lock_);
    profile.set_upscaling_rules(upscaling_);
  }
  absl::flat_hash_map<uint64_t, std::string> own_endpoints;
  for (const auto& [span, id] : profile.endpoints()) {
    EmplaceGrowingFirst(own_endpoints, span, std::string(profile.strings().Get(id)));
  }
  for (const auto& [span, endpoint] : carried_endpoints_) {
    if (own_endpoints.count(span) == 0) {
      // Valid UTF-8 and non-empty: it was accepted once already.
      const Status carried = profile.SetEndpoint(span, endpoint);
      (void)carried;
    }
  }

  // The objects tracked as of the last heap lane absorbed join the
  // samples. The deltas are consumed for good; the totals' addition to the
  // keys is taken back if encoding fails.
  KeyUndo live_undo;
  live_undo.key_count = profile.key_count();
  if (live_totals_ != nullptr) {
    try {
      live_totals_->AddTo(&profile, &live_undo);
    } catch (...) {
      profile.Undo(live_undo);
      throw;
    }
  }
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
  Status status;
  try {
    status = SerializeProfile(profile, options, flip_ns, &out->bytes, &out->stats,
                              &output_sizes_);
  } catch (...) {
    profile.Undo(live_undo);
    throw;
  }
  const int64_t encode_ns = out->stats.encode_ns;

  std::atomic<uint64_t> no_count{0};
  std::atomic<uint64_t>& samples_count = target != nullptr ? target->samples : no_count;
  const uint64_t samples = samples_count.load(std::memory_order_relaxed);
  {
    SpinLockHolder hold(&stats_lock_);
    if (status.ok()) {
      stats_.last_samples = samples;
      stats_.last_distinct_keys = profile.key_count() + profile.timed_count();
      stats_.last_serialize_ns = encode_ns;
      stats_.serialize_ns_min = stats_.serializations_ok == 0
                                    ? encode_ns
                                    : std::min(stats_.serialize_ns_min, encode_ns);
      stats_.serialize_ns_max = std::max(stats_.serialize_ns_max, encode_ns);
      stats_.serialize_ns_total += encode_ns;
      stats_.serializations_ok++;
      // Moved from the slot's count to the lifetime count in one step, so
      // that stats() never sees them twice or not at all.
      stats_.samples_recorded += samples;
      samples_count.store(0, std::memory_order_relaxed);
      stats_.samples_left_out_of_output += out->stats.encoded.samples_left_out;
      if (target != nullptr) {
        stats_.samples_truncated += target->truncated.exchange(0, std::memory_order_relaxed);
        stats_.samples_over_memory +=
            target->over_memory.exchange(0, std::memory_order_relaxed);
      }
    } else {
      stats_.serializations_failed++;
    }
  }
  if (status.ok()) {
    // The slot's next profile starts with what this one used, so samplers
    // do not intern the program's recurring stacks again after every flip
    // (see Profile::CarryOver); the rest is freed.
    //
    // Copying is O(entries), so it is only worth it when a good part of
    // the entries went unused; otherwise the profile is kept as it is, minus
    // its samples. The stacks and label sets tell (new span ids make new
    // label sets, new code new stacks): while three quarters of each are
    // still used, the tables hold at most 4/3 of what the program uses.
    const EncodeStats& used = out->stats.encoded;
    if (used.stacks_used * 4 >= profile.stacks().size() * 3 &&
        used.label_sets_used * 4 >= profile.label_sets().size() * 3) {
      profile.ClearSamples(flip_ns);
    } else if (target != nullptr) {
      CarryOverOrReset(&target->profile, flip_ns);
    }
    carried_endpoints_ = std::move(own_endpoints);
    old.kept_failed = false;
  } else {
    // Nothing recorded is dropped: the samples stay in the slot and are
    // reported, with the old start, by a later serialization, beside the
    // live totals of that later time.
    profile.Undo(live_undo);
    out->bytes.clear();
    old.kept_failed = true;
  }
  return status;
}


bool Recorder::AbsorbHeapLanes(std::chrono::steady_clock::time_point deadline,
                               int64_t now_ns) {
  // All or none: an object tracked in one lane and freed in another must
  // reach the totals in the same absorption, or the totals could go
  // negative meanwhile.
  Lanes& lanes = heap_lanes_[1 - heap_active_.load(std::memory_order_relaxed)];
  const uint32_t n = lanes.count_seq_cst();  // after the flip (invariant 1)
  std::vector<Lane*> held;
  held.reserve(n);
  struct Unlocker {
    std::vector<Lane*>* lanes;
    ~Unlocker() {
      for (Lane* lane : *lanes) lane->lock.Unlock();
    }
  } unlocker{&held};
  for (uint32_t i = 0; i < n; ++i) {
    Lane* lane = lanes.at(i);
    if (!lane->lock.TryLockUntil(deadline)) return false;
    held.push_back(lane);
  }
  for (Lane* lane : held) {
    live_totals_->Absorb(lane->profile.get());
    // Its keys were only for the deltas, which are consumed.
    lane->profile->Reset(now_ns);
  }
  return true;
}

Profile* Recorder::GatherLanes(Slot* old, Slot* active,
                               std::chrono::steady_clock::time_point deadline,
                               std::vector<Lane*>* lanes_held,
                               std::unique_ptr<Profile>* spare) {
  // A sampler inside a lane leaves it within microseconds, unless it was
  // descheduled or stopped there: such a lane is left as it is, samples
  // and all, rather than waited for. The next serialization takes it if it
  // is free by then, though its slot is the active one: its lock is all
  // that keeps samplers out, and the sums stay exact (its samples reach a
  // profile one interval late).
  const uint32_t n = old->lanes.count_seq_cst();  // after the flip (invariant 1)
  lanes_held->reserve(n + active->skipped.size());
  old->skipped.clear();
  for (uint32_t i = 0; i < n; ++i) {
    Lane* lane = old->lanes.at(i);
    if (lane->lock.TryLockUntil(deadline)) {
      lanes_held->push_back(lane);
    } else {
      old->skipped.push_back(i);
    }
  }
  const size_t from_old = lanes_held->size();
  size_t kept = 0;
  for (uint32_t i : active->skipped) {
    Lane* lane = active->lanes.at(i);
    if (lane->lock.TryLock()) {
      lanes_held->push_back(lane);
    } else {
      active->skipped[kept++] = i;
    }
  }
  active->skipped.resize(kept);
  if (lanes_held->empty()) {
    *spare = std::make_unique<Profile>(options_, old->start_ns);
    return spare->get();
  }
  // The lane with the most keys receives the others' samples: the least
  // to copy. It goes first in *lanes_held. A lane of the old slot if there
  // is one, where samples kept by a failed encoding wait for the slot's
  // next serialization.
  const auto end = lanes_held->begin() + static_cast<ptrdiff_t>(from_old > 0 ? from_old : lanes_held->size());
  auto most = std::max_element(lanes_held->begin(), end,
                               [](const Lane* a, const Lane* b) {
                                 return a->profile->key_count() < b->profile->key_count();
                               });
  std::iter_swap(lanes_held->begin(), most);
  Lane& target = *lanes_held->front();
  auto move_count = [](std::atomic<uint64_t>& from, std::atomic<uint64_t>& to) {
    to.store(to.load(std::memory_order_relaxed) + from.exchange(0, std::memory_order_relaxed),
             std::memory_order_relaxed);
  };
  for (size_t i = 1; i < lanes_held->size(); ++i) {
    Lane& lane = *(*lanes_held)[i];
    target.profile->MergeFrom(*lane.profile);  // all or nothing
    move_count(lane.samples, target.samples);
    move_count(lane.truncated, target.truncated);
    move_count(lane.over_memory, target.over_memory);
    // The lane keeps what its samples used, for its sampler's next records.
    CarryOverOrReset(&lane.profile, old->start_ns);
  }
  target.profile->set_start_ns(old->start_ns);
  return target.profile.get();
}

void Recorder::ResetAfterFork(int64_t now_ns) {
  // Only this thread exists in the child. A slot that a parent thread was
  // writing, encoding or resetting at the fork may be half-changed: abandon
  // its profile rather than touch it.
  const bool serializer_was_busy = serializing_.load(std::memory_order_relaxed);
  const uint32_t active = active_.load(std::memory_order_relaxed);
  const size_t heap_width = live_heap_options_.types.size();
  // `slot` is the lane's, whose memory cap a profile made anew shares;
  // null for a heap lane, which shares none.
  auto reset = [&](Lane* lane, bool dirty, size_t width, Slot* slot) {
    if (lane->profile == nullptr) return;  // a heap lane without tracking
    if (dirty || lane->lock.IsLocked(std::memory_order_relaxed)) {
      Abandon(&lane->profile);
      lane->profile = std::make_unique<Profile>(options_, now_ns, width);
      if (slot != nullptr) lane->profile->ShareMemoryCap(&slot->memory_bytes);
    } else {
      lane->profile->Reset(now_ns);
    }
    lane->lock.ForceUnlockAfterFork();
    lane->samples.store(0, std::memory_order_relaxed);
    lane->truncated.store(0, std::memory_order_relaxed);
    lane->over_memory.store(0, std::memory_order_relaxed);
    lane->last_sampler = nullptr;
  };
  for (uint32_t i = 0; i < 2; ++i) {
    Slot& slot = slots_[i];
    const bool serializers = serializer_was_busy && i != active;
    for (uint32_t l = 0; l < slot.lanes.count(); ++l) {
      reset(slot.lanes.at(l), serializers, 0, &slot);
    }
    slot.start_ns = now_ns;
    slot.kept_failed = false;
    slot.skipped.clear();
    // An abandoned profile never withdraws what it published: count again.
    slot.memory_bytes.store(0, std::memory_order_relaxed);
    for (uint32_t l = 0; l < slot.lanes.count(); ++l) {
      slot.lanes.at(l)->profile->RepublishMemory();
    }
  }
  // A heap lane a tracker or the serializer was in is abandoned.
  for (Lanes& lanes : heap_lanes_) {
    for (uint32_t l = 0; l < lanes.count(); ++l) {
      reset(lanes.at(l), serializer_was_busy, heap_width, nullptr);
    }
  }
  heap_active_.store(0, std::memory_order_relaxed);
  heap_pending_ = false;
  active_.store(0, std::memory_order_relaxed);
  carried_endpoints_.clear();
  // The rules are configuration: the child keeps them.
  upscaling_lock_.ForceUnlockAfterFork();
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
  // Every tracked object is forgotten: the child's heap is the parent's,
  // but its frees are its own business from here on. Tables a parent
  // tracker was changing (a shard's or a stripe's lock held) or totals a
  // parent serializer was changing are abandoned like slots.
  if (tracked_ != nullptr) {
    if (tracked_->AnyLockHeld()) Abandon(&tracked_);
    tracked_ = std::make_unique<TrackedObjects>(options_, live_heap_options_);
    if (serializer_was_busy) Abandon(&live_totals_);
    live_totals_ = std::make_unique<LiveTotals>(options_, live_heap_options_);
  }
  objects_not_tracked_.store(0, std::memory_order_relaxed);
  stats_lock_.ForceUnlockAfterFork();
  {
    SpinLockHolder hold(&stats_lock_);
    stats_ = RecorderStats();
  }
  records_rejected_.store(0, std::memory_order_relaxed);
  serializing_.store(false, std::memory_order_release);
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
    for (const Slot& slot : slots_) {
      for (uint32_t l = 0; l < slot.lanes.count(); ++l) add(*slot.lanes.at(l));
    }
    // Their truncations only: a heap lane's counts are never moved.
    for (const Lanes& lanes : heap_lanes_) {
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
  for (const Slot& slot : slots_) {
    for (uint32_t l = 0; l < slot.lanes.count(); ++l) {
      bytes += slot.lanes.at(l)->profile->MemoryBytes();
    }
  }
  for (const Lanes& lanes : heap_lanes_) {
    for (uint32_t l = 0; l < lanes.count(); ++l) bytes += lanes.at(l)->profile->MemoryBytes();
  }
  return bytes;
}

}  // namespace stackrec
