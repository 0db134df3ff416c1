// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A libFuzzer target that drives the C API with a byte-coded sequence of
// calls (profile new / add / set_endpoint / serialize / reset, recorder
// record / record_endpoint / serialize), and checks, after every call, its
// status against a reference model's verdict and, after every serialize,
// that the output decodes to exactly what the model holds. Any difference
// aborts, which libFuzzer reports as a crash.
//
// The model is independent of the library: its own UTF-8 check, its own
// idea of the label and aggregation rules, std::map for the aggregate.
// Build and run (clang): see README.md, "Fuzzing". Replayed over
// tests/fuzz/corpus by the fuzz_corpus_replay CTest with any compiler.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "decompress.h"
#include "profile.pb.h"
#include "stackrec/stackrec.h"

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "api_fuzzer: %s (last error: %s)\n", what, stackrec_last_error());
  std::abort();
}

// ---- Reading the input ----------------------------------------------------

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ == end_; }
  uint8_t Byte() { return p_ == end_ ? 0 : *p_++; }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | Byte();
    return v;
  }
  // A short string: mostly from a pool (so that samples repeat and
  // aggregate), sometimes raw bytes, valid UTF-8 or not.
  std::string Str() {
    static const char* const kPool[] = {"",        "main",   "f",      "g",
                                        "Foo#bar", "π",      "a.rb",   "thread id",
                                        "span",    "trace endpoint", "local root span id",
                                        "end_timestamp_ns"};
    const uint8_t b = Byte();
    if (b < 0xC0) return kPool[b % (sizeof(kPool) / sizeof(kPool[0]))];
    std::string s;
    for (size_t n = b & 7; n > 0 && !empty(); --n) s.push_back(static_cast<char>(Byte()));
    return s;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// ---- The model -------------------------------------------------------------

// RFC 3629, decoded code point by code point (the library checks bytes
// against ranges; this decodes, so the two are independent).
bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    size_t len;
    if (c < 0x80) { cp = c; len = 1; }
    else if ((c >> 5) == 0x6) { cp = c & 0x1F; len = 2; }
    else if ((c >> 4) == 0xE) { cp = c & 0x0F; len = 3; }
    else if ((c >> 3) == 0x1E) { cp = c & 0x07; len = 4; }
    else return false;
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = cp << 6 | (cc & 0x3F);
    }
    const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

struct Frame {
  std::string name, file;
  int64_t line = 0;
};
struct LabelIn {
  std::string key, str, unit;
  int64_t num = 0;
};
struct SampleIn {
  std::vector<Frame> frames;
  std::vector<LabelIn> labels;
  std::vector<int64_t> values;
  int64_t timestamp = 0;
};

using Key = std::pair<std::vector<std::string>, std::vector<std::string>>;

std::string FrameText(const std::string& name, const std::string& file, int64_t line) {
  return name + "\x1f" + file + "\x1f" + std::to_string(line);
}

std::string LabelText(const std::string& key, const std::string& str, int64_t num,
                      const std::string& unit) {
  return str.empty() ? key + "=" + std::to_string(num) + "[" + unit + "]" : key + "=" + str;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}

struct Model {
  std::vector<bool> enabled;
  std::map<Key, std::vector<int64_t>> aggregated;
  std::vector<std::pair<Key, std::vector<int64_t>>> timed;
  std::map<uint64_t, std::string> endpoints;

  void Clear() {
    aggregated.clear();
    timed.clear();
    endpoints.clear();
  }

  bool Accepts(const SampleIn& s) const {
    if (s.values.size() != enabled.size()) return false;
    for (size_t i = 0; i < s.labels.size(); ++i) {
      const LabelIn& l = s.labels[i];
      if (l.key.empty()) return false;
      if (!l.str.empty() && (l.num != 0 || !l.unit.empty())) return false;
      if (s.timestamp != 0 && l.key == "end_timestamp_ns") return false;
      for (size_t j = 0; j < i; ++j) {
        if (s.labels[j].key == l.key) return false;
      }
      if (!ValidUtf8(l.key) || !ValidUtf8(l.str) || !ValidUtf8(l.unit)) return false;
    }
    for (const Frame& f : s.frames) {
      if (!ValidUtf8(f.name) || !ValidUtf8(f.file)) return false;
    }
    return true;
  }

