// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Every bad input gets a status, a message naming the argument, and leaves
// the profile exactly as it was.
#include <cstddef>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "support/id_program.h"
#include "support/target.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

// A profile that already holds samples and an endpoint.
ProfilePtr PopulatedProfile() {
  auto p = NewProfile();
  REQUIRE(stackrec_profile_set_endpoint(p.get(), 11, S("GET /kept")) == STACKREC_OK);
  for (int i = 0; i < 5; ++i) {
    SampleBuilder b;
    b.Frame("kept" + std::to_string(i), "kept.rb", i).Frame("root").Values({i, 1, 10});
    b.NumLabel("local root span id", 11);
    Add(p.get(), b);
  }
  return p;
}

std::string Snapshot(stackrec_profile* p) {
  return WithoutTimes(Decode(Serialize(p, STACKREC_COMPRESSION_NONE))).SerializeAsString();
}

// Runs `call` on a populated profile and checks its status, that the message
// contains `needle`, and that the profile's content did not change. Twice:
// nothing of a refused sample may be remembered as valid (the string path
// finds a stack it holds by fingerprint and does not check it again).
void ExpectRejected(const std::function<stackrec_status(stackrec_profile*)>& call,
                    stackrec_status expected, const std::string& needle) {
  auto p = PopulatedProfile();
  const std::string before = Snapshot(p.get());
  for (int attempt = 0; attempt < 2; ++attempt) {
    const stackrec_status st = call(p.get());
    const std::string message = stackrec_last_error();
    INFO("attempt " << attempt << ", message: " << message);
    CHECK(st == expected);
    CHECK(message.find(needle) != std::string::npos);
    CHECK(Snapshot(p.get()) == before);
  }
}

void ExpectAddRejected(SampleBuilder& b, const std::string& needle) {
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &b.Get()); },
                 STACKREC_INVALID_ARGUMENT, needle);
}

const char kBadUtf8[] = "bad\xC3(utf8";  // a lead byte without continuation

// The profile's endpoint call under both its names, which refuse alike.
using EndpointCall = stackrec_status (*)(stackrec_profile*, uint64_t, stackrec_str);
const std::pair<const char*, EndpointCall> kEndpointCalls[] = {
    {"stackrec_profile_record_endpoint", stackrec_profile_record_endpoint},
    {"stackrec_profile_set_endpoint", stackrec_profile_set_endpoint}};

}  // namespace

TEST_CASE("NULL handles and outputs are rejected by name") {
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  CHECK(stackrec_profile_add(nullptr, &b.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "profile is NULL");
  for (const auto& call : kEndpointCalls) {
    INFO(call.first);
    const EndpointCall record = call.second;
    CHECK(record(nullptr, 1, S("x")) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) == "profile is NULL");
  }
  CHECK(stackrec_profile_reset(nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "profile is NULL");

  stackrec_encoded* e = reinterpret_cast<stackrec_encoded*>(0x1);
  CHECK(stackrec_profile_serialize(nullptr, nullptr, &e) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "profile is NULL");
  CHECK(e == nullptr);  // *out is NULL on failure
  auto p = PopulatedProfile();
  CHECK(stackrec_profile_serialize(p.get(), nullptr, nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "out is NULL");

  Options o;
  CHECK(stackrec_profile_new(&o.opts, nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "out is NULL");
  stackrec_profile* created = reinterpret_cast<stackrec_profile*>(0x1);
  CHECK(stackrec_profile_new(nullptr, &created) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "opts is NULL");
  CHECK(created == nullptr);

  ExpectRejected([](stackrec_profile* p) { return stackrec_profile_add(p, nullptr); },
                 STACKREC_INVALID_ARGUMENT, "sample is NULL");
}

TEST_CASE("free functions and encoded getters accept NULL") {
  stackrec_profile_free(nullptr);
  stackrec_encoded_free(nullptr);
  CHECK(stackrec_encoded_data(nullptr) == nullptr);
  CHECK(stackrec_encoded_size(nullptr) == 0);
  CHECK(stackrec_encoded_start_ns(nullptr) == 0);
  CHECK(stackrec_encoded_end_ns(nullptr) == 0);
}

TEST_CASE("a NULL array or string with a non-zero length is rejected") {
  {
    SampleBuilder b;
    b.Frame("f").Values({1, 1, 1});
    stackrec_sample s = b.Get();
    s.locations = nullptr;
    ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                   STACKREC_INVALID_ARGUMENT, "sample.locations is NULL");
    s = b.Get();
    s.values = nullptr;
    ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                   STACKREC_INVALID_ARGUMENT, "sample.values is NULL");
    s = b.Get();
    s.labels = nullptr;
    s.labels_len = 1;
    ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                   STACKREC_INVALID_ARGUMENT, "sample.labels is NULL");
  }
  {
    stackrec_location loc{};
    loc.function.name = S("ok");
    loc.function.filename = stackrec_str{nullptr, 3};
    SampleBuilder b;
    b.Frame("first").Location(loc).Values({1, 1, 1});
    ExpectAddRejected(b, "sample.locations[1].function.filename.ptr is NULL");
  }
  {
    SampleBuilder b;
    b.Frame("f").Values({1, 1, 1});
    stackrec_label label{};
    label.key = stackrec_str{nullptr, 2};
    stackrec_sample s = b.Get();
    s.labels = &label;
    s.labels_len = 1;
    ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                   STACKREC_INVALID_ARGUMENT, "sample.labels[0].key.ptr is NULL");
  }
  for (const auto& call : kEndpointCalls) {
    INFO(call.first);
    const EndpointCall record = call.second;
    ExpectRejected(
        [&](stackrec_profile* p) {
          return record(p, 3, stackrec_str{nullptr, 4});
        },
        STACKREC_INVALID_ARGUMENT, "endpoint.ptr is NULL");
  }
}

