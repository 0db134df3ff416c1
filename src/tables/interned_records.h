// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The four tables a location's content lives in (strings, mappings,
// functions, locations), as one type: a profile and a dictionary each own
// one, and RecordRemap (record_remap.h) copies between any two through
// the views below.
#ifndef STACKREC_SRC_TABLES_INTERNED_RECORDS_H_
#define STACKREC_SRC_TABLES_INTERNED_RECORDS_H_

#include <cstddef>
#include <type_traits>
#include <vector>

#include "tables/intern_tables.h"
#include "tables/records.h"
#include "tables/string_table.h"

namespace stackrec {

// References to the four tables of an InternedRecords, const or not.
template <bool kConst>
struct RecordTablesOf {
  template <typename T>
  using Ref = std::conditional_t<kConst, const T&, T&>;
  Ref<StringTable> strings;
  Ref<ValueTable<Mapping>> mappings;
  Ref<ValueTable<Function>> functions;
  Ref<ValueTable<Location>> locations;
};
using RecordTables = RecordTablesOf<false>;
using ConstRecordTables = RecordTablesOf<true>;

struct InternedRecords {
  StringTable strings;
  ValueTable<Mapping> mappings;
  ValueTable<Function> functions;
  ValueTable<Location> locations;

  RecordTables tables() { return {strings, mappings, functions, locations}; }
  ConstRecordTables tables() const { return {strings, mappings, functions, locations}; }
  size_t MemoryBytes() const {
    return strings.MemoryBytes() + mappings.MemoryBytes() + functions.MemoryBytes() +
           locations.MemoryBytes();
  }
};

// Ends a stack of location ids cut to its leaf-side `kept` (ids into
// `locations`) after `cut` more frames: the last kept frame stands alone
// (what it was inlined into is gone) and a pseudo-frame named by
// TruncatedFrameName(cut) follows. The one cut of interned stacks and
// location-id samples, in a Dictionary or a Profile; the tables must have
// room for two locations and a function more.
void EndTruncatedStack(size_t cut, StringTable* strings, ValueTable<Function>* functions,
                       ValueTable<Location>* locations, std::vector<uint32_t>* kept);

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_INTERNED_RECORDS_H_
