// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "base/table_memory.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>

#if defined(__SANITIZE_ADDRESS__)
#define STACKREC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STACKREC_ASAN 1
#endif
#endif
#ifdef STACKREC_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace stackrec {
namespace table_memory {
namespace {

// Free ranges are poisoned under AddressSanitizer, so that a table read
// after its storage was freed is reported as with operator new's memory.
#ifdef STACKREC_ASAN
void Poison(uintptr_t start, size_t bytes) {
  ASAN_POISON_MEMORY_REGION(reinterpret_cast<void*>(start), bytes);
}
void Unpoison(uintptr_t start, size_t bytes) {
  ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void*>(start), bytes);
}
#else
void Poison(uintptr_t, size_t) {}
void Unpoison(uintptr_t, size_t) {}
#endif

constexpr size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// `bytes` (a multiple of kHugePageBytes) mapped at a multiple of
// kHugePageBytes, huge pages advised; 0 if the kernel refuses.
uintptr_t MapChunk(size_t bytes) {
  void* raw = mmap(nullptr, bytes + kHugePageBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return 0;
  const auto raw_start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t start = RoundUp(raw_start, kHugePageBytes);
  const size_t head = start - raw_start;
  if (head != 0) munmap(raw, head);
  if (head != kHugePageBytes) {
    munmap(reinterpret_cast<void*>(start + bytes), kHugePageBytes - head);
  }
#ifdef MADV_HUGEPAGE
  // Advice only: where transparent huge pages are off, 4 KiB pages.
  madvise(reinterpret_cast<void*>(start), bytes, MADV_HUGEPAGE);
#endif
  return start;
}

class Chunks {
  using RangeMap = std::map<uintptr_t, size_t>;  // start -> bytes

 public:
  Chunks() {
    pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); },
                   [] { Get().mu_.unlock(); });
  }

  static Chunks& Get() {
    static Chunks* const chunks = new Chunks();  // never destroyed: no exit-order hazard
    return *chunks;
  }

  void* Allocate(size_t bytes) {
    // Larger than any mapping could be: refused before rounding up, which
    // would wrap around.
    if (bytes > std::numeric_limits<size_t>::max() / 2) throw std::bad_alloc();
    const size_t n = RoundUp(bytes, kPageBytes);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (void* p = TakeFree(n)) return p;
    }
    // No free range fits: map a chunk (outside the lock), then take from
    // it. If another thread freed a fitting range meanwhile, that range is
    // taken and the chunk unmapped again: kept, it would stay mapped and
    // entirely free, which only a free inside it can unmap (FreeLocked).
    // Invariant: no chunk stays entirely free (CurrentUsage counts none
    // once everything is freed).
    const size_t size = RoundUp(std::max(n, kChunkBytes), kHugePageBytes);
    const uintptr_t start = MapChunk(size);
    if (start == 0) throw std::bad_alloc();
    Poison(start, size);
    std::unique_lock<std::mutex> lock(mu_);
    if (void* p = TakeFree(n)) {
      lock.unlock();
      Finish(Work{/*unmap=*/start, /*unmap_bytes=*/size});
      return p;
    }
    try {
      chunks_.emplace(start, size);
      free_.emplace(start, size);
    } catch (...) {  // a map node: the chunk goes back, nothing else changed
      chunks_.erase(start);
      Unpoison(start, size);
      munmap(reinterpret_cast<void*>(start), size);
      throw;
    }
    mapped_ += size;
    return TakeFree(n);  // not null: the new chunk fits
  }

  void Deallocate(void* p, size_t bytes) {
    const size_t n = RoundUp(bytes, kPageBytes);
    Work work;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Poison(reinterpret_cast<uintptr_t>(p), n);
      used_ -= n;
      work = FreeLocked(reinterpret_cast<uintptr_t>(p), n, true);
    }
    Finish(work);
    if (work.drop_bytes != 0) {
      // The pages are given back; the range becomes free again.
      madvise(reinterpret_cast<void*>(work.drop), work.drop_bytes, MADV_DONTNEED);
      {
        std::lock_guard<std::mutex> lock(mu_);
        work = FreeLocked(work.drop, work.drop_bytes, false);
      }
      Finish(work);
    }
  }

  Usage Current() {
    std::lock_guard<std::mutex> lock(mu_);
    return Usage{mapped_, used_, chunks_.size()};
  }

 private:
  // What a free leaves to do outside the lock: a chunk to unmap, or
  // whole huge pages to give back to the kernel (taken out of the free
  // ranges meanwhile, so that no allocation writes to them).
  struct Work {
    uintptr_t unmap = 0;
    size_t unmap_bytes = 0;
    uintptr_t drop = 0;
    size_t drop_bytes = 0;
  };

  void Finish(const Work& work) {
    if (work.unmap_bytes == 0) return;
    Unpoison(work.unmap, work.unmap_bytes);  // the addresses may be mapped again
    munmap(reinterpret_cast<void*>(work.unmap), work.unmap_bytes);
  }

  // Makes [start, start + size) free, coalesced with its free neighbours
  // in its chunk. A chunk entirely free is unmapped; otherwise, if
  // `may_drop`, the whole huge pages of the coalesced range are given back
  // (what is freed stays out of the process's memory, and faulting a huge
  // page in again costs one fault). mu_ held.
  Work FreeLocked(uintptr_t start, size_t size, bool may_drop) {
    Work work;
    const auto chunk = std::prev(chunks_.upper_bound(start));
    const uintptr_t chunk_end = chunk->first + chunk->second;
    // Reuses the neighbours' map nodes: a free allocates a node only for
    // a range with no free neighbour, or when it splits off pages to drop.
    RangeMap::node_type node;
    auto next = free_.lower_bound(start);
    if (next != free_.end() && next->first == start + size && next->first < chunk_end) {
      const auto after = std::next(next);
      node = free_.extract(next);
      size += node.mapped();
      next = after;
    }
    if (next != free_.begin()) {
      const auto prev = std::prev(next);
      if (prev->first + prev->second == start && prev->first >= chunk->first) {
        start = prev->first;
        size += prev->second;
        if (node.empty()) {
          node = free_.extract(prev);
        } else {
          free_.erase(prev);
        }
      }
    }
    if (start == chunk->first && size == chunk->second) {
      work.unmap = start;
      work.unmap_bytes = size;
      mapped_ -= size;
      chunks_.erase(chunk);
      return work;
    }
    const uintptr_t end = start + size;
    const uintptr_t lo = RoundUp(start, kHugePageBytes);
    const uintptr_t hi = end / kHugePageBytes * kHugePageBytes;
    if (may_drop && hi > lo) {
      work.drop = lo;
      work.drop_bytes = hi - lo;
      if (lo > start) AddFree(start, lo - start, &node);
      if (end > hi) AddFree(hi, end - hi, &node);
    } else {
      AddFree(start, size, &node);
    }
    return work;
  }

  // Adds a free range, in `*node` if it holds one. Without a node and
  // without memory for one, the range is lost to reuse (and its chunk
  // stays mapped until the process ends).
  void AddFree(uintptr_t start, size_t size, RangeMap::node_type* node) {
    if (!node->empty()) {
      node->key() = start;
      node->mapped() = size;
      free_.insert(std::move(*node));
      return;
    }
    try {
      free_.emplace(start, size);
    } catch (...) {
    }
  }

  // Best fit: the smallest free range with room for `n` bytes (a multiple
  // of kPageBytes; of equal ones the lowest), taken from its start; null if
  // none. A linear scan: it runs only when a table grows, over ranges that
  // coalesce, never on a lookup.
  void* TakeFree(size_t n) {
    auto it = free_.end();
    for (auto at = free_.begin(); at != free_.end(); ++at) {
      if (at->second >= n && (it == free_.end() || at->second < it->second)) it = at;
    }
    if (it != free_.end()) {
      const uintptr_t start = it->first;
      const size_t left = it->second - n;
      if (left == 0) {
        free_.erase(it);
      } else {  // the range's node moves to its rest: no allocation
        auto node = free_.extract(it);
        node.key() = start + n;
        node.mapped() = left;
        free_.insert(std::move(node));
      }
      used_ += n;
      Unpoison(start, n);
      return reinterpret_cast<void*>(start);
    }
    return nullptr;
  }

  std::mutex mu_;
  RangeMap chunks_;
  // Free ranges: each within one chunk, and not adjacent to another of the
  // same chunk (coalesced).
  RangeMap free_;
  size_t mapped_ = 0;  // the chunks' bytes
  size_t used_ = 0;    // handed out
};

// FailAllocationsForTesting's countdown: 0 when off, else 1 + the number of
// allocations that still succeed.
std::atomic<uint64_t> allocations_before_failure{0};

}  // namespace

void FailAllocationsForTesting(uint64_t n) {
  allocations_before_failure.store(n, std::memory_order_relaxed);
}

void* Allocate(size_t bytes) {
  // One relaxed load of a line no one writes while it is off.
  if (allocations_before_failure.load(std::memory_order_relaxed) != 0) {
    // Stays at 1 once reached: every allocation from then on fails.
    uint64_t left = allocations_before_failure.load(std::memory_order_relaxed);
    while (left > 1 && !allocations_before_failure.compare_exchange_weak(
                           left, left - 1, std::memory_order_relaxed)) {
    }
    if (left == 1) throw std::bad_alloc();
  }
  if (bytes < kMinBytes) return ::operator new(bytes);
  return Chunks::Get().Allocate(bytes);
}

void Deallocate(void* p, size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kMinBytes) return ::operator delete(p);
  Chunks::Get().Deallocate(p, bytes);
}

Usage CurrentUsage() { return Chunks::Get().Current(); }

}  // namespace table_memory
}  // namespace stackrec
