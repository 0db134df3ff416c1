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
#include "oracle/decompress.h"

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
std::string Compress(Compression c, const std::string& payload, int* largest_offer = nullptr,
                     int level = 0, int threads = 0) {
  stackrec::TableString out;
  SerializeOptions options;
  options.compression = c;
  options.level = level;
  options.compress_threads = threads;
  const auto sink = CompressingOutput::Create(options, &out);
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

TEST_CASE("a helper thread compresses to the same bytes as the calling thread") {
  // The codec sees the same writes in the same order either way; only the
  // thread differs. Sizes: one that never starts the helper (it fits the
  // staging buffer), one just past it, and many buffers.
  for (size_t size : {size_t{100} * 1024, size_t{128} * 1024 + 1, size_t{5} << 20}) {
    const std::string payload = Payload(size);
    for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
      INFO("size " << size << ", compression " << static_cast<int>(c));
      const std::string alone = Compress(c, payload, nullptr, 0, 1);
      const std::string helped = Compress(c, payload, nullptr, 0, 2);
      CHECK(helped == alone);
      std::string back;
      REQUIRE(DecompressAny(helped, &back));
      CHECK(back == payload);
    }
  }
}

TEST_CASE("every gzip level writes one member that gunzips to the input") {
  // DecompressAny refuses bytes after the first member, so each output is
  // a single gzip member, as readers that stop at the first expect.
  const std::string payload = Payload(size_t{1} << 20);
  size_t level1 = 0, level9 = 0;
  for (int level = 1; level <= 9; ++level) {
    INFO("level " << level);
    const std::string out = Compress(Compression::kGzip, payload, nullptr, level);
    std::string back;
    REQUIRE(DecompressAny(out, &back));
    CHECK(back == payload);
    if (level == 1) level1 = out.size();
    if (level == 9) level9 = out.size();
  }
  CHECK(level9 <= level1);
}

TEST_CASE("compress_threads takes 0, 1 or 2") {
  SerializeOptions options;
  for (int threads : {0, 1, 2}) {
    options.compress_threads = threads;
    CHECK(stackrec::ValidateSerializeOptions(options).ok());
  }
  for (int threads : {-1, 3}) {
    options.compress_threads = threads;
    const stackrec::Status status = stackrec::ValidateSerializeOptions(options);
    CHECK(status.code() == stackrec::Code::kInvalidArgument);
    CHECK(std::string(stackrec::LastErrorMessage()).find("opts.compress_threads") == 0);
  }
}
