// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Live-heap tracking: objects that samplers track (allocated) and untrack
// (freed), and the running totals every serialization adds to its profile,
// so an object alive across many profiles appears in each of them.
//
// Three parts, with three owners (the protocol is at the top of
// recorder.cc):
//  - ObjectTable: object id -> (key id, values), packed to stay under 48
//    bytes per object at a million objects.
//  - TrackedObjects: the samplers' side, under the recorder's heap lock:
//    the table, and a Profile that interns each tracked object's stack and
//    labels once (its "content"), so an untrack can name the object's key in
//    whatever slot is active then.
//  - LiveTotals: the serializer's side: the sum of every heap delta the
//    slots have handed over, by content.
#ifndef STACKREC_SRC_LIVE_HEAP_H_
#define STACKREC_SRC_LIVE_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "profile.h"
#include "sample_view.h"
#include "status.h"

namespace stackrec {

struct LiveHeapOptions {
  // Offsets into the sample types of the values a tracked object carries
  // (e.g. heap-live-samples, heap-live-size). Empty: tracking is off.
  std::vector<size_t> types;
  size_t max_objects = 0;  // 0: kDefaultMaxTrackedObjects
};

inline constexpr size_t kDefaultMaxTrackedObjects = size_t{1} << 22;
// Record numbers are uint32 and ObjectTable::kNone is the largest one.
inline constexpr size_t kMaxTrackedObjectsLimit = 0xFFFFFFFEu;

// Validates `in` against `sample_types` declared types and copies it with
// its defaults (names are reported as "opts.<field>").
Status MakeLiveHeapOptions(const LiveHeapOptions& in, size_t sample_types,
                           LiveHeapOptions* out);

// object id -> (a key id, `width` values). Records are packed back to back,
// unaligned, in chunks of kChunkRecords (no per-record padding: 12 + 8 *
// width bytes), and found through an open-addressing index of uint32 record
// numbers with linear probing. Why not absl::flat_hash_map: at a million
// entries it has 2^21 slots of 8 + 4 + 8 * width bytes (padded to 32 for
// width 2), about 64 bytes per object; here a record is 28 bytes and its
// index share 4 / load, about 36 bytes at a million.
//
// An index entry also carries the top bits of the id's hash in the bits
// that record numbers below max_objects leave free, so a lookup of an id
// that is not tracked (the common untrack: most freed objects were never
// sampled) rarely reads a record.
//
// Not thread-safe; TrackedObjects guards it.
class ObjectTable {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};
  static constexpr size_t kChunkRecords = 4096;

  ObjectTable(size_t width, size_t max_objects);
  ObjectTable(const ObjectTable&) = delete;
  ObjectTable& operator=(const ObjectTable&) = delete;

  size_t size() const { return size_; }
  // The record number of `id`, or kNone.
  uint32_t Find(uint64_t id) const;
  uint32_t key(uint32_t record) const;
  // Copies the record's values into out[0, width).
  void values(uint32_t record, int64_t* out) const;

  // Makes room for one more record, so that the Insert that follows cannot
  // throw. Throws std::bad_alloc and changes nothing if memory is short.
  void Reserve();
  // `id` must not be in the table, and Reserve must have been called.
  void Insert(uint64_t id, uint32_t key, const int64_t* values);
  void Set(uint32_t record, uint32_t key, const int64_t* values);
  // Removes the record; the last record moves into its place (so record
  // numbers are not stable across an Erase).
  void Erase(uint32_t record);
  // Replaces every record's key k by new_keys[k].
  void RemapKeys(absl::Span<const uint32_t> new_keys);

  // Bytes allocated: the chunks, the chunk pointers and the index.
  size_t MemoryBytes() const;

 private:
  char* Record(uint32_t record) const {
    return chunks_[record / kChunkRecords].get() +
           (record % kChunkRecords) * record_bytes_;
  }
  uint64_t Id(uint32_t record) const;
  // The index slot holding `record` (whose id is in the table).
  size_t SlotOf(uint32_t record) const;
  uint32_t Entry(uint64_t hash, uint32_t record) const;
  uint32_t Tag(uint64_t hash) const;
  // Rebuilds the index with `slots` slots (a power of two). Throws
  // std::bad_alloc, changing nothing.
  void Rehash(size_t slots);

