// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#ifndef STACKREC_SRC_TABLES_STRING_TABLE_H_
#define STACKREC_SRC_TABLES_STRING_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "base/table_memory.h"

namespace stackrec {

using StringId = uint32_t;

// Interns UTF-8 strings into dense ids.
//
// Invariant (pprof's): id 0 is always the empty string, so a zero id in any
// table means "no string" and maps to string_table[0] = "" in the output.
// Bytes live in an append-only arena, so the string_views handed out stay
// valid until Clear().
class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;

  // Sets *id to the id of `s`, copying it in if it is new. Returns false and
  // adds nothing when a new `s` is not valid UTF-8.
  bool Intern(absl::string_view s, StringId* id);

  // The id of `s` if it was interned, else 0 (and `s` is not "").
  StringId Find(absl::string_view s) const;

  absl::string_view Get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  // The arena's chunks, the id vector and the index.
  size_t MemoryBytes() const {
    return arena_bytes_ + strings_.capacity() * sizeof(absl::string_view) +
           index_.capacity() * (sizeof(StringId) + 1);
  }

  // Drops every string but "" and returns the memory to the allocator.
  void Clear();

 private:
  absl::string_view Copy(absl::string_view s);

  // The bytes and the index in table memory (table_memory.h); the views,
  // which are pointers, in operator new's memory.
  std::vector<TableArray<char>> chunks_;
  size_t arena_bytes_ = 0;
  char* chunk_pos_ = nullptr;
  size_t chunk_left_ = 0;
  // The index holds ids and finds their text through strings_: 5 bytes a
  // slot rather than the 25 of a (view, id) map.
  struct Hash {
    using is_transparent = void;
    const StringTable* table;
    size_t operator()(absl::string_view s) const { return absl::Hash<absl::string_view>{}(s); }
    size_t operator()(StringId id) const { return (*this)(table->strings_[id]); }
  };
  struct Eq {
    using is_transparent = void;
    const StringTable* table;
    bool operator()(StringId a, StringId b) const { return a == b; }
    bool operator()(StringId a, absl::string_view b) const { return table->strings_[a] == b; }
    bool operator()(absl::string_view a, StringId b) const { return a == table->strings_[b]; }
  };

  std::vector<absl::string_view> strings_;
  absl::flat_hash_set<StringId, Hash, Eq, TableAllocator<StringId>> index_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_STRING_TABLE_H_
