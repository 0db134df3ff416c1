// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes a profile as a pprof (perftools.profiles.Profile) message, field by
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
#include <memory>

#include "encode/encode_driver.h"
#include "encode/encode_plan.h"
#include "encode/part_costs.h"
#include "input/serialize_options.h"
#include "profile/profile_parts.h"

namespace stackrec {

// The pprof writer for EncodeProfile (encode_driver.h); the options are
// not read here: compression is the driver's.
std::unique_ptr<FormatWriter> MakePprofWriter(const ProfileParts& parts,
                                              const SerializeOptions& options, int64_t end_ns,
                                              EncodePlan* plan);

// What a pprof part spends on each thing (part_costs.h): a sample lists
// its frames' location ids and carries its labels.
inline PartCostModel PprofCostModel() {
  PartCostModel model;
  model.frames_in_samples = true;
  model.messages_per_sample = 1;
  return model;
}

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_PPROF_PPROF_ENCODER_H_