  const size_t width_;
  const size_t record_bytes_;
  const unsigned record_bits_;  // bits of an index entry for record + 1
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<uint32_t> index_;  // 0: empty; else tag << record_bits_ | record + 1
  size_t size_ = 0;
};

// The samplers' side of tracking. Every call must hold the recorder's heap
// lock; the ones that take a slot's profile also hold that slot's lock (the
// order is slot, then heap).
class TrackedObjects {
 public:
  // `profile_options` passed MakeProfileOptions and `options`
  // MakeLiveHeapOptions.
  TrackedObjects(const ProfileOptions& profile_options, const LiveHeapOptions& options);

  // Remembers object `id` with the sample's stack, labels and values at the
  // live-heap types, replacing an object tracked under the same id, and
  // adds the difference as heap deltas to `slot` (the active slot's
  // profile). The caller validated values_len and timestamp_ns. At
  // max_objects, a new id gets kLimitExceeded and nothing changes. On any
  // error nothing observable changes.
  Status Track(uint64_t id, const SampleView& sample, Profile* slot, bool* truncated);
  // Whether `id` is tracked (cheap: no record is read unless a hash tag
  // matches).
  bool Contains(uint64_t id) const { return objects_.Find(id) != ObjectTable::kNone; }
  // Forgets `id` and subtracts its values from its key in `slot`. Nothing
  // happens if `id` is not tracked.
  void Untrack(uint64_t id, Profile* slot);
  // Drops the content of keys no tracked object uses any more, once they
  // are most of the content store (amortized over the frees that made
  // them dead).
  void CompactIfMostlyDead();

  size_t size() const { return objects_.size(); }
  // The table's bytes, and the content store's.
  size_t TableBytes() const { return objects_.MemoryBytes(); }
  size_t MemoryBytes() const;

 private:
  // Key `key` of the store as a heap row of `slot`: remembered by `slot`
  // (HeapDeltas::FromStore), else imported by content.
  uint32_t SlotRow(uint32_t key, Profile* slot);
  void Release(uint32_t key);

  const std::vector<size_t> types_;
  const size_t max_objects_;
  // Content store: a tracked object's key id is a heap row of this profile
  // (of width 0), i.e. an interned (stack, labels).
  std::unique_ptr<Profile> store_;
  // Which numbering of the store's keys is current: a compaction renumbers
  // them and takes the next one.
  uint64_t generation_ = 0;
  std::vector<uint32_t> refs_;  // objects per store key
  size_t live_keys_ = 0;        // store keys with refs_ > 0
  ObjectTable objects_;
  std::vector<int64_t> scratch_new_, scratch_old_;
};

// The serializer's side: running totals of the heap deltas, by content.
class LiveTotals {
 public:
  LiveTotals(const ProfileOptions& profile_options, const LiveHeapOptions& options);

  // Moves the heap deltas of `slot` into the totals and clears them from
  // the slot. Throws std::bad_alloc before changing any total.
  void Absorb(Profile* slot);
  // Adds every non-zero total to the aggregated keys of `slot`, at the
  // stored positions of the live-heap types (other values 0). `undo` (its
  // key_count set first) takes it back: on a failed encoding, the next
  // serialization adds the totals again.
  void AddTo(Profile* slot, KeyUndo* undo);
  size_t MemoryBytes() const { return totals_->MemoryBytes(); }

 private:
  // Starts over with only the non-zero keys when most are zero (every
  // object of theirs freed), so code that keeps changing does not make the
  // totals grow forever. Amortized: O(keys) after at least keys/2 died.
  void CompactIfMostlyDead();

  const size_t width_;
  // Per live-heap type, its index among the stored (enabled) values, or
  // kNotStored when its type is disabled.
  static constexpr size_t kNotStored = ~size_t{0};
  std::vector<size_t> stored_index_;
  std::unique_ptr<Profile> totals_;  // the heap rows are the totals
  std::vector<uint32_t> scratch_rows_;
  std::vector<int64_t> scratch_values_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_LIVE_HEAP_H_
