// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// Reading a caller's sample, the hottest code of the C boundary: the
// arrays checked, the labels converted into on-stack room, the frames
// fingerprinted straight from the caller's structs and converted into
// views only when the profile does not know the stack. Inline, because
// every add and record runs it once per sample.
#ifndef STACKREC_SRC_CAPI_C_SAMPLE_H_
#define STACKREC_SRC_CAPI_C_SAMPLE_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/status.h"
#include "capi/c_checks.h"
#include "hash/fingerprint.h"
#include "input/sample_view.h"
#include "input/trace_link.h"
#include "profile/profile.h"
#include "stackrec/stackrec.h"

namespace stackrec {

// Per-thread scratch for converting a sample: reused across calls so that
// the hot path does not allocate once warmed up.
struct SampleScratch {
  std::vector<LocationView> locations;
  std::vector<LabelView> labels;
  std::vector<uint64_t> frame_hashes;
};

inline SampleScratch& Scratch() {
  thread_local SampleScratch scratch;
  return scratch;
}

// Room for a sample's labels in the caller's stack frame: converting the
// usual few then needs no thread-local scratch, which from a shared library
// costs a call to __tls_get_addr. Raw bytes, so that the room is not zeroed
// on every call; ToLabels constructs the views it uses.
struct LabelRoom {
  static constexpr size_t kCount = 8;
  alignas(LabelView) unsigned char bytes[kCount * sizeof(LabelView)];
  LinkHex link_hex;  // what a link's two labels view
};

// The labels as views, then a link's two labels (trace_link.h) if there is
// one, in `room` or, past its size, in this thread's scratch; errors name
// "<array>[i]", and "<link_field>.trace_id" or ".span_id". Inlined into
// every add: its call and prologue were a sixth of its instructions.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status ToLabels(const stackrec_label* labels, size_t len,
                                                    const stackrec_link* link, const char* array,
                                                    const char* link_field, LabelRoom* room,
                                                    absl::Span<const LabelView>* out) {
  if (len == 0 && link == nullptr) {  // no labels, or a label-set id
    *out = {};
    return OkStatus();
  }
  const size_t total = len + (link != nullptr ? kLinkLabels : 0);
  unsigned char* storage = room->bytes;
  if (total > LabelRoom::kCount) {
    SampleScratch& scratch = Scratch();
    // Grown, never shrunk: resizing down and up again per call would
    // zero-fill the views every time.
    if (scratch.labels.size() < total) scratch.labels.resize(total);
    storage = reinterpret_cast<unsigned char*>(scratch.labels.data());  // once (see ToLocations)
  }
  // Converted, and every string checked at once without a branch per
  // string, as the frames' pass does (FingerprintSampleFrames): a length
  // under the limit and no NULL with a length. A string that fails is
  // viewed as empty, never with its length: a string_view longer than
  // PTRDIFF_MAX traps in hardened abseil. ToView then finds and names the
  // culprit (a string of exactly kMaxStringBytes, which it accepts, goes
  // there too).
  bool bad = false;
  auto view = [&bad](stackrec_str str) ABSL_ATTRIBUTE_ALWAYS_INLINE {
    const bool ok = (str.len & ~(kMaxStringBytes - 1)) == 0 && (str.ptr != nullptr || str.len == 0);
    bad |= !ok;
    return ok ? absl::string_view(str.ptr, str.len) : absl::string_view();
  };
  for (size_t i = 0; i < len; ++i) {
    const stackrec_label& in = labels[i];
    new (storage + i * sizeof(LabelView))
        LabelView{view(in.key), view(in.str), in.num, view(in.num_unit)};
  }
  LabelView* const views = std::launder(reinterpret_cast<LabelView*>(storage));
  if (bad) {
    for (size_t i = 0; i < len; ++i) {
      const stackrec_label& in = labels[i];
      LabelView& v = views[i];
      STACKREC_RETURN_IF_ERROR(ToView(in.key, array, i, "key", &v.key));
      STACKREC_RETURN_IF_ERROR(ToView(in.str, array, i, "str", &v.str));
      STACKREC_RETURN_IF_ERROR(ToView(in.num_unit, array, i, "num_unit", &v.num_unit));
    }
  }
  if (link != nullptr) {
    new (storage + len * sizeof(LabelView)) LabelView[kLinkLabels];
    STACKREC_RETURN_IF_ERROR(
        LinkLabels(link->trace_id, link->span_id, link_field, &room->link_hex, views + len));
  }
  *out = absl::MakeConstSpan(views, total);
  return OkStatus();
}

