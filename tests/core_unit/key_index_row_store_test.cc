// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The aggregate's storage. KeyIndex (src/tables/key_index.h) against a model:
// every key it holds is found at its row and every other key is not,
// through growth, through chains of equal tags and equal home slots that
// wrap around the end of the table, and after erasures, which shift chains
// back. RowStore (src/tables/row_store.h): rows stay where they are written as
// blocks are added, and truncating and clearing keep the rest.
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "tables/key_index.h"
#include "tables/row_store.h"

using stackrec::KeyIndex;

namespace {

// Rows and their keys as a profile keeps them, with tags chosen by the test.
struct Rows {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> tags;
  KeyIndex index;

  uint32_t Add(uint64_t key, uint32_t tag) {
    const auto row = static_cast<uint32_t>(keys.size());
    keys.push_back(key);
    tags.push_back(tag);
    index.ReserveOne();
    index.Insert(tag, row);
    return row;
  }
  uint32_t Find(uint64_t key, uint32_t tag) const {
    return index.Find(key, tag, [this](uint32_t row) { return keys.at(row); });
  }
};

// Every live row is found, every erased one is not, and the count agrees.
void CheckAgainst(const Rows& rows, const std::vector<bool>& live) {
  size_t count = 0;
  for (size_t row = 0; row < rows.keys.size(); ++row) {
    const uint32_t found = rows.Find(rows.keys[row], rows.tags[row]);
    if (live[row]) {
      CHECK(found == row);
      ++count;
    } else {
      CHECK(found == KeyIndex::kNone);
    }
  }
  CHECK(rows.index.size() == count);
}

}  // namespace

TEST_CASE("KeyIndex finds each key at its row, and no key it does not hold", "[key_index]") {
  Rows rows;
  CHECK(rows.Find(1, KeyIndex::Tag(1)) == KeyIndex::kNone);  // empty: no slots
  CHECK(rows.index.MemoryBytes() == 0);
  std::mt19937_64 rng(7);
  std::vector<bool> live;
  for (int i = 0; i < 5000; ++i) {
    const uint64_t key = rng();
    rows.Add(key, KeyIndex::Tag(key));
    live.push_back(true);
  }
  CheckAgainst(rows, live);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t absent = rng();
    CHECK(rows.Find(absent, KeyIndex::Tag(absent)) == KeyIndex::kNone);
  }
  // Grown by doubling from 16 slots, never more than 5/8 full.
  const size_t slots = rows.index.MemoryBytes() / sizeof(uint64_t);
  CHECK(slots == 8192);
  CHECK(rows.index.size() * 8 <= slots * 5);
}

TEST_CASE("KeyIndex tells keys with equal tags apart by their rows", "[key_index]") {
  // Every key has the same tag, so the same home slot and one chain: only
  // the rows' keys tell them apart.
  Rows rows;
  std::vector<bool> live;
  for (uint64_t key = 100; key < 140; ++key) {
    rows.Add(key, 0xabcdef07u);
    live.push_back(true);
  }
  CheckAgainst(rows, live);
  CHECK(rows.Find(99, 0xabcdef07u) == KeyIndex::kNone);
}

TEST_CASE("KeyIndex gives the first row of a tag on its chain, and says when it has room",
          "[key_index]") {
  Rows rows;
  CHECK(rows.index.FirstWithTag(7) == KeyIndex::kNone);  // no slots yet
  CHECK_FALSE(rows.index.HasRoom());
  // Tags 0x10 and 0x20 share home slot 0 of the first 16 slots; 0x30 too.
  rows.Add(1000, 0x10);
  rows.Add(1001, 0x20);
  rows.Add(1002, 0x10);
  CHECK(rows.index.FirstWithTag(0x10) == 0);
  CHECK(rows.index.FirstWithTag(0x20) == 1);
  CHECK(rows.index.FirstWithTag(0x30) == KeyIndex::kNone);
  CHECK(rows.index.FirstWithTag(0x11) == KeyIndex::kNone);
  // 16 slots hold 10 entries at 5/8: room until the 10th, then growth.
  for (uint64_t key = 2000; rows.keys.size() < 8; ++key) rows.Add(key, static_cast<uint32_t>(key));
  CHECK(rows.index.HasRoom(2));
  rows.Add(2999, 2999);
  CHECK(rows.index.HasRoom());
  CHECK_FALSE(rows.index.HasRoom(2));
  rows.Add(3000, 3000);
  CHECK_FALSE(rows.index.HasRoom());
  rows.index.ReserveOne();
  CHECK(rows.index.HasRoom());
  CHECK(rows.index.FirstWithTag(0x10) == 0);  // the chain's order survives growth
  CHECK(rows.index.FirstWithTag(0x20) == 1);
}

