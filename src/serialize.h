// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// One serialization of a profile: its encoding within the profile's
// max_output_bytes, timed, with the counters stackrec_encoded_stats
// reports.
#ifndef STACKREC_SRC_SERIALIZE_H_
#define STACKREC_SRC_SERIALIZE_H_

#include <cstddef>
#include <cstdint>

#include "compression.h"
#include "pprof_encoder.h"
#include "profile.h"
#include "status.h"

namespace stackrec {

// EncodePprof, but never more than profile.options().max_output_bytes: if
// the whole profile is larger, the heaviest aggregated samples (by their
// first value) are kept and everything else is summed into one pseudo-sample
// "[stackrec: output limit]"; stats->samples_left_out counts the samples
// summed. Fails with kLimitExceeded if not even the pseudo-sample alone fits.
Status EncodePprofWithinLimit(Profile& profile, const SerializeOptions& options,
                              int64_t end_ns, TableString* out, EncodeStats* stats);

// One serialization of a profile, as stackrec_encoded_stats reports it.
struct SerializationStats {
  EncodeStats encoded;
  // The profile's counters at the time (see Profile::samples_added()).
  uint64_t samples_added = 0, samples_truncated = 0, samples_over_memory = 0;
  int64_t encode_ns = 0;  // time spent in EncodePprofWithinLimit
};

// The size of the last output, compressed or not, so that the next
// serialization can reserve its output up front. The output is a
// serialization's largest allocation, and growing it by reallocation holds
// the old and the new buffer at once (a third more at the peak for a 2 MB
// profile); a long-running profiler's outputs change slowly from one to
// the next, and gzip's and zstd's differ by a few percent.
class OutputSizes {
 public:
  // A little more than the last output like it; 0 if none yet.
  size_t Expected(Compression compression) const {
    const size_t last = last_[compression == Compression::kNone];
    return last + last / 8;
  }
  void Record(Compression compression, size_t bytes) {
    last_[compression == Compression::kNone] = bytes;
  }

 private:
  size_t last_[2] = {};  // compressed, uncompressed
};

// EncodePprofWithinLimit, timed, with the profile's counters. With `sizes`,
// *out is first given the capacity sizes->Expected() (at most the
// profile's max_output_bytes), and a successful output's size is recorded.
Status SerializeProfile(Profile& profile, const SerializeOptions& options,
                        int64_t end_ns, TableString* out, SerializationStats* stats,
                        OutputSizes* sizes = nullptr);

}  // namespace stackrec

#endif  // STACKREC_SRC_SERIALIZE_H_
