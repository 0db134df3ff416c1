// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile's lifetime (creation, reset, carry-over), the memory cap, the
// calls outside the sampler's add (keys by content for live-heap
// tracking, endpoints), and what each part adds to the memory counted.
#include "profile/profile.h"

#include <algorithm>
#include <cassert>
#include <new>
#include <utility>

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
      tables_(own_tables_.get()),
      aggregate_(
          static_cast<size_t>(std::count(options_.enabled.begin(), options_.enabled.end(), true))),
      heap_(heap_width) {
  all_values_stored_ = stored_values() == options_.sample_types.size();
  // Sized once: TakeValues overwrites it in place.
  scratch_values_.resize(stored_values());
  InternConstants();
}

Profile::Profile(ProfileOptions options, int64_t start_ns, BorrowedTables)
    : options_(WithEnabledTypes(std::move(options))),
      start_ns_(start_ns),
      aggregate_(
          static_cast<size_t>(std::count(options_.enabled.begin(), options_.enabled.end(), true))),
      heap_(0) {
  all_values_stored_ = stored_values() == options_.sample_types.size();
  scratch_values_.resize(stored_values());
  // The tables and their options' strings come with BindTables.
}

void Profile::BindTables(SampleTables* tables, const OptionStrings* ids,
                         uint32_t storage_full_stack,
                         const SampleTables::Carried* carried) noexcept {
  assert(own_tables_ == nullptr && aggregate_.key_count() == 0 && aggregate_.timed_count() == 0);
  TablesChanged();
  tables_ = tables;
  ids_ = ids;
  storage_full_stack_ = storage_full_stack;
  DictionaryImports next;
  if (carried != nullptr) {
    try {
      imports_.CarryInto(*carried, &next);
    } catch (const std::bad_alloc&) {
      // Nothing imported, rather than ids of the tables that are gone.
      next = DictionaryImports();
    }
  }
  imports_ = std::move(next);
}

void Profile::InternConstants() {
  own_ids_ = InternOptionStrings(options_, &tables().mutable_strings());
  storage_full_stack_ = 0;  // interned at its first use
}

void Profile::Reset(int64_t start_ns) {
  // Borrowed tables are reset by their owner.
  assert(own_tables_ != nullptr);
  TablesChanged();
  tables().Clear();
  aggregate_.Clear();
  endpoints_.Clear();
  samples_added_ = samples_truncated_ = samples_over_memory_ = 0;
  // The tables the imports pointed into are gone.
  imports_.Sync(DictionaryImports::kNotImported);
  heap_.Release();
  start_ns_ = start_ns;
  InternConstants();
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
  samples_added_ = samples_truncated_ = samples_over_memory_ = 0;
  heap_.Clear();
  start_ns_ = start_ns;
  PublishMemory();
}

void Profile::Compact() {
  TablesChanged();
  // Borrowed tables are compacted by their owner.
  if (own_tables_ != nullptr) own_tables_->Compact();
  PublishMemory();
}

Profile::~Profile() = default;

void Profile::ShareMemoryCap(std::atomic<size_t>* total) {
  memory_share_.Join(total);
  PublishMemory();
}

void Profile::PublishMemory() const {
  if (!memory_share_.joined()) return;
  if (other_bytes_stale_) RefreshOtherBytes();
  memory_share_.Publish(other_bytes_ + aggregate_.KeyBytes());
}

std::unique_ptr<Profile> Profile::CarryOver(int64_t start_ns) const {
  // Borrowed tables are carried over by their owner.
  assert(own_tables_ != nullptr);
  // Heap deltas are not carried: the serializer has consumed them.
  auto next = std::make_unique<Profile>(options_, start_ns, heap_.width());
  next->upscaling_ = upscaling_;
  SampleTables::Carried carried;
  tables().CarryInto(
      &next->tables(), [this](absl::FunctionRef<void(SampleKey)> carry) { ForEachKey(carry); },
      &carried);
  // Imports from the dictionary stay valid for what was carried over.
  imports_.CarryInto(carried, &next->imports_);
  if (memory_share_.joined()) next->ShareMemoryCap(memory_share_.total_counter());
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
  assert(own_tables_ != nullptr);
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
  if (memory_share_.joined()) next->ShareMemoryCap(memory_share_.total_counter());
  return next;
}

void Profile::RefreshOtherBytes() const {
  other_bytes_ = MemoryBytes() - aggregate_.KeyBytes();
  other_bytes_stale_ = false;
}

size_t Profile::MemoryBytes() const {
  // Borrowed tables count once, in their owner's count.
  return (own_tables_ != nullptr ? own_tables_->MemoryBytes() : 0) + aggregate_.KeyBytes() +
         aggregate_.TimedBytes() + imports_.MemoryBytes() + heap_.MemoryBytes() +
         endpoints_.MemoryBytes();
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
  StringId id;
  if (!tables().mutable_strings().Intern(endpoint, &id)) {
    return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  }
  endpoints_.AddCount(id, value);
  return OkStatus();
}

void Profile::AddEndpoints(absl::FunctionRef<void(StringTable*, Endpoints*)> add) {
  TablesChanged();
  Endpoints endpoints = endpoints_;
  add(&tables().mutable_strings(), &endpoints);
  endpoints_ = std::move(endpoints);
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
