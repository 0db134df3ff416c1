// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// ContentBlobs: the tracked objects' content (stacks, label sets, and the
// keys pairing them), interned once for every tracker as immutable byte
// strings ("blobs", content_encoding.h). Striped: a blob lives in the
// stripe its hash picks, a hash set and a directory behind a spin lock of
// their own, so trackers interning different content rarely meet, and the
// lock is held for one lookup. Lookups compare whole bytes: two different
// contents are never one blob, whatever their hashes.
//
// A blob is counted (its references) under its stripe's lock and freed at
// zero. Its number (dense, reused once it is freed, below kMaxNumbers)
// names it in an object record; its serial (never reused) names it in a
// heap lane's memory (HeapDeltas::FromBlob), so a lane never mistakes a
// new blob for a freed one that had the same number.
#ifndef STACKREC_SRC_TABLES_CONTENT_BLOBS_H_
#define STACKREC_SRC_TABLES_CONTENT_BLOBS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "base/spin_lock.h"

namespace stackrec {

class ContentBlobs {
 public:
  struct Blob {
    uint64_t hash;
    uint64_t serial;
    uint32_t number;
    uint32_t refs;  // under the stripe's lock
    std::string bytes;
  };

  // Numbers are below this, so that a user may tag them in the bits above.
  static constexpr unsigned kNumberBits = 28;
  static constexpr uint32_t kMaxNumbers = uint32_t{1} << kNumberBits;

  ContentBlobs() = default;
  ContentBlobs(const ContentBlobs&) = delete;
  ContentBlobs& operator=(const ContentBlobs&) = delete;
  ~ContentBlobs();

  // The blob of `bytes` (whose hash is `hash`), with one more
  // reference; `*added` says whether it is new. Throws std::bad_alloc with
  // nothing changed, also when a stripe has used up its share of the
  // numbers (2^23 blobs alive in it, tens of gigabytes).
  const Blob& Acquire(absl::string_view bytes, uint64_t hash, bool* added);
  // The blob of `bytes` with one more reference, or null if there is none:
  // it never allocates.
  const Blob* Find(absl::string_view bytes, uint64_t hash);
  // Whether there is a blob of `bytes`, and its number and serial, taking
  // no reference: the blob may be gone as soon as this returns, but its
  // serial names it alone forever, so a lookup by serial cannot be misled.
  bool Peek(absl::string_view bytes, uint64_t hash, uint32_t* number, uint64_t* serial) const;
  // One reference fewer; at zero the blob leaves the table and is returned,
  // for the caller to read a last time and free.
  std::unique_ptr<Blob> Release(uint32_t number);
  // The blob `number`, while the caller holds a reference to it: a blob is
  // immutable, so reading it needs no lock once found.
  const Blob& Get(uint32_t number) const;

  static uint64_t HashBytes(absl::string_view bytes);

  // Blobs alive, and their bytes with the stripes' tables.
  size_t size() const;
  size_t MemoryBytes() const;
  bool AnyLockHeld() const;

 private:
  static constexpr unsigned kStripeBits = 5;
  static constexpr uint32_t kStripes = 1u << kStripeBits;

  struct Lookup {
    uint64_t hash;
    absl::string_view bytes;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(const Blob* b) const { return static_cast<size_t>(b->hash); }
    size_t operator()(const Lookup& l) const { return static_cast<size_t>(l.hash); }
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(const Blob* a, const Blob* b) const { return a == b; }
    bool operator()(const Blob* a, const Lookup& l) const {
      return a->hash == l.hash && a->bytes == l.bytes;
    }
    bool operator()(const Lookup& l, const Blob* a) const { return (*this)(a, l); }
  };
  struct alignas(64) Stripe {
    mutable SpinLock lock;
    absl::flat_hash_set<Blob*, Hash, Eq> set;
    std::vector<std::unique_ptr<Blob>> by_number;  // local number -> blob
    std::vector<uint32_t> free_numbers;
    uint64_t next_serial = 0;
    size_t bytes = 0;
  };

  static uint32_t StripeOf(uint64_t hash) {
    return static_cast<uint32_t>(hash >> 59) & (kStripes - 1);
  }

  Stripe stripes_[kStripes];
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_CONTENT_BLOBS_H_
