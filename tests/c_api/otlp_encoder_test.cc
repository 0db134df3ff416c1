// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The OTLP we write, field by field, decoded with the classes generated from
// our copy of opentelemetry-proto v1.11.0; and the same profile's pprof and
// OTLP compared through the spec-based converter (otlp_decode.h).
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "oracle/otlp_conformance.h"
#include "oracle/otlp_decode.h"
#include "support/canonical.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

using opentelemetry::proto::common::v1::AnyValue;

stackrec_serialize_options Otlp(stackrec_compression c = STACKREC_COMPRESSION_NONE) {
  return SerializeOptions(c, 0, STACKREC_FORMAT_OTLP);
}

OtlpRequest SerializeOtlp(stackrec_profile* p, const stackrec_serialize_options& o = Otlp()) {
  const OtlpRequest r = DecodeOtlp(Serialize(p, o));
  CheckOtlpInvariants(r);
  return r;
}

const otlp::ScopeProfiles& Scope(const OtlpRequest& r) {
  return r.resource_profiles(0).scope_profiles(0);
}

std::string OStr(const OtlpRequest& r, int32_t index) {
  REQUIRE(index >= 0);
  REQUIRE(index < r.dictionary().string_table_size());
  return r.dictionary().string_table(index);
}

// A sample's frames, leaf first: each location's lines callee first, as
// "function:line" ("" for a location without lines).
Strings Frames(const OtlpRequest& r, const otlp::Sample& s) {
  const otlp::ProfilesDictionary& d = r.dictionary();
  Strings out;
  for (int32_t loc : d.stack_table(s.stack_index()).location_indices()) {
    const otlp::Location& l = d.location_table(loc);
    if (l.lines_size() == 0) out.emplace_back();
    for (const otlp::Line& line : l.lines()) {
      out.push_back(OStr(r, d.function_table(line.function_index()).name_strindex()) + ":" +
                    std::to_string(line.line()));
    }
  }
  return out;
}

// An attribute of the dictionary as "key=value", "key=num[unit]" or
// "key=true".
std::string Attr(const OtlpRequest& r, int32_t index) {
  const otlp::KeyValueAndUnit& a = r.dictionary().attribute_table(index);
  std::string text = OStr(r, a.key_strindex()) + "=";
  switch (a.value().value_case()) {
    case AnyValue::kStringValue:
      text += a.value().string_value();
      break;
    case AnyValue::kIntValue:
      text += std::to_string(a.value().int_value());
      break;
    case AnyValue::kBoolValue:
      text += a.value().bool_value() ? "true" : "false";
      break;
    default:
      FAIL("value case " << a.value().value_case());
  }
  if (a.unit_strindex() != 0) text += "[" + OStr(r, a.unit_strindex()) + "]";
  return text;
}

template <typename Indices>
Strings Attrs(const OtlpRequest& r, const Indices& indices) {
  Strings out;
  for (int32_t i : indices) out.push_back(Attr(r, i));
  return out;
}

// The one sample of profile `t` with these frames.
const otlp::Sample& SampleWithFrames(const OtlpRequest& r, int t, const Strings& frames) {
  const otlp::Sample* found = nullptr;
  for (const otlp::Sample& s : Scope(r).profiles(t).samples()) {
    if (Frames(r, s) != frames) continue;
    REQUIRE(found == nullptr);
    found = &s;
  }
  REQUIRE(found != nullptr);
  return *found;
}

}  // namespace

