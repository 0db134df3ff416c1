// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The pprof we write, field by field.
#include <algorithm>
#include <chrono>
#include <utility>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;
using Strings = std::vector<std::string>;
using Ids = std::vector<uint64_t>;

namespace {

int64_t WallNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Strings SortedStrings(const Profile& p) {
  Strings s(p.string_table().begin(), p.string_table().end());
  std::sort(s.begin(), s.end());
  return s;
}

template <typename Repeated>
Ids SortedIds(const Repeated& items) {
  Ids ids;
  for (const auto& item : items) ids.push_back(item.id());
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

TEST_CASE("an empty profile serializes to its sample types and no samples") {
  auto p = NewProfile();
  const Profile out = SerializeAndDecode(p.get());
  CHECK(SampleTypes(out) ==
        Strings{"cpu-time/nanoseconds", "cpu-samples/count", "wall-time/nanoseconds"});
  CHECK(out.sample_size() == 0);
  CHECK(out.location_size() == 0);
  CHECK(out.function_size() == 0);
  CHECK(out.mapping_size() == 0);
  CHECK(Strings(out.string_table().begin(), out.string_table().end()) ==
        Strings{"", "cpu-time", "nanoseconds", "cpu-samples", "count", "wall-time"});
  CHECK_FALSE(out.has_period_type());
  CHECK(out.period() == 0);
}

TEST_CASE("every string is written once, index 0 is empty and ids start at 1") {
  auto p = NewProfile();
  SampleBuilder a, b;
  // "shared.rb" is a file name and a label value; "main" a function and a value.
  a.Frame("main", "shared.rb", 1).Frame("helper", "shared.rb", 2).Values({1, 1, 1});
  a.Label("file", "shared.rb");
  b.Frame("main", "shared.rb", 1).Values({1, 1, 1}).Label("file", "main");
  Add(p.get(), a);
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());  // also checks uniqueness
  CHECK(out.string_table(0).empty());
  CHECK(SortedStrings(out) == Strings{"", "count", "cpu-samples", "cpu-time", "file", "helper",
                                      "main", "nanoseconds", "shared.rb", "wall-time"});
  CHECK(SortedIds(out.location()) == Ids{1, 2});
  CHECK(SortedIds(out.function()) == Ids{1, 2});
  REQUIRE(out.sample_size() == 2);
  CHECK(SampleWithFrames(out, {"main"}).location_id(0) ==
        SampleWithFrames(out, {"main", "helper"}).location_id(0));
}

TEST_CASE("functions keep name, system name, file, start line and the frame's line") {
  auto p = NewProfile();
  stackrec_location loc{};
  loc.function.name = S("Foo::bar(int)");
  loc.function.system_name = S("_ZN3Foo3barEi");
  loc.function.filename = S("/src/foo.cc");
  loc.function.start_line = 40;
  loc.line = 42;
  SampleBuilder b;
  b.Location(loc).Values({1, 1, 1});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.function_size() == 1);
  const auto& fn = out.function(0);
  CHECK(Str(out, fn.name()) == "Foo::bar(int)");
  CHECK(Str(out, fn.system_name()) == "_ZN3Foo3barEi");
  CHECK(Str(out, fn.filename()) == "/src/foo.cc");
  CHECK(fn.start_line() == 40);
  REQUIRE(out.location_size() == 1);
  REQUIRE(out.location(0).line_size() == 1);
  CHECK(out.location(0).line(0).function_id() == fn.id());
  CHECK(out.location(0).line(0).line() == 42);
  CHECK(out.location(0).mapping_id() == 0);
}

