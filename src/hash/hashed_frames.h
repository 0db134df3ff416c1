// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the C boundary hands a profile for a sample given by content: the
// stack's fingerprint and its frames' hashes, computed once while the
// caller's structs were read, and the frames themselves as views on demand.
// It sits beside the fingerprints it carries, one floor above the sample
// view, so that the boundary and the profile share it without either
// including the other.
#ifndef STACKREC_SRC_HASH_HASHED_FRAMES_H_
#define STACKREC_SRC_HASH_HASHED_FRAMES_H_

#include <cstddef>
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "base/status.h"
#include "hash/fingerprint.h"
#include "input/sample_view.h"

namespace stackrec {

// A sample's frames given by their count, fingerprint and hashes (what
// FingerprintFrames gives for their views), and converted into views only
// as the profile asks: one that already holds the stack needs no more, and
// one that does not interns it with the hashes given (see Profile::Add),
// converting only the frames it does not know, one at a time (`frame`).
// Every string of every frame was checked by the pass that hashed them.
struct HashedFrames {
  Fingerprint fingerprint;
  const uint64_t* frame_hashes;  // `count` of them
  size_t count;
  // All of the frames as views (errors name the frame's field).
  absl::FunctionRef<Status(absl::Span<const LocationView>*)> load;
  // Frame i (< count) as a view.
  FrameAt frame;
  // Whether some frame is marked inlined: its stack is then loaded whole,
  // for CheckInlining to compare each such frame with the next.
  absl::FunctionRef<bool()> any_inlined;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_HASH_HASHED_FRAMES_H_
