// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// CompressingOutput on its own: what it writes and how much room it takes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "catch2/catch.hpp"
#include "encode/compression.h"
#include "support/decompress.h"

namespace {

using stackrec::CompressingOutput;
using stackrec::Compression;
using stackrec::SerializeOptions;
using stackrec_test::DecompressAny;

// `size` bytes of a varint-like stream: small numbers with some repeats,
// as a pprof is.
std::string Payload(size_t size) {
  std::string s;
  uint64_t x = 88172645463325252ull;
  while (s.size() < size) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s.push_back(static_cast<char>(x % 64));
  }
  return s;
}

// Writes `payload` through a CompressingOutput in the pieces Next() offers;
// *largest_offer is the largest piece, the staging buffer's size.
std::string Compress(Compression c, const std::string& payload, int* largest_offer = nullptr) {
  stackrec::TableString out;
  const auto sink = CompressingOutput::Create(SerializeOptions{c, 0}, &out);
  size_t at = 0;
  while (at < payload.size()) {
    void* data;
    int size;
    REQUIRE(sink->Next(&data, &size));
    if (largest_offer != nullptr) *largest_offer = std::max(*largest_offer, size);
    const size_t n = std::min(static_cast<size_t>(size), payload.size() - at);
    std::memcpy(data, payload.data() + at, n);
    sink->BackUp(size - static_cast<int>(n));
    at += n;
  }
  CHECK(sink->ByteCount() == static_cast<int64_t>(payload.size()));
  REQUIRE(sink->Finish().ok());
  return std::string(out.data(), out.size());
}

}  // namespace

TEST_CASE("a small output is staged and written in room sized to it") {
  // A profile that reaches the compressor whole is staged in a buffer that
  // grew to its size, and its output gets the compressor's bound for that
  // input, not a fixed step of 64 KiB.
  const std::string payload = Payload(3000);
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    INFO("compression " << static_cast<int>(c));
    int largest_offer = 0;
    const std::string out = Compress(c, payload, &largest_offer);
    // The staging buffer and the output each about the payload's size, not
    // the 128 KiB and 64 KiB blocks a large profile streams through.
    CHECK(largest_offer <= 4 * 1024);
    CHECK(out.capacity() < 4 * 1024);
    std::string back;
    REQUIRE(DecompressAny(out, &back));
    CHECK(back == payload);
  }
}

TEST_CASE("outputs larger than the staging buffer stream through every codec") {
  for (size_t size : {size_t{128} * 1024, size_t{128} * 1024 + 1, size_t{3} << 20}) {
    const std::string payload = Payload(size);
    for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
      INFO("size " << size << ", compression " << static_cast<int>(c));
      const std::string out = Compress(c, payload);
      std::string back;
      REQUIRE(DecompressAny(out, &back));
      CHECK(back == payload);
    }
  }
}
