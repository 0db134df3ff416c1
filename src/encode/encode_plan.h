// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// What a serialization writes, whatever the format: the samples (all of a
// profile's, or a selection of them), in writing order, and everything they
// reach, numbered densely. The driver (encode_driver.h) builds one from the
// profile's parts (profile_parts.h) and each format's writer writes it its
// way; the plan holds what the formats share so that the two cannot drift
// apart on which samples, frames or labels a profile holds.
//
// The plan:
//  - orders the aggregated keys by stack, the stacks sorted from their root
//    frame: samples whose stacks share a root-side path, the bulk of the
//    bytes, are written one after the other, where the compressor's window
//    finds the repeats (keys of one stack keep the order they were added);
//  - marks what the samples reach: stacks, locations, functions, mappings
//    and their strings, with an inline run of frames (each inlined into the
//    next) as one output location of its own, past the profile's ids;
//  - gives the locations used by the most samples the smallest output ids;
//  - finds each label set's "trace endpoint" label and the upscaling rules
//    that match it, and upscales a sample's values as they are written.
// Output ids start at 1 and are dense: 0 stays "none" in every table.
#ifndef STACKREC_SRC_ENCODE_ENCODE_PLAN_H_
#define STACKREC_SRC_ENCODE_ENCODE_PLAN_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "base/table_memory.h"
#include "encode/dense_ids.h"
#include "encode/sample_scaler.h"
#include "input/serialize_options.h"
#include "profile/profile_parts.h"

namespace stackrec {

// Which samples to write, when not all of them: a subset of the
// aggregated keys and of the timestamped samples, and one pseudo-sample
// that sums what was left out.
struct SampleSelection {
  std::vector<uint32_t> keys;         // aggregated keys to write, in this order
  std::vector<uint32_t> timed;        // timestamped samples to write, in this order
  uint32_t extra_stack = 0;           // the pseudo-sample's stack...
  std::vector<int64_t> extra_values;  // ...and values (none: no pseudo-sample)
};

// The aggregated keys of `p` in the order an EncodePlan without a selection
// writes them (see the top of this file): what a selection of keys keeps
// to be written in the same order.
TableVector<uint32_t> KeysInWritingOrder(const ProfileParts& p);

// What one encoding wrote, for stackrec_encoded_stats.
struct EncodeStats {
  uint64_t samples_written = 0;  // Sample messages (OTLP: of each Profile)
  uint64_t locations_written = 0, functions_written = 0, mappings_written = 0;
  uint64_t strings_written = 0;     // string_table entries, "" included
  uint64_t uncompressed_bytes = 0;  // the message before compression
  uint64_t samples_left_out = 0;    // summed into "[stackrec: output limit]"
  // The profile's own stacks and label sets the written samples use (not
  // output entities: what tells a recorder how much of a profile is live).
  uint64_t stacks_used = 0, label_sets_used = 0;

  // Adds what another encoding of the same serialization wrote. The sums
  // of stacks and label sets used count one used by two encodings twice:
  // the caller bounds them by the profile's.
  void Add(const EncodeStats& o) {
    samples_written += o.samples_written;
    locations_written += o.locations_written;
    functions_written += o.functions_written;
    mappings_written += o.mappings_written;
    strings_written += o.strings_written;
    uncompressed_bytes += o.uncompressed_bytes;
    samples_left_out += o.samples_left_out;
    stacks_used += o.stacks_used;
    label_sets_used += o.label_sets_used;
  }
};

class EncodePlan {
 public:
  enum MappingFlag : uint8_t { kHasFunctions = 1, kHasFilenames = 2, kHasLines = 4 };

  // `selection` nullptr writes every sample; else it must outlive the plan.
  // `columns` nullptr writes every value; else only the stored values at
  // those indices, and only the samples with one of them non-zero
  // (SerializeOptions::columns); it must outlive the plan.
  EncodePlan(const ProfileParts& p, const SampleSelection* selection,
             const std::vector<uint32_t>* columns = nullptr);
  EncodePlan(const EncodePlan&) = delete;
  EncodePlan& operator=(const EncodePlan&) = delete;

  // Marks everything the samples reach. The strings of functions and of
  // mappings' file names are marked here; `on_labels` is called the first
  // time a label set is reached (its endpoint known) and `on_mapping` the
  // first time a mapping is, for the strings each format writes of them,
  // in the order of first use. Call once.
  void Mark(absl::FunctionRef<void(uint32_t labels)> on_labels,
            absl::FunctionRef<void(uint32_t mapping)> on_mapping);