TEST_CASE("a string of the length limit is accepted, one byte longer is rejected") {
  const size_t limit = size_t{1} << 24;
  const std::string longest(limit, 'a');
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("leaf").Frame(longest).Values({1, 1, 1});
  Add(p.get(), b);
  Add(p.get(), b);  // found by its fingerprint the second time
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 2);
  CHECK(FrameNames(out, out.sample(0)) == std::vector<std::string>{"leaf", longest});
  SampleBuilder too_long;
  too_long.Frame("leaf").Frame(std::string(limit + 1, 'a')).Values({1, 1, 1});
  ExpectAddRejected(too_long,
                    "sample.locations[1].function.name.len 16777217 is over the 16777216 byte "
                    "limit");
}

TEST_CASE("every string of a frame and of a label is checked for NULL and for the length limit") {
  // The string path checks the system name and the mapping's strings only
  // for frames that have some of them, and all of a sample's label strings
  // at once: each field is refused by name, whichever it is.
  const std::string too_long((size_t{1} << 24) + 1, 'a');
  struct Field {
    const char* name;
    stackrec_str* (*in_frame)(stackrec_location*);
  };
  const Field frame_fields[] = {
      {"function.name", [](stackrec_location* l) { return &l->function.name; }},
      {"function.system_name", [](stackrec_location* l) { return &l->function.system_name; }},
      {"function.filename", [](stackrec_location* l) { return &l->function.filename; }},
      {"mapping.filename", [](stackrec_location* l) { return &l->mapping.filename; }},
      {"mapping.build_id", [](stackrec_location* l) { return &l->mapping.build_id; }},
  };
  for (const Field& field : frame_fields) {
    for (bool null : {true, false}) {
      INFO(field.name << (null ? ": NULL" : ": too long"));
      stackrec_location loc{};
      loc.function.name = S("ok");
      *field.in_frame(&loc) =
          null ? stackrec_str{nullptr, 3} : stackrec_str{too_long.data(), too_long.size()};
      SampleBuilder b;
      b.Frame("first").Location(loc).Values({1, 1, 1});
      ExpectAddRejected(b, std::string("sample.locations[1].") + field.name +
                               (null ? ".ptr is NULL but its len is 3"
                                     : ".len 16777217 is over the 16777216 byte limit"));
    }
  }
  const char* label_fields[] = {"key", "str", "num_unit"};
  for (int f = 0; f < 3; ++f) {
    for (bool null : {true, false}) {
      INFO(label_fields[f] << (null ? ": NULL" : ": too long"));
      stackrec_label labels[2] = {};
      labels[0].key = S("fine");
      labels[0].num = 1;
      labels[1].key = S("k");
      stackrec_str* target = f == 0   ? &labels[1].key
                             : f == 1 ? &labels[1].str
                                      : &labels[1].num_unit;
      *target = null ? stackrec_str{nullptr, 3} : stackrec_str{too_long.data(), too_long.size()};
      SampleBuilder b;
      b.Frame("f").Values({1, 1, 1});
      stackrec_sample s = b.Get();
      s.labels = labels;
      s.labels_len = 2;
      ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                     STACKREC_INVALID_ARGUMENT,
                     std::string("sample.labels[1].") + label_fields[f] +
                         (null ? ".ptr is NULL but its len is 3"
                               : ".len 16777217 is over the 16777216 byte limit"));
    }
  }
}

TEST_CASE("a label string whose length no object can have is refused by name") {
  // A valid pointer to three bytes and a length past PTRDIFF_MAX: nothing
  // may be built from the length (a string_view that long traps in
  // hardened abseil) before it is checked.
  const size_t ptrdiff_max = static_cast<size_t>(std::numeric_limits<ptrdiff_t>::max());
  const size_t lengths[] = {ptrdiff_max, ptrdiff_max + 1, std::numeric_limits<size_t>::max() - 7,
                            std::numeric_limits<size_t>::max()};
  const char* fields[] = {"key", "str", "num_unit"};
  for (size_t len : lengths) {
    for (int f = 0; f < 3; ++f) {
      INFO(fields[f] << " of length " << len);
      stackrec_label label{};
      label.key = S("k");
      stackrec_str* target = f == 0 ? &label.key : f == 1 ? &label.str : &label.num_unit;
      *target = stackrec_str{"abc", len};
      SampleBuilder b;
      b.Frame("f").Values({1, 1, 1});
      stackrec_sample s = b.Get();
      s.labels = &label;
      s.labels_len = 1;
      ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                     STACKREC_INVALID_ARGUMENT,
                     std::string("sample.labels[0].") + fields[f] + ".len " + std::to_string(len) +
                         " is over the 16777216 byte limit");
    }
  }
}