// Frame `in` as a view, its strings as ToView would give them but not
// checked: for a frame whose strings were (ToLocations below, or the pass
// that hashed them, FingerprintSampleFrames).
inline LocationView FrameView(const stackrec_location& in) {
  LocationView v;
  v.mapping.memory_start = in.mapping.memory_start;
  v.mapping.memory_limit = in.mapping.memory_limit;
  v.mapping.file_offset = in.mapping.file_offset;
  v.mapping.filename = CheckedView(in.mapping.filename);
  v.mapping.build_id = CheckedView(in.mapping.build_id);
  v.function.name = CheckedView(in.function.name);
  v.function.system_name = CheckedView(in.function.system_name);
  v.function.filename = CheckedView(in.function.filename);
  v.function.start_line = in.function.start_line;
  v.address = in.address;
  v.line = in.line;
  v.inlined = in.inlined;
  return v;
}

// ToView's checks of frame i's strings, naming "sample.locations[i].<field>".
inline Status CheckFrameStrings(const stackrec_location& in, size_t i) {
  static constexpr const char* kArray = "sample.locations";
  absl::string_view checked;
  STACKREC_RETURN_IF_ERROR(ToView(in.mapping.filename, kArray, i, "mapping.filename", &checked));
  STACKREC_RETURN_IF_ERROR(ToView(in.mapping.build_id, kArray, i, "mapping.build_id", &checked));
  STACKREC_RETURN_IF_ERROR(ToView(in.function.name, kArray, i, "function.name", &checked));
  STACKREC_RETURN_IF_ERROR(
      ToView(in.function.system_name, kArray, i, "function.system_name", &checked));
  return ToView(in.function.filename, kArray, i, "function.filename", &checked);
}

// The sample's frames as views, in this thread's scratch; errors name
// "sample.locations[i]". The array itself was checked by CheckArray.
inline Status ToLocations(const stackrec_sample& s, absl::Span<const LocationView>* out) {
  SampleScratch& scratch = Scratch();
  // Grown, never shrunk (see ToLabels).
  if (scratch.locations.size() < s.locations_len) scratch.locations.resize(s.locations_len);
  // Taken once: the views' stores may alias any pointer as far as the
  // compiler knows, so indexing the vector would reload its data pointer
  // (through a call to __tls_get_addr, from a shared library) every frame.
  LocationView* const views = scratch.locations.data();
  for (size_t i = 0; i < s.locations_len; ++i) {
    STACKREC_RETURN_IF_ERROR(CheckFrameStrings(s.locations[i], i));
    views[i] = FrameView(s.locations[i]);
  }
  *out = absl::MakeConstSpan(views, s.locations_len);
  return OkStatus();
}

// All of the sample but its frames; the arrays were checked by CheckArray.
inline Status ToSampleRest(const stackrec_sample& s, LabelRoom* room, SampleView* out) {
  out->values = absl::MakeConstSpan(s.values, s.values_len);
  out->timestamp_ns = s.timestamp_ns;
  return ToLabels(s.labels, s.labels_len, s.link, "sample.labels", "sample.link", room,
                  &out->labels);
}

inline Status CheckSampleArrays(const stackrec_sample& s) {
  STACKREC_RETURN_IF_ERROR(
      CheckArray(s.locations, s.locations_len, "sample.locations", STACKREC_MAX_STACK_LEN));
  STACKREC_RETURN_IF_ERROR(CheckArray(s.values, s.values_len, "sample.values"));
  return CheckArray(s.labels, s.labels_len, "sample.labels");
}

inline Status ToSample(const stackrec_sample* s, LabelRoom* room, SampleView* out) {
  if (s == nullptr) return NullArgument("sample");
  STACKREC_RETURN_IF_ERROR(CheckSampleArrays(*s));
  STACKREC_RETURN_IF_ERROR(ToLocations(*s, &out->locations));
  return ToSampleRest(*s, room, out);
}

// Room for a sample's frame hashes in the caller's stack frame, as
// LabelRoom is for its labels: the thread-local scratch costs a call to
// __tls_get_addr a sample. 1 KiB, for up to 128 frames.
struct HashRoom {
  static constexpr size_t kCount = 128;
  uint64_t hashes[kCount];
};