TEST_CASE("KeyIndex erases from chains that wrap around the end of the table", "[key_index]") {
  // 16 slots; tags whose home is slot 14 or 15, so chains wrap to 0, 1, ...
  // and entries of other homes sit in between.
  Rows rows;
  const uint32_t tags[] = {14, 15, 14, 0, 15, 14, 1, 0x10e, 0x20f};
  std::vector<bool> live;
  for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); ++i) {
    rows.Add(1000 + i, tags[i]);
    live.push_back(true);
  }
  REQUIRE(rows.index.MemoryBytes() == 16 * sizeof(uint64_t));
  CheckAgainst(rows, live);
  // Out of the middle of the chain, its head, then what the shifts moved.
  for (uint32_t row : {2u, 0u, 5u, 3u, 8u, 1u}) {
    rows.index.Erase(rows.tags[row], row);
    live[row] = false;
    CheckAgainst(rows, live);
  }
}

TEST_CASE("KeyIndex matches a model through random inserts and erasures", "[key_index]") {
  // Tags from a small range, so that chains are long and often cross.
  std::mt19937 rng(11);
  Rows rows;
  std::vector<bool> live;
  for (int round = 0; round < 4000; ++round) {
    const bool erase = rng() % 3 == 0 && rows.index.size() > 0;
    if (erase) {
      uint32_t row;
      do {
        row = static_cast<uint32_t>(rng() % rows.keys.size());
      } while (!live[row]);
      rows.index.Erase(rows.tags[row], row);
      live[row] = false;
    } else {
      rows.Add(round, static_cast<uint32_t>(rng() % 64));
      live.push_back(true);
    }
    if (round % 97 == 0) CheckAgainst(rows, live);
  }
  CheckAgainst(rows, live);
  rows.index.Clear();
  CHECK(rows.index.size() == 0);
  CHECK(rows.index.MemoryBytes() == 0);
  CHECK(rows.Find(rows.keys[0], rows.tags[0]) == KeyIndex::kNone);
}

TEST_CASE("RowStore keeps each row in place across blocks, through truncation and clearing",
          "[key_index]") {
  using stackrec::RowStore;
  RowStore rows(3);
  CHECK(rows.MemoryBytes() == 0);
  CHECK_FALSE(rows.HasRoom());
  std::vector<const int64_t*> where;
  const size_t n = 3 * RowStore::kBlockRows + 7;
  for (size_t i = 0; i < n; ++i) {
    // Room within a block; none at its end, until ReserveOne adds one (and
    // for two rows, none at its last row either).
    CHECK(rows.HasRoom() == (i % RowStore::kBlockRows != 0));
    CHECK(rows.HasRoom(2) ==
          (i % RowStore::kBlockRows != 0 && (i + 1) % RowStore::kBlockRows != 0));
    rows.ReserveOne();
    CHECK(rows.HasRoom());
    int64_t* row = rows.Append();
    for (int w = 0; w < 3; ++w) row[w] = static_cast<int64_t>(i * 10 + w);
    where.push_back(row);
  }
  REQUIRE(rows.size() == n);
  for (size_t i = 0; i < n; ++i) {
    CHECK(rows.Row(i) == where[i]);  // never moved
    CHECK(rows.Row(i)[2] == static_cast<int64_t>(i * 10 + 2));
  }
  // Four blocks of 3-word rows, and the table of their pointers.
  CHECK(rows.MemoryBytes() >= 4 * RowStore::kBlockRows * 3 * sizeof(int64_t));
  CHECK(rows.MemoryBytes() < 5 * RowStore::kBlockRows * 3 * sizeof(int64_t));
  rows.Truncate(RowStore::kBlockRows + 1);
  CHECK(rows.size() == RowStore::kBlockRows + 1);
  rows.ReserveOne();
  CHECK(rows.Append() == where[RowStore::kBlockRows + 1]);  // the block is reused
  CHECK(rows.Row(RowStore::kBlockRows)[0] == static_cast<int64_t>(RowStore::kBlockRows * 10));
  rows.Clear();
  CHECK(rows.size() == 0);
  CHECK(rows.MemoryBytes() == 0);
}
