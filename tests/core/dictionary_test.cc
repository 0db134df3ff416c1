// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The dictionary of pre-interned ids, from the inside: what forget_ids
// gives back, what a profile keeps of it, and what a profile imports at
// once when a stack or label set is interned.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "profile/dictionary.h"
#include "profile/profile.h"

using stackrec::Dictionary;

TEST_CASE("Forget gives the dictionary's memory back and moves to the next generation") {
  Dictionary dict(512);
  const size_t empty = dict.MemoryBytes();
  for (int cycle = 0; cycle < 3; ++cycle) {
    std::vector<uint32_t> locations;
    for (int i = 0; i < 5000; ++i) {
      const std::string name = "cycle" + std::to_string(cycle) + "_fn" + std::to_string(i);
      stackrec::FunctionView f;
      f.name = name;
      uint32_t function = 0, location = 0;
      REQUIRE(dict.InternFunction(f, &function).ok());
      REQUIRE(dict.InternLocation(0, function, 0, 1, false, &location).ok());
      locations.push_back(location);
    }
    uint32_t stack = 0;
    REQUIRE(dict.InternStack(locations, &stack).ok());
    CHECK(stack >> Dictionary::kIndexBits == static_cast<uint32_t>(cycle));
    const size_t without_labels = dict.MemoryBytes();
    uint32_t labels = 0;
    for (int i = 0; i < 1000; ++i) {
      const std::string thread = "thread" + std::to_string(i);
      stackrec::LabelView label[2];
      label[0].key = "thread id";
      label[0].num = i;
      label[1].key = "thread name";
      label[1].str = thread;
      REQUIRE(dict.InternLabels(label, &labels).ok());
    }
    CHECK(dict.MemoryBytes() > without_labels + 1000 * 64);
    CHECK(dict.MemoryBytes() > empty + 5000 * 20);
    dict.Forget();
    // Everything interned is gone, not just unreachable.
    CHECK(dict.MemoryBytes() == empty);
    uint32_t index = 0;
    CHECK(dict.StackIndex(stack, "stack", &index).code() == stackrec::Code::kInvalidArgument);
    CHECK(dict.LabelSetIndex(labels, "labels", &index).code() == stackrec::Code::kInvalidArgument);
  }
  CHECK(dict.generation() == 3);
}

TEST_CASE("generations wrap after 255 forgets") {
  Dictionary dict(512, 255);
  dict.Forget();
  CHECK(dict.generation() == 0);
}

namespace {

// A dictionary with `n` stacks of three frames and one label set, and a
// profile that adds samples by their ids, counting its trips to the
// dictionary (what a recorder takes its dictionary lock for).
struct Interned {
  Dictionary dict{512};
  std::vector<uint32_t> stacks;
  uint32_t labels = 0;
  stackrec::Profile profile;
  int lookups = 0;

  Interned(int n, size_t max_memory_bytes) : profile(Options(max_memory_bytes), 0) {
    for (int s = 0; s < n; ++s) {
      std::vector<uint32_t> frames;
      for (int i = 0; i < 3; ++i) {
        const std::string name = "fn" + std::to_string(s) + "_" + std::to_string(i);
        stackrec::FunctionView f;
        f.name = name;
        uint32_t function = 0, location = 0;
        REQUIRE(dict.InternFunction(f, &function).ok());
        REQUIRE(dict.InternLocation(0, function, 0, i + 1, false, &location).ok());
        frames.push_back(location);
      }
      uint32_t stack = 0;
      REQUIRE(dict.InternStack(frames, &stack).ok());
      stacks.push_back(stack);
    }
    stackrec::LabelView label;
    label.key = "thread id";
    label.num = 7;
    REQUIRE(dict.InternLabels(absl::MakeConstSpan(&label, 1), &labels).ok());
  }

