// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Reads the one thing the exporter needs from an OTLP collector's answer:
// ExportProfilesServiceResponse.partial_success (field 1), whose
// rejected_profiles (1, int64) and error_message (2, string) say what the
// collector refused of an accepted request. A hand-written wire reader of
// those fields, because the library links no protobuf runtime of its own
// (the core's protobuf-lite is hidden inside libstackrec.so); every other
// field, known or not, is skipped as the wire format allows.
#ifndef STACKREC_SRC_EXPORT_OTLP_RESPONSE_H_
#define STACKREC_SRC_EXPORT_OTLP_RESPONSE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace stackrec_export {

struct PartialSuccess {
  int64_t rejected_profiles = 0;
  std::string error_message;
};

// Parses `body` (an uncompressed, binary ExportProfilesServiceResponse;
// empty is a valid message with no partial success). False if it is not a
// well-formed protobuf message.
bool ParsePartialSuccess(std::string_view body, PartialSuccess* out);

}  // namespace stackrec_export

#endif  // STACKREC_SRC_EXPORT_OTLP_RESPONSE_H_
