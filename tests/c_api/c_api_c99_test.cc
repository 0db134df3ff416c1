// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Runs the C99 program in c_api_test.c and decodes what it wrote.
#include <cstdlib>

#include "catch2/catch.hpp"
#include "support/test_support.h"

extern "C" int stackrec_c_api_exercise(int compression, unsigned char** bytes, size_t* size,
                                       int64_t* start_ns, int64_t* end_ns);
extern "C" int stackrec_c_api_exercise_recorder(unsigned char** bytes, size_t* size);
extern "C" int stackrec_c_api_exercise_live_heap(unsigned char** bytes, size_t* size);

using namespace stackrec_test;
using Strings = std::vector<std::string>;

TEST_CASE("the header works from C99, and what C wrote decodes field by field") {
  for (int compression :
       {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_NONE, STACKREC_COMPRESSION_ZSTD}) {
    unsigned char* bytes = nullptr;
    size_t size = 0;
    int64_t start_ns = 0, end_ns = 0;
    REQUIRE(stackrec_c_api_exercise(compression, &bytes, &size, &start_ns, &end_ns) == 1);
    const std::string data(reinterpret_cast<char*>(bytes), size);
    std::free(bytes);
    const Profile out = Decode(data);
    CheckInvariants(out);
    CHECK(SampleTypes(out) == Strings{"cpu-time/nanoseconds", "cpu-samples/count"});
    CHECK(Str(out, out.period_type().type()) == "cpu-time");
    CHECK(out.period() == 10);
    CHECK(out.time_nanos() == start_ns);
    CHECK(out.time_nanos() + out.duration_nanos() == end_ns);
    REQUIRE(out.sample_size() == 2);
    const auto& agg = out.sample(0);
    CHECK(FrameNames(out, agg) == Strings{"c_leaf", "main"});
    CHECK(std::vector<int64_t>(agg.value().begin(), agg.value().end()) ==
          std::vector<int64_t>{2000, 2});
    CHECK(LabelStrings(out, agg) ==
          Strings{"trace endpoint=GET /c", "thread name=c thread", "local root span id=77"});
    const auto& timed = out.sample(1);
    CHECK(std::vector<int64_t>(timed.value().begin(), timed.value().end()) ==
          std::vector<int64_t>{1000, 1});
    CHECK(LabelStrings(out, timed) == Strings{"trace endpoint=GET /c", "thread name=c thread",
                                              "local root span id=77",
                                              "end_timestamp_ns=123456789"});
    REQUIRE(out.mapping_size() == 1);
    CHECK(Str(out, out.mapping(0).filename()) == "/bin/c");
    CHECK(Str(out, out.mapping(0).build_id()) == "abc123");
  }
}

TEST_CASE("the recorder half of the header works from C99, and its output decodes") {
  unsigned char* bytes = nullptr;
  size_t size = 0;
  REQUIRE(stackrec_c_api_exercise_recorder(&bytes, &size) == 1);
  const std::string data(reinterpret_cast<char*>(bytes), size);
  std::free(bytes);
  const Profile out = Decode(data);
  CheckInvariants(out);
  CHECK(SampleTypes(out) == Strings{"cpu-samples/count"});
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 5);
  CHECK(FrameNames(out, out.sample(0)) == Strings{"recorded_from_c"});
  CHECK(LabelStrings(out, out.sample(0)) ==
        Strings{"trace endpoint=GET /r", "local root span id=9"});
}

TEST_CASE("live-heap tracking works from C99, and its output decodes") {
  unsigned char* bytes = nullptr;
  size_t size = 0;
  REQUIRE(stackrec_c_api_exercise_live_heap(&bytes, &size) == 1);
  const std::string data(reinterpret_cast<char*>(bytes), size);
  std::free(bytes);
  const Profile out = Decode(data);
  CheckInvariants(out);
  CHECK(SampleTypes(out) == Strings{"heap-live-samples/count", "heap-live-size/bytes"});
  REQUIRE(out.sample_size() == 1);
  CHECK(FrameNames(out, out.sample(0)) == Strings{"c_alloc"});
  CHECK(out.sample(0).value(0) == 2);
  CHECK(out.sample(0).value(1) == 8192);
}
