// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Budgets: a serialization split into parts. Random profiles under random
// budgets, in both formats and every compression: every part decodes with
// the generated classes, keeps the specification's rules, and is within
// every limit set; the parts together hold exactly the samples of the
// unsplit output, recorded by string or by id, or, when samples had to be
// folded, its totals exactly with the heaviest samples kept. And what a
// budget no part can meet gets.
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "catch2/catch.hpp"
#include "oracle/otlp_decode.h"
#include "support/canonical.h"
#include "support/id_program.h"
#include "support/target.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

struct Limits {
  size_t bytes = 0, uncompressed = 0, samples = 0, parts = 0;
};

stackrec_serialize_options BudgetOptions(stackrec_compression c, stackrec_format f,
                                         const Limits& l) {
  stackrec_serialize_options o = SerializeOptions(c, 0, f);
  o.part_max_bytes = l.bytes;
  o.part_max_uncompressed_bytes = l.uncompressed;
  o.part_max_samples = l.samples;
  o.max_parts = l.parts;
  return o;
}

struct Output {
  std::vector<Profile> parts;  // OTLP in pprof's model
  stackrec_encode_stats stats{};
};

// Decodes every part of `e` and checks each against the limits.
Output DecodeParts(const stackrec_encoded* e, stackrec_format f, const Limits& l) {
  Output out;
  REQUIRE(stackrec_encoded_stats(e, &out.stats) == STACKREC_OK);
  const size_t n = stackrec_encoded_parts_len(e);
  REQUIRE(n == out.stats.parts);
  REQUIRE(n >= 1);
  if (l.parts != 0) REQUIRE(n <= l.parts);
  uint64_t samples = 0, uncompressed = 0, bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    stackrec_part part{};
    REQUIRE(stackrec_encoded_part(e, i, &part) == STACKREC_OK);
    if (i == 0) {
      REQUIRE(part.data == stackrec_encoded_data(e));
      REQUIRE(part.size == stackrec_encoded_size(e));
    }
    const std::string bytes_of(reinterpret_cast<const char*>(part.data), part.size);
    if (l.bytes != 0) REQUIRE(part.size <= l.bytes);
    if (l.uncompressed != 0) REQUIRE(part.uncompressed_bytes <= l.uncompressed);
    if (l.samples != 0) REQUIRE(part.samples_written <= l.samples);
    REQUIRE(Decompress(bytes_of).size() == part.uncompressed_bytes);
    if (f == STACKREC_FORMAT_OTLP) {
      const OtlpRequest r = DecodeOtlp(bytes_of);
      CheckOtlpInvariants(r);
      // samples_written counts the Samples of each sample type: its
      // Profile of untimed samples and its Profile of timestamped ones.
      std::map<std::pair<int32_t, int32_t>, uint64_t> per_type;
      for (const auto& rp : r.resource_profiles()) {
        for (const auto& sp : rp.scope_profiles()) {
          for (const auto& prof : sp.profiles()) {
            per_type[{prof.sample_type().type_strindex(), prof.sample_type().unit_strindex()}] +=
                static_cast<uint64_t>(prof.samples_size());
          }
        }
      }
      for (const auto& [type, samples_of_type] : per_type) {
        REQUIRE(samples_of_type == part.samples_written);
      }
      out.parts.push_back(OtlpToPprof(r));
    } else {
      Profile p = Decode(bytes_of);
      CheckInvariants(p);
      REQUIRE(static_cast<uint64_t>(p.sample_size()) == part.samples_written);
      out.parts.push_back(std::move(p));
    }
    samples += part.samples_written;
    uncompressed += part.uncompressed_bytes;
    bytes += part.size;
  }
  stackrec_part past{};
  REQUIRE(stackrec_encoded_part(e, n, &past) == STACKREC_INVALID_ARGUMENT);
  REQUIRE(samples == out.stats.samples_written);
  REQUIRE(uncompressed == out.stats.uncompressed_bytes);
  REQUIRE(bytes == out.stats.compressed_bytes);
  return out;
}