TEST_CASE("mappings, addresses and build ids round trip") {
  auto p = NewProfile();
  stackrec_location native{};
  native.mapping.memory_start = 0x400000;
  native.mapping.memory_limit = 0x500000;
  native.mapping.file_offset = 0x1000;
  native.mapping.filename = S("/usr/bin/app");
  native.mapping.build_id = S("f00dfeedcafebeef");
  native.address = 0x401234;
  native.function.name = S("main");
  native.line = 7;
  stackrec_location unsymbolized = native;
  unsymbolized.function = stackrec_function{};
  unsymbolized.address = 0x405678;
  unsymbolized.line = 0;
  stackrec_location bare{};
  bare.address = 0xdead;
  SampleBuilder b;
  b.Location(unsymbolized).Location(native).Location(bare).Values({1, 1, 1});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.mapping_size() == 1);
  const auto& m = out.mapping(0);
  CHECK(m.id() == 1);
  CHECK(m.memory_start() == 0x400000);
  CHECK(m.memory_limit() == 0x500000);
  CHECK(m.file_offset() == 0x1000);
  CHECK(Str(out, m.filename()) == "/usr/bin/app");
  CHECK(Str(out, m.build_id()) == "f00dfeedcafebeef");
  CHECK(m.has_functions());
  CHECK_FALSE(m.has_filenames());
  CHECK(m.has_line_numbers());
  REQUIRE(out.sample_size() == 1);
  const auto& s = out.sample(0);
  REQUIRE(s.location_id_size() == 3);
  const auto& l0 = FindLocation(out, s.location_id(0));
  const auto& l1 = FindLocation(out, s.location_id(1));
  const auto& l2 = FindLocation(out, s.location_id(2));
  CHECK(l0.address() == 0x405678);
  CHECK(l0.mapping_id() == m.id());
  CHECK(l0.line_size() == 0);  // address only: a viewer symbolizes it
  CHECK(l1.address() == 0x401234);
  CHECK(l1.mapping_id() == m.id());
  REQUIRE(l1.line_size() == 1);
  CHECK(l1.line(0).line() == 7);
  CHECK(l2.address() == 0xdead);
  CHECK(l2.mapping_id() == 0);  // all-zero mapping: none
  CHECK(l2.line_size() == 0);
  CHECK(FrameNames(out, s) == Strings{"", "main", ""});
}

TEST_CASE("string and numeric labels, with and without units, round trip") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  b.Label("thread name", "worker 1")
      .NumLabel("thread id", 42)
      .NumLabel("bytes", -4096, "bytes")
      .NumLabel("zero", 0);
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  const auto& labels = out.sample(0).label();
  REQUIRE(labels.size() == 4);
  CHECK(Str(out, labels[0].key()) == "thread name");
  CHECK(Str(out, labels[0].str()) == "worker 1");
  CHECK(labels[0].num() == 0);
  CHECK(Str(out, labels[1].key()) == "thread id");
  CHECK(labels[1].str() == 0);
  CHECK(labels[1].num() == 42);
  CHECK(labels[1].num_unit() == 0);
  CHECK(Str(out, labels[2].key()) == "bytes");
  CHECK(labels[2].num() == -4096);
  CHECK(Str(out, labels[2].num_unit()) == "bytes");
  CHECK(Str(out, labels[3].key()) == "zero");
  CHECK(labels[3].num() == 0);
  CHECK(labels[3].str() == 0);
}

