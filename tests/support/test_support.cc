// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "support/test_support.h"

#include "catch2/catch.hpp"

namespace stackrec_test {

Options::Options() : Options(3) {}

Options::Options(size_t n) {
  const stackrec_value_type all[] = {
      {S("cpu-time"), S("nanoseconds")},
      {S("cpu-samples"), S("count")},
      {S("wall-time"), S("nanoseconds")},
  };
  types.assign(all, all + n);
  opts.sample_types = types.data();
  opts.sample_types_len = types.size();
}

ProfilePtr NewProfile(const stackrec_profile_options& opts) {
  stackrec_profile* p = nullptr;
  const stackrec_status st = stackrec_profile_new(&opts, &p);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(p != nullptr);
  return ProfilePtr(p);
}

RecorderPtr NewRecorder(const stackrec_profile_options& opts) {
  stackrec_recorder* r = nullptr;
  const stackrec_status st = stackrec_recorder_new(&opts, &r);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  REQUIRE(r != nullptr);
  return RecorderPtr(r);
}

ProfilePtr NewProfile() {
  Options o;
  return NewProfile(o.opts);
}

stackrec_str SampleBuilder::Keep(const std::string& s) {
  strings_.push_back(s);
  return S(strings_.back());
}

stackrec_str SampleBuilder::Keep(stackrec_str s) {
  if (s.ptr == nullptr) return s;
  return Keep(std::string(s.ptr, s.len));
}

SampleBuilder& SampleBuilder::Frame(const std::string& name, const std::string& file,
                                    int64_t line) {
  stackrec_location loc{};
  loc.function.name = Keep(name);
  loc.function.filename = Keep(file);
  loc.line = line;
  locations_.push_back(loc);
  return *this;
}

SampleBuilder& SampleBuilder::Location(const stackrec_location& in) {
  stackrec_location loc = in;
  loc.mapping.filename = Keep(in.mapping.filename);
  loc.mapping.build_id = Keep(in.mapping.build_id);
  loc.function.name = Keep(in.function.name);
  loc.function.system_name = Keep(in.function.system_name);
  loc.function.filename = Keep(in.function.filename);
  locations_.push_back(loc);
  return *this;
}

SampleBuilder& SampleBuilder::Values(std::vector<int64_t> v) {
  values_ = std::move(v);
  return *this;
}

SampleBuilder& SampleBuilder::Label(const std::string& key, const std::string& str) {
  stackrec_label l{};
  l.key = Keep(key);
  l.str = Keep(str);
  labels_.push_back(l);
  return *this;
}

SampleBuilder& SampleBuilder::NumLabel(const std::string& key, int64_t num,
                                       const std::string& unit) {
  stackrec_label l{};
  l.key = Keep(key);
  l.num = num;
  l.num_unit = Keep(unit);
  labels_.push_back(l);
  return *this;
}

SampleBuilder& SampleBuilder::Timestamp(int64_t ns) {
  sample_.timestamp_ns = ns;
  return *this;
}

SampleBuilder& SampleBuilder::Link(const stackrec_link& link) {
  link_ = link;
  has_link_ = true;
  return *this;
}

const stackrec_sample& SampleBuilder::Get() {
  sample_.locations = locations_.data();
  sample_.locations_len = locations_.size();
  sample_.values = values_.data();
  sample_.values_len = values_.size();
  sample_.labels = labels_.data();
  sample_.labels_len = labels_.size();
  sample_.link = has_link_ ? &link_ : nullptr;  // this builder's, if copied
  return sample_;
}

void Add(stackrec_profile* p, SampleBuilder& b) {
  const stackrec_status st = stackrec_profile_add(p, &b.Get());
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

stackrec_serialize_options SerializeOptions(stackrec_compression c, int level,
                                            stackrec_format format) {
  stackrec_serialize_options o{};
  o.compression = c;
  o.level = level;
  o.format = format;
  return o;
}

std::string Serialize(stackrec_profile* p, stackrec_compression c, int level) {
  return Serialize(p, SerializeOptions(c, level));
}

std::string Serialize(stackrec_profile* p, const stackrec_serialize_options& o) {
  stackrec_encoded* e = nullptr;
  const stackrec_status st = stackrec_profile_serialize(p, &o, &e);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  EncodedPtr owned(e);
  return std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                     stackrec_encoded_size(e));
}

Profile WithoutTimes(Profile p) {
  p.clear_time_nanos();
  p.clear_duration_nanos();
  return p;
}

}  // namespace stackrec_test