// One line per sample with everything it says: values, labels, and each
// frame's address, mapping and lines with their functions in full. (As
// Canonical's sample lines, with lookups made once per profile.)
Strings SampleLines(const Profile& p) {
  std::unordered_map<uint64_t, std::string> functions, mappings, locations;
  for (const auto& f : p.function()) {
    functions[f.id()] = Str(p, f.name()) + "/" + Str(p, f.system_name()) + "/" +
                        Str(p, f.filename()) + "/" + std::to_string(f.start_line());
  }
  for (const auto& m : p.mapping()) {
    mappings[m.id()] = std::to_string(m.memory_start()) + "-" + std::to_string(m.memory_limit()) +
                       "@" + std::to_string(m.file_offset()) + " " + Str(p, m.filename()) + " " +
                       Str(p, m.build_id());
  }
  for (const auto& l : p.location()) {
    std::string text = std::to_string(l.address()) + " [" + mappings[l.mapping_id()] + "]";
    for (const auto& line : l.line()) {
      REQUIRE(functions.count(line.function_id()) == 1);
      text += " " + functions[line.function_id()] + ":" + std::to_string(line.line());
    }
    locations[l.id()] = text;
  }
  Strings lines;
  for (const Sample& s : p.sample()) {
    std::string text = "values";
    for (int64_t v : s.value()) text += " " + std::to_string(v);
    text += " | labels";
    for (const std::string& l : LabelStrings(p, s)) text += " " + l;
    text += " | frames";
    for (uint64_t id : s.location_id()) {
      REQUIRE(locations.count(id) == 1);
      text += " {" + locations[id] + "}";
    }
    lines.push_back(text);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

Strings UnionOf(const std::vector<Profile>& parts) {
  Strings all;
  for (const Profile& p : parts) {
    const Strings lines = SampleLines(p);
    all.insert(all.end(), lines.begin(), lines.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<int64_t> Totals(const std::vector<Profile>& parts) {
  std::vector<int64_t> totals;
  for (const Profile& p : parts) {
    for (const Sample& s : p.sample()) {
      totals.resize(std::max(totals.size(), static_cast<size_t>(s.value_size())), 0);
      for (int i = 0; i < s.value_size(); ++i) totals[i] += s.value(i);
    }
  }
  return totals;
}

bool IsFolded(const Profile& p, const Sample& s) {
  const std::vector<std::string> frames = FrameNames(p, s);
  return frames.size() == 1 && frames[0] == "[stackrec: output limit]";
}

// Every part has the unsplit output's header (types, period) and start,
// and all end together.
void CheckHeaders(const std::vector<Profile>& parts, const Profile& whole) {
  auto header = [](const Profile& p) {
    std::string text;
    for (const std::string& t : SampleTypes(p)) text += t + " ";
    return text + Str(p, p.period_type().type()) + "/" + Str(p, p.period_type().unit()) + " " +
           std::to_string(p.period()) + " " + Str(p, p.default_sample_type());
  };
  for (const Profile& p : parts) {
    REQUIRE(header(p) == header(whole));
    REQUIRE(p.time_nanos() == whole.time_nanos());
    REQUIRE(p.duration_nanos() == parts[0].duration_nanos());
  }
}

// Checks the split output of `p` under `l` against its unsplit output in
// the same format and compression.
void CheckSplit(stackrec_profile* p, stackrec_compression c, stackrec_format f, const Limits& l) {
  INFO("compression " << c << " format " << f << " limits bytes " << l.bytes << " uncompressed "
                      << l.uncompressed << " samples " << l.samples << " parts " << l.parts);
  const stackrec_serialize_options whole_opts = SerializeOptions(c, 0, f);
  stackrec_encoded* whole_e = nullptr;
  REQUIRE(stackrec_profile_serialize(p, &whole_opts, &whole_e) == STACKREC_OK);
  const Output whole = DecodeParts(whole_e, f, Limits{});
  REQUIRE(whole.parts.size() == 1);
  const size_t endpoint_counts = stackrec_encoded_endpoint_counts_len(whole_e);
  stackrec_encoded_free(whole_e);

  const stackrec_serialize_options opts = BudgetOptions(c, f, l);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_profile_serialize(p, &opts, &e) == STACKREC_OK);
  const Output split = DecodeParts(e, f, l);
  // Endpoint counts are the serialization's, not a part's: once.
  REQUIRE(stackrec_encoded_endpoint_counts_len(e) == endpoint_counts);
  stackrec_encoded_free(e);
  CheckHeaders(split.parts, whole.parts[0]);
  REQUIRE(Totals(split.parts) == Totals(whole.parts));
  if (split.stats.samples_left_out == 0) {
    REQUIRE(split.stats.folded_because == STACKREC_FOLD_NONE);
    REQUIRE(UnionOf(split.parts) == UnionOf(whole.parts));
    return;
  }
  // Folded: the samples kept are samples of the whole, heavier than any
  // folded, and one pseudo-sample holds the rest.
  REQUIRE(split.stats.folded_because != STACKREC_FOLD_NONE);
  REQUIRE(split.stats.folded_because != STACKREC_FOLD_OUTPUT_LIMIT);
  const Strings whole_lines = UnionOf(whole.parts);
  size_t pseudo = 0;
  Strings kept;
  for (const Profile& part : split.parts) {
    for (const Sample& s : part.sample()) pseudo += IsFolded(part, s) ? 1 : 0;
  }
  REQUIRE(pseudo == 1);
  for (const std::string& line : UnionOf(split.parts)) {
    if (line.find("[stackrec: output limit]") == std::string::npos) kept.push_back(line);
  }
  REQUIRE(std::includes(whole_lines.begin(), whole_lines.end(), kept.begin(), kept.end()));
  const uint64_t whole_samples = static_cast<uint64_t>(whole.parts[0].sample_size());
  if (f == STACKREC_FORMAT_PPROF) {
    REQUIRE(kept.size() + split.stats.samples_left_out == whole_samples);
  }
}

// A random profile: `n` samples over deep stacks with long names, labels,
// a tenth timestamped, some endpoints.
ProfilePtr RandomProfile(std::mt19937_64& rng, int n) {
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
  auto p = NewProfile();
  for (int i = 0; i < n; ++i) {
    SampleBuilder b;
    const int depth = 1 + pick(30);
    const int root = pick(6);
    for (int d = 0; d < depth; ++d) {
      const int fn = d < depth / 2 ? root * 50 + d : pick(400);
      b.Frame(
          "Namespace" + std::to_string(fn % 9) + "::Module::function_number_" + std::to_string(fn),
          "/srv/app/lib/file" + std::to_string(fn % 23) + ".rb", 1 + fn % 300);
    }
    const int64_t first = pick(8) == 0 ? -pick(5000) : pick(100000);
    b.Values({first, 1, pick(1000)});
    if (pick(3) != 0) b.NumLabel("thread id", pick(8));
    if (pick(4) == 0) b.Label("thread name", "worker " + std::to_string(pick(5)));
    if (pick(3) == 0) b.NumLabel("local root span id", 1 + pick(40));
    if (pick(10) == 0) b.Timestamp(1700000000000000000 + i);
    Add(p.get(), b);
    if (pick(200) == 0) {
      REQUIRE(stackrec_profile_set_endpoint(p.get(), static_cast<uint64_t>(1 + pick(40)),
                                            S("GET /r" + std::to_string(pick(5)))) == STACKREC_OK);
    }
  }
  return p;
}

}  // namespace

TEST_CASE("random profiles under random budgets split into parts that add up exactly") {
  std::mt19937_64 rng(20261206);
  auto pick = [&](size_t k) { return static_cast<size_t>(rng() % k); };
  for (int round = 0; round < 6; ++round) {
    ProfilePtr p = RandomProfile(rng, 300 + static_cast<int>(pick(1500)));
    for (stackrec_format f : {STACKREC_FORMAT_PPROF, STACKREC_FORMAT_OTLP}) {
      for (stackrec_compression c :
           {STACKREC_COMPRESSION_GZIP, STACKREC_COMPRESSION_ZSTD, STACKREC_COMPRESSION_NONE}) {
        stackrec_encoded* e = nullptr;
        const stackrec_serialize_options o = SerializeOptions(c, 0, f);
        REQUIRE(stackrec_profile_serialize(p.get(), &o, &e) == STACKREC_OK);
        stackrec_encode_stats whole{};
        REQUIRE(stackrec_encoded_stats(e, &whole) == STACKREC_OK);
        stackrec_encoded_free(e);
        // Budgets from a tenth to twice a sixth of the whole, one limit or
        // several at once; a part count that may or may not be enough.
        Limits l;
        const size_t which = 1 + pick(15);
        if (which & 1) l.bytes = 1500 + pick(whole.compressed_bytes / 3 + 1);
        if (which & 2) l.uncompressed = 6000 + pick(whole.uncompressed_bytes / 3 + 1);
        if (which & 4) l.samples = 40 + pick(whole.samples_written / 2 + 1);
        if (which & 8) l.parts = 1 + pick(8);
        CheckSplit(p.get(), c, f, l);
      }
    }
  }
}

TEST_CASE("a budget larger than the profile gives one part, byte for byte the unsplit output") {
  std::mt19937_64 rng(7);
  ProfilePtr p = RandomProfile(rng, 300);
  for (stackrec_format f : {STACKREC_FORMAT_PPROF, STACKREC_FORMAT_OTLP}) {
    const stackrec_serialize_options plain = SerializeOptions(STACKREC_COMPRESSION_ZSTD, 0, f);
    Limits l;
    l.bytes = 100 << 20;
    l.uncompressed = 100 << 20;
    l.samples = 1 << 20;
    l.parts = 3;
    const stackrec_serialize_options budget = BudgetOptions(STACKREC_COMPRESSION_ZSTD, f, l);
    stackrec_encoded *a = nullptr, *b = nullptr;
    REQUIRE(stackrec_profile_serialize(p.get(), &plain, &a) == STACKREC_OK);
    REQUIRE(stackrec_profile_serialize(p.get(), &budget, &b) == STACKREC_OK);
    REQUIRE(stackrec_encoded_parts_len(b) == 1);
    // The two differ only in the time they end, which is in both.
    const Output oa = DecodeParts(a, f, Limits{}), ob = DecodeParts(b, f, l);
    REQUIRE(SampleLines(oa.parts[0]) == SampleLines(ob.parts[0]));
    REQUIRE(Canonical(oa.parts[0]) == Canonical(ob.parts[0]));
    stackrec_encoded_free(a);
    stackrec_encoded_free(b);
  }
}

TEST_CASE("the same profile and budget always give the same parts") {
  std::mt19937_64 rng(11);
  ProfilePtr p = RandomProfile(rng, 1500);
  Limits l;
  l.uncompressed = 20000;
  const stackrec_serialize_options o =
      BudgetOptions(STACKREC_COMPRESSION_NONE, STACKREC_FORMAT_PPROF, l);
  std::vector<std::vector<Strings>> runs;
  for (int run = 0; run < 2; ++run) {
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_profile_serialize(p.get(), &o, &e) == STACKREC_OK);
    const Output out = DecodeParts(e, STACKREC_FORMAT_PPROF, l);
    REQUIRE(out.parts.size() > 3);
    std::vector<Strings> lines;
    for (const Profile& part : out.parts) lines.push_back(SampleLines(part));
    runs.push_back(lines);
    stackrec_encoded_free(e);
  }
  REQUIRE(runs[0] == runs[1]);
}

TEST_CASE("too few parts fold the lightest samples, and a sample too big folds alone") {
  std::mt19937_64 rng(13);
  ProfilePtr p = RandomProfile(rng, 2000);
  for (stackrec_format f : {STACKREC_FORMAT_PPROF, STACKREC_FORMAT_OTLP}) {
    Limits l;
    l.uncompressed = 8000;
    l.parts = 2;
    CheckSplit(p.get(), STACKREC_COMPRESSION_GZIP, f, l);
    stackrec_encoded* e = nullptr;
    const stackrec_serialize_options o = BudgetOptions(STACKREC_COMPRESSION_GZIP, f, l);
    REQUIRE(stackrec_profile_serialize(p.get(), &o, &e) == STACKREC_OK);
    stackrec_encode_stats stats{};
    REQUIRE(stackrec_encoded_stats(e, &stats) == STACKREC_OK);
    REQUIRE(stats.folded_because == STACKREC_FOLD_PARTS_LIMIT);
    REQUIRE(stats.samples_left_out > 0);
    stackrec_encoded_free(e);
  }

  // One sample of 400 frames with long names, among small ones.
  auto q = NewProfile();
  SampleBuilder big;
  for (int d = 0; d < 400; ++d) big.Frame(std::string(200, 'a') + std::to_string(d));
  big.Values({5, 1, 1});
  Add(q.get(), big);
  for (int i = 0; i < 50; ++i) {
    SampleBuilder b;
    b.Frame("small" + std::to_string(i)).Values({100 + i, 1, 1});
    Add(q.get(), b);
  }
  Limits l;
  l.uncompressed = 4000;
  stackrec_encoded* e = nullptr;
  const stackrec_serialize_options o =
      BudgetOptions(STACKREC_COMPRESSION_NONE, STACKREC_FORMAT_PPROF, l);
  REQUIRE(stackrec_profile_serialize(q.get(), &o, &e) == STACKREC_OK);
  stackrec_encode_stats stats{};
  REQUIRE(stackrec_encoded_stats(e, &stats) == STACKREC_OK);
  REQUIRE(stats.folded_because == STACKREC_FOLD_SAMPLE_TOO_BIG);
  REQUIRE(stats.samples_left_out == 1);
  stackrec_encoded_free(e);
  CheckSplit(q.get(), STACKREC_COMPRESSION_NONE, STACKREC_FORMAT_PPROF, l);
}

TEST_CASE("a budget no part can meet is refused, naming the field, and changes nothing") {
  std::mt19937_64 rng(17);
  ProfilePtr p = RandomProfile(rng, 200);
  const std::string before = Snapshot(p.get());
  struct Case {
    Limits limits;
    const char* field;
  };
  Limits bytes, uncompressed;
  bytes.bytes = 20;
  uncompressed.uncompressed = 30;
  for (const Case& c : {Case{bytes, "opts.part_max_bytes"},
                        Case{uncompressed, "opts.part_max_uncompressed_bytes"}}) {
    for (stackrec_format f : {STACKREC_FORMAT_PPROF, STACKREC_FORMAT_OTLP}) {
      const stackrec_serialize_options o = BudgetOptions(STACKREC_COMPRESSION_GZIP, f, c.limits);
      stackrec_encoded* e = nullptr;
      REQUIRE(stackrec_profile_serialize(p.get(), &o, &e) == STACKREC_INVALID_ARGUMENT);
      REQUIRE(e == nullptr);
      REQUIRE_THAT(stackrec_last_error(), Catch::Contains(c.field));
    }
  }
  REQUIRE(Snapshot(p.get()) == before);

  // The recorder refuses before its flip: the samples stay for the next call.
  Options opts;
  RecorderPtr r = NewRecorder(opts.opts);
  stackrec_encoded* e = nullptr;
  SampleBuilder b;
  b.Frame("kept").Values({7, 1, 1});
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  const stackrec_serialize_options tiny =
      BudgetOptions(STACKREC_COMPRESSION_GZIP, STACKREC_FORMAT_PPROF, bytes);
  REQUIRE(stackrec_recorder_serialize(r.get(), &tiny, &e) == STACKREC_INVALID_ARGUMENT);
  REQUIRE_THAT(stackrec_last_error(), Catch::Contains("opts.part_max_bytes"));
  REQUIRE(stackrec_recorder_serialize(r.get(), nullptr, &e) == STACKREC_OK);
  const Profile out = Decode(std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                                         stackrec_encoded_size(e)));
  REQUIRE(out.sample_size() == 1);
  REQUIRE(FrameNames(out, out.sample(0)) == std::vector<std::string>{"kept"});
  stackrec_encoded_free(e);
}

TEST_CASE("absurd part accessors get a status, never a crash") {
  stackrec_part part{};
  REQUIRE(stackrec_encoded_parts_len(nullptr) == 0);
  REQUIRE(stackrec_encoded_part(nullptr, 0, &part) == STACKREC_INVALID_ARGUMENT);
  auto p = NewProfile();
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_profile_serialize(p.get(), nullptr, &e) == STACKREC_OK);
  REQUIRE(stackrec_encoded_parts_len(e) == 1);
  REQUIRE(stackrec_encoded_part(e, 0, nullptr) == STACKREC_INVALID_ARGUMENT);
  REQUIRE(stackrec_encoded_part(e, SIZE_MAX, &part) == STACKREC_INVALID_ARGUMENT);
  REQUIRE_THAT(stackrec_last_error(), Catch::Contains("index"));
  REQUIRE(stackrec_encoded_part(e, 0, &part) == STACKREC_OK);
  REQUIRE(part.size == stackrec_encoded_size(e));
  stackrec_encoded_free(e);
}