TEST_CASE("a stack or an array over its limit is refused before it is read") {
  // The pointers are to one element: nothing past the limit check may read.
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  stackrec_sample s = b.Get();
  s.locations_len = STACKREC_MAX_STACK_LEN + 1;
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                 STACKREC_INVALID_ARGUMENT,
                 "sample.locations_len 1048577 is over the limit of 1048576");
  s = b.Get();
  s.labels_len = STACKREC_MAX_ARRAY_LEN + 1;
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                 STACKREC_INVALID_ARGUMENT, "sample.labels_len 65537 is over the limit of 65536");
}

TEST_CASE("a long label set names the first key that repeats, and takes the most labels") {
  // Past a few labels the repeat check sorts the keys; it must name the
  // same pair as the pairwise check: the first label that repeats, and the
  // label it repeats.
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back("k" + std::to_string(i));
  keys[90] = keys[10];
  keys[70] = keys[30];
  keys[75] = keys[30];
  SampleBuilder repeated;
  repeated.Frame("f").Values({1, 1, 1});
  for (const std::string& k : keys) repeated.NumLabel(k, 1);
  ExpectAddRejected(repeated, "sample.labels[70].key repeats sample.labels[30].key");

  auto p = NewProfile();
  SampleBuilder most;
  most.Frame("f").Values({1, 1, 1});
  for (size_t i = 0; i < STACKREC_MAX_ARRAY_LEN; ++i) most.NumLabel("k" + std::to_string(i), 1);
  Add(p.get(), most);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  REQUIRE(out.sample(0).label_size() == static_cast<int>(STACKREC_MAX_ARRAY_LEN));
  CHECK(out.string_table(static_cast<int>(out.sample(0).label(65535).key())) == "k65535");
}

TEST_CASE("lengths whose byte size overflows are rejected") {
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  stackrec_sample s = b.Get();
  s.locations_len = std::numeric_limits<size_t>::max() / 4;
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                 STACKREC_INVALID_ARGUMENT, "sample.locations_len");
  s = b.Get();
  s.values_len = std::numeric_limits<size_t>::max();
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                 STACKREC_INVALID_ARGUMENT, "sample.values_len");
  Options o;
  o.opts.sample_types_len = std::numeric_limits<size_t>::max() / 8;
  stackrec_profile* created = nullptr;
  CHECK(stackrec_profile_new(&o.opts, &created) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts.sample_types_len") != std::string::npos);
  CHECK(created == nullptr);
}

TEST_CASE("the wrong number of values is rejected") {
  SampleBuilder two, four;
  two.Frame("f").Values({1, 2});
  four.Frame("f").Values({1, 2, 3, 4});
  ExpectAddRejected(two, "sample.values_len is 2 but the profile declares 3");
  ExpectAddRejected(four, "sample.values_len is 4 but the profile declares 3");
}

TEST_CASE("with a sample type disabled, a sample still brings a value for every declared type") {
  // Two values are as many as the profile stores, not as many as it
  // declares: refused on both paths, and the profile keeps what it had.
  Options o;
  const bool enabled[] = {true, false, true};
  o.opts.sample_types_enabled = enabled;
  auto p = NewProfile(o.opts);
  SampleBuilder good, short_by_one;
  good.Frame("f").Values({5, 6, 7});
  short_by_one.Frame("f").Values({1, 2});
  Add(p.get(), good);
  const std::string before = Snapshot(p.get());
  const std::string expected = "sample.values_len is 2 but the profile declares 3 sample types";
  CHECK(stackrec_profile_add(p.get(), &short_by_one.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == expected);
  uint32_t function_id = 0, location_id = 0, stack_id = 0;
  stackrec_function f{};
  f.name = S("f");
  REQUIRE(stackrec_profile_intern_function(p.get(), &f, &function_id) == STACKREC_OK);
  stackrec_interned_location loc{};
  loc.function_id = function_id;
  REQUIRE(stackrec_profile_intern_location(p.get(), &loc, &location_id) == STACKREC_OK);
  REQUIRE(stackrec_profile_intern_stack(p.get(), &location_id, 1, &stack_id) == STACKREC_OK);
  const int64_t two[] = {1, 2};
  stackrec_id_sample by_id{};
  by_id.stack_id = stack_id;
  by_id.values = two;
  by_id.values_len = 2;
  CHECK(stackrec_profile_add_ids(p.get(), &by_id) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == expected);
  CHECK(Snapshot(p.get()) == before);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  CHECK(std::vector<int64_t>(out.sample(0).value().begin(), out.sample(0).value().end()) ==
        std::vector<int64_t>{5, 7});
}

TEST_CASE("bad labels are rejected: empty key, duplicate key, string and number") {
  SampleBuilder empty_key, duplicate, both, str_unit, reserved;
  empty_key.Frame("f").Values({1, 1, 1}).Label("", "x");
  ExpectAddRejected(empty_key, "sample.labels[0].key is empty");
  duplicate.Frame("f").Values({1, 1, 1}).Label("a", "x").NumLabel("b", 1).NumLabel("a", 2);
  ExpectAddRejected(duplicate, "sample.labels[2].key repeats sample.labels[0].key");
  both.Frame("f").Values({1, 1, 1});
  both.Label("a", "x");
  stackrec_label l{};
  l.key = S("mixed");
  l.str = S("text");
  l.num = 3;
  stackrec_sample s = both.Get();
  s.labels = &l;
  s.labels_len = 1;
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                 STACKREC_INVALID_ARGUMENT,
                 "sample.labels[0] has both a string and a non-zero num");
  l.num = 0;
  l.num_unit = S("bytes");
  ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add(p, &s); },
                 STACKREC_INVALID_ARGUMENT, "sample.labels[0] has both a string and a num_unit");
  reserved.Frame("f").Values({1, 1, 1}).NumLabel("end_timestamp_ns", 5).Timestamp(99);
  ExpectAddRejected(reserved, "sample.labels[0].key \"end_timestamp_ns\" is reserved");
}

