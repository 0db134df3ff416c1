// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "fingerprint.h"

#include <cstring>

namespace stackrec {
namespace {

// The multiply-fold step of wyhash: 16 bytes per 64x64->128 multiplication.
constexpr uint64_t kP0 = 0xa0761d6478bd642full, kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull, kP3 = 0x589965cc75374cc3ull;

inline uint64_t Fold(uint64_t x, uint64_t y) {
  const unsigned __int128 product = static_cast<unsigned __int128>(x) * y;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// One lane: h absorbs 16 bytes per step, under a pair of keys.
inline uint64_t Step(uint64_t h, uint64_t w0, uint64_t w1, uint64_t k0 = kP0,
                     uint64_t k1 = kP1) {
  return Fold(w0 ^ h ^ k0, w1 ^ k1);
}

inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The last 1 to 16 bytes of a string as two words, with overlapping
// fixed-size loads rather than a variable-length copy (which would be a
// libc call per string). Overlap is harmless: the length was hashed first.
inline void LoadTail(const char* p, size_t n, uint64_t* w0, uint64_t* w1) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  if (n >= 8) {
    *w0 = Load64(p);
    *w1 = Load64(p + n - 8);
  } else if (n >= 4) {
    *w0 = Load32(p);
    *w1 = Load32(p + n - 4);
  } else {
    *w0 = uint64_t{u[0]} << 16 | uint64_t{u[n >> 1]} << 8 | u[n - 1];
    *w1 = 0;
  }
}

// Absorbs the bytes of `s`; its length must have been absorbed before.
inline uint64_t AbsorbBytes(uint64_t h, absl::string_view s, uint64_t k0 = kP0,
                            uint64_t k1 = kP1) {
  const char* p = s.data();
  size_t n = s.size();
  if (n == 0) return h;
  for (; n > 16; p += 16, n -= 16) h = Step(h, Load64(p), Load64(p + 8), k0, k1);
  uint64_t w0, w1;
  LoadTail(p, n, &w0, &w1);
  return Step(h, w0, w1, k0, k1);
}

// The frame's fields go through independent chains that the CPU runs in
// parallel (one chain per string, one step per pair of integers), and are
// then folded together: a single chain through all of them would cost a
// multiplication's latency per 16 bytes.
uint64_t HashFrame(const LocationView& f) {
  const uint64_t ints =
      Fold(Fold(f.mapping.memory_start ^ kP0, f.mapping.memory_limit ^ kP1) ^
               f.address,
           Fold(f.mapping.file_offset ^ kP2,
                static_cast<uint64_t>(f.function.start_line) ^ kP3) ^
               static_cast<uint64_t>(f.line));
  // String lengths are under 2^24 (c_api.cc), so bit 63 is free for the
  // inlined flag.
  const uint64_t lengths = Fold(
      f.function.name.size() ^ uint64_t{f.function.filename.size()} << 32 ^
          uint64_t{f.inlined} << 63 ^ kP0,
      f.function.system_name.size() ^ uint64_t{f.mapping.filename.size()} << 32 ^
          kP1);
  // Different seeds per field, so the same text in two fields differs.
  const uint64_t name = AbsorbBytes(0x1d8e4e27c47d124full, f.function.name);
  const uint64_t file = AbsorbBytes(0x2d358dccaa6c78a5ull, f.function.filename);
  const uint64_t rest =
      AbsorbBytes(AbsorbBytes(AbsorbBytes(0x8bb84b93962eacc9ull ^
                                              f.mapping.build_id.size() * kP1,
                                          f.function.system_name),
                              f.mapping.filename),
                  f.mapping.build_id);
  return Fold(Fold(name ^ ints, file ^ lengths) ^ kP2, rest ^ kP3);
}

// Two lanes with different constants, for 128 bits.
class Lanes {
 public:
  void Add(uint64_t w0, uint64_t w1) {
    a_ = Step(a_, w0, w1, kP0, kP1);
    b_ = Step(b_, w0, w1, kP2, kP3);
  }
  void AddBytes(absl::string_view s) {
    a_ = AbsorbBytes(a_, s, kP0, kP1);
    b_ = AbsorbBytes(b_, s, kP2, kP3);  // the same bytes under other keys
  }
  Fingerprint Finish() const {
    return Fingerprint{Fold(a_ ^ kP1, b_ ^ kP2), Fold(b_ ^ kP3, a_ ^ kP0)};
  }

 private:
  uint64_t a_ = 0x2d358dccaa6c78a5ull, b_ = 0x8bb84b93962eacc9ull;
};

}  // namespace

Fingerprint FingerprintFrames(absl::Span<const LocationView> frames,
                              uint64_t* frame_hashes) {
  Lanes lanes;
  lanes.Add(frames.size(), 0x4b33a62ed433d4a3ull);
  // Frame hashes are independent of each other; only this fold is a chain.
  size_t i = 0;
  for (; i + 2 <= frames.size(); i += 2) {
    frame_hashes[i] = HashFrame(frames[i]);
    frame_hashes[i + 1] = HashFrame(frames[i + 1]);
    lanes.Add(frame_hashes[i], frame_hashes[i + 1]);
  }
  if (i < frames.size()) {
    frame_hashes[i] = HashFrame(frames[i]);
    lanes.Add(frame_hashes[i], 0);
  }
  return lanes.Finish();
}

Fingerprint FingerprintIds(absl::Span<const uint32_t> ids) {
  Lanes lanes;
  lanes.Add(ids.size(), 0x6a09e667f3bcc909ull);
  size_t i = 0;
  for (; i + 4 <= ids.size(); i += 4) {
    lanes.Add(uint64_t{ids[i]} << 32 | ids[i + 1], uint64_t{ids[i + 2]} << 32 | ids[i + 3]);
  }
  uint64_t tail[2] = {0, 0};
  for (size_t k = 0; i < ids.size(); ++i, ++k) tail[k / 2] |= uint64_t{ids[i]} << (32 * (k % 2));
  lanes.Add(tail[0], tail[1]);
  return lanes.Finish();
}

Fingerprint FingerprintLabels(absl::Span<const LabelView> labels) {
  Lanes lanes;
  lanes.Add(labels.size(), 0x4d5a2da51de1aa47ull);
  for (const LabelView& l : labels) {
    lanes.Add(static_cast<uint64_t>(l.num), l.key.size());
    lanes.Add(l.str.size(), l.num_unit.size());
    lanes.AddBytes(l.key);
    lanes.AddBytes(l.str);
    lanes.AddBytes(l.num_unit);
  }
  return lanes.Finish();
}

}  // namespace stackrec
