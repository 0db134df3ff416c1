// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The one way an encoding runs, whatever the format: build the plan of what
// to write (encode_plan.h), let the format's writer mark and number what it
// writes of it, stream the writer's message through the compressor
// (compression.h), and fill the figures stackrec_encoded_stats reports. A
// format (pprof_encoder.h, otlp_encoder.h) is only its writer, so the two
// cannot drift apart on how an encoding is run or counted; serialize.h
// chooses which one runs.
#ifndef STACKREC_SRC_ENCODE_ENCODE_DRIVER_H_
#define STACKREC_SRC_ENCODE_ENCODE_DRIVER_H_

#include <cstdint>
#include <memory>

#include "base/status.h"
#include "base/table_memory.h"
#include "encode/encode_plan.h"
#include "google/protobuf/io/coded_stream.h"
#include "input/serialize_options.h"
#include "profile/profile_parts.h"

namespace stackrec {

// A format's writer, made over a plan that it has marked and numbered.
class FormatWriter {
 public:
  virtual ~FormatWriter() = default;
  // Writes the whole message. Called once.
  virtual void Write(google::protobuf::io::CodedOutputStream* out) const = 0;
  // What Write writes that the plan does not count: Sample messages (OTLP:
  // of each Profile), and string table entries ("" included).
  virtual uint64_t samples_written() const = 0;
  virtual uint64_t strings_written() const = 0;
};

// Makes a format's writer for the profile of `parts`, covering
// [parts.start_ns, end_ns], over `plan` (which must outlive it): it marks
// the plan (EncodePlan::Mark) and numbers what it writes, ready to Write.
using MakeFormatWriter = std::unique_ptr<FormatWriter> (*)(const ProfileParts& parts,
                                                           const SerializeOptions& options,
                                                           int64_t end_ns, EncodePlan* plan);

// Appends the compressed encoding of the profile of `parts` in the format
// `make` writes to *out; the profile covers [parts.start_ns, end_ns].
// `options` must be valid. `selection` nullptr writes every sample. *stats
// (all but samples_left_out) describes what was written.
Status EncodeProfile(const ProfileParts& parts, const SerializeOptions& options, int64_t end_ns,
                     const SampleSelection* selection, MakeFormatWriter make, TableString* out,
                     EncodeStats* stats);

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_ENCODE_DRIVER_H_
