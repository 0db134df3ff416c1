// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Dictionary: the pre-interned mappings, functions, locations, stacks and
// label sets a caller refers to by id (stackrec.h, "Pre-interned frames").
// It belongs to a stackrec_profile or a recorder, outlives their profiles,
// and is only read by them: a profile imports (copies) what its samples use, so a
// dictionary can be forgotten without touching recorded data.
//
// Ids are generation << 24 | index. Invariant: index 0 is never handed out
// (0 means "none" in a location's mapping_id and function_id, and "use
// location_ids" in a sample's stack_id), and Forget() bumps the generation,
// so ids from before it are recognized as stale.
//
// Not thread-safe: a recorder guards it with a lock of its own.
#ifndef STACKREC_SRC_PROFILE_DICTIONARY_H_
#define STACKREC_SRC_PROFILE_DICTIONARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "base/status.h"
#include "input/sample_view.h"
#include "tables/intern_tables.h"
#include "tables/interned_records.h"
#include "tables/record_remap.h"
#include "tables/string_table.h"

namespace stackrec {

class Dictionary {
 public:
  static constexpr unsigned kIndexBits = 24;
  static constexpr uint32_t kIndexMask = (uint32_t{1} << kIndexBits) - 1;
  // The largest index of each table.
  static constexpr uint32_t kMaxIndex = kIndexMask;
  static constexpr uint32_t kGenerationMask = ~uint32_t{0} >> kIndexBits;

  // Stacks deeper than max_frames are cut when interned, as samples are.
  // `generation` (8 bits) goes into the ids; a dictionary replacing another
  // takes the next one, so the old ids are stale.
  explicit Dictionary(size_t max_frames, uint32_t generation = 0)
      : max_frames_(max_frames), generation_(generation & kGenerationMask) {}
  Dictionary(const Dictionary&) = delete;
  Dictionary& operator=(const Dictionary&) = delete;

  // Errors name the argument as the C API does ("mapping.filename",
  // "location.function_id", "location_ids[3]").
  Status InternMapping(const MappingView& mapping, uint32_t* id);
  Status InternFunction(const FunctionView& function, uint32_t* id);
  Status InternLocation(uint32_t mapping_id, uint32_t function_id, uint64_t address, int64_t line,
                        bool inlined, uint32_t* id);
  Status InternStack(absl::Span<const uint32_t> location_ids, uint32_t* id);
  // The rules of a sample's labels apply, but for the reserved
  // end_timestamp_ns key: it is refused per sample, for timestamped
  // samples only (see label_set_has_end_timestamp). Errors name
  // "labels[i]".
  Status InternLabels(absl::Span<const LabelView> labels, uint32_t* id);

  // Drops everything; ids handed out so far become stale.
  void Forget();
  uint32_t generation() const { return generation_; }

  // The table index of a stack id (of a label-set id), or an error naming
  // `field` for an id that is stale or was never handed out.
  Status StackIndex(uint32_t id, const char* field, uint32_t* index) const;
  Status LabelSetIndex(uint32_t id, const char* field, uint32_t* index) const;
  // The table indices of location ids `ids`, into *indices; errors name
  // "<array>[i]".
  Status LocationIndices(absl::Span<const uint32_t> ids, const char* array,
                         std::vector<uint32_t>* indices) const;
  // Each inlined location among `indices` (a stack, leaf first) must be
  // followed by one at its address and mapping; errors name
  // "<array>[i]".
  Status CheckInlining(absl::Span<const uint32_t> indices, const char* array) const;

  // Read side, by index. Entries refer to each other by index (a
  // Location's mapping and function, a stack's locations, strings).
  const StringTable& strings() const { return records_.strings; }
  const ValueTable<Mapping>& mappings() const { return records_.mappings; }
  const ValueTable<Function>& functions() const { return records_.functions; }
  const ValueTable<Location>& locations() const { return records_.locations; }
  ConstRecordTables record_tables() const { return records_.tables(); }
  absl::Span<const uint32_t> stack(uint32_t index) const;
  // Whether the stack was cut to max_frames when interned.
  bool stack_truncated(uint32_t index) const { return truncated_[index]; }
  absl::Span<const Label> label_set(uint32_t index) const {
    return label_sets_.Get(label_set_entries_[index].span);
  }
  // Whether the label set has the key end_timestamp_ns.
  bool label_set_has_end_timestamp(uint32_t index) const {
    return label_set_entries_[index].end_timestamp;
  }

  size_t MemoryBytes() const;

 private:
  uint32_t IdOf(uint32_t index) const { return generation_ << kIndexBits | index; }
  // Index checks shared by the tables: `size` entries, index 0 reserved.
  // IndexOf is the check alone: 0 for an id that is stale or was never
  // handed out.
  uint32_t IndexOf(uint32_t id, size_t size) const;
  Status Index(uint32_t id, size_t size, const char* field, uint32_t* index) const;
  // Fails with kLimitExceeded when `table` (of `size` entries, id 0
  // included) cannot take one more.
  static Status CheckRoom(size_t size, const char* table);

  const size_t max_frames_;
  uint32_t generation_;
  InternedRecords records_;
  SpanTable<uint32_t> stacks_;
  // Stack index -> its id in stacks_, in the order stacks were handed out
  // (the table's own id 0, the empty stack, exists before anyone asks for
  // it); index 0 is unused. And the reverse, 0 for "not handed out".
  std::vector<uint32_t> stack_spans_ = std::vector<uint32_t>(1, 0);
  std::vector<uint32_t> span_indices_;
  std::vector<bool> truncated_ = std::vector<bool>(1, false);  // per stack index
  // Label sets the same way: index -> its id in label_sets_ (and whether it
  // has the end_timestamp_ns key), and the reverse, 0 for "not handed out".
  struct LabelSetEntry {
    uint32_t span;
    bool end_timestamp;
  };
  SpanTable<Label> label_sets_;
  std::vector<LabelSetEntry> label_set_entries_ = std::vector<LabelSetEntry>(1, {0, false});
  std::vector<uint32_t> label_set_indices_;
  std::vector<Label> scratch_labels_;
  std::vector<uint32_t> scratch_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_DICTIONARY_H_
