// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SlotTables: publishing new entries to the lanes, the slot's memory, and
// the serializer's wholesale changes.
#include "recorder/slot_tables.h"

#include <new>
#include <utility>

namespace stackrec {

SlotTables::SlotTables(const ProfileOptions& options, std::atomic<size_t>* memory_bytes)
    : options_(options), owned_(std::make_unique<SampleTables>()), memory_bytes_(memory_bytes) {
  tables_.store(owned_.get(), std::memory_order_relaxed);
  InternConstants();
  PublishMemory();
}

SlotTables::~SlotTables() { memory_bytes_->fetch_sub(published_, std::memory_order_relaxed); }

void SlotTables::InternConstants() {
  ids_ = InternOptionStrings(options_, &tables().mutable_strings());
  storage_full_stack_ = tables().InternPseudoStack(kStorageFullFrame);
}

void SlotTables::Publish(const Fingerprint* stack_fp, const Fingerprint* labels_fp) noexcept {
  // The indexes grow only within the memory cap, which they count in.
  const size_t used = memory_bytes_->load(std::memory_order_relaxed);
  const size_t room = used < options_.max_memory_bytes ? options_.max_memory_bytes - used : 0;
  try {
    const SampleTables& t = tables();
    uint32_t id;
    if (stack_fp != nullptr && t.CachedStack(*stack_fp, &id)) {
      stacks_.Insert(*stack_fp, {id, t.stack_seed(id)}, room);
    }
    if (labels_fp != nullptr && t.CachedLabels(*labels_fp, &id)) {
      labels_.Insert(*labels_fp, {id, t.label_seed(id)}, room);
    }
  } catch (const std::bad_alloc&) {
    // Found under the lock until a later publish gets the memory.
  }
}

void SlotTables::PublishAll() {
  stacks_.Clear();
  labels_.Clear();
  // What the tables held fitted the cap, and the indexes with them.
  constexpr size_t kNoCap = ~size_t{0};
  const SampleTables& t = tables();
  for (const auto& [fp, id] : t.stack_cache()) stacks_.Insert(fp, {id, t.stack_seed(id)}, kNoCap);
  for (const auto& [fp, id] : t.label_cache()) {
    labels_.Insert(fp, {id, t.label_seed(id)}, kNoCap);
  }
}

void SlotTables::PublishMemory() {
  const size_t now = MemoryBytes();
  // Every lane reads the counter on every record: it is written only when
  // the size changed. Modular: tables that shrank add the two's
  // complement of the drop.
  if (now == published_) return;
  memory_bytes_->fetch_add(now - published_, std::memory_order_relaxed);
  published_ = now;
}

void SlotTables::CarryOver(absl::FunctionRef<void(absl::FunctionRef<void(SampleKey)>)> each_key,
                           SampleTables::Carried* carried) {
  auto next = std::make_unique<SampleTables>();
  const OptionStrings ids = InternOptionStrings(options_, &next->mutable_strings());
  tables().CarryInto(next.get(), each_key, carried);
  const uint32_t storage_full = next->InternPseudoStack(kStorageFullFrame);
  // Nothing below throws but the publishing, which is redone from the
  // caches if it does.
  owned_ = std::move(next);
  tables_.store(owned_.get(), std::memory_order_relaxed);
  ids_ = ids;
  storage_full_stack_ = storage_full;
  try {
    PublishAll();
  } catch (const std::bad_alloc&) {
    stacks_.Clear();
    labels_.Clear();
  }
  PublishMemory();
}

void SlotTables::Reset() {
  owned_ = std::make_unique<SampleTables>();
  tables_.store(owned_.get(), std::memory_order_relaxed);
  stacks_.Clear();
  labels_.Clear();
  InternConstants();
  PublishMemory();
}

void SlotTables::Compact() {
  tables().Compact();
  PublishMemory();
}

size_t SlotTables::MemoryBytes() const {
  return tables().MemoryBytes() + stacks_.MemoryBytes() + labels_.MemoryBytes();
}

}  // namespace stackrec
