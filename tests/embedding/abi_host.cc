// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A host of the C ABI, compiled three times: against the header (current),
// against a copy whose growable structs lack their last member (older, an
// earlier 1.x header) and against one whose growable structs have one more
// (newer, a later 1.x header, with the member abi_test_new_field); see
// abi_headers.cmake. All three run against today's library.
//
// `abi_host` makes the same calls in each build and prints what comes out:
// the profiles decoded (without their clock fields) and the stats that do
// not depend on the clock. CTest compares the older and the newer host's
// print with the current one's: the same calls must give the same result
// whatever the header. Every struct sits in front of poison bytes, so a
// library that read or wrote past the host's struct would show it.
//
// `abi_host set-new-field` (newer build only) sets abi_test_new_field in
// each growable struct it passes: every such call must be refused with
// STACKREC_UNSUPPORTED and change nothing, and the stats' new field must
// come back zero.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "profile.pb.h"
#include "stackrec/stackrec.h"

namespace {

int failures = 0;

void Expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "abi_host: %s (last error: %s)\n", what, stackrec_last_error());
    ++failures;
  }
}

void Ok(stackrec_status st, const char* call) { Expect(st == STACKREC_OK, call); }

constexpr unsigned char kPoison = 0xA5;

// A T zero-initialised, followed by poison that the library must neither
// read (it would change what the calls do) nor write.
template <typename T>
struct Poisoned {
  T value;
  unsigned char poison[64];
  Poisoned() {
    std::memset(static_cast<void*>(this), kPoison, sizeof(*this));
    std::memset(static_cast<void*>(&value), 0, sizeof(value));
  }
  bool Intact() const {
    for (unsigned char b : poison) {
      if (b != kPoison) return false;
    }
    return true;
  }
};

stackrec_str Str(const char* s) { return {s, std::strlen(s)}; }

const stackrec_value_type kTypes[] = {{{"cpu-time", 8}, {"nanoseconds", 11}},
                                      {{"alloc-size", 10}, {"bytes", 5}}};
const size_t kLiveTypes[] = {1};
const stackrec_str kComments[] = {{"host: abi", 9}};

Poisoned<stackrec_profile_options> Options() {
  Poisoned<stackrec_profile_options> o;
  o.value.sample_types = kTypes;
  o.value.sample_types_len = 2;
  o.value.period_type = kTypes[0];
  o.value.period = 1000;
  o.value.comments = kComments;
  o.value.comments_len = 1;
  o.value.live_heap_types = kLiveTypes;
  o.value.live_heap_types_len = 1;
  return o;
}

struct Frames {
  stackrec_location locations[2] = {};
  stackrec_label labels[1] = {};
  Frames() {
    locations[0].function.name = Str("leaf");
    locations[0].function.filename = Str("a.c");
    locations[0].line = 3;
    locations[1].function.name = Str("main");
    labels[0].key = Str("thread id");
    labels[0].num = 7;
  }
};

Poisoned<stackrec_sample> Sample(const Frames& f, const int64_t* values) {
  Poisoned<stackrec_sample> s;
  s.value.locations = f.locations;
  s.value.locations_len = 2;
  s.value.values = values;
  s.value.values_len = 2;
  s.value.labels = f.labels;
  s.value.labels_len = 1;
  return s;
}

Poisoned<stackrec_upscaling_rule> Rule() {
  static const size_t offsets[] = {0};
  Poisoned<stackrec_upscaling_rule> r;
  r.value.kind = STACKREC_UPSCALING_PROPORTIONAL;
  r.value.value_offsets = offsets;
  r.value.value_offsets_len = 1;
  r.value.total_sampled = 1;
  r.value.total_real = 3;
  return r;
}

Poisoned<stackrec_serialize_options> Uncompressed() {
  Poisoned<stackrec_serialize_options> o;
  o.value.compression = STACKREC_COMPRESSION_NONE;
  return o;
}

// The encoded profile decoded, without time_nanos and duration_nanos.
std::string Decoded(const stackrec_encoded* e) {
  perftools::profiles::Profile p;
  Expect(p.ParseFromArray(stackrec_encoded_data(e), static_cast<int>(stackrec_encoded_size(e))),
         "the output parses");
  p.clear_time_nanos();
  p.clear_duration_nanos();
  return p.ShortDebugString();
}

void PrintEncodeStats(const stackrec_encoded* e) {
  Poisoned<stackrec_encode_stats> s;
  Ok(stackrec_encoded_stats(e, &s.value), "stackrec_encoded_stats");
  Expect(s.Intact(), "stackrec_encoded_stats wrote past the host's struct");
  // Not the byte counts: the profile's duration, a varint, varies in length.
  std::printf(
      "encode stats: recorded %llu written %llu locations %llu functions %llu "
      "strings %llu\n",
      static_cast<unsigned long long>(s.value.samples_recorded),
      static_cast<unsigned long long>(s.value.samples_written),
      static_cast<unsigned long long>(s.value.locations_written),
      static_cast<unsigned long long>(s.value.functions_written),
      static_cast<unsigned long long>(s.value.strings_written));
}

