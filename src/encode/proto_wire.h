// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The protobuf wire format, written by hand: tags, sizes and fields through
// protobuf's CodedOutputStream, or straight into a buffer known to have
// room. The encoders write messages field by field with these; no
// generated message class is involved.
#ifndef STACKREC_SRC_ENCODE_PROTO_WIRE_H_
#define STACKREC_SRC_ENCODE_PROTO_WIRE_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"

namespace stackrec {
namespace wire {

using google::protobuf::io::CodedOutputStream;

constexpr uint32_t kVarint = 0, kFixed64 = 1, kLen = 2;
constexpr uint32_t Tag(uint32_t field, uint32_t wire) { return (field << 3) | wire; }

inline size_t VarintSize(uint64_t v) { return CodedOutputStream::VarintSize64(v); }

// Bytes of an optional varint field (tags here all fit in one byte).
inline size_t FieldSize(uint64_t v) { return v == 0 ? 0 : 1 + VarintSize(v); }
// Bytes of a length-delimited field holding `payload` bytes.
inline size_t LenFieldSize(size_t payload) { return 1 + VarintSize(payload) + payload; }

inline void WriteVarintField(CodedOutputStream* out, uint32_t field, uint64_t v) {
  if (v == 0) return;
  out->WriteTag(Tag(field, kVarint));
  out->WriteVarint64(v);
}

inline void WriteLenHeader(CodedOutputStream* out, uint32_t field, size_t payload) {
  out->WriteTag(Tag(field, kLen));
  out->WriteVarint64(payload);
}

// The same, into a buffer known to have room: for samples, the bulk of the
// output, where CodedOutputStream's bounds check at every field would cost
// more than the writing.
// A length-delimited field of raw bytes. Empty bytes may come with a null
// pointer, which WriteRaw must not be given.
inline void WriteBytesField(CodedOutputStream* out, uint32_t field, absl::string_view bytes) {
  WriteLenHeader(out, field, bytes.size());
  if (!bytes.empty()) out->WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
}

inline uint8_t* PutVarintField(uint8_t* dst, uint32_t field, uint64_t v) {
  if (v == 0) return dst;
  *dst++ = static_cast<uint8_t>(Tag(field, kVarint));
  return CodedOutputStream::WriteVarint64ToArray(v, dst);
}

inline uint8_t* PutLenHeader(uint8_t* dst, uint32_t field, size_t payload) {
  *dst++ = static_cast<uint8_t>(Tag(field, kLen));
  return CodedOutputStream::WriteVarint64ToArray(payload, dst);
}

}  // namespace wire
}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_PROTO_WIRE_H_
