// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes a Profile as a pprof (perftools.profiles.Profile) message, field by
// field, through protobuf's CodedOutputStream into a compressor. No
// generated message class is involved: the library registers nothing in
// protobuf's descriptor pool, and no second copy of the profile is built.
//
// Format invariants enforced here:
//  - string_table[0] is "", and only strings something written refers to
//    are in the table;
//  - mapping, location and function ids start at 1 and are dense, and only
//    those reachable from a written sample are written;
//  - sample_type lists the enabled sample types in declaration order, and
//    each sample's values follow that order;
//  - zero scalars are omitted, as proto3 does.
#ifndef STACKREC_SRC_PPROF_ENCODER_H_
#define STACKREC_SRC_PPROF_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compression.h"
#include "profile.h"
#include "status.h"

namespace stackrec {

// Which samples to write, when not all of them: a subset of the
// aggregated keys plus one pseudo-sample that sums what was left out.
struct SampleSelection {
  std::vector<uint32_t> keys;  // aggregated keys to write, in this order
  bool timed = true;           // whether to write the timestamped samples
  uint32_t extra_stack = 0;    // the pseudo-sample's stack...
  std::vector<int64_t> extra_values;  // ...and values (none: no pseudo-sample)
};

// What one encoding wrote, for stackrec_encoded_stats.
struct EncodeStats {
  uint64_t samples_written = 0;  // pprof Sample messages
  uint64_t locations_written = 0, functions_written = 0, mappings_written = 0;
  uint64_t strings_written = 0;  // string_table entries, "" included
  uint64_t uncompressed_bytes = 0;  // the pprof message before compression
  uint64_t samples_left_out = 0;    // summed into "[stackrec: output limit]"
  // The profile's own stacks and label sets the written samples use (not
  // output entities: what tells a recorder how much of a profile is live).
  uint64_t stacks_used = 0, label_sets_used = 0;
};

// Appends the compressed pprof of `profile` to *out; the profile covers
// [profile.start_ns(), end_ns]. `options` must be valid. `selection`
// nullptr writes every sample. *stats (all but samples_left_out) describes
// what was written.
Status EncodePprof(const Profile& profile, const SerializeOptions& options,
                   int64_t end_ns, TableString* out, EncodeStats* stats,
                   const SampleSelection* selection = nullptr);

}  // namespace stackrec

#endif  // STACKREC_SRC_PPROF_ENCODER_H_
