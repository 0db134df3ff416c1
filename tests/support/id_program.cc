// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "support/id_program.h"

#include "catch2/catch.hpp"

namespace stackrec_test {

Ids InternAll(Target& t, const Program& prog) {
  Ids ids;
  for (const auto& m : prog.mappings) ids.mappings.push_back(Intern(t, m));
  for (const auto& f : prog.functions) ids.functions.push_back(Intern(t, f));
  for (const FrameSpec& f : prog.frames) {
    ids.locations.push_back(
        Intern(t, Loc(f.mapping >= 0 ? ids.mappings[static_cast<size_t>(f.mapping)] : 0,
                      f.function >= 0 ? ids.functions[static_cast<size_t>(f.function)] : 0,
                      f.address, f.line, f.inlined)));
  }
  for (size_t s = 0; s < prog.stacks.size(); ++s) {
    ids.stacks.push_back(Intern(t, ids.LocationIds(prog, static_cast<int>(s))));
  }
  return ids;
}

// Native code with an inline run, an address-only frame, Ruby frames
// (function and line, no mapping), two lines of one function, a frame in a
// second mapping, and an empty stack.
const Program& FullProgram() {
  static const Program* p = [] {
    auto* prog = new Program;
    prog->mappings = {Mapping(0x400000, 0x500000, 0x1000, "/usr/bin/server", "8f3a9c0de1b2"),
                      Mapping(0x7f0000000000, 0x7f0000100000, 0, "/lib/libc.so.6", "c0ffee")};
    prog->functions = {Fn("Server::Handle", "server.cc", 40, "_ZN6Server6HandleEv"),
                       Fn("Buffer::Append", "buffer.h", 110),
                       Fn("std::vector::push_back", "vector", 80),
                       Fn("main", "main.cc", 1),
                       Fn("Foo#bar", "/app/foo.rb", 12),
                       Fn("Kernel#require", "<internal:kernel>"),
                       Fn("memcpy")};
    prog->frames = {
        {0, 2, 0x401010, 88, true},         // 0: push_back, inlined into
        {0, 1, 0x401010, 120, true},        // 1: Append, inlined into
        {0, 0, 0x401010, 42, false},        // 2: Handle
        {0, 3, 0x402000, 7, false},         // 3: main
        {1, -1, 0x7f0000001234, 0, false},  // 4: address only
        {-1, 4, 0, 15, false},              // 5: Foo#bar:15
        {-1, 5, 0, 0, false},               // 6: Kernel#require
        {1, 6, 0x7f0000002000, 0, false},   // 7: memcpy
        {-1, 4, 0, 16, false},              // 8: Foo#bar:16
    };
    prog->stacks = {{0, 1, 2, 3}, {4, 2, 3}, {5, 8, 6}, {7, 5, 6}, {2, 3}, {}, {8, 5, 6}};
    return prog;
  }();
  return *p;
}

// A small dictionary for the bad-input tests: 2 mappings, 3 functions, 6
// locations, 3 stacks, so that the ids of the messages below (mapping 12,
// location 9, stack 5, ...) are not interned. Location 3 is inlined into
// location 4 (same address and mapping); location 5 is at that address in
// the other mapping.
const Program& SmallProgram() {
  static const Program* p = [] {
    auto* prog = new Program;
    prog->mappings = {Mapping(0x400000, 0x500000, 0, "/usr/bin/app", "aa11"),
                      Mapping(0x600000, 0x700000, 0, "/usr/lib/libx.so", "bb22")};
    prog->functions = {Fn("native_fn", "app.c", 3), Fn("Foo#bar", "foo.rb", 10),
                       Fn("Foo#baz", "foo.rb", 20)};
    prog->frames = {
        {0, 0, 0x401000, 10, false},  // 0
        {-1, 1, 0, 20, false},        // 1
        {-1, 2, 0, 30, false},        // 2
        {0, 1, 0x401010, 5, true},    // 3: inlined into 4
        {0, 2, 0x401010, 6, false},   // 4
        {1, 2, 0x401010, 6, false},   // 5: 4's address, other mapping
    };
    prog->stacks = {{0, 1, 2}, {3, 4, 2}, {1, 2}};
    return prog;
  }();
  return *p;
}

stackrec_label NumLabel(const char* key, int64_t num, const char* unit) {
  stackrec_label l{};
  l.key = S(key);
  l.num = num;
  l.num_unit = S(unit);
  return l;
}

stackrec_label StrLabel(const char* key, const char* str) {
  stackrec_label l{};
  l.key = S(key);
  l.str = S(str);
  return l;
}

void Record(Target& t, const Program& prog, const Ids& ids, const SampleSpec& s, Via via,
            uint32_t labels_id) {
  std::vector<stackrec_location> locations;
  std::vector<uint32_t> location_ids;
  stackrec_status st;
  if (via == Via::kStrings) {
    for (int f : prog.stacks[static_cast<size_t>(s.stack)]) locations.push_back(prog.Location(f));
    stackrec_sample sample{};
    sample.locations = locations.data();
    sample.locations_len = locations.size();
    sample.values = s.values.data();
    sample.values_len = s.values.size();
    sample.labels = s.labels.data();
    sample.labels_len = s.labels.size();
    sample.timestamp_ns = s.timestamp_ns;
    st = t.Add(&sample);
  } else {
    stackrec_id_sample sample{};
    if (via == Via::kStackId) {
      sample.stack_id = ids.stacks[static_cast<size_t>(s.stack)];
    } else {
      location_ids = ids.LocationIds(prog, s.stack);
      sample.location_ids = location_ids.data();
      sample.location_ids_len = location_ids.size();
    }
    sample.values = s.values.data();
    sample.values_len = s.values.size();
    if (labels_id != 0) {
      sample.labels_id = labels_id;
    } else {
      sample.labels = s.labels.data();
      sample.labels_len = s.labels.size();
    }
    sample.timestamp_ns = s.timestamp_ns;
    st = t.AddIds(&sample);
  }
  INFO("stack " << s.stack << " via " << static_cast<int>(via) << ": " << stackrec_last_error());
  REQUIRE(st == STACKREC_OK);
}

// The full program's samples: aggregating ones (same stack and labels),
// labels of each kind, timestamped ones, the empty stack.
std::vector<SampleSpec> FullSamples() {
  const std::vector<stackrec_label> thread = {NumLabel("thread id", 7),
                                              StrLabel("thread name", "main")};
  return {
      {0, {1, 2, 3}, thread},
      {0, {4, 5, 6}, thread},  // aggregates with the one above
      {0, {1, 1, 1}, {}},
      {1, {10, 0, -3}, {NumLabel("bytes", 4096, "bytes")}},
      {2, {5, 5, 5}, {}, 1234567},
      {2, {5, 5, 5}, {}, 1234567},  // timestamped: kept on its own
      {3, {2, 2, 2}, {NumLabel("local root span id", 11)}},
      {4, {3, 3, 3}, thread},
      {5, {7, 7, 7}, {}},
      {6, {1, 0, 0}, {StrLabel("k", "v")}},
      {2, {1, 2, 3}, {StrLabel("k", "v")}},
      {4, {9, 9, 9}, thread},
  };
}

}  // namespace stackrec_test
