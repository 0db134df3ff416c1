// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The caps: max_frames and max_memory_bytes, and the process's memory
// running out.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;
using Strings = std::vector<std::string>;

namespace {

int64_t Total(const Profile& p, int type) {
  int64_t sum = 0;
  for (const auto& s : p.sample()) sum += s.value(type);
  return sum;
}

}  // namespace

TEST_CASE("stacks deeper than max_frames keep their leaf side and end in a truncation frame") {
  Options o;
  o.opts.max_frames = 4;
  auto p = NewProfile(o.opts);
  SampleBuilder deep, shallow;
  for (int i = 0; i < 10; ++i) deep.Frame("f" + std::to_string(i));
  deep.Values({1, 1, 1});
  for (int i = 0; i < 4; ++i) shallow.Frame("f" + std::to_string(i));
  shallow.Values({2, 2, 2});
  Add(p.get(), deep);
  Add(p.get(), deep);
  Add(p.get(), shallow);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 2);
  CHECK(SampleWithFrames(out, {"f0", "f1", "f2", "f3", "[6 frames truncated]"}).value(0) == 2);
  CHECK(SampleWithFrames(out, {"f0", "f1", "f2", "f3"}).value(0) == 2);
}

TEST_CASE("max_frames defaults to 512") {
  auto p = NewProfile();
  SampleBuilder deep;
  for (int i = 0; i < 600; ++i) deep.Frame("f" + std::to_string(i));
  deep.Values({1, 1, 1});
  Add(p.get(), deep);
  const Profile out = SerializeAndDecode(p.get());
  REQUIRE(out.sample_size() == 1);
  const Strings names = FrameNames(out, out.sample(0));
  REQUIRE(names.size() == 513);
  CHECK(names[0] == "f0");
  CHECK(names[511] == "f511");
  CHECK(names[512] == "[88 frames truncated]");
}

TEST_CASE("at the memory cap new keys go to the storage-full pseudo-stack, totals kept") {
  Options o;
  o.opts.max_memory_bytes = 256 * 1024;
  auto p = NewProfile(o.opts);
  SampleBuilder first;
  first.Frame("first").Values({1, 1, 1}).NumLabel("thread id", 1);
  Add(p.get(), first);
  int64_t recorded = 1;
  for (int i = 0; i < 5000; ++i) {
    SampleBuilder b;
    b.Frame("function_" + std::to_string(i), "/app/file_" + std::to_string(i) + ".rb", i)
        .Frame("caller")
        .Values({10, 1, 1})
        .NumLabel("thread id", i);
    Add(p.get(), b);
    recorded += 10;
  }
  // An existing key keeps aggregating at the cap.
  Add(p.get(), first);
  recorded += 1;
  // Bad input is still refused at the cap, by name.
  SampleBuilder bad;
  bad.Frame("new\xC3(").Values({1, 1, 1});
  CHECK(stackrec_profile_add(p.get(), &bad.Get()) == STACKREC_INVALID_ARGUMENT);
  CHECK(std::string(stackrec_last_error()) ==
        "sample.locations[0].function.name is not valid UTF-8");

  const Profile out = SerializeAndDecode(p.get());
  CHECK(Total(out, 0) == recorded);
  CHECK(Total(out, 1) == 5002);
  const Sample* full = nullptr;
  const Sample* first_out = nullptr;
  for (const auto& s : out.sample()) {
    const Strings names = FrameNames(out, s);
    if (names == Strings{"[stackrec: storage full]"}) full = &s;
    if (names == Strings{"first"}) first_out = &s;
  }
  REQUIRE(full != nullptr);
  CHECK(full->label_size() == 0);
  CHECK(full->value(1) > 0);       // some samples overflowed...
  CHECK(out.sample_size() > 100);  // ...but only after many were kept
  REQUIRE(first_out != nullptr);
  CHECK(first_out->value(0) == 2);
}

TEST_CASE("recorder stats count truncated stacks and samples over the memory cap") {
  Options o;
  o.opts.max_frames = 2;
  o.opts.max_memory_bytes = 200 * 1024;
  auto r = NewRecorder(o.opts);
  SampleBuilder deep;
  deep.Frame("a").Frame("b").Frame("c").Values({1, 1, 1});
  REQUIRE(stackrec_recorder_record(r.get(), &deep.Get()) == STACKREC_OK);
  REQUIRE(stackrec_recorder_record(r.get(), &deep.Get()) == STACKREC_OK);
  uint64_t over = 0;
  for (int i = 0; i < 5000; ++i) {
    SampleBuilder b;
    b.Frame("fn" + std::to_string(i)).Values({1, 1, 1});
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  }
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.samples_truncated == 2);
  over = s.samples_over_memory;
  CHECK(over > 0);
  CHECK(over < 5000);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  CHECK(Total(out, 1) == 5002);
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  CHECK(s.samples_truncated == 2);
  CHECK(s.samples_over_memory == over);
}

