// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What the two frame hashes (fingerprint.h, fingerprint_aes.h) share about
// a frame's strings, whatever the frame's type: reaching them without
// checking them, to measure them (and so to tell whether a frame has a
// mapping) and to prefetch them a few frames ahead; whether a system
// name is the name's bytes; and the unaligned loads both read a string's
// bytes with.
//
// Why prefetch: a sampler's frames are fresh in cache, but the strings
// they point to are the runtime's, one allocation each, two or more a
// frame; on the workloads bench the load of a frame's name stalls the
// hash more than all its AES rounds do. The hash reads one frame at a time
// and the processor runs only a few frames ahead of it, so the misses of
// later frames are started here, while earlier frames are hashed.
#ifndef STACKREC_SRC_HASH_FRAME_STRINGS_H_
#define STACKREC_SRC_HASH_FRAME_STRINGS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"

namespace stackrec {

// Unaligned loads of a string's bytes (memcpy compiles to one load).
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline uint64_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// A frame's string as the frame holds it, not checked: its pointer may be
// anything, so it is never read, only measured and prefetched (a prefetch
// never faults).
struct RawString {
  const char* data;
  size_t size;
};

// How many frames ahead of the one being hashed its strings are prefetched:
// without a prefetch the load of each frame's name dominates the hash, and
// nearer or farther distances timed no better than 4.
constexpr size_t kPrefetchFrames = 4;

// Prefetches the first byte of the function's name and of its file name
// of `f` (the strings every frame has), `raw` giving a RawString of the
// frame's string type, and the first 128 bytes of the frame kPrefetchFrames
// after `f`, whose string pointers the next call reads. Addresses are
// computed as integers: a pointer may be null or dangle, and the frame
// after `f` may be past the array's end (a prefetch never faults).
//
// The first byte of each string only: prefetching the last byte too, for
// strings that cross a cache line, cost more than it saved, since each
// prefetch takes a load slot and the pass is bound by its loads (most names
// and files are 20 to 30 bytes, in one line more often than not). The
// frame's own prefetch replaces what the last bytes' prefetches did as a
// side effect: fetching the frame's struct ahead, which a caller whose
// frames are not in cache needs.
template <typename Frame, typename Raw>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void PrefetchFrameStrings(const Frame& f, Raw raw) {
  __builtin_prefetch(
      reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(raw(f.function.name).data)));
  __builtin_prefetch(
      reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(raw(f.function.filename).data)));
  const uintptr_t ahead = reinterpret_cast<uintptr_t>(&f) + kPrefetchFrames * sizeof(Frame);
  __builtin_prefetch(reinterpret_cast<const void*>(ahead));
  __builtin_prefetch(reinterpret_cast<const void*>(ahead + 64));
}

// Whether `f` has a mapping or a system name: native frames have them and
// interpreted ones mostly not, so the hashes test this once, a predictable
// branch, and view and hash those four fields only when it holds.
template <typename Frame, typename Raw>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool HasMappingOrSystemName(const Frame& f, Raw raw) {
  return (f.mapping.memory_start | f.mapping.memory_limit | f.mapping.file_offset |
          raw(f.function.system_name).size | raw(f.mapping.filename).size |
          raw(f.mapping.build_id).size) != 0;
}

// Whether `f` has a mapping: where HasMappingOrSystemName held, whether
// the system name alone made it hold.
template <typename Frame, typename Raw>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool HasMapping(const Frame& f, Raw raw) {
  return (f.mapping.memory_start | f.mapping.memory_limit | f.mapping.file_offset |
          raw(f.mapping.filename).size | raw(f.mapping.build_id).size) != 0;
}

// Whether `a` and `b` hold the same bytes; at once if they are the same
// string, as a runtime that passes a function's name as its system name
// too (Go's) hands it. The hashes then take a system name equal to the
// name without hashing its bytes again: the content decides, not the
// pointers, so a copy of the name hashes as the name itself does.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameBytes(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() &&
         (a.data() == b.data() || a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// A compiler barrier: no instruction, but the compiler may assume any
// memory changed across it. The frame hashes call it first where
// HasMappingOrSystemName held, so that the compiler loads the mapping's
// fields (and the name, to compare the system name with) again there
// instead of keeping the six words the test read, and the name, in
// registers for that rarer path; it then folds each of the test's loads
// into its `or` (`or mem, reg`), five instructions fewer a frame on a pass
// bound by its instruction count. Native frames pay six reloads that hit
// L1.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

}  // namespace stackrec

#endif  // STACKREC_SRC_HASH_FRAME_STRINGS_H_
