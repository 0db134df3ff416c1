// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A libFuzzer target that drives the C API with a byte-coded sequence of
// calls and checks, after every call, its status against a reference
// model's verdict and, after every serialize, that the output decodes to
// exactly what the model holds. Any difference aborts, which libFuzzer
// reports as a crash.
//
// Driven, on a profile and a recorder built from one set of options:
//  - new, with every field of stackrec_profile_options chosen from the
//    input: sample types (some disabled, or sample_types_enabled NULL),
//    period_type / period, max_frames (stacks are cut and the model cuts
//    them too), max_memory_bytes, max_output_bytes, default_sample_type,
//    comments, drop_frames / keep_frames, live_heap_types,
//    max_tracked_objects;
//  - add / record with frames (mappings by filename, addresses, inlined
//    runs), labels, values, timestamps and trace links (some with an
//    all-zero id, some beside a label of a link's key, both refused);
//    set_endpoint / record_endpoint;
//    add_endpoint_count, checked against stackrec_encoded_endpoint_count;
//    add_upscaling_rule, proportional and Poisson, by label or not, whose
//    scaled values the model computes; serialize (a recorder's flips) with
//    each compression; reset;
//  - a profile's serialize as OTLP beside its pprof: the request parses,
//    every index in it is in range, each Profile has one shape, and each
//    sample type's values over its Profiles sum to the pprof's (see
//    CheckOtlp);
//  - the pre-interned path: intern_mapping / intern_function /
//    intern_location / intern_stack / intern_labels, add_ids / record_ids
//    by stack id or location ids, labels as they are or by label-set id,
//    stale and never-issued ids, forget_ids;
//  - live-heap track / untrack, and recorder_stats' objects_tracked;
//  - every string and array length the calls read can be replaced by an
//    extreme (0 with NULL, the limit plus one, PTRDIFF_MAX, PTRDIFF_MAX + 1,
//    SIZE_MAX - 7, SIZE_MAX, and for arrays a count whose byte size wraps)
//    with a pointer to a short buffer: over a limit, INVALID_ARGUMENT naming
//    the field and no change. The largest accepted lengths (16 MiB strings,
//    stacks of 2^20 frames) are left to tests/bad_input/c_api_lengths_test.cc: a real
//    buffer of that size costs each execution more than the rest of it.
// Not driven: stackrec_recorder_reset_after_fork (its contract is a fork's
// child), the _sized entry points with a size other than the header's
// (tests/abi_test and the length sweep), and encode stats beyond the sample
// count and byte size.
//
// The model is independent of the library: its own UTF-8 check, its own
// idea of the label, aggregation, truncation and upscaling rules, std::map
// for the aggregate. It does not model the storage cap: max_memory_bytes is
// 0 or far above what an input can fill. A small max_output_bytes is given
// to the profile only, and its output is then checked loosely (see
// CheckOutput).
//
// With STACKREC_FUZZ_STATS set, the calls per entry point and their
// statuses are printed at exit; if its value is a path, the table is also
// rewritten there every 2^16 executions (a long run can be read while it
// goes on).
//
// Build and run (clang): see docs/testing.md, "Fuzzing". Replayed over
// tests/fuzz/corpus by the fuzz_corpus_replay CTest with any compiler.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"
#include "oracle/decompress.h"
#include "profile.pb.h"
#include "stackrec/stackrec.h"

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "api_fuzzer: %s (last error: %s)\n", what, stackrec_last_error());
  std::abort();
}

// ---- Calls per entry point ------------------------------------------------

enum Entry {
  kProfileNew,
  kProfileAdd,
  kProfileSetEndpoint,
  kProfileAddEndpointCount,
  kProfileAddUpscalingRule,
  kProfileSerialize,
  kProfileReset,
  kProfileInternMapping,
  kProfileInternFunction,
  kProfileInternLocation,
  kProfileInternStack,
  kProfileInternLabels,
  kProfileAddIds,
  kProfileForgetIds,
  kRecorderNew,
  kRecorderRecord,
  kRecorderRecordEndpoint,
  kRecorderAddEndpointCount,
  kRecorderAddUpscalingRule,
  kRecorderTrack,
  kRecorderUntrack,
  kRecorderSerialize,
  kRecorderStats,
  kRecorderInternMapping,
  kRecorderInternFunction,
  kRecorderInternLocation,
  kRecorderInternStack,
  kRecorderInternLabels,
  kRecorderRecordIds,
  kRecorderForgetIds,
  kEncodedEndpointCount,
  kEncodedStats,
  kEntries
};
const char* const kEntryNames[kEntries] = {"profile_new",
                                           "profile_add",
                                           "profile_set_endpoint",
                                           "profile_add_endpoint_count",
                                           "profile_add_upscaling_rule",
                                           "profile_serialize",
                                           "profile_reset",
                                           "profile_intern_mapping",
                                           "profile_intern_function",
                                           "profile_intern_location",
                                           "profile_intern_stack",
                                           "profile_intern_labels",
                                           "profile_add_ids",
                                           "profile_forget_ids",
                                           "recorder_new",
                                           "recorder_record",
                                           "recorder_record_endpoint",
                                           "recorder_add_endpoint_count",
                                           "recorder_add_upscaling_rule",
                                           "recorder_track",
                                           "recorder_untrack",
                                           "recorder_serialize",
                                           "recorder_stats",
                                           "recorder_intern_mapping",
                                           "recorder_intern_function",
                                           "recorder_intern_location",
                                           "recorder_intern_stack",
                                           "recorder_intern_labels",
                                           "recorder_record_ids",
                                           "recorder_forget_ids",
                                           "encoded_endpoint_count",
                                           "encoded_stats"};

// [entry][status], statuses past STACKREC_UNSUPPORTED in the last column;
// and how many calls had a length replaced by an extreme.
constexpr int kStatusColumns = 8;
uint64_t g_calls[kEntries][kStatusColumns];
uint64_t g_mutated[kEntries];
uint64_t g_executions;

stackrec_status Counted(Entry e, stackrec_status st) {
  const auto column = static_cast<unsigned>(st);
  ++g_calls[e][column < kStatusColumns - 1 ? column : kStatusColumns - 1];
  return st;
}

void PrintStats(std::FILE* out) {
  std::fprintf(out, "executions %" PRIu64 "\n", g_executions);
  std::fprintf(out, "%-28s %12s %12s %12s %6s %8s %6s %8s %6s %10s\n", "entry point", "calls", "OK",
               "INVALID", "OOM", "LIMIT", "BUSY", "INTERNAL", "UNSUP", "len-mutated");
  uint64_t total = 0;
  for (int e = 0; e < kEntries; ++e) {
    uint64_t calls = 0;
    for (uint64_t n : g_calls[e]) calls += n;
    total += calls;
    std::fprintf(out,
                 "%-28s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %6" PRIu64 " %8" PRIu64
                 " %6" PRIu64 " %8" PRIu64 " %6" PRIu64 " %10" PRIu64 "\n",
                 kEntryNames[e], calls, g_calls[e][0], g_calls[e][1], g_calls[e][2], g_calls[e][3],
                 g_calls[e][4], g_calls[e][5], g_calls[e][6] + g_calls[e][7], g_mutated[e]);
  }
  std::fprintf(out, "%-28s %12" PRIu64 "\n", "all", total);
}

void PrintStatsAtExit() { PrintStats(stderr); }

void MaybeWriteStatsFile() {
  static const char* const path = std::getenv("STACKREC_FUZZ_STATS");
  if (path == nullptr || path[0] != '/' || g_executions % (1u << 16) != 0) return;
  const std::string tmp = std::string(path) + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    PrintStats(f);
    std::fclose(f);
    std::rename(tmp.c_str(), path);
  }
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
    static const char* const kPool[] = {"",
                                        "main",
                                        "f",
                                        "g",
                                        "Foo#bar",
                                        "π",
                                        "a.rb",
                                        "thread id",
                                        "span",
                                        "trace endpoint",
                                        "local root span id",
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
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if ((c >> 5) == 0x6) {
      cp = c & 0x1F;
      len = 2;
    } else if ((c >> 4) == 0xE) {
      cp = c & 0x0F;
      len = 3;
    } else if ((c >> 3) == 0x1E) {
      cp = c & 0x07;
      len = 4;
    } else
      return false;
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

// One frame. Its mapping is all zero but for `map_file` (none when empty).
struct Frame {
  std::string name, file;
  int64_t line = 0;
  bool inlined = false;  // into the next frame: same address and mapping
  uint64_t address = 0;
  std::string map_file;

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
  uint8_t link = 0;  // 0: none, else kLinks[link] (kBadLinks of them refused)
};

// The links a sample may carry: three valid ones, then one with an all-zero
// trace id and one with an all-zero span id, which OpenTelemetry calls
// invalid.
constexpr stackrec_link kLinks[] = {
    {},
    {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {1, 2, 3, 4, 5, 6, 7, 8}},
    {{0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}, {0, 0, 0, 0, 0, 0, 0, 0x2a}},
    {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {9, 9, 9, 9, 9, 9, 9, 9}},
    {{}, {1, 1, 1, 1, 1, 1, 1, 1}},
    {{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {}},
};
constexpr uint8_t kLinkCount = sizeof kLinks / sizeof kLinks[0];
constexpr uint8_t kFirstBadLink = 4;

const stackrec_link* LinkOf(const SampleIn& s) { return s.link == 0 ? nullptr : &kLinks[s.link]; }

// The labels a valid link adds after the caller's: its ids in lowercase
// hex, as pprof has them.
std::vector<LabelIn> LinkLabels(const SampleIn& s) {
  if (s.link == 0) return {};
  auto hex = [](const uint8_t* bytes, size_t n) {
    static const char kDigits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      out += kDigits[bytes[i] >> 4];
      out += kDigits[bytes[i] & 0xf];
    }
    return out;
  };
  const stackrec_link& l = kLinks[s.link];
  LabelIn trace, span;
  trace.key = "trace_id";
  trace.str = hex(l.trace_id, sizeof l.trace_id);
  span.key = "span_id";
  span.str = hex(l.span_id, sizeof l.span_id);
  return {trace, span};
}

// The sample's labels and its link's.
std::vector<LabelIn> KeyLabels(const SampleIn& s) {
  std::vector<LabelIn> all = s.labels;
  for (LabelIn& l : LinkLabels(s)) all.push_back(std::move(l));
  return all;
}

using Key = std::pair<std::vector<std::string>, std::vector<std::string>>;

std::string FrameText(const std::string& name, const std::string& file, int64_t line,
                      uint64_t address, const std::string& map_file) {
  return name + "\x1f" + file + "\x1f" + std::to_string(line) + "\x1f" + std::to_string(address) +
         "\x1f" + map_file;
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

// ---- Options --------------------------------------------------------------

struct TypeIn {
  std::string type, unit;
  bool enabled = true;
};

// stackrec_profile_options as the model sees them.
struct OptionsIn {
  std::vector<TypeIn> types;
  bool enabled_null = false;  // sample_types_enabled NULL: all enabled
  std::string period_type, period_unit;
  int64_t period = 0;
  size_t max_frames = 0, max_memory_bytes = 0, max_output_bytes = 0;
  std::string default_sample_type;
  std::vector<std::string> comments;
  std::string drop_frames, keep_frames;
  std::vector<size_t> live_types;
  size_t max_tracked_objects = 0;

  bool Enabled(size_t i) const { return enabled_null || types[i].enabled; }

  // The header's rules for a profile's options; a recorder's add the
  // live-heap ones. (An empty period type with a unit is refused too:
  // the library does, though the header does not say so.)
  bool Valid(bool recorder) const {
    if (types.empty()) return false;
    bool any = false;
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i].type.empty() || !ValidUtf8(types[i].type) || !ValidUtf8(types[i].unit)) {
        return false;
      }
      any = any || Enabled(i);
    }
    if (!any || period < 0) return false;
    if (period_type.empty() && !period_unit.empty()) return false;
    if (!ValidUtf8(period_type) || !ValidUtf8(period_unit)) return false;
    if (!default_sample_type.empty()) {
      bool found = false;
      for (size_t i = 0; i < types.size(); ++i) {
        found = found || (types[i].type == default_sample_type && Enabled(i));
      }
      if (!found) return false;
    }
    for (const std::string& c : comments) {
      if (!ValidUtf8(c)) return false;
    }
    if (!ValidUtf8(drop_frames) || !ValidUtf8(keep_frames)) return false;
    if (recorder) {
      for (size_t i = 0; i < live_types.size(); ++i) {
        if (live_types[i] >= types.size()) return false;
        for (size_t j = 0; j < i; ++j) {
          if (live_types[j] == live_types[i]) return false;
        }
      }
      if (max_tracked_objects > 0xFFFFFFFEu) return false;
    }
    return true;
  }

  size_t EffectiveMaxFrames() const { return max_frames == 0 ? 512 : max_frames; }
  size_t EffectiveMaxTracked() const {
    return max_tracked_objects == 0 ? size_t{1} << 22 : max_tracked_objects;
  }
};

