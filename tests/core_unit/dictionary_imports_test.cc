// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What a profile imported from a dictionary (dictionary_imports.h), on its
// own: a stack, a label set and a sequence of location ids copied into
// another set of tables keep their content and flags, are found by
// dictionary id in their generation only, and survive a carry-over of the
// tables for the entries carried.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "hash/fingerprint.h"
#include "profile/dictionary.h"
#include "profile/dictionary_imports.h"
#include "tables/sample_tables.h"

using stackrec::Dictionary;
using stackrec::DictionaryImports;
using stackrec::LabelView;
using stackrec::SampleKey;
using stackrec::SampleTables;

namespace {

// Interns main <- f <- g (g the leaf) into `dict`: the location ids, leaf
// first.
std::vector<uint32_t> Locations(Dictionary* dict) {
  std::vector<uint32_t> ids;
  for (const char* name : {"g", "f", "main"}) {
    stackrec::FunctionView fn;
    fn.name = name;
    fn.filename = "/app/x.py";
    uint32_t function = 0, location = 0;
    REQUIRE(dict->InternFunction(fn, &function).ok());
    REQUIRE(dict->InternLocation(0, function, 0, 10, false, &location).ok());
    ids.push_back(location);
  }
  return ids;
}

std::vector<std::string> Names(const SampleTables& tables, uint32_t stack) {
  std::vector<stackrec::LocationView> views;
  tables.StackViews(stack, &views);
  std::vector<std::string> names;
  for (const auto& v : views) names.emplace_back(v.function.name);
  return names;
}

}  // namespace

TEST_CASE("an imported stack and label set keep their content and are found by id") {
  Dictionary dict(/*max_frames=*/64);
  const std::vector<uint32_t> locations = Locations(&dict);
  uint32_t stack_id = 0, labels_id = 0;
  REQUIRE(dict.InternStack(locations, &stack_id).ok());
  std::vector<LabelView> labels(1);
  labels[0].key = "end_timestamp_ns";
  labels[0].str = "5";
  REQUIRE(dict.InternLabels(labels, &labels_id).ok());

  SampleTables tables;
  DictionaryImports imports;
  imports.Sync(dict.generation());
  CHECK(imports.Stack(stack_id) == DictionaryImports::kNotImported);
  uint32_t stack = 0, label_set = 0;
  REQUIRE(imports.ImportStack(dict, stack_id, &tables, &stack).ok());
  REQUIRE(imports.ImportLabelSet(dict, labels_id, &tables, &label_set).ok());
  CHECK(imports.Stack(stack_id) == stack);
  CHECK(imports.LabelSet(labels_id) == label_set);
  CHECK((stack & DictionaryImports::kTruncatedBit) == 0);
  // The set holds the reserved key: flagged, so that a timestamped sample
  // naming it is refused without reading the set.
  REQUIRE((label_set & DictionaryImports::kEndTimestampBit) != 0);
  CHECK(Names(tables, stack) == std::vector<std::string>{"g", "f", "main"});
  std::vector<LabelView> back;
  tables.LabelViews(label_set & ~DictionaryImports::kEndTimestampBit, &back);
  REQUIRE(back.size() == 1);
  CHECK(back[0].key == "end_timestamp_ns");
  CHECK(back[0].str == "5");
  // An id that does not exist is refused by name.
  uint32_t unused = 0;
  CHECK(imports.ImportStack(dict, stack_id + 7, &tables, &unused).code() ==
        stackrec::Code::kInvalidArgument);
}

TEST_CASE("imported location ids are cut to max_frames and found by their fingerprint") {
  Dictionary dict(/*max_frames=*/2);
  const std::vector<uint32_t> locations = Locations(&dict);
  SampleTables tables;
  DictionaryImports imports;
  imports.Sync(dict.generation());
  const stackrec::Fingerprint fp = stackrec::FingerprintIds(locations);
  CHECK(imports.LocationIdsStack(fp) == DictionaryImports::kNotImported);
  uint32_t packed = 0;
  REQUIRE(imports.ImportLocationIds(dict, locations, fp, /*max_frames=*/2, &tables, &packed).ok());
  REQUIRE((packed & DictionaryImports::kTruncatedBit) != 0);
  CHECK(imports.LocationIdsStack(fp) == packed);
  CHECK(Names(tables, packed & ~DictionaryImports::kTruncatedBit) ==
        std::vector<std::string>{"g", "f", "[1 frames truncated]"});
}

TEST_CASE("imports are forgotten with their generation, and carried over with their entries") {
  Dictionary dict(/*max_frames=*/64);
  const std::vector<uint32_t> locations = Locations(&dict);
  uint32_t kept_id = 0, dropped_id = 0;
  REQUIRE(dict.InternStack(locations, &kept_id).ok());
  REQUIRE(dict.InternStack({locations[1], locations[2]}, &dropped_id).ok());
  SampleTables tables;
  DictionaryImports imports;
  imports.Sync(dict.generation());
  uint32_t kept = 0, dropped = 0;
  REQUIRE(imports.ImportStack(dict, kept_id, &tables, &kept).ok());
  REQUIRE(imports.ImportStack(dict, dropped_id, &tables, &dropped).ok());

  // Carried over: only the stack a key uses, under its new id.
  SampleTables next_tables;
  SampleTables::Carried carried;
  tables.CarryInto(
      &next_tables,
      [&](absl::FunctionRef<void(SampleKey)> carry) {
        carry(SampleKey{kept, 0});
      },
      &carried);
  DictionaryImports next;
  imports.CarryInto(carried, &next);
  CHECK(next.generation() == imports.generation());
  CHECK(next.Stack(kept_id) == carried.stacks[kept]);
  CHECK(next.Stack(dropped_id) == DictionaryImports::kNotImported);
  CHECK(Names(next_tables, next.Stack(kept_id)) == std::vector<std::string>{"g", "f", "main"});

  // Another generation: the old ids are not found any more.
  dict.Forget();
  next.Sync(dict.generation());
  CHECK(next.Stack(kept_id) == DictionaryImports::kNotImported);
  CHECK(next.MemoryBytes() == 0);
}
