// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/aggregate.h"

#include "base/table_growth.h"

namespace stackrec {

Aggregate::Aggregate(size_t width) : width_(width), rows_(1 + width) {
  // Sized once: Defer and the stages overwrite them in place.
  at_slot_.values.resize(width_);
  at_row_.values.resize(width_);
}

void Aggregate::Insert(SampleKey key, uint32_t tag, const int64_t* values) {
  // Both grow first, so that an allocation failure leaves the aggregate as
  // it was; then nothing below can throw.
  rows_.ReserveOne();
  key_index_.ReserveOne();
  const auto row_number = static_cast<uint32_t>(rows_.size());
  int64_t* row = rows_.Append();
  row[0] = static_cast<int64_t>(key.Packed());
  std::copy_n(values, width_, row + 1);
  key_index_.Insert(tag, row_number);
}

void Aggregate::Add(SampleKey key, uint32_t tag, const int64_t* values, KeyUndo* undo) {
  Settle();
  const uint32_t row = FindSettled(key.Packed(), tag);
  if (row == KeyIndex::kNone) {
    Insert(key, tag, values);
    return;
  }
  if (undo != nullptr && row < undo->key_count) {
    ReserveFor(undo->rows, 1);
    ReserveFor(undo->saved_values, width_);
    undo->rows.push_back(row);
    const int64_t* old = rows_.Row(row) + 1;
    undo->saved_values.insert(undo->saved_values.end(), old, old + width_);
  }
  SumInto(row, values);
}

void Aggregate::Undo(const KeyUndo& undo, absl::FunctionRef<uint32_t(SampleKey)> tag_of) {
  Settle();
  // The keys added since, newest first, unindexed by their tags.
  for (size_t i = rows_.size(); i > undo.key_count; --i) {
    const auto row = static_cast<uint32_t>(i - 1);
    key_index_.Erase(tag_of(SampleKey{key_stack(row), key_labels(row)}), row);
  }
  rows_.Truncate(std::min(rows_.size(), undo.key_count));
  for (size_t i = 0; i < undo.rows.size(); ++i) {
    std::copy_n(&undo.saved_values[i * width_], width_, rows_.Row(undo.rows[i]) + 1);
  }
}

void Aggregate::AddTimed(SampleKey key, int64_t timestamp_ns, const int64_t* values) {
  ReserveFor(timed_, 1);
  ReserveFor(timed_values_, width_);
  timed_values_.insert(timed_values_.end(), values, values + width_);
  timed_.push_back(Timed{key, timestamp_ns});
}

void Aggregate::Clear() {
  slot_pending_ = false;
  pending_row_ = KeyIndex::kNone;
  key_index_.Clear();
  rows_.Clear();
  std::vector<Timed>().swap(timed_);
  std::vector<int64_t>().swap(timed_values_);
}

}  // namespace stackrec
