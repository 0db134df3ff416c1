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
// table lookups (tens of ns each, hundreds per sample).
//
// Identical fingerprints are taken to mean identical content. Each frame is
// reduced to a 64-bit hash, and the frame hashes to 128 bits, so the odds of
// a wrong match are those of two distinct frames sharing a 64-bit hash: for
// F distinct frames in one profile about F^2 / 2^65, i.e. 3e-10 for 100,000
// frames. A label set is hashed to 128 bits directly.
#ifndef STACKREC_SRC_FINGERPRINT_H_
#define STACKREC_SRC_FINGERPRINT_H_

#include <cstdint>
#include <utility>

#include "absl/types/span.h"
#include "sample_view.h"

namespace stackrec {

struct Fingerprint {
  uint64_t lo = 0, hi = 0;
  friend bool operator==(const Fingerprint& a, const Fingerprint& b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Fingerprint& f) {
    return H::combine(std::move(h), f.lo);  // already well mixed
  }
};

// Fingerprints of a sample's frames and of its labels. Every field takes
// part, string lengths included, so that ("ab", "c") and ("a", "bc")
// differ. FingerprintFrames also stores each frame's 64-bit hash in
// frame_hashes[0, frames.size()), which finds a known frame when the stack
// as a whole is new.
Fingerprint FingerprintFrames(absl::Span<const LocationView> frames,
                              uint64_t* frame_hashes);
Fingerprint FingerprintLabels(absl::Span<const LabelView> labels);

// Of a sequence of pre-interned location ids (dictionary.h).
Fingerprint FingerprintIds(absl::Span<const uint32_t> ids);

}  // namespace stackrec

#endif  // STACKREC_SRC_FINGERPRINT_H_