  void Add(const SampleIn& s) {
    Key key;
    for (const Frame& f : s.frames) {
      // A frame with no function keeps no line.
      const bool no_function = f.name.empty() && f.file.empty();
      key.first.push_back(FrameText(f.name, f.file, no_function ? 0 : f.line));
    }
    for (const LabelIn& l : s.labels) key.second.push_back(LabelText(l.key, l.str, l.num, l.unit));
    std::vector<int64_t> values;
    for (size_t i = 0; i < enabled.size(); ++i) {
      if (enabled[i]) values.push_back(s.values[i]);
    }
    if (s.timestamp != 0) {
      key.second.push_back("end_timestamp_ns=" + std::to_string(s.timestamp) + "[]");
      timed.emplace_back(key, values);
      return;
    }
    auto [it, inserted] = aggregated.emplace(key, values);
    if (!inserted) {
      for (size_t i = 0; i < values.size(); ++i) it->second[i] = SaturatingAdd(it->second[i], values[i]);
    }
  }

  // The key as the output shows it: "trace endpoint" first for a span with
  // an endpoint, unless the sample has that label itself.
  static Key WithEndpoint(Key key, const std::map<uint64_t, std::string>& endpoints) {
    const std::string span_prefix = "local root span id=";
    std::string endpoint;
    for (const std::string& l : key.second) {
      if (l.rfind("trace endpoint=", 0) == 0) return key;
      if (l.rfind(span_prefix, 0) == 0 && l.back() == ']') {
        const std::string digits = l.substr(span_prefix.size(), l.find('[') - span_prefix.size());
        const auto span = static_cast<uint64_t>(std::stoll(digits));
        auto it = endpoints.find(span);
        if (it != endpoints.end()) endpoint = it->second;
      }
    }
    if (!endpoint.empty()) key.second.insert(key.second.begin(), "trace endpoint=" + endpoint);
    return key;
  }
};

// ---- Checking an output against the model ----------------------------------

// What a finding is about, for whoever reproduces it.
using Samples = std::vector<std::pair<Key, std::vector<int64_t>>>;

void DumpSamples(const char* title, const Samples& keys) {
  std::fprintf(stderr, "%s:\n", title);
  for (const auto& [key, values] : keys) {
    std::string line = "  frames[";
    for (const std::string& f : key.first) line += " <" + f + ">";
    line += " ] labels[";
    for (const std::string& l : key.second) line += " <" + l + ">";
    line += " ] values[";
    for (int64_t v : values) line += " " + std::to_string(v);
    std::fprintf(stderr, "%s ]\n", line.c_str());
  }
}

