// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "serialize/serialize.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "base/clock.h"
#include "base/saturating.h"
#include "encode/encode_driver.h"
#include "encode/otlp/otlp_encoder.h"
#include "encode/pprof/pprof_encoder.h"
#include "input/backend_names.h"

namespace stackrec {

Status Encode(const Profile& profile, const SerializeOptions& options, int64_t end_ns,
              TableString* out, EncodeStats* stats, const SampleSelection* selection) {
  return EncodeProfile(profile.Parts(), options, end_ns, selection,
                       options.format == Format::kOtlp ? MakeOtlpWriter : MakePprofWriter, out,
                       stats);
}

Status EncodeWithinLimit(Profile& profile, const SerializeOptions& options, int64_t end_ns,
                         TableString* out, EncodeStats* stats) {
  const size_t limit = profile.options().max_output_bytes;
  *stats = EncodeStats();
  const size_t start = out->size();
  STACKREC_RETURN_IF_ERROR(Encode(profile, options, end_ns, out, stats));
  size_t size = out->size() - start;
  if (size <= limit) return OkStatus();

  // Heaviest first, so that what is kept is what matters most.
  const Aggregate& samples = profile.Parts().aggregate;
  const size_t n = samples.key_count();
  const size_t values = samples.width();
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return FoldWeight(samples.key_values(a)) > FoldWeight(samples.key_values(b));
  });

  SampleSelection selection;
  selection.extra_stack = profile.InternPseudoStack(kOutputLimitFrame);
  size_t keep = n;
  for (;;) {
    // Aim below the limit by the measured ratio; sizes are not linear in
    // the sample count, so shrink further until it fits.
    keep = std::min(keep - (keep == 0 ? 0 : 1),
                    static_cast<size_t>(static_cast<double>(keep) * 0.9 *
                                        static_cast<double>(limit) / static_cast<double>(size)));
    selection.keys.assign(order.begin(), order.begin() + static_cast<ptrdiff_t>(keep));
    selection.extra_values.assign(values, 0);
    auto add = [&](const int64_t* v) {
      for (size_t k = 0; k < values; ++k) {
        selection.extra_values[k] = SaturatingAdd(selection.extra_values[k], v[k]);
      }
    };
    for (size_t i = keep; i < n; ++i) add(samples.key_values(order[i]));
    for (size_t i = 0; i < samples.timed_count(); ++i) add(samples.timed_values(i));
    out->resize(start);
    STACKREC_RETURN_IF_ERROR(Encode(profile, options, end_ns, out, stats, &selection));
    size = out->size() - start;
    if (size <= limit) {
      stats->samples_left_out = (n - keep) + samples.timed_count();
      return OkStatus();
    }
    if (keep == 0) break;
  }
  out->resize(start);
  return Error(Code::kLimitExceeded,
               "opts.max_output_bytes is %zu, less than the %zu bytes of a "
               "profile holding only the \"[stackrec: output limit]\" sample",
               limit, size);
}

std::vector<std::vector<uint32_t>> ProfileTypeColumns(const Profile& profile,
                                                      const SerializeOptions& options) {
  std::vector<std::vector<uint32_t>> groups;
  if (options.target != Target::kPyroscope) return groups;
  const ProfileOptions& o = profile.options();
  std::vector<std::string> names;
  uint32_t column = 0;
  for (size_t i = 0; i < o.sample_types.size(); ++i) {
    if (!o.enabled.empty() && !o.enabled[i]) continue;
    const std::string name = PyroscopeProfileType(PyroscopeTypeName(o.sample_types[i].type));
    const size_t g = std::find(names.begin(), names.end(), name) - names.begin();
    if (g == names.size()) {
      names.push_back(name);
      groups.emplace_back();
    }
    groups[g].push_back(column++);
  }
  // A type with nothing recorded in this interval gets no profile of its own.
  const Aggregate& samples = profile.Parts().aggregate;
  auto recorded = [&](const std::vector<uint32_t>& columns) {
    for (size_t k = 0; k < samples.key_count(); ++k) {
      if (HasValueIn(columns, samples.key_values(k))) return true;
    }
    for (size_t t = 0; t < samples.timed_count(); ++t) {
      if (HasValueIn(columns, samples.timed_values(t))) return true;
    }
    return false;
  };
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [&](const std::vector<uint32_t>& g) { return !recorded(g); }),
               groups.end());
  if (groups.size() <= 1) groups.clear();
  return groups;
}

namespace {

// One output of `options`: within the budget in parts, or whole within the
// output limit; appended to *out and to stats->parts, its figures added.
Status SerializeOne(Profile& profile, const SerializeOptions& options, int64_t end_ns,
                    TableString* out, SerializationStats* stats) {
  const size_t begin = out->size();
  EncodeStats encoded;
  FoldReason folded = FoldReason::kNone;
  Status status;
  if (options.budget.any()) {
    std::vector<OutputPart> parts;
    status = EncodeInParts(profile, options, profile.options().max_output_bytes, end_ns, out,
                           &parts, &encoded, &folded);
    stats->parts.insert(stats->parts.end(), parts.begin(), parts.end());
  } else {
    status = EncodeWithinLimit(profile, options, end_ns, out, &encoded);
    if (status.ok()) {
      stats->parts.push_back(
          {begin, out->size() - begin, encoded.samples_written, encoded.uncompressed_bytes});
      if (encoded.samples_left_out != 0) folded = FoldReason::kOutputLimit;
    }
  }
  if (!status.ok()) return status;
  EncodeStats& sum = stats->encoded;
  sum.Add(encoded);
  const SampleTables& tables = profile.Parts().tables;
  sum.stacks_used = std::min<uint64_t>(sum.stacks_used, tables.stacks().size());
  sum.label_sets_used = std::min<uint64_t>(sum.label_sets_used, tables.label_sets().size());
  if (stats->folded_because == FoldReason::kNone) stats->folded_because = folded;
  return status;
}

}  // namespace

Status SerializeProfile(Profile& profile, const SerializeOptions& options, int64_t end_ns,
                        TableString* out, SerializationStats* stats, OutputSizes* sizes) {
  const bool split = options.budget.any();
  if (sizes != nullptr) {
    const size_t expected = sizes->Expected(options.compression, options.format, split);
    out->reserve(split ? expected : std::min(expected, profile.options().max_output_bytes));
  }
  *stats = SerializationStats();
  stats->samples_added = profile.samples_added();
  stats->samples_truncated = profile.samples_truncated();
  stats->samples_over_memory = profile.samples_over_memory();
  const int64_t start = MonotonicNanos();
  const size_t begin = out->size();
  Status status;
  const std::vector<std::vector<uint32_t>> groups = ProfileTypeColumns(profile, options);
  if (groups.empty()) {
    status = SerializeOne(profile, options, end_ns, out, stats);
  } else {
    SerializeOptions apart = options;
    for (const std::vector<uint32_t>& columns : groups) {
      apart.columns = columns;
      status = SerializeOne(profile, apart, end_ns, out, stats);
      if (!status.ok()) break;
    }
  }
  if (!status.ok()) {
    out->resize(begin);
    stats->parts.clear();
  }
  stats->encode_ns = MonotonicNanos() - start;
  if (sizes != nullptr && status.ok()) {
    sizes->Record(options.compression, options.format, split, out->size());
  }
  return status;
}

}  // namespace stackrec
