// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What a serialization writes: the format, the compression and its level,
// and the OTLP resource and scope; their defaults and their checks. Plain
// data, so that the C boundary fills it and the encoders read it without
// either knowing the other.
#ifndef STACKREC_SRC_INPUT_SERIALIZE_OPTIONS_H_
#define STACKREC_SRC_INPUT_SERIALIZE_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "input/backend_names.h"
#include "input/otlp_options.h"

namespace stackrec {

enum class Compression : int { kGzip = 0, kNone = 1, kZstd = 2 };
// What a serialization writes: pprof (encode/pprof/) or an OTLP profiles
// request (encode/otlp/).
enum class Format : int { kPprof = 0, kOtlp = 1 };

// Limits on each part of one serialization, for backends that refuse big
// profiles (serialize/parts.h); 0 is no limit. With none set a
// serialization is one part, as it always was.
struct Budget {
  size_t part_bytes = 0;               // a part's bytes as returned (compressed)
  size_t part_uncompressed_bytes = 0;  // a part's message before compression
  size_t part_samples = 0;             // a part's samples (OTLP: of each sample type)
  size_t parts = 0;                    // parts in one serialization
  bool any() const {
    return part_bytes != 0 || part_uncompressed_bytes != 0 || part_samples != 0 || parts != 0;
  }
};

struct SerializeOptions {
  Compression compression = Compression::kGzip;
  int level = 0;  // 0: the compression's default
  Format format = Format::kPprof;
  OtlpOptions otlp = {};  // read by the OTLP encoder only
  Budget budget = {};
  // 0 or 1: compress on the calling thread. 2: a helper thread compresses
  // while the encoder writes (encode/compression.h).
  int compress_threads = 0;
  // The backend the output is for (input/backend_names.h), and the string
  // label keys it makes series of, as recorded.
  Target target = Target::kAny;
  std::vector<std::string> series_labels = {};
  // Not the host's: the stored values (the enabled sample types, by index)
  // one encoding writes, and only the samples with one of them non-zero;
  // empty, all. The serializer sets it to write a backend's profile types
  // apart (serialize/serialize.h).
  std::vector<uint32_t> columns = {};
};

// Whether a sample of `values` is in an output of `columns`: one of them
// is non-zero (SerializeOptions::columns; the plan, the splitter and the
// serializer all decide by this).
inline bool HasValueIn(const std::vector<uint32_t>& columns, const int64_t* values) {
  for (const uint32_t c : columns) {
    if (values[c] != 0) return true;
  }
  return false;
}

// Pyroscope allows 30 label names a series (pkg/validation/limits.go,
// max_label_names_per_series); its own take 4 and the exporter's tags the
// rest, so a host names at most this many series labels.
inline constexpr size_t kMaxSeriesLabels = 16;

// The defaults behind level 0. gzip's is zlib's fastest level, as Go's
// runtime writes pprof: profiles are mostly small varints, which the fast
// levels already shrink well, and the slower ones cost several times more.
// zstd's level 1 likewise: on the samples grouped by stack (see the
// encoder) it compresses typical profiles within 20% of level 3, in about
// half the time.
inline constexpr int kDefaultGzipLevel = 1;
inline constexpr int kDefaultZstdLevel = 1;

// Fails naming the field: "opts.compression", "opts.level", "opts.format",
// one of the OTLP options (ValidateOtlpOptions), "opts.compress_threads",
// "opts.target" or "opts.series_labels".
Status ValidateSerializeOptions(const SerializeOptions& options);

}  // namespace stackrec

#endif  // STACKREC_SRC_INPUT_SERIALIZE_OPTIONS_H_
