// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A 128-bit fingerprint of a sample's input (its frames or its labels), so
// that a stack or label set seen before is found with one hash-table lookup
// instead of one lookup per string.
//
// Why a fingerprint of the content and not of the pointers: callers reuse
// buffers, so the same pointer can hold a different string from one call to
// the next. Every byte is read on every call; what we save is the per-string
// table lookups (hundreds per sample). c_sample.h reads the
// caller's stackrec_location structs straight into the same frame hash
// (FingerprintFrameArray below), so that a known stack costs one pass over
// its frames and no copy (Profile::Add with a HashedFrames).
//
// Identical fingerprints are taken to mean identical content. The portable
// kernel reduces each frame (label) to a 64-bit hash and the hashes to 128
// bits; the AES kernel (fingerprint_aes.h) keeps 128 bits per frame, but
// the profile's frame and function caches key on 64 of them. Either way
// the odds of a wrong match are at worst those of two distinct frames
// (labels, functions) sharing a 64-bit hash: for F distinct frames in one
// profile about F^2 / 2^65, i.e. 3e-10 for 100,000 frames.
#ifndef STACKREC_SRC_HASH_FINGERPRINT_H_
#define STACKREC_SRC_HASH_FINGERPRINT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hash/fingerprint_aes.h"
#include "hash/frame_strings.h"
#include "input/sample_view.h"