TEST_CASE("invalid UTF-8 is rejected in every string, naming the field") {
  const std::string bad(kBadUtf8);
  {
    SampleBuilder b;
    b.Frame("fine").Frame(bad).Values({1, 1, 1});
    ExpectAddRejected(b, "sample.locations[1].function.name is not valid UTF-8");
  }
  {
    SampleBuilder b;
    b.Frame("fine", bad).Values({1, 1, 1});
    ExpectAddRejected(b, "sample.locations[0].function.filename is not valid UTF-8");
  }
  {
    stackrec_location loc{};
    loc.mapping.filename = S("/bin/ok");
    loc.mapping.build_id = S(kBadUtf8);
    SampleBuilder b;
    b.Location(loc).Values({1, 1, 1});
    ExpectAddRejected(b, "sample.locations[0].mapping.build_id is not valid UTF-8");
  }
  {
    stackrec_location loc{};
    loc.function.name = S("ok");
    loc.function.system_name = S("\xED\xA0\x80");  // a UTF-16 surrogate
    SampleBuilder b;
    b.Location(loc).Values({1, 1, 1});
    ExpectAddRejected(b, "sample.locations[0].function.system_name is not valid UTF-8");
  }
  {
    SampleBuilder b;
    b.Frame("f").Values({1, 1, 1}).Label("k", "\xC0\x80");  // overlong NUL
    ExpectAddRejected(b, "sample.labels[0].str is not valid UTF-8");
  }
  {
    SampleBuilder b;
    b.Frame("f").Values({1, 1, 1}).NumLabel("\xFF", 1);
    ExpectAddRejected(b, "sample.labels[0].key is not valid UTF-8");
  }
  {
    SampleBuilder b;
    b.Frame("f").Values({1, 1, 1}).NumLabel("n", 1, "\xF4\x90\x80\x80");  // > U+10FFFF
    ExpectAddRejected(b, "sample.labels[0].num_unit is not valid UTF-8");
  }
  for (const auto& call : kEndpointCalls) {
    INFO(call.first);
    const EndpointCall record = call.second;
    ExpectRejected([&](stackrec_profile* p) { return record(p, 3, S(kBadUtf8)); },
                   STACKREC_INVALID_ARGUMENT, "endpoint is not valid UTF-8");
  }
  // Valid multi-byte text is accepted and round trips.
  auto p = NewProfile();
  SampleBuilder ok;
  ok.Frame("π::résumé 🙂", "/app/日本.rb").Values({1, 1, 1}).Label("ключ", "значение");
  Add(p.get(), ok);
  const Profile out = SerializeAndDecode(p.get());
  CHECK(FrameNames(out, out.sample(0)) == std::vector<std::string>{"π::résumé 🙂"});
  CHECK(StrLabel(out, out.sample(0), "ключ") == "значение");
}

TEST_CASE("bad endpoints are rejected: span id 0 and the empty endpoint") {
  for (const auto& call : kEndpointCalls) {
    INFO(call.first);
    const EndpointCall record = call.second;
    ExpectRejected([&](stackrec_profile* p) { return record(p, 0, S("GET /")); },
                   STACKREC_INVALID_ARGUMENT, "local_root_span_id is 0");
    ExpectRejected([&](stackrec_profile* p) { return record(p, 11, S("")); },
                   STACKREC_INVALID_ARGUMENT, "endpoint is empty");
  }
}

