// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/content_blobs.h"

#include <new>
#include <utility>

#include "absl/hash/hash.h"

namespace stackrec {

ContentBlobs::~ContentBlobs() = default;

uint64_t ContentBlobs::HashBytes(absl::string_view bytes) { return absl::HashOf(bytes); }

const ContentBlobs::Blob& ContentBlobs::Acquire(absl::string_view bytes, uint64_t hash,
                                                bool* added) {
  const uint32_t s = StripeOf(hash);
  Stripe& stripe = stripes_[s];
  SpinLockHolder hold(&stripe.lock);
  auto it = stripe.set.find(Lookup{hash, bytes});
  if (it != stripe.set.end()) {
    ++(*it)->refs;
    *added = false;
    return **it;
  }
  // Allocations first; the commit below cannot throw.
  auto blob = std::make_unique<Blob>();
  blob->bytes.assign(bytes.data(), bytes.size());
  blob->hash = hash;
  blob->refs = 1;
  uint32_t local;
  if (!stripe.free_numbers.empty()) {
    local = stripe.free_numbers.back();
  } else {
    local = static_cast<uint32_t>(stripe.by_number.size());
    if (local >= kMaxNumbers >> kStripeBits) throw std::bad_alloc();
    stripe.by_number.emplace_back();
  }
  stripe.set.reserve(stripe.set.size() + 1);
  if (!stripe.free_numbers.empty()) stripe.free_numbers.pop_back();
  blob->number = local << kStripeBits | s;
  blob->serial = stripe.next_serial++ << kStripeBits | s;
  stripe.bytes += sizeof(Blob) + blob->bytes.capacity();
  Blob* raw = blob.get();
  stripe.by_number[local] = std::move(blob);
  stripe.set.insert(raw);
  *added = true;
  return *raw;
}

const ContentBlobs::Blob* ContentBlobs::Find(absl::string_view bytes, uint64_t hash) {
  Stripe& stripe = stripes_[StripeOf(hash)];
  SpinLockHolder hold(&stripe.lock);
  auto it = stripe.set.find(Lookup{hash, bytes});
  if (it == stripe.set.end()) return nullptr;
  ++(*it)->refs;
  return *it;
}

bool ContentBlobs::Peek(absl::string_view bytes, uint64_t hash, uint32_t* number,
                        uint64_t* serial) const {
  const Stripe& stripe = stripes_[StripeOf(hash)];
  SpinLockHolder hold(&stripe.lock);
  auto it = stripe.set.find(Lookup{hash, bytes});
  if (it == stripe.set.end()) return false;
  *number = (*it)->number;
  *serial = (*it)->serial;
  return true;
}

std::unique_ptr<ContentBlobs::Blob> ContentBlobs::Release(uint32_t number) {
  Stripe& stripe = stripes_[number & (kStripes - 1)];
  const uint32_t local = number >> kStripeBits;
  std::unique_ptr<Blob> freed;
  {
    SpinLockHolder hold(&stripe.lock);
    Blob* blob = stripe.by_number[local].get();
    if (--blob->refs != 0) return nullptr;
    stripe.set.erase(blob);
    stripe.bytes -= sizeof(Blob) + blob->bytes.capacity();
    freed = std::move(stripe.by_number[local]);
    try {
      stripe.free_numbers.push_back(local);
    } catch (const std::bad_alloc&) {
      // The number is lost to reuse, not the blob's memory.
    }
  }
  return freed;
}

const ContentBlobs::Blob& ContentBlobs::Get(uint32_t number) const {
  const Stripe& stripe = stripes_[number & (kStripes - 1)];
  SpinLockHolder hold(&stripe.lock);  // by_number may be growing
  return *stripe.by_number[number >> kStripeBits];
}

size_t ContentBlobs::size() const {
  size_t n = 0;
  for (const Stripe& stripe : stripes_) {
    SpinLockHolder hold(&stripe.lock);
    n += stripe.set.size();
  }
  return n;
}

size_t ContentBlobs::MemoryBytes() const {
  size_t n = 0;
  for (const Stripe& stripe : stripes_) {
    SpinLockHolder hold(&stripe.lock);
    n += stripe.bytes + stripe.set.capacity() * (sizeof(Blob*) + 1) +
         stripe.by_number.capacity() * sizeof(stripe.by_number[0]) +
         stripe.free_numbers.capacity() * sizeof(uint32_t);
  }
  return n;
}

bool ContentBlobs::AnyLockHeld() const {
  for (const Stripe& stripe : stripes_) {
    if (stripe.lock.IsLocked(std::memory_order_relaxed)) return true;
  }
  return false;
}

}  // namespace stackrec