void CheckOutput(const stackrec_encoded* e, const Model& m,
                 const std::map<uint64_t, std::string>& endpoints) {
  std::string raw;
  if (!stackrec_test::DecompressAny(
          std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                      stackrec_encoded_size(e)),
          &raw)) {
    Fail("output does not decompress");
  }
  perftools::profiles::Profile p;
  if (!p.ParseFromString(raw)) Fail("output does not parse as pprof");
  const auto& table = p.string_table();
  auto str = [&](int64_t i) -> const std::string& {
    if (i < 0 || i >= table.size()) Fail("string index out of range");
    return table[static_cast<int>(i)];
  };
  if (table.empty() || !table[0].empty()) Fail("string_table[0] is not empty");
  std::map<uint64_t, const perftools::profiles::Location*> locations;
  std::map<uint64_t, const perftools::profiles::Function*> functions;
  for (const auto& l : p.location()) locations[l.id()] = &l;
  for (const auto& f : p.function()) functions[f.id()] = &f;

  // All samples, aggregated and timestamped, compared as sorted lists: a
  // caller may itself use the key end_timestamp_ns on an aggregated sample,
  // so the output alone cannot tell the two kinds apart.
  Samples got;
  for (const auto& s : p.sample()) {
    Key key;
    for (uint64_t id : s.location_id()) {
      auto it = locations.find(id);
      if (it == locations.end()) Fail("sample refers to an undefined location");
      const auto& loc = *it->second;
      if (loc.line_size() == 0) {
        key.first.push_back(FrameText("", "", 0));
        continue;
      }
      auto fn = functions.find(loc.line(0).function_id());
      if (fn == functions.end()) Fail("location refers to an undefined function");
      key.first.push_back(FrameText(str(fn->second->name()), str(fn->second->filename()),
                                    loc.line(0).line()));
    }
    for (const auto& l : s.label()) {
      key.second.push_back(LabelText(str(l.key()), str(l.str()), l.num(), str(l.num_unit())));
    }
    got.emplace_back(key, std::vector<int64_t>(s.value().begin(), s.value().end()));
  }
  Samples expected;
  for (const auto& [key, values] : m.aggregated) {
    expected.emplace_back(Model::WithEndpoint(key, endpoints), values);
  }
  for (const auto& [key, values] : m.timed) {
    expected.emplace_back(Model::WithEndpoint(key, endpoints), values);
  }
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  if (got != expected) {
    DumpSamples("output", got);
    DumpSamples("model", expected);
    Fail("samples differ from the model");
  }
}

// ---- Building C arguments ------------------------------------------------

struct CSample {
  std::vector<stackrec_location> locations;
  std::vector<stackrec_label> labels;
  stackrec_sample sample{};

  explicit CSample(const SampleIn& in) {
    for (const Frame& f : in.frames) {
      stackrec_location loc{};
      loc.function.name = {f.name.data(), f.name.size()};
      loc.function.filename = {f.file.data(), f.file.size()};
      loc.line = f.line;
      locations.push_back(loc);
    }
    for (const LabelIn& l : in.labels) {
      stackrec_label c{};
      c.key = {l.key.data(), l.key.size()};
      c.str = {l.str.data(), l.str.size()};
      c.num = l.num;
      c.num_unit = {l.unit.data(), l.unit.size()};
      labels.push_back(c);
    }
    sample.locations = locations.data();
    sample.locations_len = locations.size();
    sample.values = in.values.data();
    sample.values_len = in.values.size();
    sample.labels = labels.data();
    sample.labels_len = labels.size();
    sample.timestamp_ns = in.timestamp;
  }
};

