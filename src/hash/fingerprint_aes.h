// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The fingerprints of fingerprint.h computed with AES rounds (AES-NI), for
// x86-64 processors that have them: the string path's hot loop. Chosen at
// run time (fingerprint.h, ActiveFingerprintKernel), so the library still
// runs on any x86-64; every function here carries its own target
// attribute instead of the translation unit a -maes flag, so that no
// inline function shared with other files is ever compiled with AES
// instructions in it.
//
// Why AES: the portable hash spends a 64x64->128 multiplication per 8 to
// 16 bytes and per pair of integers, about 117 instructions a typical
// frame. An AES round mixes 16 bytes in one instruction, and this
// machine's kind of core retires two a cycle.
//
// Strength. Each 16-byte block goes through two rounds before the next
// one is absorbed: one round spreads a byte's change over a 4-byte column
// only, and a later block that happened to differ in exactly that column
// by exactly that pattern would cancel it; after two rounds the change
// covers all 16 bytes, so a later block of text, which differs in a few
// bytes, cannot cancel it.
//
// Two rounds are not enough, though, for the end of a chain whose result
// is xored with another's: the change that one byte makes through two
// rounds is set by only four byte values (the S-box outputs of the second
// round), so two chains that each end on a block differing in one byte
// can make the same change and cancel. They did: with the integers, the
// name and the file in three chains of that kind, frames differing in the
// name's last byte and in the start line's low byte shared their low 64
// bits about once in 65,536 pairs (found on the workloads bench, whose
// function names differ so; tests/core_unit/fingerprint_test.cc tries such
// pairs). So every chain but the file's ends with two more rounds
// (Finalize): after four rounds a change is spread beyond what a change
// of another chain, set by four bytes, can match, and the same text in
// two chains does not cancel either, as their seeds differ. (Two chains
// instead of three, the integers and name in one, finished, took longer:
// one long chain a frame, where the processor overlaps short ones.) A
// label likewise: its integers, key and unit in one chain, finished, its
// string in the other. A frame (label) hash is 128 bits, of which the
// profile keys its frame and function caches on 64; the odds of a wrong
// match are as stated in fingerprint.h.
#ifndef STACKREC_SRC_HASH_FINGERPRINT_AES_H_
#define STACKREC_SRC_HASH_FINGERPRINT_AES_H_

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define STACKREC_AES_FINGERPRINT 1

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"
#include "hash/frame_strings.h"

#define STACKREC_AES_TARGET __attribute__((target("aes,sse4.1")))
#define STACKREC_AES_INLINE STACKREC_AES_TARGET ABSL_ATTRIBUTE_ALWAYS_INLINE inline

