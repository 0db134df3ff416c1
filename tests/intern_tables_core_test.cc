// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SpanTable (src/intern_tables.h), the stacks' and label sets' table,
// against a model: every sequence interned is found again by content, at
// the address it was first given (its chunk never moves, however many
// chunks come after it), sequences longer than a chunk included; what the
// table counts as its memory stays within a chunk of what it holds; and
// Clear starts over from the empty sequence.
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "intern_tables.h"

using stackrec::SpanTable;

TEST_CASE("a span table keeps every sequence where it first put it, through growth") {
  SpanTable<uint32_t> table;
  REQUIRE(table.size() == 1);
  CHECK(table.Get(0).empty());
  CHECK(table.Intern({}) == 0);

  std::mt19937_64 rng(7);
  std::map<std::vector<uint32_t>, uint32_t> model = {{{}, 0}};
  std::vector<const uint32_t*> first_address(1, nullptr);
  size_t elements = 0;
  // 20,000 sequences of 0 to 600 ids (a few chunks' worth of room each
  // time a chunk fills), some of them repeated, and now and then one
  // longer than a chunk.
  for (int i = 0; i < 20000; ++i) {
    size_t len = rng() % 601;
    if (i % 2500 == 1234) len = 40000;
    std::vector<uint32_t> seq(len);
    for (uint32_t& id : seq) id = static_cast<uint32_t>(rng() % 50);
    if (i % 10 == 9) seq = std::next(model.begin(), static_cast<long>(rng() % model.size()))->first;  // a repeat
    const uint32_t id = table.Intern(seq);
    const auto [it, fresh] = model.emplace(seq, id);
    if (fresh) {
      REQUIRE(id == first_address.size());
      first_address.push_back(table.Get(id).data());
      elements += seq.size();
    } else {
      REQUIRE(id == it->second);
    }
  }
  REQUIRE(table.size() == model.size());
  for (const auto& [seq, id] : model) {
    const absl::Span<const uint32_t> got = table.Get(id);
    REQUIRE(std::vector<uint32_t>(got.begin(), got.end()) == seq);
    if (!seq.empty()) REQUIRE(got.data() == first_address[id]);
    REQUIRE(table.Find(seq) == id);
  }
  CHECK(table.Find(std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) == ~uint32_t{0});
  // The chunks hold the elements, what was left at the end of each chunk
  // too short for the next sequence (at most 600 elements of 16,384), and
  // the last chunk's room.
  const size_t bytes = table.MemoryBytes();
  CHECK(bytes >= elements * sizeof(uint32_t));
  CHECK(bytes <= elements * sizeof(uint32_t) * 105 / 100 + 16384 * sizeof(uint32_t) +
                     table.size() * 2 * sizeof(absl::Span<const uint32_t>) +
                     table.size() * 4 * (sizeof(uint32_t) + 1));

  table.ShrinkToFit();  // ids and content stay
  for (const auto& [seq, id] : model) REQUIRE(table.Find(seq) == id);

  table.Clear();
  CHECK(table.size() == 1);
  CHECK(table.Get(0).empty());
  CHECK(table.Find(std::prev(model.end())->first) == ~uint32_t{0});
  const std::vector<uint32_t> again = {3, 1, 4, 1, 5};
  CHECK(table.Intern(again) == 1);
  CHECK(table.Get(1) == absl::MakeConstSpan(again));
}
