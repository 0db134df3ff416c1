// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The options written as they are (default_sample_type, comments,
// drop_frames, keep_frames) and the per-serialization stats of an encoded
// profile.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;
using Strings = std::vector<std::string>;

namespace {

Strings Comments(const Profile& p) {
  Strings out;
  for (int64_t c : p.comment()) out.push_back(Str(p, c));
  return out;
}

EncodedPtr SerializeEncoded(stackrec_profile* p,
                            stackrec_compression c = STACKREC_COMPRESSION_GZIP) {
  stackrec_serialize_options so{};
  so.compression = c;
  stackrec_encoded* e = nullptr;
  INFO(stackrec_last_error());
  REQUIRE(stackrec_profile_serialize(p, &so, &e) == STACKREC_OK);
  return EncodedPtr(e);
}

stackrec_encode_stats StatsOf(const stackrec_encoded* e) {
  stackrec_encode_stats s{};
  REQUIRE(stackrec_encoded_stats(e, &s) == STACKREC_OK);
  return s;
}

std::string Bytes(const stackrec_encoded* e) {
  return std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                     stackrec_encoded_size(e));
}

}  // namespace

TEST_CASE("default_sample_type, comments, drop_frames and keep_frames are written as given") {
  Options o;
  const stackrec_str comments[] = {S("host: web-1"), S("π build 7"), S("")};
  o.opts.default_sample_type = S("wall-time");
  o.opts.comments = comments;
  o.opts.comments_len = 3;
  o.opts.drop_frames = S("^runtime\\.");
  o.opts.keep_frames = S("^runtime\\.main$");
  auto p = NewProfile(o.opts);
  SampleBuilder b;
  b.Frame("main").Values({1, 2, 3});
  Add(p.get(), b);

  for (int round = 0; round < 2; ++round) {
    const Profile out = SerializeAndDecode(p.get());
    CHECK(Str(out, out.default_sample_type()) == "wall-time");
    CHECK(Comments(out) == Strings{"host: web-1", "π build 7", ""});
    CHECK(Str(out, out.drop_frames()) == "^runtime\\.");
    CHECK(Str(out, out.keep_frames()) == "^runtime\\.main$");
    REQUIRE(out.sample_size() == (round == 0 ? 1 : 0));
    // They survive a reset: they describe the profile, not its samples.
    REQUIRE(stackrec_profile_reset(p.get()) == STACKREC_OK);
  }
}

TEST_CASE("unset options write nothing") {
  auto p = NewProfile();
  const Profile out = SerializeAndDecode(p.get());
  CHECK(out.default_sample_type() == 0);
  CHECK(out.comment_size() == 0);
  CHECK(out.drop_frames() == 0);
  CHECK(out.keep_frames() == 0);
  CHECK(out.string_table_size() == 6);  // "", three types, two units
}

TEST_CASE("the written options go out with every profile of a recorder") {
  Options o;
  const stackrec_str comments[] = {S("pid 42")};
  o.opts.default_sample_type = S("cpu-time");
  o.opts.comments = comments;
  o.opts.comments_len = 1;
  o.opts.drop_frames = S("^rb_");
  auto r = NewRecorder(o.opts);
  SampleBuilder b;
  b.Frame("main").Values({1, 2, 3});
  for (int flip = 0; flip < 3; ++flip) {
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
    EncodedPtr owned(e);
    const Profile out = Decode(Bytes(e));
    CheckInvariants(out);
    CHECK(Str(out, out.default_sample_type()) == "cpu-time");
    CHECK(Comments(out) == Strings{"pid 42"});
    CHECK(Str(out, out.drop_frames()) == "^rb_");
    CHECK(out.keep_frames() == 0);
    REQUIRE(out.sample_size() == 1);
  }
}

TEST_CASE("bad written options are refused, naming the field") {
  struct Case {
    const char* name;
    void (*set)(stackrec_profile_options&);
    const char* message;
  };
  static const char kBad[] = "\xC3\x28";
  static const stackrec_str kBadComments[] = {{"ok", 2}, {kBad, 2}};
  static const stackrec_str kNullComment[] = {{nullptr, 3}};
  static const bool kEnabled[] = {true, true, false};
  const Case cases[] = {
      {"unknown default type",
       [](stackrec_profile_options& o) { o.default_sample_type = S("alloc"); },
       "opts.default_sample_type \"alloc\" is not the type of an enabled sample type"},
      {"unit as default type",
       [](stackrec_profile_options& o) { o.default_sample_type = S("nanoseconds"); },
       "opts.default_sample_type \"nanoseconds\" is not the type of an enabled sample type"},
      {"disabled default type",
       [](stackrec_profile_options& o) {
         o.sample_types_enabled = kEnabled;
         o.default_sample_type = S("wall-time");
       },
       "opts.default_sample_type \"wall-time\" is not the type of an enabled sample type"},
      {"comment not UTF-8",
       [](stackrec_profile_options& o) {
         o.comments = kBadComments;
         o.comments_len = 2;
       },
       "opts.comments[1] is not valid UTF-8"},
      {"comment NULL with length",
       [](stackrec_profile_options& o) {
         o.comments = kNullComment;
         o.comments_len = 1;
       },
       "opts.comments[0].ptr is NULL but its len is 3"},
      {"comments NULL with length", [](stackrec_profile_options& o) { o.comments_len = 2; },
       "opts.comments is NULL but opts.comments_len is 2"},
      {"drop_frames not UTF-8",
       [](stackrec_profile_options& o) {
         o.drop_frames = {kBad, 2};
       },
       "opts.drop_frames is not valid UTF-8"},
      {"keep_frames NULL with length",
       [](stackrec_profile_options& o) {
         o.keep_frames = {nullptr, 1};
       },
       "opts.keep_frames.ptr is NULL but its len is 1"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Options o;
      c.set(o.opts);
      stackrec_profile* p = reinterpret_cast<stackrec_profile*>(&o);
      CHECK(stackrec_profile_new(&o.opts, &p) == STACKREC_INVALID_ARGUMENT);
      CHECK(p == nullptr);
      CHECK(std::string(stackrec_last_error()) == c.message);
      stackrec_recorder* r = reinterpret_cast<stackrec_recorder*>(&o);
      CHECK(stackrec_recorder_new(&o.opts, &r) == STACKREC_INVALID_ARGUMENT);
      CHECK(r == nullptr);
      CHECK(std::string(stackrec_last_error()) == c.message);
    }
  }
}

