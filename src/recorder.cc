// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// ---------------------------------------------------------------------------
// The two-slot protocol
//
// Roles. Sampler threads call Record / RecordEndpoint: any number of them,
// at any time, and they must never wait for the serializer. One serializer
// thread at a time calls Serialize (serializing_ turns a second one away
// with kBusy). ResetAfterFork runs alone, in a fork() child.
//
// State. Two slots, each a Profile and a spin lock that orders samplers
// among themselves and tells the serializer whether one is inside.
// `active_` names the slot samplers write to; the other slot belongs to
// the serializer.
//
// Sampler:   s = active_                      (acquire)
//            lock slots[s]                    (seq_cst exchange)
//            if active_ != s: unlock, start over              (seq_cst load)
//            write; unlock                    (release)
// Serializer: set the idle slot's start to the flip instant t
//            active_ = other                  (seq_cst)
//            wait until old's lock is free    (seq_cst load)
//            encode old as [old.start, t]; reset it
//
// Invariant 1: once the serializer has seen the old slot's lock free after
// its flip, no sampler touches the old slot's profile until the next flip.
// The lock's exchange and the re-check of active_ on the sampler side, and
// the store to active_ and the load of the lock on the serializer side, are
// all seq_cst, so they fall in one total order S. If the serializer's load
// reads the lock of a sampler, it waits. If it reads "free", every sampler
// whose exchange took the lock later in the lock's modification order is
// also later in S (C++20 [atomics.order]: S follows coherence), so its
// re-check comes after the flip, sees the new active_, and it backs off
// without touching the profile. A sampler cannot slip in between. (Before,
// a counter of samplers in flight did this job beside the lock, at the
// price of two more atomic read-modify-writes on every record.)
//
// Invariant 2: everything a sampler wrote is visible to the serializer: the
// sampler's release unlock synchronizes with the serializer's load that
// reads "free". In the other direction, the serializer's reset of a slot
// and its new start time are published by the seq_cst store that makes the
// slot active again, which samplers read with acquire.
//
// Why a sampler never waits for the serializer: the only lock a sampler
// takes is its slot's spin lock, which the serializer never takes; its loop
// repeats only when a flip happened between its two loads of active_, and
// flips are one per serialization. What a sampler can wait for is another
// sampler's write on the same slot: a short, bounded critical section. The
// serializer, on the other hand, may wait for samplers: it spins (then
// yields) until the samplers that locked the old slot before the flip are
// done (each of the others takes the lock once more at most, to back off).
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
// A slot copies what its samples use out of the dictionary once, under
// that lock, and afterwards finds it by id alone; the serializer encodes
// the slot's copies and never reads the dictionary. forget_ids publishes
// the new generation in dict_generation_ (release); a sampler compares it
// (acquire) with the generation its slot's copies belong to and drops
// them when they differ, so an id from before the forget is refused.
//
// Endpoints: RecordEndpoint writes into the active slot. A request may
// outlive a flip, so the endpoints of the slot serialized last are carried
// into the next serialization and apply to spans that slot does not name
// itself (one flip of grace).
//
// Live-heap tracking (live_heap.h) adds three pieces of state, one per
// owner, so that what the serializer reads still comes only through slots:
//  - in each slot's Profile, "heap deltas": Track adds the object's values
//    at the live-heap types to its (stack, labels) row, Untrack subtracts
//    them. Samplers write them under the protocol above, like records.
//  - TrackedObjects (samplers only, under heap_lock_): the object table and
//    a content store that interns each object's stack and labels, so that
//    Untrack can name the object's key in whatever slot is active then.
//    Lock order: a slot's lock, then heap_lock_. The serializer never takes
//    heap_lock_, so samplers still never wait for it; they may wait for
//    each other, as on a slot's lock (including a sampler that compacts
//    the content store, an amortized O(objects) pass).
//  - LiveTotals (serializer only, during its turn): after the flip and the
//    drain, the old slot's heap deltas are added to the running totals by
//    content and cleared from the slot; then every non-zero total is added
//    to the old slot's ordinary keys before encoding. If encoding fails,
//    that addition is undone (KeyUndo) while the deltas stay consumed, so
//    the next profile counts each object once.
//
// Invariant 3: each object's deltas reach the totals in the order they
// were made. A sampler commits a delta under heap_lock_ only if the slot
// it entered is still active (it re-reads active_ under the lock);
// otherwise it leaves and enters the new slot. Without that, an Untrack
// that entered the old slot before a flip, but took heap_lock_ after a
// Track that went to the new slot, would put the object's minus into an
// earlier profile than its plus. Why the check suffices: while a sampler
// holds a slot's lock, the serializer cannot flip a second time (it waits
// for that lock to be free first), so "still active" means "no flip
// since I entered", and every delta committed before it under heap_lock_
// went to this slot or to an older one. A commit that read active_ after
// the flip store is ordered before ours by heap_lock_, and coherence then
// makes our read of active_ see the flip too. The retry is the same loop
// as the entry's: once per flip, never a wait.
// ---------------------------------------------------------------------------
#include "recorder.h"
#include "recorder_enter.h"

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "clock.h"
#include "serialize.h"
#include "table_growth.h"

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
  const size_t heap_width = live_heap_options_.types.size();
  for (Slot& slot : slots_) {
    slot.profile = std::make_unique<Profile>(options_, now_ns, heap_width);
  }
  if (heap_width != 0) {
    live_totals_ = std::make_unique<LiveTotals>(options_, live_heap_options_);
    tracked_ = std::make_unique<TrackedObjects>(options_, live_heap_options_);
  }
}

