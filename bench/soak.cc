// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Soak: a process whose code keeps changing. Every cycle records samples
// whose functions are new (fresh names, as a JIT or a code reload would
// make) next to a stable part, then serializes; the RSS is printed after
// each cycle. What a profile no longer uses must be freed, so the RSS must
// stay within 2 times the RSS after the 10th cycle.
//
// With --ids the same samples go through the pre-interned path: every
// cycle interns its functions, locations and stacks, records by stack id,
// and ends with forget_ids, as a runtime that drops its ids on a code
// reload does (the header's "Memory" rule). Without the forget the
// dictionary would keep every cycle's functions and the bound would break.
//
//   build/release/bench/stackrec-soak [--cycles 1000] [--ids] [--quiet]
//
// Exits 1 if the bound is broken (the CTests soak_rss_stays_bounded and
// soak_ids_rss_stays_bounded run 100 cycles), 2 on a stackrec error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "stackrec/stackrec.h"
#include "stackrec_str.h"

namespace {

constexpr int kFreshPerCycle = 2000;  // new functions every cycle
constexpr int kStable = 500;          // functions every cycle shares
constexpr int kDepth = 24;

using stackrec_workloads::Str;

long RssKiB() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "stackrec-soak: %s: %s\n", what, stackrec_last_error());
  std::exit(2);
}

// Records a sample of `frames` by stack id: each frame's function and
// location interned (interning equal content again gives the id an earlier
// sample of the cycle got), then the stack.
void RecordById(stackrec_recorder* recorder, const std::vector<stackrec_location>& frames,
                const int64_t* values, const stackrec_label& label) {
  std::vector<uint32_t> locations(frames.size());
  for (size_t d = 0; d < frames.size(); ++d) {
    uint32_t function = 0;
    if (stackrec_recorder_intern_function(recorder, &frames[d].function, &function) !=
        STACKREC_OK) {
      Die("intern_function");
    }
    stackrec_interned_location location = {};
    location.function_id = function;
    location.line = frames[d].line;
    if (stackrec_recorder_intern_location(recorder, &location, &locations[d]) != STACKREC_OK) {
      Die("intern_location");
    }
  }
  stackrec_id_sample sample = {};
  if (stackrec_recorder_intern_stack(recorder, locations.data(), locations.size(),
                                     &sample.stack_id) != STACKREC_OK) {
    Die("intern_stack");
  }
  sample.values = values;
  sample.values_len = 2;
  sample.labels = &label;
  sample.labels_len = 1;
  if (stackrec_recorder_record_ids(recorder, &sample) != STACKREC_OK) Die("record_ids");
}

}  // namespace

int main(int argc, char** argv) {
  int cycles = 1000;
  bool quiet = false, ids = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cycles") == 0 && i + 1 < argc) {
      cycles = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (std::strcmp(argv[i], "--ids") == 0) {
      ids = true;
    } else {
      std::fprintf(stderr, "usage: %s [--cycles N] [--ids] [--quiet]\n", argv[0]);
      return 2;
    }
  }
  if (cycles < 10) {
    std::fprintf(stderr, "stackrec-soak: --cycles must be at least 10\n");
    return 2;
  }

  const stackrec_value_type types[] = {{Str("cpu-time"), Str("nanoseconds")},
                                       {Str("cpu-samples"), Str("count")}};
  stackrec_profile_options opts = {};
  opts.sample_types = types;
  opts.sample_types_len = 2;
  stackrec_recorder* recorder = nullptr;
  if (stackrec_recorder_new(&opts, &recorder) != STACKREC_OK) Die("recorder_new");

  std::vector<std::string> stable;
  for (int i = 0; i < kStable; ++i) stable.push_back("Stable::Module" + std::to_string(i));
  const std::string file = "/app/lib/code.rb";
  long rss_at_10 = 0, worst = 0;
  std::vector<std::string> names(kDepth);
  std::vector<stackrec_location> frames(kDepth);
  const int64_t values[2] = {10000000, 1};

  for (int cycle = 1; cycle <= cycles; ++cycle) {
    for (int i = 0; i < kFreshPerCycle; ++i) {
      // Leaf: a function that exists in this cycle only; callers: stable.
      names[0] = "Generated::Cycle" + std::to_string(cycle) + "#method_" + std::to_string(i);
      for (int d = 1; d < kDepth; ++d) names[d] = stable[(i * 7 + d * 13) % kStable];
      for (int d = 0; d < kDepth; ++d) {
        frames[d] = stackrec_location{};
        frames[d].function.name = Str(names[d]);
        frames[d].function.filename = Str(file);
        frames[d].line = d + 1;
      }
      stackrec_label label = {};
      label.key = Str("thread id");
      label.num = i % 8;
      if (ids) {
        RecordById(recorder, frames, values, label);
      } else {
        stackrec_sample sample = {frames.data(), frames.size(), values, 2, &label, 1, 0, nullptr};
        if (stackrec_recorder_record(recorder, &sample) != STACKREC_OK) Die("record");
      }
    }
    if (ids && stackrec_recorder_forget_ids(recorder) != STACKREC_OK) Die("forget_ids");
    stackrec_encoded* encoded = nullptr;
    if (stackrec_recorder_serialize(recorder, nullptr, &encoded) != STACKREC_OK) {
      Die("serialize");
    }
    stackrec_encoded_free(encoded);
    const long rss = RssKiB();
    if (cycle == 10) rss_at_10 = rss;
    if (cycle > 10 && rss > worst) worst = rss;
    if (!quiet) std::printf("cycle %4d  rss %7ld KiB\n", cycle, rss);
  }
  stackrec_recorder_free(recorder);

  const bool ok = worst <= 2 * rss_at_10;
  std::printf("rss after cycle 10: %ld KiB; highest after it: %ld KiB (%.2fx); bound 2x: %s\n",
              rss_at_10, worst, static_cast<double>(worst) / static_cast<double>(rss_at_10),
              ok ? "kept" : "BROKEN");
  return ok ? 0 : 1;
}
