// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Every string and array length of every call, swept through the lengths
// no object can have. The fields come from the header itself
// (header_fields.h); each call has a driver here that builds a valid call
// and a populated target, and the sweep changes one length at a time:
//  - 0 with a NULL pointer, and the largest accepted length with a buffer
//    that long: never refused for the length;
//  - one more than the largest, PTRDIFF_MAX, PTRDIFF_MAX + 1, SIZE_MAX - 7,
//    SIZE_MAX, and for arrays SIZE_MAX / sizeof(element) + 2 (a byte size
//    that wraps), each with a pointer to a short buffer: refused with
//    INVALID_ARGUMENT, a message naming the field, and the target left
//    exactly as it was.
// Every buffer ends at a page the process may not read, so a read past it
// crashes in every build, Release included.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/header_fields.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

// ---- Where each field is --------------------------------------------------

// offsetof of every struct member a length field is reached through, by
// "struct.member". A field the header gains is found by the parse; if it
// is reached through a member missing here, the sweep says which.
#define STACKREC_MEMBER(S, M) \
  { #S "." #M, offsetof(S, M) }
const std::map<std::string, size_t>& MemberOffsets() {
  static const std::map<std::string, size_t> offsets = {
      STACKREC_MEMBER(stackrec_value_type, type),
      STACKREC_MEMBER(stackrec_value_type, unit),
      STACKREC_MEMBER(stackrec_mapping, filename),
      STACKREC_MEMBER(stackrec_mapping, build_id),
      STACKREC_MEMBER(stackrec_function, name),
      STACKREC_MEMBER(stackrec_function, system_name),
      STACKREC_MEMBER(stackrec_function, filename),
      STACKREC_MEMBER(stackrec_location, mapping),
      STACKREC_MEMBER(stackrec_location, function),
      STACKREC_MEMBER(stackrec_label, key),
      STACKREC_MEMBER(stackrec_label, str),
      STACKREC_MEMBER(stackrec_label, num_unit),
      STACKREC_MEMBER(stackrec_sample, locations),
      STACKREC_MEMBER(stackrec_sample, locations_len),
      STACKREC_MEMBER(stackrec_sample, values),
      STACKREC_MEMBER(stackrec_sample, values_len),
      STACKREC_MEMBER(stackrec_sample, labels),
      STACKREC_MEMBER(stackrec_sample, labels_len),
      STACKREC_MEMBER(stackrec_id_sample, location_ids),
      STACKREC_MEMBER(stackrec_id_sample, location_ids_len),
      STACKREC_MEMBER(stackrec_id_sample, values),
      STACKREC_MEMBER(stackrec_id_sample, values_len),
      STACKREC_MEMBER(stackrec_id_sample, labels),
      STACKREC_MEMBER(stackrec_id_sample, labels_len),
      STACKREC_MEMBER(stackrec_profile_options, sample_types),
      STACKREC_MEMBER(stackrec_profile_options, sample_types_len),
      STACKREC_MEMBER(stackrec_profile_options, period_type),
      STACKREC_MEMBER(stackrec_profile_options, default_sample_type),
      STACKREC_MEMBER(stackrec_profile_options, comments),
      STACKREC_MEMBER(stackrec_profile_options, comments_len),
      STACKREC_MEMBER(stackrec_profile_options, drop_frames),
      STACKREC_MEMBER(stackrec_profile_options, keep_frames),
      STACKREC_MEMBER(stackrec_profile_options, live_heap_types),
      STACKREC_MEMBER(stackrec_profile_options, live_heap_types_len),
      STACKREC_MEMBER(stackrec_upscaling_rule, value_offsets),
      STACKREC_MEMBER(stackrec_upscaling_rule, value_offsets_len),
      STACKREC_MEMBER(stackrec_upscaling_rule, label_key),
      STACKREC_MEMBER(stackrec_upscaling_rule, label_str),
      STACKREC_MEMBER(stackrec_attribute, key),
      STACKREC_MEMBER(stackrec_attribute, value),
      STACKREC_MEMBER(stackrec_serialize_options, service_name),
      STACKREC_MEMBER(stackrec_serialize_options, resource_attributes),
      STACKREC_MEMBER(stackrec_serialize_options, resource_attributes_len),
      STACKREC_MEMBER(stackrec_serialize_options, scope_name),
      STACKREC_MEMBER(stackrec_serialize_options, scope_version),
      STACKREC_MEMBER(stackrec_serialize_options, series_labels),
      STACKREC_MEMBER(stackrec_serialize_options, series_labels_len),
  };
  return offsets;
}
#undef STACKREC_MEMBER

size_t OffsetOf(const std::string& strct, const std::string& member) {
  const auto it = MemberOffsets().find(strct + "." + member);
  INFO("the sweep has no offsetof for " << strct << "." << member << ": add it to MemberOffsets");
  REQUIRE(it != MemberOffsets().end());
  return it->second;
}

size_t ElementSize(const std::string& type) {
  static const std::map<std::string, size_t> sizes = {
      {"stackrec_str", sizeof(stackrec_str)},
      {"stackrec_value_type", sizeof(stackrec_value_type)},
      {"stackrec_location", sizeof(stackrec_location)},
      {"stackrec_label", sizeof(stackrec_label)},
      {"stackrec_attribute", sizeof(stackrec_attribute)},
      {"int64_t", sizeof(int64_t)},
      {"uint32_t", sizeof(uint32_t)},
      {"size_t", sizeof(size_t)},
  };
  const auto it = sizes.find(type);
  INFO("the sweep has no size for array elements of type " << type);
  REQUIRE(it != sizes.end());
  return it->second;
}

// An array passed as two parameters, e.g. (labels, labels_len).
struct ArrayArg {
  const void* ptr;
  size_t len;
};

// The field's storage in one call's arguments: a string, or an array's
// pointer and length.
struct FieldRef {
  stackrec_str* str = nullptr;
  const void** array = nullptr;
  size_t* array_len = nullptr;
};

// ---- Calls and targets ----------------------------------------------------

// The arguments of one call, all in one place so that fields can be found
// by address. Built valid; a case then changes one length.
struct Args {
  std::vector<stackrec_location> locations;
  std::vector<int64_t> values;
  std::vector<stackrec_label> labels;
  stackrec_sample sample{};
  // Every sample of the sweep has a link: its two labels follow the
  // caller's, at the largest label count too.
  stackrec_link link{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
                     {1, 2, 3, 4, 5, 6, 7, 8}};
  std::vector<uint32_t> location_ids;
  stackrec_id_sample id_sample{};
  std::vector<stackrec_value_type> types;
  std::vector<stackrec_str> comments;
  std::vector<size_t> heap_types;
  stackrec_profile_options opts{};
  std::vector<size_t> offsets;
  stackrec_upscaling_rule rule{};
  stackrec_mapping mapping{};
  stackrec_function function{};
  stackrec_str endpoint{};
  std::vector<stackrec_attribute> attributes;
  std::vector<stackrec_str> series_labels;
  stackrec_serialize_options serialize{};
  ArrayArg array{};
  // Parameter name -> where it is.
  std::map<std::string, void*> roots;
};

stackrec_location RichFrame() {
  stackrec_location l{};
  l.mapping.memory_start = 0x1000;
  l.mapping.memory_limit = 0x2000;
  l.mapping.filename = S("/lib/libx.so");
  l.mapping.build_id = S("0123abcd");
  l.function.name = S("work");
  l.function.system_name = S("_Z4workv");
  l.function.filename = S("work.cc");
  l.address = 0x1234;
  l.line = 7;
  return l;
}

std::vector<stackrec_label> TwoLabels() {
  std::vector<stackrec_label> labels(2);
  labels[0].key = S("thread name");
  labels[0].str = S("main");
  labels[1].key = S("allocated");
  labels[1].num = 64;
  labels[1].num_unit = S("bytes");
  return labels;
}

void FillSample(Args* a, std::vector<int64_t> values) {
  stackrec_location root{};
  root.function.name = S("main");
  a->locations = {RichFrame(), root};
  a->values = std::move(values);
  a->labels = TwoLabels();
  a->sample.locations = a->locations.data();
  a->sample.locations_len = a->locations.size();
  a->sample.values = a->values.data();
  a->sample.values_len = a->values.size();
  a->sample.labels = a->labels.data();
  a->sample.labels_len = a->labels.size();
  a->sample.link = &a->link;
  a->roots["sample"] = &a->sample;
}

void FillIdSample(Args* a, uint32_t location_id) {
  a->location_ids = {location_id, location_id};
  a->values = {1, 2, 3};
  a->labels = TwoLabels();
  a->id_sample.location_ids = a->location_ids.data();
  a->id_sample.location_ids_len = a->location_ids.size();
  a->id_sample.values = a->values.data();
  a->id_sample.values_len = a->values.size();
  a->id_sample.labels = a->labels.data();
  a->id_sample.labels_len = a->labels.size();
  a->id_sample.link = &a->link;
  a->roots["sample"] = &a->id_sample;
}

void FillOptions(Args* a) {
  a->types = {{S("cpu-time"), S("nanoseconds")}, {S("alloc-space"), S("bytes")}};
  a->comments = {S("host: web-1"), S("pid: 42")};
  a->heap_types = {1};
  a->opts.sample_types = a->types.data();
  a->opts.sample_types_len = a->types.size();
  a->opts.period_type = {S("cpu"), S("nanoseconds")};
  a->opts.period = 10000000;
  a->opts.default_sample_type = S("cpu-time");
  a->opts.comments = a->comments.data();
  a->opts.comments_len = a->comments.size();
  a->opts.drop_frames = S("^runtime\\.");
  a->opts.keep_frames = S("^runtime\\.main$");
  a->opts.live_heap_types = a->heap_types.data();
  a->opts.live_heap_types_len = a->heap_types.size();
  a->roots["opts"] = &a->opts;
}

void FillRule(Args* a) {
  a->offsets = {0};
  a->rule.kind = STACKREC_UPSCALING_PROPORTIONAL;
  a->rule.value_offsets = a->offsets.data();
  a->rule.value_offsets_len = a->offsets.size();
  a->rule.label_key = S("thread name");
  a->rule.label_str = S("main");
  a->rule.total_sampled = 1;
  a->rule.total_real = 3;
  a->roots["rule"] = &a->rule;
}

// Every field of the options set: pprof for Pyroscope, whose series
// labels need it, and the OTLP fields, which are checked for either format.
void FillSerialize(Args* a) {
  a->attributes = {{S("host.name"), S("web-1")}, {S("deployment.environment"), S("test")}};
  a->series_labels = {S("thread name")};
  a->serialize.compression = STACKREC_COMPRESSION_NONE;
  a->serialize.format = STACKREC_FORMAT_PPROF;
  a->serialize.target = STACKREC_TARGET_PYROSCOPE;
  a->serialize.series_labels = a->series_labels.data();
  a->serialize.series_labels_len = a->series_labels.size();
  a->serialize.service_name = S("checkout");
  a->serialize.resource_attributes = a->attributes.data();
  a->serialize.resource_attributes_len = a->attributes.size();
  a->serialize.scope_name = S("profiler");
  a->serialize.scope_version = S("2.1");
  a->roots["opts"] = &a->serialize;
}

void FillArray(Args* a, const char* name, const void* ptr, size_t len) {
  a->array = ArrayArg{ptr, len};
  a->roots[name] = &a->array;
}

// What a call runs on: nothing (the constructors), a populated profile, a
// populated recorder, or one that tracks objects. Two made alike are equal
// until one of them takes a call.
enum class On { kNothing, kProfile, kRecorder, kHeapRecorder };

struct Target {
  ProfilePtr profile;
  RecorderPtr recorder;
  uint32_t location_id = 0;
};

void Check(stackrec_status st) {
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

Target MakeTarget(On on) {
  Target t;
  if (on == On::kNothing) return t;
  Options o;
  std::vector<stackrec_value_type> heap_types = {{S("heap-live-samples"), S("count")},
                                                 {S("heap-live-size"), S("bytes")}};
  const size_t live[] = {0, 1};
  if (on == On::kHeapRecorder) {
    o.opts.sample_types = heap_types.data();
    o.opts.sample_types_len = heap_types.size();
    o.opts.live_heap_types = live;
    o.opts.live_heap_types_len = 2;
  }
  if (on == On::kProfile) {
    t.profile = NewProfile(o.opts);
  } else {
    t.recorder = NewRecorder(o.opts);
  }
  stackrec_function fn{};
  fn.name = S("interned");
  fn.filename = S("interned.rb");
  uint32_t function_id = 0;
  stackrec_interned_location loc{};
  Args a;
  FillSample(
      &a, on == On::kHeapRecorder ? std::vector<int64_t>{1, 512} : std::vector<int64_t>{5, 1, 7});
  if (t.profile != nullptr) {
    stackrec_profile* p = t.profile.get();
    Check(stackrec_profile_intern_function(p, &fn, &function_id));
    loc.function_id = function_id;
    Check(stackrec_profile_intern_location(p, &loc, &t.location_id));
    Check(stackrec_profile_set_endpoint(p, 11, S("GET /kept")));
    Check(stackrec_profile_add_endpoint_count(p, S("GET /kept"), 2));
    Check(stackrec_profile_add(p, &a.sample));
  } else {
    stackrec_recorder* r = t.recorder.get();
    Check(stackrec_recorder_intern_function(r, &fn, &function_id));
    loc.function_id = function_id;
    Check(stackrec_recorder_intern_location(r, &loc, &t.location_id));
    Check(stackrec_recorder_record_endpoint(r, 11, S("GET /kept")));
    Check(stackrec_recorder_add_endpoint_count(r, S("GET /kept"), 2));
    if (on == On::kHeapRecorder) {
      Check(stackrec_recorder_track(r, 0xabc, &a.sample));
    } else {
      Check(stackrec_recorder_record(r, &a.sample));
    }
  }
  return t;
}

// What a target holds: its profile as decoded (without the clock's two
// fields), its endpoint counts, and the id its dictionary gives next.
std::string Snapshot(Target& t) {
  const stackrec_serialize_options so = SerializeOptions(STACKREC_COMPRESSION_NONE);
  stackrec_encoded* e = nullptr;
  Check(t.profile != nullptr ? stackrec_profile_serialize(t.profile.get(), &so, &e)
                             : stackrec_recorder_serialize(t.recorder.get(), &so, &e));
  EncodedPtr owned(e);
  std::ostringstream out;
  out << WithoutTimes(Decode(std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                                         stackrec_encoded_size(e))))
             .ShortDebugString();
  for (size_t i = 0; i < stackrec_encoded_endpoint_counts_len(e); ++i) {
    stackrec_str name;
    int64_t count;
    Check(stackrec_encoded_endpoint_count(e, i, &name, &count));
    out << " endpoint " << std::string(name.ptr, name.len) << "=" << count;
  }
  stackrec_function probe{};
  probe.name = S("probe");
  uint32_t id = 0;
  Check(t.profile != nullptr ? stackrec_profile_intern_function(t.profile.get(), &probe, &id)
                             : stackrec_recorder_intern_function(t.recorder.get(), &probe, &id));
  out << " next function id " << id;
  return out.str();
}

// One call of the header: its target, its valid arguments, and the call.
struct Driver {
  On on;
  std::function<void(Args*, const Target&)> fill;
  std::function<stackrec_status(Target&, Args&)> call;
};

// By the exported name the header parse finds; a call of a growable
// struct's _sized entry point goes through the header's inline function,
// which passes this header's size.
std::map<std::string, Driver> Drivers() {
  std::map<std::string, Driver> d;
  d["stackrec_profile_new_sized"] = {
      On::kNothing, [](Args* a, const Target&) { FillOptions(a); },
      [](Target&, Args& a) {
        stackrec_profile* out = reinterpret_cast<stackrec_profile*>(1);
        const stackrec_status st = stackrec_profile_new(&a.opts, &out);
        if (st != STACKREC_OK) CHECK(out == nullptr);
        stackrec_profile_free(st == STACKREC_OK ? out : nullptr);
        return st;
      }};
  d["stackrec_recorder_new_sized"] = {
      On::kNothing, [](Args* a, const Target&) { FillOptions(a); },
      [](Target&, Args& a) {
        stackrec_recorder* out = reinterpret_cast<stackrec_recorder*>(1);
        const stackrec_status st = stackrec_recorder_new(&a.opts, &out);
        if (st != STACKREC_OK) CHECK(out == nullptr);
        stackrec_recorder_free(st == STACKREC_OK ? out : nullptr);
        return st;
      }};
  auto sample = [](Args* a, const Target&) { FillSample(a, {1, 2, 3}); };
  d["stackrec_profile_add_sized"] = {On::kProfile, sample, [](Target& t, Args& a) {
                                       return stackrec_profile_add(t.profile.get(), &a.sample);
                                     }};
  d["stackrec_recorder_record_sized"] = {
      On::kRecorder, sample,
      [](Target& t, Args& a) { return stackrec_recorder_record(t.recorder.get(), &a.sample); }};
  d["stackrec_recorder_track_sized"] = {
      On::kHeapRecorder,
      [](Args* a, const Target&) {
        FillSample(a, {1, 256});
      },
      [](Target& t, Args& a) { return stackrec_recorder_track(t.recorder.get(), 77, &a.sample); }};
  auto id_sample = [](Args* a, const Target& t) { FillIdSample(a, t.location_id); };
  d["stackrec_profile_add_ids_sized"] = {
      On::kProfile, id_sample,
      [](Target& t, Args& a) { return stackrec_profile_add_ids(t.profile.get(), &a.id_sample); }};
  d["stackrec_recorder_record_ids_sized"] = {On::kRecorder, id_sample, [](Target& t, Args& a) {
                                               return stackrec_recorder_record_ids(t.recorder.get(),
                                                                                   &a.id_sample);
                                             }};
  auto endpoint = [](Args* a, const Target&) {
    a->endpoint = S("GET /users");
    a->roots["endpoint"] = &a->endpoint;
  };
  d["stackrec_profile_record_endpoint"] = {On::kProfile, endpoint, [](Target& t, Args& a) {
                                             return stackrec_profile_record_endpoint(
                                                 t.profile.get(), 12, a.endpoint);
                                           }};
  d["stackrec_profile_set_endpoint"] = {On::kProfile, endpoint, [](Target& t, Args& a) {
                                          return stackrec_profile_set_endpoint(t.profile.get(), 12,
                                                                               a.endpoint);
                                        }};
  d["stackrec_recorder_record_endpoint"] = {On::kRecorder, endpoint, [](Target& t, Args& a) {
                                              return stackrec_recorder_record_endpoint(
                                                  t.recorder.get(), 12, a.endpoint);
                                            }};
  d["stackrec_profile_add_endpoint_count"] = {On::kProfile, endpoint, [](Target& t, Args& a) {
                                                return stackrec_profile_add_endpoint_count(
                                                    t.profile.get(), a.endpoint, 3);
                                              }};
  d["stackrec_recorder_add_endpoint_count"] = {On::kRecorder, endpoint, [](Target& t, Args& a) {
                                                 return stackrec_recorder_add_endpoint_count(
                                                     t.recorder.get(), a.endpoint, 3);
                                               }};
  auto rule = [](Args* a, const Target&) { FillRule(a); };
  d["stackrec_profile_add_upscaling_rule_sized"] = {On::kProfile, rule, [](Target& t, Args& a) {
                                                      return stackrec_profile_add_upscaling_rule(
                                                          t.profile.get(), &a.rule);
                                                    }};
  d["stackrec_recorder_add_upscaling_rule_sized"] = {On::kRecorder, rule, [](Target& t, Args& a) {
                                                       return stackrec_recorder_add_upscaling_rule(
                                                           t.recorder.get(), &a.rule);
                                                     }};
  auto serialize = [](Args* a, const Target&) { FillSerialize(a); };
  d["stackrec_profile_serialize_sized"] = {On::kProfile, serialize, [](Target& t, Args& a) {
                                             stackrec_encoded* out = nullptr;
                                             const stackrec_status st = stackrec_profile_serialize(
                                                 t.profile.get(), &a.serialize, &out);
                                             if (st != STACKREC_OK) CHECK(out == nullptr);
                                             stackrec_encoded_free(out);
                                             return st;
                                           }};
  d["stackrec_recorder_serialize_sized"] = {On::kRecorder, serialize, [](Target& t, Args& a) {
                                              stackrec_encoded* out = nullptr;
                                              const stackrec_status st =
                                                  stackrec_recorder_serialize(t.recorder.get(),
                                                                              &a.serialize, &out);
                                              if (st != STACKREC_OK) CHECK(out == nullptr);
                                              stackrec_encoded_free(out);
                                              return st;
                                            }};
  auto mapping = [](Args* a, const Target&) {
    a->mapping = RichFrame().mapping;
    a->roots["mapping"] = &a->mapping;
  };
  d["stackrec_profile_intern_mapping"] = {On::kProfile, mapping, [](Target& t, Args& a) {
                                            uint32_t id = 1;
                                            return stackrec_profile_intern_mapping(t.profile.get(),
                                                                                   &a.mapping, &id);
                                          }};
  d["stackrec_recorder_intern_mapping"] = {On::kRecorder, mapping, [](Target& t, Args& a) {
                                             uint32_t id = 1;
                                             return stackrec_recorder_intern_mapping(
                                                 t.recorder.get(), &a.mapping, &id);
                                           }};
  auto function = [](Args* a, const Target&) {
    a->function = RichFrame().function;
    a->roots["function"] = &a->function;
  };
  d["stackrec_profile_intern_function"] = {On::kProfile, function, [](Target& t, Args& a) {
                                             uint32_t id = 1;
                                             return stackrec_profile_intern_function(
                                                 t.profile.get(), &a.function, &id);
                                           }};
  d["stackrec_recorder_intern_function"] = {On::kRecorder, function, [](Target& t, Args& a) {
                                              uint32_t id = 1;
                                              return stackrec_recorder_intern_function(
                                                  t.recorder.get(), &a.function, &id);
                                            }};
  auto stack = [](Args* a, const Target& t) {
    a->location_ids = {t.location_id, t.location_id};
    FillArray(a, "location_ids", a->location_ids.data(), a->location_ids.size());
  };
  d["stackrec_profile_intern_stack"] = {
      On::kProfile, stack, [](Target& t, Args& a) {
        uint32_t id = 1;
        return stackrec_profile_intern_stack(
            t.profile.get(), static_cast<const uint32_t*>(a.array.ptr), a.array.len, &id);
      }};
  d["stackrec_recorder_intern_stack"] = {
      On::kRecorder, stack, [](Target& t, Args& a) {
        uint32_t id = 1;
        return stackrec_recorder_intern_stack(
            t.recorder.get(), static_cast<const uint32_t*>(a.array.ptr), a.array.len, &id);
      }};
  auto labels = [](Args* a, const Target&) {
    a->labels = TwoLabels();
    FillArray(a, "labels", a->labels.data(), a->labels.size());
  };
  d["stackrec_profile_intern_labels"] = {
      On::kProfile, labels, [](Target& t, Args& a) {
        uint32_t id = 1;
        return stackrec_profile_intern_labels(
            t.profile.get(), static_cast<const stackrec_label*>(a.array.ptr), a.array.len, &id);
      }};
  d["stackrec_recorder_intern_labels"] = {
      On::kRecorder, labels, [](Target& t, Args& a) {
        uint32_t id = 1;
        return stackrec_recorder_intern_labels(
            t.recorder.get(), static_cast<const stackrec_label*>(a.array.ptr), a.array.len, &id);
      }};
  return d;
}

// The field's storage in `a`, following `f`'s steps from its parameter.
FieldRef Locate(Args& a, const LengthField& f) {
  INFO("the driver of " << f.path << " has no parameter " << f.parameter);
  REQUIRE(a.roots.count(f.parameter) == 1);
  void* root = a.roots.at(f.parameter);
  FieldRef ref;
  char* at = static_cast<char*>(root);
  if (f.root == LengthField::Root::kString) {
    ref.str = static_cast<stackrec_str*>(root);
    return ref;
  }
  if (f.root == LengthField::Root::kArray) {
    ArrayArg* arg = static_cast<ArrayArg*>(root);
    if (!f.root_element) {
      ref.array = &arg->ptr;
      ref.array_len = &arg->len;
      return ref;
    }
    REQUIRE(arg->len > 0);
    at = static_cast<char*>(const_cast<void*>(arg->ptr));
  }
  for (size_t i = 0; i < f.steps.size(); ++i) {
    const FieldStep& step = f.steps[i];
    char* member = at + OffsetOf(step.strct, step.member);
    const bool last = i + 1 == f.steps.size();
    if (step.element) {
      const void* elements;
      std::memcpy(&elements, member, sizeof(elements));
      size_t len;
      std::memcpy(&len, at + OffsetOf(step.strct, step.member + "_len"), sizeof(len));
      INFO("the driver's " << step.strct << "." << step.member << " is empty");
      REQUIRE(len > 0);
      at = static_cast<char*>(const_cast<void*>(elements));
    } else if (last && f.kind == LengthKind::kArray) {
      ref.array = reinterpret_cast<const void**>(member);
      ref.array_len = reinterpret_cast<size_t*>(at + OffsetOf(step.strct, step.member + "_len"));
      return ref;
    } else {
      at = member;
    }
  }
  ref.str = reinterpret_cast<stackrec_str*>(at);
  return ref;
}

// `size` readable bytes that end where an unreadable page starts.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t size) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    mapped_ = (size + page - 1) / page * page + page;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    base_ = static_cast<char*>(p);
    REQUIRE(mprotect(base_ + mapped_ - page, page, PROT_NONE) == 0);
    data_ = base_ + mapped_ - page - size;
  }
  ~GuardedBuffer() { munmap(base_, mapped_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  char* data() { return data_; }

 private:
  char* base_;
  char* data_;
  size_t mapped_;
};

struct Case {
  size_t len;
  bool accepted_length;  // within the limit: must not be refused for its length
  const char* what;
};

std::vector<Case> Cases(const LengthField& f, size_t limit) {
  const size_t max = std::numeric_limits<size_t>::max();
  const size_t ptrdiff_max = static_cast<size_t>(std::numeric_limits<ptrdiff_t>::max());
  std::vector<Case> cases = {{0, true, "0 with NULL"},
                             {limit, true, "the largest accepted"},
                             {limit + 1, false, "one more than the largest"},
                             {ptrdiff_max, false, "PTRDIFF_MAX"},
                             {ptrdiff_max + 1, false, "PTRDIFF_MAX + 1"},
                             {max - 7, false, "SIZE_MAX - 7"},
                             {max, false, "SIZE_MAX"}};
  if (f.kind == LengthKind::kArray) {
    cases.push_back({max / ElementSize(f.element_type) + 2, false, "a byte size that wraps"});
  }
  return cases;
}

size_t Limit(const LengthField& f) {
  if (f.kind == LengthKind::kString) return STACKREC_MAX_STR_LEN;
  const bool stack =
      f.path == "location_ids" || f.path == "sample.location_ids" || f.path == "sample.locations";
  return stack ? STACKREC_MAX_STACK_LEN : STACKREC_MAX_ARRAY_LEN;
}

// The valid call made to break the rules of content as well: negative
// lines, start line and timestamp, an empty mapping range. The lengths are
// checked before a byte is read, so a length over its limit is still what
// is refused.
void BreakContentRules(Args* a) {
  for (stackrec_location& l : a->locations) {
    l.line = -1;
    l.function.start_line = -1;
    l.mapping.memory_limit = l.mapping.memory_start;
  }
  a->sample.timestamp_ns = -5;
  a->id_sample.timestamp_ns = -5;
  a->mapping.memory_limit = a->mapping.memory_start;
  a->function.start_line = -1;
}

std::string ReadHeader() {
  std::ifstream in(STACKREC_PUBLIC_HEADER);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the header's length fields are the ones the sweep drives") {
  const HeaderDecls decls = ParseHeader(ReadHeader());
  const std::map<std::string, Driver> drivers = Drivers();
  std::set<std::string> with_fields;
  for (const auto& [name, params] : decls.functions) {
    if (!LengthFields(decls, name).empty()) with_fields.insert(name);
  }
  std::set<std::string> driven;
  for (const auto& [name, driver] : drivers) driven.insert(name);
  CHECK(with_fields == driven);
  // The parse itself, on fields every version of the header has.
  const std::vector<LengthField> add = LengthFields(decls, "stackrec_profile_add_sized");
  std::vector<std::string> paths;
  for (const LengthField& f : add) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{
                     "sample.locations", "sample.locations[0].mapping.filename",
                     "sample.locations[0].mapping.build_id", "sample.locations[0].function.name",
                     "sample.locations[0].function.system_name",
                     "sample.locations[0].function.filename", "sample.values", "sample.labels",
                     "sample.labels[0].key", "sample.labels[0].str", "sample.labels[0].num_unit"});
}

