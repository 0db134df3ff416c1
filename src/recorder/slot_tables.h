// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SlotTables: the interned tables of one recorder slot, shared by all of
// its lanes (recorder/lanes.h), so that a stack, label set, string or
// location is interned once per slot, whichever lane meets it first, and
// a slot's memory does not grow with its samplers. Each lane's Profile
// keeps only what is its own: the rows of values it adds to, and what it
// imported from the dictionary.
//
// Who reads and writes what:
//  - Known entries, lock-free: a sampler finds a stack or label set by its
//    fingerprint in the published indexes (published_index.h) and a key's
//    seeds in the tables' stable seed vectors (SampleTables::KeyTag),
//    never waiting for anyone.
//  - New entries, under lock(): a sampler takes it with TryLock and, when
//    it is busy, parks its sample in its lane (pending_samples.h) rather
//    than wait; the lock's holder interns into tables() and publishes what
//    it interned (Publish) before it unlocks. Invariant: everything in the
//    published indexes is in tables()'s caches under the same
//    fingerprint, so a lock-free hit finds what the locked path would.
//  - The serializer reads and changes tables() under lock() too, and does
//    what would pull the tables from under a lock-free reader (CarryOver,
//    FreeRetired) only when it holds every lane of the slot.
#ifndef STACKREC_SRC_RECORDER_SLOT_TABLES_H_
#define STACKREC_SRC_RECORDER_SLOT_TABLES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/functional/function_ref.h"
#include "base/spin_lock.h"
#include "concurrent/published_index.h"
#include "hash/fingerprint.h"
#include "input/profile_options.h"
#include "profile/profile_parts.h"
#include "tables/records.h"
#include "tables/sample_tables.h"

namespace stackrec {

class SlotTables {
 public:
  // `options` must have passed MakeProfileOptions. The tables' memory is
  // added to *memory_bytes, the slot's counter that its lanes' profiles
  // publish into too (Profile::ShareMemoryCap).
  SlotTables(const ProfileOptions& options, std::atomic<size_t>* memory_bytes);
  ~SlotTables();
  SlotTables(const SlotTables&) = delete;
  SlotTables& operator=(const SlotTables&) = delete;

  // ---- Lock-free, from any lane --------------------------------------------
  // The stack or label set interned from content of fingerprint `fp`, with
  // its seed (SampleTables::KeyTag).
  using Entry = PublishedIndex::Entry;
  bool FindStack(const Fingerprint& fp, Entry* e) const { return stacks_.Find(fp, e); }
  bool FindLabels(const Fingerprint& fp, Entry* e) const { return labels_.Find(fp, e); }
  void PrefetchStack(const Fingerprint& fp) const { stacks_.Prefetch(fp); }
  void PrefetchLabels(const Fingerprint& fp) const { labels_.Prefetch(fp); }
  // Set before any lane exists and after each CarryOver and Reset, which
  // happen with every lane held: the one-frame stack the memory cap's
  // samples go to, and the strings of the options.
  uint32_t storage_full_stack() const { return storage_full_stack_; }
  const OptionStrings& ids() const { return ids_; }

  // ---- Under lock() ---------------------------------------------------------
  SpinLock& lock() { return lock_; }
  // Replaced by CarryOver and Reset, with every lane held: a lane's
  // profile asks for them on every use rather than keep a pointer (a lane
  // being added meanwhile reads none; the atomic keeps that race benign).
  SampleTables& tables() const { return *tables_.load(std::memory_order_relaxed); }
  // Publishes the stack and label set that the tables cache under these
  // fingerprints, if they do. Never throws: an entry left unpublished for
  // want of memory is found under the lock instead.
  void Publish(const Fingerprint* stack_fp, const Fingerprint* labels_fp) noexcept;
  // Adds the change in the tables' size to the slot's counter.
  void PublishMemory();
  // A turn at lock(), taken: whatever the holder added is counted in the
  // slot's memory before the lock is let go, however the add ends (the
  // test hook, SetNewEntryHookForTesting, runs first).
  class NewEntryTurn {
   public:
    explicit NewEntryTurn(SlotTables* slot) : slot_(slot) {}
    ~NewEntryTurn() {
      slot_->PublishMemory();
      if (void (*hook)(void*) = slot_->hook_.load(std::memory_order_acquire)) {
        hook(slot_->hook_arg_);
      }
      slot_->lock_.Unlock();
    }
    NewEntryTurn(const NewEntryTurn&) = delete;
    NewEntryTurn& operator=(const NewEntryTurn&) = delete;

   private:
    SlotTables* const slot_;
  };

  // ---- With every lane of the slot held -------------------------------------
  // Replaces the tables with new ones that hold only what `each_key`
  // passes to its argument (and the options' strings and the storage-full
  // stack); *carried says where each stack and label set went, for the
  // lanes to rebind (SampleLane::RebindTables). Throws std::bad_alloc
  // with the tables as they were.
  void CarryOver(absl::FunctionRef<void(absl::FunctionRef<void(SampleKey)>)> each_key,
                 SampleTables::Carried* carried);
  // Empties the tables (a fork() child's recorder).
  void Reset();
  // Frees the published indexes' retired tables.
  void FreeRetired() {
    stacks_.FreeRetired();
    labels_.FreeRetired();
  }
  // SampleTables::Compact, under lock().
  void Compact();

  size_t MemoryBytes() const;
  // Test-only: `hook` runs in every sampler that holds lock() to add an
  // entry, after adding it (null: none).
  void SetNewEntryHookForTesting(void (*hook)(void*), void* arg) {
    hook_arg_ = arg;
    hook_.store(hook, std::memory_order_release);
  }

 private:
  // The options' strings and the storage-full stack, into the tables.
  void InternConstants();
  // Publishes every cached stack and label set: after the tables changed
  // wholesale.
  void PublishAll();

  // What every lane reads on every record, apart from what the lock's
  // holder writes on every new entry: no line of one is a line of the
  // other.
  const ProfileOptions options_;
  std::unique_ptr<SampleTables> owned_;
  std::atomic<SampleTables*> tables_{nullptr};
  PublishedIndex stacks_, labels_;
  OptionStrings ids_;
  uint32_t storage_full_stack_ = 0;
  std::atomic<size_t>* const memory_bytes_;
  std::atomic<void (*)(void*)> hook_{nullptr};
  void* hook_arg_ = nullptr;
  alignas(64) SpinLock lock_;
  size_t published_ = 0;  // under lock_
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_SLOT_TABLES_H_
