// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The byte layout of one frame as a caller hands it over: stackrec.h's
// stackrec_location, written out here so that the core can read a
// caller's array of frames as bytes without seeing the C type (c_api.cc
// checks, field by field, that the two layouts are the same).
//
// Why bytes: the AVX-512 stack fingerprint (fingerprint_avx512.h) reads a
// frame's integers 64 bytes at a time, pointers and padding masked off,
// instead of one field at a time. It reads through unaligned vector loads
// and memcpy only, never through an lvalue of FrameRecord, so any object
// of this layout may be passed (the caller's stackrec_location structs, or
// FrameRecords the core builds from its own views).
#ifndef STACKREC_SRC_FRAME_RECORD_H_
#define STACKREC_SRC_FRAME_RECORD_H_

#include <cstddef>
#include <cstdint>

namespace stackrec {

// The longest string a frame or label may hold (c_api.cc rejects longer
// ones): no symbol or label is this long, and the encoder writes each
// string with an int-sized length. The hashes also rely on it: two
// lengths share a 64-bit word.
inline constexpr size_t kMaxStringBytes = size_t{1} << 24;

struct RecordString {
  const char* ptr;
  size_t len;
};

// 17 words: the 16 of the 8-byte fields below, then `inlined` and 7 bytes
// of padding, whose content is never read as part of the frame.
struct FrameRecord {
  uint64_t memory_start, memory_limit, file_offset;  // the mapping's
  RecordString map_filename, build_id;
  RecordString name, system_name, filename;  // the function's
  int64_t start_line;
  uint64_t address;
  int64_t line;
  bool inlined;
};

// Word w of a record holds, for w = 0..15:
//   0 memory_start   1 memory_limit   2 file_offset   3 map_filename.ptr
//   4 map_filename.len  5 build_id.ptr  6 build_id.len  7 name.ptr
//   8 name.len  9 system_name.ptr  10 system_name.len  11 filename.ptr
//   12 filename.len  13 start_line  14 address  15 line
// and byte 128 is `inlined`. A string's pointer is the word before its
// length.
inline constexpr size_t kRecordBytes = 136;
static_assert(sizeof(FrameRecord) == kRecordBytes, "");
static_assert(offsetof(FrameRecord, map_filename) == 3 * 8, "");
static_assert(offsetof(FrameRecord, build_id) == 5 * 8, "");
static_assert(offsetof(FrameRecord, name) == 7 * 8, "");
static_assert(offsetof(FrameRecord, system_name) == 9 * 8, "");
static_assert(offsetof(FrameRecord, filename) == 11 * 8, "");
static_assert(offsetof(FrameRecord, start_line) == 13 * 8, "");
static_assert(offsetof(FrameRecord, address) == 14 * 8, "");
static_assert(offsetof(FrameRecord, line) == 15 * 8, "");
static_assert(offsetof(FrameRecord, inlined) == 16 * 8, "");

}  // namespace stackrec

#endif  // STACKREC_SRC_FRAME_RECORD_H_
