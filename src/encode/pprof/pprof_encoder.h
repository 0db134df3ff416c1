// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes a Profile as a pprof (perftools.profiles.Profile) message, field by
// field, through protobuf's CodedOutputStream into a compressor. No
// generated message class is involved: the library registers nothing in
// protobuf's descriptor pool, and no second copy of the profile is built.
// What is written, and in which order, is the plan's (encode_plan.h).
//
// Format invariants enforced here:
//  - string_table[0] is "", and only strings something written refers to
//    are in the table;
//  - mapping, location and function ids start at 1 and are dense, and only
//    those reachable from a written sample are written;
//  - sample_type lists the enabled sample types in declaration order, and
//    each sample's values follow that order;
//  - zero scalars are omitted, as proto3 does.
#ifndef STACKREC_SRC_ENCODE_PPROF_PPROF_ENCODER_H_
#define STACKREC_SRC_ENCODE_PPROF_PPROF_ENCODER_H_

#include <cstdint>

#include "base/status.h"
#include "base/table_memory.h"
#include "encode/compression.h"
#include "encode/encode_plan.h"
#include "profile/profile.h"

namespace stackrec {

// Appends the compressed pprof of `profile` to *out; the profile covers
// [profile.start_ns(), end_ns]. `options` must be valid. `selection`
// nullptr writes every sample. *stats (all but samples_left_out) describes
// what was written.
Status EncodePprof(const Profile& profile, const SerializeOptions& options,
                   int64_t end_ns, TableString* out, EncodeStats* stats,
                   const SampleSelection* selection = nullptr);

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_PPROF_PPROF_ENCODER_H_
