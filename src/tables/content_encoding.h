// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A stack's frames and a label set as one byte string each, and back: the
// form ContentBlobs interns them in. Fixed-width fields, then each string
// as its length and bytes, so equal content is equal bytes and a decoded
// view points into the bytes themselves.
#ifndef STACKREC_SRC_TABLES_CONTENT_ENCODING_H_
#define STACKREC_SRC_TABLES_CONTENT_ENCODING_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "input/sample_view.h"

namespace stackrec {

// Replaces *out with the encoding. Throws std::bad_alloc.
void EncodeFrames(absl::Span<const LocationView> frames, std::string* out);
void EncodeLabels(absl::Span<const LabelView> labels, std::string* out);
// Views into `bytes`, which must be one of the encodings above and outlive
// them. Throws std::bad_alloc.
void DecodeFrames(absl::string_view bytes, std::vector<LocationView>* out);
void DecodeLabels(absl::string_view bytes, std::vector<LabelView>* out);

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_CONTENT_ENCODING_H_