// ---- Upscaling --------------------------------------------------------------

struct RuleIn {
  int kind = 0;  // the enum's bits, 0 and 1 valid
  std::vector<size_t> offsets;
  std::string key, str;
  int64_t num = 0;
  uint64_t total_sampled = 0, total_real = 0;
  size_t sum_offset = 0, count_offset = 0;
  uint64_t sampling_distance = 0;
};

// A label matches a rule's when the keys are equal and the rule's string
// equals the label's, or, for a rule without one, the label is numeric
// with the rule's number (its unit not compared).
bool RuleMatches(const RuleIn& r, const std::vector<LabelIn>& labels) {
  if (r.key.empty()) return true;
  for (const LabelIn& l : labels) {
    if (l.key != r.key) continue;
    if (!r.str.empty() ? l.str == r.str : l.str.empty() && l.num == r.num) return true;
  }
  return false;
}

// Two rules could match one sample unless they name the same key with
// different values (a sample holds a key at most once).
bool CanMatchOneSample(const RuleIn& a, const RuleIn& b) {
  if (a.key.empty() || b.key.empty() || a.key != b.key) return true;
  return a.str == b.str && a.num == b.num;
}

struct RulesModel {
  std::vector<RuleIn> rules;

  stackrec_status Verdict(const RuleIn& r, const OptionsIn& o) const {
    auto usable = [&](size_t offset) { return offset < o.types.size() && o.Enabled(offset); };
    if (r.kind != 0 && r.kind != 1) return STACKREC_INVALID_ARGUMENT;
    if (r.offsets.empty()) return STACKREC_INVALID_ARGUMENT;
    for (size_t i = 0; i < r.offsets.size(); ++i) {
      if (!usable(r.offsets[i])) return STACKREC_INVALID_ARGUMENT;
      for (size_t j = 0; j < i; ++j) {
        if (r.offsets[j] == r.offsets[i]) return STACKREC_INVALID_ARGUMENT;
      }
    }
    if (r.kind == 0 && r.total_sampled == 0) return STACKREC_INVALID_ARGUMENT;
    if (r.kind == 1 &&
        (!usable(r.sum_offset) || !usable(r.count_offset) || r.sampling_distance == 0)) {
      return STACKREC_INVALID_ARGUMENT;
    }
    if (r.key.empty() && (!r.str.empty() || r.num != 0)) return STACKREC_INVALID_ARGUMENT;
    if (!r.str.empty() && r.num != 0) return STACKREC_INVALID_ARGUMENT;
    if (!ValidUtf8(r.key) || !ValidUtf8(r.str)) return STACKREC_INVALID_ARGUMENT;
    for (const RuleIn& other : rules) {
      if (!CanMatchOneSample(r, other)) continue;
      for (size_t offset : r.offsets) {
        if (std::find(other.offsets.begin(), other.offsets.end(), offset) != other.offsets.end()) {
          return STACKREC_INVALID_ARGUMENT;
        }
      }
    }
    return rules.size() == 64 ? STACKREC_LIMIT_EXCEEDED : STACKREC_OK;
  }

  // round(value * scale), half away from zero, clamped to int64.
  static int64_t Scale(int64_t value, double scale) {
    const long double r = std::roundl(static_cast<long double>(value) * scale);
    if (r >= 9223372036854775808.0L) return INT64_MAX;
    if (r < -9223372036854775808.0L) return INT64_MIN;
    return static_cast<int64_t>(r);
  }

  // The values of one output sample (one per enabled type) as written.
  std::vector<int64_t> Apply(const std::vector<int64_t>& values, const std::vector<LabelIn>& labels,
                             const OptionsIn& o) const {
    if (rules.empty()) return values;
    std::vector<int> stored(o.types.size(), -1);
    int n = 0;
    for (size_t i = 0; i < o.types.size(); ++i) {
      if (o.Enabled(i)) stored[i] = n++;
    }
    std::vector<int64_t> out = values;
    for (const RuleIn& r : rules) {
      if (!RuleMatches(r, labels)) continue;
      double scale;
      if (r.kind == 0) {
        scale = static_cast<double>(r.total_real) / static_cast<double>(r.total_sampled);
      } else {
        const int64_t sum = values[stored[r.sum_offset]];
        const int64_t count = values[stored[r.count_offset]];
        // 1 / (1 - exp(-x)), with 1 - exp(-x) as -expm1(-x), exact for
        // small x, as any careful reading of the header's formula is.
        scale = sum <= 0 || count <= 0
                    ? 1.0
                    : 1.0 / -std::expm1(-(static_cast<double>(sum) / static_cast<double>(count)) /
                                        static_cast<double>(r.sampling_distance));
      }
      for (size_t offset : r.offsets) {
        const int i = stored[offset];
        out[i] = Scale(values[i], scale);
      }
    }
    return out;
  }
};

// ---- The aggregate ------------------------------------------------------------

struct Model {
  std::vector<bool> enabled;
  size_t max_frames = 512;
  std::map<Key, std::vector<int64_t>> aggregated;
  std::vector<std::pair<Key, std::vector<int64_t>>> timed;
  std::vector<std::vector<LabelIn>> timed_labels;  // timed[i]'s labels
  // The labels behind each aggregated key's label texts (for the rules).
  std::map<std::vector<std::string>, std::vector<LabelIn>> labels_of;
  std::map<uint64_t, std::string> endpoints;
  std::map<std::string, int64_t> endpoint_counts;

  void Clear() {
    aggregated.clear();
    timed.clear();
    timed_labels.clear();
    labels_of.clear();
    endpoints.clear();
    endpoint_counts.clear();
  }

