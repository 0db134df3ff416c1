// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/otlp_response.h"

namespace stackrec_export {
namespace {

// A cursor over protobuf wire bytes; every read fails on truncation.
class Wire {
 public:
  explicit Wire(std::string_view bytes) : rest_(bytes) {}
  bool done() const { return rest_.empty(); }

  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return false;
      const auto b = static_cast<unsigned char>(rest_[0]);
      rest_.remove_prefix(1);
      *v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool Bytes(std::string_view* v) {
    uint64_t n;
    if (!Varint(&n) || n > rest_.size()) return false;
    *v = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  // Skips a field of `wire_type` (groups are not used by OTLP: refused).
  bool Skip(uint64_t wire_type) {
    uint64_t v;
    std::string_view s;
    switch (wire_type) {
      case 0:
        return Varint(&v);
      case 1:
        return Fixed(8);
      case 2:
        return Bytes(&s);
      case 5:
        return Fixed(4);
      default:
        return false;
    }
  }

 private:
  bool Fixed(size_t n) {
    if (rest_.size() < n) return false;
    rest_.remove_prefix(n);
    return true;
  }
  std::string_view rest_;
};

bool ParseExportPartialSuccess(std::string_view bytes, PartialSuccess* out) {
  Wire w(bytes);
  while (!w.done()) {
    uint64_t tag;
    if (!w.Varint(&tag)) return false;
    const uint64_t field = tag >> 3, type = tag & 7;
    if (field == 1 && type == 0) {
      uint64_t v;
      if (!w.Varint(&v)) return false;
      out->rejected_profiles = static_cast<int64_t>(v);
    } else if (field == 2 && type == 2) {
      std::string_view s;
      if (!w.Bytes(&s)) return false;
      out->error_message.assign(s);
    } else if (!w.Skip(type)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool ParsePartialSuccess(std::string_view body, PartialSuccess* out) {
  *out = PartialSuccess();
  Wire w(body);
  while (!w.done()) {
    uint64_t tag;
    if (!w.Varint(&tag)) return false;
    if ((tag >> 3) == 1 && (tag & 7) == 2) {
      std::string_view inner;
      // A repeated embedded message merges: the last values win.
      if (!w.Bytes(&inner) || !ParseExportPartialSuccess(inner, out)) return false;
    } else if (!w.Skip(tag & 7)) {
      return false;
    }
  }
  return true;
}

}  // namespace stackrec_export
