// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/serialize_options.h"

namespace stackrec {

namespace {

Status ValidateCompression(const SerializeOptions& options) {
  switch (options.compression) {
    case Compression::kNone:
      if (options.level != 0) {
        return Error(Code::kInvalidArgument, "opts.level is %d but compression NONE takes level 0",
                     options.level);
      }
      return OkStatus();
    case Compression::kGzip:
      if (options.level < 0 || options.level > 9) {
        return Error(Code::kInvalidArgument, "opts.level is %d; gzip takes 0 (default) or 1-9",
                     options.level);
      }
      return OkStatus();
    case Compression::kZstd:
      if (options.level < 0 || options.level > 19) {
        return Error(Code::kInvalidArgument, "opts.level is %d; zstd takes 0 (default) or 1-19",
                     options.level);
      }
      return OkStatus();
  }
  return Error(Code::kInvalidArgument, "opts.compression is %d, not a stackrec_compression value",
               static_cast<int>(options.compression));
}

Status ValidateTarget(const SerializeOptions& options) {
  if (options.target != Target::kAny && options.target != Target::kPyroscope) {
    return Error(Code::kInvalidArgument, "opts.target is %d, not a stackrec_target value",
                 static_cast<int>(options.target));
  }
  if (options.target == Target::kPyroscope && options.format != Format::kPprof) {
    return Error(Code::kInvalidArgument,
                 "opts.target PYROSCOPE takes opts.format PPROF (Pyroscope's /ingest)");
  }
  const std::vector<std::string>& labels = options.series_labels;
  if (!labels.empty() && options.target != Target::kPyroscope) {
    return Error(Code::kInvalidArgument, "opts.series_labels is for opts.target PYROSCOPE only");
  }
  if (labels.size() > kMaxSeriesLabels) {
    return Error(Code::kInvalidArgument,
                 "opts.series_labels names %zu keys, and a series takes %zu of them at most",
                 labels.size(), kMaxSeriesLabels);
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].empty()) {
      return Error(Code::kInvalidArgument, "opts.series_labels[%zu] is empty", i);
    }
    for (size_t j = 0; j < i; ++j) {
      if (PrometheusName(labels[i]) == PrometheusName(labels[j])) {
        return Error(Code::kInvalidArgument,
                     "opts.series_labels[%zu] and [%zu] are both written as the label '%s'", j, i,
                     PrometheusName(labels[i]).c_str());
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status ValidateSerializeOptions(const SerializeOptions& options) {
  STACKREC_RETURN_IF_ERROR(ValidateCompression(options));
  if (options.format != Format::kPprof && options.format != Format::kOtlp) {
    return Error(Code::kInvalidArgument, "opts.format is %d, not a stackrec_format value",
                 static_cast<int>(options.format));
  }
  STACKREC_RETURN_IF_ERROR(ValidateOtlpOptions(options.otlp));
  if (options.compress_threads < 0 || options.compress_threads > 2) {
    return Error(Code::kInvalidArgument,
                 "opts.compress_threads is %d; it takes 0 or 1 (the calling thread) or 2",
                 options.compress_threads);
  }
  return ValidateTarget(options);
}

}  // namespace stackrec