// Every length of every call through the cases above. With
// `break_content`, only the lengths over their limits, in calls that also
// break the rules of content (BreakContentRules).
void SweepLengths(bool break_content) {
  const HeaderDecls decls = ParseHeader(ReadHeader());
  const std::map<std::string, Driver> drivers = Drivers();
  // One long buffer per limit, and one short one per element size, reused.
  std::map<size_t, std::unique_ptr<GuardedBuffer>> buffers;
  auto buffer = [&](size_t size) -> char* {
    auto& b = buffers[size];
    if (b == nullptr) b = std::make_unique<GuardedBuffer>(size);
    return b->data();
  };
  size_t fields = 0, cases = 0, accepted = 0;
  std::printf("length sweep: the fields derived from %s\n", STACKREC_PUBLIC_HEADER);
  for (const auto& [name, driver] : drivers) {
    for (const LengthField& f : LengthFields(decls, name)) {
      ++fields;
      if (!break_content) {
        std::printf("  %s: %s (%s)\n", name.c_str(), f.path.c_str(),
                    f.kind == LengthKind::kString ? "string" : "array");
      }
      const size_t limit = Limit(f);
      for (const Case& c : Cases(f, limit)) {
        if (break_content && c.accepted_length) continue;
        ++cases;
        INFO(name << ", " << f.path << ", length " << c.len << " (" << c.what << ")");
        Target target = MakeTarget(driver.on);
        Args args;
        driver.fill(&args, target);
        if (break_content) BreakContentRules(&args);
        const FieldRef ref = Locate(args, f);
        if (f.kind == LengthKind::kString) {
          char* bytes = nullptr;
          if (c.len == limit) {
            bytes = buffer(limit);
            std::memset(bytes, 'a', limit);
          } else if (c.len != 0) {
            bytes = buffer(3);
            std::memcpy(bytes, "abc", 3);
          }
          *ref.str = stackrec_str{bytes, c.len};
        } else {
          // Elements are copies of the valid call's first one.
          const size_t size = ElementSize(f.element_type);
          const char* first = static_cast<const char*>(*ref.array);
          char* elements = nullptr;
          if (c.len != 0) {
            const size_t count = c.len == limit ? limit : 1;
            elements = buffer(count * size);
            for (size_t i = 0; i < count; ++i) std::memcpy(elements + i * size, first, size);
          }
          *ref.array = elements;
          *ref.array_len = c.len;
        }
        const stackrec_status st = driver.call(target, args);
        const std::string message = stackrec_last_error();
        INFO("status " << stackrec_status_name(st) << ", message: " << message);
        // How the library refuses a length: "sample.labels[0].key.len N is
        // over the 16777216 byte limit", "sample.labels_len N is over the
        // limit of 65536".
        const std::string refusal = f.path + (f.kind == LengthKind::kString ? ".len " : "_len ") +
                                    std::to_string(c.len) + " is over the";
        if (c.accepted_length) {
          if (st == STACKREC_OK) {
            ++accepted;
            continue;
          }
          // Refused for something else (a repeated label key, a count of
          // values that is not the sample types'), not for the length.
          CHECK(message.find(refusal) == std::string::npos);
          if (driver.on == On::kNothing) continue;
        } else {
          CHECK(st == STACKREC_INVALID_ARGUMENT);
          CHECK(message.find(refusal) != std::string::npos);
          if (driver.on == On::kNothing) continue;
        }
        // Refused: the target holds exactly what its twin holds.
        Target twin = MakeTarget(driver.on);
        CHECK(Snapshot(target) == Snapshot(twin));
      }
    }
  }
  std::printf("length sweep%s: %zu fields of %zu calls, %zu cases (%zu accepted)\n",
              break_content ? " (content broken too)" : "", fields, drivers.size(), cases,
              accepted);
  CHECK(fields > 0);
}

TEST_CASE("every length of every call is checked before it is used") { SweepLengths(false); }

TEST_CASE("a length over its limit is refused before the rules of content are read") {
  SweepLengths(true);
}