TEST_CASE("bad profile options are rejected by field") {
  auto expect = [](const stackrec_profile_options& opts, const std::string& needle) {
    stackrec_profile* p = reinterpret_cast<stackrec_profile*>(0x1);
    CHECK(stackrec_profile_new(&opts, &p) == STACKREC_INVALID_ARGUMENT);
    INFO("message: " << stackrec_last_error());
    CHECK(std::string(stackrec_last_error()).find(needle) != std::string::npos);
    CHECK(p == nullptr);
  };
  Options none;
  none.opts.sample_types_len = 0;
  expect(none.opts, "opts.sample_types_len is 0");
  Options null_types;
  null_types.opts.sample_types = nullptr;
  expect(null_types.opts, "opts.sample_types is NULL");
  Options empty_name;
  empty_name.types[1].type = S("");
  expect(empty_name.opts, "opts.sample_types[1].type is empty");
  Options bad_unit;
  bad_unit.types[2].unit = S(kBadUtf8);
  expect(bad_unit.opts, "opts.sample_types[2].unit is not valid UTF-8");
  Options negative;
  negative.opts.period = -1;
  expect(negative.opts, "opts.period is negative");
  Options unit_only;
  unit_only.opts.period_type.unit = S("nanoseconds");
  expect(unit_only.opts, "opts.period_type.type is empty");
  Options all_disabled;
  const bool off[] = {false, false, false};
  all_disabled.opts.sample_types_enabled = off;
  expect(all_disabled.opts, "opts.sample_types_enabled disables every sample type");
}

TEST_CASE("an unknown compression or an out-of-range level is rejected") {
  auto expect = [](int compression, int level, const std::string& needle) {
    ExpectRejected(
        [&](stackrec_profile* p) {
          stackrec_serialize_options o =
              SerializeOptions(static_cast<stackrec_compression>(compression), level);
          stackrec_encoded* e = reinterpret_cast<stackrec_encoded*>(0x1);
          const stackrec_status st = stackrec_profile_serialize(p, &o, &e);
          CHECK(e == nullptr);
          return st;
        },
        STACKREC_INVALID_ARGUMENT, needle);
  };
  expect(3, 0, "opts.compression is 3");
  expect(-1, 0, "opts.compression is -1");
  expect(STACKREC_COMPRESSION_GZIP, 10, "opts.level is 10; gzip takes 0 (default) or 1-9");
  expect(STACKREC_COMPRESSION_GZIP, -1, "opts.level is -1");
  expect(STACKREC_COMPRESSION_ZSTD, 20, "opts.level is 20; zstd takes 0 (default) or 1-19");
  expect(STACKREC_COMPRESSION_NONE, 1, "opts.level is 1 but compression NONE takes level 0");
}

TEST_CASE("status names cover every code and unknown values") {
  CHECK(std::string(stackrec_status_name(STACKREC_OK)) == "STACKREC_OK");
  CHECK(std::string(stackrec_status_name(STACKREC_INVALID_ARGUMENT)) ==
        "STACKREC_INVALID_ARGUMENT");
  CHECK(std::string(stackrec_status_name(STACKREC_OUT_OF_MEMORY)) == "STACKREC_OUT_OF_MEMORY");
  CHECK(std::string(stackrec_status_name(STACKREC_LIMIT_EXCEEDED)) == "STACKREC_LIMIT_EXCEEDED");
  CHECK(std::string(stackrec_status_name(STACKREC_BUSY)) == "STACKREC_BUSY");
  CHECK(std::string(stackrec_status_name(STACKREC_INTERNAL)) == "STACKREC_INTERNAL");
  CHECK(std::string(stackrec_status_name(static_cast<stackrec_status>(99))) == "STACKREC_UNKNOWN");
  CHECK(stackrec_last_error() != nullptr);
}

TEST_CASE("a struct size no version of the struct can have is refused by name") {
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  const stackrec_sample& s = b.Get();
  for (size_t size : {size_t{0}, sizeof(stackrec_sample) + 3, size_t{8192}}) {
    INFO("sample_size " << size);
    ExpectRejected([&](stackrec_profile* p) { return stackrec_profile_add_sized(p, &s, size); },
                   STACKREC_INVALID_ARGUMENT,
                   "sample_size " + std::to_string(size) + " is not the size");
  }
  Options o;
  auto r = NewRecorder(o.opts);
  stackrec_stats stats{};
  CHECK(stackrec_recorder_stats_sized(r.get(), &stats, 4) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("out_size 4 is not the size") != std::string::npos);
  stackrec_recorder* created = nullptr;
  CHECK(stackrec_recorder_new_sized(&o.opts, &created, 1) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()).find("opts_size 1 is not the size") !=
        std::string::npos);
  CHECK(created == nullptr);
}