SampleIn ReadSample(Input& in, size_t types) {
  SampleIn s;
  for (size_t depth = in.Byte() % 10; depth > 0; --depth) {
    Frame f;
    f.name = in.Str();
    f.file = in.Str();
    f.line = in.Byte() % 4;
    s.frames.push_back(f);
  }
  for (size_t n = in.Byte() % 4; n > 0; --n) {
    LabelIn l;
    l.key = in.Str();
    const uint8_t kind = in.Byte();
    if (kind % 3 == 0) {
      l.str = in.Str();
    } else {
      l.num = static_cast<int64_t>(in.Byte() % 5);
      if (kind % 3 == 2) l.unit = in.Str();
    }
    if (kind >= 0xF0) l.num = 1;  // sometimes both a string and a number
    s.labels.push_back(l);
  }
  size_t n = types;
  const uint8_t count = in.Byte();
  if (count >= 0xF8) n = count & 7;  // sometimes the wrong number of values
  for (size_t i = 0; i < n; ++i) {
    const uint8_t kind = in.Byte();
    // Mostly small values; sometimes extremes, to exercise saturation.
    s.values.push_back(kind >= 0xF0 ? static_cast<int64_t>(in.U64()) : kind);
  }
  if (in.Byte() % 4 == 0) s.timestamp = static_cast<int64_t>(in.Byte()) + 1;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  // Options: 1 to 4 sample types, some disabled.
  const size_t types = 1 + in.Byte() % 4;
  const uint8_t disabled_bits = in.Byte();
  static const char* const kNames[] = {"cpu-time", "cpu-samples", "wall-time", "alloc-samples"};
  std::vector<stackrec_value_type> vt;
  bool enabled_flags[4];
  Model profile_model, recorder_model;
  bool any = false;
  for (size_t i = 0; i < types; ++i) {
    vt.push_back({{kNames[i], std::strlen(kNames[i])}, {"count", 5}});
    enabled_flags[i] = (disabled_bits >> i & 1) == 0;
    profile_model.enabled.push_back(enabled_flags[i]);
    any = any || enabled_flags[i];
  }
  stackrec_profile_options opts{};
  opts.sample_types = vt.data();
  opts.sample_types_len = vt.size();
  opts.sample_types_enabled = enabled_flags;
  stackrec_profile* profile = nullptr;
  stackrec_recorder* recorder = nullptr;
  const stackrec_status st_new = stackrec_profile_new(&opts, &profile);
  const stackrec_status st_rec = stackrec_recorder_new(&opts, &recorder);
  if ((st_new == STACKREC_OK) != any || (st_rec == STACKREC_OK) != any) {
    Fail("new: status disagrees with the model");
  }
  if (!any) return 0;
  recorder_model.enabled = profile_model.enabled;
  // Endpoints the recorder's previous profile had; they carry one flip.
  std::map<uint64_t, std::string> recorder_previous_endpoints;

  while (!in.empty()) {
    const uint8_t op = in.Byte() % 7;
    if (op == 0 || op == 4) {  // add, or record into the recorder
      const SampleIn s = ReadSample(in, types);
      CSample c(s);
      Model& m = op == 0 ? profile_model : recorder_model;
      const stackrec_status st = op == 0 ? stackrec_profile_add(profile, &c.sample)
                                         : stackrec_recorder_record(recorder, &c.sample);
      const bool accepted = m.Accepts(s);
      if ((st == STACKREC_OK) != accepted) Fail("add: status disagrees with the model");
      if (accepted) m.Add(s);
    } else if (op == 1 || op == 5) {  // set an endpoint
      const uint64_t span = in.Byte() % 4;
      const std::string endpoint = in.Str();
      const stackrec_str e{endpoint.data(), endpoint.size()};
      const stackrec_status st =
          op == 1 ? stackrec_profile_set_endpoint(profile, span, e)
                  : stackrec_recorder_record_endpoint(recorder, span, e);
      const bool accepted = span != 0 && !endpoint.empty() && ValidUtf8(endpoint);
      if ((st == STACKREC_OK) != accepted) Fail("endpoint: status disagrees with the model");
      if (accepted) (op == 1 ? profile_model : recorder_model).endpoints[span] = endpoint;
    } else if (op == 2 || op == 6) {  // serialize
      const stackrec_serialize_options so{static_cast<stackrec_compression>(in.Byte() % 3), 0};
      stackrec_encoded* e = nullptr;
      if (op == 2) {
        if (stackrec_profile_serialize(profile, &so, &e) != STACKREC_OK) Fail("serialize failed");
        CheckOutput(e, profile_model, profile_model.endpoints);
      } else {
        if (stackrec_recorder_serialize(recorder, &so, &e) != STACKREC_OK) Fail("serialize failed");
        std::map<uint64_t, std::string> effective = recorder_previous_endpoints;
        for (const auto& [span, endpoint] : recorder_model.endpoints) effective[span] = endpoint;
        CheckOutput(e, recorder_model, effective);
        recorder_previous_endpoints = recorder_model.endpoints;
        recorder_model.Clear();
      }
      stackrec_encoded_free(e);
    } else {  // op == 3: reset the profile
      if (stackrec_profile_reset(profile) != STACKREC_OK) Fail("reset failed");
      profile_model.Clear();
    }
  }
  stackrec_profile_free(profile);
  stackrec_recorder_free(recorder);
  return 0;
}
