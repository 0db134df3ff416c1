// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Serialize options that OTLP reads, refused by name: an unknown format,
// resource attributes with an empty, repeated or invalid key, invalid UTF-8
// anywhere. Each refusal leaves the profile or recorder exactly as it was.
// (The lengths of the new strings and of the attribute array are swept with
// every other length by c_api_lengths_test.cc.)
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

struct BadCase {
  const char* what;
  std::string message;  // a part of stackrec_last_error()
};

// Builds the bad options of case `i` into `o` (attributes kept in `attributes`).
void MakeBad(size_t i, std::vector<stackrec_attribute>* attributes, stackrec_serialize_options* o) {
  static const char kInvalid[] = "bad \xC3\x28 byte";
  *o = SerializeOptions(STACKREC_COMPRESSION_NONE, 0, STACKREC_FORMAT_OTLP);
  *attributes = {
      {S("host.name"), S("web-1")}, {S("os.type"), S("linux")}, {S("team"), S("profiling")}};
  o->resource_attributes = attributes->data();
  o->resource_attributes_len = attributes->size();
  switch (i) {
    case 0:
      o->format = static_cast<stackrec_format>(7);
      break;
    case 1:
      o->format = static_cast<stackrec_format>(-1);
      break;
    case 2:
      (*attributes)[2].key = S("");
      break;
    case 3:
      (*attributes)[2].key = S(kInvalid);
      break;
    case 4:
      (*attributes)[1].value = S(kInvalid);
      break;
    case 5:
      (*attributes)[2].key = S("host.name");
      break;
    case 6:
      o->service_name = S("checkout");
      (*attributes)[1].key = S("service.name");
      break;
    case 7:
      o->service_name = S(kInvalid);
      break;
    case 8:
      o->scope_name = S(kInvalid);
      break;
    case 9:
      o->scope_version = S("1.2");
      break;
    case 10:
      (*attributes)[0].key = stackrec_str{nullptr, 3};
      break;
    case 11:
      o->resource_attributes = nullptr;
      break;
    default:
      FAIL("no case " << i);
  }
}

const std::vector<BadCase>& BadCases() {
  static const std::vector<BadCase> cases = {
      {"an unknown format", "opts.format is 7, not a stackrec_format value"},
      {"a negative format", "opts.format is -1, not a stackrec_format value"},
      {"an empty key", "opts.resource_attributes[2].key is empty"},
      {"a key of invalid UTF-8", "opts.resource_attributes[2].key is not valid UTF-8"},
      {"a value of invalid UTF-8", "opts.resource_attributes[1].value is not valid UTF-8"},
      {"a repeated key", "opts.resource_attributes[2].key repeats opts.resource_attributes[0].key"},
      {"service.name twice", "opts.resource_attributes[1].key is \"service.name\""},
      {"a service name of invalid UTF-8", "opts.service_name is not valid UTF-8"},
      {"a scope name of invalid UTF-8", "opts.scope_name is not valid UTF-8"},
      {"a scope version without a name", "opts.scope_version is set but opts.scope_name is not"},
      {"a NULL key with a length", "opts.resource_attributes[0].key.ptr is NULL"},
      {"a NULL array with a length", "opts.resource_attributes is NULL"},
  };
  return cases;
}

std::string Snapshot(stackrec_profile* p) {
  return WithoutTimes(Decode(Serialize(p, STACKREC_COMPRESSION_NONE))).SerializeAsString();
}

}  // namespace

TEST_CASE("bad OTLP options are refused by name and change no profile") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("main", "m.rb", 1).Values({1, 2, 3}).Label("thread name", "main");
  Add(p.get(), b);
  const std::string before = Snapshot(p.get());
  for (size_t i = 0; i < BadCases().size(); ++i) {
    const BadCase& c = BadCases()[i];
    INFO(c.what);
    std::vector<stackrec_attribute> attributes;
    stackrec_serialize_options o;
    MakeBad(i, &attributes, &o);
    stackrec_encoded* out = reinterpret_cast<stackrec_encoded*>(1);
    CHECK(stackrec_profile_serialize(p.get(), &o, &out) == STACKREC_INVALID_ARGUMENT);
    CHECK(out == nullptr);
    const std::string message = stackrec_last_error();
    INFO("message: " << message);
    CHECK(message.find(c.message) != std::string::npos);
    // Checked for pprof too, though pprof writes none of them. (The first
    // two cases' format is the bad value itself, which C++ must not read
    // as a stackrec_format.)
    if (i >= 2) {
      o.format = STACKREC_FORMAT_PPROF;
      CHECK(stackrec_profile_serialize(p.get(), &o, &out) == STACKREC_INVALID_ARGUMENT);
      CHECK(std::string(stackrec_last_error()).find(c.message) != std::string::npos);
    }
  }
  CHECK(Snapshot(p.get()) == before);
}

TEST_CASE("bad OTLP options are refused by name and flip no recorder") {
  Options opts;
  auto r = NewRecorder(opts.opts);
  SampleBuilder b;
  b.Frame("main", "m.rb", 1).Values({1, 2, 3});
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  for (size_t i = 0; i < BadCases().size(); ++i) {
    const BadCase& c = BadCases()[i];
    INFO(c.what);
    std::vector<stackrec_attribute> attributes;
    stackrec_serialize_options o;
    MakeBad(i, &attributes, &o);
    stackrec_encoded* out = reinterpret_cast<stackrec_encoded*>(1);
    CHECK(stackrec_recorder_serialize(r.get(), &o, &out) == STACKREC_INVALID_ARGUMENT);
    CHECK(out == nullptr);
    CHECK(std::string(stackrec_last_error()).find(c.message) != std::string::npos);
  }
  // The sample recorded before is still there, in the next profile.
  stackrec_stats stats = {};
  REQUIRE(stackrec_recorder_stats(r.get(), &stats) == STACKREC_OK);
  CHECK(stats.serializations_ok == 0);
  CHECK(stats.serializations_failed == 0);
  const stackrec_serialize_options none = SerializeOptions(STACKREC_COMPRESSION_NONE);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), &none, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const Profile out = Decode(std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                                         stackrec_encoded_size(e)));
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 1);
}