TEST_CASE("invalid UTF-8 in a frame that max_frames cuts is still refused") {
  // Frames past max_frames are not kept, but they are the caller's strings
  // all the same: rule 3 of the header refuses invalid UTF-8 in any of them.
  Options o;
  o.opts.max_frames = 2;
  stackrec_location bad{};
  bad.function.name = S("cut");
  bad.mapping.filename = S(kBadUtf8);
  SampleBuilder b;
  b.Frame("leaf").Frame("mid").Frame("cut").Location(bad).Values({1, 1, 1});
  auto p = NewProfile(o.opts);
  for (int attempt = 0; attempt < 2; ++attempt) {
    CHECK(stackrec_profile_add(p.get(), &b.Get()) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) ==
          "sample.locations[3].mapping.filename is not valid UTF-8");
  }
  CHECK(SerializeAndDecode(p.get()).sample_size() == 0);

  std::vector<stackrec_value_type> types = {{S("heap-live-size"), S("bytes")}};
  const size_t live[] = {0};
  stackrec_profile_options heap{};
  heap.sample_types = types.data();
  heap.sample_types_len = 1;
  heap.max_frames = 2;
  heap.live_heap_types = live;
  heap.live_heap_types_len = 1;
  auto r = NewRecorder(heap);
  b.Values({64});
  CHECK(stackrec_recorder_track(r.get(), 1, &b.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "sample.locations[3].mapping.filename is not valid UTF-8");
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(r.get(), &stats) == STACKREC_OK);
  CHECK(stats.objects_tracked == 0);
}

namespace {

// A sample that breaks a rule of content is refused by name on every path
// that takes a sample by content: a profile's add (its content unchanged,
// see ExpectRejected), a recorder's record and a recorder's track (nothing
// recorded or tracked, every refusal counted).
void ExpectRefusedByContent(SampleBuilder& b, const std::string& needle) {
  INFO("refused for: " << needle);
  ExpectAddRejected(b, needle);

  Target recorder(Kind::kRecorder);
  SampleBuilder kept;
  kept.Frame("kept").Values({1, 1, 1});
  REQUIRE(recorder.Add(&kept.Get()) == STACKREC_OK);
  for (int attempt = 0; attempt < 2; ++attempt) {
    CHECK(recorder.Add(&b.Get()) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()).find(needle) != std::string::npos);
  }
  const Profile out = recorder.Take();
  REQUIRE(out.sample_size() == 1);
  CHECK(FrameNames(out, out.sample(0)) == std::vector<std::string>{"kept"});
  stackrec_stats stats{};
  REQUIRE(stackrec_recorder_stats(recorder.recorder(), &stats) == STACKREC_OK);
  CHECK(stats.records_rejected == 2);

  // Every type a live-heap type, so that the sample's values may be tracked.
  Options o;
  const size_t live[] = {0, 1, 2};
  o.opts.live_heap_types = live;
  o.opts.live_heap_types_len = 3;
  auto heap = NewRecorder(o.opts);
  const int64_t timestamp = b.Get().timestamp_ns;
  // Track takes no timestamp at all, and says so for a negative one too.
  CHECK(stackrec_recorder_track(heap.get(), 7, &b.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error())
            .find(timestamp != 0 ? "sample.timestamp_ns is" : needle.c_str()) != std::string::npos);
  REQUIRE(stackrec_recorder_stats(heap.get(), &stats) == STACKREC_OK);
  CHECK(stats.objects_tracked == 0);
}

// As ExpectRefusedByContent for one frame, `bad`, put second in a stack;
// and third, past max_frames 2, where it is cut but still the caller's.
void ExpectFrameRefused(const stackrec_location& bad, const std::string& field_at_1,
                        const std::string& field_at_2) {
  SampleBuilder b;
  b.Frame("leaf").Location(bad).Frame("root").Values({1, 1, 1});
  ExpectRefusedByContent(b, field_at_1);
  Options o;
  o.opts.max_frames = 2;
  auto p = NewProfile(o.opts);
  SampleBuilder cut;
  cut.Frame("leaf").Frame("mid").Location(bad).Values({1, 1, 1});
  for (int attempt = 0; attempt < 2; ++attempt) {
    CHECK(stackrec_profile_add(p.get(), &cut.Get()) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()).find(field_at_2) != std::string::npos);
  }
  CHECK(SerializeAndDecode(p.get()).sample_size() == 0);
}

// An intern call refused by name on a profile and on a recorder, which
// still record what they interned before.
void ExpectInternRefused(const std::function<stackrec_status(Target&, uint32_t*)>& intern,
                         const std::string& message) {
  for (const Kind kind : {Kind::kProfile, Kind::kRecorder}) {
    INFO(KindName(kind));
    Target t(kind);
    for (int attempt = 0; attempt < 2; ++attempt) {
      uint32_t id = 77;
      CHECK(intern(t, &id) == STACKREC_INVALID_ARGUMENT);
      CHECK(id == 0);
      CHECK(std::string(stackrec_last_error()) == message);
    }
    const uint32_t fn = Intern(t, Fn("after"));
    const uint32_t stack = Intern(t, std::vector<uint32_t>{Intern(t, Loc(0, fn, 0, 1))});
    stackrec_id_sample s{};
    const int64_t values[] = {1, 1, 1};
    s.stack_id = stack;
    s.values = values;
    s.values_len = 3;
    AddIds(t, s);
    CHECK(t.Take().sample_size() == 1);
  }
}

}  // namespace