TEST_CASE("endpoints label the samples of their span, and the last call wins") {
  auto p = NewProfile();
  const uint64_t big_span = 0xfedcba9876543210ull;  // negative as int64
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 7, S("GET /old")) == STACKREC_OK);
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 7, S("GET /users")) == STACKREC_OK);
  REQUIRE(stackrec_profile_set_endpoint(p.get(), big_span, S("POST /orders")) == STACKREC_OK);
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 9, S("GET /unused")) == STACKREC_OK);
  SampleBuilder a, b, c, d, e;
  a.Frame("f").Values({1, 0, 0}).NumLabel("local root span id", 7);
  b.Frame("f").Values({2, 0, 0}).NumLabel("local root span id", static_cast<int64_t>(big_span));
  c.Frame("f").Values({4, 0, 0}).NumLabel("local root span id", 8);
  d.Frame("f").Values({8, 0, 0}).Label("local root span id", "7");  // a string: no match
  e.Frame("f").Values({16, 0, 0}).NumLabel("local root span id", 7).Label("trace endpoint", "mine");
  for (auto* s : {&a, &b, &c, &d, &e}) Add(p.get(), *s);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 5);
  CHECK(StrLabel(out, out.sample(0), "trace endpoint") == "GET /users");
  CHECK(StrLabel(out, out.sample(1), "trace endpoint") == "POST /orders");
  CHECK(StrLabel(out, out.sample(2), "trace endpoint") == "");
  CHECK(StrLabel(out, out.sample(3), "trace endpoint") == "");
  CHECK(LabelStrings(out, out.sample(4)) == Strings{"local root span id=7", "trace endpoint=mine"});
  // Unused endpoints and the overridden one are not in the string table.
  const Strings table(out.string_table().begin(), out.string_table().end());
  CHECK(std::count(table.begin(), table.end(), "GET /unused") == 0);
  CHECK(std::count(table.begin(), table.end(), "GET /old") == 0);
}

TEST_CASE("stackrec_profile_set_endpoint is stackrec_profile_record_endpoint by its older name") {
  // The same calls through each name, and through both in turn on one
  // profile: the last call for a span wins whichever name it came by.
  using Call = stackrec_status (*)(stackrec_profile*, uint64_t, stackrec_str);
  const Call record = stackrec_profile_record_endpoint;
  const Call set = stackrec_profile_set_endpoint;
  const std::pair<Call, Call> orders[] = {
      {record, record}, {set, set}, {record, set}, {set, record}};
  std::vector<std::string> outputs;
  for (const auto& order : orders) {
    auto p = NewProfile();
    REQUIRE(order.first(p.get(), 7, S("GET /old")) == STACKREC_OK);
    REQUIRE(order.second(p.get(), 7, S("GET /users")) == STACKREC_OK);
    REQUIRE(order.second(p.get(), 8, S("POST /orders")) == STACKREC_OK);
    SampleBuilder a, b;
    a.Frame("f").Values({1, 0, 0}).NumLabel("local root span id", 7);
    b.Frame("f").Values({2, 0, 0}).NumLabel("local root span id", 8);
    Add(p.get(), a);
    Add(p.get(), b);
    const Profile out = SerializeAndDecode(p.get());
    REQUIRE(out.sample_size() == 2);
    CHECK(StrLabel(out, out.sample(0), "trace endpoint") == "GET /users");
    CHECK(StrLabel(out, out.sample(1), "trace endpoint") == "POST /orders");
    outputs.push_back(WithoutTimes(out).SerializeAsString());
  }
  for (const std::string& output : outputs) CHECK(output == outputs[0]);
}

TEST_CASE("period type and period are written when given") {
  Options o;
  o.opts.period_type = {S("wall-time"), S("nanoseconds")};
  o.opts.period = 10000000;
  auto p = NewProfile(o.opts);
  const Profile out = SerializeAndDecode(p.get());
  CHECK(Str(out, out.period_type().type()) == "wall-time");
  CHECK(Str(out, out.period_type().unit()) == "nanoseconds");
  CHECK(out.period() == 10000000);
}

