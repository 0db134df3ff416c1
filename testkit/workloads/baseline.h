// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The baseline stackrec is measured against: what a C++ programmer would
// write without stackrec, and the fastest of the alternatives that were
// measured before stackrec was written. It builds the protoc-generated
// perftools::profiles::Profile message as samples arrive, interning strings,
// functions, mappings, locations, stacks and (stack, labels) keys in
// std::unordered_map, then serializes it with SerializeToString and
// compresses that with zlib.
//
// It is written to be reasonable, not to lose: a frame seen before is found
// with one lookup by its content (its strings hashed as std::string_view, no
// std::string built), the function, mapping, location and string tables are
// consulted only for new frames, the lookup keys of a sample are scratch
// buffers reused from sample to sample, and a repeated (stack, labels) key
// updates its Sample's values in place. It takes the same
// stackrec_sample a sampler hands stackrec, and writes the same profile:
// identical samples summed, a timestamped sample kept on its own with the
// label end_timestamp_ns, the `trace endpoint` label added at serialization
// to samples whose `local root span id` has an endpoint. It checks little
// (no UTF-8 validation, no label-key rules, every sample type enabled):
// the benchmark's inputs are valid.
#ifndef STACKREC_WORKLOADS_BASELINE_H_
#define STACKREC_WORKLOADS_BASELINE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile.pb.h"
#include "stackrec/stackrec.h"

namespace stackrec_bench {

class BaselineProfile {
 public:
  explicit BaselineProfile(const stackrec_profile_options& opts);
  BaselineProfile(const BaselineProfile&) = delete;
  BaselineProfile& operator=(const BaselineProfile&) = delete;

  // false if values_len does not match the sample types.
  bool Add(const stackrec_sample& sample);
  // As stackrec_profile_set_endpoint: applied at serialization.
  void SetEndpoint(uint64_t local_root_span_id, std::string_view endpoint);
  // Adds the endpoint labels (once per sample), sets duration_nanos and
  // returns the serialized, uncompressed message.
  std::string Serialize();

  const perftools::profiles::Profile& profile() const { return profile_; }

 private:
  // A frame as the sampler describes it. A frame seen before is found by
  // this key alone, so a sample costs one lookup a frame; the other tables
  // are consulted for frames seen for the first time. Stored keys view the
  // profile's string table.
  struct FrameKey {
    std::string_view name, system_name, filename, mapping_file, build_id;
    int64_t start_line, line;
    uint64_t address, memory_start, memory_limit, file_offset;
    bool operator==(const FrameKey& o) const {
      return line == o.line && start_line == o.start_line && address == o.address &&
             name == o.name && filename == o.filename && system_name == o.system_name &&
             memory_start == o.memory_start && memory_limit == o.memory_limit &&
             file_offset == o.file_offset && mapping_file == o.mapping_file &&
             build_id == o.build_id;
    }
  };
  struct FunctionKey {
    int64_t name, system_name, filename, start_line;
    bool operator==(const FunctionKey& o) const {
      return name == o.name && system_name == o.system_name && filename == o.filename &&
             start_line == o.start_line;
    }
  };
  struct MappingKey {
    uint64_t start, limit, offset;
    int64_t filename, build_id;
    bool operator==(const MappingKey& o) const {
      return start == o.start && limit == o.limit && offset == o.offset && filename == o.filename &&
             build_id == o.build_id;
    }
  };
  struct LocationKey {
    uint64_t mapping_id, function_id, address;
    int64_t line;
    bool operator==(const LocationKey& o) const {
      return mapping_id == o.mapping_id && function_id == o.function_id && address == o.address &&
             line == o.line;
    }
  };
  struct LabelKey {
    int64_t key, str, num, num_unit;
    bool operator==(const LabelKey& o) const {
      return key == o.key && str == o.str && num == o.num && num_unit == o.num_unit;
    }
  };
  struct SampleKey {
    uint32_t stack;
    std::vector<LabelKey> labels;
    bool operator==(const SampleKey& o) const { return stack == o.stack && labels == o.labels; }
  };
  struct Hash {
    size_t operator()(const FrameKey& k) const;
    size_t operator()(const FunctionKey& k) const;
    size_t operator()(const MappingKey& k) const;
    size_t operator()(const LocationKey& k) const;
    size_t operator()(const std::vector<uint64_t>& stack) const;
    size_t operator()(const SampleKey& k) const;
  };

  int64_t InternString(stackrec_str s);
  int64_t InternString(std::string_view s);
  uint64_t InternFrame(const stackrec_location& loc);
  uint64_t InternLocation(const stackrec_location& loc);

  perftools::profiles::Profile profile_;
  size_t types_;
  // Views into profile_.string_table, whose strings never move: the
  // repeated field holds pointers to them.
  std::unordered_map<std::string_view, int64_t> strings_;
  std::unordered_map<FrameKey, uint64_t, Hash> frames_;  // location id
  std::unordered_map<FunctionKey, uint64_t, Hash> functions_;
  std::unordered_map<MappingKey, uint64_t, Hash> mappings_;
  std::unordered_map<LocationKey, uint64_t, Hash> locations_;
  std::unordered_map<std::vector<uint64_t>, uint32_t, Hash> stacks_;
  std::unordered_map<SampleKey, int, Hash> samples_;  // index in profile_.sample
  std::unordered_map<uint64_t, std::string> endpoints_;
  // Reused from sample to sample, so a lookup that finds its key allocates
  // nothing.
  std::vector<uint64_t> stack_;
  SampleKey key_;
};

// gzip (zlib's deflate with a gzip header, windowBits 31) at `level`.
std::string Gzip(const std::string& data, int level);

}  // namespace stackrec_bench

#endif  // STACKREC_WORKLOADS_BASELINE_H_
