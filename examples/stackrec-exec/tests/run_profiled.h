// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Runs the workload under stackrec-exec in a fresh output directory and
// gathers what came out: the exit status, the workload's report lines, each
// profile file decoded, and the shim's counters.
#ifndef STACKREC_EXEC_TESTS_RUN_PROFILED_H_
#define STACKREC_EXEC_TESTS_RUN_PROFILED_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "profile.pb.h"

namespace stackrec_exec_test {

using perftools::profiles::Profile;
using perftools::profiles::Sample;

struct ProfileFile {
  std::string name;  // PROGRAM.<pid>.<seq>.pb.gz
  pid_t pid = 0;
  int seq = 0;
  Profile profile;  // decoded, invariants checked
};

// One process's final counters, from the shim's stats file.
struct Counters {
  uint64_t seen = 0, recorded = 0, lost = 0, rejected = 0, files = 0, arm_failures = 0;
  int64_t lost_ns = 0;
};

struct Run {
  pid_t pid = 0;   // the launcher's, which the program keeps
  int status = 0;  // as waitpid reports it
  std::string dir;
  std::vector<std::string> report;  // the workload's stdout, by line
  std::vector<ProfileFile> files;   // by pid, then seq
  std::map<pid_t, Counters> counters;
};

struct Options {
  std::vector<std::string> flags;  // stackrec-exec's, before "--"
  std::vector<std::string> args;   // the workload's
  std::vector<std::string> env;    // extra NAME=VALUE
  // Called with the running pid and the output directory; when set, the
  // run is waited for only after it returns (the test may signal it).
  std::function<void(pid_t, const std::string&)> while_running;
};

Run RunProfiled(const Options& options);

// Report lines "thread <tid> <name>" as name -> tid.
std::map<std::string, int64_t> ReportedThreads(const Run& run);

// A sample's numeric label `key` (0 if absent) and string label.
int64_t NumLabel(const Profile& p, const Sample& s, const std::string& key);
std::string ThreadName(const Profile& p, const Sample& s);

// Whether any frame of `s` is a function whose name contains `fragment`.
bool HasFrame(const Profile& p, const Sample& s, const std::string& fragment);

// Sum of value `index` (0: cpu-samples, 1: cpu-time) over the samples that
// `pred` accepts.
int64_t Sum(const Profile& p, int index, const std::function<bool(const Sample&)>& pred);

}  // namespace stackrec_exec_test

#endif  // STACKREC_EXEC_TESTS_RUN_PROFILED_H_
