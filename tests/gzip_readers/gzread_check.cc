// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// zlib's gzread, the reader C programs use, on a gzip output: it must give
// back the uncompressed bytes exactly, and end cleanly.
//
//   gzip_readers_gzread <file.gz> <file.raw>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <file.gz> <file.raw>\n", argv[0]);
    return 2;
  }
  std::ifstream raw_file(argv[2], std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(raw_file)),
                        std::istreambuf_iterator<char>());
  gzFile gz = gzopen(argv[1], "rb");
  if (gz == nullptr) {
    std::fprintf(stderr, "gzopen %s failed\n", argv[1]);
    return 1;
  }
  std::string back;
  char buf[1 << 16];
  int n;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) back.append(buf, static_cast<size_t>(n));
  int err = Z_OK;
  const char* message = gzerror(gz, &err);
  gzclose(gz);
  if (n < 0 || err != Z_OK) {
    std::fprintf(stderr, "gzread %s: %s\n", argv[1], message);
    return 1;
  }
  if (back != raw) {
    std::fprintf(stderr, "gzread %s: %zu bytes, not the %zu of %s\n", argv[1], back.size(),
                 raw.size(), argv[2]);
    return 1;
  }
  return 0;
}
