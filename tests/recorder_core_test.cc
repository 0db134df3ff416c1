// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Tests of the C++ core that need more control than the C API gives: an
// injected clock to hold a serialization open.
#include <algorithm>
#include <atomic>
#include <string>
#include <vector>
#include <thread>

#include "catch2/catch.hpp"
#include "pprof_decode.h"
#include "recorder.h"

using namespace stackrec_test;

namespace {

// An encoded profile's bytes, for the decoder.
std::string Bytes(const stackrec::EncodedProfile& encoded) {
  return std::string(encoded.bytes.data(), encoded.bytes.size());
}

// A clock for stackrec::Recorder::Serialize that stops inside the
// serialization until released, so a test can call Serialize meanwhile.
std::atomic<bool> clock_entered{false};
std::atomic<bool> clock_release{false};
int64_t BlockingClock() {
  clock_entered.store(true);
  while (!clock_release.load()) std::this_thread::yield();
  return 1000;
}
int64_t FixedClock() { return 2000; }

}  // namespace

TEST_CASE("a second concurrent serialize gets BUSY and does not disturb the first") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 500);
  stackrec::LocationView frame;
  frame.function.name = "f";
  const int64_t one = 1;
  stackrec::SampleView sample;
  sample.locations = absl::MakeConstSpan(&frame, 1);
  sample.values = absl::MakeConstSpan(&one, 1);
  REQUIRE(recorder.Record(sample).ok());

  clock_entered = false;
  clock_release = false;
  stackrec::EncodedProfile first;
  stackrec::Status first_status;
  std::thread serializer([&] {
    first_status = recorder.Serialize({}, &BlockingClock, &first);
  });
  while (!clock_entered.load()) std::this_thread::yield();
  stackrec::EncodedProfile second;
  const stackrec::Status busy = recorder.Serialize({}, &FixedClock, &second);
  CHECK(busy.code() == stackrec::Code::kBusy);
  CHECK(std::string(stackrec::LastErrorMessage()).find("another thread is serializing") !=
        std::string::npos);
  CHECK(second.bytes.empty());
  clock_release = true;
  serializer.join();

  REQUIRE(first_status.ok());
  CHECK(first.start_ns == 500);
  CHECK(first.end_ns == 1000);
  const Profile out = Decode(Bytes(first));
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 1);
  // Afterwards serialization works again, starting at the first one's end.
  stackrec::EncodedProfile third;
  REQUIRE(recorder.Serialize({}, &FixedClock, &third).ok());
  CHECK(third.start_ns == 1000);
  CHECK(third.end_ns == 2000);
  CHECK(Decode(Bytes(third)).sample_size() == 0);
}


TEST_CASE("slots keep their tables while they are in use and shed what stops being used") {
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Recorder recorder(options, 500);
  const int64_t one = 1;
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) names.push_back("function_" + std::to_string(i));
  // Every flip: the same 50 stacks, but each sample with a span id never
  // seen before (a new label set), as requests come and go.
  size_t at_flip_10 = 0, most = 0;
  int64_t span = 0;
  for (int flip = 1; flip <= 60; ++flip) {
    for (int i = 0; i < 500; ++i) {
      stackrec::LocationView frames[2];
      frames[0].function.name = names[static_cast<size_t>(i % 50)];
      frames[1].function.name = "main";
      stackrec::LabelView label;
      label.key = "local root span id";
      label.num = ++span;
      stackrec::SampleView sample;
      sample.locations = absl::MakeConstSpan(frames, 2);
      sample.values = absl::MakeConstSpan(&one, 1);
      sample.labels = absl::MakeConstSpan(&label, 1);
      REQUIRE(recorder.Record(sample).ok());
    }
    stackrec::EncodedProfile out;
    REQUIRE(recorder.Serialize({}, &FixedClock, &out).ok());
    const perftools::profiles::Profile decoded = stackrec_test::Decode(Bytes(out));
    REQUIRE(decoded.sample_size() == 500);
    if (flip == 10) at_flip_10 = recorder.SlotMemoryBytes();
    if (flip > 10) most = std::max(most, recorder.SlotMemoryBytes());
  }
  // Label sets of finished requests are dropped; the rest is kept.
  CHECK(most <= 2 * at_flip_10);
}

TEST_CASE("a slot cleared for the next interval frees its keys' storage") {
  // A recorder clears a slot whose entries are still in use; the slot then
  // waits a whole interval while the other fills, so it must not keep the
  // key index and rows of the interval it had.
  stackrec::ProfileOptions input, options;
  input.sample_types = {{"cpu-samples", "count"}};
  REQUIRE(stackrec::MakeProfileOptions(input, &options).ok());
  stackrec::Profile profile(options, 0, 0);
  const int64_t one = 1;
  stackrec::LocationView frame;
  frame.function.name = "work";
  constexpr int kKeys = 20000;
  for (int i = 0; i < kKeys; ++i) {
    stackrec::LabelView label;
    label.key = "thread id";
    label.num = i;
    stackrec::SampleView sample;
    sample.locations = absl::MakeConstSpan(&frame, 1);
    sample.values = absl::MakeConstSpan(&one, 1);
    sample.labels = absl::MakeConstSpan(&label, 1);
    REQUIRE(profile.Add(sample).ok());
  }
  REQUIRE(profile.key_count() == kKeys);
  const size_t full = profile.MemoryBytes();
  profile.ClearSamples(0);
  CHECK(profile.key_count() == 0);
  // Each key held at least its (stack, labels), one value and an index
  // slot (12 bytes and a control byte).
  CHECK(full - profile.MemoryBytes() >= size_t{kKeys} * (8 + 8 + 13));
}
