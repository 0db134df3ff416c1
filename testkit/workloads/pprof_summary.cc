// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "pprof_summary.h"

#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "profile.pb.h"

namespace stackrec_bench {
namespace {

using perftools::profiles::Profile;

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

uint64_t Fnv(const std::string& s) {  // FNV-1a: fixed, unlike std::hash
  uint64_t h = 0xcbf29ce484222325u;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3u;
  return h;
}

// Sequential: order matters.
uint64_t Then(uint64_t h, uint64_t v) { return Mix(h ^ Mix(v)); }

PprofSummary Fail(const char* what) {
  PprofSummary s = {};
  std::snprintf(s.error, sizeof s.error, "%s", what);
  return s;
}

bool Gunzip(const uint8_t* data, size_t size, std::string* out) {
  z_stream zs = {};
  if (inflateInit2(&zs, 31) != Z_OK) return false;
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(size);
  out->resize(size * 4 + 4096);
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (zs.total_out == out->size()) out->resize(out->size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(&(*out)[zs.total_out]);
    zs.avail_out = static_cast<uInt>(out->size() - zs.total_out);
    rc = inflate(&zs, Z_NO_FLUSH);
  }
  out->resize(zs.total_out);
  inflateEnd(&zs);
  return rc == Z_STREAM_END && zs.avail_in == 0;
}

bool Unzstd(const uint8_t* data, size_t size, std::string* out) {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZSTD_inBuffer in = {data, size, 0};
  out->resize(size * 4 + 4096);
  size_t produced = 0, rc = 1;
  while (rc != 0) {
    if (produced == out->size()) out->resize(out->size() * 2);
    ZSTD_outBuffer o = {&(*out)[0], out->size(), produced};
    rc = ZSTD_decompressStream(dctx, &o, &in);
    produced = o.pos;
    if (ZSTD_isError(rc)) break;
    if (rc != 0 && in.pos == in.size && o.pos < o.size) break;  // truncated
  }
  ZSTD_freeDCtx(dctx);
  out->resize(produced);
  return rc == 0 && in.pos == in.size;
}

}  // namespace

PprofSummary Summarize(const uint8_t* data, size_t size) {
  std::string raw;
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    if (!Gunzip(data, size, &raw)) return Fail("corrupt gzip");
  } else if (size >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f &&
             data[3] == 0xfd) {
    if (!Unzstd(data, size, &raw)) return Fail("corrupt zstd");
  } else {
    raw.assign(reinterpret_cast<const char*>(data), size);
  }
  Profile p;
  if (!p.ParseFromString(raw)) return Fail("not a valid Profile message");
  raw = std::string();

  const int strings = p.string_table_size();
  if (strings == 0 || !p.string_table(0).empty()) return Fail("string_table[0] is not \"\"");
  std::vector<uint64_t> str_hash(static_cast<size_t>(strings));
  for (int i = 0; i < strings; ++i) str_hash[static_cast<size_t>(i)] = Fnv(p.string_table(i));
  bool bad_index = false;
  auto S = [&](int64_t i) -> uint64_t {
    if (i < 0 || i >= strings) {
      bad_index = true;
      return 0;
    }
    return str_hash[static_cast<size_t>(i)];
  };

  PprofSummary sum = {};
  sum.sample_types = static_cast<uint64_t>(p.sample_type_size());
  if (sum.sample_types > 8) return Fail("more than 8 sample types");
  uint64_t header = 0;
  for (const auto& t : p.sample_type()) header = Then(Then(header, S(t.type())), S(t.unit()));

  std::unordered_map<uint64_t, uint64_t> function_hash, mapping_hash, location_hash;
  uint64_t with_system_name = 0, system_name_not_name = 0;
  for (const auto& f : p.function()) {
    // By content: an encoder may write a string twice.
    auto text = [&](int64_t i) -> const std::string& {
      static const std::string kNone;
      return i >= 0 && i < strings ? p.string_table(static_cast<int>(i)) : kNone;
    };
    if (!text(f.system_name()).empty()) {
      ++with_system_name;
      system_name_not_name += text(f.system_name()) != text(f.name());
    }
    function_hash[f.id()] =
        Then(Then(Then(Then(1, S(f.name())), S(f.system_name())), S(f.filename())),
             static_cast<uint64_t>(f.start_line()));
  }
  for (const auto& m : p.mapping()) {
    mapping_hash[m.id()] =
        Then(Then(Then(Then(Then(2, m.memory_start()), m.memory_limit()), m.file_offset()),
                  S(m.filename())),
             S(m.build_id()));
  }
  for (const auto& l : p.location()) {
    uint64_t h = Then(3, l.address());
    if (l.mapping_id() != 0) {
      auto m = mapping_hash.find(l.mapping_id());
      if (m == mapping_hash.end()) return Fail("a location names a missing mapping");
      h = Then(h, m->second);
    }
    for (const auto& line : l.line()) {
      auto f = function_hash.find(line.function_id());
      if (f == function_hash.end()) return Fail("a line names a missing function");
      h = Then(Then(h, f->second), static_cast<uint64_t>(line.line()));
    }
    location_hash[l.id()] = h;
  }

  int64_t endpoint_key = -1;
  for (int i = 0; i < strings; ++i) {
    if (p.string_table(i) == "trace endpoint") endpoint_key = i;
  }
  uint64_t digest = Mix(header);
  for (const auto& s : p.sample()) {
    if (static_cast<uint64_t>(s.value_size()) != sum.sample_types) {
      return Fail("a sample's value count differs from sample_type's");
    }
    uint64_t stack = 4;
    for (uint64_t id : s.location_id()) {
      auto l = location_hash.find(id);
      if (l == location_hash.end()) return Fail("a sample names a missing location");
      stack = Then(stack, l->second);
    }
    uint64_t labels = 0;  // a sum: the labels' order does not matter
    for (const auto& l : s.label()) {
      labels +=
          Mix(Then(Then(Then(Then(5, S(l.key())), S(l.str())), static_cast<uint64_t>(l.num())),
                   S(l.num_unit())));
      if (l.key() == endpoint_key) ++sum.endpoint_labels;
    }
    uint64_t values = 6;
    for (int i = 0; i < s.value_size(); ++i) {
      values = Then(values, static_cast<uint64_t>(s.value(i)));
      sum.totals[i] += s.value(i);
    }
    digest += Mix(Then(Then(stack, labels), values));  // a sum: order-free
  }
  if (bad_index) return Fail("a string index is out of range");
  sum.ok = true;
  sum.samples = static_cast<uint64_t>(p.sample_size());
  sum.functions = static_cast<uint64_t>(p.function_size());
  sum.functions_with_system_name = with_system_name;
  sum.system_names_not_name = system_name_not_name;
  sum.digest = digest;
  return sum;
}

}  // namespace stackrec_bench