Recorder::~Recorder() = default;

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

template <typename F>
Status Recorder::RecordWith(F&& add) {
  const Status status = WithActiveSlot([&](Slot& slot) {
    Profile& profile = *slot.profile;
    const uint64_t truncated = profile.samples_truncated();
    const uint64_t over_memory = profile.samples_over_memory();
    Status s = add(profile);
    if (s.ok()) {
      // Only this sampler (holding the slot lock) writes these: a plain
      // increment through relaxed load and store, no read-modify-write.
      auto bump = [](std::atomic<uint64_t>& counter) {
        counter.store(counter.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
      };
      bump(slot.samples);
      if (profile.samples_truncated() != truncated) bump(slot.truncated);
      if (profile.samples_over_memory() != over_memory) bump(slot.over_memory);
    }
    // Samplers taking turns on this slot (this one follows another): the
    // next sampler is likely another thread too, so this sample's deferred
    // lookup (aggregate.h) is settled now, while the lines it
    // prefetched are in this core's cache, rather than left for that
    // sampler to read from here. A sampler alone keeps the deferral, which
    // saves it the lookup's miss.
    const void* const self = ThisThread();
    if (self != slot.last_sampler) {
      slot.last_sampler = self;
      profile.SettlePending();
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
    // The slot's own imports are read without the dictionary; a stack it
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
  return WithActiveSlot([&](Slot& slot) {
    return slot.profile->SetEndpoint(local_root_span_id, endpoint);
  });
}

Status Recorder::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  return WithActiveSlot([&](Slot& slot) {
    return slot.profile->AddEndpointCount(endpoint, value);
  });
}

Status Recorder::AddUpscalingRule(UpscalingRule rule) {
  SpinLockHolder hold(&upscaling_lock_);
  return upscaling_.Add(std::move(rule), options_);
}

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

  // The flip. Before it, no sampler touches `next`, so its start is ours to
  // set; the seq_cst store publishes it.
  const int64_t flip_ns = clock();
  // (A slot still holding samples from a failed serialization keeps its
  // start, so those samples are not attributed to a later interval alone.)
  if (next.profile->key_count() + next.profile->timed_count() == 0) {
    next.profile->set_start_ns(flip_ns);
  }
  active_.store(1 - old_index, std::memory_order_seq_cst);
  for (int spins = 0; old.lock.IsLocked(std::memory_order_seq_cst);) {
    if (++spins < 1024) {
      SpinLock::CpuRelax();
    } else {
      sched_yield();
    }
  }

  // From here until the next flip, `old` is ours alone (invariant 1).
  Profile& profile = *old.profile;
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

  // The objects still tracked join the slot's samples (invariant 3: its
  // deltas are all in by now). The deltas are consumed for good; the
  // totals' addition to the keys is taken back if encoding fails.
  KeyUndo live_undo;
  live_undo.key_count = profile.key_count();
  if (live_totals_ != nullptr) {
    live_totals_->Absorb(&profile);
    try {
      live_totals_->AddTo(&profile, &live_undo);
    } catch (...) {
      profile.Undo(live_undo);
      throw;
    }
  }
  out->bytes.clear();
  out->start_ns = profile.start_ns();
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

  const uint64_t samples = old.samples.load(std::memory_order_relaxed);
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
      old.samples.store(0, std::memory_order_relaxed);
      stats_.samples_left_out_of_output += out->stats.encoded.samples_left_out;
      stats_.samples_truncated += old.truncated.exchange(0, std::memory_order_relaxed);
      stats_.samples_over_memory += old.over_memory.exchange(0, std::memory_order_relaxed);
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
    } else {
      CarryOverOrReset(&old.profile, flip_ns);
    }
    carried_endpoints_ = std::move(own_endpoints);
  } else {
    // Nothing recorded is dropped: the samples stay in the slot and are
    // reported, with the old start, by a later serialization, beside the
    // live totals of that later time.
    profile.Undo(live_undo);
    out->bytes.clear();
  }
  return status;
}