TEST_CASE("OTLP has one Profile per enabled sample type, sharing one dictionary") {
  Options o;
  const bool enabled[] = {true, false, true};
  o.opts.sample_types_enabled = enabled;
  auto p = NewProfile(o.opts);
  SampleBuilder a, b;
  a.Frame("leaf", "a.rb", 3).Frame("main", "a.rb", 1).Values({10, 1, 30});
  b.Frame("main", "a.rb", 1).Values({0, 1, 7});
  Add(p.get(), a);
  Add(p.get(), b);
  const OtlpRequest r = SerializeOtlp(p.get());
  REQUIRE(Scope(r).profiles_size() == 2);
  const otlp::Profile& cpu = Scope(r).profiles(0);
  const otlp::Profile& wall = Scope(r).profiles(1);
  CHECK(OStr(r, cpu.sample_type().type_strindex()) == "cpu-time");
  CHECK(OStr(r, cpu.sample_type().unit_strindex()) == "nanoseconds");
  CHECK(OStr(r, wall.sample_type().type_strindex()) == "wall-time");
  // Every sample in every Profile, a zero value included.
  REQUIRE(cpu.samples_size() == 2);
  REQUIRE(wall.samples_size() == 2);
  const otlp::Sample& leaf = SampleWithFrames(r, 0, {"leaf:3", "main:1"});
  CHECK(std::vector<int64_t>(leaf.values().begin(), leaf.values().end()) ==
        std::vector<int64_t>{10});
  CHECK(SampleWithFrames(r, 0, {"main:1"}).values(0) == 0);
  CHECK(SampleWithFrames(r, 1, {"leaf:3", "main:1"}).values(0) == 30);
  CHECK(SampleWithFrames(r, 1, {"main:1"}).values(0) == 7);
  CHECK(leaf.timestamps_unix_nano_size() == 0);
  // One dictionary: 2 locations, 2 functions, no mapping, the zero entries.
  const otlp::ProfilesDictionary& d = r.dictionary();
  CHECK(d.location_table_size() == 3);
  CHECK(d.function_table_size() == 3);
  CHECK(d.mapping_table_size() == 1);
  CHECK(d.stack_table_size() == 3);
  CHECK(d.string_table(1) == "cpu-time");
  CHECK(d.string_table(2) == "nanoseconds");
}

TEST_CASE("a stack is written once however many samples and sample types use it") {
  auto p = NewProfile();
  for (int thread = 0; thread < 5; ++thread) {
    SampleBuilder b;
    b.Frame("work", "w.rb", 9).Frame("main", "w.rb", 1).Values({1, 1, 1});
    b.NumLabel("thread id", thread);
    Add(p.get(), b);
  }
  const OtlpRequest r = SerializeOtlp(p.get());
  REQUIRE(r.dictionary().stack_table_size() == 2);
  const auto& indices = r.dictionary().stack_table(1).location_indices();
  CHECK(indices.size() == 2);
  for (const otlp::Profile& prof : Scope(r).profiles()) {
    REQUIRE(prof.samples_size() == 5);
    for (const otlp::Sample& s : prof.samples()) CHECK(s.stack_index() == 1);
  }
}

TEST_CASE("a sample without frames has the empty stack, stack_table[0]") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Values({4, 1, 4});
  Add(p.get(), b);
  const OtlpRequest r = SerializeOtlp(p.get());
  CHECK(r.dictionary().stack_table_size() == 1);
  REQUIRE(Scope(r).profiles(0).samples_size() == 1);
  CHECK(Scope(r).profiles(0).samples(0).stack_index() == 0);
  CHECK(Scope(r).profiles(0).samples(0).values(0) == 4);
}

TEST_CASE("labels become attributes: strings, ints with their unit, the trace endpoint first") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("main").Values({1, 1, 1});
  b.Label("thread name", "worker 1").NumLabel("local root span id", 42);
  b.NumLabel("allocated", 64, "bytes").NumLabel("zero", 0);
  Add(p.get(), b);
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 42, S("GET /users")) == STACKREC_OK);
  const OtlpRequest r = SerializeOtlp(p.get());
  const otlp::Sample& s = SampleWithFrames(r, 0, {"main:0"});
  CHECK(Attrs(r, s.attribute_indices()) == Strings{"trace endpoint=GET /users",
                                                   "thread name=worker 1", "local root span id=42",
                                                   "allocated=64[bytes]", "zero=0"});
  // Key and unit are string-table indices; a string value is inline; an int
  // value of 0 is written, so that it is a value.
  const otlp::KeyValueAndUnit& zero = r.dictionary().attribute_table(s.attribute_indices(4));
  CHECK(zero.value().value_case() == AnyValue::kIntValue);
  const otlp::KeyValueAndUnit& name = r.dictionary().attribute_table(s.attribute_indices(1));
  CHECK(name.value().value_case() == AnyValue::kStringValue);
  CHECK(name.unit_strindex() == 0);
  // The same attributes for every Profile.
  for (const otlp::Profile& prof : Scope(r).profiles()) {
    CHECK(Attrs(r, prof.samples(0).attribute_indices()) == Attrs(r, s.attribute_indices()));
  }
}

