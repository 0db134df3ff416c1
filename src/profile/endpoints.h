// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Endpoints: a profile's endpoint names, by the local root span id whose
// samples they label ("trace endpoint"), and the hit count of each name.
// Names are string ids of the profile's tables.
#ifndef STACKREC_SRC_PROFILE_ENDPOINTS_H_
#define STACKREC_SRC_PROFILE_ENDPOINTS_H_

#include <cstddef>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "base/memory_bytes.h"
#include "base/saturating.h"
#include "base/table_growth.h"
#include "tables/string_table.h"

namespace stackrec {

class Endpoints {
 public:
  // Both throw std::bad_alloc with nothing changed.
  void Set(uint64_t local_root_span_id, StringId name) {
    GrowBeforeInsert(by_span_);
    by_span_.insert_or_assign(local_root_span_id, name);
  }
  // Adds `value` to the count of `name`, saturating.
  void AddCount(StringId name, int64_t value) {
    GrowBeforeInsert(counts_);
    int64_t& count = counts_[name];
    count = SaturatingAdd(count, value);
  }
  const absl::flat_hash_map<uint64_t, StringId>& by_span() const { return by_span_; }
  const absl::flat_hash_map<StringId, int64_t>& counts() const { return counts_; }
  void Clear() {
    by_span_ = {};
    counts_ = {};
  }
  // The names by span, which grow with the requests served. The counts,
  // one per distinct name, are not counted.
  size_t MemoryBytes() const { return MapBytes(by_span_); }

 private:
  absl::flat_hash_map<uint64_t, StringId> by_span_;
  absl::flat_hash_map<StringId, int64_t> counts_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_ENDPOINTS_H_
