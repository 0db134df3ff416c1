// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "config.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace stackrec_exec {
namespace {

bool ParseLong(const char* text, long min, long max, long* out) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseHz(const char* text, int* out) {
  long v;
  if (!ParseLong(text, kMinHz, kMaxHz, &v)) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseEverySeconds(const char* text, double* out) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < kMinEverySeconds ||
      v > kMaxEverySeconds) {
    return false;
  }
  *out = v;
  return true;
}

bool ParseRingSlots(const char* text, size_t* out) {
  long v;
  if (!ParseLong(text, 2, 1L << 20, &v)) return false;
  *out = static_cast<size_t>(v);
  return true;
}

bool ParseDrainMs(const char* text, int* out) {
  long v;
  if (!ParseLong(text, 1, 10000, &v)) return false;
  *out = static_cast<int>(v);
  return true;
}

Config ConfigFromEnvironment(std::string* warnings) {
  Config c;
  auto bad = [&](const char* name, const char* value) {
    *warnings += std::string("ignoring ") + name + "=" + value + " (out of range or malformed)\n";
  };
  if (const char* v = std::getenv(kEnvHz); v && !ParseHz(v, &c.hz)) bad(kEnvHz, v);
  if (const char* v = std::getenv(kEnvEvery); v && !ParseEverySeconds(v, &c.every_seconds)) {
    bad(kEnvEvery, v);
  }
  if (const char* v = std::getenv(kEnvOut); v && *v) c.out_dir = v;
  if (const char* v = std::getenv(kEnvTimestamps)) c.timestamps = std::string(v) == "1";
  if (const char* v = std::getenv(kEnvSeparateDebuginfo)) {
    c.separate_debuginfo = std::string(v) == "1";
  }
  if (const char* v = std::getenv(kEnvRootPid); v && *v) {
    long pid;
    if (ParseLong(v, 1, 1L << 30, &pid)) {
      c.root_process = pid == static_cast<long>(getpid());
    } else {
      bad(kEnvRootPid, v);
    }
  }
  if (const char* v = std::getenv(kEnvRingSlots); v && !ParseRingSlots(v, &c.ring_slots)) {
    bad(kEnvRingSlots, v);
  }
  if (const char* v = std::getenv(kEnvDrainMs); v && !ParseDrainMs(v, &c.drain_ms)) {
    bad(kEnvDrainMs, v);
  }
  if (const char* v = std::getenv(kEnvStats)) c.stats_path = v;
  return c;
}

}  // namespace stackrec_exec
