// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the header's opaque handles are, and Guard(), which every exported
// function runs its body in: shared by c_api.cc and c_api_ids.cc.
#ifndef STACKREC_SRC_CAPI_C_HANDLES_H_
#define STACKREC_SRC_CAPI_C_HANDLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/guard.h"
#include "base/status.h"
#include "base/table_memory.h"
#include "profile/dictionary.h"
#include "profile/profile.h"
#include "recorder/recorder.h"
#include "serialize/serialize.h"
#include "stackrec/stackrec.h"

struct stackrec_profile {
  std::unique_ptr<stackrec::Profile> impl;
  // Pre-interned ids; created by the first call that needs it.
  std::unique_ptr<stackrec::Dictionary> dict;
  stackrec::OutputSizes output_sizes;  // of this handle's serializations
};

struct stackrec_recorder {
  std::unique_ptr<stackrec::Recorder> impl;
};

struct stackrec_encoded {
  stackrec::TableString bytes;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<std::pair<std::string, int64_t>> endpoint_counts;
  stackrec::SerializationStats stats;
  // What the output is (stackrec_encoded_format and the calls after it).
  stackrec_format format = STACKREC_FORMAT_PPROF;
  stackrec_target target = STACKREC_TARGET_ANY;
  stackrec_compression compression = STACKREC_COMPRESSION_GZIP;
  std::vector<std::pair<std::string, std::string>> sample_types;  // as written
};

namespace stackrec {

inline stackrec_status ToC(Status s) { return static_cast<stackrec_status>(s.code()); }

// Runs `body` in base/'s guard, which reports an exception's message into
// this thread's error buffer: the core reports bad input through Status and
// throws only std::bad_alloc, but nothing may unwind into C.
template <typename F>
stackrec_status Guard(F&& body) noexcept {
  return ToC(GuardedCall(
      [](Code code, const char* message) {
        SetLastErrorMessage(message);
        return Status(code);
      },
      body));
}

// The profile's dictionary, created on first use.
inline Dictionary& DictionaryOf(stackrec_profile* profile) {
  if (profile->dict == nullptr) {
    profile->dict = std::make_unique<Dictionary>(profile->impl->options().max_frames);
  }
  return *profile->dict;
}

}  // namespace stackrec

#endif  // STACKREC_SRC_CAPI_C_HANDLES_H_
