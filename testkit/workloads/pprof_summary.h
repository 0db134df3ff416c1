// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the workload benchmark checks of every encoder's output, so that it
// cannot silently measure a broken one: the bytes are decompressed and
// parsed with the classes generated from testkit/pprof/profile.proto, and reduced to
// a few numbers that two correct encoders of the same samples must agree on,
// whatever ids and orders each chose.
#ifndef STACKREC_WORKLOADS_PPROF_SUMMARY_H_
#define STACKREC_WORKLOADS_PPROF_SUMMARY_H_

#include <cstddef>
#include <cstdint>

namespace stackrec_bench {

// Trivially copyable: children send it to the parent through a pipe.
struct PprofSummary {
  bool ok;
  char error[160];
  uint64_t samples;
  // Sum of each sample type's values, in the profile's sample_type order.
  int64_t totals[8];
  uint64_t sample_types;
  // Samples that carry the string label "trace endpoint".
  uint64_t endpoint_labels;
  // Functions; of them, those with a system name, and those whose system
  // name is set but is not their name.
  uint64_t functions;
  uint64_t functions_with_system_name;
  uint64_t system_names_not_name;
  // An order-independent digest of the content: the sample types, and for
  // every sample its frames (by name, system name, file, start line, line,
  // address and mapping, not by id), its labels (as a set, by their strings
  // and numbers) and its values. Equal profiles give equal digests; two
  // samples left unaggregated give a different one than their sum would.
  uint64_t digest;
};

// Decompresses `data` (gzip, zstd or none, by its magic bytes), parses it as
// a perftools.profiles.Profile and summarizes it. On failure, ok is false
// and error says why.
PprofSummary Summarize(const uint8_t* data, size_t size);

}  // namespace stackrec_bench

#endif  // STACKREC_WORKLOADS_PPROF_SUMMARY_H_
