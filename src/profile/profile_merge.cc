// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Profile::MergeFrom and MergeSameTables: another profile's samples added
// here, by content or, over the same tables, by key ids, as a recorder's
// serializer gathers the lanes of a slot into one profile.
#include <cassert>
#include <utility>
#include <vector>

#include "profile/profile.h"

namespace stackrec {

void Profile::MergeFrom(const Profile& from) {
  TablesChanged();
  // Everything that can throw comes before the first change to a sample:
  // the endpoints are merged into a copy, and the keys are added under an
  // undo. Strings and keys interned before a throw stay unreferenced.
  Endpoints endpoints = endpoints_;
  for (const auto& [span, name] : from.endpoints_.by_span()) {
    StringId id;
    (void)tables().mutable_strings().Intern(from.strings().Get(name), &id);  // valid there
    endpoints.Set(span, id);
  }
  for (const auto& [name, count] : from.endpoints_.counts()) {
    StringId id;
    (void)tables().mutable_strings().Intern(from.strings().Get(name), &id);
    endpoints.AddCount(id, count);
  }

  // A stack or label set of `from` is interned here once, however many of
  // its keys name it.
  constexpr uint32_t kUnknown = ~uint32_t{0};
  std::vector<uint32_t> stack_ids(from.stacks().size(), kUnknown);
  std::vector<uint32_t> label_ids(from.label_sets().size(), kUnknown);
  auto import = [&](uint32_t stack, uint32_t labels) {
    if (stack_ids[stack] == kUnknown || label_ids[labels] == kUnknown) {
      ImportKey(from, stack, labels, &stack_ids[stack], &label_ids[labels]);
    }
    return SampleKey{stack_ids[stack], label_ids[labels]};
  };
  AddSamplesOf(from, std::move(endpoints), import);
}

void Profile::MergeSameTables(const Profile& from) {
  assert(from.tables_ == tables_);
  TablesChanged();
  // The endpoints into a copy: the tables are the same, so are their ids.
  Endpoints endpoints = endpoints_;
  for (const auto& [span, name] : from.endpoints_.by_span()) endpoints.Set(span, name);
  for (const auto& [name, count] : from.endpoints_.counts()) endpoints.AddCount(name, count);
  AddSamplesOf(from, std::move(endpoints), [](uint32_t stack, uint32_t labels) {
    return SampleKey{stack, labels};
  });
}

void Profile::AddSamplesOf(const Profile& from, Endpoints endpoints,
                           absl::FunctionRef<SampleKey(uint32_t, uint32_t)> key_here) {
  // The keys under an undo, so that a throw leaves every sample as it was.
  KeyUndo undo;
  undo.key_count = aggregate_.key_count();
  const size_t timed_before = aggregate_.timed_count();
  const Aggregate& samples = from.aggregate_;
  try {
    for (size_t i = 0; i < samples.key_count(); ++i) {
      const SampleKey key = key_here(samples.key_stack(i), samples.key_labels(i));
      aggregate_.Add(key, tables().KeyTag(key), samples.key_values(i), &undo);
    }
    for (size_t i = 0; i < samples.timed_count(); ++i) {
      const SampleKey key = key_here(samples.timed_stack(i), samples.timed_labels(i));
      aggregate_.AddTimed(key, samples.timed_timestamp(i), samples.timed_values(i));
    }
  } catch (...) {
    aggregate_.DropTimedFrom(timed_before);
    Undo(undo);
    throw;
  }
  endpoints_ = std::move(endpoints);
  samples_added_ += from.samples_added_;
  samples_truncated_ += from.samples_truncated_;
  samples_over_memory_ += from.samples_over_memory_;
}

}  // namespace stackrec
