// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// EndpointNames: what a lane of a recorder slot records of endpoints, by
// name rather than by string id (endpoints.h). A lane's strings are its
// slot's, which only the holder of the slot's new-entry lock may add to;
// an endpoint, once per request, is kept here lock-free instead, and the
// serializer interns the names when it gathers the lanes
// (SampleLane::SettleEndpoints).
#ifndef STACKREC_SRC_RECORDER_ENDPOINT_NAMES_H_
#define STACKREC_SRC_RECORDER_ENDPOINT_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "base/memory_bytes.h"
#include "base/saturating.h"
#include "profile/endpoints.h"
#include "tables/string_table.h"

namespace stackrec {

class EndpointNames {
 public:
  // Both throw std::bad_alloc; a name already set or counted is replaced
  // or added to in place.
  void Set(uint64_t local_root_span_id, absl::string_view name) {
    by_span_[local_root_span_id] = std::string(name);
  }
  void AddCount(absl::string_view name, int64_t value) {
    int64_t& count = counts_[std::string(name)];
    count = SaturatingAdd(count, value);
  }
  // Adds `other`'s, its names winning for a span both set.
  void MergeFrom(const EndpointNames& other) {
    for (const auto& [span, name] : other.by_span_) by_span_[span] = name;
    for (const auto& [name, count] : other.counts_) AddCount(name, count);
  }
  // Adds these to `endpoints` by string id, each name interned into
  // `strings` (valid UTF-8: checked when it was set). Throws
  // std::bad_alloc.
  void AddTo(StringTable* strings, Endpoints* endpoints) const {
    for (const auto& [span, name] : by_span_) {
      StringId id;
      (void)strings->Intern(name, &id);
      endpoints->Set(span, id);
    }
    for (const auto& [name, count] : counts_) {
      StringId id;
      (void)strings->Intern(name, &id);
      endpoints->AddCount(id, count);
    }
  }
  const absl::flat_hash_map<uint64_t, std::string>& by_span() const { return by_span_; }
  const absl::flat_hash_map<std::string, int64_t>& counts() const { return counts_; }
  bool empty() const { return by_span_.empty() && counts_.empty(); }
  void Clear() {
    by_span_ = {};
    counts_ = {};
  }
  // As Endpoints: the names by span, which grow with the requests served.
  size_t MemoryBytes() const { return MapBytes(by_span_); }

 private:
  absl::flat_hash_map<uint64_t, std::string> by_span_;
  absl::flat_hash_map<std::string, int64_t> counts_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_RECORDER_ENDPOINT_NAMES_H_
