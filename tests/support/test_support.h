// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Helpers for driving the C API from tests: owning handles, and a sample
// builder that keeps the strings its stackrec_str views point into alive.
#ifndef STACKREC_TESTS_SUPPORT_TEST_SUPPORT_H_
#define STACKREC_TESTS_SUPPORT_TEST_SUPPORT_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "oracle/pprof_decode.h"
#include "stackrec/stackrec.h"

namespace stackrec_test {

struct ProfileDeleter {
  void operator()(stackrec_profile* p) const { stackrec_profile_free(p); }
};
struct EncodedDeleter {
  void operator()(stackrec_encoded* e) const { stackrec_encoded_free(e); }
};
struct RecorderDeleter {
  void operator()(stackrec_recorder* r) const { stackrec_recorder_free(r); }
};
using ProfilePtr = std::unique_ptr<stackrec_profile, ProfileDeleter>;
using EncodedPtr = std::unique_ptr<stackrec_encoded, EncodedDeleter>;
using RecorderPtr = std::unique_ptr<stackrec_recorder, RecorderDeleter>;

inline stackrec_str S(const char* s) { return stackrec_str{s, std::char_traits<char>::length(s)}; }
inline stackrec_str S(const std::string& s) { return stackrec_str{s.data(), s.size()}; }

// The sample types most tests use: cpu-time/nanoseconds, cpu-samples/count,
// wall-time/nanoseconds.
struct Options {
  std::vector<stackrec_value_type> types;
  stackrec_profile_options opts{};
  Options();
  explicit Options(size_t n);  // the first n of the three above
};

// Creates a profile (a recorder), failing the test on error.
ProfilePtr NewProfile(const stackrec_profile_options& opts);
ProfilePtr NewProfile();  // Options()
RecorderPtr NewRecorder(const stackrec_profile_options& opts);

class SampleBuilder {
 public:
  // A frame with a function name, a file and a line; mapping and address 0.
  SampleBuilder& Frame(const std::string& name, const std::string& file = "", int64_t line = 0);
  // A full location (strings are copied into the builder).
  SampleBuilder& Location(const stackrec_location& loc);
  SampleBuilder& Values(std::vector<int64_t> v);
  SampleBuilder& Label(const std::string& key, const std::string& str);
  SampleBuilder& NumLabel(const std::string& key, int64_t num, const std::string& unit = "");
  SampleBuilder& Timestamp(int64_t ns);
  SampleBuilder& Link(const stackrec_link& link);  // copied into the builder
  // The C view; valid while the builder lives and is not modified.
  const stackrec_sample& Get();

 private:
  stackrec_str Keep(const std::string& s);
  stackrec_str Keep(stackrec_str s);
  std::deque<std::string> strings_;
  std::vector<stackrec_location> locations_;
  std::vector<int64_t> values_;
  std::vector<stackrec_label> labels_;
  stackrec_link link_{};
  bool has_link_ = false;
  stackrec_sample sample_{};
};

// Adds, failing the test with stackrec_last_error() on error.
void Add(stackrec_profile* p, SampleBuilder& b);

// Serialize options of a compression and level, the rest zero (pprof).
stackrec_serialize_options SerializeOptions(stackrec_compression c, int level = 0,
                                            stackrec_format format = STACKREC_FORMAT_PPROF);

// Serializes and returns the bytes, failing the test on error.
std::string Serialize(stackrec_profile* p, stackrec_compression c = STACKREC_COMPRESSION_GZIP,
                      int level = 0);
// The same with any options.
std::string Serialize(stackrec_profile* p, const stackrec_serialize_options& o);
inline Profile SerializeAndDecode(stackrec_profile* p,
                                  stackrec_compression c = STACKREC_COMPRESSION_GZIP) {
  Profile out = Decode(Serialize(p, c));
  CheckInvariants(out);
  return out;
}

// The decoded content without the two fields that depend on the clock.
Profile WithoutTimes(Profile p);

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_SUPPORT_TEST_SUPPORT_H_
