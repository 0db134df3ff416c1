// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A serialization for a backend (stackrec_serialize_options.target): the
// sample and period types under Pyroscope's names, the string labels it
// would make series of kept only when the host names them, with their keys
// as label names, span_id kept and trace_id left out, numeric labels and
// values untouched; the profile keeps its own names for the next
// serialization, and the encoded profile says what it holds. Refusals are
// in bad_input/bad_input_test.cc.
#include <algorithm>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "oracle/pprof_decode.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

const stackrec_value_type kTypes[] = {
    {S("cpu-time"), S("nanoseconds")},        {S("wall-time"), S("nanoseconds")},
    {S("alloc-samples"), S("count")},         {S("heap-live-size"), S("bytes")},
    {S("queue wait-time"), S("nanoseconds")},
};

stackrec_profile_options TypesOptions() {
  stackrec_profile_options o{};
  o.sample_types = kTypes;
  o.sample_types_len = 5;
  o.period_type = {S("wall-time"), S("nanoseconds")};
  o.period = 10000000;
  o.default_sample_type = S("cpu-time");
  return o;
}

void AddLabelled(stackrec_profile* p) {
  stackrec_link link{};
  for (size_t i = 0; i < sizeof link.trace_id; ++i) link.trace_id[i] = uint8_t(1 + i);
  for (size_t i = 0; i < sizeof link.span_id; ++i) link.span_id[i] = uint8_t(0xa0 + i);
  SampleBuilder b;
  b.Frame("Users#show", "app/users.rb", 42)
      .Frame("<main>")
      .Values({10, 20, 1, 64, 5})
      .NumLabel("thread id", 7)
      .Label("thread name", "puma 001")
      .Label("request path", "/users/123")
      .NumLabel("local root span id", 99)
      .Link(link);
  Add(p, b);
}

std::string Encode(stackrec_profile* p, const stackrec_serialize_options& o, EncodedPtr* keep) {
  stackrec_encoded* e = nullptr;
  INFO(stackrec_last_error());
  REQUIRE(stackrec_profile_serialize(p, &o, &e) == STACKREC_OK);
  keep->reset(e);
  return std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                     stackrec_encoded_size(e));
}

bool HasString(const Profile& p, const std::string& s) {
  return std::find(p.string_table().begin(), p.string_table().end(), s) != p.string_table().end();
}

}  // namespace

// The parts of `e`, decoded.
std::vector<Profile> Parts(const stackrec_encoded* e) {
  std::vector<Profile> parts;
  for (size_t i = 0; i < stackrec_encoded_parts_len(e); ++i) {
    stackrec_part part{};
    REQUIRE(stackrec_encoded_part(e, i, &part) == STACKREC_OK);
    parts.push_back(Decode(part.data, part.size));
    CheckInvariants(parts.back());
  }
  return parts;
}

TEST_CASE(
    "a Pyroscope serialization writes Pyroscope's type names and only the series it is told") {
  ProfilePtr p = NewProfile(TypesOptions());
  AddLabelled(p.get());
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 99, S("GET /users/:id")) == STACKREC_OK);
  stackrec_serialize_options o = SerializeOptions(STACKREC_COMPRESSION_NONE);
  o.target = STACKREC_TARGET_PYROSCOPE;
  const stackrec_str series[] = {S("thread name"), S("trace endpoint")};
  o.series_labels = series;
  o.series_labels_len = 2;
  EncodedPtr encoded;
  Encode(p.get(), o, &encoded);

  // One pprof a profile type Pyroscope names by its sample types: CPU,
  // wall, memory, and the type it knows no family for.
  const std::vector<Profile> parts = Parts(encoded.get());
  REQUIRE(parts.size() == 4);
  const std::vector<std::vector<std::string>> types = {{"cpu/nanoseconds"},
                                                       {"wall/nanoseconds"},
                                                       {"alloc_objects/count", "inuse_space/bytes"},
                                                       {"queue_wait_time/nanoseconds"}};
  const std::vector<std::vector<int64_t>> values = {{10}, {20}, {1, 64}, {5}};
  for (size_t i = 0; i < parts.size(); ++i) {
    INFO("part " << i);
    const Profile& out = parts[i];
    CHECK(SampleTypes(out) == types[i]);
    CHECK(Str(out, out.period_type().type()) == "wall");
    CHECK(Str(out, out.period_type().unit()) == "nanoseconds");
    CHECK(out.period() == 10000000);
    // The default, "cpu", is named only where it is a type.
    CHECK(Str(out, out.default_sample_type()) == (i == 0 ? "cpu" : ""));
    for (const char* gone : {"cpu-time", "wall-time", "thread name", "request path", "/users/123",
                             "trace_id", "trace endpoint"}) {
      INFO(gone);
      CHECK_FALSE(HasString(out, gone));
    }
    REQUIRE(out.sample_size() == 1);
    const Sample& s = out.sample(0);
    CHECK(FrameNames(out, s) == std::vector<std::string>{"Users#show", "<main>"});
    CHECK(std::vector<int64_t>(s.value().begin(), s.value().end()) == values[i]);
    std::vector<std::string> labels = LabelStrings(out, s);
    std::sort(labels.begin(), labels.end());
    CHECK(labels == std::vector<std::string>{"local root span id=99", "span_id=a0a1a2a3a4a5a6a7",
                                             "thread id=7", "thread_name=puma 001",
                                             "trace_endpoint=GET /users/:id"});
  }

  // What the encoded profile says of itself, for an exporter.
  CHECK(stackrec_encoded_format(encoded.get()) == STACKREC_FORMAT_PPROF);
  CHECK(stackrec_encoded_target(encoded.get()) == STACKREC_TARGET_PYROSCOPE);
  CHECK(stackrec_encoded_compression(encoded.get()) == STACKREC_COMPRESSION_NONE);
  REQUIRE(stackrec_encoded_sample_types_len(encoded.get()) == 5);
  stackrec_str type{}, unit{};
  REQUIRE(stackrec_encoded_sample_type(encoded.get(), 3, &type, &unit) == STACKREC_OK);
  CHECK(std::string(type.ptr, type.len) == "inuse_space");
  CHECK(std::string(unit.ptr, unit.len) == "bytes");
  CHECK(stackrec_encoded_sample_type(encoded.get(), 5, &type, &unit) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "index 5 is past the 5 sample types");
}

