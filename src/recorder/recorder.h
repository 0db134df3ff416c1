// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Recorder: two slots of profiles that sampler threads record into while a
// serializer thread periodically takes a finished profile. The two-slot
// protocol is in slots.h; what the recorder adds to it (dictionary,
// endpoints, live-heap tracking) is described at the top of recorder.cc.
#ifndef STACKREC_SRC_RECORDER_RECORDER_H_
#define STACKREC_SRC_RECORDER_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "base/spin_lock.h"
#include "base/status.h"
#include "input/live_heap_options.h"
#include "input/serialize_options.h"
#include "live_heap/live_totals.h"
#include "live_heap/tracked_objects.h"
#include "profile/dictionary.h"
#include "profile/profile.h"
#include "recorder/lanes.h"
#include "recorder/sample_lane.h"
#include "recorder/slot_tables.h"
#include "recorder/slots.h"
#include "serialize/serialize.h"

namespace stackrec {

struct RecorderStats {
  // The most recent successful serialization.
  uint64_t last_samples = 0;        // records that went into that profile
  uint64_t last_distinct_keys = 0;  // its samples after aggregation
  int64_t last_serialize_ns = 0;    // time spent encoding it
  // Since creation (or reset_after_fork).
  uint64_t serializations_ok = 0;
  uint64_t serializations_failed = 0;
  int64_t serialize_ns_min = 0, serialize_ns_max = 0, serialize_ns_total = 0;
  uint64_t samples_recorded = 0;
  uint64_t records_rejected = 0;
  uint64_t samples_truncated = 0;           // stacks cut to max_frames
  uint64_t samples_over_memory = 0;         // sent to the storage-full pseudo-stack
  uint64_t samples_left_out_of_output = 0;  // summed for max_output_bytes
  uint64_t objects_tracked = 0;             // now
  uint64_t objects_not_tracked = 0;         // refused at max_tracked_objects
};

struct EncodedProfile {
  TableString bytes;
  int64_t start_ns = 0, end_ns = 0;
  // The profile's endpoint hit counts, by endpoint name.
  std::vector<std::pair<std::string, int64_t>> endpoint_counts;
  SerializationStats stats;
};

class Recorder {
 public:
  // `options` must have passed MakeProfileOptions and `live_heap`
  // MakeLiveHeapOptions; with no live-heap types, Track is refused.
  Recorder(const ProfileOptions& options, int64_t now_ns, const LiveHeapOptions& live_heap = {});
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Sampler side: any number of threads, concurrently. Never waits for the
  // serializer. `frames` as in Profile::Add.
  Status Record(const SampleView& sample, const HashedFrames* frames = nullptr);
  Status RecordEndpoint(uint64_t local_root_span_id, absl::string_view endpoint);
  Status AddEndpointCount(absl::string_view endpoint, int64_t value);
  // Live-heap tracking (live_heap/): every serialization adds the objects
  // still tracked to its profile. Track validates as Record does, and also
  // wants timestamp_ns 0 and values 0 but at the live-heap types.
  Status Track(uint64_t object_id, const SampleView& sample);
  // Cheap when `object_id` is not tracked: one lock no slot shares and one
  // probe, usually no record read.
  void Untrack(uint64_t object_id);

  // Pre-interned ids (dictionary.h), from any thread: the dictionary is
  // shared by both slots, guarded by a lock only samplers take. A stack or
  // label set interned is also imported into the active slot at once
  // (Profile::ImportInterned); the other slot imports it at its first use.
  Status RecordIds(const IdSampleView& sample);
  Status InternMapping(const MappingView& mapping, uint32_t* id);
  Status InternFunction(const FunctionView& function, uint32_t* id);
  Status InternLocation(uint32_t mapping_id, uint32_t function_id, uint64_t address, int64_t line,
                        bool inlined, uint32_t* id);
  Status InternStack(absl::Span<const uint32_t> location_ids, uint32_t* id);
  Status InternLabels(absl::Span<const LabelView> labels, uint32_t* id);
  void ForgetIds();

  // Configuration, from any thread: a rule for every profile serialized
  // from now on (see Profile::AddUpscalingRule). Never blocks samplers.
  Status AddUpscalingRule(UpscalingRule rule);

  // Serializer side: one thread at a time; a concurrent second call gets
  // kBusy. `clock` is read once, at the flip.
  Status Serialize(const SerializeOptions& options, int64_t (*clock)(), EncodedProfile* out);

