// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "hash/fingerprint.h"

namespace stackrec {

namespace fingerprint_internal {
std::atomic<uint8_t> active_kernel{0};

FingerprintKernel DetectKernel() {
  const FingerprintKernel kernel = FingerprintKernelAvailable(FingerprintKernel::kAes)
                                       ? FingerprintKernel::kAes
                                       : FingerprintKernel::kPortable;
  // Racing first calls all store the same value.
  active_kernel.store(static_cast<uint8_t>(kernel), std::memory_order_relaxed);
  return kernel;
}
}  // namespace fingerprint_internal

bool FingerprintKernelAvailable(FingerprintKernel kernel) {
  switch (kernel) {
    case FingerprintKernel::kPortable:
      return true;
    case FingerprintKernel::kAes:
#ifdef STACKREC_AES_FINGERPRINT
      // The first fingerprint may come before main (a host's static
      // initializer), when GCC's CPU model may not be set up yet.
      __builtin_cpu_init();
      return __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1");
#else
      return false;
#endif
  }
  return false;
}

void SetFingerprintKernelForTesting(FingerprintKernel kernel) {
  fingerprint_internal::active_kernel.store(static_cast<uint8_t>(kernel),
                                            std::memory_order_relaxed);
}

namespace {

// A LocationView's strings as the frame hashes take them (fingerprint.h,
// HashFrame): already views, so the view is the string and the raw string
// its pointer and size.
constexpr auto kViewOf = [](absl::string_view s) { return s; };
constexpr auto kRawOf = [](absl::string_view s) { return RawString{s.data(), s.size()}; };

}  // namespace

Fingerprint FingerprintFrames(absl::Span<const LocationView> frames, uint64_t* frame_hashes) {
  return FingerprintFrameArray(frames.data(), frames.size(), kViewOf, kRawOf, frame_hashes);
}

uint64_t HashFunction(const FunctionView& function) {
  // The frame hash alone, without the one-frame chain FingerprintFrames
  // would fold it into and throw away: one call a new location.
  LocationView frame;
  frame.function = function;
#ifdef STACKREC_AES_FINGERPRINT
  if (ActiveFingerprintKernel() == FingerprintKernel::kAes) {
    return fingerprint_aes::FrameHash64(frame, kViewOf, kRawOf);
  }
#endif
  return fingerprint_internal::HashFrame(frame, kViewOf, kRawOf);
}

Fingerprint FingerprintIds(absl::Span<const uint32_t> ids) {
  fingerprint_internal::Lanes lanes;
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

namespace {

// A label's 64-bit hash, its fields in independent chains as in HashFrame;
// PortableFingerprintLabels takes the labels' hashes to 128 bits. Lengths
// are at most 2^24 (c_checks.h), so two share a word.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t HashLabel(const LabelView& l) {
  using fingerprint_internal::AbsorbBytes;
  using fingerprint_internal::Fold;
  using fingerprint_internal::kP0;
  using fingerprint_internal::kP1;
  using fingerprint_internal::kP2;
  using fingerprint_internal::kP3;
  const uint64_t ints =
      Fold(static_cast<uint64_t>(l.num) ^ kP0, (l.key.size() | uint64_t{l.str.size()} << 32) ^ kP1);
  const uint64_t key = AbsorbBytes(0x3c6ef372fe94f82bull, l.key);
  const uint64_t str = AbsorbBytes(0xa54ff53a5f1d36f1ull, l.str);
  // The unit's length goes into its seed (AbsorbBytes wants it absorbed).
  const uint64_t unit = AbsorbBytes(0x510e527fade682d1ull ^ l.num_unit.size(), l.num_unit);
  return Fold(key ^ ints ^ kP2, str ^ unit ^ kP3);
}

}  // namespace

// As the AES kernel's, a sum, so that the order of the labels does not
// matter: of the labels' hashes, and of a second, nonlinear function of
// each (a multiply-fold), for the second half of the 128 bits.
Fingerprint fingerprint_internal::PortableFingerprintLabels(absl::Span<const LabelView> labels) {
  using fingerprint_internal::Fold;
  using fingerprint_internal::kP0;
  using fingerprint_internal::kP3;
  uint64_t sum = 0, folded_sum = 0;
  for (const LabelView& l : labels) {
    const uint64_t h = HashLabel(l);
    sum += h;
    folded_sum += Fold(h ^ kP0, kP3);
  }
  fingerprint_internal::Lanes lanes;
  lanes.Add(labels.size(), 0x1f83d9abfb41bd6bull);
  lanes.Add(sum, folded_sum);
  return lanes.Finish();
}

}  // namespace stackrec
