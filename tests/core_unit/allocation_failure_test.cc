// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Running out of memory at any table allocation of a profile's life: each
// allocation of a run is made to fail in turn (table_memory.h,
// FailAllocationsForTesting), the call that met it must report
// STACKREC_OUT_OF_MEMORY, and once memory is back the profile must take
// that call again and every later one and write exactly what a run without
// the failure writes. The tables grow through many doublings on the way
// (interned strings, functions, locations, stacks and label sets, the
// string path's caches, the id path's dictionary and imports, the key
// index), so each growth meets a failure. Once on the string path, once
// on the id path.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/table_memory.h"
#include "catch2/catch.hpp"
#include "oracle/pprof_decode.h"
#include "stackrec/stackrec.h"

using namespace stackrec_test;

namespace {

stackrec_str S(const std::string& s) { return stackrec_str{s.data(), s.size()}; }
stackrec_str S(const char* s) { return stackrec_str{s, std::strlen(s)}; }

struct ProfileFree {
  void operator()(stackrec_profile* p) const { stackrec_profile_free(p); }
};
using ProfilePtr = std::unique_ptr<stackrec_profile, ProfileFree>;

ProfilePtr NewProfile() {
  static const stackrec_value_type types[3] = {{S("cpu-time"), S("nanoseconds")},
                                               {S("cpu-samples"), S("count")},
                                               {S("wall-time"), S("nanoseconds")}};
  stackrec_profile_options opts{};
  opts.sample_types = types;
  opts.sample_types_len = 3;
  stackrec_profile* p = nullptr;
  REQUIRE(stackrec_profile_new(&opts, &p) == STACKREC_OK);
  return ProfilePtr(p);
}

Profile SerializeAndDecode(stackrec_profile* p) {
  const stackrec_serialize_options gzip{};  // gzip pprof
  stackrec_encoded* e = nullptr;
  REQUIRE(stackrec_profile_serialize(p, &gzip, &e) == STACKREC_OK);
  const Profile out = Decode(stackrec_encoded_data(e), stackrec_encoded_size(e));
  stackrec_encoded_free(e);
  return out;
}

// 1,000 samples of 400 stacks, 4 to 15 frames deep, over 300 functions,
// with a thread id and a thread name.
struct Workload {
  std::vector<std::string> names, files;
  std::vector<std::vector<int>> stacks;  // function indexes, leaf first
  struct Tick {
    int stack;
    int thread;
  };
  std::vector<Tick> ticks;

