// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/process_identity.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <random>
#include <sstream>

namespace stackrec_export {
namespace {

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Whether `s` at `at` has `n` lowercase hex digits.
bool HexRun(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!IsHex(s[i])) return false;
  }
  return true;
}

// Where a container id that ends `core` starts, or npos: libdatadog's
// patterns (libdd-common/src/entity_id/unix/container_id.rs), a UUID with
// '-' or '_', a Cloud Foundry id, 64 hex digits or an ECS task id, each
// ending the path. As the regex search there finds the leftmost match,
// the longest that fits wins.
size_t ContainerIdStart(std::string_view core) {
  size_t best = std::string_view::npos;
  auto consider = [&](size_t start) { best = std::min(best, start); };
  const size_t n = core.size();
  auto dashed = [&](size_t at, std::initializer_list<size_t> runs, bool underscore) {
    for (const size_t run : runs) {
      if (!HexRun(core, at, run)) return false;
      at += run;
      if (at == n) return true;
      if (core[at] != '-' && !(underscore && core[at] == '_')) return false;
      ++at;
    }
    return false;
  };
  if (n >= 36 && dashed(n - 36, {8, 4, 4, 4, 12}, true)) consider(n - 36);
  if (n >= 28 && dashed(n - 28, {8, 4, 4, 4, 4}, false)) consider(n - 28);
  if (n >= 64 && HexRun(core, n - 64, 64)) consider(n - 64);
  size_t digits = n;
  while (digits > 0 && core[digits - 1] >= '0' && core[digits - 1] <= '9') --digits;
  if (digits < n && digits >= 33 && core[digits - 1] == '-' && HexRun(core, digits - 33, 32)) {
    consider(digits - 33);
  }
  return best;
}

std::string RandomUuid() {
  std::random_device device;
  std::mt19937_64 rng((uint64_t{device()} << 32) ^ device());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~uint64_t{0xF000}) | 0x4000;                      // version 4
  lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // RFC 4122 variant
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    const uint64_t word = i < 16 ? hi : lo;
    out += kHex[(word >> (60 - 4 * (i % 16))) & 0xF];
    if (i == 7 || i == 11 || i == 15 || i == 19) out += '-';
  }
  return out;
}

std::string Platform() {
#if defined(__x86_64__)
  std::string arch = "x86_64";
#elif defined(__aarch64__)
  std::string arch = "aarch64";
#elif defined(__i386__)
  std::string arch = "i686";
#else
  std::string arch = "unknown";
#endif
#if defined(__linux__) && defined(__GLIBC__)
  return arch + "-unknown-linux-gnu";
#elif defined(__linux__)
  return arch + "-unknown-linux-musl";
#elif defined(__APPLE__)
  return arch + "-apple-darwin";
#else
  return arch + "-unknown";
#endif
}

// The cgroup's inode, when the process is in a cgroup namespace of its own
// and neither line names a container (libdd-common/src/entity_id/unix/
// cgroup_inode.rs): the v2 line "0::/path", else the v1 memory controller's.
std::string CgroupInode(const std::string& cgroup_text) {
  struct stat ns;
  constexpr ino_t kHostCgroupNamespace = 0xEFFFFFFB;
  if (stat("/proc/self/ns/cgroup", &ns) == 0 && ns.st_ino == kHostCgroupNamespace) return "";
  std::istringstream lines(cgroup_text);
  std::string line, path;
  while (std::getline(lines, line)) {
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string rest = line.substr(second + 1);
    if (controllers.empty()) {
      path = "/sys/fs/cgroup" + rest;
      break;
    }
    if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      path = "/sys/fs/cgroup/memory" + rest;
    }
  }
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0) return "";
  return std::to_string(static_cast<uint64_t>(st.st_ino));
}

}  // namespace

std::string ContainerIdOfCgroupLine(std::string_view line) {
  // "<hierarchy id>:<controllers>:<path>", the path non-empty.
  size_t at = 0;
  while (at < line.size() && line[at] >= '0' && line[at] <= '9') ++at;
  if (at == 0 || at >= line.size() || line[at] != ':') return "";
  const size_t second = line.find(':', at + 1);
  if (second == std::string_view::npos || second + 1 >= line.size()) return "";
  std::string_view path = line.substr(second + 1);
  while (!path.empty() && path.back() == ' ') path.remove_suffix(1);
  // The id, then optionally ".scope", then optionally "/<a last segment>".
  std::string_view cores[3] = {path, {}, {}};
  constexpr std::string_view kScope = ".scope";
  if (path.size() >= kScope.size() && path.substr(path.size() - kScope.size()) == kScope) {
    cores[1] = path.substr(0, path.size() - kScope.size());
  }
  const size_t slash = path.rfind('/');
  if (slash != std::string_view::npos && slash + 1 < path.size() &&
      path.find_first_of(" \t", slash + 1) == std::string_view::npos) {
    const std::string_view before = path.substr(0, slash);
    if (before.size() >= kScope.size() && before.substr(before.size() - kScope.size()) == kScope) {
      cores[2] = before.substr(0, before.size() - kScope.size());
    }
  }
  // The leftmost match, as the regex search finds it.
  std::string_view best;
  size_t best_start = std::string_view::npos;
  for (const std::string_view core : cores) {
    if (core.empty()) continue;
    const size_t start = ContainerIdStart(core);
    if (start < best_start) {
      best_start = start;
      best = core.substr(start);
    }
  }
  return std::string(best);
}

ProcessIdentity ReadProcessIdentity() {
  ProcessIdentity id;
  id.pid = static_cast<int64_t>(getpid());
  id.runtime_id = RandomUuid();
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) id.hostname = host;
  struct utsname u;
  if (uname(&u) == 0) {
    id.kernel_name = u.sysname;
    id.kernel_release = u.release;
    id.kernel_version = u.version;
  }
  id.runtime_platform = Platform();
  std::ifstream file("/proc/self/cgroup");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::istringstream lines(text);
  std::string line;
  while (id.container_id.empty() && std::getline(lines, line)) {
    id.container_id = ContainerIdOfCgroupLine(line);
  }
  if (!id.container_id.empty()) {
    id.entity_id = "ci-" + id.container_id;
  } else if (const std::string inode = CgroupInode(text); !inode.empty()) {
    id.entity_id = "in-" + inode;
  }
  // Sent as a header: a value with a control character is not sent at all.
  if (const char* env = std::getenv("DD_EXTERNAL_ENV")) {
    id.external_env = env;
    for (const char c : id.external_env) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) id.external_env.clear();
    }
  }
  return id;
}

}  // namespace stackrec_export
