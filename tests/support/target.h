// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A profile or a recorder behind one interface, so that a test runs the same
// calls on both (GENERATE over Kind); the intern, add-by-id and forget_ids
// calls that must succeed, failing the test with stackrec_last_error()
// otherwise; and the C structs the intern calls take.
#ifndef STACKREC_TESTS_SUPPORT_TARGET_H_
#define STACKREC_TESTS_SUPPORT_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace stackrec_test {

enum class Kind { kProfile, kRecorder };

const char* KindName(Kind kind);

// Owns a profile or a recorder; each call goes to the one it holds.
class Target {
 public:
  Target(Kind kind, const stackrec_profile_options& opts) : kind_(kind) {
    if (kind == Kind::kProfile) {
      profile_ = NewProfile(opts);
    } else {
      recorder_ = NewRecorder(opts);
    }
  }
  explicit Target(Kind kind) : Target(kind, Options().opts) {}
  // A NULL handle of that kind, for the "profile is NULL" checks.
  static Target Null(Kind kind) { return Target(kind, nullptr); }

  Kind kind() const { return kind_; }
  stackrec_profile* profile() const { return profile_.get(); }
  stackrec_recorder* recorder() const { return recorder_.get(); }

  stackrec_status InternMapping(const stackrec_mapping* m, uint32_t* id) {
    return kind_ == Kind::kProfile ? stackrec_profile_intern_mapping(profile(), m, id)
                                   : stackrec_recorder_intern_mapping(recorder(), m, id);
  }
  stackrec_status InternFunction(const stackrec_function* f, uint32_t* id) {
    return kind_ == Kind::kProfile ? stackrec_profile_intern_function(profile(), f, id)
                                   : stackrec_recorder_intern_function(recorder(), f, id);
  }
  stackrec_status InternLocation(const stackrec_interned_location* l, uint32_t* id) {
    return kind_ == Kind::kProfile ? stackrec_profile_intern_location(profile(), l, id)
                                   : stackrec_recorder_intern_location(recorder(), l, id);
  }
  stackrec_status InternStack(const uint32_t* ids, size_t len, uint32_t* id) {
    return kind_ == Kind::kProfile ? stackrec_profile_intern_stack(profile(), ids, len, id)
                                   : stackrec_recorder_intern_stack(recorder(), ids, len, id);
  }
  stackrec_status InternLabels(const stackrec_label* labels, size_t len, uint32_t* id) {
    return kind_ == Kind::kProfile ? stackrec_profile_intern_labels(profile(), labels, len, id)
                                   : stackrec_recorder_intern_labels(recorder(), labels, len, id);
  }
  stackrec_status AddIds(const stackrec_id_sample* s) {
    return kind_ == Kind::kProfile ? stackrec_profile_add_ids(profile(), s)
                                   : stackrec_recorder_record_ids(recorder(), s);
  }
  stackrec_status Add(const stackrec_sample* s) {
    return kind_ == Kind::kProfile ? stackrec_profile_add(profile(), s)
                                   : stackrec_recorder_record(recorder(), s);
  }
  stackrec_status Forget() {
    return kind_ == Kind::kProfile ? stackrec_profile_forget_ids(profile())
                                   : stackrec_recorder_forget_ids(recorder());
  }
  stackrec_status SetEndpoint(uint64_t span, stackrec_str endpoint) {
    return kind_ == Kind::kProfile ? stackrec_profile_record_endpoint(profile(), span, endpoint)
                                   : stackrec_recorder_record_endpoint(recorder(), span, endpoint);
  }

  // What was recorded since the last Take: a profile is serialized and
  // reset, a recorder serialized (one flip).
  EncodedPtr TakeEncoded();
  Profile Take();
  // The exact content of what Take would return, without the clock.
  std::string TakeBytes() { return WithoutTimes(Take()).SerializeAsString(); }

 private:
  Target(Kind kind, std::nullptr_t) : kind_(kind) {}
  Kind kind_;
  ProfilePtr profile_;
  RecorderPtr recorder_;
};

// ---- Calls that must succeed ------------------------------------------------
// Each returns the id it got (never 0), or fails the test.

uint32_t Intern(Target& t, const stackrec_mapping& m);
uint32_t Intern(Target& t, const stackrec_function& f);
uint32_t Intern(Target& t, const stackrec_interned_location& l);
uint32_t Intern(Target& t, const std::vector<uint32_t>& location_ids);  // a stack
uint32_t Intern(Target& t, const std::vector<stackrec_label>& labels);  // a label set
void AddIds(Target& t, const stackrec_id_sample& s);
void Forget(Target& t);

// ---- The C structs the intern calls take ------------------------------------
// Their strings view the arguments, which must outlive the struct.

stackrec_interned_location Loc(uint32_t mapping_id, uint32_t function_id, uint64_t address,
                               int64_t line, bool inlined = false);
stackrec_function Fn(const char* name, const char* file = "", int64_t start_line = 0,
                     const char* system_name = "");
stackrec_mapping Mapping(uint64_t start, uint64_t limit, uint64_t offset, const char* file,
                         const char* build_id);

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_SUPPORT_TARGET_H_
