// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes a profile as an OpenTelemetry profiles request (OTLP,
// opentelemetry-proto v1.11.0: collector.profiles.v1development.
// ExportProfilesServiceRequest), field by field, through CodedOutputStream
// into a compressor, as the pprof encoder does and from the same plan
// (encode_plan.h): the same samples, frames and labels.
//
// The request holds one ResourceProfiles (the resource and scope of
// otlp_options.h) with one ScopeProfiles, whose Profiles are one per
// enabled sample type, in declaration order, each with every sample of the
// plan and that type's value; and the dictionary all of them index into
// (otlp_dictionary.h). docs/format.md maps pprof's fields onto these.
// Timestamped samples of one stack and label set are one Sample, their
// timestamps and values in the order recorded.
#ifndef STACKREC_SRC_ENCODE_OTLP_OTLP_ENCODER_H_
#define STACKREC_SRC_ENCODE_OTLP_OTLP_ENCODER_H_

#include <cstdint>
#include <memory>

#include "encode/encode_driver.h"
#include "encode/encode_plan.h"
#include "encode/part_costs.h"
#include "input/serialize_options.h"
#include "profile/profile_parts.h"

namespace stackrec {

// The OTLP writer for EncodeProfile (encode_driver.h): the resource and
// scope are options.otlp's. Its samples_written counts the Samples of
// each Profile.
std::unique_ptr<FormatWriter> MakeOtlpWriter(const ProfileParts& parts,
                                             const SerializeOptions& options, int64_t end_ns,
                                             EncodePlan* plan);

// What an OTLP part spends on each thing (part_costs.h): a stack's frames
// once in the stack table, a Sample per enabled type referring to it, and
// labels as attributes, each once in the attribute table.
inline PartCostModel OtlpCostModel(size_t enabled_types) {
  PartCostModel model;
  model.frames_in_samples = false;
  model.messages_per_sample = static_cast<uint32_t>(enabled_types);
  model.sample_label = 2;
  model.new_label = 12;
  return model;
}

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_OTLP_OTLP_ENCODER_H_
