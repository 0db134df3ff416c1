// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "baseline.h"

#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace stackrec_bench {
namespace {

// boost::hash_combine's mixing, widened to 64 bits: what a C++ programmer
// reaches for to hash a struct with std::unordered_map.
inline void Combine(size_t& seed, uint64_t v) {
  seed ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15u + (seed << 12) + (seed >> 4);
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string_view View(stackrec_str s) { return {s.ptr, s.len}; }

}  // namespace

size_t BaselineProfile::Hash::operator()(const FrameKey& k) const {
  const std::hash<std::string_view> str;
  size_t h = str(k.name);
  Combine(h, str(k.filename));
  Combine(h, static_cast<uint64_t>(k.line));
  // The rest is usually empty or zero, and cheap to mix in.
  if (!k.system_name.empty()) Combine(h, str(k.system_name));
  Combine(h, static_cast<uint64_t>(k.start_line));
  Combine(h, k.address);
  if (k.memory_start != 0 || k.memory_limit != 0 || k.file_offset != 0 || !k.mapping_file.empty() ||
      !k.build_id.empty()) {
    Combine(h, k.memory_start);
    Combine(h, k.memory_limit);
    Combine(h, k.file_offset);
    Combine(h, str(k.mapping_file));
    Combine(h, str(k.build_id));
  }
  return h;
}

size_t BaselineProfile::Hash::operator()(const FunctionKey& k) const {
  size_t h = 0;
  Combine(h, static_cast<uint64_t>(k.name));
  Combine(h, static_cast<uint64_t>(k.system_name));
  Combine(h, static_cast<uint64_t>(k.filename));
  Combine(h, static_cast<uint64_t>(k.start_line));
  return h;
}

size_t BaselineProfile::Hash::operator()(const MappingKey& k) const {
  size_t h = 0;
  Combine(h, k.start);
  Combine(h, k.limit);
  Combine(h, k.offset);
  Combine(h, static_cast<uint64_t>(k.filename));
  Combine(h, static_cast<uint64_t>(k.build_id));
  return h;
}

size_t BaselineProfile::Hash::operator()(const LocationKey& k) const {
  size_t h = 0;
  Combine(h, k.mapping_id);
  Combine(h, k.function_id);
  Combine(h, k.address);
  Combine(h, static_cast<uint64_t>(k.line));
  return h;
}

size_t BaselineProfile::Hash::operator()(const std::vector<uint64_t>& stack) const {
  size_t h = stack.size();
  for (uint64_t id : stack) Combine(h, id);
  return h;
}

size_t BaselineProfile::Hash::operator()(const SampleKey& k) const {
  size_t h = k.stack;
  for (const LabelKey& l : k.labels) {
    Combine(h, static_cast<uint64_t>(l.key));
    Combine(h, static_cast<uint64_t>(l.str));
    Combine(h, static_cast<uint64_t>(l.num));
    Combine(h, static_cast<uint64_t>(l.num_unit));
  }
  return h;
}

BaselineProfile::BaselineProfile(const stackrec_profile_options& opts)
    : types_(opts.sample_types_len) {
  profile_.add_string_table("");  // pprof: string 0 is ""
  strings_.emplace(std::string_view(profile_.string_table(0)), 0);
  for (size_t i = 0; i < opts.sample_types_len; ++i) {
    perftools::profiles::ValueType* t = profile_.add_sample_type();
    t->set_type(InternString(opts.sample_types[i].type));
    t->set_unit(InternString(opts.sample_types[i].unit));
  }
  if (opts.period_type.type.len > 0) {
    profile_.mutable_period_type()->set_type(InternString(opts.period_type.type));
    profile_.mutable_period_type()->set_unit(InternString(opts.period_type.unit));
  }
  profile_.set_period(opts.period);
  profile_.set_time_nanos(NowNs());
}

int64_t BaselineProfile::InternString(stackrec_str s) { return InternString(View(s)); }

int64_t BaselineProfile::InternString(std::string_view s) {
  if (s.empty()) return 0;
  auto it = strings_.find(s);
  if (it != strings_.end()) return it->second;
  const int64_t id = profile_.string_table_size();
  profile_.add_string_table(std::string(s));
  strings_.emplace(std::string_view(profile_.string_table(static_cast<int>(id))), id);
  return id;
}

uint64_t BaselineProfile::InternFrame(const stackrec_location& loc) {
  const stackrec_function& f = loc.function;
  const stackrec_mapping& m = loc.mapping;
  const FrameKey key{View(f.name),     View(f.system_name), View(f.filename), View(m.filename),
                     View(m.build_id), f.start_line,        loc.line,         loc.address,
                     m.memory_start,   m.memory_limit,      m.file_offset};
  auto it = frames_.find(key);
  if (it != frames_.end()) return it->second;
  const uint64_t id = InternLocation(loc);
  // Stored with views of the string table's copies: the sampler's strings
  // are only borrowed.
  auto own = [this](std::string_view s) {
    return std::string_view(profile_.string_table(static_cast<int>(InternString(s))));
  };
  frames_.emplace(FrameKey{own(key.name), own(key.system_name), own(key.filename),
                           own(key.mapping_file), own(key.build_id), key.start_line, key.line,
                           key.address, key.memory_start, key.memory_limit, key.file_offset},
                  id);
  return id;
}

uint64_t BaselineProfile::InternLocation(const stackrec_location& loc) {
  uint64_t mapping_id = 0;
  const stackrec_mapping& m = loc.mapping;
  if (m.memory_start != 0 || m.memory_limit != 0 || m.file_offset != 0 || m.filename.len != 0 ||
      m.build_id.len != 0) {
    const MappingKey key{m.memory_start, m.memory_limit, m.file_offset, InternString(m.filename),
                         InternString(m.build_id)};
    auto [it, fresh] = mappings_.try_emplace(key, mappings_.size() + 1);
    if (fresh) {
      perftools::profiles::Mapping* out = profile_.add_mapping();
      out->set_id(it->second);
      out->set_memory_start(key.start);
      out->set_memory_limit(key.limit);
      out->set_file_offset(key.offset);
      out->set_filename(key.filename);
      out->set_build_id(key.build_id);
    }
    mapping_id = it->second;
  }

  uint64_t function_id = 0;
  const stackrec_function& f = loc.function;
  if (f.name.len != 0 || f.system_name.len != 0 || f.filename.len != 0 || f.start_line != 0) {
    const FunctionKey key{InternString(f.name), InternString(f.system_name),
                          InternString(f.filename), f.start_line};
    auto [it, fresh] = functions_.try_emplace(key, functions_.size() + 1);
    if (fresh) {
      perftools::profiles::Function* out = profile_.add_function();
      out->set_id(it->second);
      out->set_name(key.name);
      out->set_system_name(key.system_name);
      out->set_filename(key.filename);
      out->set_start_line(key.start_line);
    }
    function_id = it->second;
  }

  const LocationKey key{mapping_id, function_id, loc.address, function_id != 0 ? loc.line : 0};
  auto [it, fresh] = locations_.try_emplace(key, locations_.size() + 1);
  if (fresh) {
    perftools::profiles::Location* out = profile_.add_location();
    out->set_id(it->second);
    out->set_mapping_id(mapping_id);
    out->set_address(loc.address);
    if (function_id != 0) {
      perftools::profiles::Line* line = out->add_line();
      line->set_function_id(function_id);
      line->set_line(key.line);
    }
  }
  return it->second;
}

bool BaselineProfile::Add(const stackrec_sample& sample) {
  if (sample.values_len != types_) return false;
  stack_.clear();
  for (size_t i = 0; i < sample.locations_len; ++i) {
    stack_.push_back(InternFrame(sample.locations[i]));
  }
  key_.stack = stacks_.try_emplace(stack_, static_cast<uint32_t>(stacks_.size())).first->second;
  key_.labels.clear();
  for (size_t i = 0; i < sample.labels_len; ++i) {
    const stackrec_label& l = sample.labels[i];
    key_.labels.push_back(LabelKey{InternString(l.key), InternString(l.str),
                                   l.str.len > 0 ? 0 : l.num, InternString(l.num_unit)});
  }
  if (sample.timestamp_ns != 0) {
    // Kept on its own: never found again, so it needs no key.
    key_.labels.push_back(
        LabelKey{InternString(std::string_view("end_timestamp_ns")), 0, sample.timestamp_ns, 0});
  } else {
    auto it = samples_.find(key_);
    if (it != samples_.end()) {
      auto* values = profile_.mutable_sample(it->second)->mutable_value();
      for (size_t i = 0; i < types_; ++i) {
        values->Set(static_cast<int>(i), values->Get(static_cast<int>(i)) + sample.values[i]);
      }
      return true;
    }
    samples_.emplace(key_, profile_.sample_size());
  }
  perftools::profiles::Sample* out = profile_.add_sample();
  out->mutable_location_id()->Add(stack_.begin(), stack_.end());
  out->mutable_value()->Add(sample.values, sample.values + types_);
  for (const LabelKey& l : key_.labels) {
    perftools::profiles::Label* label = out->add_label();
    label->set_key(l.key);
    label->set_str(l.str);
    label->set_num(l.num);
    label->set_num_unit(l.num_unit);
  }
  return true;
}

void BaselineProfile::SetEndpoint(uint64_t local_root_span_id, std::string_view endpoint) {
  endpoints_[local_root_span_id] = std::string(endpoint);
}

std::string BaselineProfile::Serialize() {
  if (!endpoints_.empty()) {
    const auto span_key = strings_.find("local root span id");
    if (span_key != strings_.end()) {
      const int64_t endpoint_key = InternString(std::string_view("trace endpoint"));
      std::unordered_map<uint64_t, int64_t> endpoint_str;  // span -> string id
      for (perftools::profiles::Sample& s : *profile_.mutable_sample()) {
        uint64_t span = 0;
        bool has_endpoint = false;
        for (const perftools::profiles::Label& l : s.label()) {
          if (l.key() == span_key->second) span = static_cast<uint64_t>(l.num());
          if (l.key() == endpoint_key) has_endpoint = true;
        }
        if (span == 0 || has_endpoint) continue;
        auto cached = endpoint_str.find(span);
        if (cached == endpoint_str.end()) {
          auto e = endpoints_.find(span);
          const int64_t id = e == endpoints_.end() ? 0 : InternString(std::string_view(e->second));
          cached = endpoint_str.emplace(span, id).first;
        }
        if (cached->second == 0) continue;
        perftools::profiles::Label* label = s.add_label();
        label->set_key(endpoint_key);
        label->set_str(cached->second);
      }
    }
  }
  profile_.set_duration_nanos(NowNs() - profile_.time_nanos());
  std::string out;
  if (!profile_.SerializeToString(&out)) std::abort();
  return out;
}

std::string Gzip(const std::string& data, int level) {
  z_stream zs = {};
  if (deflateInit2(&zs, level, Z_DEFLATED, /*windowBits=*/31, /*memLevel=*/8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    std::abort();
  }
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace stackrec_bench