namespace stackrec {
namespace fingerprint_aes {

using Block = __m128i;

STACKREC_AES_INLINE Block Pair(uint64_t lo, uint64_t hi) {
  return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
}

// Two rounds with fixed round keys (arbitrary odd constants): `block`
// reaches every bit of the result (see the file comment).
STACKREC_AES_INLINE Block Absorb(Block state, Block block) {
  const Block k1 = Pair(0xa0761d6478bd642full, 0xe7037ed1a0b428dbull);
  const Block k2 = Pair(0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull);
  return _mm_aesenc_si128(_mm_aesenc_si128(_mm_xor_si128(state, block), k1), k2);
}

// Two more rounds at the end of a chain, so that its last block's change
// is spread over all of its output (see the file comment).
STACKREC_AES_INLINE Block Finalize(Block state) {
  const Block k1 = Pair(0x3c6ef372fe94f82bull, 0xbb67ae8584caa73bull);
  const Block k2 = Pair(0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull);
  return _mm_aesenc_si128(_mm_aesenc_si128(state, k1), k2);
}

// One round, for folding hashes that are already well mixed (a frame's
// into its stack's): two distinct sequences then collide only if one
// hash's difference happens to equal a pseudo-random 128-bit value.
STACKREC_AES_INLINE Block Fold(Block state, Block hash) {
  return _mm_aesenc_si128(_mm_xor_si128(state, hash),
                          Pair(0x1d8e4e27c47d124full, 0x2d358dccaa6c78a5ull));
}

STACKREC_AES_INLINE Block Load128(const char* p) {
  return _mm_loadu_si128(reinterpret_cast<const Block*>(p));
}

// Absorbs the bytes of `s`, never reading outside them; its length must
// be absorbed elsewhere (the overlapping loads below are ambiguous
// without it). Branches on the length's bucket only, as the portable
// AbsorbBytes does.
STACKREC_AES_INLINE Block AbsorbBytes(Block state, absl::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  if (n > 16) {
    // Strings over 32 bytes are the rarer case: so marked, the compiler
    // lays out 17 to 32 bytes (most function and file names) straight on
    // the frame loop's path, instead of two taken jumps a string.
    if (ABSL_PREDICT_FALSE(n > 32)) {
      do {
        state = Absorb(state, Load128(p));
        p += 16;
        n -= 16;
      } while (n > 32);
    }
    // 17 to 32 bytes left: the first 16, then the last 16.
    return Absorb(Absorb(state, Load128(p)), Load128(p + n - 16));
  }
  if (n >= 8) return Absorb(state, Pair(Load64(p), Load64(p + n - 8)));
  if (n >= 4) return Absorb(state, Pair(Load32(p), Load32(p + n - 4)));
  if (n == 0) return state;
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return Absorb(state, Pair(uint64_t{u[0]} << 16 | uint64_t{u[n >> 1]} << 8 | u[n - 1], 0));
}

// A frame's 128-bit hash of the same fields as the portable HashFrame
// (fingerprint.h), `Frame`, `view` and `raw` as there.
template <typename Frame, typename View, typename Raw>
STACKREC_AES_INLINE Block HashFrame(const Frame& f, View view, Raw raw) {
  const absl::string_view fn_name = view(f.function.name);
  const absl::string_view fn_filename = view(f.function.filename);
  // String lengths are at most 2^24 (c_checks.h), so bit 63 is free for the
  // inlined flag.
  const Block ints = Finalize(Absorb(
      Absorb(Pair(0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull),
             Pair(f.address, static_cast<uint64_t>(f.line))),
      Pair(static_cast<uint64_t>(f.function.start_line),
           fn_name.size() ^ uint64_t{fn_filename.size()} << 32 ^ uint64_t{f.inlined} << 63)));
  const Block name =
      Finalize(AbsorbBytes(Pair(0x510e527fade682d1ull, 0x9b05688c2b3e6c1full), fn_name));
  const Block file = AbsorbBytes(Pair(0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull), fn_filename);
  Block hash = _mm_xor_si128(ints, _mm_xor_si128(name, file));
  // Marked rare, so that the frame loop falls through past the mapping's
  // chains: interpreted frames (the Ruby, Python or Node sampler's) have no
  // mapping and no system name.
  if (ABSL_PREDICT_FALSE(HasMappingOrSystemName(f, raw))) {
    CompilerBarrier();
    const absl::string_view fn_system_name = view(f.function.system_name);
    // A frame without a mapping whose system name is its name (a Go
    // frame's) is told apart by one more round over its hash, not by the
    // three chains below: they would be a third of its hash's rounds, and
    // its system name's bytes are its name's, hashed already. A round and not
    // a constant xored in: the ends of the chains above can differ by
    // patterns set by a few bytes (see the file comment), which a constant
    // might match, while a round is no such difference: a frame with the
    // system name and one without share a hash only by chance, and two
    // with it only if they would without.
    if (!HasMapping(f, raw) && SameBytes(fn_system_name, view(f.function.name))) {
      return _mm_aesenc_si128(hash, Pair(0x3956c25bf348b538ull, 0x59f111f1923f82a4ull));
    }
    const absl::string_view map_filename = view(f.mapping.filename);
    const absl::string_view map_build_id = view(f.mapping.build_id);
    // Three chains, as the function's fields are: the integers and the
    // system name (mostly empty); the library's path; its build id, whose
    // length goes into its chain's seed (lengths are under 2^24, c_checks.h,
    // so the other two share a word). As one chain a native frame's hash
    // would be about twenty rounds one after the other; as three, each is
    // at most eight rounds for a path of 33 to 48 bytes, and they overlap.
    const Block ints = Finalize(
        AbsorbBytes(Absorb(Absorb(Pair(0xcbbb9d5dc1059ed8ull, 0x629a292a367cd507ull),
                                  Pair(f.mapping.memory_start, f.mapping.memory_limit)),
                           Pair(f.mapping.file_offset,
                                fn_system_name.size() | uint64_t{map_filename.size()} << 32)),
                    fn_system_name));
    const Block path =
        Finalize(AbsorbBytes(Pair(0x9159015a3070dd17ull, 0x152fecd8f70e5939ull), map_filename));
    const Block build_id = Finalize(AbsorbBytes(
        Pair(0x67332667ffc00b31ull ^ map_build_id.size(), 0x8eb44a8768581511ull), map_build_id));
    hash = _mm_xor_si128(hash, _mm_xor_si128(ints, _mm_xor_si128(path, build_id)));
  }
  return hash;
}

STACKREC_AES_INLINE uint64_t Low64(Block b) { return static_cast<uint64_t>(_mm_cvtsi128_si64(b)); }

// A frame's 64-bit hash, as FingerprintFrames stores it: for a frame
// hashed alone (HashFunction).
template <typename Frame, typename View, typename Raw>
STACKREC_AES_TARGET uint64_t FrameHash64(const Frame& f, View view, Raw raw) {
  return Low64(HashFrame(f, view, raw));
}

// The starting state of a chain that folds `n` hashes (Fold), from the
// chain's own seed: the count goes in first, so that no sequence is a
// prefix of another's chain.
//
// Nothing is done to the state after the last fold. Each AES round is a
// bijection of the state, so rounds after the last fold cannot make two
// sequences' fingerprints differ that do not differ already; they only
// spread the last hash over the output, which Fold's own round does for a
// hash that is already well mixed. They cost their latency, though, on the
// path of every add: the fingerprint is what the stack (label) cache is
// looked up with next: two absorbs there would be 16 cycles on an add by
// stack id whose whole cost is under a hundred nanoseconds.
STACKREC_AES_INLINE Block ChainStart(uint64_t seed_lo, uint64_t seed_hi, size_t n) {
  return Pair(seed_lo ^ n, seed_hi);
}

// Stores the state as `*out`, a pair of words (low, high), with one
// 16-byte store: the callers load the pair as one 16-byte value, which a
// store of its two halves apart cannot forward to, so that load waited for
// them to reach the cache, on the path of every add whose frames are not
// in cache.
template <typename Pair64>
STACKREC_AES_INLINE void Output(Block state, Pair64* out) {
  static_assert(sizeof(Pair64) == sizeof(Block) && std::is_trivially_copyable_v<Pair64>,
                "a pair of 64-bit words, low first");
  std::memcpy(static_cast<void*>(out), &state, sizeof state);
}

// Fingerprints frames[0, n) into *out (Output) and stores each frame's 64-bit
// hash in hashes[0, n), prefetching the strings of the frame
// kPrefetchFrames ahead (frame_strings.h). Not inlined: the one function
// per frame type that carries the AES target.
template <typename Frame, typename View, typename Raw, typename Pair64>
STACKREC_AES_TARGET void FingerprintFrames(const Frame* frames, size_t n, View view, Raw raw,
                                           uint64_t* hashes, Pair64* out) {
  Block state = ChainStart(0x3f84d5b5b5470917ull, 0x9216d5d98979fb1bull, n);
  auto next = [&](size_t i) STACKREC_AES_TARGET ABSL_ATTRIBUTE_ALWAYS_INLINE {
    const Block hash = HashFrame(frames[i], view, raw);
    hashes[i] = Low64(hash);
    state = Fold(state, hash);
  };
  for (size_t j = 0; j < kPrefetchFrames && j < n; ++j) PrefetchFrameStrings(frames[j], raw);
  // Two loops, so that the one over most frames prefetches without a test.
  size_t i = 0;
  for (; i + kPrefetchFrames < n; ++i) {
    PrefetchFrameStrings(frames[i + kPrefetchFrames], raw);
    next(i);
  }
  for (; i < n; ++i) next(i);
  Output(state, out);
}

// A label's 128-bit hash, in two chains as a frame's: its integers, key
// and unit (mostly empty), finished, and its string. Key and value lengths
// share a word (each under 2^24), with a flag for the unit, whose length
// comes in a block of its own.
template <typename Label>
STACKREC_AES_INLINE Block HashLabel(const Label& l) {
  const bool unit = !l.num_unit.empty();
  Block head = Absorb(Pair(0xd807aa98a3030242ull, 0x12835b0145706fbeull),
                      Pair(static_cast<uint64_t>(l.num),
                           l.key.size() | uint64_t{l.str.size()} << 32 | uint64_t{unit} << 63));
  head = AbsorbBytes(head, l.key);
  if (unit) {
    head = AbsorbBytes(Absorb(head, Pair(l.num_unit.size(), 0x9bdc06a725c71235ull)), l.num_unit);
  }
  const Block str = AbsorbBytes(Pair(0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull), l.str);
  return _mm_xor_si128(Finalize(head), str);
}

// A label set is a set: its labels' hashes are summed, lane by lane, and
// the sum folded once, so that the same labels in any order have one
// fingerprint. The keys of a set are unique, so no two terms are one label
// twice; each term is a finished hash (HashLabel), so no structure of the
// labels survives into the sum for two sets to cancel out. The sums of
// several labels are independent of each other, which also takes the fold
// chain off the path of every label but the last.
template <typename Label, typename Pair64>
STACKREC_AES_TARGET void FingerprintLabels(const Label* labels, size_t n, Pair64* out) {
  Block sum = _mm_setzero_si128();
  for (size_t i = 0; i < n; ++i) sum = _mm_add_epi64(sum, HashLabel(labels[i]));
  Output(Fold(ChainStart(0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull, n), sum), out);
}

}  // namespace fingerprint_aes
}  // namespace stackrec

#endif  // x86-64
#endif  // STACKREC_SRC_HASH_FINGERPRINT_AES_H_
