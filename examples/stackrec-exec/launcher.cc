// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// stackrec-exec [--hz 100] [--every 60] [--out DIR] [--timestamps]
//               [--separate-debuginfo] -- PROGRAM [ARGS...]
//
// Profiles an unmodified native program: validates the flags, passes them
// on in the environment (shim/config.h), prepends the shim to LD_PRELOAD and
// execs PROGRAM in its own place, so the program keeps this process's pid,
// stdio, signals and exit status. The shim does the rest.
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "shim/config.h"

namespace {

constexpr char kShimName[] = "libstackrec_exec_shim.so";
// Overrides where the shim is looked for (tests, installs elsewhere).
constexpr char kEnvShim[] = "STACKREC_EXEC_SHIM";

constexpr char kUsage[] =
    "usage: stackrec-exec [--hz N] [--every SECONDS] [--out DIR] [--timestamps]\n"
    "                     [--separate-debuginfo] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with a sampling CPU profiler preloaded and writes\n"
    "DIR/PROGRAM.<pid>.<seq>.pb.gz (gzip pprof) every SECONDS and at exit.\n"
    "Forked children and exec'd programs write their own files.\n"
    "\n"
    "  --hz N           samples per CPU-second of each thread (1-1000, default 100)\n"
    "  --every SECONDS  how often to write a profile (default 60)\n"
    "  --out DIR        where to write them, created if missing (default .)\n"
    "  --timestamps     keep each sample's time instead of aggregating\n"
    "  --separate-debuginfo\n"
    "                   also read file:line from separate debug files (Debian's\n"
    "                   -dbg packages): each process then pays a one-time cost\n"
    "                   of tens of ms CPU to decompress their DWARF\n";

[[noreturn]] void Usage(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "stackrec-exec: %s\n", problem.c_str());
  std::fputs(kUsage, stderr);
  std::exit(2);
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The shim beside this executable (the build tree), or in ../lib (an
// install), unless STACKREC_EXEC_SHIM names it.
std::string FindShim() {
  if (const char* env = std::getenv(kEnvShim); env != nullptr && *env != '\0') return env;
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  const std::string dir = DirOf(self);
  for (const std::string& candidate : {dir + "/" + kShimName, dir + "/../lib/" + kShimName}) {
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

// mkdir -p.
bool MakeDirs(const std::string& path) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace stackrec_exec;
  std::string hz = "100", every = "60", out = ".";
  bool timestamps = false, separate_debuginfo = false;
  int i = 1;
  // Each flag as "--flag VALUE" or "--flag=VALUE".
  auto value_of = [&](const std::string& flag, std::string* value) {
    const std::string arg = argv[i];
    if (arg == flag) {
      if (i + 1 >= argc) Usage(flag + " needs a value");
      *value = argv[++i];
      return true;
    }
    if (arg.rfind(flag + "=", 0) == 0) {
      *value = arg.substr(flag.size() + 1);
      return true;
    }
    return false;
  };
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (value_of("--hz", &hz) || value_of("--every", &every) || value_of("--out", &out)) continue;
    if (arg == "--timestamps") {
      timestamps = true;
      continue;
    }
    if (arg == "--separate-debuginfo") {
      separate_debuginfo = true;
      continue;
    }
    if (arg.rfind("-", 0) == 0) Usage("unknown flag " + arg);
    break;  // PROGRAM, without a "--" before it
  }
  if (i >= argc) Usage("no PROGRAM to run");

  int hz_value;
  double every_value;
  if (!ParseHz(hz.c_str(), &hz_value)) Usage("--hz must be a whole number from 1 to 1000");
  if (!ParseEverySeconds(every.c_str(), &every_value)) {
    Usage("--every must be a number of seconds from 0.01 to 86400");
  }
  if (!MakeDirs(out)) {
    std::fprintf(stderr, "stackrec-exec: cannot create %s: %s\n", out.c_str(),
                 std::strerror(errno));
    return 2;
  }
  // Absolute: the program may chdir before it writes its first profile.
  char resolved[PATH_MAX];
  if (realpath(out.c_str(), resolved) == nullptr) {
    std::fprintf(stderr, "stackrec-exec: %s: %s\n", out.c_str(), std::strerror(errno));
    return 2;
  }
  const std::string shim = FindShim();
  if (shim.empty()) {
    std::fprintf(stderr, "stackrec-exec: cannot find %s beside this program; set %s\n", kShimName,
                 kEnvShim);
    return 2;
  }

  std::string preload = shim;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0') {
    preload += ":" + std::string(existing);
  }
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv(kEnvHz, hz.c_str(), 1);
  setenv(kEnvEvery, every.c_str(), 1);
  setenv(kEnvOut, resolved, 1);
  setenv(kEnvTimestamps, timestamps ? "1" : "0", 1);
  setenv(kEnvSeparateDebuginfo, separate_debuginfo ? "1" : "0", 1);
  setenv(kEnvRootPid, std::to_string(getpid()).c_str(), 1);  // exec keeps it

  execvp(argv[i], argv + i);
  const int error = errno;
  std::fprintf(stderr, "stackrec-exec: cannot run %s: %s\n", argv[i], std::strerror(error));
  return error == ENOENT ? 127 : 126;  // as a shell would
}
