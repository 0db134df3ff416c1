// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile's lifetime (creation, reset, carry-over), the memory cap, the
// calls outside the sampler's add (keys by content for live-heap
// tracking, endpoints), and what each part adds to the memory counted.
#include "profile/profile.h"

#include <algorithm>
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
      aggregate_(
          static_cast<size_t>(std::count(options_.enabled.begin(), options_.enabled.end(), true))),
      heap_(heap_width) {
  all_values_stored_ = stored_values() == options_.sample_types.size();
  // Sized once: TakeValues overwrites it in place.
  scratch_values_.resize(stored_values());
  InternConstants();
}

void Profile::InternConstants() {
  // Interned up front so that serialization never has to add a string. The
  // options were validated as UTF-8 and the keys are ASCII, so none of these
  // can fail; the label keys reach the output only if a sample uses them.
  StringTable& strings = tables_.mutable_strings();
  auto intern = [&strings](absl::string_view s) {
    StringId id = 0;
    const bool valid = strings.Intern(s, &id);
    (void)valid;
    return id;
  };
  ids_.sample_types.clear();
  for (const ValueType& t : options_.sample_types) {
    ids_.sample_types.emplace_back(intern(t.type), intern(t.unit));
  }
  ids_.period_type = {intern(options_.period_type.type), intern(options_.period_type.unit)};
  ids_.default_sample_type = intern(options_.default_sample_type);
  ids_.comments.clear();
  for (const std::string& c : options_.comments) ids_.comments.push_back(intern(c));
  ids_.drop_frames = intern(options_.drop_frames);
  ids_.keep_frames = intern(options_.keep_frames);
  ids_.end_timestamp_key = intern(kEndTimestampKey);
  ids_.local_root_span_id_key = intern(kLocalRootSpanIdKey);
  ids_.trace_endpoint_key = intern(kTraceEndpointKey);
}

void Profile::Reset(int64_t start_ns) {
  TablesChanged();
  tables_.Clear();
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
  tables_.Compact();
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
  // Heap deltas are not carried: the serializer has consumed them.
  auto next = std::make_unique<Profile>(options_, start_ns, heap_.width());
  next->upscaling_ = upscaling_;
  SampleTables::Carried carried;
  tables_.CarryInto(
      &next->tables_,
      [this](absl::FunctionRef<void(SampleKey)> carry) {
        for (size_t i = 0; i < aggregate_.key_count(); ++i) {
          carry(SampleKey{aggregate_.key_stack(i), aggregate_.key_labels(i)});
        }
        for (size_t i = 0; i < aggregate_.timed_count(); ++i) {
          carry(SampleKey{aggregate_.timed_stack(i), aggregate_.timed_labels(i)});
        }
      },
      &carried);
  // Imports from the dictionary stay valid for what was carried over.
  imports_.CarryInto(carried, &next->imports_);
  if (shared_bytes_ != nullptr) next->ShareMemoryCap(shared_bytes_);
  return next;
}

std::unique_ptr<Profile> Profile::KeepHeapRows(absl::Span<const uint32_t> rows) const {
  auto next = std::make_unique<Profile>(options_, start_ns_, heap_.width());
  SampleTables::Carried carried;
  tables_.CarryInto(
      &next->tables_,
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
  return tables_.MemoryBytes() + aggregate_.KeyBytes() + aggregate_.TimedBytes() +
         imports_.MemoryBytes() + heap_.MemoryBytes() + endpoints_.MemoryBytes();
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
  from.tables_.StackViews(stack, &scratch_.import_frames);
  uint32_t id;
  const Status interned = InternStackContent(scratch_.import_frames, &id);
  (void)interned;
  return id;
}

uint32_t Profile::ImportLabels(const Profile& from, uint32_t labels) {
  TablesChanged();
  from.tables_.LabelViews(labels, &scratch_.import_labels);
  uint32_t id;
  const Status interned = InternLabelsContent(scratch_.import_labels, &id);
  (void)interned;
  return id;
}

void Profile::AddToKey(uint32_t stack, uint32_t labels, const int64_t* values, KeyUndo* undo) {
  const SampleKey key{stack, labels};
  aggregate_.Add(key, tables_.KeyTag(key), values, undo);
}

void Profile::Undo(const KeyUndo& undo) {
  aggregate_.Undo(undo, [this](SampleKey key) { return tables_.KeyTag(key); });
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
  if (!tables_.mutable_strings().Intern(endpoint, &id)) {
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
  if (!tables_.mutable_strings().Intern(endpoint, &id)) {
    return Error(Code::kInvalidArgument, "endpoint is not valid UTF-8");
  }
  endpoints_.AddCount(id, value);
  return OkStatus();
}

std::vector<std::pair<std::string, int64_t>> Profile::EndpointCounts() const {
  std::vector<std::pair<std::string, int64_t>> counts;
  counts.reserve(endpoints_.counts().size());
  for (const auto& [id, count] : endpoints_.counts()) {
    counts.emplace_back(std::string(tables_.strings().Get(id)), count);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

}  // namespace stackrec