  // An inlined frame needs a caller after it at its address and mapping.
  static bool InliningValid(const std::vector<Frame>& frames) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (!frames[i].inlined) continue;
      if (i + 1 == frames.size()) return false;
      if (frames[i + 1].address != frames[i].address ||
          frames[i + 1].map_file != frames[i].map_file) {
        return false;
      }
    }
    return true;
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
      // A number under this key is a timestamp to pprof and an attribute
      // to OTLP: refused, whatever the sample's timestamp.
      if (l.key == "end_timestamp_ns" && l.str.empty()) return false;
    }
    return true;
  }

  // The rules of a frame's numbers (intern_location checks these, but for
  // the mapping and function, which have their ids then): no negative
  // line, and something in it, a mapping, a function or an address.
  static bool FrameFieldsValid(const Frame& f) {
    return f.line >= 0 && (f.has_function() || f.address != 0 || !f.map_file.empty());
  }

  static bool FrameValid(const Frame& f) {
    return ValidUtf8(f.name) && ValidUtf8(f.file) && ValidUtf8(f.map_file) && FrameFieldsValid(f);
  }

  bool Accepts(const SampleIn& s) const {
    if (s.values.size() != enabled.size()) return false;
    if (s.timestamp < 0) return false;
    if (!InliningValid(s.frames)) return false;
    if (!LabelSetValid(s.labels)) return false;
    for (const LabelIn& l : s.labels) {
      if (s.timestamp != 0 && l.key == "end_timestamp_ns") return false;
      // A link is written under these keys.
      if (s.link != 0 && (l.key == "trace_id" || l.key == "span_id")) return false;
    }
    if (s.link >= kFirstBadLink) return false;
    return std::all_of(s.frames.begin(), s.frames.end(), FrameValid);
  }

  // True if the output could not tell `frames` from other frames: an
  // inlined frame without a function, or inlined into one without a
  // function, gives no line, so its location reads like a plainer one. The
  // fuzzer never sends such stacks (valid as they are; see
  // tests/c_api/inline_frames_test.cc), so that the output's lines pin the input.
  static bool Ambiguous(const std::vector<Frame>& frames) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (frames[i].inlined &&
          (!frames[i].has_function() || (i + 1 < frames.size() && !frames[i + 1].has_function()))) {
        return true;
      }
    }
    return false;
  }

  // The stack as kept: at most max_frames leaf-side frames, the last one
  // no longer inlined, then "[N frames truncated]".
  std::vector<Frame> Kept(const std::vector<Frame>& frames) const {
    if (frames.size() <= max_frames) return frames;
    std::vector<Frame> kept(frames.begin(), frames.begin() + static_cast<ptrdiff_t>(max_frames));
    if (!kept.empty()) kept.back().inlined = false;
    Frame cut;
    cut.name = "[" + std::to_string(frames.size() - max_frames) + " frames truncated]";
    kept.push_back(cut);
    return kept;
  }

  // The frames as the output's locations read, line by line: a run of
  // frames inlined into the next is one location with a line per frame,
  // callee first, every line but the location's last marked "^"; a frame
  // with no function is a location without lines, read as one empty frame.
  static std::vector<std::string> FrameTexts(const std::vector<Frame>& frames) {
    std::vector<std::string> texts;
    for (const Frame& f : frames) {
      texts.push_back(!f.has_function()
                          ? FrameText("", "", 0, f.address, f.map_file)
                          : std::string(f.inlined ? "^" : "") +
                                FrameText(f.name, f.file, f.line, f.address, f.map_file));
    }
    return texts;
  }

  void Add(const SampleIn& s) {
    Key key;
    key.first = FrameTexts(Kept(s.frames));
    const std::vector<LabelIn> labels = KeyLabels(s);
    for (const LabelIn& l : labels) key.second.push_back(LabelText(l.key, l.str, l.num, l.unit));
    std::vector<int64_t> values;
    for (size_t i = 0; i < enabled.size(); ++i) {
      if (enabled[i]) values.push_back(s.values[i]);
    }
    // A label set is a set: the same labels in any order are one key,
    // written in the order of whichever sample brought them first. The
    // model keeps the set sorted, and compares the output's sorted too.
    std::sort(key.second.begin(), key.second.end());
    if (s.timestamp != 0) {
      key.second.push_back(LabelText("end_timestamp_ns", "", s.timestamp, ""));
      std::sort(key.second.begin(), key.second.end());
      timed.emplace_back(key, values);
      timed_labels.push_back(labels);
      return;
    }
    labels_of.emplace(key.second, labels);
    auto [it, inserted] = aggregated.emplace(key, values);
    if (!inserted) {
      for (size_t i = 0; i < values.size(); ++i)
        it->second[i] = SaturatingAdd(it->second[i], values[i]);
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
      key.second.push_back(LabelText("trace endpoint", endpoint, 0, ""));
      std::sort(key.second.begin(), key.second.end());
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

// The endpoint counts an encoded profile carries: the model's, in order.
void CheckEndpointCounts(const stackrec_encoded* e, const std::map<std::string, int64_t>& counts) {
  if (stackrec_encoded_endpoint_counts_len(e) != counts.size()) {
    Fail("endpoint counts: their number differs from the model");
  }
  size_t i = 0;
  for (const auto& [name, count] : counts) {
    stackrec_str got{};
    int64_t n = 0;
    if (Counted(kEncodedEndpointCount, stackrec_encoded_endpoint_count(e, i, &got, &n)) !=
        STACKREC_OK) {
      Fail("encoded_endpoint_count failed");
    }
    if (std::string(got.ptr, got.len) != name || n != count) {
      std::fprintf(stderr, "endpoint %zu: got \"%.*s\" = %" PRId64 ", model \"%s\" = %" PRId64 "\n",
                   i, static_cast<int>(got.len), got.ptr, n, name.c_str(), count);
      Fail("endpoint counts differ from the model");
    }
    ++i;
  }
  stackrec_str got{};
  int64_t n = 0;
  if (Counted(kEncodedEndpointCount, stackrec_encoded_endpoint_count(e, i, &got, &n)) !=
      STACKREC_INVALID_ARGUMENT) {
    Fail("encoded_endpoint_count past the end is not INVALID_ARGUMENT");
  }
}

// `loose`: the output may have been cut to max_output_bytes, so its samples
// need only be some of the model's, plus at most one "[stackrec: output
// limit]" pseudo-sample.
// The OTLP request `otlp` of the profile whose pprof is `pprof`, both
// complete (nothing left out by the output limit): it parses, every index
// it holds is in its table's range, entry 0 of each table is the zero
// value, and Profile i's values sum to sample type i's in the pprof.
// What the values are attached to is the equivalence tests' to check
// (tests/c_api/otlp_encoder_test.cc); here the point is any input's bytes.
void CheckOtlp(const stackrec_encoded* otlp, const stackrec_encoded* pprof) {
  namespace collector = opentelemetry::proto::collector::profiles::v1development;
  std::string raw, pprof_raw;
  if (!stackrec_test::DecompressAny(
          std::string(reinterpret_cast<const char*>(stackrec_encoded_data(otlp)),
                      stackrec_encoded_size(otlp)),
          &raw) ||
      !stackrec_test::DecompressAny(
          std::string(reinterpret_cast<const char*>(stackrec_encoded_data(pprof)),
                      stackrec_encoded_size(pprof)),
          &pprof_raw)) {
    Fail("output does not decompress");
  }
  collector::ExportProfilesServiceRequest r;
  perftools::profiles::Profile p;
  if (!r.ParseFromString(raw) || !p.ParseFromString(pprof_raw)) Fail("output does not parse");
  stackrec_encode_stats stats{};
  if (Counted(kEncodedStats, stackrec_encoded_stats(otlp, &stats)) != STACKREC_OK ||
      stats.uncompressed_bytes != raw.size() ||
      stats.compressed_bytes != stackrec_encoded_size(otlp)) {
    Fail("OTLP: encoded_stats disagree with the output");
  }
  if (r.resource_profiles_size() != 1 || r.resource_profiles(0).scope_profiles_size() != 1) {
    Fail("OTLP: not one resource with one scope");
  }
  const auto& d = r.dictionary();
  auto in_range = [](int64_t i, int size) { return i >= 0 && i < size; };
  if (d.string_table_size() == 0 || !d.string_table(0).empty() || d.stack_table_size() == 0 ||
      d.stack_table(0).ByteSizeLong() != 0 || d.location_table_size() == 0 ||
      d.location_table(0).ByteSizeLong() != 0 || d.function_table_size() == 0 ||
      d.function_table(0).ByteSizeLong() != 0 || d.mapping_table_size() == 0 ||
      d.mapping_table(0).ByteSizeLong() != 0 || d.attribute_table_size() == 0 ||
      d.attribute_table(0).ByteSizeLong() != 0) {
    Fail("OTLP: a dictionary table lacks its zero entry 0");
  }
  const int strings = d.string_table_size();
  for (const auto& f : d.function_table()) {
    if (!in_range(f.name_strindex(), strings) || !in_range(f.system_name_strindex(), strings) ||
        !in_range(f.filename_strindex(), strings)) {
      Fail("OTLP: a function's string index is out of range");
    }
  }
  for (const auto& m : d.mapping_table()) {
    if (!in_range(m.filename_strindex(), strings))
      Fail("OTLP: a mapping's filename is out of range");
    for (int32_t a : m.attribute_indices()) {
      if (!in_range(a, d.attribute_table_size())) Fail("OTLP: a mapping attribute is out of range");
    }
  }
  for (const auto& l : d.location_table()) {
    if (!in_range(l.mapping_index(), d.mapping_table_size())) {
      Fail("OTLP: a location's mapping is out of range");
    }
    for (const auto& line : l.lines()) {
      if (!in_range(line.function_index(), d.function_table_size())) {
        Fail("OTLP: a line's function is out of range");
      }
    }
  }
  for (const auto& s : d.stack_table()) {
    for (int32_t i : s.location_indices()) {
      if (!in_range(i, d.location_table_size())) Fail("OTLP: a stack's location is out of range");
    }
  }
  for (const auto& a : d.attribute_table()) {
    if (!in_range(a.key_strindex(), strings) || !in_range(a.unit_strindex(), strings)) {
      Fail("OTLP: an attribute's key or unit is out of range");
    }
  }
  // One Profile per sample type for the untimed samples, then, if any
  // sample has a timestamp, one per type for the timestamped ones: one
  // shape per Profile.
  const auto& profiles = r.resource_profiles(0).scope_profiles(0).profiles();
  const int types = p.sample_type_size();
  if (profiles.size() != types && profiles.size() != 2 * types) {
    Fail("OTLP: not one Profile per sample type and shape");
  }
  std::vector<uint64_t> otlp_sums(static_cast<size_t>(types), 0);
  for (int pi = 0; pi < profiles.size(); ++pi) {
    const auto& prof = profiles[pi];
    const int t = pi % types;
    const bool timed = pi >= types;
    if (!in_range(prof.sample_type().type_strindex(), strings) ||
        !in_range(prof.sample_type().unit_strindex(), strings) ||
        d.string_table(prof.sample_type().type_strindex()) !=
            p.string_table(static_cast<int>(p.sample_type(t).type())) ||
        d.string_table(prof.sample_type().unit_strindex()) !=
            p.string_table(static_cast<int>(p.sample_type(t).unit()))) {
      Fail("OTLP: a Profile's sample type differs from the pprof's");
    }
    // Sums modulo 2^64: both formats write the same int64 values.
    uint64_t& otlp_sum = otlp_sums[static_cast<size_t>(t)];
    if (timed && prof.samples_size() == 0) Fail("OTLP: an empty Profile of timestamped samples");
    for (const auto& s : prof.samples()) {
      if ((s.timestamps_unix_nano_size() != 0) != timed) Fail("OTLP: a Profile of two shapes");
      if (!in_range(s.stack_index(), d.stack_table_size()))
        Fail("OTLP: a sample's stack is out of range");
      for (int32_t a : s.attribute_indices()) {
        if (!in_range(a, d.attribute_table_size()))
          Fail("OTLP: a sample attribute is out of range");
      }
      if (s.timestamps_unix_nano_size() != 0 && s.timestamps_unix_nano_size() != s.values_size()) {
        Fail("OTLP: a sample's timestamps and values differ in count");
      }
      for (int64_t v : s.values()) otlp_sum += static_cast<uint64_t>(v);
    }
  }
  for (int t = 0; t < types; ++t) {
    uint64_t pprof_sum = 0;
    for (const auto& s : p.sample()) pprof_sum += static_cast<uint64_t>(s.value(t));
    if (otlp_sums[static_cast<size_t>(t)] != pprof_sum) {
      Fail("OTLP: a sample type's values do not sum to the pprof's");
    }
  }
}

void CheckOutput(const stackrec_encoded* e, const Model& m,
                 const std::map<uint64_t, std::string>& endpoints, const RulesModel& rules,
                 const OptionsIn& o, bool loose) {
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
  if (stackrec_encoded_start_ns(e) > stackrec_encoded_end_ns(e))
    Fail("the interval ends before it starts");
  stackrec_encode_stats stats{};
  if (Counted(kEncodedStats, stackrec_encoded_stats(e, &stats)) != STACKREC_OK) {
    Fail("encoded_stats failed");
  }
  if (stats.samples_written != static_cast<uint64_t>(p.sample_size()) ||
      stats.compressed_bytes != stackrec_encoded_size(e) ||
      stats.uncompressed_bytes != raw.size()) {
    Fail("encoded_stats disagree with the output");
  }

  // The options, as written.
  std::vector<std::pair<std::string, std::string>> types;
  for (size_t i = 0; i < o.types.size(); ++i) {
    if (o.Enabled(i)) types.emplace_back(o.types[i].type, o.types[i].unit);
  }
  std::vector<std::pair<std::string, std::string>> got_types;
  for (const auto& t : p.sample_type()) got_types.emplace_back(str(t.type()), str(t.unit()));
  if (got_types != types) Fail("sample_type differs from the options");
  if (str(p.period_type().type()) != o.period_type ||
      str(p.period_type().unit()) != o.period_unit || p.period() != o.period) {
    Fail("period_type / period differ from the options");
  }
  if (str(p.default_sample_type()) != o.default_sample_type) Fail("default_sample_type differs");
  if (str(p.drop_frames()) != o.drop_frames || str(p.keep_frames()) != o.keep_frames) {
    Fail("drop_frames / keep_frames differ from the options");
  }
  std::vector<std::string> comments;
  for (int64_t c : p.comment()) comments.push_back(str(c));
  if (comments != o.comments) Fail("comments differ from the options");

  std::map<uint64_t, const perftools::profiles::Location*> locations;
  std::map<uint64_t, const perftools::profiles::Function*> functions;
  std::map<uint64_t, const perftools::profiles::Mapping*> mappings;
  for (const auto& l : p.location()) locations[l.id()] = &l;
  for (const auto& f : p.function()) functions[f.id()] = &f;
  for (const auto& mp : p.mapping()) mappings[mp.id()] = &mp;
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
      std::string map_file;
      if (loc.mapping_id() != 0) {
        auto mp = mappings.find(loc.mapping_id());
        if (mp == mappings.end()) Fail("location refers to an undefined mapping");
        map_file = str(mp->second->filename());
      }
      if (loc.line_size() == 0) {
        key.first.push_back(FrameText("", "", 0, loc.address(), map_file));
        continue;
      }
      for (int k = 0; k < loc.line_size(); ++k) {  // callee first
        const auto& line = loc.line(k);
        auto fn = functions.find(line.function_id());
        if (fn == functions.end()) Fail("location refers to an undefined function");
        key.first.push_back(std::string(k + 1 < loc.line_size() ? "^" : "") +
                            FrameText(str(fn->second->name()), str(fn->second->filename()),
                                      line.line(), loc.address(), map_file));
      }
    }
    for (const auto& l : s.label()) {
      key.second.push_back(LabelText(str(l.key()), str(l.str()), l.num(), str(l.num_unit())));
    }
    std::sort(key.second.begin(), key.second.end());  // a set (see Model::Add)
    got.emplace_back(key, std::vector<int64_t>(s.value().begin(), s.value().end()));
  }
  Samples expected;
  for (const auto& [key, values] : m.aggregated) {
    expected.emplace_back(Model::WithEndpoint(key, endpoints),
                          rules.Apply(values, m.labels_of.at(key.second), o));
  }
  for (size_t i = 0; i < m.timed.size(); ++i) {
    const auto& [key, values] = m.timed[i];
    expected.emplace_back(Model::WithEndpoint(key, endpoints),
                          rules.Apply(values, m.timed_labels[i], o));
  }
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  if (loose) {
    const std::string limit_frame = FrameText("[stackrec: output limit]", "", 0, 0, "");
    Samples kept;
    int pseudo = 0;
    for (auto& sample : got) {
      if (sample.first.first.size() == 1 && sample.first.first[0] == limit_frame &&
          sample.first.second.empty()) {
        ++pseudo;
      } else {
        kept.push_back(sample);
      }
    }
    if (pseudo > 1 || !std::includes(expected.begin(), expected.end(), kept.begin(), kept.end())) {
      DumpSamples("output", got);
      DumpSamples("model", expected);
      Fail("a cut output holds samples the model does not");
    }
    return;
  }
  if (got != expected) {
    DumpSamples("output", got);
    DumpSamples("model", expected);
    Fail("samples differ from the model");
  }
}

