// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A strict, minimal JSON reader for the tests: it checks that Datadog's
// event.json is well-formed JSON (RFC 8259: no trailing commas, no control
// characters in strings, no duplicate keys, nothing after the value) and
// gives its fields back, so the test sees the event as the intake would.
#ifndef STACKREC_TESTKIT_RECEIVER_JSON_READER_H_
#define STACKREC_TESTKIT_RECEIVER_JSON_READER_H_

#include <string>
#include <utility>
#include <vector>

namespace stackrec_test {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool boolean = false;
  std::string text;  // a string's value, or a number as written
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;  // in order

  // The member `key` of an object; null if absent (or not an object).
  const Json* Get(const std::string& key) const;
};

// Parses `text`; false with `error` set unless it is exactly one JSON value.
bool ParseJson(const std::string& text, Json* out, std::string* error);

}  // namespace stackrec_test

#endif  // STACKREC_TESTKIT_RECEIVER_JSON_READER_H_
