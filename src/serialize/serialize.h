// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// One serialization of a profile, whatever the format: the format's writer
// the options choose (pprof_encoder.h or otlp_encoder.h), run by the
// encoding driver (encode_driver.h), the output limit, the timing and the
// figures stackrec_encoded_stats reports. Both formats keep the same output
// limit the same way: the same samples are kept and the same pseudo-sample
// sums the others, so a profile over its limit says the same thing in
// either.
#ifndef STACKREC_SRC_SERIALIZE_SERIALIZE_H_
#define STACKREC_SRC_SERIALIZE_SERIALIZE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "base/table_memory.h"
#include "encode/encode_plan.h"
#include "input/serialize_options.h"
#include "profile/profile.h"
#include "serialize/parts.h"

namespace stackrec {

// Appends the encoding of `profile` in options.format to *out
// (EncodeProfile with that format's writer).
Status Encode(const Profile& profile, const SerializeOptions& options, int64_t end_ns,
              TableString* out, EncodeStats* stats, const SampleSelection* selection = nullptr);

// Encode, but never more than profile.options().max_output_bytes: if the
// whole profile is larger, the heaviest aggregated samples (by their first
// value) are kept and everything else is summed into one pseudo-sample
// "[stackrec: output limit]"; stats->samples_left_out counts the samples
// summed. Fails with kLimitExceeded if not even the pseudo-sample alone fits.
Status EncodeWithinLimit(Profile& profile, const SerializeOptions& options, int64_t end_ns,
                         TableString* out, EncodeStats* stats);

// One serialization of a profile, as stackrec_encoded_stats reports it.
struct SerializationStats {
  EncodeStats encoded;  // summed over the parts
  // The parts of the output, one unless a budget split it (parts.h).
  std::vector<OutputPart> parts;
  FoldReason folded_because = FoldReason::kNone;
  // The profile's counters at the time (see Profile::samples_added()).
  uint64_t samples_added = 0, samples_truncated = 0, samples_over_memory = 0;
  int64_t encode_ns = 0;  // time spent in EncodeWithinLimit
};

// The size of the last output of each format, compressed or not, so that
// the next serialization can reserve its output up front. The output is a
// serialization's largest allocation, and growing it by reallocation holds
// the old and the new buffer at once (a third more at the peak for a 2 MB
// profile); a long-running profiler's outputs change slowly from one to
// the next, and gzip's and zstd's differ by a few percent.
class OutputSizes {
 public:
  // A little more than the last output like it; 0 if none yet. The parts
  // of a split output count together, and apart from unsplit outputs:
  // their dictionaries repeat, so they take more.
  size_t Expected(Compression compression, Format format, bool split) const {
    const size_t last = last_[Index(compression, format, split)];
    return last + last / 8;
  }
  void Record(Compression compression, Format format, bool split, size_t bytes) {
    last_[Index(compression, format, split)] = bytes;
  }

 private:
  static size_t Index(Compression compression, Format format, bool split) {
    return (split ? 4 : 0) + (format == Format::kOtlp ? 2 : 0) +
           (compression == Compression::kNone ? 1 : 0);
  }
  size_t last_[8] = {};  // pprof compressed, uncompressed; OTLP likewise; then split
};

// For a backend that files a profile's sample types under profile types
// named by them (Pyroscope), the stored columns of each such type that has
// samples, to be written as outputs of their own; empty when one output
// holds them all, as for every other target.
std::vector<std::vector<uint32_t>> ProfileTypeColumns(const Profile& profile,
                                                      const SerializeOptions& options);

// EncodeWithinLimit, or EncodeInParts when options.budget sets a limit,
// timed, with the profile's counters; once for each of ProfileTypeColumns,
// all the outputs' parts one after the other. With `sizes`, *out is first given
// the capacity sizes->Expected() (at most the profile's max_output_bytes
// unless split), and a successful output's size is recorded.
Status SerializeProfile(Profile& profile, const SerializeOptions& options, int64_t end_ns,
                        TableString* out, SerializationStats* stats, OutputSizes* sizes = nullptr);

}  // namespace stackrec

#endif  // STACKREC_SRC_SERIALIZE_SERIALIZE_H_
