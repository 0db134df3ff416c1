// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Small programs for the tests of pre-interned frames: their mappings,
// functions, frames and stacks, interned through a Target, and their samples,
// recorded with strings, by stack id or by location ids, so that a test can
// compare what each path writes.
#ifndef STACKREC_TESTS_SUPPORT_ID_PROGRAM_H_
#define STACKREC_TESTS_SUPPORT_ID_PROGRAM_H_

#include <cstdint>
#include <vector>

#include "support/target.h"

namespace stackrec_test {

// ---- A program: its mappings, functions, frames and stacks ------------------

struct FrameSpec {
  int mapping;   // index into Program::mappings, -1: none
  int function;  // index into Program::functions, -1: none
  uint64_t address;
  int64_t line;
  bool inlined;
};

struct Program {
  std::vector<stackrec_mapping> mappings;
  std::vector<stackrec_function> functions;
  std::vector<FrameSpec> frames;
  std::vector<std::vector<int>> stacks;  // frame indices, leaf first

  // Frame `i` as a string-path location.
  stackrec_location Location(int i) const {
    const FrameSpec& f = frames[static_cast<size_t>(i)];
    stackrec_location loc{};
    if (f.mapping >= 0) loc.mapping = mappings[static_cast<size_t>(f.mapping)];
    if (f.function >= 0) loc.function = functions[static_cast<size_t>(f.function)];
    loc.address = f.address;
    loc.line = f.line;
    loc.inlined = f.inlined;
    return loc;
  }
};

// The ids one handle gave a program's parts, by index.
struct Ids {
  std::vector<uint32_t> mappings, functions, locations, stacks;
  bool operator==(const Ids& o) const {
    return mappings == o.mappings && functions == o.functions && locations == o.locations &&
           stacks == o.stacks;
  }
  std::vector<uint32_t> LocationIds(const Program& prog, int stack) const {
    std::vector<uint32_t> out;
    for (int f : prog.stacks[static_cast<size_t>(stack)]) {
      out.push_back(locations[static_cast<size_t>(f)]);
    }
    return out;
  }
};

// Interns every part of `prog` into `t`, failing the test on error.
Ids InternAll(Target& t, const Program& prog);

// Native code with an inline run, an address-only frame, Ruby frames
// (function and line, no mapping), two lines of one function, a frame in a
// second mapping, and an empty stack.
const Program& FullProgram();

// A small dictionary for the bad-input tests: 2 mappings, 3 functions, 6
// locations, 3 stacks, so that the ids of the messages below (mapping 12,
// location 9, stack 5, ...) are not interned. Location 3 is inlined into
// location 4 (same address and mapping); location 5 is at that address in
// the other mapping.
const Program& SmallProgram();

// ---- Samples, recorded three ways -------------------------------------------

struct SampleSpec {
  int stack;
  std::vector<int64_t> values;
  std::vector<stackrec_label> labels;
  int64_t timestamp_ns = 0;
};

stackrec_label NumLabel(const char* key, int64_t num, const char* unit = "");
stackrec_label StrLabel(const char* key, const char* str);

enum class Via { kStrings, kStackId, kLocationIds };

// Records `s` through the string API or by id, failing the test on error.
// An id sample takes its labels by `labels_id` instead, if not 0.
void Record(Target& t, const Program& prog, const Ids& ids, const SampleSpec& s, Via via,
            uint32_t labels_id = 0);

// The full program's samples: aggregating ones (same stack and labels),
// labels of each kind, timestamped ones, the empty stack.
std::vector<SampleSpec> FullSamples();

}  // namespace stackrec_test

#endif  // STACKREC_TESTS_SUPPORT_ID_PROGRAM_H_
