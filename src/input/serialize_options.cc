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
  return OkStatus();
}

}  // namespace stackrec
