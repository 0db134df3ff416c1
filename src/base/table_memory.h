// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Table memory: where the aggregate's large tables live (the key index and
// the rows, the interning tables and their hash indexes, the string path's
// caches), and what a serialization allocates beside them (the encoder's
// per-stack and per-key arrays, the compressors' state, the output), so
// that memory one frees is memory the other reuses. It is mapped in chunks
// aligned to 2 MiB that the kernel is asked to back with transparent huge
// pages (MADV_HUGEPAGE), shared by every profile and dictionary of the
// process.
//
// Why: a profile's first interval touches its tables' memory for the first
// time, a page fault each 4 KiB. In a virtual machine a fault can cost fifty
// times what the same 4 KiB of a huge page costs (page-table updates trap to
// the hypervisor), and a first interval takes about a thousand of them in
// the library. A huge page is one fault and one TLB entry for 512 pages.
// malloc cannot be asked for this by a library: glibc's
// glibc.malloc.hugetlb tunable is the whole process's, read from its
// environment.
//
// Allocations under kMinBytes go to operator new, so a small profile (an
// idle process's, a test's) maps no chunk. Larger ones are rounded up to
// 4 KiB pages and placed best-fit (the smallest free range that holds them)
// in the chunks' free ranges, so that the memory in use fills few huge
// pages (a huge page counts whole in the process's memory once touched);
// freed ranges coalesce, so what a table frees when it doubles is reused by
// the next table that grows, already faulted in. A chunk that becomes
// entirely free is unmapped, and the whole huge pages inside a free range
// are given back to the kernel (MADV_DONTNEED): a freed profile leaves the
// process's memory as it would leave malloc's, and faulting a huge page in
// again is one fault.
//
// Invariant: what outlives a call holds no pointer from table memory to
// memory from operator new (leak checkers do not scan mapped memory, so
// such a pointer would make its target look leaked): the tables hold ids,
// hashes, values and bytes. Only a compressor's state, which lives within
// one serialization, points from its large blocks to its small ones.
//
// Thread-safe: one mutex, taken when a table grows or is freed, never on a
// lookup; mapping and unmapping happen outside it. Held across fork(), so
// that a child forked while another thread allocated finds it unlocked.
#ifndef STACKREC_SRC_BASE_TABLE_MEMORY_H_
#define STACKREC_SRC_BASE_TABLE_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace stackrec {
namespace table_memory {

inline constexpr size_t kMinBytes = size_t{16} << 10;
inline constexpr size_t kPageBytes = size_t{4} << 10;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;
// A chunk's size, unless one allocation needs more: untouched parts of a
// chunk cost no memory, and a few large chunks let best fit pack the
// tables into fewer huge pages than a chunk per table growth would.
inline constexpr size_t kChunkBytes = size_t{8} << 20;

// `bytes` of memory aligned to 16 bytes at least (to a page from kMinBytes
// on); throws std::bad_alloc.
void* Allocate(size_t bytes);
// Frees what Allocate(bytes) returned; the same `bytes`.
void Deallocate(void* p, size_t bytes) noexcept;

// For tests: the `n`th table allocation after this call (n >= 1) and every
// one after it throw std::bad_alloc, as when the process is out of memory;
// n == 0 ends the failures. Which allocation fails depends on this and
// nothing else, so a test can make each allocation of a run fail in turn.
void FailAllocationsForTesting(uint64_t n);

// The chunks' state, for tests and the bench.
struct Usage {
  size_t mapped_bytes;  // in chunks
  size_t used_bytes;    // handed out from them (whole pages)
  size_t chunks;
};
Usage CurrentUsage();

}  // namespace table_memory

// An allocator for the standard and absl containers that hold tables.
// Stateless: every instance allocates from the same chunks.
template <typename T>
class TableAllocator {
 public:
  using value_type = T;

  TableAllocator() = default;
  template <typename U>
  TableAllocator(const TableAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    if (n > std::numeric_limits<size_t>::max() / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(table_memory::Allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { table_memory::Deallocate(p, n * sizeof(T)); }

  friend bool operator==(const TableAllocator&, const TableAllocator&) { return true; }
  friend bool operator!=(const TableAllocator&, const TableAllocator&) { return false; }
};

template <typename T>
using TableVector = std::vector<T, TableAllocator<T>>;

// A serialization's output: after the tables, what a serialization
// allocates most (the compressed profile), freed back among the tables'
// free ranges rather than left in malloc's heap, where the next interval's
// tables (in table memory) could not reuse it.
using TableString = std::basic_string<char, std::char_traits<char>, TableAllocator<char>>;

// An array of table memory that frees itself, for storage that is filled
// in place and never moves (rows, interned sequences, string bytes).
template <typename T>
struct TableArrayFree {
  size_t n;
  void operator()(T* p) const noexcept { table_memory::Deallocate(p, n * sizeof(T)); }
};
template <typename T>
using TableArray = std::unique_ptr<T[], TableArrayFree<T>>;

// `n` uninitialized T (objects are begun by copying into them: T is
// trivially copyable and destructible); throws std::bad_alloc.
template <typename T>
TableArray<T> MakeTableArray(size_t n) {
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                "table arrays hold plain values");
  if (n > std::numeric_limits<size_t>::max() / sizeof(T)) throw std::bad_alloc();
  return TableArray<T>(static_cast<T*>(table_memory::Allocate(n * sizeof(T))),
                       TableArrayFree<T>{n});
}

}  // namespace stackrec

#endif  // STACKREC_SRC_BASE_TABLE_MEMORY_H_
