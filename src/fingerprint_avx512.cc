// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "fingerprint_avx512.h"

#ifdef STACKREC_AVX512_FINGERPRINT

#include <immintrin.h>

#include <cstring>
#include <initializer_list>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"
#include "frame_record.h"
#include "frame_strings.h"

// Every function that uses the kernel's instructions carries this
// attribute rather than the file a -m flag, as in fingerprint_aes.h.
#define STACKREC_AVX512_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,vaes,aes,sse4.1,bmi,bmi2")))
#define STACKREC_AVX512_INLINE STACKREC_AVX512_TARGET ABSL_ATTRIBUTE_ALWAYS_INLINE inline

namespace stackrec {
namespace fingerprint_avx512 {

bool Available() {
  // As for the AES kernel: the first fingerprint may come before main.
  // GCC's avx512 tests include the operating system's saving of the
  // registers (XCR0).
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("vaes") &&
         __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1") &&
         __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
}

namespace {

using Wide = __m512i;

// Bit w stands for word w of a record (frame_record.h).
constexpr uint32_t Words(std::initializer_list<int> words) {
  uint32_t bits = 0;
  for (int w : words) bits |= uint32_t{1} << w;
  return bits;
}
// The five strings' lengths; each string's pointer is the word before.
constexpr uint32_t kLengthWords = Words({4, 6, 8, 10, 12});
// The lengths in each half.
constexpr __mmask8 kLowLengths = static_cast<__mmask8>(kLengthWords & 0xff);
constexpr __mmask8 kHighLengths = static_cast<__mmask8>(kLengthWords >> 8);
// Names and files up to this long are hashed whole by their heads.
constexpr uint64_t kHeadBytes = 32;

inline uint64_t Word(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline const char* Pointer(const char* p) {
  const char* v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The string whose pointer is at `p`, its length right after. Only for a
// string the frame's check passed.
inline absl::string_view StringAt(const char* p) {
  return absl::string_view(Pointer(p), Word(p + 8));
}

// Starts the reads of the head of the string whose pointer is at `p`: its
// first byte and the last a head may read. The address is computed as an
// integer; a prefetch never faults.
inline void PrefetchHead(const char* p) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(Pointer(p));
  __builtin_prefetch(reinterpret_cast<const void*>(at));
  __builtin_prefetch(reinterpret_cast<const void*>(at + kHeadBytes - 1));
}

STACKREC_AVX512_INLINE Wide Lanes(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                                  uint64_t f, uint64_t g, uint64_t h) {
  return _mm512_set_epi64(static_cast<long long>(h), static_cast<long long>(g),
                          static_cast<long long>(f), static_cast<long long>(e),
                          static_cast<long long>(d), static_cast<long long>(c),
                          static_cast<long long>(b), static_cast<long long>(a));
}

// Two rounds (fixed keys, the AES kernel's): each lane's input reaches
// every bit of that lane's result.
// The same 16 bytes in every lane. (Not _mm512_broadcast_i32x4, nor the
// casts, extracts and shuffles that leave lanes undefined: GCC 12 warns
// about them.)
STACKREC_AVX512_INLINE Wide Repeat(uint64_t lo, uint64_t hi) {
  return Lanes(lo, hi, lo, hi, lo, hi, lo, hi);
}

STACKREC_AVX512_INLINE Wide TwoRounds(Wide x) {
  const Wide k1 = Repeat(0xa0761d6478bd642full, 0xe7037ed1a0b428dbull);
  const Wide k2 = Repeat(0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull);
  return _mm512_aesenc_epi128(_mm512_aesenc_epi128(x, k1), k2);
}

// The `len` (at most kHeadBytes) first bytes at `p`, zero-padded to
// kHeadBytes, in the low half; the high half is zero.
STACKREC_AVX512_INLINE Wide Head(const char* p, uint64_t len) {
  return _mm512_maskz_loadu_epi8(_bzhi_u32(~0u, static_cast<uint32_t>(len)), p);
}

// What the ints and heads leave out, for a frame that has any of it (see
// the header): the mapping's words, and the five strings whole, each
// string in a chain of its own as in fingerprint_aes.h. The mapping's
// lengths are absorbed here; the others are among the ints.
STACKREC_AVX512_TARGET __m128i Rest(const char* r) {
  using fingerprint_aes::Absorb;
  using fingerprint_aes::AbsorbBytes;
  using fingerprint_aes::Pair;
  __m128i rest = Absorb(Absorb(Pair(0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull),
                               Pair(Word(r), Word(r + 8))),
                        Pair(Word(r + 16), Word(r + 32) | Word(r + 48) << 32));
  rest = _mm_xor_si128(rest, AbsorbBytes(Pair(0x2de92c6f592b0275ull, 0x4a7484aa6ea6e483ull),
                                         StringAt(r + 24)));
  rest = _mm_xor_si128(rest, AbsorbBytes(Pair(0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull),
                                         StringAt(r + 40)));
  rest = _mm_xor_si128(rest, AbsorbBytes(Pair(0x983e5152ee66dfabull, 0xa831c66d2db43210ull),
                                         StringAt(r + 56)));
  rest = _mm_xor_si128(rest, AbsorbBytes(Pair(0xb00327c898fb213full, 0xbf597fc7beef0ee4ull),
                                         StringAt(r + 72)));
  return _mm_xor_si128(rest, AbsorbBytes(Pair(0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull),
                                         StringAt(r + 88)));
}

// The heads of a frame the fast path does not take (see Frame), with
// everything else of it that the fast path leaves out folded into the
// name's first lane: false if one of its strings fails the check, before
// any is read.
STACKREC_AVX512_TARGET ABSL_ATTRIBUTE_NOINLINE bool UnusualHeads(const char* r, Wide* heads) {
  const Wide low = _mm512_loadu_si512(r);
  const Wide high = _mm512_loadu_si512(r + 64);
  const Wide max_len = _mm512_set1_epi64(static_cast<long long>(kMaxStringBytes));
  const uint32_t zero = uint32_t{_mm512_testn_epi64_mask(low, low)} |
                        uint32_t{_mm512_testn_epi64_mask(high, high)} << 8;
  const uint32_t too_long = uint32_t{_mm512_mask_cmpgt_epu64_mask(kLowLengths, low, max_len)} |
                            uint32_t{_mm512_mask_cmpgt_epu64_mask(kHighLengths, high, max_len)}
                                << 8;
  // A NULL pointer (zero word) right before a length that is not zero.
  const uint32_t null_with_length = zero << 1 & ~zero & kLengthWords;
  if ((null_with_length | too_long) != 0) return false;
  const uint64_t name_len = Word(r + 64), file_len = Word(r + 96);
  const Wide name = Head(Pointer(r + 56), name_len < kHeadBytes ? name_len : kHeadBytes);
  const Wide file = Head(Pointer(r + 88), file_len < kHeadBytes ? file_len : kHeadBytes);
  *heads = _mm512_xor_si512(_mm512_maskz_shuffle_i64x2(0xff, name, file, 0x44),
                            _mm512_zextsi128_si512(Rest(r)));
  return true;
}

// Adds the frame at `r`, at the position whose key is `position`, into
// `sum`; false if one of its strings fails the check, before any of them
// is read.
STACKREC_AVX512_INLINE bool Frame(const char* r, Wide position, Wide* sum) {
  const Wide low = _mm512_loadu_si512(r);
  const Wide high = _mm512_loadu_si512(r + 64);
  const uint64_t name_len = Word(r + 64), file_len = Word(r + 96);
  const char* const name_ptr = Pointer(r + 56);
  const char* const file_ptr = Pointer(r + 88);
  // The fast path: no mapping and no system name (kRareWords all zero), a
  // name and a file of at most kHeadBytes, and neither of them NULL with a
  // length. The last test compares the length with the pointer: only a
  // pointer under 32 is less than such a length, NULL or one no valid
  // string has, and UnusualHeads then checks the frame in full.
  const Wide rare_low = Lanes(~0ull, ~0ull, ~0ull, 0, ~0ull, 0, ~0ull, 0);
  const Wide rare_high = Lanes(0, 0, ~0ull, 0, 0, 0, 0, 0);
  Wide heads;
  if (ABSL_PREDICT_FALSE(
          (_mm512_test_epi64_mask(low, rare_low) | _mm512_test_epi64_mask(high, rare_high)) !=
              0 ||
          (name_len | file_len) > kHeadBytes ||
          name_len > reinterpret_cast<uintptr_t>(name_ptr) ||
          file_len > reinterpret_cast<uintptr_t>(file_ptr))) {
    if (!UnusualHeads(r, &heads)) return false;
  } else {
    // The name's two lanes, then the file's.
    heads = _mm512_maskz_shuffle_i64x2(0xff, Head(name_ptr, name_len), Head(file_ptr, file_len),
                                       0x44);
  }
  // Words 8 to 15 without the two pointers, and `inlined` above the name's
  // length (at most 2^24) in word 8.
  const Wide high_ints = Lanes(~0ull, 0, ~0ull, 0, ~0ull, ~0ull, ~0ull, ~0ull);
  const Wide inlined = _mm512_zextsi128_si512(
      _mm_cvtsi64_si128(static_cast<long long>(uint64_t{static_cast<unsigned char>(r[128])} << 40)));
  const Wide ints = _mm512_xor_si512(_mm512_and_si512(high, high_ints), inlined);
  const Wide hash = _mm512_xor_si512(
      TwoRounds(_mm512_xor_si512(ints, Lanes(0x428a2f98d728ae22ull, 0x7137449123ef65cdull,
                                             0xb5c0fbcfec4d3b2full, 0xe9b5dba58189dbbcull,
                                             0x3956c25bf348b538ull, 0x59f111f1b605d019ull,
                                             0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull))),
      TwoRounds(_mm512_xor_si512(heads, Lanes(0x06ca6351e003826full, 0x142929670a0e6e70ull,
                                              0x27b70a8546d22ffcull, 0x2e1b21385c26c926ull,
                                              0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
                                              0x650a73548baf63deull, 0x766a0abb3c77b2a8ull))));
  *sum = _mm512_xor_si512(*sum, _mm512_aesenc_epi128(_mm512_xor_si512(hash, position),
                                                     Repeat(0x1d8e4e27c47d124full,
                                                            0x2d358dccaa6c78a5ull)));
  return true;
}

}  // namespace

STACKREC_AVX512_TARGET void Start(State* state) {
  _mm512_store_si512(state->sum, _mm512_setzero_si512());
  _mm512_store_si512(state->position, Lanes(0x81c2c92e47edaee6ull, 0x92722c851482353bull,
                                            0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull,
                                            0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull,
                                            0xd192e819d6ef5218ull, 0xd69906245565a910ull));
}

STACKREC_AVX512_TARGET bool Absorb(State* state, const void* records, size_t n) {
  const char* const base = static_cast<const char*>(records);
  Wide sum = _mm512_load_si512(state->sum);
  Wide position = _mm512_load_si512(state->position);
  // Odd steps, so that no two positions of a stack share a key.
  const Wide step = Lanes(0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
                          0xd6e8feb86659fd93ull, 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull,
                          0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull);
  // The heads of the frame kPrefetchFrames ahead (frame_strings.h) are
  // fetched while this one is hashed; two loops, so that the one over
  // most frames needs no test for it.
  for (size_t j = 0; j < kPrefetchFrames && j < n; ++j) {
    PrefetchHead(base + j * kRecordBytes + 56);
    PrefetchHead(base + j * kRecordBytes + 88);
  }
  size_t i = 0;
  bool ok = true;
  for (; i + kPrefetchFrames < n; ++i) {
    const char* ahead = base + (i + kPrefetchFrames) * kRecordBytes;
    PrefetchHead(ahead + 56);
    PrefetchHead(ahead + 88);
    if (ABSL_PREDICT_FALSE(!Frame(base + i * kRecordBytes, position, &sum))) break;
    position = _mm512_add_epi64(position, step);
  }
  if (i + kPrefetchFrames >= n) {
    for (; i < n; ++i) {
      if (ABSL_PREDICT_FALSE(!Frame(base + i * kRecordBytes, position, &sum))) break;
      position = _mm512_add_epi64(position, step);
    }
  }
  ok = i == n;
  _mm512_store_si512(state->sum, sum);
  _mm512_store_si512(state->position, position);
  return ok;
}

STACKREC_AVX512_TARGET void Finish(const State& state, size_t frames, uint64_t* lo,
                                   uint64_t* hi) {
  using fingerprint_aes::Absorb;
  using fingerprint_aes::Pair;
  __m128i out = Absorb(Pair(0xf40e35855771202aull, 0x106aa07032bbd1b8ull),
                       Pair(frames, 0x4b33a62ed433d4a3ull));
  for (int lane = 0; lane < 4; ++lane) {
    out = Absorb(out, Pair(state.sum[2 * lane], state.sum[2 * lane + 1]));
  }
  *lo = fingerprint_aes::Low64(out);
  *hi = fingerprint_aes::High64(out);
}

}  // namespace fingerprint_avx512
}  // namespace stackrec

#endif  // STACKREC_AVX512_FINGERPRINT