TEST_CASE("samples recorded by id split as those recorded by string do") {
  const Program& prog = FullProgram();
  std::vector<Strings> unions;
  for (Via via : {Via::kStrings, Via::kStackId, Via::kLocationIds}) {
    Target t(Kind::kProfile);
    const Ids ids = InternAll(t, prog);
    for (const SampleSpec& s : FullSamples()) Record(t, prog, ids, s, via);
    for (stackrec_format f : {STACKREC_FORMAT_PPROF, STACKREC_FORMAT_OTLP}) {
      Limits l;
      l.samples = 2;
      CheckSplit(t.profile(), STACKREC_COMPRESSION_ZSTD, f, l);
    }
    Limits l;
    l.samples = 2;
    const stackrec_serialize_options o =
        BudgetOptions(STACKREC_COMPRESSION_ZSTD, STACKREC_FORMAT_PPROF, l);
    stackrec_encoded* e = nullptr;
    REQUIRE(stackrec_profile_serialize(t.profile(), &o, &e) == STACKREC_OK);
    const Output out = DecodeParts(e, STACKREC_FORMAT_PPROF, l);
    REQUIRE(out.parts.size() > 1);
    unions.push_back(UnionOf(out.parts));
    stackrec_encoded_free(e);
  }
  REQUIRE(unions[1] == unions[0]);
  REQUIRE(unions[2] == unions[0]);
}
