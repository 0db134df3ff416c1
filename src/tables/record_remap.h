// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Copies interned records from one set of tables into another: a location
// brings its mapping and its function, and they bring their strings, each
// copied once and then found in the memo (old id -> new id). Every copy of
// records between tables goes through here: a recorder slot's carry-over
// into its next profile, and a profile's imports from its dictionary.
//
// The memo is the caller's, so that one can last as long as the ids it
// maps stay valid (a profile's imports, for one dictionary generation) or
// just one pass (a carry-over). Id 0 (no mapping, no function, "") maps to
// 0. Interning may throw std::bad_alloc; what was copied stays valid.
#ifndef STACKREC_SRC_TABLES_RECORD_REMAP_H_
#define STACKREC_SRC_TABLES_RECORD_REMAP_H_

#include <cstddef>
#include <cstdint>

#include "base/table_memory.h"
#include "tables/interned_records.h"

namespace stackrec {

// Old id -> new id for each table, kUnmapped until copied; grown as ids
// are met.
struct RecordMemo {
  static constexpr uint32_t kUnmapped = ~uint32_t{0};
  TableVector<uint32_t> strings, mappings, functions, locations;

  void Clear() {
    for (auto* v : {&strings, &mappings, &functions, &locations}) TableVector<uint32_t>().swap(*v);
  }
  size_t MemoryBytes() const {
    return (strings.capacity() + mappings.capacity() + functions.capacity() +
            locations.capacity()) *
           sizeof(uint32_t);
  }
};

class RecordRemap {
 public:
  RecordRemap(ConstRecordTables from, RecordTables to, RecordMemo* memo)
      : from_(from), to_(to), memo_(memo) {}

  StringId String(StringId id) {
    if (id == 0) return 0;
    uint32_t& mapped = Entry(&memo_->strings, id);
    if (mapped == RecordMemo::kUnmapped) {
      // Valid UTF-8 already: interning cannot fail.
      (void)to_.strings.Intern(from_.strings.Get(id), &mapped);
    }
    return mapped;
  }

  uint32_t MappingId(uint32_t id) {
    if (id == 0) return 0;
    uint32_t& mapped = Entry(&memo_->mappings, id);
    if (mapped == RecordMemo::kUnmapped) {
      Mapping m = from_.mappings.Get(id);
      m.filename = String(m.filename);
      m.build_id = String(m.build_id);
      mapped = to_.mappings.Intern(m);
    }
    return mapped;
  }

  uint32_t FunctionId(uint32_t id) {
    if (id == 0) return 0;
    uint32_t& mapped = Entry(&memo_->functions, id);
    if (mapped == RecordMemo::kUnmapped) {
      Function f = from_.functions.Get(id);
      f.name = String(f.name);
      f.system_name = String(f.system_name);
      f.filename = String(f.filename);
      mapped = to_.functions.Intern(f);
    }
    return mapped;
  }

  uint32_t LocationId(uint32_t id) {
    if (id == 0) return 0;
    if (id < memo_->locations.size() && memo_->locations[id] != RecordMemo::kUnmapped) {
      return memo_->locations[id];
    }
    Location loc = from_.locations.Get(id);
    loc.mapping = MappingId(loc.mapping);
    loc.function = FunctionId(loc.function);
    const uint32_t mapped = to_.locations.Intern(loc);
    Entry(&memo_->locations, id) = mapped;
    return mapped;
  }

 private:
  // memo[id], growing the memo with kUnmapped as needed.
  static uint32_t& Entry(TableVector<uint32_t>* memo, uint32_t id) {
    if (id >= memo->size()) memo->resize(size_t{id} + 1, RecordMemo::kUnmapped);
    return (*memo)[id];
  }

  ConstRecordTables from_;
  RecordTables to_;
  RecordMemo* memo_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_RECORD_REMAP_H_
