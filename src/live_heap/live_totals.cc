// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "live_heap/live_totals.h"

#include <algorithm>
#include <new>

#include "tables/heap_deltas.h"

namespace stackrec {

LiveTotals::LiveTotals(const ProfileOptions& profile_options, const LiveHeapOptions& options)
    : width_(options.types.size()),
      totals_(std::make_unique<Profile>(profile_options, 0, options.types.size())) {
  // The output holds the enabled types only; a disabled live-heap type is
  // tracked (samplers pass it) but, like any disabled type, not written.
  const std::vector<bool>& enabled = profile_options.enabled;
  for (size_t type : options.types) {
    if (!enabled.empty() && !enabled[type]) {
      stored_index_.push_back(kNotStored);
      continue;
    }
    size_t index = 0;
    for (size_t t = 0; t < type; ++t) index += enabled.empty() || enabled[t] ? 1 : 0;
    stored_index_.push_back(index);
  }
}

void LiveTotals::Absorb(Profile* slot) {
  // Rows first (may throw, changing no total), then the sums. A key whose
  // objects came and went within the interval sums to zero and changes no
  // total: its content is not even imported.
  const HeapDeltas& deltas = slot->heap_deltas();
  const size_t n = deltas.size();
  scratch_rows_.clear();
  for (size_t i = 0; i < n; ++i) {
    const int64_t* v = deltas.values(i);
    if (std::all_of(v, v + width_, [](int64_t x) { return x == 0; })) continue;
    uint32_t stack, labels;
    totals_->ImportKey(*slot, deltas.stack(i), deltas.labels(i), &stack, &labels);
    scratch_rows_.push_back(static_cast<uint32_t>(i));
    scratch_rows_.push_back(totals_->HeapRow(stack, labels));
  }
  for (size_t i = 0; i < scratch_rows_.size(); i += 2) {
    totals_->AddHeapDelta(scratch_rows_[i + 1], deltas.values(scratch_rows_[i]),
                          /*negate=*/false);
  }
  slot->ClearHeapDeltas();
  CompactIfMostlyDead();
}

void LiveTotals::AddTo(Profile* slot, KeyUndo* undo) {
  for (size_t i = 0; i < totals_->heap_deltas().size(); ++i) {
    const int64_t* totals = totals_->heap_deltas().values(i);
    scratch_values_.assign(slot->stored_values(), 0);
    bool any = false;
    for (size_t j = 0; j < width_; ++j) {
      if (stored_index_[j] == kNotStored || totals[j] == 0) continue;
      scratch_values_[stored_index_[j]] = totals[j];
      any = true;
    }
    // Every object of this key freed (or only disabled types non-zero):
    // nothing to write, and an all-zero sample would be noise.
    if (!any) continue;
    uint32_t stack, labels;
    slot->ImportKey(*totals_, totals_->heap_deltas().stack(i), totals_->heap_deltas().labels(i),
                    &stack, &labels);
    slot->AddToKey(stack, labels, scratch_values_.data(), undo);
  }
}

void LiveTotals::CompactIfMostlyDead() {
  const size_t n = totals_->heap_deltas().size();
  size_t dead = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t* v = totals_->heap_deltas().values(i);
    dead += std::all_of(v, v + width_, [](int64_t x) { return x == 0; }) ? 1 : 0;
  }
  if (dead < 64 || dead * 2 <= n) return;
  try {
    std::vector<uint32_t> kept;
    kept.reserve(n - dead);
    for (uint32_t i = 0; i < n; ++i) {
      const int64_t* v = totals_->heap_deltas().values(i);
      if (!std::all_of(v, v + width_, [](int64_t x) { return x == 0; })) kept.push_back(i);
    }
    totals_ = totals_->KeepHeapRows(kept);
  } catch (const std::bad_alloc&) {
    // Kept as they are until a later serialization tries again.
  }
}

}  // namespace stackrec