void RunProfile() {
  Poisoned<stackrec_profile_options> opts = Options();
  stackrec_profile* profile = nullptr;
  Ok(stackrec_profile_new(&opts.value, &profile), "stackrec_profile_new");
  if (profile == nullptr) return;
  Frames frames;
  const int64_t values[] = {100, 4096};
  for (int i = 0; i < 3; ++i) {
    Poisoned<stackrec_sample> s = Sample(frames, values);
    Ok(stackrec_profile_add(profile, &s.value), "stackrec_profile_add");
  }
  Poisoned<stackrec_upscaling_rule> rule = Rule();
  Ok(stackrec_profile_add_upscaling_rule(profile, &rule.value),
     "stackrec_profile_add_upscaling_rule");
  uint32_t function = 0, location = 0, stack = 0;
  stackrec_function fn = {};
  fn.name = Str("by_id");
  Ok(stackrec_profile_intern_function(profile, &fn, &function), "intern_function");
  stackrec_interned_location loc = {};
  loc.function_id = function;
  Ok(stackrec_profile_intern_location(profile, &loc, &location), "intern_location");
  Ok(stackrec_profile_intern_stack(profile, &location, 1, &stack), "intern_stack");
  Poisoned<stackrec_id_sample> ids;
  ids.value.stack_id = stack;
  ids.value.values = values;
  ids.value.values_len = 2;
  Ok(stackrec_profile_add_ids(profile, &ids.value), "stackrec_profile_add_ids");
  Poisoned<stackrec_serialize_options> so = Uncompressed();
  stackrec_encoded* e = nullptr;
  Ok(stackrec_profile_serialize(profile, &so.value, &e), "stackrec_profile_serialize");
  if (e != nullptr) {
    std::printf("profile: %s\n", Decoded(e).c_str());
    PrintEncodeStats(e);
  }
  stackrec_encoded_free(e);
  stackrec_profile_free(profile);
}

void RunRecorder() {
  Poisoned<stackrec_profile_options> opts = Options();
  stackrec_recorder* recorder = nullptr;
  Ok(stackrec_recorder_new(&opts.value, &recorder), "stackrec_recorder_new");
  if (recorder == nullptr) return;
  Frames frames;
  const int64_t values[] = {100, 0};
  const int64_t live[] = {0, 512};
  Poisoned<stackrec_sample> s = Sample(frames, values);
  Ok(stackrec_recorder_record(recorder, &s.value), "stackrec_recorder_record");
  Poisoned<stackrec_sample> object = Sample(frames, live);
  Ok(stackrec_recorder_track(recorder, 0x1000, &object.value), "stackrec_recorder_track");
  Poisoned<stackrec_upscaling_rule> rule = Rule();
  Ok(stackrec_recorder_add_upscaling_rule(recorder, &rule.value),
     "stackrec_recorder_add_upscaling_rule");
  uint32_t function = 0, location = 0;
  stackrec_function fn = {};
  fn.name = Str("by_id");
  Ok(stackrec_recorder_intern_function(recorder, &fn, &function), "intern_function");
  stackrec_interned_location loc = {};
  loc.function_id = function;
  Ok(stackrec_recorder_intern_location(recorder, &loc, &location), "intern_location");
  Poisoned<stackrec_id_sample> ids;
  ids.value.location_ids = &location;
  ids.value.location_ids_len = 1;
  ids.value.values = values;
  ids.value.values_len = 2;
  Ok(stackrec_recorder_record_ids(recorder, &ids.value), "stackrec_recorder_record_ids");
  Poisoned<stackrec_serialize_options> so = Uncompressed();
  stackrec_encoded* e = nullptr;
  Ok(stackrec_recorder_serialize(recorder, &so.value, &e), "stackrec_recorder_serialize");
  if (e != nullptr) std::printf("recorder: %s\n", Decoded(e).c_str());
  stackrec_encoded_free(e);
  Poisoned<stackrec_stats> stats;
  Ok(stackrec_recorder_stats(recorder, &stats.value), "stackrec_recorder_stats");
  Expect(stats.Intact(), "stackrec_recorder_stats wrote past the host's struct");
  std::printf("recorder stats: ok %llu recorded %llu rejected %llu tracked %llu last %llu\n",
              static_cast<unsigned long long>(stats.value.serializations_ok),
              static_cast<unsigned long long>(stats.value.samples_recorded),
              static_cast<unsigned long long>(stats.value.records_rejected),
              static_cast<unsigned long long>(stats.value.objects_tracked),
              static_cast<unsigned long long>(stats.value.last_samples_recorded));
  stackrec_recorder_free(recorder);
}