void Recorder::ResetAfterFork(int64_t now_ns) {
  // Only this thread exists in the child. A slot that a parent thread was
  // writing, encoding or resetting at the fork may be half-changed: abandon
  // its profile rather than touch it.
  const bool serializer_was_busy = serializing_.load(std::memory_order_relaxed);
  const uint32_t active = active_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < 2; ++i) {
    Slot& slot = slots_[i];
    const bool dirty = slot.lock.IsLocked(std::memory_order_relaxed) ||
                       (serializer_was_busy && i != active);
    if (dirty) {
      Abandon(&slot.profile);
      slot.profile =
          std::make_unique<Profile>(options_, now_ns, live_heap_options_.types.size());
    } else {
      slot.profile->Reset(now_ns);
    }
    slot.lock.ForceUnlockAfterFork();
    slot.samples.store(0, std::memory_order_relaxed);
    slot.truncated.store(0, std::memory_order_relaxed);
    slot.over_memory.store(0, std::memory_order_relaxed);
  }
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
  // but its frees are its own business from here on. A table a parent
  // sampler was changing (heap lock held) or totals a parent serializer
  // was changing are abandoned like slots.
  if (tracked_ != nullptr) {
    if (heap_lock_.IsLocked(std::memory_order_relaxed)) {
      Abandon(&tracked_);
    }
    tracked_ = std::make_unique<TrackedObjects>(options_, live_heap_options_);
    if (serializer_was_busy) Abandon(&live_totals_);
    live_totals_ = std::make_unique<LiveTotals>(options_, live_heap_options_);
  }
  heap_lock_.ForceUnlockAfterFork();
  objects_tracked_.store(0, std::memory_order_relaxed);
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
    for (const Slot& slot : slots_) {
      out.samples_recorded += slot.samples.load(std::memory_order_relaxed);
      out.samples_truncated += slot.truncated.load(std::memory_order_relaxed);
      out.samples_over_memory += slot.over_memory.load(std::memory_order_relaxed);
    }
  }
  out.records_rejected = records_rejected_.load(std::memory_order_relaxed);
  out.objects_tracked = objects_tracked_.load(std::memory_order_relaxed);
  out.objects_not_tracked = objects_not_tracked_.load(std::memory_order_relaxed);
  return out;
}

}  // namespace stackrec