  // In a fork() child: makes the recorder empty and usable, whatever the
  // parent's threads were doing. Must be the only call running.
  void ResetAfterFork(int64_t now_ns);

  RecorderStats stats() const;
  // What every profile of the recorder was created with; fixed for its life.
  const ProfileOptions& options() const { return options_; }
  // Bytes held for tracking: the object table alone, and everything (the
  // tables, the content blobs and the serializer's totals). For tests and
  // benchmarks; only while no other call runs.
  size_t TrackedTableBytes() const;
  size_t LiveHeapMemoryBytes() const;
  // Bytes held by the two slots' profiles (as counted against
  // max_memory_bytes). For tests; only while no other call runs.
  size_t SlotMemoryBytes() const;
  // Lanes of both sample slots (lanes.h): for tests and benchmarks.
  uint32_t LaneCount() const { return samples_.lanes(0).count() + samples_.lanes(1).count(); }
  // The tables sample slot `s` shares among its lanes: for tests, while
  // no other call runs.
  const SampleTables& SlotTablesForTesting(uint32_t s) const {
    return slot_state_[s].tables->tables();
  }
  // Test-only: `hook` runs in every sampler that holds a sample slot's
  // new-entry lock (slot_tables.h) to add an entry, after adding it (null:
  // none). A test stops a sampler there to show that the others' known
  // keys go on without it.
  void SetNewEntryHookForTesting(void (*hook)(void*), void* arg) {
    for (SlotState& state : slot_state_) state.tables->SetNewEntryHookForTesting(hook, arg);
  }
  // Test-only: `hook` runs inside every record and track while its lane is
  // held, after its sample or delta is added (null: none). A test stops a sampler
  // there to show that the others, and the serializer, go on without it.
  void SetRecordHookForTesting(void (*hook)(void*), void* arg) {
    record_hook_arg_ = arg;
    record_hook_.store(hook, std::memory_order_release);
  }
  // For a record refused before it reached Record (at the C boundary).
  void CountRejected() { records_rejected_.fetch_add(1, std::memory_order_relaxed); }

 private:
  // The sample slots' lanes each hold a SampleLane over the slot's
  // tables; the heap slots' a Profile of heap deltas, with tables of its own.
  using SampleSlots = Slots<SampleLane>;
  using HeapSlots = Slots<Profile>;
  using SampleLaneOf = Lane<SampleLane>;
  using HeapLane = Lane<Profile>;
  using Deadline = HeldLanes<SampleLane>::Deadline;

  // What the recorder keeps for each sample slot beside its lanes.
  struct SlotState {
    // The lanes' memory and their tables', which max_memory_bytes bounds
    // (Profile::ShareMemoryCap).
    std::atomic<size_t> memory_bytes{0};
    // The tables the slot's lanes share (slot_tables.h); set before any
    // lane exists.
    std::unique_ptr<SlotTables> tables;
    // Serializer only: where this slot's interval starts, and whether it
    // still holds samples of a serialization that failed (which keep their
    // start).
    int64_t start_ns = 0;
    bool kept_failed = false;
    // Serializer only: lanes it could not take when it last encoded this
    // slot, with samples of that interval still in them.
    std::vector<uint32_t> skipped;
  };

  // A lane for sample slot `s`, not yet added to it: a fresh profile that
  // shares the slot's memory cap, as every lane of a slot must.
  std::unique_ptr<SampleLaneOf> NewLane(uint32_t s, int64_t start_ns);
  // A lane for a heap slot: a profile of heap deltas, outside any cap.
  std::unique_ptr<HeapLane> NewHeapLane(int64_t start_ns);
  // SampleLane::ImportInterned into a lane of the active slot.
  void ImportIntoActiveSlot(Profile::Interned what, uint32_t id);
  // Record's bookkeeping around add(the SampleLane it entered).
  template <typename F>
  Status RecordWith(F&& add);

  // ResetAfterFork's parts (recorder_fork.cc): sample slot `s`, its
  // lanes' contents and tables made anew (those a parent thread may have
  // been in, `serializers` or a lane or the tables held, abandoned); the
  // heap slots; the dictionary; the trackers' objects and the totals.
  void ResetSampleSlotAfterFork(uint32_t s, bool serializers, int64_t now_ns);
  void ResetHeapSlotsAfterFork(bool serializer_was_busy, int64_t now_ns);
  void ResetDictionaryAfterFork();
  void ResetTrackingAfterFork(bool serializer_was_busy);

