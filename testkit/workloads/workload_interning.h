// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// A workload interned ahead of sampling, as a runtime interns its code once
// and then records by id. Header-only: the interning calls are compiled
// into each benchmark, which links a stackrec library, so the workloads
// library itself still calls no stackrec function.
#ifndef STACKREC_WORKLOADS_WORKLOAD_INTERNING_H_
#define STACKREC_WORKLOADS_WORKLOAD_INTERNING_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stackrec/stackrec.h"
#include "workload.h"

namespace stackrec_bench {

inline bool IsEmpty(const stackrec_mapping& m) {
  return m.memory_start == 0 && m.memory_limit == 0 && m.file_offset == 0 && m.filename.len == 0 &&
         m.build_id.len == 0;
}
inline bool IsEmpty(const stackrec_function& f) {
  return f.name.len == 0 && f.system_name.len == 0 && f.filename.len == 0 && f.start_line == 0;
}

// The workload's mappings, functions, locations, stacks and label sets
// interned into one profile or recorder, as a runtime does once ahead of
// sampling: the ids of every location (by index), stack, thread's label set
// outside requests and span's label set. Interning an equal function again
// returns its id, so each location's function is simply interned.
struct Interned {
  std::vector<uint32_t> location_ids, stack_ids;
  LabelSetIds label_sets;
};

template <typename Mapping, typename Function, typename Location, typename Stack, typename Labels>
bool InternWorkload(const Workload& w, Interned* out, Mapping&& intern_mapping,
                    Function&& intern_function, Location&& intern_location, Stack&& intern_stack,
                    Labels&& intern_labels) {
  out->location_ids.reserve(w.locations().size());
  for (const stackrec_location& loc : w.locations()) {
    stackrec_interned_location l = {};
    if (!IsEmpty(loc.mapping) && intern_mapping(&loc.mapping, &l.mapping_id) != STACKREC_OK) {
      return false;
    }
    if (!IsEmpty(loc.function) && intern_function(&loc.function, &l.function_id) != STACKREC_OK) {
      return false;
    }
    l.address = loc.address;
    l.line = loc.line;
    l.inlined = loc.inlined;
    uint32_t id = 0;
    if (intern_location(&l, &id) != STACKREC_OK) return false;
    out->location_ids.push_back(id);
  }
  std::vector<uint32_t> ids(w.max_depth());
  out->stack_ids.reserve(w.stacks());
  for (size_t s = 0; s < w.stacks(); ++s) {
    const uint32_t* index = w.frames(s);
    for (uint32_t i = 0; i < w.depth(s); ++i) ids[i] = out->location_ids[index[i]];
    uint32_t id = 0;
    if (intern_stack(ids.data(), size_t{w.depth(s)}, &id) != STACKREC_OK) return false;
    out->stack_ids.push_back(id);
  }
  // The label sets the ticks use (a sampler interns its thread's once, and
  // a request's when it starts).
  LabelSetIds& sets = out->label_sets;
  stackrec_label labels[3] = {};
  for (const Tick& tick : w.ticks()) {
    uint32_t& id = tick.span == Tick::kNoSpan ? sets.thread[tick.thread] : sets.span[tick.span];
    if (id != 0) continue;
    const size_t n = FillLabels(w, tick, labels);
    if (intern_labels(labels, n, &id) != STACKREC_OK) return false;
  }
  return true;
}

// The workload interned into the profile `p` or, if it is null, the
// recorder `r`.
inline bool InternInto(stackrec_profile* p, stackrec_recorder* r, const Workload& w,
                       Interned* interned) {
  return p != nullptr ? InternWorkload(
                            w, interned,
                            [p](const stackrec_mapping* x, uint32_t* id) {
                              return stackrec_profile_intern_mapping(p, x, id);
                            },
                            [p](const stackrec_function* x, uint32_t* id) {
                              return stackrec_profile_intern_function(p, x, id);
                            },
                            [p](const stackrec_interned_location* x, uint32_t* id) {
                              return stackrec_profile_intern_location(p, x, id);
                            },
                            [p](const uint32_t* x, size_t n, uint32_t* id) {
                              return stackrec_profile_intern_stack(p, x, n, id);
                            },
                            [p](const stackrec_label* x, size_t n, uint32_t* id) {
                              return stackrec_profile_intern_labels(p, x, n, id);
                            })
                      : InternWorkload(
                            w, interned,
                            [r](const stackrec_mapping* x, uint32_t* id) {
                              return stackrec_recorder_intern_mapping(r, x, id);
                            },
                            [r](const stackrec_function* x, uint32_t* id) {
                              return stackrec_recorder_intern_function(r, x, id);
                            },
                            [r](const stackrec_interned_location* x, uint32_t* id) {
                              return stackrec_recorder_intern_location(r, x, id);
                            },
                            [r](const uint32_t* x, size_t n, uint32_t* id) {
                              return stackrec_recorder_intern_stack(r, x, n, id);
                            },
                            [r](const stackrec_label* x, size_t n, uint32_t* id) {
                              return stackrec_recorder_intern_labels(r, x, n, id);
                            });
}

}  // namespace stackrec_bench

#endif  // STACKREC_WORKLOADS_WORKLOAD_INTERNING_H_
