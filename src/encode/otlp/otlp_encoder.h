// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Writes a Profile as an OpenTelemetry profiles request (OTLP,
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

#include "base/status.h"
#include "base/table_memory.h"
#include "encode/compression.h"
#include "encode/encode_plan.h"
#include "profile/profile.h"

namespace stackrec {

// Appends the compressed OTLP request of `profile` to *out; the profile
// covers [profile.start_ns(), end_ns]. `options` must be valid. `selection`
// nullptr writes every sample. *stats (all but samples_left_out) describes
// what was written; samples_written counts the Samples of each Profile.
Status EncodeOtlp(const Profile& profile, const SerializeOptions& options, int64_t end_ns,
                  TableString* out, EncodeStats* stats,
                  const SampleSelection* selection = nullptr);

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_OTLP_OTLP_ENCODER_H_