TEST_CASE("serialize stays within max_output_bytes and sums what it leaves out") {
  Options o;
  o.opts.max_output_bytes = 4096;
  auto p = NewProfile(o.opts);
  int64_t total = 0;
  for (int i = 0; i < 2000; ++i) {
    SampleBuilder b;
    b.Frame("function_number_" + std::to_string(i), "/app/lib/file_" + std::to_string(i) + ".rb", i)
        .Values({i + 1, 1, 1})
        .NumLabel("thread id", i % 7);
    Add(p.get(), b);
    total += i + 1;
  }
  SampleBuilder timed;
  timed.Frame("timed").Values({5, 1, 1}).Timestamp(123);
  Add(p.get(), timed);
  total += 5;
  for (auto c : {STACKREC_COMPRESSION_NONE, STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD}) {
    const std::string bytes = Serialize(p.get(), c);
    CHECK(bytes.size() <= 4096);
    const Profile out = Decode(bytes);
    CheckInvariants(out);
    CHECK(Total(out, 0) == total);  // nothing is lost, only folded
    CHECK(Total(out, 1) == 2001);
    const Sample* limit = nullptr;
    int64_t kept_min = INT64_MAX;
    for (const auto& s : out.sample()) {
      if (FrameNames(out, s) == Strings{"[stackrec: output limit]"}) {
        limit = &s;
      } else {
        kept_min = std::min(kept_min, s.value(0));
      }
    }
    REQUIRE(limit != nullptr);
    CHECK(limit->label_size() == 0);
    CHECK(out.sample_size() > 10);
    // The heaviest samples are the ones kept.
    CHECK(kept_min > 2000 - out.sample_size());
  }
  // Capping changes the output, not the profile: serializing again gives
  // the same content, and samples keep aggregating as before.
  const std::string first =
      WithoutTimes(Decode(Serialize(p.get(), STACKREC_COMPRESSION_NONE))).SerializeAsString();
  CHECK(WithoutTimes(Decode(Serialize(p.get(), STACKREC_COMPRESSION_NONE))).SerializeAsString() ==
        first);
  Add(p.get(), timed);
  CHECK(Total(Decode(Serialize(p.get())), 0) == total + 5);
}

TEST_CASE("the output limit keeps the samples of largest absolute first value, negative ones too") {
  // The weight of a sample is the magnitude of its first enabled value as
  // recorded: -399 weighs more than 300, and 300 more than 5. Were it the
  // signed value, -399 would be the first to go.
  Options o;
  o.opts.max_output_bytes = 4096;
  auto p = NewProfile(o.opts);
  int64_t total = 0;
  auto add = [&](const std::string& name, int64_t first) {
    SampleBuilder b;
    b.Frame(name, "/app/" + name + ".rb", 1).Values({first, 1, 1});
    Add(p.get(), b);
    total += first;
  };
  add("small", 5);
  for (int i = 0; i < 400; ++i) add("filler_" + std::to_string(i), 300);
  add("negative", -399);
  const Profile out = Decode(Serialize(p.get(), STACKREC_COMPRESSION_NONE));
  CheckInvariants(out);
  std::map<std::string, int64_t> kept;
  for (const auto& s : out.sample()) kept[FrameNames(out, s)[0]] = s.value(0);
  REQUIRE(kept.count("[stackrec: output limit]") == 1);
  CHECK(kept.count("negative") == 1);
  CHECK(kept.count("small") == 0);
  CHECK(kept.size() > 2);         // some fillers fit...
  CHECK(kept.size() < 400);       // ...not all of them
  CHECK(Total(out, 0) == total);  // what is left out is summed, not lost
}

TEST_CASE("a max_output_bytes too small for any profile is LIMIT_EXCEEDED") {
  Options o;
  o.opts.max_output_bytes = 16;
  auto p = NewProfile(o.opts);
  SampleBuilder b;
  b.Frame("f").Values({1, 1, 1});
  Add(p.get(), b);
  stackrec_encoded* e = reinterpret_cast<stackrec_encoded*>(0x1);
  CHECK(stackrec_profile_serialize(p.get(), nullptr, &e) == STACKREC_LIMIT_EXCEEDED);
  CHECK(e == nullptr);
  CHECK(std::string(stackrec_last_error()).find("opts.max_output_bytes is 16") !=
        std::string::npos);
}

