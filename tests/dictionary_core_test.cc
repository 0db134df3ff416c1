// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The dictionary of pre-interned ids, from the inside: what forget_ids
// gives back, and what a profile keeps of it.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "dictionary.h"

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
    CHECK(dict.LabelSetIndex(labels, "labels", &index).code() ==
          stackrec::Code::kInvalidArgument);
  }
  CHECK(dict.generation() == 3);
}

TEST_CASE("generations wrap after 255 forgets") {
  Dictionary dict(512, 255);
  dict.Forget();
  CHECK(dict.generation() == 0);
}
