// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Table memory (src/base/table_memory.h): small allocations stay with operator
// new; larger ones come from 2 MiB-aligned chunks advised huge pages,
// placed best-fit, reused once freed, coalesced; free huge pages go back to
// the kernel and an entirely free chunk is unmapped; a size no mapping
// could hold is refused; a forked child can allocate. Each TEST_CASE runs in its own process
// (catch_discover_tests), so the chunks start empty.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/table_memory.h"
#include "catch2/catch.hpp"

namespace memory = stackrec::table_memory;

namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// The VmFlags of the mapping that holds `p` (/proc/self/smaps).
std::string MappingFlags(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long lo = 0, hi = 0;
    char dash = 0;
    if (std::sscanf(line.c_str(), "%llx%c%llx", &lo, &dash, &hi) == 3 && dash == '-') {
      inside = lo <= Address(p) && Address(p) < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// How many of the 4 KiB pages of [p, p + bytes) are resident.
size_t ResidentPages(const void* p, size_t bytes) {
  std::vector<unsigned char> in(bytes / memory::kPageBytes);
  REQUIRE(mincore(const_cast<void*>(p), bytes, in.data()) == 0);
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

void Fill(void* p, size_t bytes, char c) { std::memset(p, c, bytes); }

bool Holds(const void* p, size_t bytes, char c) {
  const auto* b = static_cast<const char*>(p);
  for (size_t i = 0; i < bytes; ++i) {
    if (b[i] != c) return false;
  }
  return true;
}

}  // namespace

TEST_CASE(
    "small allocations stay with operator new; larger ones come from an aligned chunk "
    "advised huge pages") {
  const memory::Usage before = memory::CurrentUsage();
  CHECK(before.mapped_bytes == 0);
  void* small = memory::Allocate(memory::kMinBytes - 1);
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
  memory::Deallocate(small, memory::kMinBytes - 1);

  const size_t bytes = memory::kMinBytes + 1;  // rounded up to whole pages
  void* p = memory::Allocate(bytes);
  const memory::Usage after = memory::CurrentUsage();
  CHECK(after.chunks == 1);
  CHECK(after.mapped_bytes == memory::kChunkBytes);
  CHECK(after.used_bytes == memory::kMinBytes + memory::kPageBytes);
  // The first allocation of a chunk is its start, on a huge page boundary.
  CHECK(Address(p) % memory::kHugePageBytes == 0);
  Fill(p, bytes, 'a');
  CHECK(Holds(p, bytes, 'a'));
#ifdef MADV_HUGEPAGE
  CHECK(MappingFlags(p).find(" hg") != std::string::npos);
#endif
  memory::Deallocate(p, bytes);
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
  CHECK(memory::CurrentUsage().used_bytes == 0);
}

TEST_CASE("freed ranges coalesce and are reused, the smallest that fits first") {
  const size_t k = memory::kMinBytes;
  // a | x | b | y | rest of the chunk
  void* a = memory::Allocate(4 * k);
  void* x = memory::Allocate(k);
  void* b = memory::Allocate(8 * k);
  void* y = memory::Allocate(k);
  CHECK(Address(x) == Address(a) + 4 * k);
  CHECK(Address(b) == Address(x) + k);
  CHECK(Address(y) == Address(b) + 8 * k);
  memory::Deallocate(a, 4 * k);
  memory::Deallocate(b, 8 * k);
  // Best fit: 3k goes into a's hole (4k), not b's (8k) nor the chunk's rest.
  void* c = memory::Allocate(3 * k);
  CHECK(c == a);
  void* d = memory::Allocate(5 * k);
  CHECK(d == b);
  memory::Deallocate(c, 3 * k);
  memory::Deallocate(d, 5 * k);
  // x freed: a's hole, x and b's hole coalesce into one range of 13k.
  memory::Deallocate(x, k);
  void* e = memory::Allocate(13 * k);
  CHECK(e == a);
  CHECK(memory::CurrentUsage().chunks == 1);
  memory::Deallocate(e, 13 * k);
  memory::Deallocate(y, k);
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
}

TEST_CASE("the whole huge pages of a free range go back to the kernel, and come back zeroed") {
  const size_t big = 3 * memory::kHugePageBytes;
  void* keep = memory::Allocate(memory::kMinBytes);  // keeps the chunk mapped
  void* p = memory::Allocate(big);
  CHECK(Address(p) == Address(keep) + memory::kMinBytes);
  Fill(p, big, 'x');
  const uintptr_t first_huge = Address(p) + memory::kHugePageBytes - memory::kMinBytes;
  const size_t whole = 2 * memory::kHugePageBytes;  // the huge pages p covers entirely
  CHECK(ResidentPages(reinterpret_cast<void*>(first_huge), whole) == whole / memory::kPageBytes);
  memory::Deallocate(p, big);
  CHECK(ResidentPages(reinterpret_cast<void*>(first_huge), whole) == 0);
  CHECK(memory::CurrentUsage().chunks == 1);
  // The range is free again, whole: the same allocation gets it back.
  void* q = memory::Allocate(big);
  CHECK(q == p);
  CHECK(Holds(reinterpret_cast<void*>(first_huge), whole, 0));
  memory::Deallocate(q, big);
  memory::Deallocate(keep, memory::kMinBytes);
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
}

TEST_CASE("an allocation no mapping could hold is refused with std::bad_alloc") {
  CHECK_THROWS_AS(memory::Allocate(std::numeric_limits<size_t>::max() - 100), std::bad_alloc);
  CHECK_THROWS_AS(memory::Allocate(std::numeric_limits<size_t>::max() / 2 + 1), std::bad_alloc);
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
  stackrec::TableAllocator<uint64_t> allocator;
  CHECK_THROWS_AS(allocator.allocate(std::numeric_limits<size_t>::max() / 4), std::bad_alloc);
}

TEST_CASE("an allocation larger than a chunk gets a chunk of its own size") {
  const size_t bytes = memory::kChunkBytes + memory::kHugePageBytes + 1;
  void* p = memory::Allocate(bytes);
  CHECK(memory::CurrentUsage().mapped_bytes == memory::kChunkBytes + 2 * memory::kHugePageBytes);
  Fill(p, bytes, 'z');
  CHECK(Holds(p, bytes, 'z'));
  memory::Deallocate(p, bytes);
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
}

TEST_CASE("containers on TableAllocator keep their contents through growth") {
  stackrec::TableVector<uint64_t> v;
  absl::flat_hash_map<uint64_t, uint32_t, absl::Hash<uint64_t>, std::equal_to<uint64_t>,
                      stackrec::TableAllocator<std::pair<const uint64_t, uint32_t>>>
      m;
  for (uint32_t i = 0; i < 200000; ++i) {
    v.push_back(uint64_t{i} * 3);
    m.emplace(uint64_t{i} * 7, i);
  }
  CHECK(memory::CurrentUsage().used_bytes > 0);
  for (uint32_t i = 0; i < 200000; ++i) {
    REQUIRE(v[i] == uint64_t{i} * 3);
    REQUIRE(m.at(uint64_t{i} * 7) == i);
  }
  stackrec::TableArray<int64_t> array = stackrec::MakeTableArray<int64_t>(10000);
  for (int i = 0; i < 10000; ++i) array[i] = -i;
  CHECK(array[9999] == -9999);
  array.reset();
  stackrec::TableVector<uint64_t>().swap(v);
  m = {};
  CHECK(memory::CurrentUsage().mapped_bytes == 0);
}

TEST_CASE("a forked child allocates and frees table memory") {
  void* parent = memory::Allocate(memory::kMinBytes);
  Fill(parent, memory::kMinBytes, 'p');
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    void* child = memory::Allocate(4 * memory::kMinBytes);
    std::memset(child, 'c', 4 * memory::kMinBytes);
    const bool ok = Holds(parent, memory::kMinBytes, 'p') && child != parent;
    memory::Deallocate(child, 4 * memory::kMinBytes);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  memory::Deallocate(parent, memory::kMinBytes);
}
