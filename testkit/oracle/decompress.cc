// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "oracle/decompress.h"

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>

namespace stackrec_test {

Format DetectFormat(const std::string& bytes) {
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
      static_cast<uint8_t>(bytes[1]) == 0x8b) {
    return Format::kGzip;
  }
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "\x28\xb5\x2f\xfd", 4) == 0) {
    return Format::kZstd;
  }
  return Format::kNone;
}

namespace {

bool Gunzip(const std::string& in, std::string* out) {
  z_stream z;
  std::memset(&z, 0, sizeof(z));
  if (inflateInit2(&z, 15 + 16) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buf[1 << 16];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out->append(buf, sizeof(buf) - z.avail_out);
  } while (rc == Z_OK);
  const bool ok = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  return ok;
}

bool Unzstd(const std::string& in, std::string* out) {
  ZSTD_DStream* d = ZSTD_createDStream();
  if (d == nullptr) return false;
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  char buf[1 << 16];
  bool ok = false;
  for (;;) {
    ZSTD_outBuffer output{buf, sizeof(buf), 0};
    const size_t rc = ZSTD_decompressStream(d, &output, &input);
    if (ZSTD_isError(rc)) break;
    out->append(buf, output.pos);
    if (rc == 0) {  // the frame is complete; nothing may follow it
      ok = input.pos == input.size;
      break;
    }
    // Input used up with room to spare in the output: a truncated frame.
    if (input.pos == input.size && output.pos < output.size) break;
  }
  ZSTD_freeDStream(d);
  return ok;
}

}  // namespace

bool DecompressAny(const std::string& in, std::string* out) {
  out->clear();
  switch (DetectFormat(in)) {
    case Format::kGzip:
      return Gunzip(in, out);
    case Format::kZstd:
      return Unzstd(in, out);
    case Format::kNone:
      *out = in;
      return true;
  }
  return false;
}

}  // namespace stackrec_test