#ifdef STACKREC_ABI_HOST_NEWER
void Refused(stackrec_status st, const char* call) {
  Expect(st == STACKREC_UNSUPPORTED, call);
  Expect(std::strstr(stackrec_last_error(), "knows the first") != nullptr, call);
}

void SetNewFields() {
  Poisoned<stackrec_profile_options> opts = Options();
  opts.value.abi_test_new_field = 1;
  stackrec_profile* refused = reinterpret_cast<stackrec_profile*>(1);
  Refused(stackrec_profile_new(&opts.value, &refused), "profile_new with a new field");
  Expect(refused == nullptr, "a refused profile_new sets *out to NULL");
  stackrec_recorder* refused_recorder = nullptr;
  Refused(stackrec_recorder_new(&opts.value, &refused_recorder), "recorder_new with a new field");

  opts.value.abi_test_new_field = 0;
  stackrec_profile* profile = nullptr;
  stackrec_recorder* recorder = nullptr;
  Ok(stackrec_profile_new(&opts.value, &profile), "stackrec_profile_new");
  Ok(stackrec_recorder_new(&opts.value, &recorder), "stackrec_recorder_new");
  if (profile == nullptr || recorder == nullptr) return;
  Frames frames;
  const int64_t values[] = {100, 4096};
  Poisoned<stackrec_sample> s = Sample(frames, values);
  s.value.abi_test_new_field = 1;
  Refused(stackrec_profile_add(profile, &s.value), "profile_add with a new field");
  Refused(stackrec_recorder_record(recorder, &s.value), "recorder_record with a new field");
  Refused(stackrec_recorder_track(recorder, 1, &s.value), "recorder_track with a new field");
  Poisoned<stackrec_id_sample> ids;
  ids.value.values = values;
  ids.value.values_len = 2;
  ids.value.abi_test_new_field = 1;
  Refused(stackrec_profile_add_ids(profile, &ids.value), "profile_add_ids with a new field");
  Refused(stackrec_recorder_record_ids(recorder, &ids.value), "record_ids with a new field");
  Poisoned<stackrec_upscaling_rule> rule = Rule();
  rule.value.abi_test_new_field = 1;
  Refused(stackrec_profile_add_upscaling_rule(profile, &rule.value), "profile rule, new field");
  Refused(stackrec_recorder_add_upscaling_rule(recorder, &rule.value), "recorder rule, new field");
  Poisoned<stackrec_serialize_options> so = Uncompressed();
  so.value.abi_test_new_field = 1;
  stackrec_encoded* e = nullptr;
  Refused(stackrec_profile_serialize(profile, &so.value, &e), "profile_serialize, new field");
  Refused(stackrec_recorder_serialize(recorder, &so.value, &e), "recorder_serialize, new field");

  // Nothing refused was recorded: both profiles are empty, and the stats
  // count no serialization.
  so.value.abi_test_new_field = 0;
  Ok(stackrec_profile_serialize(profile, &so.value, &e), "stackrec_profile_serialize");
  if (e != nullptr) {
    perftools::profiles::Profile p;
    Expect(p.ParseFromArray(stackrec_encoded_data(e), static_cast<int>(stackrec_encoded_size(e))),
           "the output parses");
    Expect(p.sample_size() == 0, "a refused add recorded nothing");
    // A field the library does not know comes back as zero.
    Poisoned<stackrec_encode_stats> es;
    es.value.abi_test_new_field = 42;
    Ok(stackrec_encoded_stats(e, &es.value), "stackrec_encoded_stats");
    Expect(es.value.abi_test_new_field == 0, "an unknown encode stat is written as zero");
    Expect(es.Intact(), "stackrec_encoded_stats wrote past the host's struct");
  }
  stackrec_encoded_free(e);
  Poisoned<stackrec_stats> stats;
  stats.value.abi_test_new_field = 42;
  Ok(stackrec_recorder_stats(recorder, &stats.value), "stackrec_recorder_stats");
  Expect(stats.value.abi_test_new_field == 0, "an unknown recorder stat is written as zero");
  Expect(stats.value.samples_recorded == 0 && stats.value.objects_tracked == 0,
         "a refused record or track recorded nothing");
  Expect(stats.Intact(), "stackrec_recorder_stats wrote past the host's struct");
  stackrec_profile_free(profile);
  stackrec_recorder_free(recorder);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "set-new-field") == 0) {
#ifdef STACKREC_ABI_HOST_NEWER
    SetNewFields();
    std::printf("%s\n", failures == 0 ? "every new field refused" : "FAILED");
    return failures == 0 ? 0 : 1;
#else
    std::fprintf(stderr, "abi_host: set-new-field needs the newer header\n");
    return 2;
#endif
  }
  RunProfile();
  RunRecorder();
  return failures == 0 ? 0 : 1;
}