TEST_CASE("recorder stats count the samples left out of an output at its cap") {
  Options o;
  o.opts.max_output_bytes = 4096;
  auto r = NewRecorder(o.opts);
  for (int i = 0; i < 1000; ++i) {
    SampleBuilder b;
    b.Frame("function_number_" + std::to_string(i)).Values({i + 1, 1, 1});
    REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  }
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  CHECK(stackrec_encoded_size(e) <= 4096);
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  stackrec_stats s{};
  REQUIRE(stackrec_recorder_stats(r.get(), &s) == STACKREC_OK);
  // Every sample but the kept ones (all except the pseudo-sample) was summed.
  CHECK(s.samples_left_out_of_output == 1000 - static_cast<uint64_t>(out.sample_size() - 1));
  CHECK(Total(out, 1) == 1000);
}

// The process's own memory running out (not the max_memory_bytes cap):
// in a forked child whose address space is capped a few MiB above what it
// uses, samples of ever new stacks are added until one fails. It must fail
// with STACKREC_OUT_OF_MEMORY (the table memory's mmap or malloc refused,
// never a crash), and what was added before must still serialize, whole,
// once memory is back. Not under the sanitizers, whose shadow memory does
// not fit in a capped address space.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STACKREC_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define STACKREC_SANITIZED_BUILD 1
#endif
#endif
#ifndef STACKREC_SANITIZED_BUILD
namespace {

size_t VmSizeBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

// What the child reports through its pipe, then the serialized profile.
struct OutOfMemoryReport {
  int failed_status;  // of the add that failed
  int64_t added;      // samples added before it
  int serialized;     // status of the serialization after the cap is lifted
  char message[160];
  uint64_t bytes;
};

}  // namespace

TEST_CASE(
    "an add that runs out of process memory fails with STACKREC_OUT_OF_MEMORY and "
    "keeps what was added") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    OutOfMemoryReport report{};
    Options o(1);
    stackrec_profile* p = nullptr;
    if (stackrec_profile_new(&o.opts, &p) != STACKREC_OK) _exit(2);
    // Built before the cap: the strings of 4,096 distinct 64-frame stacks.
    std::vector<std::string> names;
    for (int i = 0; i < 4096 * 64; ++i) names.push_back("function_" + std::to_string(i));
    std::vector<stackrec_location> frames(64);
    int64_t value = 1;
    stackrec_sample s{};
    s.values = &value;
    s.values_len = 1;
    rlimit cap{};
    getrlimit(RLIMIT_AS, &cap);
    const rlim_t hard = cap.rlim_max;
    cap.rlim_cur = VmSizeBytes() + (size_t{24} << 20);
    if (setrlimit(RLIMIT_AS, &cap) != 0) _exit(3);
    stackrec_status status = STACKREC_OK;
    for (int n = 0; n < 4096 && status == STACKREC_OK; ++n) {
      for (int f = 0; f < 64; ++f) frames[f].function.name = S(names[n * 64 + f]);
      s.locations = frames.data();
      s.locations_len = frames.size();
      status = stackrec_profile_add(p, &s);
      if (status == STACKREC_OK) ++report.added;
    }
    report.failed_status = status;
    std::snprintf(report.message, sizeof report.message, "%s", stackrec_last_error());
    cap.rlim_cur = hard;
    if (setrlimit(RLIMIT_AS, &cap) != 0) _exit(4);
    stackrec_encoded* out = nullptr;
    const stackrec_serialize_options gzip = SerializeOptions(STACKREC_COMPRESSION_GZIP);
    report.serialized = stackrec_profile_serialize(p, &gzip, &out);
    report.bytes = report.serialized == STACKREC_OK ? stackrec_encoded_size(out) : 0;
    bool sent = write(fds[1], &report, sizeof report) == static_cast<ssize_t>(sizeof report);
    if (report.bytes != 0) {
      sent = sent && write(fds[1], stackrec_encoded_data(out), report.bytes) ==
                         static_cast<ssize_t>(report.bytes);
    }
    _exit(sent ? 0 : 5);
  }
  close(fds[1]);
  OutOfMemoryReport report{};
  std::string bytes;
  const bool got = read(fds[0], &report, sizeof report) == static_cast<ssize_t>(sizeof report);
  if (got) {
    char buffer[65536];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) bytes.append(buffer, n);
  }
  close(fds[0]);
  int wait_status = 0;
  REQUIRE(waitpid(pid, &wait_status, 0) == pid);
  REQUIRE(WIFEXITED(wait_status));
  REQUIRE(WEXITSTATUS(wait_status) == 0);
  REQUIRE(got);
  CHECK(report.failed_status == STACKREC_OUT_OF_MEMORY);
  CHECK(std::string(report.message) == "out of memory");
  CHECK(report.added > 0);
  CHECK(report.added < 4096);
  REQUIRE(report.serialized == STACKREC_OK);
  REQUIRE(bytes.size() == report.bytes);
  const Profile decoded = Decode(bytes);
  CheckInvariants(decoded);
  // Every sample added before the failure, and nothing of the failed one.
  CHECK(decoded.sample_size() == report.added);
  CHECK(Total(decoded, 0) == report.added);
}
#endif
