// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile's lifetime (creation, reset, carry-over), the memory cap, the
// calls outside the sampler's add (keys by content for live-heap
// tracking, endpoints), and what each part adds to the memory counted.
#include "profile/profile.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "base/utf8.h"
#include "input/label_rules.h"
#include "input/sample_checks.h"

namespace stackrec {

namespace {

// `options` with every sample type enabled if none was said.
ProfileOptions WithEnabledTypes(ProfileOptions options) {
  if (options.enabled.empty()) options.enabled.assign(options.sample_types.size(), true);
  return options;
}

}  // namespace

Profile::Profile(ProfileOptions options, int64_t start_ns, size_t heap_width)
    : options_(WithEnabledTypes(std::move(options))),
      start_ns_(start_ns),
      own_tables_(std::make_unique<SampleTables>()),
      aggregate_(
          static_cast<size_t>(std::count(options_.enabled.begin(), options_.enabled.end(), true))),
      heap_(heap_width) {
  all_values_stored_ = stored_values() == options_.sample_types.size();
  // Sized once: TakeValues overwrites it in place.
  scratch_values_.resize(stored_values());
  InternConstants();
}

Profile::Profile(ProfileOptions options, int64_t start_ns, SlotTables& slot)
    : options_(WithEnabledTypes(std::move(options))),
      start_ns_(start_ns),
      slot_(&slot),
      aggregate_(
          static_cast<size_t>(std::count(options_.enabled.begin(), options_.enabled.end(), true))),
      heap_(0) {
  all_values_stored_ = stored_values() == options_.sample_types.size();
  scratch_values_.resize(stored_values());
  // The slot's tables hold the options' strings (SlotTables::ids).
}

void Profile::InternConstants() {
  ids_ = InternOptionStrings(options_, &tables().mutable_strings());
}

void Profile::Reset(int64_t start_ns) {
  TablesChanged();
  // A lane's tables are its slot's, which the recorder resets.
  if (slot_ == nullptr) tables().Clear();
  aggregate_.Clear();
  endpoints_.Clear();
  endpoint_names_.Clear();
  pending_.Clear();
  samples_added_ = samples_truncated_ = samples_over_memory_ = 0;
  // The tables the imports pointed into are gone.
  imports_.Sync(DictionaryImports::kNotImported);
  heap_.Release();
  start_ns_ = start_ns;
  if (slot_ == nullptr) InternConstants();
  PublishMemory();
}

void Profile::ClearSamples(int64_t start_ns) {
  TablesChanged();
  // The keys' storage is released, not kept for the next profile: a
  // recorder's cleared slot waits a whole interval while the other fills,
  // and keeping its key index and rows would hold that memory twice;
  // growing them again costs less than the workloads benchmark can see.
  aggregate_.Clear();
  endpoints_.Clear();
  endpoint_names_.Clear();
  samples_added_ = samples_truncated_ = samples_over_memory_ = 0;
  heap_.Clear();
  start_ns_ = start_ns;
  PublishMemory();
}

void Profile::Compact() {
  TablesChanged();
  // A lane's tables are compacted by their slot (SlotTables::Compact).
  if (slot_ == nullptr) tables().Compact();
  PublishMemory();
}

Profile::~Profile() {
  if (shared_bytes_ != nullptr) shared_bytes_->fetch_sub(published_, std::memory_order_relaxed);
}

void Profile::ShareMemoryCap(std::atomic<size_t>* shared_bytes) {
  if (shared_bytes_ != nullptr) shared_bytes_->fetch_sub(published_, std::memory_order_relaxed);
  shared_bytes_ = shared_bytes;
  RepublishMemory();
}

void Profile::PublishMemory() const {
  if (shared_bytes_ == nullptr) return;
  if (other_bytes_stale_) RefreshOtherBytes();
  const size_t own = other_bytes_ + aggregate_.KeyBytes();
  // Modular: a profile that shrank adds the two's complement of the drop.
  shared_bytes_->fetch_add(own - published_, std::memory_order_relaxed);
  published_ = own;
}

std::unique_ptr<Profile> Profile::CarryOver(int64_t start_ns) const {
  // A lane's tables are carried over by their slot (SlotTables::CarryOver).
  assert(slot_ == nullptr);
  // Heap deltas are not carried: the serializer has consumed them.
  auto next = std::make_unique<Profile>(options_, start_ns, heap_.width());
  next->upscaling_ = upscaling_;
  SampleTables::Carried carried;
  tables().CarryInto(
      &next->tables(), [this](absl::FunctionRef<void(SampleKey)> carry) { ForEachKey(carry); },
      &carried);
  // Imports from the dictionary stay valid for what was carried over.
  imports_.CarryInto(carried, &next->imports_);
  if (shared_bytes_ != nullptr) next->ShareMemoryCap(shared_bytes_);
  return next;
}

void Profile::ForEachKey(absl::FunctionRef<void(SampleKey)> f) const {
  for (size_t i = 0; i < aggregate_.key_count(); ++i) {
    f(SampleKey{aggregate_.key_stack(i), aggregate_.key_labels(i)});
  }
  for (size_t i = 0; i < aggregate_.timed_count(); ++i) {
    f(SampleKey{aggregate_.timed_stack(i), aggregate_.timed_labels(i)});
  }
}

std::unique_ptr<Profile> Profile::KeepHeapRows(absl::Span<const uint32_t> rows) const {
  assert(slot_ == nullptr);
  auto next = std::make_unique<Profile>(options_, start_ns_, heap_.width());
  SampleTables::Carried carried;
  tables().CarryInto(
      &next->tables(),
      [&](absl::FunctionRef<void(SampleKey)> carry) {
        for (uint32_t row : rows) carry(SampleKey{heap_.stack(row), heap_.labels(row)});
      },
      &carried);
  for (uint32_t row : rows) {
    // Distinct rows have distinct keys, so the new rows come out in order.
    const uint32_t kept =
        next->heap_.Row(carried.stacks[heap_.stack(row)], carried.label_sets[heap_.labels(row)]);
    next->heap_.Add(kept, heap_.values(row), /*negate=*/false);
  }
  if (shared_bytes_ != nullptr) next->ShareMemoryCap(shared_bytes_);
  return next;
}

void Profile::RefreshOtherBytes() const {
  other_bytes_ = MemoryBytes() - aggregate_.KeyBytes();
  other_bytes_stale_ = false;
}

size_t Profile::MemoryBytes() const {
  // A lane's tables count once, in its slot's (SlotTables::PublishMemory).
  return (slot_ == nullptr ? tables().MemoryBytes() : 0) + aggregate_.KeyBytes() +
         aggregate_.TimedBytes() + imports_.MemoryBytes() + heap_.MemoryBytes() +
         endpoints_.MemoryBytes() + endpoint_names_.MemoryBytes() + pending_.MemoryBytes();
}

Status Profile::InternSampleKey(const SampleView& sample, uint32_t* stack, uint32_t* labels,
                                bool* truncated) {
  TablesChanged();
  STACKREC_RETURN_IF_ERROR(CheckLabels(sample.labels, sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(CheckInlining(sample.locations));
  *truncated = sample.locations.size() > options_.max_frames;
  if (*truncated) {
    STACKREC_RETURN_IF_ERROR(CheckFrameStrings(sample.locations, options_.max_frames));
  }
  return InternKeyContent(CutToMaxFrames(sample.locations), sample.labels, stack, labels);
}

Status Profile::ValidateSampleContent(const SampleView& sample) const {
  STACKREC_RETURN_IF_ERROR(CheckLabels(sample.labels, sample.timestamp_ns));
  STACKREC_RETURN_IF_ERROR(CheckInlining(sample.locations));
  return CheckStrings(sample.locations, sample.labels);
}

void Profile::ImportKey(const Profile& from, uint32_t stack, uint32_t labels, uint32_t* out_stack,
                        uint32_t* out_labels) {
  *out_stack = ImportStack(from, stack);
  *out_labels = ImportLabels(from, labels);
}

// Back to views of `from`'s strings, then through the fingerprint caches: a
// stack this profile knows costs one hash of its content and one lookup,
// and the views are exactly what interned it, so the content round-trips.
// Valid UTF-8 already: only an allocation can fail, and it throws.
uint32_t Profile::ImportFrames(absl::Span<const LocationView> frames) {
  TablesChanged();
  uint32_t id;
  const Status interned = InternStackContent(CutToMaxFrames(frames), &id);
  (void)interned;
  return id;
}

uint32_t Profile::ImportLabelViews(absl::Span<const LabelView> labels) {
  TablesChanged();
  uint32_t id;
  const Status interned = InternLabelsContent(labels, &id);
  (void)interned;
  return id;
}

uint32_t Profile::ImportStack(const Profile& from, uint32_t stack) {
  TablesChanged();
  from.tables().StackViews(stack, &scratch_.import_frames);
  uint32_t id;
  const Status interned = InternStackContent(scratch_.import_frames, &id);
  (void)interned;
  return id;
}

uint32_t Profile::ImportLabels(const Profile& from, uint32_t labels) {
  TablesChanged();
  from.tables().LabelViews(labels, &scratch_.import_labels);
  uint32_t id;
  const Status interned = InternLabelsContent(scratch_.import_labels, &id);
  (void)interned;
  return id;
}

void Profile::AddToKey(uint32_t stack, uint32_t labels, const int64_t* values, KeyUndo* undo) {
  const SampleKey key{stack, labels};
  aggregate_.Add(key, tables().KeyTag(key), values, undo);
}

void Profile::Undo(const KeyUndo& undo) {
  aggregate_.Undo(undo, [this](SampleKey key) { return tables().KeyTag(key); });
}

Status Profile::SetEndpoint(uint64_t local_root_span_id, absl::string_view endpoint) {
  TablesChanged();
  if (local_root_span_id == 0) {
    return Error(Code::kInvalidArgument, "local_root_span_id is 0");
  }
  if (endpoint.empty()) {
    return Error(Code::kInvalidArgument, "endpoint is empty");
  }
  if (slot_ != nullptr) {
    // A lane adds no string to its slot's tables without the lock.
    if (!IsValidUtf8(endpoint)) return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
    endpoint_names_.Set(local_root_span_id, endpoint);
    return OkStatus();
  }
  StringId id;
  if (!tables().mutable_strings().Intern(endpoint, &id)) {
    return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  }
  endpoints_.Set(local_root_span_id, id);
  return OkStatus();
}

Status Profile::AddEndpointCount(absl::string_view endpoint, int64_t value) {
  TablesChanged();
  if (endpoint.empty()) {
    return Error(Code::kInvalidArgument, "endpoint is empty");
  }
  if (slot_ != nullptr) {
    if (!IsValidUtf8(endpoint)) return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
    endpoint_names_.AddCount(endpoint, value);
    return OkStatus();
  }
  StringId id;
  if (!tables().mutable_strings().Intern(endpoint, &id)) {
    return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  }
  endpoints_.AddCount(id, value);
  return OkStatus();
}

std::vector<std::pair<std::string, int64_t>> Profile::EndpointCounts() const {
  std::vector<std::pair<std::string, int64_t>> counts;
  counts.reserve(endpoints_.counts().size());
  for (const auto& [id, count] : endpoints_.counts()) {
    counts.emplace_back(std::string(tables().strings().Get(id)), count);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

}  // namespace stackrec