TEST_CASE("sample types keep their declaration order and disabled ones are left out") {
  const stackrec_value_type types[] = {
      {S("wall-time"), S("nanoseconds")},
      {S("alloc-samples"), S("count")},
      {S("cpu-time"), S("nanoseconds")},
      {S("cpu-samples"), S("count")},
  };
  const bool enabled[] = {true, false, true, true};
  stackrec_profile_options opts{};
  opts.sample_types = types;
  opts.sample_types_len = 4;
  auto all = NewProfile(opts);
  opts.sample_types_enabled = enabled;
  auto some = NewProfile(opts);
  SampleBuilder b;
  b.Frame("f").Values({10, 20, 30, 40});
  Add(all.get(), b);
  Add(some.get(), b);
  Add(some.get(), b);
  const Profile out_all = SerializeAndDecode(all.get());
  CHECK(SampleTypes(out_all) == Strings{"wall-time/nanoseconds", "alloc-samples/count",
                                        "cpu-time/nanoseconds", "cpu-samples/count"});
  CHECK(std::vector<int64_t>(out_all.sample(0).value().begin(), out_all.sample(0).value().end()) ==
        std::vector<int64_t>{10, 20, 30, 40});
  const Profile out_some = SerializeAndDecode(some.get());
  CHECK(SampleTypes(out_some) ==
        Strings{"wall-time/nanoseconds", "cpu-time/nanoseconds", "cpu-samples/count"});
  CHECK(std::vector<int64_t>(out_some.sample(0).value().begin(),
                             out_some.sample(0).value().end()) == std::vector<int64_t>{20, 60, 80});
  const Strings table(out_some.string_table().begin(), out_some.string_table().end());
  CHECK(std::count(table.begin(), table.end(), "alloc-samples") == 0);
}

TEST_CASE("time_nanos and duration_nanos cover creation or reset to serialization") {
  const int64_t before_new = WallNanos();
  auto p = NewProfile();
  const int64_t after_new = WallNanos();
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_profile_serialize(p.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const int64_t after_serialize = WallNanos();
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  CHECK(out.time_nanos() >= before_new);
  CHECK(out.time_nanos() <= after_new);
  CHECK(out.duration_nanos() >= 0);
  CHECK(out.time_nanos() + out.duration_nanos() <= after_serialize);
  CHECK(stackrec_encoded_start_ns(e) == out.time_nanos());
  CHECK(stackrec_encoded_end_ns(e) == out.time_nanos() + out.duration_nanos());

  const int64_t before_reset = WallNanos();
  REQUIRE(stackrec_profile_reset(p.get()) == STACKREC_OK);
  const Profile after = SerializeAndDecode(p.get());
  CHECK(after.time_nanos() >= before_reset);
  CHECK(after.time_nanos() >= stackrec_encoded_end_ns(e));
}

TEST_CASE("reset drops samples, endpoints and every string only they used") {
  auto p = NewProfile();
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 5, S("GET /before")) == STACKREC_OK);
  SampleBuilder old_sample, new_sample;
  old_sample.Frame("old_function", "old.rb", 1)
      .Values({1, 1, 1})
      .Label("old key", "old value")
      .NumLabel("local root span id", 5);
  new_sample.Frame("new_function", "new.rb", 2).Values({2, 2, 2}).NumLabel("local root span id", 5);
  Add(p.get(), old_sample);
  REQUIRE(stackrec_profile_reset(p.get()) == STACKREC_OK);
  Add(p.get(), new_sample);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(FrameNames(out, out.sample(0)) == Strings{"new_function"});
  CHECK(LabelStrings(out, out.sample(0)) == Strings{"local root span id=5"});  // no endpoint
  CHECK(SortedStrings(out) == Strings{"", "count", "cpu-samples", "cpu-time", "local root span id",
                                      "nanoseconds", "new.rb", "new_function", "wall-time"});
  CHECK(out.function_size() == 1);
  CHECK(out.location_size() == 1);
}

