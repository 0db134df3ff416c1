// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "fingerprint.h"

namespace stackrec {

using fingerprint_internal::FoldFrames;
using fingerprint_internal::HashFrame;
using fingerprint_internal::Lanes;

Fingerprint FingerprintFrames(absl::Span<const LocationView> frames,
                              uint64_t* frame_hashes) {
  Fingerprint fingerprint;
  FoldFrames(
      frames.size(),
      [&](size_t i, uint64_t* hash) ABSL_ATTRIBUTE_ALWAYS_INLINE {
        *hash = frame_hashes[i] = HashFrame(frames[i], [](absl::string_view s) { return s; });
        return true;
      },
      &fingerprint);
  return fingerprint;
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