  Workload() {
    std::mt19937 rng(11);
    for (int f = 0; f < 300; ++f) {
      names.push_back("Mod" + std::to_string(f % 13) + "::method_" + std::to_string(f));
      files.push_back("/app/lib/file_" + std::to_string(f % 97) + ".rb");
    }
    for (int s = 0; s < 400; ++s) {
      std::vector<int> stack(4 + rng() % 12);
      for (int& f : stack) f = static_cast<int>(rng() % 300);
      stacks.push_back(std::move(stack));
    }
    for (int i = 0; i < 1000; ++i) {
      ticks.push_back({static_cast<int>(rng() % 400), static_cast<int>(rng() % 8)});
    }
  }
};

using Key = std::pair<std::vector<std::string>, std::vector<std::string>>;

// Adds tick `i`; `frames` is reused across calls, as a sampler's buffer.
stackrec_status AddTick(stackrec_profile* p, const Workload& w, size_t i,
                        std::vector<stackrec_location>* frames, const std::string& thread_name) {
  const Workload::Tick& t = w.ticks[i];
  const std::vector<int>& stack = w.stacks[static_cast<size_t>(t.stack)];
  frames->assign(stack.size(), stackrec_location{});
  for (size_t j = 0; j < stack.size(); ++j) {
    (*frames)[j].function.name = S(w.names[static_cast<size_t>(stack[j])]);
    (*frames)[j].function.filename = S(w.files[static_cast<size_t>(stack[j])]);
    (*frames)[j].line = 10 + stack[j] % 50;
  }
  stackrec_label labels[2] = {};
  labels[0].key = S("thread id");
  labels[0].num = t.thread;
  labels[1].key = S("thread name");
  labels[1].str = S(thread_name);
  const int64_t values[3] = {static_cast<int64_t>(i) * 1000, 1, 10000};
  stackrec_sample s{};
  s.locations = frames->data();
  s.locations_len = frames->size();
  s.labels = labels;
  s.labels_len = 2;
  s.values = values;
  s.values_len = 3;
  return stackrec_profile_add(p, &s);
}

std::string ThreadName(const Workload& w, size_t i) {
  return "worker-" + std::to_string(w.ticks[i].thread);
}

// The samples by (frame names, labels). As FrameNames for frames of one
// line each (the workload's), through maps built once: FrameNames looks
// each id up in turn, and three hundred runs decode here.
std::map<Key, std::vector<int64_t>> Content(const Profile& p) {
  CheckInvariants(p);
  std::map<uint64_t, std::string> functions;
  for (const auto& f : p.function()) functions[f.id()] = Str(p, f.name());
  std::map<uint64_t, std::string> locations;
  for (const auto& l : p.location()) {
    REQUIRE(l.line_size() == 1);
    locations[l.id()] = functions.at(l.line(0).function_id());
  }
  std::map<Key, std::vector<int64_t>> out;
  for (const Sample& s : p.sample()) {
    std::vector<std::string> frames;
    for (uint64_t id : s.location_id()) frames.push_back(locations.at(id));
    const auto [it, fresh] = out.emplace(Key{frames, LabelStrings(p, s)},
                                         std::vector<int64_t>(s.value().begin(), s.value().end()));
    REQUIRE(fresh);  // identical (stack, labels) samples are summed
  }
  return out;
}

// What every run must write: the ticks' values summed by (stack, labels).
std::map<Key, std::vector<int64_t>> Model(const Workload& w) {
  std::map<Key, std::vector<int64_t>> model;
  for (size_t i = 0; i < w.ticks.size(); ++i) {
    std::vector<std::string> names;
    for (int f : w.stacks[static_cast<size_t>(w.ticks[i].stack)]) {
      names.push_back(w.names[static_cast<size_t>(f)]);
    }
    std::vector<int64_t>& v = model[Key{
        names,
        {"thread id=" + std::to_string(w.ticks[i].thread), "thread name=" + ThreadName(w, i)}}];
    v.resize(3);
    v[0] += static_cast<int64_t>(i) * 1000;
    v[1] += 1;
    v[2] += 10000;
  }
  return model;
}

// The id path, as a runtime drives it: a tick's functions, locations and
// stack (and, on even threads, its label set) are interned when first
// needed, then the sample goes in by ids. Every step that succeeded is
// kept, so that Tick, called again after a failure, resumes at the step
// that failed.
class IdPath {
 public:
  IdPath(stackrec_profile* p, const Workload& w)
      : p_(p),
        w_(w),
        functions_(w.names.size()),
        locations_(w.names.size()),
        stacks_(w.stacks.size()),
        label_sets_(8) {}

  stackrec_status Tick(size_t i) {
    const Workload::Tick& t = w_.ticks[i];
    const auto s = static_cast<size_t>(t.stack);
    if (stacks_[s] == 0) {
      std::vector<uint32_t> ids;
      for (int f : w_.stacks[s]) {
        const auto fi = static_cast<size_t>(f);
        if (functions_[fi] == 0) {
          stackrec_function fn{};
          fn.name = S(w_.names[fi]);
          fn.filename = S(w_.files[fi]);
          if (const stackrec_status st = stackrec_profile_intern_function(p_, &fn, &functions_[fi]);
              st != STACKREC_OK) {
            return st;
          }
        }
        if (locations_[fi] == 0) {
          stackrec_interned_location loc{};
          loc.function_id = functions_[fi];
          loc.line = 10 + f % 50;
          if (const stackrec_status st =
                  stackrec_profile_intern_location(p_, &loc, &locations_[fi]);
              st != STACKREC_OK) {
            return st;
          }
        }
        ids.push_back(locations_[fi]);
      }
      if (const stackrec_status st =
              stackrec_profile_intern_stack(p_, ids.data(), ids.size(), &stacks_[s]);
          st != STACKREC_OK) {
        return st;
      }
    }
    const std::string thread_name = ThreadName(w_, i);
    stackrec_label labels[2] = {};
    labels[0].key = S("thread id");
    labels[0].num = t.thread;
    labels[1].key = S("thread name");
    labels[1].str = S(thread_name);
    const auto thread = static_cast<size_t>(t.thread);
    const bool by_label_set = thread % 2 == 0;
    if (by_label_set && label_sets_[thread] == 0) {
      if (const stackrec_status st =
              stackrec_profile_intern_labels(p_, labels, 2, &label_sets_[thread]);
          st != STACKREC_OK) {
        return st;
      }
    }
    const int64_t values[3] = {static_cast<int64_t>(i) * 1000, 1, 10000};
    stackrec_id_sample sample{};
    sample.stack_id = stacks_[s];
    sample.values = values;
    sample.values_len = 3;
    if (by_label_set) {
      sample.labels_id = label_sets_[thread];
    } else {
      sample.labels = labels;
      sample.labels_len = 2;
    }
    return stackrec_profile_add_ids(p_, &sample);
  }

