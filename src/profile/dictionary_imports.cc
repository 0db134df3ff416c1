// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "profile/dictionary_imports.h"

#include "absl/hash/hash.h"
#include "base/memory_bytes.h"
#include "base/table_growth.h"

namespace stackrec {

namespace {

// The seed of a stack or label set imported by id (SampleTables::KeyTag).
template <typename E>
uint32_t ContentSeed(absl::Span<const E> seq) {
  return static_cast<uint32_t>(absl::HashOf(seq));
}

// imported[index], growing the vector with kNotImported as needed.
uint32_t& ImportedEntry(TableVector<uint32_t>* imported, uint32_t index) {
  if (index >= imported->size()) {
    imported->resize(size_t{index} + 1, DictionaryImports::kNotImported);
  }
  return (*imported)[index];
}

}  // namespace

void DictionaryImports::Sync(uint32_t generation) {
  if (generation == generation_) return;
  generation_ = generation;
  records_.Clear();
  for (auto* v : {&stacks_, &label_sets_}) TableVector<uint32_t>().swap(*v);
  id_stacks_ = {};
}

Status DictionaryImports::ImportStack(const Dictionary& dict, uint32_t stack_id,
                                      SampleTables* tables, uint32_t* packed) {
  uint32_t index;
  STACKREC_RETURN_IF_ERROR(dict.StackIndex(stack_id, "sample.stack_id", &index));
  scratch_locations_.clear();
  RecordRemap remap = FromDictionary(dict, tables);
  for (uint32_t location : dict.stack(index)) {
    scratch_locations_.push_back(remap.LocationId(location));
  }
  *packed = tables->InternStackIds(scratch_locations_, ContentSeed<uint32_t>(scratch_locations_)) |
            (dict.stack_truncated(index) ? kTruncatedBit : 0);
  ImportedEntry(&stacks_, index) = *packed;
  return OkStatus();
}

Status DictionaryImports::ImportLabelSet(const Dictionary& dict, uint32_t labels_id,
                                         SampleTables* tables, uint32_t* packed) {
  uint32_t index;
  STACKREC_RETURN_IF_ERROR(dict.LabelSetIndex(labels_id, "sample.labels_id", &index));
  // By content, through the label cache, whose fingerprint does not depend
  // on the labels' order: a set imported here and the same labels added as
  // strings, in any order, are one label set.
  scratch_label_views_.clear();
  const StringTable& strings = dict.strings();
  for (const Label& label : dict.label_set(index)) {
    LabelView view;
    view.key = strings.Get(label.key);
    view.str = strings.Get(label.str);
    view.num = label.num;
    view.num_unit = strings.Get(label.num_unit);
    scratch_label_views_.push_back(view);
  }
  const Fingerprint fp = FingerprintLabels(scratch_label_views_);
  uint32_t set;
  if (!tables->CachedLabels(fp, &set)) {
    // Valid UTF-8, as the dictionary checked: only memory can fail, and it
    // throws.
    STACKREC_RETURN_IF_ERROR(tables->InternLabels(scratch_label_views_, fp, &set));
  }
  *packed = set | (dict.label_set_has_end_timestamp(index) ? kEndTimestampBit : 0);
  ImportedEntry(&label_sets_, index) = *packed;
  return OkStatus();
}

Status DictionaryImports::ImportLocationIds(const Dictionary& dict, absl::Span<const uint32_t> ids,
                                            const Fingerprint& fp, size_t max_frames,
                                            SampleTables* tables, uint32_t* packed) {
  // Checked in full before anything is imported.
  std::vector<uint32_t>& indices = scratch_indices_;
  STACKREC_RETURN_IF_ERROR(dict.LocationIndices(ids, "sample.location_ids", &indices));
  STACKREC_RETURN_IF_ERROR(dict.CheckInlining(indices, "sample.location_ids"));
  const bool truncated = indices.size() > max_frames;
  const size_t kept = truncated ? max_frames : indices.size();
  scratch_locations_.clear();
  RecordRemap remap = FromDictionary(dict, tables);
  for (size_t i = 0; i < kept; ++i) {
    scratch_locations_.push_back(remap.LocationId(indices[i]));
  }
  if (truncated) {
    RecordTables to = tables->record_tables();
    EndTruncatedStack(indices.size() - kept, &to.strings, &to.functions, &to.locations,
                      &scratch_locations_);
  }
  *packed = tables->InternStackIds(scratch_locations_, SampleTables::SeedOf(fp)) |
            (truncated ? kTruncatedBit : 0);
  EmplaceGrowingFirst(id_stacks_, fp, *packed);
  return OkStatus();
}

void DictionaryImports::CarryInto(const SampleTables::Carried& carried,
                                  DictionaryImports* next) const {
  constexpr uint32_t kNotCarried = SampleTables::Carried::kNotCarried;
  next->generation_ = generation_;
  // `remap` maps the old tables' ids to the new ones': a record's memo
  // holds only what was carried over (id 0, none, maps to itself), the
  // stacks' and label sets' vectors every id.
  auto carry = [](const TableVector<uint32_t>& from, const auto& remap, uint32_t flags,
                  TableVector<uint32_t>* to) {
    to->assign(from.size(), kNotImported);
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i] == kNotImported) continue;
      const uint32_t old = from[i] & ~flags;
      const uint32_t mapped = old == 0 && flags == 0 ? 0
                              : old < remap.size()   ? remap[old]
                                                     : kNotCarried;
      if (mapped != kNotCarried) (*to)[i] = mapped | (from[i] & flags);
    }
  };
  const RecordMemo& memo = carried.records;
  carry(records_.strings, memo.strings, 0, &next->records_.strings);
  carry(records_.mappings, memo.mappings, 0, &next->records_.mappings);
  carry(records_.functions, memo.functions, 0, &next->records_.functions);
  carry(records_.locations, memo.locations, 0, &next->records_.locations);
  carry(stacks_, carried.stacks, kTruncatedBit, &next->stacks_);
  carry(label_sets_, carried.label_sets, kEndTimestampBit, &next->label_sets_);
  for (const auto& [fingerprint, packed] : id_stacks_) {
    const uint32_t mapped = carried.stacks[packed & ~kTruncatedBit];
    if (mapped != kNotCarried) {
      EmplaceGrowingFirst(next->id_stacks_, fingerprint, mapped | (packed & kTruncatedBit));
    }
  }
}

size_t DictionaryImports::MemoryBytes() const {
  return records_.MemoryBytes() + VectorBytes(stacks_) + VectorBytes(label_sets_) +
         MapBytes(id_stacks_);
}

}  // namespace stackrec
