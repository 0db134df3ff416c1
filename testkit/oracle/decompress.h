// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Decompression of stackrec's output for the test oracles, without a test
// framework, so that the fuzzer can use it too.
#ifndef STACKREC_TESTKIT_ORACLE_DECOMPRESS_H_
#define STACKREC_TESTKIT_ORACLE_DECOMPRESS_H_

#include <string>

namespace stackrec_test {

enum class Format { kGzip, kZstd, kNone };

// Detects the format by its magic bytes (gzip 1f 8b, zstd 28 b5 2f fd).
Format DetectFormat(const std::string& bytes);

// Decompresses gzip or zstd (or copies uncompressed bytes) into *out.
// False if the stream is corrupt, truncated, or followed by garbage.
bool DecompressAny(const std::string& in, std::string* out);

}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_ORACLE_DECOMPRESS_H_