  // Serialize's phases, in the order it runs them (recorder_serialize.cc).
  // The flip: the other slot becomes active from the instant returned.
  int64_t FlipSlots(int64_t (*clock)());
  // The heap slots flip with the slots, unless those of an earlier flip are
  // still held by a tracker (invariant 3: they are absorbed in order).
  void FlipHeapSlots(Deadline deadline, int64_t flip_ns);
  // Absorbs the lanes of the heap slot not active into the live totals if
  // it can take them all before `deadline`; false if not (then none).
  bool AbsorbHeapLanes(Deadline deadline, int64_t now_ns);
  // With the old slot's lanes in *held and its tables' lock: merges them,
  // and those of the active slot that it skipped last time if they are
  // free now (added to *held), and returns the profile to encode, whose
  // lane is (*held)[0] if any.
  Profile* GatherLanes(uint32_t old, HeldLanes<SampleLane>* held, std::unique_ptr<Profile>* spare);
  // The upscaling rules, the endpoints `target` (null for a spare
  // profile) kept by name, and those carried over from the slot serialized
  // last; returns the profile's own endpoints, to carry next.
  absl::flat_hash_map<uint64_t, std::string> AddRulesAndEndpoints(Profile* profile,
                                                                  SampleLane* target);
  // The objects tracked as of the last heap slot absorbed join the samples,
  // undoably (*undo).
  void AddLiveTotals(Profile* profile, KeyUndo* undo);
  // The serialization's figures, moved into the recorder's stats.
  void CountSerialization(bool ok, const Profile& profile, SampleLaneOf* target,
                          const SerializationStats& stats);
  // After a successful encoding of the lanes in `held` (of which the
  // first `from_old` are the slot's): the slot keeps its tables for the
  // next interval, or, if `whole_slot` (every lane of the slot held), only
  // what its samples used.
  void Recycle(uint32_t old, const HeldLanes<SampleLane>& held, size_t from_old,
               const EncodeStats& used, int64_t flip_ns, bool whole_slot);

  const ProfileOptions options_;
  // Pre-interned ids: samplers only, under dict_lock_. The generation is
  // also published in dict_generation_ for the lock-free fast path.
  SpinLock dict_lock_;
  std::unique_ptr<Dictionary> dict_ ABSL_PT_GUARDED_BY(dict_lock_);
  std::atomic<uint32_t> dict_generation_{0};
  // Declared before the slots: the lanes' profiles withdraw from their
  // slot's memory_bytes when they are destroyed.
  SlotState slot_state_[2];
  // The sample slots (slots.h), which samplers record into.
  SampleSlots samples_;
  std::atomic<bool> serializing_{false};

  // Serializer-only state (guarded by serializing_).
  // Endpoints of the previously serialized slot, carried into the next
  // profile so that a request spanning a flip keeps its endpoint.
  absl::flat_hash_map<uint64_t, std::string> carried_endpoints_;
  // The running live-heap totals; null when tracking is off.
  std::unique_ptr<LiveTotals> live_totals_;
  // Of both slots: each slot serializes every other time.
  OutputSizes output_sizes_;

  // Track and Untrack's heap deltas (recorder.cc, invariant 3): two heap
  // slots of lanes that only trackers and the serializer take, flipped by
  // the serializer apart from the sample slots. heap_pending_ (serializer
  // only) says that the one not active holds deltas not yet absorbed into
  // the totals.
  HeapSlots heap_;
  bool heap_pending_ = false;

  // Live-heap tracking, samplers' side (null when tracking is off): its
  // locks are taken after a heap lane's, never before, and never by the
  // serializer.
  const LiveHeapOptions live_heap_options_;
  std::unique_ptr<TrackedObjects> tracked_;
  std::atomic<uint64_t> objects_not_tracked_{0};

  // Set by AddUpscalingRule, copied into each slot the serializer encodes.
  SpinLock upscaling_lock_;
  UpscalingRules upscaling_ ABSL_GUARDED_BY(upscaling_lock_);

  mutable SpinLock stats_lock_;
  RecorderStats stats_ ABSL_GUARDED_BY(stats_lock_);
  std::atomic<uint64_t> records_rejected_{0};

  std::atomic<void (*)(void*)> record_hook_{nullptr};
  void* record_hook_arg_ = nullptr;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_RECORDER_H_
