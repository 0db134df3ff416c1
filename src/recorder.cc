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
// State. Two slots, each a Profile plus `in_flight` (samplers inside the
// slot) and a spin lock that orders samplers among themselves. `active_`
// names the slot samplers write to; the other slot belongs to the
// serializer.
//
// Sampler:   s = active_                      (acquire)
//            slots[s].in_flight += 1          (seq_cst)
//            if active_ != s: in_flight -= 1, start over      (seq_cst load)
//            lock slots[s]; write; unlock; in_flight -= 1     (release)
// Serializer: set the idle slot's start to the flip instant t
//            active_ = other                  (seq_cst)
//            wait until old.in_flight == 0    (acquire)
//            encode old as [old.start, t]; reset it
//
// Invariant 1: once the serializer has seen old.in_flight == 0 after its
// flip, no sampler touches the old slot's profile until the next flip. The
// increment and the re-check of active_ on the sampler side, and the store
// to active_ and the load of in_flight on the serializer side, are all
// seq_cst, so they fall in one total order: either the serializer's load
// sees the sampler's increment (and waits for it), or the sampler's re-check
// comes after the flip and sees the new active_ (and backs off without
// touching the profile). It cannot miss both.
//
// Invariant 2: everything a sampler wrote is visible to the serializer: the
// sampler's release decrement of in_flight synchronizes with the
// serializer's acquire load that reads 0. In the other direction, the
// serializer's reset of a slot and its new start time are published by the
// seq_cst store that makes the slot active again, which samplers read with
// acquire.
//
// Why a sampler never waits for the serializer: the only lock a sampler
// takes is its slot's spin lock, which the serializer never takes; its loop
// repeats only when a flip happened between its two loads of active_, and
// flips are one per serialization. What a sampler can wait for is another
// sampler's write on the same slot: a short, bounded critical section. The
// serializer, on the other hand, may wait for samplers: it spins (then
// yields) until the samplers that entered the old slot before the flip are
// done.
//
// Time tiles: the flip instant t ends the old slot's profile and starts the
// new active one, so consecutive profiles cover adjacent intervals.
//
// Upscaling rules are configuration, not samples: AddUpscalingRule keeps
// them under a lock only it and the serializer take, and the serializer
// copies them into the slot it encodes, so they hold for every profile
// from the next serialization on, whatever the flips.
//
// Endpoints: RecordEndpoint writes into the active slot. A request may
// outlive a flip, so the endpoints of the slot serialized last are carried
// into the next serialization and apply to spans that slot does not name
// itself (one flip of grace).
// ---------------------------------------------------------------------------
#include "recorder.h"

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

#include "clock.h"
#include "pprof_encoder.h"

namespace stackrec {
namespace {

// Profiles a fork() child must neither use nor free: a thread of the parent
// may have been in the middle of changing them. Reachable from here, so leak
// checkers do not report them.
std::vector<Profile*>* AbandonedProfiles() {
  static auto* abandoned = new std::vector<Profile*>();
  return abandoned;
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

Recorder::Recorder(const ProfileOptions& options, int64_t now_ns)
    : options_(options) {
  for (Slot& slot : slots_) {
    slot.profile = std::make_unique<Profile>(options_, now_ns);
  }
}

Recorder::~Recorder() = default;

template <typename F>
Status Recorder::WithActiveSlot(F&& write) {
  for (;;) {
    const uint32_t s = active_.load(std::memory_order_acquire);
    Slot& slot = slots_[s];
    slot.in_flight.fetch_add(1, std::memory_order_seq_cst);
    if (active_.load(std::memory_order_seq_cst) != s) {
      // The serializer flipped between our two loads: this slot is now its.
      slot.in_flight.fetch_sub(1, std::memory_order_release);
      continue;
    }
    Status status;
    {
      SpinLockHolder hold(&slot.lock);
      status = write(slot);
    }
    slot.in_flight.fetch_sub(1, std::memory_order_release);
    return status;
  }
}

Status Recorder::Record(const SampleView& sample) {
  const Status status = WithActiveSlot([&](Slot& slot) {
    Profile& profile = *slot.profile;
    const uint64_t truncated = profile.samples_truncated();
    const uint64_t over_memory = profile.samples_over_memory();
    Status s = profile.Add(sample);
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
    return s;
  });
  if (!status.ok()) records_rejected_.fetch_add(1, std::memory_order_relaxed);
  return status;
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
  for (int spins = 0; old.in_flight.load(std::memory_order_acquire) != 0;) {
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
    own_endpoints.emplace(span, std::string(profile.strings().Get(id)));
  }
  for (const auto& [span, endpoint] : carried_endpoints_) {
    if (own_endpoints.count(span) == 0) {
      // Valid UTF-8 and non-empty: it was accepted once already.
      const Status carried = profile.SetEndpoint(span, endpoint);
      (void)carried;
    }
  }

  out->bytes.clear();
  out->start_ns = profile.start_ns();
  out->end_ns = flip_ns;
  out->endpoint_counts = profile.EndpointCounts();
  const Status status =
      SerializeProfile(profile, options, flip_ns, &out->bytes, &out->stats);
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
    CarryOverOrReset(&old.profile, flip_ns);
    carried_endpoints_ = std::move(own_endpoints);
  } else {
    // Nothing recorded is dropped: the samples stay in the slot and are
    // reported, with the old start, by a later serialization.
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
    const bool dirty = slot.in_flight.load(std::memory_order_relaxed) != 0 ||
                       slot.lock.IsLocked() ||
                       (serializer_was_busy && i != active);
    if (dirty) {
      AbandonedProfiles()->push_back(slot.profile.release());
      slot.profile = std::make_unique<Profile>(options_, now_ns);
    } else {
      slot.profile->Reset(now_ns);
    }
    slot.in_flight.store(0, std::memory_order_relaxed);
    slot.lock.ForceUnlockAfterFork();
    slot.samples.store(0, std::memory_order_relaxed);
    slot.truncated.store(0, std::memory_order_relaxed);
    slot.over_memory.store(0, std::memory_order_relaxed);
  }
  active_.store(0, std::memory_order_relaxed);
  carried_endpoints_.clear();
  // The rules are configuration: the child keeps them.
  upscaling_lock_.ForceUnlockAfterFork();
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
  return out;
}

}  // namespace stackrec
