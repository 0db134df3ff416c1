// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Trace links: a sample's trace id and span id come out as one OTLP Link of
// the link table, written once however many samples share it, and as the
// pprof string labels "trace_id" and "span_id"; the link is part of a
// sample's identity, on every way of recording (by content, by id with the
// labels as strings or as a label-set id, timestamped, tracked), on a
// profile and on a recorder. Refusals are in bad_input/bad_input_test.cc.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "oracle/otlp_decode.h"
#include "support/canonical.h"
#include "support/target.h"
#include "support/test_support.h"

using namespace stackrec_test;

namespace {

// A link whose bytes count up from `trace` and from `span`.
stackrec_link MakeLink(uint8_t trace, uint8_t span) {
  stackrec_link link{};
  for (size_t i = 0; i < sizeof link.trace_id; ++i) link.trace_id[i] = uint8_t(trace + i);
  for (size_t i = 0; i < sizeof link.span_id; ++i) link.span_id[i] = uint8_t(span + i);
  return link;
}

std::string Bytes(const uint8_t* data, size_t n) {
  return std::string(reinterpret_cast<const char*>(data), n);
}

std::string Hex(const uint8_t* data, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 0xf];
  }
  return out;
}

// Encodes what `t` holds in `format`, uncompressed: a profile without
// resetting it, a recorder by one flip.
std::string Encode(Target& t, stackrec_format format) {
  const stackrec_serialize_options o = SerializeOptions(STACKREC_COMPRESSION_NONE, 0, format);
  stackrec_encoded* e = nullptr;
  const stackrec_status st = t.kind() == Kind::kProfile
                                 ? stackrec_profile_serialize(t.profile(), &o, &e)
                                 : stackrec_recorder_serialize(t.recorder(), &o, &e);
  INFO(stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
  EncodedPtr owned(e);
  return std::string(reinterpret_cast<const char*>(stackrec_encoded_data(e)),
                     stackrec_encoded_size(e));
}

const stackrec_link kFirst = MakeLink(0x10, 0xa0);
const stackrec_link kSecond = MakeLink(0x40, 0xc0);

// Five samples, four keys: the first link on two label sets, twice on one
// of them; the second link, and none, on that label set too.
void RecordLinked(Target& t) {
  auto add = [&](const char* leaf, const char* thread, const stackrec_link* link, int64_t v) {
    SampleBuilder b;
    b.Frame(leaf).Frame("main").Values({v, 1, 0}).Label("thread", thread);
    if (link != nullptr) b.Link(*link);
    INFO(stackrec_last_error());
    REQUIRE(t.Add(&b.Get()) == STACKREC_OK);
  };
  add("work", "t1", &kFirst, 10);
  add("work", "t1", &kFirst, 20);
  add("work", "t1", &kSecond, 100);
  add("work", "t1", nullptr, 1000);
  add("idle", "t2", &kFirst, 5);
}

}  // namespace

TEST_CASE("a link is two pprof string labels, and one OTLP Link however many samples share it") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target pprof_target(kind), otlp_target(kind);
  RecordLinked(pprof_target);
  RecordLinked(otlp_target);

  const Profile p = Decode(Encode(pprof_target, STACKREC_FORMAT_PPROF));
  CheckInvariants(p);
  REQUIRE(p.sample_size() == 4);
  int linked = 0;
  for (const Sample& s : p.sample()) {
    const std::vector<std::string> frames = FrameNames(p, s);
    const std::string trace = StrLabel(p, s, "trace_id"), span = StrLabel(p, s, "span_id");
    for (const auto& l : s.label()) CHECK(l.num() == 0);  // strings alone
    if (s.value(0) == 30 || s.value(0) == 5) {            // the first link's
      CHECK(trace == Hex(kFirst.trace_id, 16));
      CHECK(span == Hex(kFirst.span_id, 8));
      ++linked;
    } else if (s.value(0) == 100) {
      CHECK(trace == Hex(kSecond.trace_id, 16));
      CHECK(span == Hex(kSecond.span_id, 8));
      ++linked;
    } else {
      CHECK(s.value(0) == 1000);
      CHECK(trace.empty());
      CHECK(span.empty());
    }
    // After the caller's labels.
    if (!trace.empty()) {
      REQUIRE(s.label_size() == 3);
      CHECK(Str(p, s.label(0).key()) == "thread");
      CHECK(Str(p, s.label(1).key()) == "trace_id");
      CHECK(Str(p, s.label(2).key()) == "span_id");
    }
  }
  CHECK(linked == 3);

  const OtlpRequest r = DecodeOtlp(Encode(otlp_target, STACKREC_FORMAT_OTLP));
  CheckOtlpInvariants(r);
  const otlp::ProfilesDictionary& d = r.dictionary();
  REQUIRE(d.link_table_size() == 3);  // the zero Link and the two links, once each
  std::vector<std::string> traces;
  for (int i = 1; i < 3; ++i) {
    traces.push_back(d.link_table(i).trace_id());
    if (d.link_table(i).trace_id() == Bytes(kFirst.trace_id, 16)) {
      CHECK(d.link_table(i).span_id() == Bytes(kFirst.span_id, 8));
    } else {
      CHECK(d.link_table(i).trace_id() == Bytes(kSecond.trace_id, 16));
      CHECK(d.link_table(i).span_id() == Bytes(kSecond.span_id, 8));
    }
  }
  CHECK(traces[0] != traces[1]);
  // The link is an identity of its own, not an attribute.
  for (const auto& a : d.attribute_table()) {
    const std::string key = d.string_table(a.key_strindex());
    CHECK(key != "trace_id");
    CHECK(key != "span_id");
  }
  const otlp::Profile& cpu = r.resource_profiles(0).scope_profiles(0).profiles(0);
  REQUIRE(cpu.samples_size() == 4);
  int with_link = 0;
  for (const otlp::Sample& s : cpu.samples()) with_link += s.link_index() != 0 ? 1 : 0;
  CHECK(with_link == 3);
  // And sample for sample what pprof says.
  CHECK(Canonical(OtlpToPprof(r)) == Canonical(p));
}

