// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// PendingSamples: deep copies of parked samples.
#include "recorder/pending_samples.h"

#include <cstring>
#include <utility>

namespace stackrec {

void PendingSamples::Add(const SampleView& sample) {
  size_t chars = 0;
  for (const LocationView& f : sample.locations) {
    chars += f.mapping.filename.size() + f.mapping.build_id.size() + f.function.name.size() +
             f.function.system_name.size() + f.function.filename.size();
  }
  for (const LabelView& l : sample.labels) chars += l.key.size() + l.str.size() + l.num_unit.size();
  Copy copy;
  copy.strings = std::make_unique<char[]>(chars == 0 ? 1 : chars);
  char* at = copy.strings.get();
  auto keep = [&at](absl::string_view s) {
    if (!s.empty()) std::memcpy(at, s.data(), s.size());
    const absl::string_view kept(at, s.size());
    at += s.size();
    return kept;
  };
  copy.frames.assign(sample.locations.begin(), sample.locations.end());
  for (LocationView& f : copy.frames) {
    f.mapping.filename = keep(f.mapping.filename);
    f.mapping.build_id = keep(f.mapping.build_id);
    f.function.name = keep(f.function.name);
    f.function.system_name = keep(f.function.system_name);
    f.function.filename = keep(f.function.filename);
  }
  copy.labels.assign(sample.labels.begin(), sample.labels.end());
  for (LabelView& l : copy.labels) {
    l.key = keep(l.key);
    l.str = keep(l.str);
    l.num_unit = keep(l.num_unit);
  }
  copy.values.assign(sample.values.begin(), sample.values.end());
  copy.timestamp_ns = sample.timestamp_ns;
  const size_t bytes = chars + copy.frames.size() * sizeof(LocationView) +
                       copy.labels.size() * sizeof(LabelView) +
                       copy.values.size() * sizeof(int64_t) + sizeof(Copy);
  samples_.push_back(std::move(copy));
  bytes_ += bytes;
}

SampleView PendingSamples::Get(size_t i) const {
  const Copy& copy = samples_[i];
  SampleView view;
  view.locations = copy.frames;
  view.labels = copy.labels;
  view.values = copy.values;
  view.timestamp_ns = copy.timestamp_ns;
  return view;
}

void PendingSamples::Clear() {
  std::vector<Copy>().swap(samples_);
  taken_ = 0;
  bytes_ = 0;
}

}  // namespace stackrec
