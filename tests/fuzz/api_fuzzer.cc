// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A libFuzzer target that drives the C API with a byte-coded sequence of
// calls (profile new / add / set_endpoint / serialize / reset, recorder
// record / record_endpoint / serialize, and on both the pre-interned path:
// intern_function / intern_location / intern_stack / intern_labels,
// add_ids / record_ids by stack id or location ids, labels as they are or by
// label-set id, forget_ids; frames may be inlined into their
// caller; live-heap track / untrack on the recorder), and checks, after
// every call, its status against a reference model's verdict and, after
// every serialize, that the output decodes to exactly what the model holds.
// Any difference aborts, which libFuzzer reports as a crash.
//
// The model is independent of the library: its own UTF-8 check, its own
// idea of the label and aggregation rules, std::map for the aggregate.
// Build and run (clang): see docs/testing.md, "Fuzzing". Replayed over
// tests/fuzz/corpus by the fuzz_corpus_replay CTest with any compiler.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
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
  bool inlined = false;  // into the next frame (same address and mapping: all 0 here)

  bool has_function() const { return !name.empty() || !file.empty(); }
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

// A label as text that no other label shares: the key's length first (keys
// and strings may hold any character), then "=string" or "#number[unit]".
std::string LabelText(const std::string& key, const std::string& str, int64_t num,
                      const std::string& unit) {
  const std::string head = std::to_string(key.size()) + ":" + key;
  return str.empty() ? head + "#" + std::to_string(num) + "[" + unit + "]" : head + "=" + str;
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

  // An inlined frame needs a caller after it; the fuzzer's frames all share
  // address 0 and no mapping, so that is the whole rule here.
  static bool InliningValid(const std::vector<Frame>& frames) {
    return frames.empty() || !frames.back().inlined;
  }

  // The rules of a label set (intern_labels checks these alone).
  static bool LabelSetValid(const std::vector<LabelIn>& labels) {
    for (size_t i = 0; i < labels.size(); ++i) {
      const LabelIn& l = labels[i];
      if (l.key.empty()) return false;
      if (!l.str.empty() && (l.num != 0 || !l.unit.empty())) return false;
      for (size_t j = 0; j < i; ++j) {
        if (labels[j].key == l.key) return false;
      }
      if (!ValidUtf8(l.key) || !ValidUtf8(l.str) || !ValidUtf8(l.unit)) return false;
    }
    return true;
  }

  bool Accepts(const SampleIn& s) const {
    if (s.values.size() != enabled.size()) return false;
    if (!InliningValid(s.frames)) return false;
    if (!LabelSetValid(s.labels)) return false;
    for (const LabelIn& l : s.labels) {
      if (s.timestamp != 0 && l.key == "end_timestamp_ns") return false;
    }
    for (const Frame& f : s.frames) {
      if (!ValidUtf8(f.name) || !ValidUtf8(f.file)) return false;
    }
    return true;
  }

  // True if the output could not tell `frames` from other frames: an
  // inlined frame without a function, or inlined into one without a
  // function, gives no line, so its location reads like a plainer one. The
  // fuzzer never sends such stacks (valid as they are; see
  // tests/inline_frames_test.cc), so that the output's lines pin the input.
  static bool Ambiguous(const std::vector<Frame>& frames) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (frames[i].inlined && (!frames[i].has_function() ||
                                (i + 1 < frames.size() && !frames[i + 1].has_function()))) {
        return true;
      }
    }
    return false;
  }

  // The frames as the output's locations read, line by line: a run of
  // frames inlined into the next is one location with a line per frame,
  // callee first, every line but the location's last marked "^"; a frame
  // with no function is a location without lines, read as one empty frame.
  static std::vector<std::string> FrameTexts(const std::vector<Frame>& frames) {
    std::vector<std::string> texts;
    for (const Frame& f : frames) {
      texts.push_back(!f.has_function() ? FrameText("", "", 0)
                                        : std::string(f.inlined ? "^" : "") +
                                              FrameText(f.name, f.file, f.line));
    }
    return texts;
  }

  void Add(const SampleIn& s) {
    Key key;
    key.first = FrameTexts(s.frames);
    for (const LabelIn& l : s.labels) key.second.push_back(LabelText(l.key, l.str, l.num, l.unit));
    std::vector<int64_t> values;
    for (size_t i = 0; i < enabled.size(); ++i) {
      if (enabled[i]) values.push_back(s.values[i]);
    }
    if (s.timestamp != 0) {
      key.second.push_back(LabelText("end_timestamp_ns", "", s.timestamp, ""));
      timed.emplace_back(key, values);
      return;
    }
    auto [it, inserted] = aggregated.emplace(key, values);
    if (!inserted) {
      for (size_t i = 0; i < values.size(); ++i) it->second[i] = SaturatingAdd(it->second[i], values[i]);
    }
  }

  // The key as the output shows it: "trace endpoint" first for a span (a
  // numeric "local root span id" label) with an endpoint, unless the sample
  // has a "trace endpoint" label itself.
  static Key WithEndpoint(Key key, const std::map<uint64_t, std::string>& endpoints) {
    const std::string endpoint_key = LabelText("trace endpoint", "", 0, "");
    const std::string endpoint_head = endpoint_key.substr(0, endpoint_key.find('#'));
    const std::string span_key = LabelText("local root span id", "", 0, "");
    const std::string span_head = span_key.substr(0, span_key.find('#') + 1);
    std::string endpoint;
    for (const std::string& l : key.second) {
      if (l.rfind(endpoint_head, 0) == 0) return key;
      if (l.rfind(span_head, 0) == 0) {
        const std::string digits = l.substr(span_head.size(), l.find('[') - span_head.size());
        const auto span = static_cast<uint64_t>(std::stoll(digits));
        auto it = endpoints.find(span);
        if (it != endpoints.end()) endpoint = it->second;
      }
    }
    if (!endpoint.empty()) {
      key.second.insert(key.second.begin(), LabelText("trace endpoint", endpoint, 0, ""));
    }
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
  // No location or function is written twice, whichever way its frames
  // came (content compared: the samples' texts below would not tell).
  std::set<std::string> contents;
  for (const auto& l : p.location()) {
    std::string c = std::to_string(l.mapping_id()) + " " + std::to_string(l.address()) +
                    (l.is_folded() ? " folded" : "");
    for (const auto& line : l.line()) {
      c += " " + std::to_string(line.function_id()) + ":" + std::to_string(line.line());
    }
    if (!contents.insert(c).second) Fail("a location is written twice");
  }
  contents.clear();
  for (const auto& f : p.function()) {
    const std::string c = std::to_string(f.name()) + " " + std::to_string(f.system_name()) + " " +
                          std::to_string(f.filename()) + " " + std::to_string(f.start_line());
    if (!contents.insert(c).second) Fail("a function is written twice");
  }

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
      for (int k = 0; k < loc.line_size(); ++k) {  // callee first
        const auto& line = loc.line(k);
        auto fn = functions.find(line.function_id());
        if (fn == functions.end()) Fail("location refers to an undefined function");
        key.first.push_back(std::string(k + 1 < loc.line_size() ? "^" : "") +
                            FrameText(str(fn->second->name()), str(fn->second->filename()),
                                      line.line()));
      }
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
      loc.inlined = f.inlined;
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

std::vector<Frame> ReadFrames(Input& in) {
  std::vector<Frame> frames;
  for (size_t depth = in.Byte() % 10; depth > 0; --depth) {
    Frame f;
    f.name = in.Str();
    f.file = in.Str();
    const uint8_t line = in.Byte();
    f.line = line % 4;
    f.inlined = line >= 0xF0;
    frames.push_back(f);
  }
  // Only unambiguous inlining (see Model::Ambiguous); an inlined last frame
  // stays, for the library to refuse.
  for (size_t i = 0; i < frames.size(); ++i) {
    Frame& f = frames[i];
    f.inlined = f.inlined && f.has_function() &&
                (i + 1 == frames.size() || frames[i + 1].has_function());
  }
  return frames;
}

// A sample's labels, values and timestamp.
void ReadRest(Input& in, size_t types, SampleIn* out) {
  SampleIn& s = *out;
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
}

SampleIn ReadSample(Input& in, size_t types) {
  SampleIn s;
  s.frames = ReadFrames(in);
  ReadRest(in, types, &s);
  return s;
}

// ---- Pre-interned ids --------------------------------------------------------

// What a profile's or recorder's dictionary holds, by id, and the ids a
// forget_ids made stale (refused for the next 255 forgets; the fuzzer stops
// forgetting well before that, so a stale id is never a new one).
struct DictModel {
  std::vector<std::pair<uint32_t, std::vector<Frame>>> stacks;
  std::vector<std::pair<uint32_t, Frame>> locations;
  std::vector<uint32_t> label_sets;
  std::vector<uint32_t> stale;
  int forgets = 0;
};
constexpr int kMaxForgets = 200;
// An index past any table the fuzzer fills, in generation 0: never valid
// (out of range, or stale once the generation moved on).
constexpr uint32_t kBadId = 0x00FFFFFF;

// The C calls of one handle, profile or recorder.
struct IdCalls {
  stackrec_profile* profile;
  stackrec_recorder* recorder;
  stackrec_status Function(const stackrec_function* f, uint32_t* id) const {
    return profile != nullptr ? stackrec_profile_intern_function(profile, f, id)
                              : stackrec_recorder_intern_function(recorder, f, id);
  }
  stackrec_status Location(const stackrec_interned_location* l, uint32_t* id) const {
    return profile != nullptr ? stackrec_profile_intern_location(profile, l, id)
                              : stackrec_recorder_intern_location(recorder, l, id);
  }
  stackrec_status Stack(const std::vector<uint32_t>& ids, uint32_t* id) const {
    return profile != nullptr
               ? stackrec_profile_intern_stack(profile, ids.data(), ids.size(), id)
               : stackrec_recorder_intern_stack(recorder, ids.data(), ids.size(), id);
  }
  stackrec_status Labels(const stackrec_label* labels, size_t len, uint32_t* id) const {
    return profile != nullptr ? stackrec_profile_intern_labels(profile, labels, len, id)
                              : stackrec_recorder_intern_labels(recorder, labels, len, id);
  }
  stackrec_status Add(const stackrec_id_sample* s) const {
    return profile != nullptr ? stackrec_profile_add_ids(profile, s)
                              : stackrec_recorder_record_ids(recorder, s);
  }
  stackrec_status Forget() const {
    return profile != nullptr ? stackrec_profile_forget_ids(profile)
                              : stackrec_recorder_forget_ids(recorder);
  }
};

// Interns `frames` function by function, location by location, then as a
// stack, checking each status against the model's verdict.
void InternStack(const IdCalls& calls, const std::vector<Frame>& frames, DictModel* dict) {
  std::vector<uint32_t> ids;
  for (const Frame& f : frames) {
    stackrec_interned_location loc{};
    if (f.has_function()) {
      const stackrec_function fn{{f.name.data(), f.name.size()}, {nullptr, 0},
                                 {f.file.data(), f.file.size()}, 0};
      const bool valid = ValidUtf8(f.name) && ValidUtf8(f.file);
      if ((calls.Function(&fn, &loc.function_id) == STACKREC_OK) != valid) {
        Fail("intern_function: status disagrees with the model");
      }
      if (!valid) return;
    }
    loc.line = f.line;
    loc.inlined = f.inlined;
    uint32_t id = 0;
    if (calls.Location(&loc, &id) != STACKREC_OK) Fail("intern_location failed");
    dict->locations.emplace_back(id, f);
    ids.push_back(id);
  }
  uint32_t id = 0;
  const bool valid = Model::InliningValid(frames);
  if ((calls.Stack(ids, &id) == STACKREC_OK) != valid) {
    Fail("intern_stack: status disagrees with the model");
  }
  if (valid) dict->stacks.emplace_back(id, frames);
}

// Adds a sample by stack id or by location ids, its labels as they are or
// (`by_labels_id`) by a label-set id interned for it: mostly ids the model
// knows, sometimes stale or never-issued ones.
void AddById(const IdCalls& calls, Input& in, size_t types, bool by_locations,
             bool by_labels_id, DictModel* dict_model, Model* model) {
  const DictModel& dict = *dict_model;
  SampleIn s;
  bool ids_valid = true;
  auto pick = [&](const auto& known) -> const auto* {
    const uint8_t b = in.Byte();
    if (b < 0xF0 && !known.empty()) return &known[b % known.size()];
    ids_valid = false;
    return static_cast<decltype(&known[0])>(nullptr);
  };
  auto bad_id = [&]() {
    const uint8_t b = in.Byte();
    return !dict.stale.empty() && b % 2 == 0 ? dict.stale[(b / 2) % dict.stale.size()] : kBadId;
  };
  uint32_t stack_id = 0;
  std::vector<uint32_t> location_ids;
  if (!by_locations) {
    if (const auto* known = pick(dict.stacks)) {
      stack_id = known->first;
      s.frames = known->second;
    } else {
      stack_id = bad_id();
    }
  } else {
    for (size_t n = in.Byte() % 6; n > 0; --n) {
      if (const auto* known = pick(dict.locations)) {
        location_ids.push_back(known->first);
        s.frames.push_back(known->second);
      } else {
        location_ids.push_back(bad_id());
      }
    }
  }
  ReadRest(in, types, &s);
  if (Model::Ambiguous(s.frames)) return;
  CSample c(s);
  stackrec_id_sample sample{};
  sample.stack_id = stack_id;
  sample.location_ids = location_ids.data();
  sample.location_ids_len = location_ids.size();
  sample.values = c.sample.values;
  sample.values_len = c.sample.values_len;
  sample.labels = c.sample.labels;
  sample.labels_len = c.sample.labels_len;
  sample.timestamp_ns = c.sample.timestamp_ns;
  if (by_labels_id) {
    sample.labels = nullptr;
    sample.labels_len = 0;
    if (in.Byte() >= 0xF0) {
      sample.labels_id = bad_id();
      ids_valid = false;
    } else {
      const bool valid = Model::LabelSetValid(s.labels);
      if ((calls.Labels(c.sample.labels, c.sample.labels_len, &sample.labels_id) ==
           STACKREC_OK) != valid) {
        Fail("intern_labels: status disagrees with the model");
      }
      if (!valid) return;
      dict_model->label_sets.push_back(sample.labels_id);
    }
  }
  const bool accepted = ids_valid && model->Accepts(s);
  if ((calls.Add(&sample) == STACKREC_OK) != accepted) {
    Fail("add_ids: status disagrees with the model");
  }
  if (accepted) model->Add(s);
}

void Forget(const IdCalls& calls, DictModel* dict) {
  if (dict->forgets == kMaxForgets) return;
  if (calls.Forget() != STACKREC_OK) Fail("forget_ids failed");
  ++dict->forgets;
  for (const auto& [id, frames] : dict->stacks) dict->stale.push_back(id);
  for (const auto& [id, frame] : dict->locations) dict->stale.push_back(id);
  dict->stale.insert(dict->stale.end(), dict->label_sets.begin(), dict->label_sets.end());
  dict->stacks.clear();
  dict->locations.clear();
  dict->label_sets.clear();
}

// ---- Live-heap tracking (recorder) ------------------------------------------

// The objects a recorder tracks, by id, and what every serialization adds
// for them: per (stack, labels) the sums of their values at the live-heap
// types, into the sample of that key or a sample of its own, left out when
// those sums are all 0 at the enabled types.
struct HeapModel {
  std::vector<size_t> live_types;  // offsets into the sample types
  std::map<uint64_t, SampleIn> tracked;

  bool IsLive(size_t type) const {
    return std::find(live_types.begin(), live_types.end(), type) != live_types.end();
  }

  // The recorder's aggregate as a serialization writes it.
  Model WithLiveObjects(const Model& recorded) const {
    Model m = recorded;
    std::map<Key, std::vector<int64_t>> sums;
    for (const auto& [id, s] : tracked) {
      Model one;
      one.enabled = m.enabled;
      one.Add(s);
      for (const auto& [key, values] : one.aggregated) {
        auto [it, inserted] = sums.emplace(key, values);
        if (!inserted) {
          for (size_t i = 0; i < values.size(); ++i) it->second[i] += values[i];
        }
      }
    }
    for (const auto& [key, values] : sums) {
      if (std::all_of(values.begin(), values.end(), [](int64_t v) { return v == 0; })) continue;
      auto [it, inserted] = m.aggregated.emplace(key, values);
      if (!inserted) {
        for (size_t i = 0; i < values.size(); ++i) {
          it->second[i] = SaturatingAdd(it->second[i], values[i]);
        }
      }
    }
    return m;
  }
};

// track: a sample read as for record, then mostly made trackable (values
// at the live-heap types only, small enough that the recorder's running
// sums never saturate, and no timestamp).
void Track(stackrec_recorder* recorder, Input& in, size_t types, const Model& model,
           HeapModel* heap) {
  const uint64_t object = in.Byte() % 8;
  SampleIn s = ReadSample(in, types);
  if (in.Byte() % 4 != 0 && s.values.size() == types) {
    for (size_t i = 0; i < types; ++i) s.values[i] = heap->IsLive(i) ? in.Byte() : 0;
    s.timestamp = 0;
  }
  CSample c(s);
  bool valid = !heap->live_types.empty() && model.Accepts(s) && s.timestamp == 0;
  bool small = true;
  for (size_t i = 0; valid && i < s.values.size(); ++i) {
    if (heap->IsLive(i)) {
      small = small && s.values[i] >= 0 && s.values[i] < 256;
    } else {
      valid = s.values[i] == 0;
    }
  }
  const stackrec_status st = stackrec_recorder_track(recorder, object, &c.sample);
  if ((st == STACKREC_OK) != valid) Fail("track: status disagrees with the model");
  if (!valid) return;  // refused: a tracked object of that id stays
  if (!small) {
    // Valid, but large values would let the model's sums and the
    // recorder's saturating running sums part: untracked again at once.
    if (stackrec_recorder_untrack(recorder, object) != STACKREC_OK) Fail("untrack failed");
    heap->tracked.erase(object);
    return;
  }
  heap->tracked[object] = s;
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
  // Bits 7 and 6: live-heap tracking of the last type, and of the first.
  HeapModel heap;
  if (disabled_bits & 0x80) heap.live_types.push_back(types - 1);
  if ((disabled_bits & 0x40) && types > 1) heap.live_types.push_back(0);
  opts.live_heap_types = heap.live_types.data();
  opts.live_heap_types_len = heap.live_types.size();
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

  DictModel profile_dict, recorder_dict;
  const IdCalls profile_calls{profile, nullptr}, recorder_calls{nullptr, recorder};

  while (!in.empty()) {
    const uint8_t code = in.Byte();
    if (code >= 0xE0) {  // the pre-interned path, on the profile or the recorder
      const bool on_profile = in.Byte() % 2 == 0;
      const IdCalls& calls = on_profile ? profile_calls : recorder_calls;
      DictModel& dict = on_profile ? profile_dict : recorder_dict;
      Model& m = on_profile ? profile_model : recorder_model;
      switch (code % 8) {
        case 0: case 4: InternStack(calls, ReadFrames(in), &dict); break;
        case 1: AddById(calls, in, types, false, false, &dict, &m); break;
        case 5: AddById(calls, in, types, false, true, &dict, &m); break;
        case 2: AddById(calls, in, types, true, false, &dict, &m); break;
        case 3: Forget(calls, &dict); break;
        case 6: Track(recorder, in, types, recorder_model, &heap); break;
        default: {  // untrack: OK whether or not the object is tracked
          const uint64_t object = in.Byte() % 8;
          if (stackrec_recorder_untrack(recorder, object) != STACKREC_OK) Fail("untrack failed");
          heap.tracked.erase(object);
          break;
        }
      }
      continue;
    }
    const uint8_t op = code % 7;
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
        CheckOutput(e, heap.WithLiveObjects(recorder_model), effective);
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