TEST_CASE("a Pyroscope profile type with nothing recorded gets no part, and a budget splits each") {
  ProfilePtr p = NewProfile(TypesOptions());
  for (int i = 0; i < 30; ++i) {  // CPU and wall only: memory and queue wait stay 0
    SampleBuilder b;
    b.Frame("f" + std::to_string(i)).Values({i + 1, 2 * i + 1, 0, 0, 0});
    Add(p.get(), b);
  }
  stackrec_serialize_options o = SerializeOptions(STACKREC_COMPRESSION_GZIP);
  o.target = STACKREC_TARGET_PYROSCOPE;
  o.part_max_samples = 10;
  EncodedPtr encoded;
  Encode(p.get(), o, &encoded);
  const std::vector<Profile> parts = Parts(encoded.get());
  REQUIRE(parts.size() == 6);  // 30 samples in parts of 10, for CPU, then for wall
  int64_t cpu = 0, wall = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    INFO("part " << i);
    CHECK(parts[i].sample_size() == 10);
    CHECK(SampleTypes(parts[i]) ==
          std::vector<std::string>{i < 3 ? "cpu/nanoseconds" : "wall/nanoseconds"});
    for (const Sample& s : parts[i].sample()) (i < 3 ? cpu : wall) += s.value(0);
  }
  CHECK(cpu == 465);   // 1 + 2 + ... + 30
  CHECK(wall == 900);  // 1 + 3 + ... + 59
  stackrec_encode_stats stats{};
  REQUIRE(stackrec_encoded_stats(encoded.get(), &stats) == STACKREC_OK);
  CHECK(stats.parts == 6);
  CHECK(stats.samples_written == 60);
}

TEST_CASE("a Pyroscope serialization without series labels keeps span_id and no string label") {
  ProfilePtr p = NewProfile(TypesOptions());
  AddLabelled(p.get());
  stackrec_serialize_options o = SerializeOptions(STACKREC_COMPRESSION_GZIP);
  o.target = STACKREC_TARGET_PYROSCOPE;
  EncodedPtr encoded;
  const Profile out = Decode(Encode(p.get(), o, &encoded));
  CheckInvariants(out);
  REQUIRE(out.sample_size() == 1);
  std::vector<std::string> labels = LabelStrings(out, out.sample(0));
  std::sort(labels.begin(), labels.end());
  CHECK(labels == std::vector<std::string>{"local root span id=99", "span_id=a0a1a2a3a4a5a6a7",
                                           "thread id=7"});
}

TEST_CASE("the profile keeps its own names after a Pyroscope serialization") {
  ProfilePtr p = NewProfile(TypesOptions());
  AddLabelled(p.get());
  const stackrec_serialize_options plain = SerializeOptions(STACKREC_COMPRESSION_NONE);
  const std::string before = Serialize(p.get(), plain);
  stackrec_serialize_options o = plain;
  o.target = STACKREC_TARGET_PYROSCOPE;
  EncodedPtr encoded;
  Encode(p.get(), o, &encoded);
  EncodedPtr again;
  const Profile after = Decode(Encode(p.get(), plain, &again));
  CHECK(WithoutTimes(after).SerializeAsString() ==
        WithoutTimes(Decode(before)).SerializeAsString());
  CHECK(SampleTypes(after)[0] == "cpu-time/nanoseconds");
  CHECK(stackrec_encoded_target(again.get()) == STACKREC_TARGET_ANY);
  stackrec_str type{}, unit{};
  REQUIRE(stackrec_encoded_sample_type(again.get(), 0, &type, &unit) == STACKREC_OK);
  CHECK(std::string(type.ptr, type.len) == "cpu-time");
}

TEST_CASE("a recorder serializes for Pyroscope, and a name already in the profile is reused") {
  stackrec_profile_options opts = TypesOptions();
  RecorderPtr r = NewRecorder(opts);
  SampleBuilder b;
  // "cpu" is already a string of the profile: the sample type reuses it.
  b.Frame("cpu").Values({1, 2, 3, 4, 5}).Label("thread name", "main");
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  stackrec_serialize_options o = SerializeOptions(STACKREC_COMPRESSION_ZSTD);
  o.target = STACKREC_TARGET_PYROSCOPE;
  const stackrec_str series[] = {S("thread name")};
  o.series_labels = series;
  o.series_labels_len = 1;
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), &o, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  CheckInvariants(out);
  CHECK(std::count(out.string_table().begin(), out.string_table().end(), "cpu") == 1);
  CHECK(SampleTypes(out)[0] == "cpu/nanoseconds");
  REQUIRE(out.sample_size() == 1);
  CHECK(StrLabel(out, out.sample(0), "thread_name") == "main");
  CHECK(stackrec_encoded_compression(e) == STACKREC_COMPRESSION_ZSTD);
}
