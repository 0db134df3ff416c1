// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "encode/encode_driver.h"

#include "encode/compression.h"

namespace stackrec {

Status EncodeProfile(const ProfileParts& parts, const SerializeOptions& options, int64_t end_ns,
                     const SampleSelection* selection, MakeFormatWriter make, TableString* out,
                     EncodeStats* stats) {
  EncodePlan plan(parts, selection, options.columns.empty() ? nullptr : &options.columns);
  const std::unique_ptr<FormatWriter> writer = make(parts, options, end_ns, &plan);
  uint64_t uncompressed_bytes = 0;
  const Status status = WriteCompressed(
      options, out, [&](google::protobuf::io::CodedOutputStream* coded) { writer->Write(coded); },
      &uncompressed_bytes);
  stats->samples_written = writer->samples_written();
  stats->locations_written = plan.locations().order().size();
  stats->functions_written = plan.functions().order().size();
  stats->mappings_written = plan.mappings().order().size();
  stats->strings_written = writer->strings_written();
  stats->uncompressed_bytes = uncompressed_bytes;
  stats->stacks_used = plan.marked_stacks().size();
  stats->label_sets_used = plan.label_sets_used();
  return status;
}

}  // namespace stackrec
