// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "export/process_identity.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

namespace stackrec_export {
namespace {

// The patterns libdatadog matches a cgroup path against
// (libdd-common/src/entity_id/unix/container_id.rs).
const std::regex& ContainerPattern() {
  static const std::regex pattern(
      "([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}"
      "|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}"
      "|[0-9a-f]{64}"
      "|[0-9a-f]{32}-[0-9]+)"
      "(?:\\.scope(?:/[^/ \\t]+)?)? *$");
  return pattern;
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
  const std::string path(line.substr(second + 1));
  std::smatch m;
  if (!std::regex_search(path, m, ContainerPattern())) return "";
  return m[1].str();
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
