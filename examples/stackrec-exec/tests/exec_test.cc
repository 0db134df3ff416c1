// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-exec end to end: each test runs tests/workload.cc under the
// launcher and the preloaded shim, then decodes every file it wrote with the
// generated pprof classes. The workloads count CPU time, not wall time, and
// run for about a CPU-second, so a loaded machine makes them slower but not
// different; the only statistical threshold is a CPU share within 10 percentage
// points of the truth.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "catch2/catch.hpp"
#include "oracle/pprof_decode.h"
#include "run_profiled.h"

namespace stackrec_exec_test {
namespace {

using stackrec_test::Str;

bool ExitedWith(const Run& run, int code) {
  return WIFEXITED(run.status) && WEXITSTATUS(run.status) == code;
}

// The files one process wrote.
std::vector<const ProfileFile*> FilesOf(const Run& run, pid_t pid) {
  std::vector<const ProfileFile*> out;
  for (const ProfileFile& f : run.files) {
    if (f.pid == pid) out.push_back(&f);
  }
  return out;
}

std::set<std::string> ThreadNames(const Profile& p) {
  std::set<std::string> names;
  for (const Sample& s : p.sample()) {
    const std::string name = ThreadName(p, s);
    if (!name.empty()) names.insert(name);
  }
  return names;
}

// Every sample that names a reported thread carries that thread's id.
void CheckThreadIds(const Profile& p, const std::map<std::string, int64_t>& reported) {
  for (const Sample& s : p.sample()) {
    const auto it = reported.find(ThreadName(p, s));
    if (it == reported.end()) continue;
    INFO("thread " << it->first);
    CHECK(NumLabel(p, s, "thread id") == it->second);
  }
}

int64_t CpuNsIn(const Profile& p, const std::string& function) {
  return Sum(p, 1, [&](const Sample& s) { return HasFrame(p, s, function); });
}

// Sum over all of a run's files of value `index` of [lost samples] frames.
int64_t LostIn(const Run& run, pid_t pid, int index) {
  int64_t total = 0;
  for (const ProfileFile* f : FilesOf(run, pid)) {
    total += Sum(f->profile, index,
                 [&](const Sample& s) { return HasFrame(f->profile, s, "[lost samples]"); });
  }
  return total;
}

int64_t AllIn(const Run& run, pid_t pid, int index) {
  int64_t total = 0;
  for (const ProfileFile* f : FilesOf(run, pid)) {
    total += Sum(f->profile, index, [](const Sample&) { return true; });
  }
  return total;
}

}  // namespace

TEST_CASE("a 70/30 CPU split on two threads is attributed within 10 points") {
  Options options;
  options.args = {"split", "1.5"};  // CPU-seconds per thread: ~300 samples
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  REQUIRE(run.files.size() == 1);
  const Profile& p = run.files[0].profile;
  CHECK(run.files[0].pid == run.pid);
  CHECK(run.files[0].name == "stackrec_exec_workload." + std::to_string(run.pid) + ".0.pb.gz");

  CHECK(stackrec_test::SampleTypes(p) ==
        std::vector<std::string>{"cpu-samples/count", "cpu-time/nanoseconds"});
  CHECK(Str(p, p.period_type().type()) == "cpu");
  CHECK(p.period() == 10000000);

  double seventy_truth = 0, thirty_truth = 0;
  for (const std::string& line : run.report) {
    long long a, b;
    if (std::sscanf(line.c_str(), "truth seventy_ns %lld thirty_ns %lld", &a, &b) == 2) {
      seventy_truth = static_cast<double>(a);
      thirty_truth = static_cast<double>(b);
    }
  }
  REQUIRE(seventy_truth > 0);
  const double truth = seventy_truth / (seventy_truth + thirty_truth);
  // Demangled C++ names: the functions are workload::SeventyPercent(...).
  const double seventy = static_cast<double>(CpuNsIn(p, "workload::SeventyPercent("));
  const double thirty = static_cast<double>(CpuNsIn(p, "workload::ThirtyPercent("));
  REQUIRE(seventy + thirty > 0);
  const double measured = seventy / (seventy + thirty);
  INFO("truth " << truth * 100 << "%, profile " << measured * 100 << "%");
  CHECK(std::abs(measured - truth) <= 0.10);

  // Both threads, by name and id.
  CHECK(ThreadNames(p).count("split-0") == 1);
  CHECK(ThreadNames(p).count("split-1") == 1);
  CheckThreadIds(p, ReportedThreads(run));

  // The frame's mapping and source position, from the ELF note and DWARF.
  bool found = false;
  for (const auto& loc : p.location()) {
    for (const auto& line : loc.line()) {
      const auto& fn = p.function(static_cast<int>(line.function_id() - 1));
      if (Str(p, fn.name()).rfind("workload::SeventyPercent(", 0) != 0) continue;
      found = true;
      CHECK(Str(p, fn.system_name()).rfind("_ZN8workload14SeventyPercent", 0) == 0);
      CHECK(Str(p, fn.filename()).find("workload.cc") != std::string::npos);
      CHECK(line.line() > 0);
      REQUIRE(loc.mapping_id() > 0);
      const auto& m = p.mapping(static_cast<int>(loc.mapping_id() - 1));
      CHECK(Str(p, m.build_id()) == "5eedc0de00112233445566778899aabbccddeeff");
      CHECK(Str(p, m.filename()) == STACKREC_EXEC_WORKLOAD);
      CHECK(m.memory_start() <= loc.address());
      CHECK(loc.address() < m.memory_limit());
      CHECK(m.has_functions());
      CHECK(m.has_line_numbers());
    }
  }
  CHECK(found);

  // No drops at this rate; the shim's own count agrees with the profile.
  const Counters& c = run.counters.at(run.pid);
  CHECK(c.lost == 0);
  CHECK(c.rejected == 0);
  CHECK(AllIn(run, run.pid, 0) == static_cast<int64_t>(c.seen));
}

TEST_CASE("a multi-threaded program's samples carry each thread's id and name") {
  Options options;
  options.args = {"threads", "3", "0.4"};
  const Run run = RunProfiled(options);
  // 0: every exception was caught, and pthread_exit ran the C++ destructor
  // (the shim's libunwind did not capture the program's _Unwind_*).
  REQUIRE(ExitedWith(run, 0));
  REQUIRE(run.files.size() == 1);
  const Profile& p = run.files[0].profile;
  const auto reported = ReportedThreads(run);
  for (const char* name : {"worker-0", "worker-1", "worker-2", "nested"}) {
    INFO(name);
    CHECK(reported.count(name) == 1);
    CHECK(ThreadNames(p).count(name) == 1);  // threads started later are sampled
  }
  CheckThreadIds(p, reported);
  CHECK(CpuNsIn(p, "workload::WorkerBurn(") > 0);
  CHECK(CpuNsIn(p, "workload::NestedBurn(") > 0);
  // Distinct threads, distinct ids.
  std::set<int64_t> ids;
  for (const auto& [name, tid] : reported) ids.insert(tid);
  CHECK(ids.size() == reported.size());
}

TEST_CASE("a forking program writes one profile per process, the child's with its own threads") {
  Options options;
  options.args = {"fork", "0.5"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  pid_t child = 0;
  for (const std::string& line : run.report) std::sscanf(line.c_str(), "child %d", &child);
  REQUIRE(child > 0);

  const auto parent_files = FilesOf(run, run.pid);
  const auto child_files = FilesOf(run, child);
  REQUIRE(parent_files.size() == 1);
  REQUIRE(child_files.size() == 1);
  CHECK(child_files[0]->seq == 0);  // the child numbers its own files

  const Profile& cp = child_files[0]->profile;
  // The child's own threads only: its main thread (named "parent-main"
  // for the microseconds before it renames itself) and the one it started.
  auto names = ThreadNames(cp);
  CHECK(names.count("child-main") == 1);
  CHECK(names.count("child-worker") == 1);
  names.erase("parent-main");
  CHECK(names.size() == 2);
  CheckThreadIds(cp, ReportedThreads(run));
  CHECK(NumLabel(cp, cp.sample(0), "thread id") > 0);
  CHECK(CpuNsIn(cp, "workload::ChildWork(") > 0);
  CHECK(CpuNsIn(cp, "workload::ParentWork(") == 0);  // the parent's, before the fork
  CHECK(CpuNsIn(cp, "workload::Spin(") == 0);        // a parent thread's

  const Profile& pp = parent_files[0]->profile;
  CHECK(ThreadNames(pp).count("parent-spin") == 1);
  CHECK(CpuNsIn(pp, "workload::ParentWork(") > 0);
  CHECK(CpuNsIn(pp, "workload::ChildWork(") == 0);

  // Each process accounts for every signal it took.
  for (const pid_t pid : {run.pid, child}) {
    INFO("pid " << pid);
    const Counters& c = run.counters.at(pid);
    CHECK(AllIn(run, pid, 0) == static_cast<int64_t>(c.seen));
  }
}

TEST_CASE("a program that exits early from a thread still writes its profile") {
  Options options;
  options.args = {"early-exit", "0.5"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 3));
  REQUIRE(run.files.size() == 1);
  const Profile& p = run.files[0].profile;
  const auto names = ThreadNames(p);
  CHECK(names.count("exiter") == 1);
  CHECK(names.count("spinner-0") == 1);
  CHECK(names.count("spinner-1") == 1);
  CHECK(CpuNsIn(p, "workload::Burn(") > 0);
  CHECK(CpuNsIn(p, "workload::Spin(") > 0);
}

TEST_CASE("exec writes the old image's profile and the new image writes its own") {
  Options options;
  options.args = {"exec", "0.4"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  const auto files = FilesOf(run, run.pid);  // exec keeps the pid
  REQUIRE(files.size() == 2);
  CHECK(files[0]->seq == 0);
  CHECK(files[1]->seq == 1);  // not written over
  CHECK(CpuNsIn(files[0]->profile, "workload::BeforeExec(") > 0);
  CHECK(CpuNsIn(files[0]->profile, "workload::AfterExec(") == 0);
  CHECK(CpuNsIn(files[1]->profile, "workload::AfterExec(") > 0);
  CHECK(CpuNsIn(files[1]->profile, "workload::BeforeExec(") == 0);
}

TEST_CASE("a full ring's drops appear exactly in the [lost samples] frame") {
  Options options;
  // Room for 2 samples, drained 4 times a second: most of ~100 samples drop.
  options.env = {"STACKREC_EXEC_RING_SLOTS=2", "STACKREC_EXEC_DRAIN_MS=250"};
  options.args = {"burn", "2", "0.5"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  REQUIRE(run.files.size() == 1);
  const Counters& c = run.counters.at(run.pid);
  INFO("seen " << c.seen << " recorded " << c.recorded << " lost " << c.lost);
  CHECK(c.lost > 0);
  CHECK(c.recorded > 0);
  CHECK(c.seen == c.recorded + c.lost);  // every signal is either
  CHECK(LostIn(run, run.pid, 0) == static_cast<int64_t>(c.lost));
  CHECK(LostIn(run, run.pid, 1) == c.lost_ns);
  CHECK(c.lost_ns == static_cast<int64_t>(c.lost) * 10000000);
  CHECK(AllIn(run, run.pid, 0) - LostIn(run, run.pid, 0) == static_cast<int64_t>(c.recorded));
  // The pseudo-frame is a sample of its own, one frame deep.
  const Profile& p = run.files[0].profile;
  for (const Sample& s : p.sample()) {
    if (HasFrame(p, s, "[lost samples]")) CHECK(s.location_id_size() == 1);
  }
}

TEST_CASE("calls inlined at one address are one location with a line each, callee first") {
  Options options;
  options.args = {"inlined", "0.5"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  REQUIRE(run.files.size() == 1);
  const Profile& p = run.files[0].profile;
  auto function_name = [&](uint64_t id) {
    for (const auto& f : p.function()) {
      if (f.id() == id) return Str(p, f.name());
    }
    return std::string();
  };
  int64_t total = 0, in_inlined_loop = 0;
  for (const Sample& s : p.sample()) {
    total += s.value(0);
    if (s.location_id_size() == 0) continue;
    for (const auto& loc : p.location()) {
      if (loc.id() != s.location_id(0) || loc.line_size() != 2) continue;
      if (function_name(loc.line(0).function_id()).find("workload::InlinedChurn(") == 0 &&
          function_name(loc.line(1).function_id()).find("workload::InlineHost(") == 0) {
        CHECK(loc.address() != 0);
        CHECK(loc.mapping_id() != 0);
        in_inlined_loop += s.value(0);
      }
    }
  }
  INFO(in_inlined_loop << " of " << total << " samples in the inlined loop");
  // The loop is where the time goes; the rest is the clock read between
  // chunks.
  CHECK(in_inlined_loop * 2 > total);
}

TEST_CASE("a stack deeper than the capture limit ends in a [truncated] frame") {
  Options options;
  options.args = {"deep", "300", "0.3"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  REQUIRE(run.files.size() == 1);
  const Profile& p = run.files[0].profile;
  int64_t deep = 0;
  for (const Sample& s : p.sample()) {
    if (!HasFrame(p, s, "workload::Burn(")) continue;
    const auto names = stackrec_test::FrameNames(p, s);
    // 128 captured frames (more names where calls were inlined), then the
    // marker where the rest of the stack was.
    CHECK(names.size() >= 129);
    CHECK(names.back() == "[truncated]");
    CHECK(names[names.size() - 2].find("workload::Recurse(") == 0);
    deep += s.value(0);
  }
  CHECK(deep > 0);
}

TEST_CASE("periodic profiles come in sequence and tile time") {
  Options options;
  options.flags = {"--every", "0.2"};
  options.args = {"burn", "1", "1.0"};
  const Run run = RunProfiled(options);
  REQUIRE(ExitedWith(run, 0));
  const auto files = FilesOf(run, run.pid);
  REQUIRE(files.size() >= 4);  // a CPU-second takes at least a second
  for (size_t i = 0; i < files.size(); ++i) {
    CHECK(files[i]->seq == static_cast<int>(i));
    if (i > 0) {
      const Profile& prev = files[i - 1]->profile;
      CHECK(files[i]->profile.time_nanos() == prev.time_nanos() + prev.duration_nanos());
    }
  }
  const Counters& c = run.counters.at(run.pid);
  CHECK(c.files == files.size());
  CHECK(AllIn(run, run.pid, 0) == static_cast<int64_t>(c.seen));
}

TEST_CASE("SIGTERM writes the last profile before the program dies of it") {
  const std::string ready =
      std::string(STACKREC_EXEC_TEST_DIR) + "/ready." + std::to_string(getpid());
  unlink(ready.c_str());
  Options options;
  options.args = {"until-killed", ready};
  options.while_running = [&](pid_t pid, const std::string&) {
    // Killed once it has used some CPU (it says so with the file).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    struct stat st;
    while (stat(ready.c_str(), &st) != 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid, SIGTERM);
  };
  const Run run = RunProfiled(options);
  unlink(ready.c_str());
  REQUIRE(WIFSIGNALED(run.status));
  CHECK(WTERMSIG(run.status) == SIGTERM);
  REQUIRE(run.files.size() == 1);
  CHECK(CpuNsIn(run.files[0].profile, "workload::UntilKilled(") > 0);
}

TEST_CASE("the launcher refuses bad flags and reports a missing program like a shell") {
  auto status_of = [](const std::string& command) {
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  const std::string launcher = STACKREC_EXEC_LAUNCHER;
  CHECK(status_of(launcher + " 2>/dev/null") == 2);
  CHECK(status_of(launcher + " --hz 0 -- true 2>/dev/null") == 2);
  CHECK(status_of(launcher + " --every never -- true 2>/dev/null") == 2);
  CHECK(status_of(launcher + " --out /dev/null/x -- true 2>/dev/null") == 2);
  CHECK(status_of(launcher + " --out " STACKREC_EXEC_TEST_DIR " -- /nonexistent 2>/dev/null") ==
        127);
}

}  // namespace stackrec_exec_test
