// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// One pprof encoding of a profile, in two passes: marking
// (pprof_marking.cc) decides what is written, in which order and under
// which ids, and sizes each stack's and label set's bytes; writing
// (pprof_encoder.cc) then writes it field by field. Only those two files
// include this.
#ifndef STACKREC_SRC_PPROF_ENCODING_H_
#define STACKREC_SRC_PPROF_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "dense_ids.h"
#include "google/protobuf/io/coded_stream.h"
#include "pprof_encoder.h"
#include "pprof_fields.h"
#include "profile.h"
#include "proto_wire.h"
#include "sample_scaler.h"
#include "table_memory.h"

namespace stackrec {
namespace pprof {

using google::protobuf::io::CodedOutputStream;
using wire::FieldSize;
using wire::LenFieldSize;
using wire::PutLenHeader;
using wire::PutVarintField;
using wire::Tag;
using wire::VarintSize;
using wire::WriteLenHeader;
using wire::WriteVarintField;
using wire::kLen;
using wire::kVarint;

constexpr size_t kUnsized = ~size_t{0};

class Encoder {
 public:
  Encoder(const Profile& p, int64_t end_ns, const SampleSelection* selection)
      : p_(p),
        end_ns_(end_ns),
        selection_(selection),
        strings_(p.strings().size()),
        mappings_(p.mappings().size()),
        functions_(p.functions().size()),
        locations_(p.locations().size()),
        stack_bytes_(p.stacks().size(), kUnsized),
        stack_start_(p.stacks().size(), 0),
        stack_uses_(p.stacks().size(), 0),
        label_bytes_(p.label_sets().size(), kUnsized),
        label_endpoint_(p.label_sets().size(), 0),
        mapping_flags_(p.mappings().size(), 0),
        scaler_(p) {}

  void MarkAll();
  void Write(CodedOutputStream* out) const;
  // Counts of what Write writes (after MarkAll).
  void Count(EncodeStats* stats) const;

 private:
  enum MappingFlag : uint8_t { kHasFunctions = 1, kHasFilenames = 2, kHasLines = 4 };

  // Marks the stack of one sample written; its bytes are known only once the
  // location ids are final (EncodeStacks).
  void MarkStack(uint32_t stack);
  // Gives the locations used by the most samples the smallest ids.
  void NumberLocations();
  // Encodes each marked stack's packed location ids once, into stack_ids_:
  // a stack is written once per key (a dozen times in typical profiles),
  // and copying its bytes costs less than encoding its ids again.
  void EncodeStacks();
  // Fills keys_ and stack_runs_ with the aggregated keys to write, grouped
  // by stack, the stacks sorted from the root: samples whose stacks share a
  // root-side path, the bulk of their bytes, are written one after the
  // other, where the compressor's window finds the repeats. (In the order
  // keys were added, a stack's samples lie far apart: a different thread or
  // request makes a different key.) Keys of one stack keep their order.
  void OrderKeys();
  // Calls f(key) for each aggregated key to write, in the caller's order.
  template <typename F>
  void ForEachKey(F&& f) const;
  // Marks what location `id` refers to: function, mapping, their strings.
  void MarkLocationParts(uint32_t id);
  // The id in locations_ of the output location for a run of frames, each
  // inlined into the next: a new id past the profile's locations, or the
  // one that run got before.
  uint32_t GroupId(absl::Span<const uint32_t> run);
  // The location ids written for `stack`.
  absl::Span<const uint32_t> OutputFrames(uint32_t stack) const;
  void MarkLabels(uint32_t labels);
  size_t LabelSize(StringId key, StringId str, int64_t num, StringId unit) const;
  uint8_t* PutLabel(uint8_t* dst, StringId key, StringId str, int64_t num,
                    StringId unit) const;
  void WriteValueType(CodedOutputStream* out, uint32_t field, StringId type,
                      StringId unit) const;
  void WriteSample(CodedOutputStream* out, uint32_t stack, uint32_t labels,
                   const int64_t* values, int64_t timestamp_ns) const;
  void WriteMapping(CodedOutputStream* out, uint32_t id) const;
  void WriteLocation(CodedOutputStream* out, uint32_t id) const;
  void WriteGroup(CodedOutputStream* out, uint32_t id) const;
  void WriteFunction(CodedOutputStream* out, uint32_t id) const;

  // Calls f(stack, labels, values, timestamp) for each sample to write.
  template <typename F>
  void ForEachSample(F&& f) const;

  const Profile& p_;
  const int64_t end_ns_;
  const SampleSelection* selection_;
  DenseIds strings_, mappings_, functions_, locations_;
  // Per stack: bytes of its packed location ids (kUnsized: not marked).
  TableVector<size_t> stack_bytes_;
  // Per marked stack: where its bytes start in stack_ids_.
  TableVector<size_t> stack_start_;
  TableVector<uint8_t> stack_ids_;
  // Per stack: how many samples written use it; and the stacks marked.
  TableVector<uint64_t> stack_uses_;
  TableVector<uint32_t> marked_stacks_;
  // The aggregated keys to write, in writing order, with their label sets:
  // the writing reads them in order rather than the profile's keys at
  // random. Run r has stack stack_runs_[r].stack and ends before keys_
  // index stack_runs_[r].end.
  struct KeyRef {
    uint32_t key, labels;
  };
  struct StackRun {
    uint32_t stack, end;
  };
  TableVector<KeyRef> keys_;
  TableVector<StackRun> stack_runs_;
  // Inline runs: the members of group g, whose id in locations_ is
  // p_.locations().size() + g, and the group of each run seen.
  std::vector<std::vector<uint32_t>> groups_;
  absl::flat_hash_map<std::vector<uint32_t>, uint32_t> group_ids_;
  // Stacks with inline runs: the ids to write instead of the stack's own.
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> grouped_stacks_;
  // Per label set: bytes of its Label fields inside a Sample, once marked,
  // including the "trace endpoint" label it gains.
  TableVector<size_t> label_bytes_;
  TableVector<StringId> label_endpoint_;
  std::vector<uint8_t> mapping_flags_;
  SampleScaler scaler_;
  // A sample that does not fit in what is left of the stream's buffer.
  mutable std::vector<uint8_t> sample_scratch_;
  // String ids of each enabled sample type's (type, unit), in order.
  std::vector<std::pair<uint32_t, uint32_t>> sample_types_;
};

template <typename F>
void Encoder::ForEachSample(F&& f) const {
  // keys_ is not in the profile's order: fetch the values of the key a few
  // samples ahead, which would otherwise miss the cache.
  constexpr size_t kAhead = 8;
  size_t k = 0;
  for (const StackRun& run : stack_runs_) {
    for (; k < run.end; ++k) {
      if (k + kAhead < keys_.size()) __builtin_prefetch(p_.key_values(keys_[k + kAhead].key));
      f(run.stack, keys_[k].labels, p_.key_values(keys_[k].key), 0);
    }
  }
  if (selection_ != nullptr && !selection_->extra_values.empty()) {
    f(selection_->extra_stack, 0, selection_->extra_values.data(), 0);
  }
  if (selection_ == nullptr || selection_->timed) {
    for (size_t i = 0; i < p_.timed_count(); ++i) {
      f(p_.timed_stack(i), p_.timed_labels(i), p_.timed_values(i), p_.timed_timestamp(i));
    }
  }
}

}  // namespace pprof
}  // namespace stackrec

#endif  // STACKREC_SRC_PPROF_ENCODING_H_
