// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The stack fingerprint of the string path computed with AVX-512 and VAES
// (AES rounds on four 16-byte lanes at once), for x86-64 processors that
// have them: the caller's frames are read as records (frame_record.h),
// not field by field. Chosen at run time like the AES kernel
// (fingerprint.h, ActiveFingerprintKernel), so the library still runs on
// any x86-64.
//
// Why: the AES kernel (fingerprint_aes.h) hashes a frame in about 92
// instructions, most of them to reach its fields one at a time: five
// loads and a test for the rare mapping fields, a branch on each string's
// length bucket, a register built from four integers. Here a frame is two
// 64-byte loads and two masked loads of its name's and file's first 32
// bytes; its strings are checked for all five at once with a few mask
// operations, and its integers need no packing.
//
// What is hashed, per frame (word numbers as in frame_record.h):
//  - ints: words 8 to 15 with the pointers (9, 11) zeroed and `inlined` in
//    word 9's place: the name's, system name's and file's lengths,
//    start_line, address, line;
//  - heads: the first 32 bytes of the name and of the file, zero-padded
//    (the lengths are among the ints, so the padding is unambiguous);
//  - only for a frame that has a mapping or a system name, or a name or
//    file longer than 32 bytes (a test of its words that it passes or
//    not whatever the stack), the rest: words 0 to 2, 4 and 6 and the
//    five strings whole, through fingerprint_aes.h's 128-bit chains.
// ints and heads each go through two AES rounds under their own per-lane
// seeds (every bit of a lane then depends on every bit of its input, as
// in fingerprint_aes.h) and are combined by xor, and the four lanes of
// each frame's hash are folded, one round each, into four chains over the
// stack; those are absorbed, two rounds each, with the frame count, into
// the 128-bit fingerprint. The seeds differ per lane, so lanes that swap
// content do not cancel.
//
// This fingerprint is a different function from the other kernels':
// fingerprint.h computes it for the profile's own views by writing them
// as records, so that a stack is found by the same fingerprint whichever
// way it arrives. Each frame's own 64-bit hash (the frame cache's key) is
// still the AES kernel's, computed only when a stack is new.
#ifndef STACKREC_SRC_FINGERPRINT_AVX512_H_
#define STACKREC_SRC_FINGERPRINT_AVX512_H_

#include <cstddef>
#include <cstdint>

#include "fingerprint_aes.h"

#ifdef STACKREC_AES_FINGERPRINT
#define STACKREC_AVX512_FINGERPRINT 1

namespace stackrec {
namespace fingerprint_avx512 {

// Whether this processor and its operating system run the kernel
// (AVX-512 F, BW and VL with their registers saved, VAES, AES-NI, SSE4.1,
// BMI2).
bool Available();

// A fingerprint in progress, so that records can be absorbed in pieces:
// the sum of the frames' terms so far, and the key of the next position.
struct State {
  alignas(64) uint64_t sum[8];
  alignas(64) uint64_t position[8];
};

void Start(State* state);
// Absorbs records[0, n) (frame_record.h's layout; read as bytes only).
// False, with the strings of that frame and the later ones not read and
// the state not to be used, if a string has a NULL pointer and a length,
// or more than kMaxStringBytes.
bool Absorb(State* state, const void* records, size_t n);
// The fingerprint of `frames` frames absorbed into `state`.
void Finish(const State& state, size_t frames, uint64_t* lo, uint64_t* hi);

}  // namespace fingerprint_avx512
}  // namespace stackrec

#endif  // STACKREC_AES_FINGERPRINT
#endif  // STACKREC_SRC_FINGERPRINT_AVX512_H_