  // Calls f(stack, labels, values, timestamp_ns) for each sample to write:
  // the aggregated keys in writing order (timestamp 0), the pseudo-sample
  // of a selection, then the timestamped samples in the order recorded.
  // The values are as recorded (see Upscaled).
  template <typename F>
  void ForEachSample(F&& f) const {
    ForEachUntimed(f);
    ForEachTimed(f);
  }
  // The aggregated keys, then the pseudo-sample.
  template <typename F>
  void ForEachUntimed(F&& f) const {
    ForEachAggregated(f);
    if (selection_ != nullptr && !selection_->extra_values.empty()) {
      f(selection_->extra_stack, uint32_t{0}, selection_->extra_values.data(), int64_t{0});
    }
  }
  template <typename F>
  void ForEachAggregated(F&& f) const {
    // keys_ is not in the profile's order: fetch the values of the key a
    // few samples ahead, which would otherwise miss the cache.
    constexpr size_t kAhead = 8;
    const Aggregate& samples = p_.aggregate;
    size_t k = 0;
    for (const StackRun& run : stack_runs_) {
      for (; k < run.end; ++k) {
        if (k + kAhead < keys_.size()) {
          __builtin_prefetch(samples.key_values(keys_[k + kAhead].key));
        }
        f(run.stack, keys_[k].labels, samples.key_values(keys_[k].key), int64_t{0});
      }
    }
  }
  template <typename F>
  void ForEachTimed(F&& f) const {
    const Aggregate& samples = p_.aggregate;
    auto write = [&](size_t i) {
      if (!InColumns(samples.timed_values(i))) return;
      f(samples.timed_stack(i), samples.timed_labels(i), samples.timed_values(i),
        samples.timed_timestamp(i));
    };
    if (selection_ == nullptr) {
      for (size_t i = 0; i < samples.timed_count(); ++i) write(i);
    } else {
      for (uint32_t i : selection_->timed) write(i);
    }
  }
  const SampleSelection* selection() const { return selection_; }
  // The stored values written, by index; null: all of them.
  const std::vector<uint32_t>* columns() const { return columns_; }

  // The output numbering of each table. Strings may be marked by the
  // encoder before and after Mark, for what it writes beside the samples.
  DenseIds& strings() { return strings_; }
  const DenseIds& strings() const { return strings_; }
  const DenseIds& mappings() const { return mappings_; }
  const DenseIds& functions() const { return functions_; }
  const DenseIds& locations() const { return locations_; }

  // The location ids written for `stack`, leaf first: the profile's own,
  // or, where frames were inlined, ids of inline groups.
  absl::Span<const uint32_t> OutputFrames(uint32_t stack) const;
  // Whether location id `id` (of locations()) is an inline group, and its
  // frames, callee first: the group shares its last frame's address and
  // mapping.
  bool IsGroup(uint32_t id) const { return id >= p_.tables.locations().size(); }
  const std::vector<uint32_t>& GroupMembers(uint32_t id) const {
    return groups_[id - p_.tables.locations().size()];
  }
  // The stacks the samples use, in order of first use, and by how many.
  const TableVector<uint32_t>& marked_stacks() const { return marked_stacks_; }
  uint64_t stack_uses(uint32_t stack) const { return stack_uses_[stack]; }
  // The "trace endpoint" string a label set gains at serialization (0:
  // none), and how many label sets the samples use.
  StringId endpoint(uint32_t labels) const { return label_endpoint_[labels]; }
  uint64_t label_sets_used() const { return label_sets_used_; }
  // MappingFlag bits of a marked mapping, as its locations warrant.
  uint8_t mapping_flags(uint32_t mapping) const { return mapping_flags_[mapping]; }
  // Whether a timestamped sample is written.
  bool any_timed() const { return any_timed_; }
  // The values to write for a sample of `labels`: `values` itself, or
  // upscaled into a buffer valid until the next call.
  const int64_t* Upscaled(uint32_t labels, const int64_t* values) const {
    return scaler_.Scaled(labels, values);
  }

 private:
  struct KeyRef {
    uint32_t key, labels;
  };
  struct StackRun {
    uint32_t stack, end;  // keys_ of this stack end before index `end`
  };

  // Whether a sample of these values is written: any of the columns is
  // non-zero (always, without columns).
  bool InColumns(const int64_t* values) const {
    return columns_ == nullptr || HasValueIn(*columns_, values);
  }
  // Fills keys_ and stack_runs_ with the aggregated keys to write (see the
  // top of this file).
  void OrderKeys();
  template <typename F>
  void ForEachKey(F&& f) const;
  void MarkStack(uint32_t stack, absl::FunctionRef<void(uint32_t)> on_mapping);
  void MarkLocationParts(uint32_t id, absl::FunctionRef<void(uint32_t)> on_mapping);
  // The id in locations_ of the output location for a run of frames, each
  // inlined into the next: a new id past the profile's locations, or the
  // one that run got before.
  uint32_t GroupId(absl::Span<const uint32_t> run, absl::FunctionRef<void(uint32_t)> on_mapping);
  // Returns false if `labels` was reached before.
  bool MarkLabels(uint32_t labels);
  void NumberLocations();

  // By value, so that a part is one load away (see profile_parts.h).
  const ProfileParts p_;
  const SampleSelection* selection_;
  const std::vector<uint32_t>* columns_;
  DenseIds strings_, mappings_, functions_, locations_;
  TableVector<uint64_t> stack_uses_;  // samples written per stack
  TableVector<uint32_t> marked_stacks_;
  TableVector<KeyRef> keys_;
  TableVector<StackRun> stack_runs_;
  // Inline runs: the members of group g, whose id in locations_ is
  // p_.tables.locations().size() + g, and the group of each run seen.
  std::vector<std::vector<uint32_t>> groups_;
  absl::flat_hash_map<std::vector<uint32_t>, uint32_t> group_ids_;
  // Stacks with inline runs: the ids to write instead of the stack's own.
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> grouped_stacks_;
  TableVector<uint8_t> label_marked_;
  TableVector<StringId> label_endpoint_;
  uint64_t label_sets_used_ = 0;
  std::vector<uint8_t> mapping_flags_;
  bool any_timed_ = false;
  SampleScaler scaler_;
};

}  // namespace stackrec

#endif  // STACKREC_SRC_ENCODE_ENCODE_PLAN_H_