TEST_CASE("gzip, zstd and no compression decode to identical messages") {
  auto p = NewProfile();
  for (int i = 0; i < 200; ++i) {
    SampleBuilder b;
    b.Frame("leaf" + std::to_string(i % 17), "file.rb", i % 17).Frame("root").Values({i, 1, 2 * i});
    b.NumLabel("thread id", i % 3);
    Add(p.get(), b);
  }
  const std::string none = Serialize(p.get(), STACKREC_COMPRESSION_NONE);
  const std::string gzip = Serialize(p.get(), STACKREC_COMPRESSION_GZIP);
  const std::string gzip9 = Serialize(p.get(), STACKREC_COMPRESSION_GZIP, 9);
  const std::string zstd = Serialize(p.get(), STACKREC_COMPRESSION_ZSTD);
  const std::string zstd19 = Serialize(p.get(), STACKREC_COMPRESSION_ZSTD, 19);
  CHECK(DetectFormat(gzip) == Format::kGzip);
  CHECK(DetectFormat(gzip9) == Format::kGzip);
  CHECK(DetectFormat(zstd) == Format::kZstd);
  CHECK(DetectFormat(zstd19) == Format::kZstd);
  CHECK(gzip.size() < none.size());
  CHECK(zstd.size() < none.size());
  const Profile reference = WithoutTimes(Decode(none));
  CheckInvariants(reference);
  CHECK(reference.sample_size() == 17 * 3);
  for (const std::string* bytes : {&gzip, &gzip9, &zstd, &zstd19}) {
    const Profile other = WithoutTimes(Decode(*bytes));
    CHECK(other.SerializeAsString() == reference.SerializeAsString());
  }
}

TEST_CASE("a profile larger than the compressor's buffers round trips") {
  auto p = NewProfile(Options(1).opts);
  std::string long_name(1000, 'x');
  for (int i = 0; i < 3000; ++i) {
    SampleBuilder b;
    b.Frame(long_name + std::to_string(i)).Values({i});
    Add(p.get(), b);
  }
  for (auto c : {STACKREC_COMPRESSION_NONE, STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}) {
    const Profile out = SerializeAndDecode(p.get(), c);
    REQUIRE(out.sample_size() == 3000);
    CHECK(out.sample(2999).value(0) == 2999);
    CHECK(FrameNames(out, out.sample(2999)) == Strings{long_name + "2999"});
  }
}

TEST_CASE("a frame of its address alone is a real location with an id") {
  // (An all-zero frame is refused: bad_input/bad_input_test.cc.)
  auto p = NewProfile();
  stackrec_location address_only{};
  address_only.address = 0x1;
  SampleBuilder b;
  b.Location(address_only).Frame("caller").Values({1, 1, 1});
  Add(p.get(), b);
  const Profile out = SerializeAndDecode(p.get());  // ids resolve, none is 0
  REQUIRE(out.sample_size() == 1);
  REQUIRE(out.sample(0).location_id_size() == 2);
  CHECK(out.sample(0).location_id(0) != 0);
  CHECK(FrameNames(out, out.sample(0)) == Strings{"", "caller"});
  CHECK(out.location_size() == 2);
}

TEST_CASE("frames without a function that differ only in their line are one location") {
  // pprof's line belongs to a function: such a frame is its address alone,
  // so the two stacks are one, and their samples one sample.
  auto p = NewProfile();
  for (int64_t line : {5, 6, 7}) {
    stackrec_location native{};
    native.address = 0x401000;
    native.line = line;
    SampleBuilder b;
    b.Location(native).Frame("main", "app.c", 10).Values({line, 1, 1});
    Add(p.get(), b);
  }
  SampleBuilder other;
  other.Frame("worker", "app.c", 20).Frame("main", "app.c", 10).Values({100, 1, 1});
  Add(p.get(), other);
  const Profile out = SerializeAndDecode(p.get());  // no location written twice
  REQUIRE(out.sample_size() == 2);
  const Sample& native = SampleWithFrames(out, {"", "main"});
  CHECK(std::vector<int64_t>(native.value().begin(), native.value().end()) ==
        std::vector<int64_t>{18, 3, 3});
  const auto& loc = FindLocation(out, native.location_id(0));
  CHECK(loc.address() == 0x401000);
  CHECK(loc.line_size() == 0);
  CHECK(out.location_size() == 3);
}
