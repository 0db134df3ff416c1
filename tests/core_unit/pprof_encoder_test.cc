// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The encoder's output buffer: a serialization reserves it from the size of
// the last output of the same compression, and never beyond
// max_output_bytes.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "encode/pprof/pprof_encoder.h"
#include "profile/profile.h"
#include "serialize/serialize.h"
#include "support/core_test_support.h"

using stackrec_core_test::Options;
using stackrec_core_test::Stack;

TEST_CASE("a serialization reserves its output from the last one like it") {
  stackrec::Profile profile(Options(), 0);
  for (int i = 0; i < 200; ++i) {
    stackrec::SampleView sample;
    const Stack stack("s" + std::to_string(i) + "_", 12);
    const std::vector<int64_t> values = {1, i};
    sample.values = values;
    sample.locations = stack.views();
    REQUIRE(profile.Add(sample).ok());
  }
  stackrec::OutputSizes sizes;
  stackrec::SerializationStats stats;
  stackrec::TableString gzip, zstd, none;
  const stackrec::SerializeOptions gzip_options{stackrec::Compression::kGzip, 0};
  REQUIRE(stackrec::SerializeProfile(profile, gzip_options, 1, &gzip, &stats, &sizes).ok());
  const size_t first = gzip.size();
  // Compressed outputs share their estimate; an uncompressed one has its own.
  CHECK(sizes.Expected(stackrec::Compression::kZstd, stackrec::Format::kPprof, false) ==
        first + first / 8);
  CHECK(sizes.Expected(stackrec::Compression::kNone, stackrec::Format::kPprof, false) == 0);
  REQUIRE(stackrec::SerializeProfile(profile, {stackrec::Compression::kZstd, 0}, 1, &zstd, &stats,
                                     &sizes)
              .ok());
  CHECK(zstd.capacity() >= first + first / 8);
  CHECK(sizes.Expected(stackrec::Compression::kGzip, stackrec::Format::kPprof, false) ==
        zstd.size() + zstd.size() / 8);
  REQUIRE(stackrec::SerializeProfile(profile, {stackrec::Compression::kNone, 0}, 1, &none, &stats,
                                     &sizes)
              .ok());
  CHECK(sizes.Expected(stackrec::Compression::kNone, stackrec::Format::kPprof, false) ==
        none.size() + none.size() / 8);
  // Never more than max_output_bytes.
  stackrec::ProfileOptions capped = Options();
  capped.max_output_bytes = size_t{1} << 20;
  stackrec::Profile small(capped, 0);
  sizes.Record(stackrec::Compression::kGzip, stackrec::Format::kPprof, false, size_t{1} << 30);
  stackrec::TableString out;
  REQUIRE(stackrec::SerializeProfile(small, gzip_options, 1, &out, &stats, &sizes).ok());
  CHECK(out.capacity() >= capped.max_output_bytes);
  CHECK(out.capacity() < 2 * capped.max_output_bytes);
  CHECK(sizes.Expected(stackrec::Compression::kGzip, stackrec::Format::kPprof, false) ==
        out.size() + out.size() / 8);
  // A split output has its own estimate, its parts' sizes together.
  CHECK(sizes.Expected(stackrec::Compression::kGzip, stackrec::Format::kPprof, true) == 0);
  stackrec::SerializeOptions split = gzip_options;
  split.budget.part_uncompressed_bytes = 2000;
  stackrec::TableString parts;
  REQUIRE(stackrec::SerializeProfile(profile, split, 1, &parts, &stats, &sizes).ok());
  CHECK(stats.parts.size() > 1);
  CHECK(sizes.Expected(stackrec::Compression::kGzip, stackrec::Format::kPprof, true) ==
        parts.size() + parts.size() / 8);
}
