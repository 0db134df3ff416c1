// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// How stackrec-exec configures the shim: through environment variables,
// because they are the one channel that reaches the profiled program
// unmodified and that its forked children and exec'd images inherit.
// The launcher (launcher.cc) validates and sets them; the shim reads them in
// every process it is loaded into. Both use the parsers below, so the two
// cannot disagree on what a valid value is.
#ifndef STACKREC_EXEC_SHIM_CONFIG_H_
#define STACKREC_EXEC_SHIM_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace stackrec_exec {

// Set by the launcher from its flags.
inline constexpr char kEnvHz[] = "STACKREC_EXEC_HZ";
inline constexpr char kEnvEvery[] = "STACKREC_EXEC_EVERY";
inline constexpr char kEnvOut[] = "STACKREC_EXEC_OUT";
inline constexpr char kEnvTimestamps[] = "STACKREC_EXEC_TIMESTAMPS";
inline constexpr char kEnvSeparateDebuginfo[] = "STACKREC_EXEC_SEPARATE_DEBUGINFO";
// The pid stackrec-exec exec'd into: that process writes every profile, even
// an empty one; its descendants write only profiles with samples in them.
inline constexpr char kEnvRootPid[] = "STACKREC_EXEC_ROOT_PID";
// Knobs for tests: the ring's capacity in samples, the collector's drain
// interval, and a file each process appends its final counters to.
inline constexpr char kEnvRingSlots[] = "STACKREC_EXEC_RING_SLOTS";
inline constexpr char kEnvDrainMs[] = "STACKREC_EXEC_DRAIN_MS";
inline constexpr char kEnvStats[] = "STACKREC_EXEC_STATS";

struct Config {
  int hz = 100;
  double every_seconds = 60;
  std::string out_dir = ".";
  bool timestamps = false;
  bool separate_debuginfo = false;  // DWARF from /usr/lib/debug too
  bool root_process = true;
  size_t ring_slots = 1024;
  int drain_ms = 20;
  std::string stats_path;

  int64_t period_ns() const { return 1000000000 / hz; }
};

// Limits: the timers fire at most once per scheduler tick (250 Hz on
// Debian's kernels), so a higher rate only adds overruns; --every is
// between 10 ms and a day.
inline constexpr int kMinHz = 1;
inline constexpr int kMaxHz = 1000;
inline constexpr double kMinEverySeconds = 0.01;
inline constexpr double kMaxEverySeconds = 86400;

// Each returns false, leaving *out alone, unless `text` is entirely a value
// in range.
bool ParseHz(const char* text, int* out);
bool ParseEverySeconds(const char* text, double* out);
bool ParseRingSlots(const char* text, size_t* out);  // 2 to 2^20
bool ParseDrainMs(const char* text, int* out);       // 1 to 10000

// The configuration from this process's environment. A malformed variable
// keeps its default and is named in *warnings (one line each).
Config ConfigFromEnvironment(std::string* warnings);

}  // namespace stackrec_exec

#endif  // STACKREC_EXEC_SHIM_CONFIG_H_