TEST_CASE("a negative timestamp is refused on every entry point") {
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1}).Timestamp(-5);
  ExpectRefusedByContent(
      b, "sample.timestamp_ns is -5: a timestamp counts nanoseconds since the Unix epoch");
  for (const Kind kind : {Kind::kProfile, Kind::kRecorder}) {
    INFO(KindName(kind));
    Target t(kind);
    const uint32_t stack =
        Intern(t, std::vector<uint32_t>{Intern(t, Loc(0, Intern(t, Fn("f")), 0, 1))});
    stackrec_id_sample s{};
    const int64_t values[] = {1, 1, 1};
    s.stack_id = stack;
    s.values = values;
    s.values_len = 3;
    s.timestamp_ns = -5;
    CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK(std::string(stackrec_last_error()) ==
          "sample.timestamp_ns is -5: a timestamp counts nanoseconds since the Unix epoch, and 0 "
          "means none");
    CHECK(t.Take().sample_size() == 0);
  }
}

TEST_CASE("negative lines and start lines are refused, naming the frame") {
  stackrec_location line{};
  line.function.name = S("f");
  line.line = -1;
  ExpectFrameRefused(line, "sample.locations[1].line is -1: lines count from 1, and 0 means none",
                     "sample.locations[2].line is -1");
  stackrec_location start{};
  start.function.name = S("f");
  start.function.start_line = -3;
  ExpectFrameRefused(start, "sample.locations[1].function.start_line is -3",
                     "sample.locations[2].function.start_line is -3");
  // A line of a frame without a function is not written, but refused all
  // the same: it is the caller's.
  stackrec_location bare{};
  bare.address = 0x10;
  bare.line = -2;
  ExpectFrameRefused(bare, "sample.locations[1].line is -2", "sample.locations[2].line is -2");

  ExpectInternRefused(
      [](Target& t, uint32_t* id) {
        const stackrec_interned_location l = Loc(0, 0, 0x10, -1);
        return t.InternLocation(&l, id);
      },
      "location.line is -1: lines count from 1, and 0 means none");
  ExpectInternRefused(
      [](Target& t, uint32_t* id) {
        const stackrec_function f = Fn("f", "f.rb", -4);
        return t.InternFunction(&f, id);
      },
      "function.start_line is -4: lines count from 1, and 0 means none");
}

TEST_CASE("a function with a start line but no name, system name or file name is refused") {
  stackrec_location nameless{};
  nameless.function.start_line = 12;
  ExpectFrameRefused(nameless,
                     "sample.locations[1].function has a start_line but no name, system_name or "
                     "filename",
                     "sample.locations[2].function has a start_line");
  ExpectInternRefused(
      [](Target& t, uint32_t* id) {
        const stackrec_function f = Fn("", "", 12);
        return t.InternFunction(&f, id);
      },
      "function has a start_line but no name, system_name or filename: a function is named");
}

TEST_CASE("a frame with nothing in it is refused") {
  const stackrec_location empty{};
  ExpectFrameRefused(empty,
                     "sample.locations[1] has no mapping, function or address: a frame holds at "
                     "least one",
                     "sample.locations[2] has no mapping, function or address");
  // Its line alone is not something: a line belongs to a function.
  stackrec_location line_only{};
  line_only.line = 4;
  ExpectFrameRefused(line_only, "sample.locations[1] has no mapping, function or address",
                     "sample.locations[2] has no mapping, function or address");
  ExpectInternRefused(
      [](Target& t, uint32_t* id) {
        const stackrec_interned_location l = Loc(0, 0, 0, 3);
        return t.InternLocation(&l, id);
      },
      "location has no mapping_id, function_id or address: a location holds at least one");
}

TEST_CASE("a mapping whose address range is inverted or empty is refused") {
  stackrec_location inverted{};
  inverted.function.name = S("f");
  inverted.mapping.memory_start = 0x2000;
  inverted.mapping.memory_limit = 0x1000;
  ExpectFrameRefused(inverted,
                     "sample.locations[1].mapping.memory_limit 0x1000 is not above "
                     "sample.locations[1].mapping.memory_start 0x2000: the range "
                     "[memory_start, memory_limit) is inverted",
                     "sample.locations[2].mapping.memory_limit 0x1000 is not above");
  stackrec_location empty = inverted;
  empty.mapping.memory_limit = 0x2000;
  ExpectFrameRefused(empty, "sample.locations[1].mapping.memory_limit 0x2000 is not above",
                     "[memory_start, memory_limit) is empty");
  stackrec_location no_limit = inverted;
  no_limit.mapping.memory_limit = 0;
  ExpectFrameRefused(no_limit, "sample.locations[1].mapping.memory_limit 0x0 is not above",
                     "is inverted");
  ExpectInternRefused(
      [](Target& t, uint32_t* id) {
        const stackrec_mapping m = Mapping(0x1000, 0x1000, 0, "/lib/x.so", "");
        return t.InternMapping(&m, id);
      },
      "mapping.memory_limit 0x1000 is not above mapping.memory_start 0x1000: the range "
      "[memory_start, memory_limit) is empty");
  // A mapping known by its file alone has no addresses at all: accepted.
  stackrec_location file_only{};
  file_only.function.name = S("f");
  file_only.mapping.filename = S("/lib/x.so");
  auto p = NewProfile();
  SampleBuilder b;
  b.Location(file_only).Values({1, 1, 1});
  Add(p.get(), b);
  CHECK(SerializeAndDecode(p.get()).mapping_size() == 1);
}

