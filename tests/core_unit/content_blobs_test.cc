// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The trackers' shared content (content_blobs.h, content_encoding.h): frames
// and labels round-trip through their encoding, equal content is one blob,
// different content is never one blob even under one hash, and a blob is
// freed with its last reference, its number reused under a new serial.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tables/content_blobs.h"
#include "tables/content_encoding.h"

using stackrec::ContentBlobs;
using stackrec::LabelView;
using stackrec::LocationView;

TEST_CASE("frames and labels round-trip through their encoding, field by field") {
  LocationView a;
  a.mapping = {0x1000, 0x2000, 0x40, "libx.so", "b1d"};
  a.function = {"f", "_Z1fv", "x.cc", 12};
  a.address = 0x1234;
  a.line = 17;
  a.inlined = true;
  LocationView b;  // every field empty or zero
  const std::vector<LocationView> frames = {a, b};
  std::string bytes;
  stackrec::EncodeFrames(frames, &bytes);
  std::vector<LocationView> back;
  stackrec::DecodeFrames(bytes, &back);
  REQUIRE(back.size() == 2);
  CHECK(back[0].mapping.memory_start == 0x1000);
  CHECK(back[0].mapping.memory_limit == 0x2000);
  CHECK(back[0].mapping.file_offset == 0x40);
  CHECK(back[0].mapping.filename == "libx.so");
  CHECK(back[0].mapping.build_id == "b1d");
  CHECK(back[0].function.name == "f");
  CHECK(back[0].function.system_name == "_Z1fv");
  CHECK(back[0].function.filename == "x.cc");
  CHECK(back[0].function.start_line == 12);
  CHECK(back[0].address == 0x1234);
  CHECK(back[0].line == 17);
  CHECK(back[0].inlined);
  CHECK(back[1].function.name.empty());
  CHECK_FALSE(back[1].inlined);

  const std::vector<LabelView> labels = {{"thread", "main", 0, ""}, {"bytes", "", 512, "bytes"}};
  stackrec::EncodeLabels(labels, &bytes);
  std::vector<LabelView> labels_back;
  stackrec::DecodeLabels(bytes, &labels_back);
  REQUIRE(labels_back.size() == 2);
  CHECK(labels_back[0].key == "thread");
  CHECK(labels_back[0].str == "main");
  CHECK(labels_back[1].num == 512);
  CHECK(labels_back[1].num_unit == "bytes");
}

TEST_CASE("where one string ends and the next begins is part of the encoding") {
  LocationView ab, a_b;
  ab.function.name = "ab";
  ab.function.filename = "c";
  a_b.function.name = "a";
  a_b.function.filename = "bc";
  std::string x, y;
  stackrec::EncodeFrames({&ab, 1}, &x);
  stackrec::EncodeFrames({&a_b, 1}, &y);
  CHECK(x != y);
}

TEST_CASE("content blobs: equal bytes are one blob, different bytes never, whatever the hash") {
  ContentBlobs blobs;
  bool added = false;
  const ContentBlobs::Blob& a = blobs.Acquire("stack a", 7, &added);
  CHECK(added);
  // The same hash for other bytes: a collision is a second blob.
  const ContentBlobs::Blob& b = blobs.Acquire("stack b", 7, &added);
  CHECK(added);
  CHECK(a.number != b.number);
  CHECK(a.serial != b.serial);
  const ContentBlobs::Blob* again = blobs.Find("stack a", 7);
  REQUIRE(again == &a);
  CHECK(blobs.Find("stack c", 7) == nullptr);
  CHECK(&blobs.Get(b.number) == &b);
  CHECK(blobs.size() == 2);

  // a: two references (Acquire, Find); freed with the second release.
  const uint32_t a_number = a.number;
  const uint64_t a_serial = a.serial;
  CHECK(blobs.Release(a_number) == nullptr);
  std::unique_ptr<ContentBlobs::Blob> freed = blobs.Release(a_number);
  REQUIRE(freed != nullptr);
  CHECK(freed->bytes == "stack a");
  CHECK(blobs.size() == 1);
  CHECK(blobs.Find("stack a", 7) == nullptr);
  // A new blob of the same stripe may take the number back, never the serial.
  const ContentBlobs::Blob& c = blobs.Acquire("stack c", 7, &added);
  CHECK(added);
  CHECK(c.number == a_number);
  CHECK(c.serial != a_serial);
}