TEST_CASE("an attribute is written once however many samples carry it") {
  auto p = NewProfile();
  for (int i = 0; i < 4; ++i) {
    SampleBuilder b;
    b.Frame("f" + std::to_string(i)).Values({1, 1, 1}).Label("thread name", "main");
    Add(p.get(), b);
  }
  const OtlpRequest r = SerializeOtlp(p.get());
  CHECK(r.dictionary().attribute_table_size() == 2);
  for (const otlp::Sample& s : Scope(r).profiles(0).samples()) {
    CHECK(Attrs(r, s.attribute_indices()) == Strings{"thread name=main"});
  }
}

TEST_CASE("timestamped samples of one key are one Sample, in the order recorded") {
  auto p = NewProfile();
  const int64_t base = 1700000000000000000;
  const int64_t cpu[] = {5, 7, 11};
  for (int i = 0; i < 3; ++i) {
    SampleBuilder b;
    b.Frame("tick").Values({cpu[i], 1, 100 + i}).Label("thread name", "t");
    b.Timestamp(base + 3 - i);  // not in time order: recording order is kept
    Add(p.get(), b);
  }
  SampleBuilder other, plain;
  other.Frame("tick").Values({2, 1, 2}).Label("thread name", "u").Timestamp(base + 9);
  plain.Frame("tick").Values({50, 5, 50}).Label("thread name", "t");  // same key, no timestamp
  Add(p.get(), other);
  Add(p.get(), plain);
  const OtlpRequest r = SerializeOtlp(p.get());
  // One shape per Profile: the untimed samples' Profiles, one per type,
  // then the timestamped samples', so that the key recorded both ways is
  // not two Samples of one identity in one Profile.
  REQUIRE(Scope(r).profiles_size() == 6);
  const otlp::Profile& prof = Scope(r).profiles(0);
  const otlp::Profile& timed_prof = Scope(r).profiles(3);
  CHECK(timed_prof.sample_type().SerializeAsString() == prof.sample_type().SerializeAsString());
  REQUIRE(prof.samples_size() == 1);
  REQUIRE(timed_prof.samples_size() == 2);
  const otlp::Sample* timed = nullptr;
  const otlp::Sample* untimed = &prof.samples(0);
  CHECK(Attrs(r, untimed->attribute_indices()) == Strings{"thread name=t"});
  CHECK(untimed->timestamps_unix_nano_size() == 0);
  for (const otlp::Sample& s : timed_prof.samples()) {
    CHECK(s.timestamps_unix_nano_size() != 0);
    if (Attrs(r, s.attribute_indices()) == Strings{"thread name=t"}) timed = &s;
  }
  REQUIRE(timed != nullptr);
  // The timestamps (in 2023) are before the profile began: the timestamped
  // Profiles' interval widens to hold them, the untimed ones' stays.
  CHECK(timed_prof.time_unix_nano() == static_cast<uint64_t>(base + 1));
  CHECK(timed_prof.time_unix_nano() + timed_prof.duration_nano() ==
        prof.time_unix_nano() + prof.duration_nano());
  CHECK(prof.time_unix_nano() > static_cast<uint64_t>(base + 9));
  CHECK(std::vector<uint64_t>(timed->timestamps_unix_nano().begin(),
                              timed->timestamps_unix_nano().end()) ==
        std::vector<uint64_t>{base + 3, base + 2, base + 1});
  CHECK(std::vector<int64_t>(timed->values().begin(), timed->values().end()) ==
        std::vector<int64_t>{5, 7, 11});
  CHECK(std::vector<int64_t>(untimed->values().begin(), untimed->values().end()) ==
        std::vector<int64_t>{50});
  const otlp::Sample& wall = Scope(r).profiles(5).samples(1);
  CHECK(wall.values_size() == wall.timestamps_unix_nano_size());
  // No "end_timestamp_ns" attribute: the timestamps say it.
  for (const otlp::KeyValueAndUnit& a : r.dictionary().attribute_table()) {
    CHECK(OStr(r, a.key_strindex()) != "end_timestamp_ns");
  }
}

