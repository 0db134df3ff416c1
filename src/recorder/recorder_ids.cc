// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The recorder's dictionary: interning under its lock, which only samplers
// and interning threads take, and forgetting the ids (a new generation).
#include <optional>

#include "recorder/recorder.h"

namespace stackrec {

Status Recorder::InternMapping(const MappingView& mapping, uint32_t* id) {
  SpinLockHolder hold(&dict_lock_);
  return dict_->InternMapping(mapping, id);
}

Status Recorder::InternFunction(const FunctionView& function, uint32_t* id) {
  SpinLockHolder hold(&dict_lock_);
  return dict_->InternFunction(function, id);
}

Status Recorder::InternLocation(uint32_t mapping_id, uint32_t function_id, uint64_t address,
                                int64_t line, bool inlined, uint32_t* id) {
  SpinLockHolder hold(&dict_lock_);
  return dict_->InternLocation(mapping_id, function_id, address, line, inlined, id);
}

Status Recorder::InternStack(absl::Span<const uint32_t> location_ids, uint32_t* id) {
  {
    SpinLockHolder hold(&dict_lock_);
    STACKREC_RETURN_IF_ERROR(dict_->InternStack(location_ids, id));
  }
  ImportIntoActiveSlot(Profile::Interned::kStack, *id);
  return OkStatus();
}

Status Recorder::InternLabels(absl::Span<const LabelView> labels, uint32_t* id) {
  {
    SpinLockHolder hold(&dict_lock_);
    STACKREC_RETURN_IF_ERROR(dict_->InternLabels(labels, id));
  }
  ImportIntoActiveSlot(Profile::Interned::kLabelSet, *id);
  return OkStatus();
}

void Recorder::ImportIntoActiveSlot(Profile::Interned what, uint32_t id) {
  // As a record_ids that names `id`: a lane's lock, then the dictionary's.
  const Status entered = samples_.Enter([&](SampleLaneOf& lane, uint32_t) -> std::optional<Status> {
    SpinLockHolder hold(&dict_lock_);
    lane.content->ImportInterned(*dict_, what, id);
    return OkStatus();
  });
  (void)entered;  // always OK
}

void Recorder::ForgetIds() {
  SpinLockHolder hold(&dict_lock_);
  dict_->Forget();
  // Release: a sampler that sees the new generation syncs its slot before
  // it trusts the slot's imports again.
  dict_generation_.store(dict_->generation(), std::memory_order_release);
}

}  // namespace stackrec
