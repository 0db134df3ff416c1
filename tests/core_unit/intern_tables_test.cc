// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// SpanTable (src/tables/intern_tables.h), the stacks' and label sets' table,
// against a model: every sequence interned is found again by content, at
// the address it was first given (its chunk never moves, however many
// chunks come after it), sequences longer than a chunk included; what the
// table counts as its memory stays within a chunk of what it holds; and
// Clear starts over from the empty sequence. ValueTable's index grows by
// reading its items in id order (table_growth.h).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "tables/intern_tables.h"

using stackrec::SpanTable;
using stackrec::ValueTable;

namespace {

// A value whose hash records which value was hashed, in order.
std::vector<uint32_t>* hashed = nullptr;
struct Recorded {
  uint32_t v = 0;
  friend bool operator==(const Recorded& a, const Recorded& b) { return a.v == b.v; }
  template <typename H>
  friend H AbslHashValue(H h, const Recorded& r) {
    if (hashed != nullptr) hashed->push_back(r.v);
    return H::combine(std::move(h), r.v);
  }
};

}  // namespace

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
    if (i % 10 == 9)
      seq = std::next(model.begin(), static_cast<long>(rng() % model.size()))->first;  // a repeat
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

TEST_CASE("a value table's index grows by reading its items in id order") {
  ValueTable<Recorded> table;
  std::vector<uint32_t> log;
  hashed = &log;
  int growths = 0;
  // Value i gets id i. An Intern without growth hashes only the new value
  // (for its lookup and its insert); one that grows the index first hashes
  // every earlier item again, in id order (table_growth.h), where absl's
  // own growth would hash them in slot order.
  for (uint32_t i = 1; i <= 20000; ++i) {
    log.clear();
    REQUIRE(table.Intern(Recorded{i}) == i);
    std::vector<uint32_t> earlier;
    for (uint32_t v : log) {
      if (v != i) earlier.push_back(v);
    }
    if (earlier.empty()) continue;
    // Where assertions are on, absl hashes each insert's key again to
    // check it: every value twice in a row.
    earlier.erase(std::unique(earlier.begin(), earlier.end()), earlier.end());
    std::vector<uint32_t> in_order(i - 1);
    for (uint32_t k = 0; k + 1 < i; ++k) in_order[k] = k + 1;
    REQUIRE(earlier == in_order);
    ++growths;
  }
  hashed = nullptr;
  // From 1 slot to 3, 7, 15, ..., 32,767.
  CHECK(growths == 14);
  for (uint32_t i = 1; i <= 20000; ++i) REQUIRE(table.Find(Recorded{i}) == i);
  CHECK(table.Find(Recorded{20001}) == 0);
  CHECK(table.size() == 20001);
  // Items doubled from one to 32,768; the index at absl's capacity for
  // 20,000 ids: the growths took absl's steps.
  CHECK(table.MemoryBytes() == 32768 * sizeof(Recorded) + 32767 * (sizeof(uint32_t) + 1));
}

TEST_CASE("a value table's appended items are indexed, in id order, at the next lookup") {
  ValueTable<Recorded> table;
  std::vector<uint32_t> log;
  hashed = &log;
  // Appends hash nothing and build no index: the table's memory is its
  // items alone.
  for (uint32_t i = 1; i <= 5000; ++i) {
    table.ReserveOne();
    REQUIRE(table.next_id() == i);
    REQUIRE(table.Append(Recorded{i}) == i);
  }
  CHECK(log.empty());
  CHECK(table.MemoryBytes() == 8192 * sizeof(Recorded));

  // The next Intern indexes them all first, reading them in id order, at
  // once at the capacity 5,000 ids need (no growth in between), then finds
  // its value among them.
  REQUIRE(table.Intern(Recorded{4321}) == 4321);
  // (Where assertions are on, absl hashes each insert's key twice.)
  log.erase(std::unique(log.begin(), log.end()), log.end());
  std::vector<uint32_t> in_order(5000);
  for (uint32_t k = 0; k < 5000; ++k) in_order[k] = k + 1;
  in_order.push_back(4321);  // the lookup's own
  CHECK(log == in_order);
  CHECK(table.MemoryBytes() == 8192 * sizeof(Recorded) + 8191 * (sizeof(uint32_t) + 1));

  // Interning and appending mix: a new value interned gets the next id,
  // then appends go on from there and a lookup finds each.
  log.clear();
  REQUIRE(table.Intern(Recorded{5001}) == 5001);
  table.ReserveOne();
  REQUIRE(table.Append(Recorded{5002}) == 5002);
  table.ReserveOne();
  REQUIRE(table.Append(Recorded{5003}) == 5003);
  hashed = nullptr;
  for (uint32_t i = 1; i <= 5003; ++i) REQUIRE(table.Find(Recorded{i}) == i);
  CHECK(table.Find(Recorded{5004}) == 0);
  REQUIRE(table.Intern(Recorded{5003}) == 5003);
  CHECK(table.size() == 5004);

  // Clear starts over: nothing appended before is looked up again.
  table.Clear();
  table.ReserveOne();
  REQUIRE(table.Append(Recorded{7}) == 1);
  CHECK(table.Find(Recorded{7}) == 1);
  CHECK(table.Find(Recorded{1}) == 0);
}