TEST_CASE("inline frames are one location with several lines, callee first") {
  auto p = NewProfile();
  stackrec_location frames[3] = {};
  const char* names[] = {"memcpy", "copy", "main"};
  for (int i = 0; i < 3; ++i) {
    frames[i].function.name = S(names[i]);
    frames[i].line = 10 + i;
    frames[i].address = i < 2 ? 0x1234 : 0x9000;
  }
  frames[0].inlined = true;  // memcpy inlined into copy, at copy's address
  SampleBuilder b;
  b.Location(frames[0]).Location(frames[1]).Location(frames[2]).Values({1, 1, 1});
  Add(p.get(), b);
  const OtlpRequest r = SerializeOtlp(p.get());
  const otlp::Sample& s = Scope(r).profiles(0).samples(0);
  const auto& stack = r.dictionary().stack_table(s.stack_index()).location_indices();
  REQUIRE(stack.size() == 2);
  const otlp::Location& inlined = r.dictionary().location_table(stack[0]);
  CHECK(inlined.address() == 0x1234);
  CHECK(Frames(r, s) == Strings{"memcpy:10", "copy:11", "main:12"});
  CHECK(inlined.lines_size() == 2);
}

TEST_CASE("a mapping carries its build id and pprof's flags as attributes") {
  auto p = NewProfile();
  stackrec_location native = {}, symbolized = {};
  native.mapping.memory_start = 0x1000;
  native.mapping.memory_limit = 0x5000;
  native.mapping.file_offset = 0x200;
  native.mapping.filename = S("/lib/libx.so");
  native.mapping.build_id = S("a1b2c3");
  native.address = 0x1100;
  symbolized = native;
  symbolized.function.name = S("x_work");
  symbolized.function.filename = S("x.c");
  symbolized.line = 4;
  symbolized.address = 0x1200;
  SampleBuilder b;
  b.Location(native).Location(symbolized).Values({1, 1, 1});
  Add(p.get(), b);
  const OtlpRequest r = SerializeOtlp(p.get());
  const otlp::ProfilesDictionary& d = r.dictionary();
  REQUIRE(d.mapping_table_size() == 2);
  const otlp::Mapping& m = d.mapping_table(1);
  CHECK(m.memory_start() == 0x1000);
  CHECK(m.memory_limit() == 0x5000);
  CHECK(m.file_offset() == 0x200);
  CHECK(OStr(r, m.filename_strindex()) == "/lib/libx.so");
  CHECK(Attrs(r, m.attribute_indices()) ==
        Strings{"process.executable.build_id.gnu=a1b2c3", "pprof.mapping.has_functions=true",
                "pprof.mapping.has_filenames=true", "pprof.mapping.has_line_numbers=true"});
  // The unsymbolized frame: an address and a mapping, no line.
  const auto& stack = d.stack_table(Scope(r).profiles(0).samples(0).stack_index());
  const otlp::Location& leaf = d.location_table(stack.location_indices(0));
  CHECK(leaf.address() == 0x1100);
  CHECK(leaf.mapping_index() == 1);
  CHECK(leaf.lines_size() == 0);
  const otlp::Function& fn =
      d.function_table(d.location_table(stack.location_indices(1)).lines(0).function_index());
  CHECK(OStr(r, fn.name_strindex()) == "x_work");
  CHECK(OStr(r, fn.filename_strindex()) == "x.c");
}