// ---- Length extremes -----------------------------------------------------------

// A short, valid buffer behind every length made impossible: a length over
// its limit must be refused before a byte is read. Its 256 bytes end at a
// page mapped unreadable, so that a read past them crashes in any build,
// sanitized or not.
const void* ShortBuffer() {
  static const void* const buffer = [] {
    constexpr size_t kBytes = 256;
    const long page = sysconf(_SC_PAGESIZE);
    void* pages = mmap(nullptr, 2 * static_cast<size_t>(page), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) Fail("mmap failed");
    unsigned char* guard = static_cast<unsigned char*>(pages) + page;
    if (mprotect(guard, static_cast<size_t>(page), PROT_NONE) != 0) Fail("mprotect failed");
    std::memset(guard - kBytes, 'a', kBytes);
    return static_cast<const void*>(guard - kBytes);
  }();
  return buffer;
}

// One length a call reads, and how to set it in the C arguments.
struct LengthField {
  std::string name;  // as the library names it: "sample.labels[0].key", "opts.comments"
  bool is_string;
  size_t limit;
  size_t element_size;
  std::function<void(const void*, size_t)> set;  // the pointer and length in the C struct
  std::function<void()> empty_model;             // what {NULL, 0} means to the model
};

// A replacement asked for by the input, taken by the next call that can
// replace one of its lengths.
struct LengthMutation {
  bool pending = false;
  uint8_t field = 0, extreme = 0;
};

// What the replacement did: nothing, a length emptied to {NULL, 0} (the
// model's input was emptied to match), or a length over its limit.
struct Replaced {
  enum Kind { kNone, kEmptied, kOverLimit } kind = kNone;
  std::string name;
  size_t len = 0;
};

Replaced Replace(LengthMutation* mutation, Entry entry, const std::vector<LengthField>& fields) {
  Replaced r;
  if (!mutation->pending || fields.empty()) return r;
  mutation->pending = false;
  ++g_mutated[entry];
  const LengthField& f = fields[mutation->field % fields.size()];
  const size_t extremes[] = {f.limit + 1,
                             static_cast<size_t>(PTRDIFF_MAX),
                             static_cast<size_t>(PTRDIFF_MAX) + 1,
                             SIZE_MAX - 7,
                             SIZE_MAX,
                             SIZE_MAX / (f.element_size == 0 ? 1 : f.element_size) + 2};
  const size_t choices = f.is_string ? 6 : 7;  // strings: no byte size to wrap
  const size_t pick = mutation->extreme % choices;
  r.name = f.name;
  if (pick == 0) {
    f.set(nullptr, 0);
    f.empty_model();
    r.kind = Replaced::kEmptied;
    return r;
  }
  r.kind = Replaced::kOverLimit;
  r.len = extremes[pick - 1];
  f.set(ShortBuffer(), r.len);
  return r;
}

// A call with a length over its limit: INVALID_ARGUMENT, and when the rest
// of the call was valid, a message naming the field and its length.
void CheckRefusal(const Replaced& r, stackrec_status st, bool rest_valid, const char* call) {
  if (st != STACKREC_INVALID_ARGUMENT) {
    std::fprintf(stderr, "%s with %s length %zu returned %s\n", call, r.name.c_str(), r.len,
                 stackrec_status_name(st));
    Fail("a length over its limit was not refused");
  }
  if (!rest_valid) return;
  const std::string expected = r.name + " " + std::to_string(r.len) + " is over";
  if (std::strstr(stackrec_last_error(), expected.c_str()) == nullptr) {
    std::fprintf(stderr, "%s: expected the message to hold \"%s\"\n", call, expected.c_str());
    Fail("the refusal does not name the length");
  }
}

void AddStringField(std::vector<LengthField>* fields, std::string name, stackrec_str* s,
                    std::string* model) {
  fields->push_back({std::move(name) + ".len", true, STACKREC_MAX_STR_LEN, 1,
                     [s](const void* p, size_t len) {
                       s->ptr = static_cast<const char*>(p);
                       s->len = len;
                     },
                     [model] { model->clear(); }});
}

template <typename T, typename ModelVector>
void AddArrayField(std::vector<LengthField>* fields, std::string name, const T** ptr, size_t* len,
                   size_t limit, ModelVector* model) {
  fields->push_back({std::move(name) + "_len", false, limit, sizeof(T),
                     [ptr, len](const void* p, size_t n) {
                       *ptr = static_cast<const T*>(p);
                       *len = n;
                     },
                     [model] { model->clear(); }});
}

// ---- Building C arguments ------------------------------------------------

struct CSample {
  std::vector<stackrec_location> locations;
  std::vector<stackrec_label> labels;
  stackrec_sample sample{};

