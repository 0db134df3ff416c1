// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "workloads_cases.h"

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pprof_summary.h"
#include "stackrec/stackrec.h"
#include "workload_interning.h"

namespace stackrec_bench {

const char* ImplName(Impl impl) {
  switch (impl) {
    case Impl::kProfile:
      return "stackrec profile";
    case Impl::kRecorder:
      return "stackrec recorder";
    case Impl::kBaseline:
      return "baseline";
  }
  return "?";
}

const char* IdModeName(IdMode mode) {
  switch (mode) {
    case IdMode::kStackId:
      return "stack id";
    case IdMode::kStackAndLabelsIds:
      return "stack id and label-set id";
    case IdMode::kLocationIds:
      return "location ids";
  }
  return "";
}

const char* IdModeKey(IdMode mode) {
  switch (mode) {
    case IdMode::kStackId:
      return "stack_id";
    case IdMode::kStackAndLabelsIds:
      return "stack_and_labels_ids";
    case IdMode::kLocationIds:
      return "location_ids";
  }
  return "";
}

namespace {

const stackrec_serialize_options kGzip = SerializeWith(STACKREC_COMPRESSION_GZIP);
const stackrec_serialize_options kZstd = SerializeWith(STACKREC_COMPRESSION_ZSTD);
const stackrec_serialize_options kNone = SerializeWith(STACKREC_COMPRESSION_NONE);

// Every tick added by id into the profile `p` or, if it is null, the
// recorder `r`, each call timed as TimedAdds times the string path.
AddTiming TimedIdAdds(stackrec_profile* p, stackrec_recorder* r, const Workload& w,
                      IdSampleBuilder& builder) {
  return p != nullptr
             ? TimedAddsWith(
                   w, builder,
                   [p](const stackrec_id_sample& s) {
                     return stackrec_profile_add_ids(p, &s) == STACKREC_OK;
                   },
                   [p](uint64_t span, stackrec_str endpoint) {
                     return stackrec_profile_set_endpoint(p, span, endpoint) == STACKREC_OK;
                   })
             : TimedAddsWith(
                   w, builder,
                   [r](const stackrec_id_sample& s) {
                     return stackrec_recorder_record_ids(r, &s) == STACKREC_OK;
                   },
                   [r](uint64_t span, stackrec_str endpoint) {
                     return stackrec_recorder_record_endpoint(r, span, endpoint) == STACKREC_OK;
                   });
}

// The recorder's steady state, as in MeasureRecorder: a second fill
// into the other slot, then the third back in the first slot, which
// kept what it imported from the dictionary. Both are timed: interning
// imported the workload into the first slot only, so the second fill
// is the one that imports stacks and label sets at their first use.
// `m` holds the first fill's figures; with `verify`, the first slot was
// already serialized (flipped) to summarize it.
Measurement RecorderIdFills(stackrec_recorder* r, const Workload& w, IdSampleBuilder& builder,
                            bool verify, Measurement m) {
  auto flip = [r]() {
    stackrec_encoded* out = nullptr;
    const bool ok = stackrec_recorder_serialize(r, &kGzip, &out) == STACKREC_OK;
    stackrec_encoded_free(out);
    return ok;
  };
  auto record = [r](const stackrec_id_sample& s) {
    return stackrec_recorder_record_ids(r, &s) == STACKREC_OK;
  };
  auto endpoint = [r](uint64_t span, stackrec_str e) {
    return stackrec_recorder_record_endpoint(r, span, e) == STACKREC_OK;
  };
  if (!verify && !flip()) return Failed("the id path's first serialization");
  const AddTiming t2 = TimedAddsWith(w, builder, record, endpoint);
  if (!t2.ok || !flip()) return Failed("the id path's second fill");
  m.add2_ns = t2.ns;
  const AddTiming t3 = TimedAddsWith(w, builder, record, endpoint);
  if (!t3.ok) return Failed("the id path's third fill");
  m.add3_ns = t3.ns;
  m.ok = true;
  return m;
}

}  // namespace

Measurement MeasureProfile(const Workload& w, bool verify, bool serialize) {
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  if (stackrec_profile_new(&opts, &p) != STACKREC_OK) return Failed("stackrec_profile_new");
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner(p, stackrec_profile_free);
  Measurement m = {};
  const AddTiming t = TimedAdds(
      w, [p](const stackrec_sample& s) { return stackrec_profile_add(p, &s) == STACKREC_OK; },
      [p](uint64_t span, stackrec_str endpoint) {
        return stackrec_profile_set_endpoint(p, span, endpoint) == STACKREC_OK;
      });
  if (!t.ok) return Failed("stackrec_profile_add");
  TakeFirstFill(t, &m);
  Parking parking;
  Parking* park = verify ? &parking : nullptr;
  if (serialize) {
    auto with = [p](const stackrec_serialize_options& o) {
      return [p, &o](stackrec_encoded** out) {
        return stackrec_profile_serialize(p, &o, out) == STACKREC_OK;
      };
    };
    if (!TimedSerialize(with(kGzip), &m.gzip_ms, &m.gzip_bytes, park, &m.gzip_wall_ms)) {
      return Failed("stackrec_profile_serialize gzip");
    }
    if (!TimedSerialize(with(kZstd), &m.zstd_ms, &m.zstd_bytes, park)) {
      return Failed("stackrec_profile_serialize zstd");
    }
    m.peak_mib = StatusMiB("VmHWM");
    if (!TimedSerialize(with(kNone), &m.none_ms, &m.none_bytes, nullptr)) {
      return Failed("stackrec_profile_serialize none");
    }
  } else {
    m.peak_mib = StatusMiB("VmHWM");
  }
  owner.reset();
  if (verify) SummarizeParked(parking, m);
  m.ok = true;
  return m;
}

Measurement MeasureRecorder(const Workload& w, bool verify, bool serialize) {
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_recorder* r = nullptr;
  if (stackrec_recorder_new(&opts, &r) != STACKREC_OK) return Failed("stackrec_recorder_new");
  std::unique_ptr<stackrec_recorder, void (*)(stackrec_recorder*)> owner(r, stackrec_recorder_free);
  auto record = [r](const stackrec_sample& s) {
    return stackrec_recorder_record(r, &s) == STACKREC_OK;
  };
  auto endpoint = [r](uint64_t span, stackrec_str e) {
    return stackrec_recorder_record_endpoint(r, span, e) == STACKREC_OK;
  };
  auto with = [r](const stackrec_serialize_options& o) {
    return [r, &o](stackrec_encoded** out) {
      return stackrec_recorder_serialize(r, &o, out) == STACKREC_OK;
    };
  };
  Measurement m = {};
  Parking parking;
  Parking* park = verify ? &parking : nullptr;
  const AddTiming t = TimedAdds(w, record, endpoint);
  if (!t.ok) return Failed("stackrec_recorder_record");
  TakeFirstFill(t, &m);
  if (serialize) {
    if (!TimedSerialize(with(kGzip), &m.gzip_ms, &m.gzip_bytes, park, &m.gzip_wall_ms)) {
      return Failed("stackrec_recorder_serialize gzip");
    }
    stackrec_stats stats = {};
    if (stackrec_recorder_stats(r, &stats) != STACKREC_OK) return Failed("stackrec_recorder_stats");
    m.recorder_keys = stats.last_distinct_keys;
  }
  const AddTiming t2 = TimedAdds(w, record, endpoint);
  if (!t2.ok) return Failed("stackrec_recorder_record (second fill)");
  m.add2_ns = t2.ns;
  if (serialize && !TimedSerialize(with(kZstd), &m.zstd_ms, &m.zstd_bytes, park)) {
    return Failed("stackrec_recorder_serialize zstd");
  }
  m.peak_mib = StatusMiB("VmHWM");
  // The third fill goes back to the first slot, which kept the tables of
  // its interval (strings, functions, locations, stacks, label sets): what
  // a sampler meets in a long-running process, every interval but the
  // first two. After the memory reading, so that figure is unchanged.
  // (Without serializations there are no flips and no steady state.)
  if (serialize) {
    const AddTiming t3 = TimedAdds(w, record, endpoint);
    if (!t3.ok) return Failed("stackrec_recorder_record (third fill)");
    m.add3_ns = t3.ns;
  }
  owner.reset();
  if (verify) SummarizeParked(parking, m);
  m.ok = true;
  return m;
}

Measurement MeasureIds(Impl impl, const Workload& w, IdMode mode, bool verify) {
  const stackrec_profile_options opts = ProfileOptions();
  stackrec_profile* p = nullptr;
  stackrec_recorder* r = nullptr;
  if (impl == Impl::kProfile) {
    if (stackrec_profile_new(&opts, &p) != STACKREC_OK) return Failed("stackrec_profile_new");
  } else if (stackrec_recorder_new(&opts, &r) != STACKREC_OK) {
    return Failed("stackrec_recorder_new");
  }
  std::unique_ptr<stackrec_profile, void (*)(stackrec_profile*)> owner_p(p, stackrec_profile_free);
  std::unique_ptr<stackrec_recorder, void (*)(stackrec_recorder*)> owner_r(r,
                                                                           stackrec_recorder_free);
  Measurement m = {};
  Interned interned;
  const Stopwatch intern_watch;
  const bool interned_ok = InternInto(p, r, w, &interned);
  m.intern_ms = intern_watch.CpuMs();
  if (!interned_ok) return Failed("interning the workload");
  IdSampleBuilder builder(w, interned.stack_ids, interned.location_ids,
                          mode == IdMode::kLocationIds,
                          mode == IdMode::kStackAndLabelsIds ? &interned.label_sets : nullptr);
  const AddTiming t = TimedIdAdds(p, r, w, builder);
  if (!t.ok)
    return Failed(p != nullptr ? "stackrec_profile_add_ids" : "stackrec_recorder_record_ids");
  TakeFirstFill(t, &m);
  if (verify) {
    stackrec_encoded* out = nullptr;
    const stackrec_status st = p != nullptr ? stackrec_profile_serialize(p, &kGzip, &out)
                                            : stackrec_recorder_serialize(r, &kGzip, &out);
    if (st != STACKREC_OK) return Failed("serializing the id path's profile");
    m.summaries = 1;
    m.summary[0] = Summarize(stackrec_encoded_data(out), stackrec_encoded_size(out));
    stackrec_encoded_free(out);
  }
  if (r != nullptr) return RecorderIdFills(r, w, builder, verify, m);
  m.ok = true;
  return m;
}

AddTiming BaselineAdds(const Workload& w, BaselineProfile& b) {
  return TimedAdds(
      w, [&b](const stackrec_sample& s) { return b.Add(s); },
      [&b](uint64_t span, stackrec_str e) {
        b.SetEndpoint(span, std::string_view(e.ptr, e.len));
        return true;
      });
}

Measurement MeasureBaseline(const Workload& w, bool verify) {
  Measurement m = {};
  std::string gz;
  {
    BaselineProfile b(ProfileOptions());
    const AddTiming t = BaselineAdds(w, b);
    if (!t.ok) return Failed("BaselineProfile::Add");
    TakeFirstFill(t, &m);
    const Stopwatch watch;
    const std::string pb = b.Serialize();
    m.pb_ms = watch.CpuMs();
    gz = Gzip(pb, 6);
    m.gzip_ms = watch.CpuMs();
    m.gzip_wall_ms = watch.WallMs();
    m.gzip6_ms = m.gzip_ms - m.pb_ms;
    m.gzip_bytes = gz.size();
    m.peak_mib = StatusMiB("VmHWM");
    const Stopwatch watch1;
    const std::string gz1 = Gzip(pb, 1);
    m.gzip1_ms = watch1.CpuMs();
    m.gzip1_bytes = gz1.size();
    m.none_bytes = pb.size();
  }
  if (verify) {
    m.summaries = 1;
    m.summary[0] = Summarize(reinterpret_cast<const uint8_t*>(gz.data()), gz.size());
  }
  m.ok = true;
  return m;
}

Measurement Measure(Impl impl, const Workload& w, bool verify) {
  switch (impl) {
    case Impl::kProfile:
      return MeasureProfile(w, verify);
    case Impl::kRecorder:
      return MeasureRecorder(w, verify);
    case Impl::kBaseline:
      return MeasureBaseline(w, verify);
  }
  return Failed("no such implementation");
}

}  // namespace stackrec_bench