TEST_CASE("each Profile has the interval, period and pprof's profile-wide fields") {
  Options o;
  o.opts.period_type = {S("wall"), S("nanoseconds")};
  o.opts.period = 10000000;
  const stackrec_str comments[] = {S("host: web-1"), S("pid: 42")};
  o.opts.comments = comments;
  o.opts.comments_len = 2;
  o.opts.drop_frames = S("^runtime\\.");
  o.opts.keep_frames = S("^runtime\\.main$");
  o.opts.default_sample_type = S("wall-time");
  auto p = NewProfile(o.opts);
  SampleBuilder b;
  b.Frame("main").Values({1, 1, 1});
  Add(p.get(), b);
  stackrec_encoded* e = nullptr;
  const stackrec_serialize_options so = Otlp();
  REQUIRE(stackrec_profile_serialize(p.get(), &so, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const OtlpRequest r = DecodeOtlp(std::string(
      reinterpret_cast<const char*>(stackrec_encoded_data(e)), stackrec_encoded_size(e)));
  CheckOtlpInvariants(r);
  REQUIRE(Scope(r).profiles_size() == 3);
  for (const otlp::Profile& prof : Scope(r).profiles()) {
    CHECK(prof.time_unix_nano() == static_cast<uint64_t>(stackrec_encoded_start_ns(e)));
    CHECK(prof.duration_nano() ==
          static_cast<uint64_t>(stackrec_encoded_end_ns(e) - stackrec_encoded_start_ns(e)));
    CHECK(OStr(r, prof.period_type().type_strindex()) == "wall");
    CHECK(OStr(r, prof.period_type().unit_strindex()) == "nanoseconds");
    CHECK(prof.period() == 10000000);
    REQUIRE(prof.attribute_indices_size() == 3);
    const otlp::KeyValueAndUnit& comment =
        r.dictionary().attribute_table(prof.attribute_indices(0));
    CHECK(OStr(r, comment.key_strindex()) == "pprof.profile.comment");
    REQUIRE(comment.value().array_value().values_size() == 2);
    CHECK(comment.value().array_value().values(0).string_value() == "host: web-1");
    CHECK(comment.value().array_value().values(1).string_value() == "pid: 42");
    CHECK(Attr(r, prof.attribute_indices(1)) == "pprof.profile.drop_frames=^runtime\\.");
    CHECK(Attr(r, prof.attribute_indices(2)) == "pprof.profile.keep_frames=^runtime\\.main$");
  }
  // The default sample type: the scope's, as the conventions put it.
  CHECK(KeyValueStrings(Scope(r).scope().attributes()) ==
        Strings{"pprof.scope.default_sample_type=wall-time"});
}

// An empty string is written as an empty field (under UBSan, a null
// pointer given to the stream's copy would fail this).
TEST_CASE("an empty comment is an empty string in the comments' array") {
  Options o;
  const stackrec_str comments[] = {S(""), S("after")};
  o.opts.comments = comments;
  o.opts.comments_len = 2;
  auto p = NewProfile(o.opts);
  SampleBuilder b;
  b.Frame("main").Values({1, 1, 1});
  Add(p.get(), b);
  stackrec_encoded* e = nullptr;
  const stackrec_serialize_options so = Otlp();
  REQUIRE(stackrec_profile_serialize(p.get(), &so, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const OtlpRequest r = DecodeOtlp(std::string(
      reinterpret_cast<const char*>(stackrec_encoded_data(e)), stackrec_encoded_size(e)));
  CheckOtlpInvariants(r);
  for (const otlp::Profile& prof : Scope(r).profiles()) {
    REQUIRE(prof.attribute_indices_size() == 1);
    const otlp::KeyValueAndUnit& comment =
        r.dictionary().attribute_table(prof.attribute_indices(0));
    CHECK(OStr(r, comment.key_strindex()) == "pprof.profile.comment");
    REQUIRE(comment.value().array_value().values_size() == 2);
    CHECK(comment.value().array_value().values(0).value_case() ==
          opentelemetry::proto::common::v1::AnyValue::kStringValue);
    CHECK(comment.value().array_value().values(0).string_value().empty());
    CHECK(comment.value().array_value().values(1).string_value() == "after");
  }
}

TEST_CASE("the resource names the service, the scope is stackrec at its version") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("main").Values({1, 1, 1});
  Add(p.get(), b);
  const std::string version = std::to_string(STACKREC_VERSION_MAJOR) + "." +
                              std::to_string(STACKREC_VERSION_MINOR) + "." +
                              std::to_string(STACKREC_VERSION_PATCH);
  SECTION("by default, unknown_service") {
    const OtlpRequest r = SerializeOtlp(p.get());
    CHECK(KeyValueStrings(r.resource_profiles(0).resource().attributes()) ==
          Strings{"service.name=unknown_service"});
    CHECK(Scope(r).scope().name() == "stackrec");
    CHECK(Scope(r).scope().version() == version);
    CHECK(Scope(r).scope().attributes_size() == 0);
  }
  SECTION("service_name first, then the host's attributes in order") {
    const stackrec_attribute attributes[] = {{S("host.name"), S("web-1")},
                                             {S("deployment.environment"), S("")}};
    stackrec_serialize_options o = Otlp(STACKREC_COMPRESSION_GZIP);
    o.service_name = S("checkout");
    o.resource_attributes = attributes;
    o.resource_attributes_len = 2;
    o.scope_name = S("dd-trace-rb");
    o.scope_version = S("2.1.0");
    const OtlpRequest r = SerializeOtlp(p.get(), o);
    CHECK(KeyValueStrings(r.resource_profiles(0).resource().attributes()) ==
          Strings{"service.name=checkout", "host.name=web-1", "deployment.environment="});
    CHECK(Scope(r).scope().name() == "dd-trace-rb");
    CHECK(Scope(r).scope().version() == "2.1.0");
  }
  SECTION("a service.name among the attributes stays where it is") {
    const stackrec_attribute attributes[] = {{S("host.name"), S("web-1")},
                                             {S("service.name"), S("billing")}};
    stackrec_serialize_options o = Otlp(STACKREC_COMPRESSION_ZSTD);
    o.resource_attributes = attributes;
    o.resource_attributes_len = 2;
    const OtlpRequest r = SerializeOtlp(p.get(), o);
    CHECK(KeyValueStrings(r.resource_profiles(0).resource().attributes()) ==
          Strings{"host.name=web-1", "service.name=billing"});
  }
}

TEST_CASE("OTLP is compressed as pprof is: gzip, zstd or none, the same content") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("leaf", "l.rb", 2).Frame("main", "m.rb", 1).Values({3, 1, 3}).Label("k", "v");
  Add(p.get(), b);
  const std::string none = Serialize(p.get(), Otlp());
  const std::string gzip = Serialize(p.get(), Otlp(STACKREC_COMPRESSION_GZIP));
  const std::string zstd = Serialize(p.get(), Otlp(STACKREC_COMPRESSION_ZSTD));
  CHECK(DetectFormat(gzip) == Format::kGzip);
  CHECK(DetectFormat(zstd) == Format::kZstd);
  // Equal but for the durations, which run to each serialization.
  auto content = [](const std::string& bytes) {
    OtlpRequest r = DecodeOtlp(bytes);
    for (auto& prof :
         *r.mutable_resource_profiles(0)->mutable_scope_profiles(0)->mutable_profiles()) {
      prof.clear_duration_nano();
    }
    return r.SerializeAsString();
  };
  CHECK(content(gzip) == content(none));
  CHECK(content(zstd) == content(none));
}

TEST_CASE("the OTLP of a profile converts back into its pprof exactly") {
  Options o;
  const bool enabled[] = {true, true, false};
  o.opts.sample_types_enabled = enabled;
  o.opts.period_type = {S("cpu"), S("nanoseconds")};
  o.opts.period = 1000;
  const stackrec_str comments[] = {S("hello")};
  o.opts.comments = comments;
  o.opts.comments_len = 1;
  o.opts.drop_frames = S("gc");
  o.opts.default_sample_type = S("cpu-samples");
  o.opts.max_frames = 4;
  auto p = NewProfile(o.opts);
  stackrec_location inl[2] = {};
  inl[0].function.name = S("inlined");
  inl[0].inlined = true;
  inl[0].address = 0x10;
  inl[1].function.name = S("outer");
  inl[1].address = 0x10;
  inl[1].mapping.filename = S("/bin/app");
  inl[0].mapping = inl[1].mapping;
  for (int i = 0; i < 30; ++i) {
    SampleBuilder b;
    b.Location(inl[0]).Location(inl[1]);
    for (int d = 0; d < i % 6; ++d) b.Frame("f" + std::to_string(d), "f.rb", d);
    b.Values({i, 1, 99}).NumLabel("thread id", i % 3).NumLabel("local root span id", 1 + i % 4);
    if (i % 5 == 0) b.Timestamp(1700000000000000000 + i);
    if (i % 7 == 0) b.NumLabel("bytes", i * 8, "bytes");
    Add(p.get(), b);
  }
  SampleBuilder empty;
  empty.Values({9, 9, 9});
  Add(p.get(), empty);
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 2, S("POST /x")) == STACKREC_OK);
  const size_t offsets[] = {0};
  stackrec_upscaling_rule rule = {};
  rule.kind = STACKREC_UPSCALING_PROPORTIONAL;
  rule.value_offsets = offsets;
  rule.value_offsets_len = 1;
  rule.label_key = S("thread id");
  rule.label_num = 1;
  rule.total_sampled = 2;
  rule.total_real = 5;
  REQUIRE(stackrec_profile_add_upscaling_rule(p.get(), &rule) == STACKREC_OK);

  const Profile pprof = Decode(Serialize(p.get(), STACKREC_COMPRESSION_NONE));
  const Profile converted = OtlpToPprof(SerializeOtlp(p.get(), Otlp(STACKREC_COMPRESSION_ZSTD)));
  CheckInvariants(converted);
  CHECK(Canonical(converted) == Canonical(pprof));
  CHECK(converted.time_nanos() == pprof.time_nanos());
  CHECK(Strings(converted.comment().size(), "") == Strings(pprof.comment().size(), ""));
  CHECK(Str(converted, converted.comment(0)) == "hello");
  CHECK(Str(converted, converted.drop_frames()) == "gc");
  CHECK(Str(converted, converted.default_sample_type()) == "cpu-samples");
}