  explicit CSample(const SampleIn& in) {
    for (const Frame& f : in.frames) {
      stackrec_location loc{};
      loc.mapping.filename = {f.map_file.data(), f.map_file.size()};
      loc.function.name = {f.name.data(), f.name.size()};
      loc.function.filename = {f.file.data(), f.file.size()};
      loc.address = f.address;
      loc.line = f.line;
      loc.inlined = f.inlined;
      locations.push_back(loc);
    }
    labels = ToCLabels(in.labels);
    sample.locations = locations.data();
    sample.locations_len = locations.size();
    sample.values = in.values.data();
    sample.values_len = in.values.size();
    sample.labels = labels.data();
    sample.labels_len = labels.size();
    sample.timestamp_ns = in.timestamp;
    sample.link = LinkOf(in);
  }

  static std::vector<stackrec_label> ToCLabels(const std::vector<LabelIn>& in) {
    std::vector<stackrec_label> out;
    for (const LabelIn& l : in) {
      stackrec_label c{};
      c.key = {l.key.data(), l.key.size()};
      c.str = {l.str.data(), l.str.size()};
      c.num = l.num;
      c.num_unit = {l.unit.data(), l.unit.size()};
      out.push_back(c);
    }
    return out;
  }

  // The lengths of `in`'s labels as `labels` holds them, named "<array>[i]".
  static void LabelFields(const char* array, std::vector<stackrec_label>* labels,
                          std::vector<LabelIn>* in, std::vector<LengthField>* fields) {
    for (size_t i = 0; i < labels->size(); ++i) {
      const std::string name = std::string(array) + "[" + std::to_string(i) + "]";
      AddStringField(fields, name + ".key", &(*labels)[i].key, &(*in)[i].key);
      AddStringField(fields, name + ".str", &(*labels)[i].str, &(*in)[i].str);
      AddStringField(fields, name + ".num_unit", &(*labels)[i].num_unit, &(*in)[i].unit);
    }
  }

  // Every length the sample's call reads; `in` is what this was built from.
  std::vector<LengthField> Fields(SampleIn* in) {
    std::vector<LengthField> fields;
    AddArrayField(&fields, "sample.locations", &sample.locations, &sample.locations_len,
                  STACKREC_MAX_STACK_LEN, &in->frames);
    AddArrayField(&fields, "sample.values", &sample.values, &sample.values_len,
                  STACKREC_MAX_ARRAY_LEN, &in->values);
    AddArrayField(&fields, "sample.labels", &sample.labels, &sample.labels_len,
                  STACKREC_MAX_ARRAY_LEN, &in->labels);
    static std::string unused;  // the strings the fuzzer leaves empty
    for (size_t i = 0; i < locations.size(); ++i) {
      const std::string name = "sample.locations[" + std::to_string(i) + "]";
      stackrec_location& l = locations[i];
      Frame& f = in->frames[i];
      AddStringField(&fields, name + ".mapping.filename", &l.mapping.filename, &f.map_file);
      AddStringField(&fields, name + ".mapping.build_id", &l.mapping.build_id, &unused);
      AddStringField(&fields, name + ".function.name", &l.function.name, &f.name);
      AddStringField(&fields, name + ".function.system_name", &l.function.system_name, &unused);
      AddStringField(&fields, name + ".function.filename", &l.function.filename, &f.file);
    }
    LabelFields("sample.labels", &labels, &in->labels, &fields);
    return fields;
  }
};

