// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A serialization's target and series labels, refused by name: an unknown
// target, a target for a format the backend does not take, series labels
// without a target, too many, empty, NULL, or two written as one label name.
// Each refusal leaves the profile or recorder as it was.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

struct BadCase {
  const char* what;
  std::string message;  // all of stackrec_last_error()
};

// The bad options of case `i`, their labels kept in `labels`.
stackrec_serialize_options MakeBad(size_t i, std::vector<stackrec_str>* labels) {
  stackrec_serialize_options o = SerializeOptions(STACKREC_COMPRESSION_NONE);
  o.target = STACKREC_TARGET_PYROSCOPE;
  *labels = {S("thread name"), S("trace endpoint")};
  o.series_labels = labels->data();
  o.series_labels_len = labels->size();
  switch (i) {
    case 0:
      o.target = static_cast<stackrec_target>(9);
      o.series_labels_len = 0;
      break;
    case 1:
      o.format = STACKREC_FORMAT_OTLP;
      break;
    case 2:
      o.target = STACKREC_TARGET_ANY;
      break;
    case 3:
      labels->assign(17, S("x"));
      for (size_t k = 0; k < labels->size(); ++k) {
        static const char* const kNames[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i",
                                             "j", "k", "l", "m", "n", "o", "p", "q"};
        (*labels)[k] = S(kNames[k]);
      }
      o.series_labels = labels->data();
      o.series_labels_len = labels->size();
      break;
    case 4:
      (*labels)[1] = S("");
      break;
    case 5:
      (*labels)[1] = S("thread_name");
      break;
    case 6:
      o.series_labels = nullptr;
      break;
    case 7:
      (*labels)[0] = stackrec_str{nullptr, 2};
      break;
    default:
      FAIL("no case " << i);
  }
  return o;
}

const std::vector<BadCase>& BadCases() {
  static const std::vector<BadCase> cases = {
      {"an unknown target", "opts.target is 9, not a stackrec_target value"},
      {"Pyroscope's target with OTLP",
       "opts.target PYROSCOPE takes opts.format PPROF (Pyroscope's /ingest)"},
      {"series labels without a target", "opts.series_labels is for opts.target PYROSCOPE only"},
      {"17 series labels",
       "opts.series_labels names 17 keys, and a series takes 16 of them at most"},
      {"an empty series label", "opts.series_labels[1] is empty"},
      {"two labels written as one",
       "opts.series_labels[0] and [1] are both written as the label 'thread_name'"},
      {"a NULL array with a length", "opts.series_labels is NULL but opts.series_labels_len is 2"},
      {"a NULL label with a length", "opts.series_labels[0].ptr is NULL but its len is 2"},
  };
  return cases;
}

std::string Snapshot(stackrec_profile* p) {
  return WithoutTimes(Decode(Serialize(p, STACKREC_COMPRESSION_NONE))).SerializeAsString();
}

}  // namespace

TEST_CASE("bad target options are refused by name and change no profile") {
  auto p = NewProfile();
  SampleBuilder b;
  b.Frame("main", "m.rb", 1).Values({1, 2, 3}).Label("thread name", "main");
  Add(p.get(), b);
  const std::string before = Snapshot(p.get());
  for (size_t i = 0; i < BadCases().size(); ++i) {
    const BadCase& c = BadCases()[i];
    INFO(c.what);
    std::vector<stackrec_str> labels;
    const stackrec_serialize_options o = MakeBad(i, &labels);
    stackrec_encoded* out = reinterpret_cast<stackrec_encoded*>(1);
    CHECK(stackrec_profile_serialize(p.get(), &o, &out) == STACKREC_INVALID_ARGUMENT);
    CHECK(out == nullptr);
    CHECK(std::string(stackrec_last_error()) == c.message);
  }
  CHECK(Snapshot(p.get()) == before);
}

TEST_CASE("bad target options are refused by name and flip no recorder") {
  Options opts;
  auto r = NewRecorder(opts.opts);
  SampleBuilder b;
  b.Frame("main", "m.rb", 1).Values({1, 2, 3});
  REQUIRE(stackrec_recorder_record(r.get(), &b.Get()) == STACKREC_OK);
  for (size_t i = 0; i < BadCases().size(); ++i) {
    const BadCase& c = BadCases()[i];
    INFO(c.what);
    std::vector<stackrec_str> labels;
    const stackrec_serialize_options o = MakeBad(i, &labels);
    stackrec_encoded* out = reinterpret_cast<stackrec_encoded*>(1);
    CHECK(stackrec_recorder_serialize(r.get(), &o, &out) == STACKREC_INVALID_ARGUMENT);
    CHECK(out == nullptr);
    CHECK(std::string(stackrec_last_error()) == c.message);
  }
  stackrec_stats stats = {};
  REQUIRE(stackrec_recorder_stats(r.get(), &stats) == STACKREC_OK);
  CHECK(stats.serializations_ok == 0);
  const stackrec_serialize_options none = SerializeOptions(STACKREC_COMPRESSION_NONE);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), &none, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  REQUIRE(out.sample_size() == 1);
  CHECK(out.sample(0).value(0) == 1);
}
