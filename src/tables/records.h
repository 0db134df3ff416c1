// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The records a profile interns, each made of ids into its other tables:
// mappings, functions, locations (frames) and labels, with the equality
// and hash their tables dedupe by; the key samples are summed under; and
// the label keys with a meaning.
#ifndef STACKREC_SRC_TABLES_RECORDS_H_
#define STACKREC_SRC_TABLES_RECORDS_H_

#include <cstdint>
#include <utility>

#include "absl/strings/string_view.h"
#include "tables/string_table.h"

namespace stackrec {

struct Mapping {
  uint64_t memory_start = 0, memory_limit = 0, file_offset = 0;
  StringId filename = 0, build_id = 0;
  friend bool operator==(const Mapping& a, const Mapping& b) {
    return a.memory_start == b.memory_start && a.memory_limit == b.memory_limit &&
           a.file_offset == b.file_offset && a.filename == b.filename && a.build_id == b.build_id;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Mapping& m) {
    return H::combine(std::move(h), m.memory_start, m.memory_limit, m.file_offset, m.filename,
                      m.build_id);
  }
};

struct Function {
  StringId name = 0, system_name = 0, filename = 0;
  int64_t start_line = 0;
  friend bool operator==(const Function& a, const Function& b) {
    return a.name == b.name && a.system_name == b.system_name && a.filename == b.filename &&
           a.start_line == b.start_line;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Function& f) {
    return H::combine(std::move(h), f.name, f.system_name, f.filename, f.start_line);
  }
};

// One frame. A frame `inlined` into the next frame of its stack shares
// that frame's address and mapping (checked by Profile::Add); the encoder
// writes such a run of frames as one pprof Location with one Line each.
struct Location {
  uint32_t mapping = 0;  // 0: no mapping
  // 0: no function (address only). 31 bits, so that the flag shares its
  // word: a Location stays 24 bytes, and the tables keyed by it small.
  uint32_t function : 31;
  uint32_t inlined : 1;
  uint64_t address = 0;
  int64_t line = 0;
  Location() : function(0), inlined(0) {}
  friend bool operator==(const Location& a, const Location& b) {
    return a.mapping == b.mapping && a.function == b.function && a.address == b.address &&
           a.line == b.line && a.inlined == b.inlined;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Location& l) {
    return H::combine(std::move(h), l.mapping, l.function, l.address, l.line, l.inlined);
  }
};

struct Label {
  StringId key = 0, str = 0, num_unit = 0;
  int64_t num = 0;
  friend bool operator==(const Label& a, const Label& b) {
    return a.key == b.key && a.str == b.str && a.num_unit == b.num_unit && a.num == b.num;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Label& l) {
    return H::combine(std::move(h), l.key, l.str, l.num_unit, l.num);
  }
};

// A key of the aggregate: a stack and a label set, by their ids. Two
// 32-bit ids rather than one 64-bit word, so that an index slot holding a
// key and a row stays at 12 bytes.
struct SampleKey {
  uint32_t stack = 0, labels = 0;
  uint64_t Packed() const { return uint64_t{stack} << 32 | labels; }
  friend bool operator==(const SampleKey& a, const SampleKey& b) {
    return a.stack == b.stack && a.labels == b.labels;
  }
  template <typename H>
  friend H AbslHashValue(H h, const SampleKey& k) {
    return H::combine(std::move(h), k.Packed());
  }
};

}  // namespace stackrec

#endif  // STACKREC_SRC_TABLES_RECORDS_H_
