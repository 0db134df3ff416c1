// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The four tables a location's content lives in (strings, mappings,
// functions, locations), as one type: a profile and a dictionary each own
// one, and RecordRemap (record_remap.h) copies between any two through
// the views below.
#ifndef STACKREC_SRC_INTERNED_RECORDS_H_
#define STACKREC_SRC_INTERNED_RECORDS_H_

#include <cstddef>
#include <type_traits>

#include "intern_tables.h"
#include "records.h"
#include "string_table.h"

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

}  // namespace stackrec

#endif  // STACKREC_SRC_INTERNED_RECORDS_H_
