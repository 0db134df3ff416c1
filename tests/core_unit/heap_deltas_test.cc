// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The live-heap deltas (heap_deltas.h) on their own: one row per key,
// values added and given back with saturation at both ends, cleared (for
// the next interval) or released, and what the trackers' blobs are here.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tables/content_blobs.h"
#include "tables/heap_deltas.h"

using stackrec::HeapDeltas;

namespace {

std::vector<int64_t> Values(const HeapDeltas& d, uint32_t row) {
  return {d.values(row), d.values(row) + d.width()};
}

}  // namespace

TEST_CASE("heap deltas keep one row per key, added with zero values") {
  HeapDeltas d(2);
  const uint32_t a = d.Row(1, 0), b = d.Row(2, 3);
  CHECK(d.Row(1, 0) == a);
  CHECK(a != b);
  REQUIRE(d.size() == 2);
  CHECK(d.stack(b) == 2);
  CHECK(d.labels(b) == 3);
  CHECK(Values(d, b) == std::vector<int64_t>{0, 0});
}

TEST_CASE("heap deltas add and give back values, saturating at both ends") {
  HeapDeltas d(2);
  const uint32_t row = d.Row(1, 1);
  const int64_t v[] = {100, 7};
  d.Add(row, v, /*negate=*/false);
  d.Add(row, v, /*negate=*/true);
  d.Add(row, v, /*negate=*/true);
  CHECK(Values(d, row) == std::vector<int64_t>{-100, -7});
  const int64_t huge[] = {INT64_MAX, INT64_MIN};
  d.Add(row, huge, /*negate=*/true);
  // -100 - INT64_MAX and -7 - INT64_MIN: the first saturates low, the
  // second fits (INT64_MAX - 6).
  CHECK(Values(d, row) == std::vector<int64_t>{INT64_MIN, INT64_MAX - 6});
  d.Add(row, huge, /*negate=*/true);
  CHECK(Values(d, row) == std::vector<int64_t>{INT64_MIN, INT64_MAX});
  d.Add(row, huge, /*negate=*/false);
  CHECK(Values(d, row) == std::vector<int64_t>{-1, -1});
}

TEST_CASE("cleared heap deltas start again from row 0; released ones free their storage") {
  HeapDeltas d(1);
  for (uint32_t i = 0; i < 100; ++i) d.Row(i, 0);
  d.Clear();
  CHECK(d.size() == 0);
  CHECK(d.MemoryBytes() > 0);
  CHECK(d.Row(5, 0) == 0);  // rows number from 0 again
  d.Release();
  CHECK(d.size() == 0);
  CHECK(d.MemoryBytes() == 0);
}

TEST_CASE("heap deltas remember blobs by table and number, and check serials") {
  using Kind = HeapDeltas::BlobKind;
  HeapDeltas d(1);
  const uint32_t in_table_0 = 5;
  const uint32_t in_table_3 = uint32_t{3} << stackrec::ContentBlobs::kNumberBits | 5;
  d.RememberBlob(Kind::kKey, in_table_0, 11, 100);
  d.RememberBlob(Kind::kKey, in_table_3, 12, 200);
  d.RememberBlob(Kind::kStack, in_table_3, 12, 300);
  CHECK(d.FromBlob(Kind::kKey, in_table_0, 11) == 100);
  CHECK(d.FromBlob(Kind::kKey, in_table_3, 12) == 200);
  CHECK(d.FromBlob(Kind::kStack, in_table_3, 12) == 300);
  // A number reused by a newer blob (another serial) is not the old one.
  CHECK(d.FromBlob(Kind::kKey, in_table_0, 12) == HeapDeltas::kUnknown);
  CHECK(d.FromBlob(Kind::kLabels, in_table_3, 12) == HeapDeltas::kUnknown);
  CHECK(d.FromBlob(Kind::kKey, in_table_0 + 1, 11) == HeapDeltas::kUnknown);
  // Each table is sized by its own numbers, not by the table bits.
  CHECK(d.MemoryBytes() < 4096);
  d.Clear();
  CHECK(d.FromBlob(Kind::kKey, in_table_3, 12) == HeapDeltas::kUnknown);
}