  static stackrec::ProfileOptions Options(size_t max_memory_bytes) {
    stackrec::ProfileOptions in;
    in.sample_types = {{"samples", "count"}};
    in.max_memory_bytes = max_memory_bytes;
    stackrec::ProfileOptions out;
    REQUIRE(stackrec::MakeProfileOptions(in, &out).ok());
    return out;
  }

  stackrec::Status Add(uint32_t stack, int64_t value) {
    stackrec::IdSampleView sample;
    sample.stack_id = stack;
    sample.labels_id = labels;
    sample.values = absl::MakeConstSpan(&value, 1);
    return profile.AddIds(sample, dict.generation(),
                          [this](absl::FunctionRef<stackrec::Status(const Dictionary&)> use) {
                            ++lookups;
                            return use(dict);
                          });
  }
};

}  // namespace

TEST_CASE("a stack and a label set imported when interned are added without the dictionary") {
  using Kind = stackrec::Profile::Interned;
  Interned t(2, 0);
  t.profile.ImportInterned(t.dict, Kind::kStack, t.stacks[0]);
  t.profile.ImportInterned(t.dict, Kind::kLabelSet, t.labels);
  const size_t stacks = t.profile.stacks().size();
  // Importing again is a no-op.
  t.profile.ImportInterned(t.dict, Kind::kStack, t.stacks[0]);
  CHECK(t.profile.stacks().size() == stacks);
  REQUIRE(t.Add(t.stacks[0], 5).ok());
  REQUIRE(t.Add(t.stacks[0], 6).ok());
  CHECK(t.lookups == 0);
  REQUIRE(t.profile.key_count() == 1);
  CHECK(t.profile.Parts().aggregate.key_values(0)[0] == 11);
  // The stack's three frames, leaf first, as interned.
  const auto frames = t.profile.stacks().Get(t.profile.Parts().aggregate.key_stack(0));
  REQUIRE(frames.size() == 3);
  for (uint32_t i = 0; i < 3; ++i) {
    const stackrec::Location& loc = t.profile.Parts().tables.locations().Get(frames[i]);
    CHECK(loc.line == i + 1);
    CHECK(t.profile.strings().Get(t.profile.Parts().tables.functions().Get(loc.function).name) ==
          "fn0_" + std::to_string(i));
  }
  const auto labels = t.profile.label_sets().Get(t.profile.Parts().aggregate.key_labels(0));
  REQUIRE(labels.size() == 1);
  CHECK(t.profile.strings().Get(labels[0].key) == "thread id");
  CHECK(labels[0].num == 7);
  // A stack not imported when interned takes one trip, at its first sample.
  REQUIRE(t.Add(t.stacks[1], 1).ok());
  REQUIRE(t.Add(t.stacks[1], 1).ok());
  CHECK(t.lookups == 1);
  CHECK(t.profile.key_count() == 2);
}

TEST_CASE("nothing is imported when interned at the memory cap, nor from a forgotten generation") {
  using Kind = stackrec::Profile::Interned;
  Interned capped(1, 1);
  const size_t stacks = capped.profile.stacks().size();
  const size_t label_sets = capped.profile.label_sets().size();
  capped.profile.ImportInterned(capped.dict, Kind::kStack, capped.stacks[0]);
  capped.profile.ImportInterned(capped.dict, Kind::kLabelSet, capped.labels);
  CHECK(capped.profile.stacks().size() == stacks);
  CHECK(capped.profile.label_sets().size() == label_sets);
  // The sample goes to the storage-full pseudo-sample, as without the import.
  REQUIRE(capped.Add(capped.stacks[0], 3).ok());
  CHECK(capped.profile.samples_over_memory() == 1);

  Interned t(1, 0);
  t.profile.ImportInterned(t.dict, Kind::kStack, t.stacks[0]);
  t.dict.Forget();
  // The old id is refused as stale, though its stack was imported.
  stackrec::Status stale = t.Add(t.stacks[0], 1);
  CHECK(stale.code() == stackrec::Code::kInvalidArgument);
  CHECK(t.profile.key_count() == 0);
}
