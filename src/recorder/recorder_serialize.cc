// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Recorder::Serialize and its phases, in the order it runs them: the flip,
// the heap flip, gathering the old slot's lanes, the rules, endpoints and
// live totals, encoding, counting, and the slot's recycling. The protocol
// and the invariants are at the top of recorder.cc.
#include <algorithm>
#include <chrono>
#include <new>
#include <utility>
#include <vector>

#include "base/table_growth.h"
#include "recorder/recorder.h"
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
  HeldLanes<SampleLane> held;
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
  SampleLaneOf* const target = held.empty() ? nullptr : held[0];
  absl::flat_hash_map<uint64_t, std::string> own_endpoints =
      AddRulesAndEndpoints(&profile, target != nullptr ? target->content.get() : nullptr);
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
  HeldLanes<Profile> held;
  if (!held.TakeAll(heap_.lanes(1 - heap_.active()), deadline)) return false;
  for (HeapLane* lane : held) {
    live_totals_->Absorb(lane->content.get());
    // Its keys were only for the deltas, which are consumed.
    lane->content->Reset(now_ns);
  }
  return true;
}

Profile* Recorder::GatherLanes(uint32_t old, HeldLanes<SampleLane>* held,
                               std::unique_ptr<Profile>* spare) {
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
  for (SampleLaneOf* lane : *held) lane->content->AddPendingSamples();
  // The lane with the most keys receives the others' samples: the least
  // to copy. It goes first in *held.
  auto most = std::max_element(
      held->begin(), held->end(), [](const SampleLaneOf* a, const SampleLaneOf* b) {
        return a->content->profile().key_count() < b->content->profile().key_count();
      });
  std::iter_swap(held->begin(), most);
  SampleLaneOf& target = *(*held)[0];
  auto move_counts = [&target](SampleLaneOf& lane) {
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
    SampleLaneOf& lane = *(*held)[i];
    target.content->MergeSameSlot(*lane.content);  // all or nothing
    move_counts(lane);
    // The lane keeps its dictionary imports, for its sampler's next records.
    lane.content->ClearSamples(state.start_ns);
  }
  // Lanes of the active slot skipped last time, if free now and if its
  // tables are free to read: merged by content.
  SlotState& active = slot_state_[1 - old];
  if (!active.skipped.empty() && active.tables->lock().TryLock()) {
    SpinLockHolder hold_active(&active.tables->lock(), SpinLockHolder::kAdopt);
    held->TakeFree(samples_.lanes(1 - old), &active.skipped);
    for (size_t i = from_old; i < held->size(); ++i) {
      SampleLaneOf& lane = *(*held)[i];
      lane.content->AddPendingSamples();
      target.content->MergeOtherSlot(*lane.content);  // all or nothing
      move_counts(lane);
      lane.content->ClearSamples(slot_state_[1 - old].start_ns);
    }
  }
  Profile& profile = target.content->profile();
  profile.set_start_ns(state.start_ns);
  return &profile;
}

absl::flat_hash_map<uint64_t, std::string> Recorder::AddRulesAndEndpoints(Profile* profile,
                                                                          SampleLane* target) {
  {
    SpinLockHolder hold(&upscaling_lock_);
    profile->set_upscaling_rules(upscaling_);
  }
  // A lane keeps endpoints by name until now (endpoint_names.h).
  if (target != nullptr) target->SettleEndpoints();
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

void Recorder::CountSerialization(bool ok, const Profile& profile, SampleLaneOf* target,
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

void Recorder::Recycle(uint32_t old, const HeldLanes<SampleLane>& held, size_t from_old,
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
  SampleLane& target = *held[0]->content;
  Profile& profile = target.profile();
  const bool mostly_used = used.stacks_used * 4 >= profile.stacks().size() * 3 &&
                           used.label_sets_used * 4 >= profile.label_sets().size() * 3;
  if (whole_slot && !mostly_used) {
    SampleTables::Carried carried;
    try {
      tables.CarryOver(
          [&profile](absl::FunctionRef<void(SampleKey)> carry) { profile.ForEachKey(carry); },
          &carried);
      target.ClearSamples(flip_ns);
      // The slot's lanes, not the other slot's that GatherLanes took.
      for (size_t i = 0; i < from_old; ++i) held[i]->content->RebindTables(carried);
    } catch (const std::bad_alloc&) {
      // The tables stay as they are.
    }
  }
  target.ClearSamples(flip_ns);
  if (whole_slot) tables.FreeRetired();
  tables.PublishMemory();
}

}  // namespace stackrec