 private:
  stackrec_profile* p_;
  const Workload& w_;
  // Ids by the workload's function, stack and thread; 0 until interned.
  std::vector<uint32_t> functions_, locations_, stacks_, label_sets_;
};

// Makes allocations fail from the `n`th on until the end of the scope,
// or until Stop.
class Failures {
 public:
  explicit Failures(uint64_t n) { stackrec::table_memory::FailAllocationsForTesting(n); }
  ~Failures() { Stop(); }
  void Stop() { stackrec::table_memory::FailAllocationsForTesting(0); }
};

}  // namespace

TEST_CASE(
    "an add that meets a failed table allocation reports it and damages nothing, "
    "whichever allocation fails") {
  const Workload w;
  std::vector<stackrec_location> frames;

  // The run without failures, and what the model says it holds.
  std::map<Key, std::vector<int64_t>> expected;
  {
    ProfilePtr p = NewProfile();
    for (size_t i = 0; i < w.ticks.size(); ++i) {
      REQUIRE(AddTick(p.get(), w, i, &frames, ThreadName(w, i)) == STACKREC_OK);
    }
    expected = Content(SerializeAndDecode(p.get()));
  }
  REQUIRE(expected == Model(w));

  // Allocation n fails, for n = 1, 2, ... until a run meets no failure.
  int runs_with_failure = 0;
  for (uint64_t n = 1;; ++n) {
    INFO("allocation " << n << " fails");
    ProfilePtr p = NewProfile();
    Failures failures(n);
    size_t failed_at = w.ticks.size();
    for (size_t i = 0; i < w.ticks.size(); ++i) {
      const stackrec_status status = AddTick(p.get(), w, i, &frames, ThreadName(w, i));
      if (status == STACKREC_OK) continue;
      REQUIRE(status == STACKREC_OUT_OF_MEMORY);
      failed_at = i;
      break;
    }
    failures.Stop();
    if (failed_at == w.ticks.size()) break;  // n is past the run's allocations
    ++runs_with_failure;
    // Memory is back: the sample that failed and every later one go in.
    size_t added = 0;
    for (size_t i = failed_at; i < w.ticks.size(); ++i) {
      added += AddTick(p.get(), w, i, &frames, ThreadName(w, i)) == STACKREC_OK;
    }
    REQUIRE(added == w.ticks.size() - failed_at);
    REQUIRE(Content(SerializeAndDecode(p.get())) == expected);
  }
  // The run makes about a hundred table allocations (114 when written, 97
  // since the string path builds no location or stack index, 85 since the
  // seeds live in chunks that double from 256), and each one failed in
  // one of the runs above.
  CHECK(runs_with_failure >= 80);
}

TEST_CASE(
    "interning and adding by ids meet a failed table allocation, whichever it is, and "
    "damage nothing") {
  const Workload w;
  const std::map<Key, std::vector<int64_t>> model = Model(w);
  {
    ProfilePtr p = NewProfile();
    IdPath run(p.get(), w);
    for (size_t i = 0; i < w.ticks.size(); ++i) REQUIRE(run.Tick(i) == STACKREC_OK);
    REQUIRE(Content(SerializeAndDecode(p.get())) == model);
  }
  int runs_with_failure = 0;
  for (uint64_t n = 1;; ++n) {
    INFO("allocation " << n << " fails");
    ProfilePtr p = NewProfile();
    IdPath run(p.get(), w);
    Failures failures(n);
    size_t failed_at = w.ticks.size();
    for (size_t i = 0; i < w.ticks.size(); ++i) {
      const stackrec_status status = run.Tick(i);
      if (status == STACKREC_OK) continue;
      REQUIRE(status == STACKREC_OUT_OF_MEMORY);
      failed_at = i;
      break;
    }
    failures.Stop();
    if (failed_at == w.ticks.size()) break;
    ++runs_with_failure;
    // The step that failed, then the rest of the run.
    size_t added = 0;
    for (size_t i = failed_at; i < w.ticks.size(); ++i) added += run.Tick(i) == STACKREC_OK;
    REQUIRE(added == w.ticks.size() - failed_at);
    REQUIRE(Content(SerializeAndDecode(p.get())) == model);
  }
  // 194 when written: the dictionary's tables and the imports' too.
  CHECK(runs_with_failure >= 150);
}
