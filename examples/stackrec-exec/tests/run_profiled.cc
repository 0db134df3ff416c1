// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "run_profiled.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "catch2/catch.hpp"
#include "oracle/pprof_decode.h"

extern char** environ;

namespace stackrec_exec_test {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "pid=1 seen=2 ..." lines, one per process.
std::map<pid_t, Counters> ParseCounters(const std::string& text) {
  std::map<pid_t, Counters> out;
  for (const std::string& line : Lines(text)) {
    std::map<std::string, std::string> kv;
    std::stringstream in(line);
    for (std::string field; in >> field;) {
      const size_t eq = field.find('=');
      if (eq != std::string::npos) kv[field.substr(0, eq)] = field.substr(eq + 1);
    }
    Counters c;
    c.seen = std::stoull(kv["seen"]);
    c.recorded = std::stoull(kv["recorded"]);
    c.lost = std::stoull(kv["lost"]);
    c.lost_ns = std::stoll(kv["lost_ns"]);
    c.rejected = std::stoull(kv["rejected"]);
    c.files = std::stoull(kv["files"]);
    c.arm_failures = std::stoull(kv["arm_failures"]);
    out[static_cast<pid_t>(std::stol(kv["pid"]))] = c;
  }
  return out;
}

// PROGRAM.<pid>.<seq>.pb.gz
bool ParseName(const std::string& name, pid_t* pid, int* seq) {
  const std::string suffix = ".pb.gz";
  if (name.size() <= suffix.size() || name[0] == '.' ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  const std::string stem = name.substr(0, name.size() - suffix.size());
  const size_t dot2 = stem.rfind('.');
  if (dot2 == std::string::npos || dot2 == 0) return false;
  const size_t dot1 = stem.rfind('.', dot2 - 1);
  if (dot1 == std::string::npos) return false;
  *pid = static_cast<pid_t>(std::stol(stem.substr(dot1 + 1, dot2 - dot1 - 1)));
  *seq = std::stoi(stem.substr(dot2 + 1));
  return true;
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

}  // namespace

Run RunProfiled(const Options& options) {
  Run run;
  std::string dir = std::string(STACKREC_EXEC_TEST_DIR) + "/run.XXXXXX";
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  run.dir = dir;
  const std::string out_dir = dir + "/out";
  const std::string stats_path = dir + "/stats.txt";
  const std::string stdout_path = dir + "/stdout.txt";

  std::vector<std::string> args = {STACKREC_EXEC_LAUNCHER};
  args.insert(args.end(), options.flags.begin(), options.flags.end());
  args.insert(args.end(), {"--out", out_dir, "--", STACKREC_EXEC_WORKLOAD});
  args.insert(args.end(), options.args.begin(), options.args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "STACKREC_EXEC_", 14) != 0 && std::strncmp(*e, "LD_PRELOAD=", 11) != 0) {
      env.push_back(*e);
    }
  }
  env.push_back("STACKREC_EXEC_STATS=" + stats_path);
  env.insert(env.end(), options.env.begin(), options.env.end());

  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  run.pid = pid;
  if (options.while_running) options.while_running(pid, out_dir);
  REQUIRE(waitpid(pid, &run.status, 0) == pid);

  run.report = Lines(ReadFile(stdout_path));
  run.counters = ParseCounters(ReadFile(stats_path));
  if (DIR* d = opendir(out_dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      ProfileFile file;
      file.name = entry->d_name;
      if (!ParseName(file.name, &file.pid, &file.seq)) continue;
      INFO("decoding " << file.name);
      file.profile = stackrec_test::Decode(ReadFile(out_dir + "/" + file.name));
      stackrec_test::CheckInvariants(file.profile);
      run.files.push_back(std::move(file));
    }
    closedir(d);
  }
  std::sort(run.files.begin(), run.files.end(), [](const ProfileFile& a, const ProfileFile& b) {
    return a.pid != b.pid ? a.pid < b.pid : a.seq < b.seq;
  });
  // Everything is in memory now; keep the files only when asked to.
  if (std::getenv("STACKREC_EXEC_TEST_KEEP") == nullptr) {
    nftw(dir.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  }
  return run;
}

std::map<std::string, int64_t> ReportedThreads(const Run& run) {
  std::map<std::string, int64_t> out;
  for (const std::string& line : run.report) {
    std::stringstream in(line);
    std::string word, name;
    int64_t tid;
    if (in >> word >> tid >> name && word == "thread") out[name] = tid;
  }
  return out;
}

int64_t NumLabel(const Profile& p, const Sample& s, const std::string& key) {
  for (const auto& label : s.label()) {
    if (stackrec_test::Str(p, label.key()) == key) return label.num();
  }
  return 0;
}

std::string ThreadName(const Profile& p, const Sample& s) {
  return stackrec_test::StrLabel(p, s, "thread name");
}

bool HasFrame(const Profile& p, const Sample& s, const std::string& fragment) {
  for (const std::string& name : stackrec_test::FrameNames(p, s)) {
    if (name.find(fragment) != std::string::npos) return true;
  }
  return false;
}

int64_t Sum(const Profile& p, int index, const std::function<bool(const Sample&)>& pred) {
  int64_t total = 0;
  for (const Sample& s : p.sample()) {
    if (pred(s)) total += s.value(index);
  }
  return total;
}

}  // namespace stackrec_exec_test