TEST_CASE("a recorder writes OTLP, and over its output limit keeps the heaviest samples") {
  Options o;
  o.opts.max_output_bytes = 4096;
  auto r = NewRecorder(o.opts);
  std::vector<int64_t> totals(3, 0);
  for (int i = 0; i < 300; ++i) {
    SampleBuilder b;
    b.Frame("fn" + std::to_string(i), "file" + std::to_string(i) + ".rb", i)
        .Frame("main", "main.rb", 1)
        .Values({1000 + i, 1, 7});
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
    totals[0] += 1000 + i;
    totals[1] += 1;
    totals[2] += 7;
  }
  const stackrec_serialize_options so = Otlp();
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), &so, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  CHECK(stackrec_encoded_size(e) <= 4096);
  stackrec_encode_stats stats = {};
  REQUIRE(stackrec_encoded_stats(e, &stats) == STACKREC_OK);
  CHECK(stats.samples_left_out > 0);
  const OtlpRequest req = DecodeOtlp(std::string(
      reinterpret_cast<const char*>(stackrec_encoded_data(e)), stackrec_encoded_size(e)));
  CheckOtlpInvariants(req);
  // What is kept is the heaviest; the rest is summed into the pseudo-sample,
  // so every Profile keeps its total.
  int64_t lightest_kept = INT64_MAX;
  for (size_t t = 0; t < 3; ++t) {
    const otlp::Profile& prof = Scope(req).profiles(static_cast<int>(t));
    CHECK(static_cast<uint64_t>(prof.samples_size()) == stats.samples_written);
    int64_t sum = 0;
    bool pseudo = false;
    for (const otlp::Sample& s : prof.samples()) {
      sum += s.values(0);
      const Strings frames = Frames(req, s);
      if (frames == Strings{"[stackrec: output limit]:0"}) {
        pseudo = true;
      } else if (t == 0) {
        lightest_kept = std::min(lightest_kept, s.values(0));
      }
    }
    CHECK(pseudo);
    CHECK(sum == totals[t]);
  }
  const int64_t kept = static_cast<int64_t>(stats.samples_written) - 1;
  CHECK(kept == 300 - static_cast<int64_t>(stats.samples_left_out));
  CHECK(lightest_kept == 1000 + 300 - kept);
}

