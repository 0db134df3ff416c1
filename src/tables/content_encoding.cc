// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "tables/content_encoding.h"

#include <cstdint>
#include <cstring>

namespace stackrec {
namespace {

struct Reader {
  absl::string_view in;
  template <typename T>
  T Get() {
    T v;
    std::memcpy(&v, in.data(), sizeof(v));
    in.remove_prefix(sizeof(v));
    return v;
  }
  absl::string_view GetString() {
    const uint32_t n = Get<uint32_t>();
    absl::string_view s = in.substr(0, n);
    in.remove_prefix(n);
    return s;
  }
};

// Encoded sizes, so an encoding is one allocation and plain copies.
constexpr size_t kFrameFixed = 6 * 8 + 1 + 5 * 4;
constexpr size_t kLabelFixed = 8 + 3 * 4;

void Copy(char** p, const void* v, size_t n) {
  if (n == 0) return;  // an empty view's data() may be null, which memcpy refuses
  std::memcpy(*p, v, n);
  *p += n;
}
template <typename T>
void CopyValue(char** p, T v) {
  Copy(p, &v, sizeof(v));
}
void CopyString(char** p, absl::string_view s) {
  CopyValue(p, static_cast<uint32_t>(s.size()));
  Copy(p, s.data(), s.size());
}

}  // namespace

void EncodeFrames(absl::Span<const LocationView> frames, std::string* out) {
  size_t n = frames.size() * kFrameFixed;
  for (const LocationView& f : frames) {
    n += f.mapping.filename.size() + f.mapping.build_id.size() + f.function.name.size() +
         f.function.system_name.size() + f.function.filename.size();
  }
  out->resize(n);
  char* p = &(*out)[0];
  for (const LocationView& f : frames) {
    CopyValue(&p, f.mapping.memory_start);
    CopyValue(&p, f.mapping.memory_limit);
    CopyValue(&p, f.mapping.file_offset);
    CopyValue(&p, f.function.start_line);
    CopyValue(&p, f.address);
    CopyValue(&p, f.line);
    CopyValue(&p, static_cast<uint8_t>(f.inlined));
    CopyString(&p, f.mapping.filename);
    CopyString(&p, f.mapping.build_id);
    CopyString(&p, f.function.name);
    CopyString(&p, f.function.system_name);
    CopyString(&p, f.function.filename);
  }
}

void EncodeLabels(absl::Span<const LabelView> labels, std::string* out) {
  size_t n = labels.size() * kLabelFixed;
  for (const LabelView& l : labels) n += l.key.size() + l.str.size() + l.num_unit.size();
  out->resize(n);
  char* p = &(*out)[0];
  for (const LabelView& l : labels) {
    CopyValue(&p, l.num);
    CopyString(&p, l.key);
    CopyString(&p, l.str);
    CopyString(&p, l.num_unit);
  }
}

void DecodeFrames(absl::string_view bytes, std::vector<LocationView>* out) {
  out->clear();
  Reader r{bytes};
  while (!r.in.empty()) {
    LocationView f;
    f.mapping.memory_start = r.Get<uint64_t>();
    f.mapping.memory_limit = r.Get<uint64_t>();
    f.mapping.file_offset = r.Get<uint64_t>();
    f.function.start_line = r.Get<int64_t>();
    f.address = r.Get<uint64_t>();
    f.line = r.Get<int64_t>();
    f.inlined = r.Get<uint8_t>() != 0;
    f.mapping.filename = r.GetString();
    f.mapping.build_id = r.GetString();
    f.function.name = r.GetString();
    f.function.system_name = r.GetString();
    f.function.filename = r.GetString();
    out->push_back(f);
  }
}

void DecodeLabels(absl::string_view bytes, std::vector<LabelView>* out) {
  out->clear();
  Reader r{bytes};
  while (!r.in.empty()) {
    LabelView l;
    l.num = r.Get<int64_t>();
    l.key = r.GetString();
    l.str = r.GetString();
    l.num_unit = r.GetString();
    out->push_back(l);
  }
}

}  // namespace stackrec