// The fingerprint and frame hashes FingerprintFrames would give the
// sample's frames as views, read straight from the caller's structs: no
// copy, and one pass over them. The hashes go to `room`, or, past its
// size, to this thread's scratch.
// The array was checked by CheckArray. False if ToLocations might refuse a
// string (it then decides, and says why; a string of exactly
// kMaxStringBytes, which it accepts, takes that path too).
inline bool FingerprintSampleFrames(const stackrec_sample& s, HashRoom* room, Fingerprint* out,
                                    const uint64_t** frame_hashes) {
  uint64_t* hashes = room->hashes;
  if (s.locations_len > HashRoom::kCount) {
    std::vector<uint64_t>& scratch = Scratch().frame_hashes;
    if (scratch.size() < s.locations_len) scratch.resize(s.locations_len);
    hashes = scratch.data();  // once (see ToLocations)
  }
  *frame_hashes = hashes;
  // Each string is checked as the frame hash views it, without a branch:
  // its length under the limit (a power of two, so one test of its bits)
  // and no NULL with a length. A bad one is viewed as empty, so never
  // read, and fails the pass. (The hash views the system name and the
  // mapping's strings only for a frame that has some of them, so the
  // common frame checks two strings, not five.)
  bool bad = false;
  auto view = [&bad](stackrec_str str) ABSL_ATTRIBUTE_ALWAYS_INLINE {
    const bool ok = (str.len & ~(kMaxStringBytes - 1)) == 0 && (str.ptr != nullptr || str.len == 0);
    bad |= !ok;
    return ok ? absl::string_view(str.ptr, str.len) : absl::string_view();
  };
  auto raw = [](stackrec_str str) { return RawString{str.ptr, str.len}; };
  *out = FingerprintFrameArray(s.locations, s.locations_len, view, raw, hashes);
  return !bad;
}

// Converts `s` and passes it to `use(view, frames)`, a Profile::Add or a
// Recorder::Record; errors as ToSample's. The frames go as a HashedFrames:
// fingerprinted straight from the caller's structs and converted into
// views only if the profile does not know the stack already.
template <typename Use>
inline Status WithSample(const stackrec_sample* s, Use use) {
  if (s == nullptr) return NullArgument("sample");
  STACKREC_RETURN_IF_ERROR(CheckSampleArrays(*s));
  SampleView view;
  LabelRoom room;
  HashRoom hash_room;
  Fingerprint fingerprint;
  const uint64_t* frame_hashes = nullptr;
  if (!FingerprintSampleFrames(*s, &hash_room, &fingerprint, &frame_hashes)) {
    STACKREC_RETURN_IF_ERROR(ToLocations(*s, &view.locations));  // says what is wrong
    STACKREC_RETURN_IF_ERROR(ToSampleRest(*s, &room, &view));
    return use(view, static_cast<const HashedFrames*>(nullptr));
  }
  STACKREC_RETURN_IF_ERROR(ToSampleRest(*s, &room, &view));
  auto load = [s](absl::Span<const LocationView>* frames) { return ToLocations(*s, frames); };
  auto frame = [s](size_t i) { return FrameView(s->locations[i]); };
  auto any_inlined = [s] {
    for (size_t i = 0; i < s->locations_len; ++i) {
      if (s->locations[i].inlined) return true;
    }
    return false;
  };
  const HashedFrames hashed{fingerprint, frame_hashes, s->locations_len, load, frame, any_inlined};
  return use(view, &hashed);
}

inline Status ToIdSample(const stackrec_id_sample* s, LabelRoom* room, IdSampleView* out) {
  if (s == nullptr) return NullArgument("sample");
  STACKREC_RETURN_IF_ERROR(CheckArray(s->location_ids, s->location_ids_len, "sample.location_ids",
                                      STACKREC_MAX_STACK_LEN));
  STACKREC_RETURN_IF_ERROR(CheckArray(s->values, s->values_len, "sample.values"));
  STACKREC_RETURN_IF_ERROR(CheckArray(s->labels, s->labels_len, "sample.labels"));
  out->stack_id = s->stack_id;
  out->location_ids = absl::MakeConstSpan(s->location_ids, s->location_ids_len);
  out->values = absl::MakeConstSpan(s->values, s->values_len);
  out->timestamp_ns = s->timestamp_ns;
  out->labels_id = s->labels_id;
  out->has_link = s->link != nullptr;
  return ToLabels(s->labels, s->labels_len, s->link, "sample.labels", "sample.link", room,
                  &out->labels);
}

}  // namespace stackrec

#endif  // STACKREC_SRC_CAPI_C_SAMPLE_H_