TEST_CASE("a host built against the 1.0 header, passing two fields of options, gets pprof") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("main").Values({1, 2, 3});
  Add(p.get(), b);
  // The 1.0 layout: compression and level, then poison the library must
  // not read.
  struct {
    stackrec_compression compression;
    int level;
    unsigned char poison[64];
  } old;
  std::memset(&old, 0xA5, sizeof old);
  old.compression = STACKREC_COMPRESSION_NONE;
  old.level = 0;
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_profile_serialize_sized(
              p.get(), reinterpret_cast<const stackrec_serialize_options*>(&old), &e,
              offsetof(decltype(old), poison)) == STACKREC_OK);
  EncodedPtr owned(e);
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(2) == 3);
}

TEST_CASE("the same labels in any order are one Sample in OTLP and one sample in pprof") {
  // OTLP's sample identity takes the attributes as a set; so does the key.
  auto p = NewProfile();
  SampleBuilder ab, ba, other;
  ab.Frame("f", "f.rb", 1).Values({1, 1, 1}).Label("a", "x").NumLabel("b", 1, "bytes");
  ba.Frame("f", "f.rb", 1).Values({2, 1, 1}).NumLabel("b", 1, "bytes").Label("a", "x");
  other.Frame("f", "f.rb", 1).Values({4, 1, 1}).NumLabel("b", 2, "bytes").Label("a", "x");
  Add(p.get(), ab);
  Add(p.get(), ba);
  Add(p.get(), other);
  const Profile pprof = SerializeAndDecode(p.get(), STACKREC_COMPRESSION_NONE);
  REQUIRE(pprof.sample_size() == 2);
  CHECK(LabelStrings(pprof, pprof.sample(0)) == Strings{"a=x", "b=1[bytes]"});
  CHECK(pprof.sample(0).value(0) == 3);
  const OtlpRequest r = SerializeOtlp(p.get());
  const otlp::Profile& cpu = Scope(r).profiles(0);
  REQUIRE(cpu.samples_size() == 2);
  // Written in the order of the first sample that brought the set.
  CHECK(Attrs(r, cpu.samples(0).attribute_indices()) == Strings{"a=x", "b=1[bytes]"});
  CHECK(cpu.samples(0).values(0) == 3);
  CHECK(Attrs(r, cpu.samples(1).attribute_indices()) == Strings{"b=2[bytes]", "a=x"});
  CHECK(cpu.samples(1).values(0) == 4);
}