namespace stackrec {

struct Fingerprint {
  uint64_t lo = 0, hi = 0;
  friend bool operator==(const Fingerprint& a, const Fingerprint& b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
};

// Fingerprints of a sample's frames and of its labels. Every field takes
// part, string lengths included, so that ("ab", "c") and ("a", "bc")
// differ. The frames' order takes part too; the labels' does not, since a
// label set is a set (keys are unique in it): the same labels in any order
// are one label set, and one key. FingerprintFrames also stores each frame's 64-bit hash in
// frame_hashes[0, frames.size()), which finds a known frame when the stack
// as a whole is new.
Fingerprint FingerprintFrames(absl::Span<const LocationView> frames, uint64_t* frame_hashes);
inline Fingerprint FingerprintLabels(absl::Span<const LabelView> labels);

// Of a sequence of pre-interned location ids (dictionary.h).
Fingerprint FingerprintIds(absl::Span<const uint32_t> ids);

// A function's 64-bit hash, for the profile's function cache: the frame
// hash of a frame that holds only that function (no mapping, address and
// line 0, not inlined), so the odds above hold for functions too.
uint64_t HashFunction(const FunctionView& function);

// ---- Two implementations, one per process --------------------------------
// The fingerprints are computed with AES rounds where the processor has
// them (fingerprint_aes.h), else with the portable multiply-fold hash
// below. The two give different values, so a process must use one
// throughout: frame caches and stack caches keep fingerprints from one
// call to the next. The choice is made once, from the CPU, at the first
// fingerprint.
enum class FingerprintKernel : uint8_t { kPortable = 1, kAes = 2 };

// Whether this build and this processor can run `kernel`.
bool FingerprintKernelAvailable(FingerprintKernel kernel);

// For tests, which run everything under each kernel in turn: from now on,
// fingerprint with `kernel` (which must be available). Only while no
// profile, recorder or dictionary exists; the caches of one would mix the
// two kernels' values.
void SetFingerprintKernelForTesting(FingerprintKernel kernel);

namespace fingerprint_internal {
extern std::atomic<uint8_t> active_kernel;  // 0 until DetectKernel sets it
FingerprintKernel DetectKernel();
}  // namespace fingerprint_internal

inline FingerprintKernel ActiveFingerprintKernel() {
  const uint8_t kernel = fingerprint_internal::active_kernel.load(std::memory_order_relaxed);
  return kernel != 0 ? static_cast<FingerprintKernel>(kernel)
                     : fingerprint_internal::DetectKernel();
}

namespace fingerprint_internal {
Fingerprint PortableFingerprintLabels(absl::Span<const LabelView> labels);
}  // namespace fingerprint_internal

// Inline, so that a sample's few labels go straight to the kernel's loop:
// out of line, the registers of the portable loop were saved before the
// kernel was even tested.
inline Fingerprint FingerprintLabels(absl::Span<const LabelView> labels) {
#ifdef STACKREC_AES_FINGERPRINT
  if (ActiveFingerprintKernel() == FingerprintKernel::kAes) {
    Fingerprint out;
    fingerprint_aes::FingerprintLabels(labels.data(), labels.size(), &out);
    return out;
  }
#endif
  return fingerprint_internal::PortableFingerprintLabels(labels);
}

// ---- The portable kernel -----------------------------------------------------
// (Here so that it inlines into FingerprintFrameArray's loop, whatever the
// frame type; see HashFrame and FoldFrames.)
namespace fingerprint_internal {

// The multiply-fold step of wyhash: 16 bytes per 64x64->128 multiplication.
constexpr uint64_t kP0 = 0xa0761d6478bd642full, kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull, kP3 = 0x589965cc75374cc3ull;

inline uint64_t Fold(uint64_t x, uint64_t y) {
#if defined(__x86_64__)
  // GCC 12 spills both halves of an __int128 product to the stack and
  // reloads them before the xor; one mulq keeps them in rax:rdx.
  uint64_t lo, hi;
  asm("mulq %3" : "=a"(lo), "=d"(hi) : "a"(x), "rm"(y) : "cc");
  return lo ^ hi;
#else
  const unsigned __int128 product = static_cast<unsigned __int128>(x) * y;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
#endif
}

// One lane: h absorbs 16 bytes per step, under a pair of keys.
inline uint64_t Step(uint64_t h, uint64_t w0, uint64_t w1, uint64_t k0 = kP0, uint64_t k1 = kP1) {
  return Fold(w0 ^ h ^ k0, w1 ^ k1);
}

// Absorbs the bytes of `s`; its length must have been absorbed before.
// Branches only on the length's bucket (0, 1 to 3, 4 to 16, 17 to 32,
// longer), not on the length itself: the names and paths of one program
// mostly share a bucket, so the branches predict well. 4 to 16 bytes are
// read with four overlapping 4-byte loads, and a longer string ends with
// its last 16 bytes whatever the remainder, as wyhash does; the overlap is
// harmless because the length was hashed first.
inline uint64_t AbsorbBytes(uint64_t h, absl::string_view s, uint64_t k0 = kP0, uint64_t k1 = kP1) {
  const char* p = s.data();
  size_t n = s.size();
  if (n <= 16) {
    if (n >= 4) {
      const size_t q = (n >> 3) << 2;  // 0 below 8 bytes, else 4
      return Step(h, Load32(p) << 32 | Load32(p + q),
                  Load32(p + n - 4) << 32 | Load32(p + n - 4 - q), k0, k1);
    }
    if (n == 0) return h;
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return Step(h, uint64_t{u[0]} << 16 | uint64_t{u[n >> 1]} << 8 | u[n - 1], 0, k0, k1);
  }
  for (; n > 32; p += 16, n -= 16) h = Step(h, Load64(p), Load64(p + 8), k0, k1);
  // 17 to 32 bytes left: the first 16, then the last 16.
  h = Step(h, Load64(p), Load64(p + 8), k0, k1);
  return Step(h, Load64(p + n - 16), Load64(p + n - 8), k0, k1);
}

// The frame's fields go through independent chains that the CPU runs in
// parallel (one chain per string, one step per pair of integers), and are
// then folded together: a single chain through all of them would cost a
// multiplication's latency per 16 bytes. Always inlined into the caller's
// loop over frames, so that the chains of neighbouring frames overlap too.
//
// `Frame` is LocationView, or a type with the same member names whose
// strings `view` turns into string_views and `raw` into RawStrings
// (frame_strings.h; c_sample.h hashes the caller's stackrec_location this
// way, without copying it first, and checks each string as `view`
// converts it); both must give the same hash for the same frame. The
// system name is viewed only when the frame has one or a mapping, and the
// mapping's strings only when it has a mapping or a system name other than
// its name.
template <typename Frame, typename View, typename Raw>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t HashFrame(const Frame& f, View view, Raw raw) {
  const absl::string_view fn_name = view(f.function.name);
  const absl::string_view fn_filename = view(f.function.filename);
  // What every frame has. String lengths are at most 2^24 (c_checks.h), so
  // bit 63 is free for the inlined flag.
  const uint64_t ints = Fold(f.address ^ kP0, static_cast<uint64_t>(f.line) ^ kP1);
  const uint64_t lengths =
      Fold(fn_name.size() ^ uint64_t{fn_filename.size()} << 32 ^ uint64_t{f.inlined} << 63 ^ kP2,
           static_cast<uint64_t>(f.function.start_line) ^ kP3);
  // Different seeds per field, so the same text in two fields differs.
  const uint64_t name = AbsorbBytes(0x1d8e4e27c47d124full, fn_name);
  const uint64_t file = AbsorbBytes(0x2d358dccaa6c78a5ull, fn_filename);
  // Most runtimes' frames are spared two multiplications and three
  // strings' views here, and a frame without a mapping whose system name
  // is its name (a Go frame's) the multiplications and the mapping's
  // views: its `rest` is a constant of its own (fingerprint_aes.h says
  // why such a frame is worth a path).
  uint64_t rest = 0x8bb84b93962eacc9ull;
  if (HasMappingOrSystemName(f, raw)) {
    CompilerBarrier();
    const absl::string_view fn_system_name = view(f.function.system_name);
    if (!HasMapping(f, raw) && SameBytes(fn_system_name, view(f.function.name))) {
      rest = 0x3956c25bf348b538ull;
    } else {
      const absl::string_view map_filename = view(f.mapping.filename);
      const absl::string_view map_build_id = view(f.mapping.build_id);
      rest = Fold(Fold(f.mapping.memory_start ^ kP0, f.mapping.memory_limit ^ kP1) ^
                      f.mapping.file_offset ^ kP2,
                  fn_system_name.size() ^ uint64_t{map_filename.size()} << 32 ^ kP3) ^
             map_build_id.size() * kP1;
      rest =
          AbsorbBytes(AbsorbBytes(AbsorbBytes(rest, fn_system_name), map_filename), map_build_id);
    }
  }
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

// The fingerprint of `n` frames from their hashes, hash_at(i) giving
// frame i's (from HashFrame). Frame hashes are independent of each other;
// only this fold is a chain, and it takes them two at a time.
template <typename HashAt>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Fingerprint FoldFrames(size_t n, HashAt hash_at) {
  Lanes lanes;
  lanes.Add(n, 0x4b33a62ed433d4a3ull);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const uint64_t a = hash_at(i);
    lanes.Add(a, hash_at(i + 1));
  }
  if (i < n) lanes.Add(hash_at(i), 0);
  return lanes.Finish();
}

}  // namespace fingerprint_internal

// The fingerprint of frames[0, n) with the active kernel, storing each
// frame's 64-bit hash in hashes[0, n); `Frame`, `view` and `raw` as for
// HashFrame. The strings of the frame kPrefetchFrames ahead are prefetched
// (frame_strings.h). FingerprintFrames is this for LocationView; c_sample.h
// runs it on the caller's structs.
template <typename Frame, typename View, typename Raw>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Fingerprint FingerprintFrameArray(const Frame* frames, size_t n,
                                                                      View view, Raw raw,
                                                                      uint64_t* hashes) {
#ifdef STACKREC_AES_FINGERPRINT
  if (ActiveFingerprintKernel() == FingerprintKernel::kAes) {
    Fingerprint out;
    fingerprint_aes::FingerprintFrames(frames, n, view, raw, hashes, &out);
    return out;
  }
#endif
  for (size_t i = 0; i < kPrefetchFrames && i < n; ++i) PrefetchFrameStrings(frames[i], raw);
  return fingerprint_internal::FoldFrames(n, [&](size_t i) ABSL_ATTRIBUTE_ALWAYS_INLINE {
    if (i + kPrefetchFrames < n) PrefetchFrameStrings(frames[i + kPrefetchFrames], raw);
    return hashes[i] = fingerprint_internal::HashFrame(frames[i], view, raw);
  });
}

}  // namespace stackrec

#endif  // STACKREC_SRC_HASH_FINGERPRINT_H_
