// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// DictionaryImports: what a profile copied in from a Dictionary
// (dictionary.h) in the dictionary's current generation, so that a sample
// given by ids finds this profile's ids without the dictionary (and its
// lock). Ids of another generation are not found: Sync forgets them.
#ifndef STACKREC_SRC_PROFILE_DICTIONARY_IMPORTS_H_
#define STACKREC_SRC_PROFILE_DICTIONARY_IMPORTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "base/status.h"
#include "hash/fingerprint.h"
#include "profile/dictionary.h"
#include "tables/intern_tables.h"
#include "tables/record_remap.h"
#include "tables/sample_tables.h"

namespace stackrec {

class DictionaryImports {
 public:
  // A profile's id for a dictionary id, with a flag in the top bit: stack
  // ids carry kTruncatedBit (the stack was cut to max_frames), label-set
  // ids kEndTimestampBit (the set has the end_timestamp_ns key).
  static constexpr uint32_t kNotImported = ~uint32_t{0};
  static constexpr uint32_t kTruncatedBit = uint32_t{1} << 31;
  static constexpr uint32_t kEndTimestampBit = uint32_t{1} << 31;

  uint32_t generation() const { return generation_; }
  // Forgets what was imported from a generation other than `generation`
  // (the profile's copies stay, for its samples).
  void Sync(uint32_t generation);

  // This profile's (flagged) id for dictionary stack or label-set id `id`,
  // or kNotImported if not yet or if `id` is not of the current generation.
  uint32_t Stack(uint32_t id) const { return Imported(stacks_, id); }
  uint32_t LabelSet(uint32_t id) const { return Imported(label_sets_, id); }
  // The (flagged) stack imported for location ids of fingerprint `fp`, or
  // kNotImported.
  uint32_t LocationIdsStack(const Fingerprint& fp) const {
    auto it = id_stacks_.find(fp);
    return it == id_stacks_.end() ? kNotImported : it->second;
  }

  // Copy a stack, a label set or a sequence of location ids (cut to
  // `max_frames`) of `dict`, whose generation() is current, into `tables`;
  // *packed is the flagged id there. Errors name the sample's field.
  Status ImportStack(const Dictionary& dict, uint32_t stack_id, SampleTables* tables,
                     uint32_t* packed);
  Status ImportLabelSet(const Dictionary& dict, uint32_t labels_id, SampleTables* tables,
                        uint32_t* packed);
  Status ImportLocationIds(const Dictionary& dict, absl::Span<const uint32_t> ids,
                           const Fingerprint& fp, size_t max_frames, SampleTables* tables,
                           uint32_t* packed);

  // What stays valid of these imports once the tables were carried over
  // as `carried` says: into the empty `next`.
  void CarryInto(const SampleTables::Carried& carried, DictionaryImports* next) const;
  size_t MemoryBytes() const;

 private:
  uint32_t Imported(const TableVector<uint32_t>& imports, uint32_t id) const {
    const uint32_t index = id & Dictionary::kIndexMask;
    return id >> Dictionary::kIndexBits == generation_ && index < imports.size() ? imports[index]
                                                                                 : kNotImported;
  }
  RecordRemap FromDictionary(const Dictionary& dict, SampleTables* tables) {
    return RecordRemap(dict.record_tables(), tables->record_tables(), &records_);
  }

  uint32_t generation_ = kNotImported;
  // A dictionary index -> this profile's id (kNotImported: not yet).
  RecordMemo records_;
  TableVector<uint32_t> stacks_, label_sets_;
  // Location-id sequences, by fingerprint -> flagged stack id.
  TableMap<Fingerprint, uint32_t> id_stacks_;
  std::vector<uint32_t> scratch_locations_;
  std::vector<LabelView> scratch_label_views_;
  std::vector<uint32_t> scratch_indices_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_PROFILE_DICTIONARY_IMPORTS_H_