// The conformance check (otlp_conformance.h) catches what it is there to
// catch: each case breaks one rule of a valid request, and must fail.
namespace {

OtlpRequest ValidRequest() {
  auto p = NewProfile();
  SampleBuilder a, b;
  a.Frame("leaf", "a.rb", 3).Frame("main", "a.rb", 1).Values({10, 1, 30}).Label("k", "v");
  b.Frame("main", "a.rb", 1).Values({1, 1, 1}).Timestamp(5);
  Add(p.get(), a);
  Add(p.get(), b);
  OtlpRequest r = SerializeOtlp(p.get());
  REQUIRE(Scope(r).profiles_size() == 6);
  return r;
}

otlp::Profile* MutableProfile(OtlpRequest* r, int t) {
  return r->mutable_resource_profiles(0)->mutable_scope_profiles(0)->mutable_profiles(t);
}

}  // namespace

TEST_CASE("the conformance check passes the request its refusal cases start from") {
  // Else each case below would fail for that, not for the rule it breaks.
  CheckOtlpConformance(ValidRequest());
}

TEST_CASE("the conformance check refuses a Profile of two shapes", "[!shouldfail]") {
  OtlpRequest r = ValidRequest();
  *MutableProfile(&r, 0)->add_samples() = Scope(r).profiles(3).samples(0);
  CheckOtlpConformance(r);
}

TEST_CASE("the conformance check refuses two Samples of one identity", "[!shouldfail]") {
  OtlpRequest r = ValidRequest();
  *MutableProfile(&r, 0)->add_samples() = Scope(r).profiles(0).samples(0);
  CheckOtlpConformance(r);
}

TEST_CASE("the conformance check refuses a timestamp outside its Profile", "[!shouldfail]") {
  OtlpRequest r = ValidRequest();
  otlp::Profile* timed = MutableProfile(&r, 3);
  timed->mutable_samples(0)->set_timestamps_unix_nano(0, timed->time_unix_nano() - 1);
  CheckOtlpConformance(r);
}

TEST_CASE("the conformance check refuses a Function without a name", "[!shouldfail]") {
  OtlpRequest r = ValidRequest();
  otlp::Function* f = r.mutable_dictionary()->mutable_function_table(1);
  f->set_name_strindex(0);
  f->set_filename_strindex(0);
  CheckOtlpConformance(r);
}

TEST_CASE("the conformance check refuses an untimed Sample of two values", "[!shouldfail]") {
  OtlpRequest r = ValidRequest();
  MutableProfile(&r, 0)->mutable_samples(0)->add_values(1);
  CheckOtlpConformance(r);
}

TEST_CASE("the conformance check refuses a link of a short trace id", "[!shouldfail]") {
  OtlpRequest r = ValidRequest();
  otlp::Link* l = r.mutable_dictionary()->add_link_table();
  l->set_trace_id(std::string(15, '\x01'));
  l->set_span_id(std::string(8, '\x01'));
  MutableProfile(&r, 0)->mutable_samples(0)->set_link_index(1);
  CheckOtlpConformance(r);
}
