// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "input/label_rules.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/utf8.h"

namespace stackrec {

namespace {

// The first label (by index) whose key repeats an earlier one's, as
// {repeat, first}: {0, 0} when all keys differ. Pairwise for the usual few
// labels; sorted for long sets, so that a set of STACKREC_MAX_ARRAY_LEN
// distinct keys costs n log n comparisons, not n^2.
std::pair<size_t, size_t> FirstRepeatedKey(absl::Span<const LabelView> labels) {
  constexpr size_t kPairwise = 16;
  if (labels.size() <= kPairwise) {
    for (size_t i = 1; i < labels.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (labels[j].key == labels[i].key) return {i, j};
      }
    }
    return {0, 0};
  }
  std::vector<uint32_t> order(labels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const int c = labels[a].key.compare(labels[b].key);
    return c != 0 ? c < 0 : a < b;
  });
  // Within a run of equal keys the indices ascend: its second is the first
  // label of that key to repeat, and its first what it repeats.
  std::pair<size_t, size_t> found{0, 0};
  for (size_t k = 1; k < order.size(); ++k) {
    if (labels[order[k]].key == labels[order[k - 1]].key &&
        (k == 1 || labels[order[k - 1]].key != labels[order[k - 2]].key) &&
        (found.first == 0 || order[k] < found.first)) {
      found = {order[k], order[k - 1]};
    }
  }
  return found;
}

}  // namespace

Status ValidateLabelSet(absl::Span<const LabelView> labels, const char* array) {
  const auto [repeat, first] = FirstRepeatedKey(labels);
  for (size_t i = 0; i < labels.size(); ++i) {
    const LabelView& l = labels[i];
    if (l.key.empty()) {
      return Error(Code::kInvalidArgument, "%s[%zu].key is empty", array, i);
    }
    if (l.link) {
      // The trace link's labels, made by LinkLabels: a caller's label of
      // the same key is ambiguous (trace_link.h), and named as the culprit.
      if (repeat != 0 && i == repeat) {
        return Error(Code::kInvalidArgument,
                     "%s[%zu].key \"%.*s\" is where the sample's link is written: with a link, "
                     "give no label of that key",
                     array, first, static_cast<int>(l.key.size()), l.key.data());
      }
      continue;
    }
    if (!l.str.empty() && l.num != 0) {
      return Error(Code::kInvalidArgument, "%s[%zu] has both a string and a non-zero num", array,
                   i);
    }
    if (!l.str.empty() && !l.num_unit.empty()) {
      return Error(Code::kInvalidArgument, "%s[%zu] has both a string and a num_unit", array, i);
    }
    if (l.key == kEndTimestampKey && l.str.empty()) {
      return Error(Code::kInvalidArgument,
                   "%s[%zu].key \"end_timestamp_ns\" with a number is a timestamp to pprof "
                   "readers and an attribute to OTLP ones: give the sample's timestamp_ns instead",
                   array, i);
    }
    if (repeat != 0 && i == repeat) {
      return Error(Code::kInvalidArgument, "%s[%zu].key repeats %s[%zu].key", array, i, array,
                   first);
    }
  }
  return OkStatus();
}

Status ValidateLabelStrings(absl::Span<const LabelView> labels, const char* array) {
  for (size_t i = 0; i < labels.size(); ++i) {
    const LabelView& l = labels[i];
    for (const auto& [s, name] :
         {std::pair{l.key, "key"}, std::pair{l.str, "str"}, std::pair{l.num_unit, "num_unit"}}) {
      if (!IsValidUtf8(s)) {
        return Error(Code::kInvalidArgument, "%s[%zu].%s is not valid UTF-8", array, i, name);
      }
    }
  }
  return OkStatus();
}

}  // namespace stackrec