TEST_CASE("a link by id, with labels as strings or as a label-set id, is the link by content") {
  const Kind kind = GENERATE(Kind::kProfile, Kind::kRecorder);
  INFO(KindName(kind));
  Target strings(kind), by_labels(kind), by_labels_id(kind);
  for (int round = 0; round < 2; ++round) {
    SampleBuilder b;
    b.Frame("work").Frame("main").Values({7, 1, 0}).Label("thread", "t1").Link(kFirst);
    REQUIRE(strings.Add(&b.Get()) == STACKREC_OK);
    b.Link(kSecond);
    REQUIRE(strings.Add(&b.Get()) == STACKREC_OK);
  }
  const stackrec_label thread{S("thread"), S("t1"), 0, {}};
  for (Target* t : {&by_labels, &by_labels_id}) {
    const uint32_t main_fn = Intern(*t, Fn("main")), work_fn = Intern(*t, Fn("work"));
    const uint32_t stack = Intern(*t, std::vector<uint32_t>{Intern(*t, Loc(0, work_fn, 0, 0)),
                                                            Intern(*t, Loc(0, main_fn, 0, 0))});
    const uint32_t labels_id = Intern(*t, std::vector<stackrec_label>{thread});
    const int64_t values[] = {7, 1, 0};
    for (int round = 0; round < 2; ++round) {
      for (const stackrec_link* link : {&kFirst, &kSecond}) {
        stackrec_id_sample s{};
        s.stack_id = stack;
        s.values = values;
        s.values_len = 3;
        if (t == &by_labels) {
          s.labels = &thread;
          s.labels_len = 1;
        } else {
          s.labels_id = labels_id;
        }
        s.link = link;
        AddIds(*t, s);
      }
    }
  }
  const Profile by_content = strings.Take();
  CHECK(by_content.sample_size() == 2);  // two keys: the links differ
  const Strings expected = Canonical(by_content);
  CHECK(Canonical(by_labels.Take()) == expected);
  CHECK(Canonical(by_labels_id.Take()) == expected);
}

TEST_CASE("timestamped samples and tracked objects keep their links") {
  Options o;
  const size_t live[] = {1};
  o.opts.live_heap_types = live;
  o.opts.live_heap_types_len = 1;
  RecorderPtr r = NewRecorder(o.opts);
  SampleBuilder timed;
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  timed.Frame("tick").Values({3, 1, 0}).Timestamp(now_ns).Link(kFirst);
  REQUIRE(stackrec_recorder_record(r.get(), &timed.Get()) == STACKREC_OK);
  SampleBuilder object;
  object.Frame("alloc").Values({0, 1, 0}).Link(kSecond);
  REQUIRE(stackrec_recorder_track(r.get(), 0x1000, &object.Get()) == STACKREC_OK);

  const stackrec_serialize_options opts =
      SerializeOptions(STACKREC_COMPRESSION_NONE, 0, STACKREC_FORMAT_OTLP);
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_recorder_serialize(r.get(), &opts, &e) == STACKREC_OK);
  EncodedPtr owned(e);
  const OtlpRequest req = DecodeOtlp(std::string(
      reinterpret_cast<const char*>(stackrec_encoded_data(e)), stackrec_encoded_size(e)));
  CheckOtlpInvariants(req);
  REQUIRE(req.dictionary().link_table_size() == 3);
  // Every Sample of every Profile that holds one of the two carries its link.
  int linked = 0;
  for (const otlp::Profile& p : req.resource_profiles(0).scope_profiles(0).profiles()) {
    for (const otlp::Sample& s : p.samples()) {
      REQUIRE(s.link_index() != 0);
      const otlp::Link& link = req.dictionary().link_table(s.link_index());
      const stackrec_link& want = s.timestamps_unix_nano_size() != 0 ? kFirst : kSecond;
      CHECK(link.trace_id() == Bytes(want.trace_id, 16));
      CHECK(link.span_id() == Bytes(want.span_id, 8));
      ++linked;
    }
  }
  CHECK(linked >= 2);
  const Profile pprof = OtlpToPprof(req);
  for (const Sample& s : pprof.sample()) CHECK(!StrLabel(pprof, s, "trace_id").empty());
}