std::vector<Frame> ReadFrames(Input& in) {
  std::vector<Frame> frames;
  std::vector<bool> keep_apart;
  for (size_t depth = in.Byte() % 10; depth > 0; --depth) {
    Frame f;
    f.name = in.Str();
    f.file = in.Str();
    const uint8_t line = in.Byte();
    f.line = line % 8 == 7 ? -1 : line % 4;  // sometimes negative, refused
    f.inlined = line >= 0xF0;
    keep_apart.push_back(line == 0xFF);
    const uint8_t where = in.Byte();
    f.address = where & 3;
    if (where & 4) f.map_file = in.Str();
    frames.push_back(f);
  }
  // Only unambiguous inlining (see Model::Ambiguous); an inlined last frame
  // stays, for the library to refuse. An inlined frame's caller is mostly
  // moved to its address and mapping, so that the run is valid.
  for (size_t i = 0; i < frames.size(); ++i) {
    Frame& f = frames[i];
    f.inlined =
        f.inlined && f.has_function() && (i + 1 == frames.size() || frames[i + 1].has_function());
    if (f.inlined && i + 1 < frames.size() && !keep_apart[i]) {
      frames[i + 1].address = f.address;
      frames[i + 1].map_file = f.map_file;
    }
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
  const uint8_t extra = in.Byte();
  if (extra % 4 == 0) {
    const uint8_t t = in.Byte();
    s.timestamp = t == 0xFF ? -5 : static_cast<int64_t>(t) + 1;  // sometimes negative, refused
  }
  // A link, on timestamped samples too; sometimes an invalid one.
  if (extra >= 0x80 && extra % 4 <= 1) s.link = 1 + in.Byte() % (kLinkCount - 1);
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

// The C calls of one handle, profile or recorder, counted.
struct IdCalls {
  stackrec_profile* profile;
  stackrec_recorder* recorder;
  Entry E(Entry on_profile, Entry on_recorder) const {
    return profile != nullptr ? on_profile : on_recorder;
  }
  stackrec_status Mapping(const stackrec_mapping* m, uint32_t* id) const {
    return Counted(E(kProfileInternMapping, kRecorderInternMapping),
                   profile != nullptr ? stackrec_profile_intern_mapping(profile, m, id)
                                      : stackrec_recorder_intern_mapping(recorder, m, id));
  }
  stackrec_status Function(const stackrec_function* f, uint32_t* id) const {
    return Counted(E(kProfileInternFunction, kRecorderInternFunction),
                   profile != nullptr ? stackrec_profile_intern_function(profile, f, id)
                                      : stackrec_recorder_intern_function(recorder, f, id));
  }
  stackrec_status Location(const stackrec_interned_location* l, uint32_t* id) const {
    return Counted(E(kProfileInternLocation, kRecorderInternLocation),
                   profile != nullptr ? stackrec_profile_intern_location(profile, l, id)
                                      : stackrec_recorder_intern_location(recorder, l, id));
  }
  stackrec_status Stack(const uint32_t* ids, size_t len, uint32_t* id) const {
    return Counted(E(kProfileInternStack, kRecorderInternStack),
                   profile != nullptr ? stackrec_profile_intern_stack(profile, ids, len, id)
                                      : stackrec_recorder_intern_stack(recorder, ids, len, id));
  }
  stackrec_status Labels(const stackrec_label* labels, size_t len, uint32_t* id) const {
    return Counted(E(kProfileInternLabels, kRecorderInternLabels),
                   profile != nullptr ? stackrec_profile_intern_labels(profile, labels, len, id)
                                      : stackrec_recorder_intern_labels(recorder, labels, len, id));
  }
  stackrec_status Add(const stackrec_id_sample* s) const {
    return Counted(E(kProfileAddIds, kRecorderRecordIds),
                   profile != nullptr ? stackrec_profile_add_ids(profile, s)
                                      : stackrec_recorder_record_ids(recorder, s));
  }
  stackrec_status Forget() const {
    return Counted(E(kProfileForgetIds, kRecorderForgetIds),
                   profile != nullptr ? stackrec_profile_forget_ids(profile)
                                      : stackrec_recorder_forget_ids(recorder));
  }
};

// intern_mapping of `filename` and `build_id` (and an address range): all
// zero is refused, as are invalid UTF-8 and an inverted or empty range. The
// id, or 0 if refused.
uint32_t InternMapping(const IdCalls& calls, std::string filename, std::string build_id,
                       uint64_t start, uint64_t limit, LengthMutation* mutation) {
  stackrec_mapping m{};
  m.memory_start = start;
  m.memory_limit = limit;
  const bool range_valid = (start == 0 && limit == 0) || start < limit;
  m.filename = {filename.data(), filename.size()};
  m.build_id = {build_id.data(), build_id.size()};
  const bool rest_valid = ValidUtf8(filename) && ValidUtf8(build_id) && range_valid &&
                          (start != 0 || limit != 0 || !filename.empty() || !build_id.empty());
  std::vector<LengthField> fields;
  if (mutation->pending) {
    AddStringField(&fields, "mapping.filename", &m.filename, &filename);
    AddStringField(&fields, "mapping.build_id", &m.build_id, &build_id);
  }
  const Replaced r =
      Replace(mutation, calls.E(kProfileInternMapping, kRecorderInternMapping), fields);
  uint32_t id = 0;
  const stackrec_status st = calls.Mapping(&m, &id);
  if (r.kind == Replaced::kOverLimit) {
    CheckRefusal(r, st, rest_valid, "intern_mapping");
    return 0;
  }
  const bool valid = ValidUtf8(filename) && ValidUtf8(build_id) && range_valid &&
                     (start != 0 || limit != 0 || !filename.empty() || !build_id.empty());
  if ((st == STACKREC_OK) != valid) Fail("intern_mapping: status disagrees with the model");
  return valid ? id : 0;
}

// Interns `frames` mapping by mapping, function by function, location by
// location, then as a stack, checking each status against the model's
// verdict. A pending length replacement goes to the first function, or
// else the stack.
void InternStack(const IdCalls& calls, std::vector<Frame> frames, DictModel* dict,
                 LengthMutation* mutation) {
  std::vector<uint32_t> ids;
  for (Frame& f : frames) {
    stackrec_interned_location loc{};
    if (!f.map_file.empty()) {
      loc.mapping_id = InternMapping(calls, f.map_file, "", 0, 0, mutation);
      if (loc.mapping_id == 0) return;
    }
    if (f.has_function()) {
      stackrec_function fn{
          {f.name.data(), f.name.size()}, {nullptr, 0}, {f.file.data(), f.file.size()}, 0};
      const bool rest_valid = ValidUtf8(f.name) && ValidUtf8(f.file);
      std::vector<LengthField> fields;
      static std::string unused;
      if (mutation->pending) {
        AddStringField(&fields, "function.name", &fn.name, &f.name);
        AddStringField(&fields, "function.system_name", &fn.system_name, &unused);
        AddStringField(&fields, "function.filename", &fn.filename, &f.file);
      }
      const Replaced r =
          Replace(mutation, calls.E(kProfileInternFunction, kRecorderInternFunction), fields);
      const stackrec_status st = calls.Function(&fn, &loc.function_id);
      if (r.kind == Replaced::kOverLimit) {
        CheckRefusal(r, st, rest_valid, "intern_function");
        return;
      }
      // Emptied to nothing at all, it is "no function": refused.
      const bool valid = ValidUtf8(f.name) && ValidUtf8(f.file) && f.has_function();
      if ((st == STACKREC_OK) != valid) Fail("intern_function: status disagrees with the model");
      if (!valid) return;
    }
    loc.address = f.address;
    loc.line = f.line;
    loc.inlined = f.inlined;
    uint32_t id = 0;
    const bool location_valid = Model::FrameFieldsValid(f);
    if ((calls.Location(&loc, &id) == STACKREC_OK) != location_valid) {
      Fail("intern_location: status disagrees with the model");
    }
    if (!location_valid) return;
    dict->locations.emplace_back(id, f);
    ids.push_back(id);
  }
  const uint32_t* ids_ptr = ids.data();
  size_t ids_len = ids.size();
  std::vector<LengthField> fields;
  if (mutation->pending) {
    AddArrayField(&fields, "location_ids", &ids_ptr, &ids_len, STACKREC_MAX_STACK_LEN, &frames);
  }
  const bool rest_valid = Model::InliningValid(frames);
  const Replaced r = Replace(mutation, calls.E(kProfileInternStack, kRecorderInternStack), fields);
  uint32_t id = 0;
  const stackrec_status st = calls.Stack(ids_ptr, ids_len, &id);
  if (r.kind == Replaced::kOverLimit) {
    CheckRefusal(r, st, rest_valid, "intern_stack");
    return;
  }
  const bool valid = Model::InliningValid(frames);
  if ((st == STACKREC_OK) != valid) Fail("intern_stack: status disagrees with the model");
  if (valid) dict->stacks.emplace_back(id, frames);
}

// Adds a sample by stack id or by location ids, its labels as they are or
// (`by_labels_id`) by a label-set id interned for it: mostly ids the model
// knows, sometimes stale or never-issued ones. A pending length
// replacement goes to intern_labels when there is one, else to the add.
void AddById(const IdCalls& calls, Input& in, size_t types, bool by_locations, bool by_labels_id,
             DictModel* dict_model, Model* model, LengthMutation* mutation) {
  const DictModel& dict = *dict_model;
  SampleIn s;
  bool stack_ids_valid = true, labels_id_valid = true;
  auto pick = [&](const auto& known) -> const auto* {
    const uint8_t b = in.Byte();
    if (b < 0xF0 && !known.empty()) return &known[b % known.size()];
    stack_ids_valid = false;
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
  std::vector<stackrec_label> labels = CSample::ToCLabels(s.labels);
  stackrec_id_sample sample{};
  sample.stack_id = stack_id;
  sample.location_ids = location_ids.data();
  sample.location_ids_len = location_ids.size();
  sample.values = s.values.data();
  sample.values_len = s.values.size();
  sample.labels = labels.data();
  sample.labels_len = labels.size();
  sample.timestamp_ns = s.timestamp;
  sample.link = LinkOf(s);
  if (by_labels_id) {
    sample.labels = nullptr;
    sample.labels_len = 0;
    if (in.Byte() >= 0xF0) {
      sample.labels_id = bad_id();
      labels_id_valid = false;
    } else {
      const stackrec_label* labels_ptr = labels.data();
      size_t labels_len = labels.size();
      std::vector<LengthField> fields;
      if (mutation->pending) {
        AddArrayField(&fields, "labels", &labels_ptr, &labels_len, STACKREC_MAX_ARRAY_LEN,
                      &s.labels);
        CSample::LabelFields("labels", &labels, &s.labels, &fields);
      }
      const bool rest_valid = Model::LabelSetValid(s.labels);
      const Replaced r =
          Replace(mutation, calls.E(kProfileInternLabels, kRecorderInternLabels), fields);
      const stackrec_status st = calls.Labels(labels_ptr, labels_len, &sample.labels_id);
      if (r.kind == Replaced::kOverLimit) {
        CheckRefusal(r, st, rest_valid, "intern_labels");
        return;
      }
      const bool valid = Model::LabelSetValid(s.labels);
      if ((st == STACKREC_OK) != valid) Fail("intern_labels: status disagrees with the model");
      if (!valid) return;
      dict_model->label_sets.push_back(sample.labels_id);
    }
  }
  std::vector<LengthField> fields;
  std::vector<uint32_t> emptied_ids;  // location_ids emptied: the stack then is stack_id's
  if (mutation->pending) {
    AddArrayField(&fields, "sample.location_ids", &sample.location_ids, &sample.location_ids_len,
                  STACKREC_MAX_STACK_LEN, &emptied_ids);
    AddArrayField(&fields, "sample.values", &sample.values, &sample.values_len,
                  STACKREC_MAX_ARRAY_LEN, &s.values);
    if (!by_labels_id) {
      AddArrayField(&fields, "sample.labels", &sample.labels, &sample.labels_len,
                    STACKREC_MAX_ARRAY_LEN, &s.labels);
      CSample::LabelFields("sample.labels", &labels, &s.labels, &fields);
    } else {
      AddArrayField(&fields, "sample.labels", &sample.labels, &sample.labels_len,
                    STACKREC_MAX_ARRAY_LEN, &emptied_ids);
    }
  }
  const bool rest_valid = stack_ids_valid && labels_id_valid && model->Accepts(s);
  const Replaced r = Replace(mutation, calls.E(kProfileAddIds, kRecorderRecordIds), fields);
  const stackrec_status st = calls.Add(&sample);
  if (r.kind == Replaced::kOverLimit) {
    CheckRefusal(r, st, rest_valid, "add_ids");
    return;
  }
  if (r.kind == Replaced::kEmptied && r.name == "sample.location_ids_len" && by_locations) {
    // No location ids and stack id 0: the empty stack, all ids valid.
    s.frames.clear();
    stack_ids_valid = true;
  }
  const bool accepted = stack_ids_valid && labels_id_valid && model->Accepts(s);
  if ((st == STACKREC_OK) != accepted) Fail("add_ids: status disagrees with the model");
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
  size_t max_objects = 0;
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
      one.max_frames = m.max_frames;
      one.Add(s);
      for (const auto& [key, values] : one.aggregated) {
        m.labels_of.emplace(key.second, one.labels_of.at(key.second));
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
           HeapModel* heap, LengthMutation* mutation) {
  const uint64_t object = in.Byte() % 8;
  SampleIn s = ReadSample(in, types);
  if (in.Byte() % 4 != 0 && s.values.size() == types) {
    for (size_t i = 0; i < types; ++i) s.values[i] = heap->IsLive(i) ? in.Byte() : 0;
    s.timestamp = 0;
  }
  if (Model::Ambiguous(s.frames)) return;
  CSample c(s);
  auto verdict = [&] {
    bool valid = !heap->live_types.empty() && model.Accepts(s) && s.timestamp == 0;
    for (size_t i = 0; valid && i < s.values.size(); ++i) {
      if (!heap->IsLive(i)) valid = s.values[i] == 0;
    }
    return valid;
  };
  const bool rest_valid = verdict();
  const Replaced r = Replace(mutation, kRecorderTrack,
                             mutation->pending ? c.Fields(&s) : std::vector<LengthField>{});
  if (r.kind == Replaced::kEmptied && Model::Ambiguous(s.frames)) return;
  const stackrec_status st =
      Counted(kRecorderTrack, stackrec_recorder_track(recorder, object, &c.sample));
  if (r.kind == Replaced::kOverLimit) {
    CheckRefusal(r, st, rest_valid, "track");
    return;
  }
  const bool valid = verdict();
  const bool full = heap->tracked.count(object) == 0 && heap->tracked.size() >= heap->max_objects;
  const stackrec_status expected = !valid ? STACKREC_INVALID_ARGUMENT
                                   : full ? STACKREC_LIMIT_EXCEEDED
                                          : STACKREC_OK;
  if (st != expected) Fail("track: status disagrees with the model");
  if (st != STACKREC_OK) return;  // refused: a tracked object of that id stays
  bool small = true;
  for (size_t i = 0; i < s.values.size(); ++i)
    small = small && s.values[i] >= 0 && s.values[i] < 256;
  if (!small) {
    // Valid, but large values would let the model's sums and the
    // recorder's saturating running sums part: untracked again at once.
    if (Counted(kRecorderUntrack, stackrec_recorder_untrack(recorder, object)) != STACKREC_OK) {
      Fail("untrack failed");
    }
    heap->tracked.erase(object);
    return;
  }
  heap->tracked[object] = s;
}

// ---- Upscaling rules and endpoint counts -------------------------------------

RuleIn ReadRule(Input& in) {
  RuleIn r;
  const uint8_t kind = in.Byte();
  r.kind = kind % 8 < 4 ? 0 : kind % 8 < 7 ? 1 : 2 + kind / 8;  // sometimes no kind at all
  for (size_t n = in.Byte() % 3; n > 0; --n) r.offsets.push_back(in.Byte() % 5);
  const uint8_t label = in.Byte();
  switch (label % 4) {
    case 0:
      break;  // every sample
    case 1:
      r.key = in.Str();
      r.str = in.Str();
      break;
    case 2:
      r.key = in.Str();
      r.num = in.Byte() % 5;
      break;
    default:  // a value without a key, or a string and a number
      r.key = label >= 0x80 ? in.Str() : "";
      r.str = in.Str();
      r.num = 1;
      break;
  }
  r.total_sampled = in.Byte() % 4;
  const uint8_t real = in.Byte();
  r.total_real = real >= 0xF0 ? in.U64() : real;
  r.sum_offset = in.Byte() % 5;
  r.count_offset = in.Byte() % 5;
  const uint8_t distance = in.Byte();
  r.sampling_distance = distance % 8 == 0 ? 0 : distance >= 0xF0 ? in.U64() : distance;
  return r;
}

void AddRule(stackrec_profile* profile, stackrec_recorder* recorder, Input& in, const OptionsIn& o,
             RulesModel* rules, LengthMutation* mutation) {
  RuleIn r = ReadRule(in);
  stackrec_upscaling_rule c{};
  int kind = r.kind;
  std::memcpy(&c.kind, &kind, sizeof(kind));
  c.value_offsets = r.offsets.data();
  c.value_offsets_len = r.offsets.size();
  c.label_key = {r.key.data(), r.key.size()};
  c.label_str = {r.str.data(), r.str.size()};
  c.label_num = r.num;
  c.total_sampled = r.total_sampled;
  c.total_real = r.total_real;
  c.sum_value_offset = r.sum_offset;
  c.count_value_offset = r.count_offset;
  c.sampling_distance = r.sampling_distance;
  const Entry entry = profile != nullptr ? kProfileAddUpscalingRule : kRecorderAddUpscalingRule;
  std::vector<LengthField> fields;
  if (mutation->pending) {
    AddArrayField(&fields, "rule.value_offsets", &c.value_offsets, &c.value_offsets_len,
                  STACKREC_MAX_ARRAY_LEN, &r.offsets);
    AddStringField(&fields, "rule.label_key", &c.label_key, &r.key);
    AddStringField(&fields, "rule.label_str", &c.label_str, &r.str);
  }
  const bool rest_valid = rules->Verdict(r, o) != STACKREC_INVALID_ARGUMENT;
  const Replaced rep = Replace(mutation, entry, fields);
  const stackrec_status st =
      Counted(entry, profile != nullptr ? stackrec_profile_add_upscaling_rule(profile, &c)
                                        : stackrec_recorder_add_upscaling_rule(recorder, &c));
  if (rep.kind == Replaced::kOverLimit) {
    CheckRefusal(rep, st, rest_valid, "add_upscaling_rule");
    return;
  }
  const stackrec_status expected = rules->Verdict(r, o);
  if (st != expected) {
    std::fprintf(stderr, "add_upscaling_rule returned %s, the model expected %s\n",
                 stackrec_status_name(st), stackrec_status_name(expected));
    Fail("add_upscaling_rule: status disagrees with the model");
  }
  if (st == STACKREC_OK) rules->rules.push_back(r);
}

// set_endpoint / record_endpoint, or add_endpoint_count, on one handle.
void Endpoint(stackrec_profile* profile, stackrec_recorder* recorder, bool count, Input& in,
              Model* m, LengthMutation* mutation) {
  const uint64_t span = in.Byte() % 4;
  std::string endpoint = in.Str();
  const uint8_t v = in.Byte();
  const int64_t value = v >= 0xF0 ? static_cast<int64_t>(in.U64()) : static_cast<int64_t>(v) - 8;
  stackrec_str e{endpoint.data(), endpoint.size()};
  const Entry entry =
      count ? (profile != nullptr ? kProfileAddEndpointCount : kRecorderAddEndpointCount)
            : (profile != nullptr ? kProfileSetEndpoint : kRecorderRecordEndpoint);
  auto verdict = [&] { return (count || span != 0) && !endpoint.empty() && ValidUtf8(endpoint); };
  const bool rest_valid = verdict();
  std::vector<LengthField> fields;
  if (mutation->pending) AddStringField(&fields, "endpoint", &e, &endpoint);
  const Replaced r = Replace(mutation, entry, fields);
  stackrec_status st;
  if (count) {
    st = profile != nullptr ? stackrec_profile_add_endpoint_count(profile, e, value)
                            : stackrec_recorder_add_endpoint_count(recorder, e, value);
  } else {
    st = profile != nullptr ? stackrec_profile_set_endpoint(profile, span, e)
                            : stackrec_recorder_record_endpoint(recorder, span, e);
  }
  Counted(entry, st);
  if (r.kind == Replaced::kOverLimit) {
    CheckRefusal(r, st, rest_valid, count ? "add_endpoint_count" : "set_endpoint");
    return;
  }
  const bool accepted = verdict();
  if ((st == STACKREC_OK) != accepted) Fail("endpoint: status disagrees with the model");
  if (!accepted) return;
  if (count) {
    int64_t& n = m->endpoint_counts[endpoint];
    n = SaturatingAdd(n, value);
  } else {
    m->endpoints[span] = endpoint;
  }
}

// ---- Options ------------------------------------------------------------------

OptionsIn ReadOptions(Input& in, uint8_t* flags) {
  OptionsIn o;
  const size_t types = 1 + in.Byte() % 4;
  *flags = in.Byte();
  static const char* const kNames[] = {"cpu-time", "cpu-samples", "wall-time", "alloc-samples"};
  for (size_t i = 0; i < types; ++i)
    o.types.push_back({kNames[i], "count", (*flags >> i & 1) == 0});
  // Bits 7 and 6: live-heap tracking of the last type, and of the first.
  if (*flags & 0x80) o.live_types.push_back(types - 1);
  if ((*flags & 0x40) && types > 1) o.live_types.push_back(0);
  if ((*flags & 0x20) == 0) return o;
  // Bit 5: every other field, from the input.
  const uint8_t more = in.Byte();
  if (more & 1) {
    o.period_type = in.Str();
    o.period_unit = in.Str();
    o.period = static_cast<int8_t>(in.Byte());
  }
  if (more & 2) {
    static const size_t kFrames[] = {0, 1, 2, 3, 5, 8};
    o.max_frames = kFrames[in.Byte() % 6];
  }
  if (more & 4) {
    // The storage cap is not modelled: never reached. A small output cap
    // is checked loosely, on the profile only.
    static const size_t kMemory[] = {0, size_t{1} << 28, SIZE_MAX};
    o.max_memory_bytes = kMemory[in.Byte() % 3];
    const uint8_t out = in.Byte();
    o.max_output_bytes = out % 4 == 0   ? 0
                         : out % 4 == 1 ? SIZE_MAX
                         : out % 4 == 2 ? size_t{1} << 20
                                        : out * 4u;
  }
  if (more & 8) {
    const uint8_t d = in.Byte();
    o.default_sample_type = d % 2 == 0 ? kNames[(d / 2) % 4] : in.Str();
  }
  if (more & 16) {
    for (size_t n = in.Byte() % 4; n > 0; --n) o.comments.push_back(in.Str());
  }
  if (more & 32) {
    o.drop_frames = in.Str();
    o.keep_frames = in.Str();
  }
  if (more & 64) {
    static const size_t kTracked[] = {0, 1, 2, 3, 0xFFFFFFFEu, 0xFFFFFFFFu};
    o.max_tracked_objects = kTracked[in.Byte() % 6];
  }
  if (more & 128) {
    const uint8_t t = in.Byte();
    if (t % 4 == 0) o.enabled_null = true;
    if (t % 4 == 1) o.types[t / 4 % types].type = in.Str();  // perhaps empty or not UTF-8
    if (t % 4 == 2) o.types[t / 4 % types].unit = in.Str();
  }
  return o;
}

// The C options of `o`, and their lengths.
struct COptions {
  std::vector<stackrec_value_type> types;
  std::vector<uint8_t> enabled;
  bool enabled_flags[4];
  std::vector<stackrec_str> comments;
  stackrec_profile_options opts{};

  explicit COptions(const OptionsIn& o) {
    for (size_t i = 0; i < o.types.size(); ++i) {
      types.push_back({{o.types[i].type.data(), o.types[i].type.size()},
                       {o.types[i].unit.data(), o.types[i].unit.size()}});
      enabled_flags[i] = o.types[i].enabled;
    }
    for (const std::string& c : o.comments) comments.push_back({c.data(), c.size()});
    opts.sample_types = types.data();
    opts.sample_types_len = types.size();
    opts.sample_types_enabled = o.enabled_null ? nullptr : enabled_flags;
    opts.period_type = {{o.period_type.data(), o.period_type.size()},
                        {o.period_unit.data(), o.period_unit.size()}};
    opts.period = o.period;
    opts.max_frames = o.max_frames;
    opts.max_memory_bytes = o.max_memory_bytes;
    opts.max_output_bytes = o.max_output_bytes;
    opts.default_sample_type = {o.default_sample_type.data(), o.default_sample_type.size()};
    opts.comments = comments.data();
    opts.comments_len = comments.size();
    opts.drop_frames = {o.drop_frames.data(), o.drop_frames.size()};
    opts.keep_frames = {o.keep_frames.data(), o.keep_frames.size()};
    opts.live_heap_types = o.live_types.data();
    opts.live_heap_types_len = o.live_types.size();
    opts.max_tracked_objects = o.max_tracked_objects;
  }

  std::vector<LengthField> Fields(OptionsIn* o) {
    std::vector<LengthField> fields;
    AddArrayField(&fields, "opts.sample_types", &opts.sample_types, &opts.sample_types_len,
                  STACKREC_MAX_ARRAY_LEN, &o->types);
    for (size_t i = 0; i < types.size(); ++i) {
      const std::string name = "opts.sample_types[" + std::to_string(i) + "]";
      AddStringField(&fields, name + ".type", &types[i].type, &o->types[i].type);
      AddStringField(&fields, name + ".unit", &types[i].unit, &o->types[i].unit);
    }
    AddStringField(&fields, "opts.period_type.type", &opts.period_type.type, &o->period_type);
    AddStringField(&fields, "opts.period_type.unit", &opts.period_type.unit, &o->period_unit);
    AddStringField(&fields, "opts.default_sample_type", &opts.default_sample_type,
                   &o->default_sample_type);
    AddArrayField(&fields, "opts.comments", &opts.comments, &opts.comments_len,
                  STACKREC_MAX_ARRAY_LEN, &o->comments);
    for (size_t i = 0; i < comments.size(); ++i) {
      AddStringField(&fields, "opts.comments[" + std::to_string(i) + "]", &comments[i],
                     &o->comments[i]);
    }
    AddStringField(&fields, "opts.drop_frames", &opts.drop_frames, &o->drop_frames);
    AddStringField(&fields, "opts.keep_frames", &opts.keep_frames, &o->keep_frames);
    AddArrayField(&fields, "opts.live_heap_types", &opts.live_heap_types, &opts.live_heap_types_len,
                  STACKREC_MAX_ARRAY_LEN, &o->live_types);
    return fields;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool stats_at_exit = [] {
    if (std::getenv("STACKREC_FUZZ_STATS") != nullptr) std::atexit(PrintStatsAtExit);
    return true;
  }();
  (void)stats_at_exit;
  ++g_executions;
  MaybeWriteStatsFile();
  Input in(data, size);
  uint8_t flags = 0;
  OptionsIn o = ReadOptions(in, &flags);
  // Bit 4 of the flags: one length of the options replaced.
  LengthMutation mutation;
  if (flags & 0x10) mutation = {true, in.Byte(), in.Byte()};
  COptions c(o);
  const bool rest_valid_profile = o.Valid(false), rest_valid_recorder = o.Valid(true);
  const Replaced r =
      Replace(&mutation, kProfileNew, mutation.pending ? c.Fields(&o) : std::vector<LengthField>{});
  // The output cap, when small, goes to the profile only (see CheckOutput).
  const bool small_output = o.max_output_bytes != 0 && o.max_output_bytes < (size_t{1} << 20);
  stackrec_profile_options recorder_opts = c.opts;
  if (small_output) recorder_opts.max_output_bytes = 0;
  stackrec_profile* profile = nullptr;
  stackrec_recorder* recorder = nullptr;
  const stackrec_status st_new = Counted(kProfileNew, stackrec_profile_new(&c.opts, &profile));
  if (r.kind == Replaced::kOverLimit) CheckRefusal(r, st_new, rest_valid_profile, "profile_new");
  const stackrec_status st_rec =
      Counted(kRecorderNew, stackrec_recorder_new(&recorder_opts, &recorder));
  if (r.kind == Replaced::kOverLimit) {
    CheckRefusal(r, st_rec, rest_valid_recorder, "recorder_new");
    if (profile != nullptr || recorder != nullptr) Fail("new: a refused call set *out");
    return 0;
  }
  const bool profile_valid = o.Valid(false), recorder_valid = o.Valid(true);
  if ((st_new == STACKREC_OK) != profile_valid || (st_rec == STACKREC_OK) != recorder_valid) {
    Fail("new: status disagrees with the model");
  }
  if (!profile_valid || !recorder_valid) {
    stackrec_profile_free(profile);
    stackrec_recorder_free(recorder);
    return 0;
  }
  const size_t types = o.types.size();
  Model profile_model, recorder_model;
  for (size_t i = 0; i < types; ++i) profile_model.enabled.push_back(o.Enabled(i));
  profile_model.max_frames = o.EffectiveMaxFrames();
  recorder_model.enabled = profile_model.enabled;
  recorder_model.max_frames = profile_model.max_frames;
  RulesModel profile_rules, recorder_rules;
  HeapModel heap;
  heap.live_types = o.live_types;
  heap.max_objects = o.EffectiveMaxTracked();
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
        case 0:
        case 4:
          InternStack(calls, ReadFrames(in), &dict, &mutation);
          break;
        case 1:
          AddById(calls, in, types, false, false, &dict, &m, &mutation);
          break;
        case 5:
          AddById(calls, in, types, false, true, &dict, &m, &mutation);
          break;
        case 2:
          AddById(calls, in, types, true, false, &dict, &m, &mutation);
          break;
        case 3:
          Forget(calls, &dict);
          break;
        case 6:
          Track(recorder, in, types, recorder_model, &heap, &mutation);
          break;
        default: {  // untrack: OK whether or not the object is tracked
          const uint64_t object = in.Byte() % 8;
          if (Counted(kRecorderUntrack, stackrec_recorder_untrack(recorder, object)) !=
              STACKREC_OK) {
            Fail("untrack failed");
          }
          heap.tracked.erase(object);
          break;
        }
      }
      continue;
    }
    if (code >= 0xD0) {  // rules, endpoint counts, mappings, stats, length extremes
      const uint8_t sub = code & 15;
      switch (sub) {
        case 0:
          AddRule(profile, nullptr, in, o, &profile_rules, &mutation);
          break;
        case 1:
          AddRule(nullptr, recorder, in, o, &recorder_rules, &mutation);
          break;
        case 2:
          Endpoint(profile, nullptr, true, in, &profile_model, &mutation);
          break;
        case 3:
          Endpoint(nullptr, recorder, true, in, &recorder_model, &mutation);
          break;
        case 4:
        case 5: {
          std::string filename = in.Str(), build_id = in.Str();
          // Ranges none, empty, inverted and valid, from one byte.
          const uint8_t range = in.Byte();
          const uint64_t start = range % 2, limit = (range / 2) % 3;
          InternMapping(sub == 4 ? profile_calls : recorder_calls, filename, build_id, start, limit,
                        &mutation);
          break;
        }
        case 6: {
          stackrec_stats stats{};
          if (Counted(kRecorderStats, stackrec_recorder_stats(recorder, &stats)) != STACKREC_OK) {
            Fail("recorder_stats failed");
          }
          if (stats.objects_tracked != heap.tracked.size()) {
            Fail("recorder_stats: objects_tracked differs from the model");
          }
          break;
        }
        default:  // the next call that can takes a length extreme
          mutation = {true, in.Byte(), in.Byte()};
          break;
      }
      continue;
    }
    const uint8_t op = code % 7;
    if (op == 0 || op == 4) {  // add, or record into the recorder
      SampleIn s = ReadSample(in, types);
      Model& m = op == 0 ? profile_model : recorder_model;
      CSample cs(s);
      const Entry entry = op == 0 ? kProfileAdd : kRecorderRecord;
      const bool rest_valid = m.Accepts(s);
      const Replaced rep =
          Replace(&mutation, entry, mutation.pending ? cs.Fields(&s) : std::vector<LengthField>{});
      if (rep.kind == Replaced::kEmptied && Model::Ambiguous(s.frames)) continue;
      const stackrec_status st =
          Counted(entry, op == 0 ? stackrec_profile_add(profile, &cs.sample)
                                 : stackrec_recorder_record(recorder, &cs.sample));
      if (rep.kind == Replaced::kOverLimit) {
        CheckRefusal(rep, st, rest_valid, "add");
        continue;
      }
      const bool accepted = m.Accepts(s);
      if ((st == STACKREC_OK) != accepted) {
        std::fprintf(stderr, "add returned %s; frames %zu (max %zu), values %zu, labels %zu\n",
                     stackrec_status_name(st), s.frames.size(), m.max_frames, s.values.size(),
                     s.labels.size());
        for (const Frame& f : s.frames) {
          std::fprintf(stderr, "  frame <%s> <%s> line %d addr %d map <%s> inlined %d\n",
                       f.name.c_str(), f.file.c_str(), static_cast<int>(f.line),
                       static_cast<int>(f.address), f.map_file.c_str(), f.inlined);
        }
        Fail("add: status disagrees with the model");
      }
      if (accepted) m.Add(s);
    } else if (op == 1 || op == 5) {  // set an endpoint
      Endpoint(op == 1 ? profile : nullptr, op == 1 ? nullptr : recorder, false, in,
               op == 1 ? &profile_model : &recorder_model, &mutation);
    } else if (op == 2 || op == 6) {  // serialize
      // Mostly uncompressed: creating a compressor's and a decompressor's
      // state costs more than the rest of a typical input, and the codecs
      // have tests of their own.
      const uint8_t choice = in.Byte();
      const uint8_t compression = choice % 8;
      const bool also_otlp = (choice & 8) != 0;
      stackrec_serialize_options so{};
      so.compression = compression == 0   ? STACKREC_COMPRESSION_GZIP
                       : compression == 1 ? STACKREC_COMPRESSION_ZSTD
                                          : STACKREC_COMPRESSION_NONE;
      stackrec_encoded* e = nullptr;
      if (op == 2) {
        const stackrec_status st =
            Counted(kProfileSerialize, stackrec_profile_serialize(profile, &so, &e));
        if (st == STACKREC_LIMIT_EXCEEDED && small_output) continue;
        if (st != STACKREC_OK) Fail("serialize failed");
        if (small_output && stackrec_encoded_size(e) > o.max_output_bytes) {
          Fail("serialize returned more than max_output_bytes");
        }
        CheckOutput(e, profile_model, profile_model.endpoints, profile_rules, o, small_output);
        CheckEndpointCounts(e, profile_model.endpoint_counts);
        if (also_otlp) {
          stackrec_serialize_options otlp_so = so;
          otlp_so.format = STACKREC_FORMAT_OTLP;
          stackrec_encoded* otlp = nullptr;
          const stackrec_status otlp_st =
              Counted(kProfileSerialize, stackrec_profile_serialize(profile, &otlp_so, &otlp));
          stackrec_encode_stats pprof_stats{}, otlp_stats{};
          if (otlp_st == STACKREC_LIMIT_EXCEEDED && small_output) {
            // The request's own bytes, not the pprof's, count against the limit.
          } else if (otlp_st != STACKREC_OK) {
            Fail("serialize as OTLP failed");
          } else if (stackrec_encoded_stats(e, &pprof_stats) == STACKREC_OK &&
                     stackrec_encoded_stats(otlp, &otlp_stats) == STACKREC_OK &&
                     pprof_stats.samples_left_out == 0 && otlp_stats.samples_left_out == 0) {
            CheckOtlp(otlp, e);
          }
          stackrec_encoded_free(otlp);
        }
      } else {
        if (Counted(kRecorderSerialize, stackrec_recorder_serialize(recorder, &so, &e)) !=
            STACKREC_OK) {
          Fail("serialize failed");
        }
        std::map<uint64_t, std::string> effective = recorder_previous_endpoints;
        for (const auto& [span, endpoint] : recorder_model.endpoints) effective[span] = endpoint;
        CheckOutput(e, heap.WithLiveObjects(recorder_model), effective, recorder_rules, o, false);
        CheckEndpointCounts(e, recorder_model.endpoint_counts);
        recorder_previous_endpoints = recorder_model.endpoints;
        recorder_model.Clear();
      }
      stackrec_encoded_free(e);
    } else {  // op == 3: reset the profile
      if (Counted(kProfileReset, stackrec_profile_reset(profile)) != STACKREC_OK) {
        Fail("reset failed");
      }
      profile_model.Clear();
    }
  }
  stackrec_profile_free(profile);
  stackrec_recorder_free(recorder);
  return 0;
}