TEST_CASE("an encoded profile reports what its serialization wrote") {
  Options o;
  o.opts.max_frames = 3;
  auto p = NewProfile(o.opts);
  SampleBuilder a, deep, timed;
  a.Frame("leaf", "a.rb", 1)
      .Frame("main", "a.rb", 9)
      .Values({10, 1, 10})
      .Label("thread name", "w1");
  for (int i = 0; i < 5; ++i) deep.Frame("d" + std::to_string(i));
  deep.Values({1, 1, 1});
  timed.Frame("main", "a.rb", 9).Values({5, 1, 5}).Timestamp(1234);
  Add(p.get(), a);
  Add(p.get(), a);
  Add(p.get(), deep);
  Add(p.get(), timed);

  for (stackrec_compression c :
       {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_NONE, STACKREC_COMPRESSION_ZSTD}) {
    auto e = SerializeEncoded(p.get(), c);
    const stackrec_encode_stats s = StatsOf(e.get());
    const std::string raw = Decompress(Bytes(e.get()));
    const Profile out = Decode(Bytes(e.get()));
    CheckInvariants(out);
    CHECK(s.samples_recorded == 4);
    CHECK(s.samples_truncated == 1);
    CHECK(s.samples_over_memory == 0);
    CHECK(s.samples_written == 3);
    CHECK(out.sample_size() == 3);
    CHECK(s.samples_left_out == 0);
    CHECK(s.locations_written == static_cast<uint64_t>(out.location_size()));
    CHECK(s.locations_written == 6);  // leaf, main, d0-d2, the truncation frame
    CHECK(s.functions_written == static_cast<uint64_t>(out.function_size()));
    CHECK(s.mappings_written == 0);
    CHECK(s.strings_written == static_cast<uint64_t>(out.string_table_size()));
    CHECK(s.uncompressed_bytes == raw.size());
    CHECK(s.compressed_bytes == stackrec_encoded_size(e.get()));
    CHECK(s.encode_ns > 0);
  }
  // A reset starts the counts again.
  REQUIRE(stackrec_profile_reset(p.get()) == STACKREC_OK);
  auto e = SerializeEncoded(p.get());
  const stackrec_encode_stats s = StatsOf(e.get());
  CHECK(s.samples_recorded == 0);
  CHECK(s.samples_truncated == 0);
  CHECK(s.samples_written == 0);
  CHECK(s.strings_written == 6);
}

TEST_CASE("encoded stats count what max_output_bytes left out") {
  Options o;
  o.opts.max_output_bytes = 600;
  auto p = NewProfile(o.opts);
  for (int i = 0; i < 200; ++i) {
    SampleBuilder b;
    b.Frame("function_number_" + std::to_string(i)).Values({i + 1, 1, 1});
    Add(p.get(), b);
  }
  auto e = SerializeEncoded(p.get());
  const stackrec_encode_stats s = StatsOf(e.get());
  const Profile out = Decode(Bytes(e.get()));
  REQUIRE(out.sample_size() >= 1);
  CHECK(s.samples_recorded == 200);
  CHECK(s.samples_written == static_cast<uint64_t>(out.sample_size()));
  CHECK(s.samples_left_out == 200 - static_cast<uint64_t>(out.sample_size() - 1));
  CHECK(s.compressed_bytes <= 600);
}

TEST_CASE("a recorder's encoded profile reports its slot's figures") {
  Options o;
  auto r = NewRecorder(o.opts);
  SampleBuilder a, b;
  a.Frame("a").Values({1, 1, 1});
  b.Frame("b").Values({1, 1, 1});
  for (int i = 0; i < 3; ++i) REQUIRE(stackrec_recorder_record(r.get(), &a.Get()) == STACKREC_OK);
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr first(e);
  stackrec_encode_stats s = StatsOf(first.get());
  CHECK(s.samples_recorded == 4);
  CHECK(s.samples_written == 2);
  CHECK(s.functions_written == 2);
  CHECK(s.compressed_bytes == stackrec_encoded_size(first.get()));
  stackrec_stats rs{};
  REQUIRE(stackrec_recorder_stats(r.get(), &rs) == STACKREC_OK);
  CHECK(s.encode_ns == rs.last_serialize_ns);

  // The next profile counts only its own slot's records.
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr second(e);
  s = StatsOf(second.get());
  CHECK(s.samples_recorded == 1);
  CHECK(s.samples_written == 1);
}

TEST_CASE("stackrec_encoded_stats refuses NULL arguments") {
  auto p = NewProfile();
  auto e = SerializeEncoded(p.get());
  stackrec_encode_stats s{};
  CHECK(stackrec_encoded_stats(nullptr, &s) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "encoded is NULL");
  CHECK(stackrec_encoded_stats(e.get(), nullptr) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) == "out is NULL");
}