TEST_CASE("a number keyed end_timestamp_ns is refused, a string only with a timestamp") {
  // pprof readers take the number for the sample's timestamp, OTLP readers
  // for an attribute: the two formats would disagree.
  SampleBuilder number;
  number.Frame("f").Values({1, 1, 1}).NumLabel("end_timestamp_ns", 5);
  ExpectRefusedByContent(number,
                         "sample.labels[0].key \"end_timestamp_ns\" with a number is a timestamp "
                         "to pprof readers and an attribute to OTLP ones");
  ExpectInternRefused(
      [](Target& t, uint32_t* id) {
        const stackrec_label l = NumLabel("end_timestamp_ns", 5);
        return t.InternLabels(&l, 1, id);
      },
      "labels[0].key \"end_timestamp_ns\" with a number is a timestamp to pprof readers and an "
      "attribute to OTLP ones: give the sample's timestamp_ns instead");
  // A string is an ordinary label, but for a timestamped sample.
  SampleBuilder text;
  text.Frame("f").Values({1, 1, 1}).Label("end_timestamp_ns", "late");
  auto p = NewProfile();
  Add(p.get(), text);
  const Profile out = SerializeAndDecode(p.get());
  CHECK(StrLabel(out, out.sample(0), "end_timestamp_ns") == "late");
  text.Timestamp(9);
  ExpectAddRejected(text, "sample.labels[0].key \"end_timestamp_ns\" is reserved");
}

TEST_CASE("a link with an all-zero id, or beside a label of its keys, is refused everywhere") {
  // OpenTelemetry defines all-zero trace and span ids as invalid.
  stackrec_link zero_trace{}, zero_span{}, good{};
  zero_trace.span_id[0] = 1;
  zero_span.trace_id[15] = 1;
  good.trace_id[0] = good.span_id[7] = 1;
  SampleBuilder b1, b2, b3;
  b1.Frame("f").Values({1, 1, 1}).Link(zero_trace);
  ExpectRefusedByContent(b1,
                         "sample.link.trace_id is all zero, which OpenTelemetry defines as an "
                         "invalid trace id");
  b2.Frame("f").Values({1, 1, 1}).Link(zero_span);
  ExpectRefusedByContent(b2, "sample.link.span_id is all zero");
  // The link is written under these keys: a caller's own would be ambiguous.
  b3.Frame("f").Values({1, 1, 1}).Label("span_id", "mine").Label("x", "y").Link(good);
  ExpectRefusedByContent(b3,
                         "sample.labels[0].key \"span_id\" is where the sample's link is "
                         "written: with a link, give no label of that key");

  for (const Kind kind : {Kind::kProfile, Kind::kRecorder}) {
    INFO(KindName(kind));
    Target t(kind);
    const uint32_t stack =
        Intern(t, std::vector<uint32_t>{Intern(t, Loc(0, Intern(t, Fn("f")), 0, 1))});
    const stackrec_label mine{S("trace_id"), S("mine"), 0, {}};
    const uint32_t labels_id = Intern(t, std::vector<stackrec_label>{mine});
    const int64_t values[] = {1, 1, 1};
    auto sample = [&] {
      stackrec_id_sample s{};
      s.stack_id = stack;
      s.values = values;
      s.values_len = 3;
      return s;
    };
    stackrec_id_sample s = sample();
    s.link = &zero_trace;
    CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK_THAT(stackrec_last_error(), Catch::Contains("sample.link.trace_id is all zero"));
    s = sample();
    s.labels_id = labels_id;
    s.link = &zero_span;
    CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK_THAT(stackrec_last_error(), Catch::Contains("sample.link.span_id is all zero"));
    s.link = &good;
    CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK_THAT(stackrec_last_error(),
               Catch::Contains("sample.labels_id " + std::to_string(labels_id) +
                               " has the key \"trace_id\", where the sample's link is written"));
    s = sample();
    s.labels = &mine;
    s.labels_len = 1;
    s.link = &good;
    CHECK(t.AddIds(&s) == STACKREC_INVALID_ARGUMENT);
    CHECK_THAT(stackrec_last_error(),
               Catch::Contains("sample.labels[0].key \"trace_id\" is where the sample's link"));
    CHECK(t.Take().sample_size() == 0);
    // Without a link, those labels are ordinary.
    s.link = nullptr;
    AddIds(t, s);
    const Profile out = t.Take();
    REQUIRE(out.sample_size() == 1);
    CHECK(StrLabel(out, out.sample(0), "trace_id") == "mine");
  }
}
