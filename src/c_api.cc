// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
//
// The C boundary: the only file that sees the types of stackrec.h.
//
// Every exported function (1) checks the C-level arguments (NULLs, lengths),
// (2) converts them into the plain C++ views of profile.h without copying
// string bytes, (3) calls the C++ core inside Guard(), which turns any
// exception into a status, so nothing ever unwinds into C.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "clock.h"
#include "compression.h"
#include "dictionary.h"
#include "live_heap.h"
#include "pprof_encoder.h"
#include "profile.h"
#include "recorder.h"
#include "stackrec/stackrec.h"
#include "status.h"
#include "upscaling.h"

static_assert(STACKREC_OK == static_cast<int>(stackrec::Code::kOk), "");
static_assert(STACKREC_INVALID_ARGUMENT ==
                  static_cast<int>(stackrec::Code::kInvalidArgument), "");
static_assert(STACKREC_OUT_OF_MEMORY ==
                  static_cast<int>(stackrec::Code::kOutOfMemory), "");
static_assert(STACKREC_LIMIT_EXCEEDED ==
                  static_cast<int>(stackrec::Code::kLimitExceeded), "");
static_assert(STACKREC_BUSY == static_cast<int>(stackrec::Code::kBusy), "");
static_assert(STACKREC_INTERNAL == static_cast<int>(stackrec::Code::kInternal),
              "");
static_assert(STACKREC_UNSUPPORTED == static_cast<int>(stackrec::Code::kUnsupported), "");
static_assert(STACKREC_COMPRESSION_GZIP ==
                  static_cast<int>(stackrec::Compression::kGzip), "");
static_assert(STACKREC_COMPRESSION_NONE ==
                  static_cast<int>(stackrec::Compression::kNone), "");
static_assert(STACKREC_COMPRESSION_ZSTD ==
                  static_cast<int>(stackrec::Compression::kZstd), "");

struct stackrec_profile {
  std::unique_ptr<stackrec::Profile> impl;
  // Pre-interned ids; created by the first call that needs it.
  std::unique_ptr<stackrec::Dictionary> dict;
  stackrec::OutputSizes output_sizes;  // of this handle's serializations
};

struct stackrec_recorder {
  std::unique_ptr<stackrec::Recorder> impl;
};

struct stackrec_encoded {
  stackrec::TableString bytes;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<std::pair<std::string, int64_t>> endpoint_counts;
  stackrec::SerializationStats stats;
};

namespace stackrec {
namespace {

stackrec_status ToC(Status s) { return static_cast<stackrec_status>(s.code()); }

// Runs `body` and converts exceptions: the core reports bad input through
// Status and throws only std::bad_alloc, but nothing may unwind into C.
template <typename F>
stackrec_status Guard(F&& body) noexcept {
  try {
    return ToC(body());
  } catch (const std::bad_alloc&) {
    return ToC(Error(Code::kOutOfMemory, "out of memory"));
  } catch (const std::exception& e) {
    return ToC(Error(Code::kInternal, "internal error: %s", e.what()));
  } catch (...) {
    return ToC(Error(Code::kInternal, "internal error: unknown exception"));
  }
}

// Longer strings are rejected: no symbol or label is this long, and the
// encoder writes each string with an int-sized length. A power of two, so
// that the hot paths test a length against it with one mask of its bits.
constexpr size_t kMaxStringBytes = STACKREC_MAX_STR_LEN;
static_assert((kMaxStringBytes & (kMaxStringBytes - 1)) == 0, "");

Status NullArgument(const char* name) {
  return Error(Code::kInvalidArgument, "%s is NULL", name);
}

// A {ptr, len} pair that passed ToView's checks as a string_view: an empty
// one never keeps the caller's pointer.
absl::string_view CheckedView(stackrec_str s) {
  return s.len == 0 ? absl::string_view() : absl::string_view(s.ptr, s.len);
}

// A {ptr, len} pair as a string_view; `field` names it in the error.
Status ToView(stackrec_str s, const char* field, absl::string_view* out) {
  if (s.ptr == nullptr && s.len != 0) {
    return Error(Code::kInvalidArgument, "%s.ptr is NULL but its len is %zu",
                 field, s.len);
  }
  if (s.len > kMaxStringBytes) {
    return Error(Code::kInvalidArgument, "%s.len %zu is over the %zu byte limit",
                 field, s.len, kMaxStringBytes);
  }
  *out = CheckedView(s);
  return OkStatus();
}

// The same for an element of an array: "sample.labels[3].key", or
// "opts.comments[3]" when `field` is "".
Status ToView(stackrec_str s, const char* array, size_t index,
              const char* field, absl::string_view* out) {
  const char* dot = *field == '\0' ? "" : ".";
  if (s.ptr == nullptr && s.len != 0) {
    return Error(Code::kInvalidArgument,
                 "%s[%zu]%s%s.ptr is NULL but its len is %zu", array, index,
                 dot, field, s.len);
  }
  if (s.len > kMaxStringBytes) {
    return Error(Code::kInvalidArgument,
                 "%s[%zu]%s%s.len %zu is over the %zu byte limit", array, index,
                 dot, field, s.len, kMaxStringBytes);
  }
  *out = CheckedView(s);
  return OkStatus();
}

// An array argument: at most `max` elements (STACKREC_MAX_STACK_LEN for a
// stack, else STACKREC_MAX_ARRAY_LEN), and NULL only with length 0. The
// limits keep every byte size far from overflowing.
template <typename T>
Status CheckArray(const T* ptr, size_t len, const char* name,
                  size_t max = STACKREC_MAX_ARRAY_LEN) {
  if (len > max) {
    return Error(Code::kInvalidArgument, "%s_len %zu is over the limit of %zu", name, len,
                 max);
  }
  if (ptr == nullptr && len != 0) {
    return Error(Code::kInvalidArgument, "%s is NULL but %s_len is %zu", name,
                 name, len);
  }
  return OkStatus();
}

Status ToOptions(const stackrec_profile_options* opts, ProfileOptions* out) {
  if (opts == nullptr) return NullArgument("opts");
  STACKREC_RETURN_IF_ERROR(
      CheckArray(opts->sample_types, opts->sample_types_len, "opts.sample_types"));
  ProfileOptions in;
  in.sample_types.resize(opts->sample_types_len);
  for (size_t i = 0; i < opts->sample_types_len; ++i) {
    absl::string_view type, unit;
    STACKREC_RETURN_IF_ERROR(
        ToView(opts->sample_types[i].type, "opts.sample_types", i, "type", &type));
    STACKREC_RETURN_IF_ERROR(
        ToView(opts->sample_types[i].unit, "opts.sample_types", i, "unit", &unit));
    in.sample_types[i] = ValueType{std::string(type), std::string(unit)};
  }
  if (opts->sample_types_enabled != nullptr) {
    in.enabled.assign(opts->sample_types_enabled,
                      opts->sample_types_enabled + opts->sample_types_len);
  }
  absl::string_view ptype, punit;
  STACKREC_RETURN_IF_ERROR(ToView(opts->period_type.type, "opts.period_type.type", &ptype));
  STACKREC_RETURN_IF_ERROR(ToView(opts->period_type.unit, "opts.period_type.unit", &punit));
  in.period_type = ValueType{std::string(ptype), std::string(punit)};
  in.period = opts->period;
  in.max_frames = opts->max_frames;
  in.max_memory_bytes = opts->max_memory_bytes;
  in.max_output_bytes = opts->max_output_bytes;
  absl::string_view view;
  STACKREC_RETURN_IF_ERROR(ToView(opts->default_sample_type, "opts.default_sample_type", &view));
  in.default_sample_type = std::string(view);
  STACKREC_RETURN_IF_ERROR(CheckArray(opts->comments, opts->comments_len, "opts.comments"));
  for (size_t i = 0; i < opts->comments_len; ++i) {
    STACKREC_RETURN_IF_ERROR(ToView(opts->comments[i], "opts.comments", i, "", &view));
    in.comments.emplace_back(view);
  }
  STACKREC_RETURN_IF_ERROR(ToView(opts->drop_frames, "opts.drop_frames", &view));
  in.drop_frames = std::string(view);
  STACKREC_RETURN_IF_ERROR(ToView(opts->keep_frames, "opts.keep_frames", &view));
  in.keep_frames = std::string(view);
  // Only recorders read the live-heap types; the array is checked for both,
  // as every array of the header is.
  STACKREC_RETURN_IF_ERROR(
      CheckArray(opts->live_heap_types, opts->live_heap_types_len, "opts.live_heap_types"));
  return MakeProfileOptions(in, out);
}

// The live-heap fields of `opts` (already checked by ToOptions), against
// its `sample_types` declared types.
Status ToLiveHeapOptions(const stackrec_profile_options* opts, size_t sample_types,
                         LiveHeapOptions* out) {
  LiveHeapOptions in;
  if (opts->live_heap_types_len != 0) {
    in.types.assign(opts->live_heap_types, opts->live_heap_types + opts->live_heap_types_len);
  }
  in.max_objects = opts->max_tracked_objects;
  return MakeLiveHeapOptions(in, sample_types, out);
}

// Per-thread scratch for converting a sample: reused across calls so that
// the hot path does not allocate once warmed up.
struct SampleScratch {
  std::vector<LocationView> locations;
  std::vector<LabelView> labels;
  std::vector<uint64_t> frame_hashes;
};

SampleScratch& Scratch() {
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
};

// The labels as views, in `room` or, past its size, in this thread's
// scratch; errors name "<array>[i]". Inlined into every add: its call and
// prologue were a sixth of its instructions.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status ToLabels(const stackrec_label* labels, size_t len,
                                                    const char* array, LabelRoom* room,
                                                    absl::Span<const LabelView>* out) {
  if (len == 0) {  // no labels, or a label-set id
    *out = {};
    return OkStatus();
  }
  unsigned char* storage = room->bytes;
  if (len > LabelRoom::kCount) {
    SampleScratch& scratch = Scratch();
    // Grown, never shrunk: resizing down and up again per call would
    // zero-fill the views every time.
    if (scratch.labels.size() < len) scratch.labels.resize(len);
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
  *out = absl::MakeConstSpan(views, len);
  return OkStatus();
}

// Frame `in` as a view, its strings as ToView would give them but not
// checked: for a frame whose strings were (ToLocations below, or the pass
// that hashed them, FingerprintSampleFrames).
LocationView FrameView(const stackrec_location& in) {
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
Status CheckFrameStrings(const stackrec_location& in, size_t i) {
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
Status ToLocations(const stackrec_sample& s, absl::Span<const LocationView>* out) {
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
Status ToSampleRest(const stackrec_sample& s, LabelRoom* room, SampleView* out) {
  out->values = absl::MakeConstSpan(s.values, s.values_len);
  out->timestamp_ns = s.timestamp_ns;
  return ToLabels(s.labels, s.labels_len, "sample.labels", room, &out->labels);
}

Status CheckSampleArrays(const stackrec_sample& s) {
  STACKREC_RETURN_IF_ERROR(CheckArray(s.locations, s.locations_len, "sample.locations",
                                      STACKREC_MAX_STACK_LEN));
  STACKREC_RETURN_IF_ERROR(CheckArray(s.values, s.values_len, "sample.values"));
  return CheckArray(s.labels, s.labels_len, "sample.labels");
}

Status ToSample(const stackrec_sample* s, LabelRoom* room, SampleView* out) {
  if (s == nullptr) return NullArgument("sample");
  STACKREC_RETURN_IF_ERROR(CheckSampleArrays(*s));
  STACKREC_RETURN_IF_ERROR(ToLocations(*s, &out->locations));
  return ToSampleRest(*s, room, out);
}

// Room for a sample's frame hashes in the caller's stack frame, as
// LabelRoom is for its labels: the thread-local scratch costs a call to
// __tls_get_addr a sample. 1 KiB, for up to 128 frames. BM_AddKnown/typical,
// pinned, alternating: 397 / 376 / 366 / 360 / 357 / 359 ns a sample with
// the scratch, 386 / 372 / 357 / 358 / 346 / 351 with the room.
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
bool FingerprintSampleFrames(const stackrec_sample& s, HashRoom* room, Fingerprint* out,
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
// Recorder::Record; errors as ToSample's. The frames go as a FramesHint:
// fingerprinted straight from the caller's structs and converted into
// views only if the profile does not know the stack already.
template <typename Use>
Status WithSample(const stackrec_sample* s, Use use) {
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
    return use(view, static_cast<const FramesHint*>(nullptr));
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
  const FramesHint hint{fingerprint, frame_hashes, s->locations_len, load, frame, any_inlined};
  return use(view, &hint);
}

// A C caller may put any int in an enum field; reading it as the C++ enum
// type would be undefined when it is out of range, so read the bits.
template <typename Enum>
int EnumBits(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// ---- Structs that grow (contract point 7) ----------------------------------

// A host passes each growable struct with the sizeof of the header it was
// built against. No version of a struct will be larger than this, and a
// longer struct's tail is read byte by byte.
constexpr size_t kMaxStructBytes = 4096;

// A size a version of a struct aligned to `align` can have.
Status CheckStructSize(size_t size, size_t align, const char* name) {
  if (size == 0 || size % align != 0 || size > kMaxStructBytes) {
    return Error(Code::kInvalidArgument,
                 "%s_size %zu is not the size of a version of the struct (a multiple of %zu, "
                 "at most %zu)",
                 name, size, align, kMaxStructBytes);
  }
  return OkStatus();
}

// The host's `size` bytes at `in` as this library's `known` bytes at
// `copy`: a shorter struct (an older header) is zero-extended, so the
// fields it lacks take their defaults; a longer one (a newer header) must
// be zero past what this library knows.
Status ReadResized(const void* in, size_t size, size_t known, size_t align, const char* name,
                   void* copy) {
  STACKREC_RETURN_IF_ERROR(CheckStructSize(size, align, name));
  const unsigned char* bytes = static_cast<const unsigned char*>(in);
  for (size_t i = known; i < size; ++i) {
    if (bytes[i] != 0) {
      return Error(Code::kUnsupported,
                   "%s sets byte %zu of its %zu, but stackrec %d.%d.%d knows the first %zu "
                   "only: the host was built against a newer header than this library's",
                   name, i, size, STACKREC_VERSION_MAJOR, STACKREC_VERSION_MINOR,
                   STACKREC_VERSION_PATCH, known);
    }
  }
  std::memset(copy, 0, known);
  std::memcpy(copy, in, size < known ? size : known);
  return OkStatus();
}

// `*out` is `in` read as this library's T (see ReadResized); `copy` holds
// it when the host's size differs. A NULL `in` stays NULL.
template <typename T>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline Status ReadGrowable(const T* in, size_t size,
                                                        const char* name, T* copy,
                                                        const T** out) {
  *out = in;
  if (ABSL_PREDICT_TRUE(size == sizeof(T)) || in == nullptr) return OkStatus();
  STACKREC_RETURN_IF_ERROR(ReadResized(in, size, sizeof(T), alignof(T), name, copy));
  *out = copy;
  return OkStatus();
}

// Copies `value` into the host's struct of `size` bytes: what the host's
// struct lacks is not written, and what this library does not know is 0.
template <typename T>
Status WriteGrowable(const T& value, size_t size, const char* name, T* out) {
  STACKREC_RETURN_IF_ERROR(CheckStructSize(size, alignof(T), name));
  unsigned char* bytes = reinterpret_cast<unsigned char*>(out);
  std::memcpy(bytes, &value, size < sizeof(T) ? size : sizeof(T));
  if (size > sizeof(T)) std::memset(bytes + sizeof(T), 0, size - sizeof(T));
  return OkStatus();
}

Status ToSerializeOptions(const stackrec_serialize_options* opts,
                          SerializeOptions* out) {
  *out = SerializeOptions();
  if (opts != nullptr) {
    out->compression = static_cast<Compression>(EnumBits(opts->compression));
    out->level = opts->level;
  }
  return ValidateSerializeOptions(*out);
}

Status ToUpscalingRule(const stackrec_upscaling_rule* r, UpscalingRule* out) {
  if (r == nullptr) return NullArgument("rule");
  switch (EnumBits(r->kind)) {
    case STACKREC_UPSCALING_PROPORTIONAL: out->kind = UpscalingRule::Kind::kProportional; break;
    case STACKREC_UPSCALING_POISSON: out->kind = UpscalingRule::Kind::kPoisson; break;
    default:
      return Error(Code::kInvalidArgument, "rule.kind %d is not a stackrec_upscaling_kind",
                   EnumBits(r->kind));
  }
  STACKREC_RETURN_IF_ERROR(
      CheckArray(r->value_offsets, r->value_offsets_len, "rule.value_offsets"));
  out->offsets.assign(r->value_offsets, r->value_offsets + r->value_offsets_len);
  absl::string_view view;
  STACKREC_RETURN_IF_ERROR(ToView(r->label_key, "rule.label_key", &view));
  out->label_key = std::string(view);
  STACKREC_RETURN_IF_ERROR(ToView(r->label_str, "rule.label_str", &view));
  out->label_str = std::string(view);
  out->label_num = r->label_num;
  out->total_sampled = r->total_sampled;
  out->total_real = r->total_real;
  out->sum_offset = r->sum_value_offset;
  out->count_offset = r->count_value_offset;
  out->sampling_distance = r->sampling_distance;
  return OkStatus();
}


Status ToMappingView(const stackrec_mapping* m, MappingView* out) {
  if (m == nullptr) return NullArgument("mapping");
  out->memory_start = m->memory_start;
  out->memory_limit = m->memory_limit;
  out->file_offset = m->file_offset;
  STACKREC_RETURN_IF_ERROR(ToView(m->filename, "mapping.filename", &out->filename));
  return ToView(m->build_id, "mapping.build_id", &out->build_id);
}

Status ToFunctionView(const stackrec_function* f, FunctionView* out) {
  if (f == nullptr) return NullArgument("function");
  out->start_line = f->start_line;
  STACKREC_RETURN_IF_ERROR(ToView(f->name, "function.name", &out->name));
  STACKREC_RETURN_IF_ERROR(ToView(f->system_name, "function.system_name", &out->system_name));
  return ToView(f->filename, "function.filename", &out->filename);
}

Status ToIdSample(const stackrec_id_sample* s, LabelRoom* room, IdSampleView* out) {
  if (s == nullptr) return NullArgument("sample");
  STACKREC_RETURN_IF_ERROR(
      CheckArray(s->location_ids, s->location_ids_len, "sample.location_ids",
                 STACKREC_MAX_STACK_LEN));
  STACKREC_RETURN_IF_ERROR(CheckArray(s->values, s->values_len, "sample.values"));
  STACKREC_RETURN_IF_ERROR(CheckArray(s->labels, s->labels_len, "sample.labels"));
  out->stack_id = s->stack_id;
  out->location_ids = absl::MakeConstSpan(s->location_ids, s->location_ids_len);
  out->values = absl::MakeConstSpan(s->values, s->values_len);
  out->timestamp_ns = s->timestamp_ns;
  out->labels_id = s->labels_id;
  return ToLabels(s->labels, s->labels_len, "sample.labels", room, &out->labels);
}

// The profile's dictionary, created on first use.
Dictionary& DictionaryOf(stackrec_profile* profile) {
  if (profile->dict == nullptr) {
    profile->dict = std::make_unique<Dictionary>(profile->impl->options().max_frames);
  }
  return *profile->dict;
}
}  // namespace
}  // namespace stackrec

using stackrec::Error;
using stackrec::Guard;
using stackrec::NullArgument;
using stackrec::OkStatus;
using stackrec::Status;

extern "C" {

int stackrec_version_number(void) { return STACKREC_VERSION_NUMBER; }

const char* stackrec_status_name(stackrec_status status) {
  switch (stackrec::EnumBits(status)) {
    case STACKREC_OK: return "STACKREC_OK";
    case STACKREC_INVALID_ARGUMENT: return "STACKREC_INVALID_ARGUMENT";
    case STACKREC_OUT_OF_MEMORY: return "STACKREC_OUT_OF_MEMORY";
    case STACKREC_LIMIT_EXCEEDED: return "STACKREC_LIMIT_EXCEEDED";
    case STACKREC_BUSY: return "STACKREC_BUSY";
    case STACKREC_INTERNAL: return "STACKREC_INTERNAL";
    case STACKREC_UNSUPPORTED: return "STACKREC_UNSUPPORTED";
    default: return "STACKREC_UNKNOWN";
  }
}

const char* stackrec_last_error(void) { return stackrec::LastErrorMessage(); }

stackrec_status stackrec_profile_new_sized(const stackrec_profile_options* host_opts,
                                           stackrec_profile** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    stackrec_profile_options copy;
    const stackrec_profile_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::ProfileOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToOptions(opts, &options));
    auto handle = std::make_unique<stackrec_profile>();
    handle->impl = std::make_unique<stackrec::Profile>(
        std::move(options), stackrec::NowUnixNanos());
    *out = handle.release();
    return OkStatus();
  });
}

stackrec_status stackrec_profile_add_sized(stackrec_profile* profile,
                                           const stackrec_sample* host_sample,
                                           size_t sample_size) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    stackrec_sample copy;
    const stackrec_sample* sample;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample));
    return stackrec::WithSample(
        sample, [&](const stackrec::SampleView& view, const stackrec::FramesHint* frames) {
          return profile->impl->Add(view, frames);
        });
  });
}

stackrec_status stackrec_profile_set_endpoint(stackrec_profile* profile,
                                              uint64_t local_root_span_id,
                                              stackrec_str endpoint) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return profile->impl->SetEndpoint(local_root_span_id, view);
  });
}

stackrec_status stackrec_profile_add_endpoint_count(stackrec_profile* profile,
                                                   stackrec_str endpoint,
                                                   int64_t value) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return profile->impl->AddEndpointCount(view, value);
  });
}

stackrec_status stackrec_profile_add_upscaling_rule_sized(
    stackrec_profile* profile, const stackrec_upscaling_rule* host_rule, size_t rule_size) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    stackrec_upscaling_rule copy;
    const stackrec_upscaling_rule* rule;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_rule, rule_size, "rule", &copy, &rule));
    stackrec::UpscalingRule converted;
    STACKREC_RETURN_IF_ERROR(stackrec::ToUpscalingRule(rule, &converted));
    return profile->impl->AddUpscalingRule(std::move(converted));
  });
}

stackrec_status stackrec_profile_serialize_sized(
    stackrec_profile* profile, const stackrec_serialize_options* host_opts,
    stackrec_encoded** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (profile == nullptr) return NullArgument("profile");
    stackrec_serialize_options copy;
    const stackrec_serialize_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::SerializeOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToSerializeOptions(opts, &options));
    auto encoded = std::make_unique<stackrec_encoded>();
    encoded->start_ns = profile->impl->start_ns();
    encoded->end_ns = stackrec::NowUnixNanos();
    STACKREC_RETURN_IF_ERROR(stackrec::SerializeProfile(
        *profile->impl, options, encoded->end_ns, &encoded->bytes, &encoded->stats,
        &profile->output_sizes));
    encoded->endpoint_counts = profile->impl->EndpointCounts();
    *out = encoded.release();
    return OkStatus();
  });
}

stackrec_status stackrec_profile_reset(stackrec_profile* profile) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    profile->impl->Reset(stackrec::NowUnixNanos());
    return OkStatus();
  });
}

void stackrec_profile_free(stackrec_profile* profile) { delete profile; }

const uint8_t* stackrec_encoded_data(const stackrec_encoded* encoded) {
  return encoded == nullptr
             ? nullptr
             : reinterpret_cast<const uint8_t*>(encoded->bytes.data());
}

size_t stackrec_encoded_size(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->bytes.size();
}

int64_t stackrec_encoded_start_ns(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->start_ns;
}

int64_t stackrec_encoded_end_ns(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->end_ns;
}

size_t stackrec_encoded_endpoint_counts_len(const stackrec_encoded* encoded) {
  return encoded == nullptr ? 0 : encoded->endpoint_counts.size();
}

stackrec_status stackrec_encoded_endpoint_count(const stackrec_encoded* encoded,
                                                size_t index, stackrec_str* endpoint,
                                                int64_t* count) {
  return Guard([&]() -> Status {
    if (encoded == nullptr) return NullArgument("encoded");
    if (endpoint == nullptr) return NullArgument("endpoint");
    if (count == nullptr) return NullArgument("count");
    if (index >= encoded->endpoint_counts.size()) {
      return Error(stackrec::Code::kInvalidArgument,
                   "index %zu is past the %zu endpoint counts", index,
                   encoded->endpoint_counts.size());
    }
    const auto& [name, n] = encoded->endpoint_counts[index];
    *endpoint = stackrec_str{name.data(), name.size()};
    *count = n;
    return OkStatus();
  });
}

stackrec_status stackrec_encoded_stats_sized(const stackrec_encoded* encoded,
                                             stackrec_encode_stats* host_out, size_t out_size) {
  return Guard([&]() -> Status {
    if (encoded == nullptr) return NullArgument("encoded");
    if (host_out == nullptr) return NullArgument("out");
    const stackrec::SerializationStats& s = encoded->stats;
    stackrec_encode_stats stats{};
    stackrec_encode_stats* out = &stats;
    out->samples_recorded = s.samples_added;
    out->samples_truncated = s.samples_truncated;
    out->samples_over_memory = s.samples_over_memory;
    out->samples_written = s.encoded.samples_written;
    out->samples_left_out = s.encoded.samples_left_out;
    out->locations_written = s.encoded.locations_written;
    out->functions_written = s.encoded.functions_written;
    out->mappings_written = s.encoded.mappings_written;
    out->strings_written = s.encoded.strings_written;
    out->uncompressed_bytes = s.encoded.uncompressed_bytes;
    out->compressed_bytes = encoded->bytes.size();
    out->encode_ns = s.encode_ns;
    return stackrec::WriteGrowable(stats, out_size, "out", host_out);
  });
}

void stackrec_encoded_free(stackrec_encoded* encoded) { delete encoded; }

stackrec_status stackrec_recorder_new_sized(const stackrec_profile_options* host_opts,
                                            stackrec_recorder** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    stackrec_profile_options copy;
    const stackrec_profile_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::ProfileOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToOptions(opts, &options));
    stackrec::LiveHeapOptions live_heap;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ToLiveHeapOptions(opts, options.sample_types.size(), &live_heap));
    auto handle = std::make_unique<stackrec_recorder>();
    handle->impl = std::make_unique<stackrec::Recorder>(
        options, stackrec::NowUnixNanos(), live_heap);
    *out = handle.release();
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_record_sized(stackrec_recorder* recorder,
                                               const stackrec_sample* host_sample,
                                               size_t sample_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    bool converted = false;
    stackrec_sample copy;
    const stackrec_sample* sample;
    Status status = stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample);
    if (status.ok()) {
      status = stackrec::WithSample(
          sample, [&](const stackrec::SampleView& view, const stackrec::FramesHint* frames) {
            converted = true;
            return recorder->impl->Record(view, frames);
          });
    }
    if (!converted) recorder->impl->CountRejected();
    return status;
  });
}

stackrec_status stackrec_recorder_record_endpoint(stackrec_recorder* recorder,
                                                  uint64_t local_root_span_id,
                                                  stackrec_str endpoint) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return recorder->impl->RecordEndpoint(local_root_span_id, view);
  });
}

stackrec_status stackrec_recorder_add_endpoint_count(stackrec_recorder* recorder,
                                                    stackrec_str endpoint,
                                                    int64_t value) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    absl::string_view view;
    STACKREC_RETURN_IF_ERROR(stackrec::ToView(endpoint, "endpoint", &view));
    return recorder->impl->AddEndpointCount(view, value);
  });
}

stackrec_status stackrec_recorder_add_upscaling_rule_sized(
    stackrec_recorder* recorder, const stackrec_upscaling_rule* host_rule, size_t rule_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec_upscaling_rule copy;
    const stackrec_upscaling_rule* rule;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_rule, rule_size, "rule", &copy, &rule));
    stackrec::UpscalingRule converted;
    STACKREC_RETURN_IF_ERROR(stackrec::ToUpscalingRule(rule, &converted));
    return recorder->impl->AddUpscalingRule(std::move(converted));
  });
}

stackrec_status stackrec_recorder_track_sized(stackrec_recorder* recorder,
                                              uint64_t object_id,
                                              const stackrec_sample* host_sample,
                                              size_t sample_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec_sample copy;
    const stackrec_sample* sample;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample));
    stackrec::SampleView view;
    stackrec::LabelRoom room;
    STACKREC_RETURN_IF_ERROR(stackrec::ToSample(sample, &room, &view));
    return recorder->impl->Track(object_id, view);
  });
}

stackrec_status stackrec_recorder_untrack(stackrec_recorder* recorder,
                                          uint64_t object_id) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    recorder->impl->Untrack(object_id);
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_serialize_sized(
    stackrec_recorder* recorder, const stackrec_serialize_options* host_opts,
    stackrec_encoded** out, size_t opts_size) {
  return Guard([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec_serialize_options copy;
    const stackrec_serialize_options* opts;
    STACKREC_RETURN_IF_ERROR(stackrec::ReadGrowable(host_opts, opts_size, "opts", &copy, &opts));
    stackrec::SerializeOptions options;
    STACKREC_RETURN_IF_ERROR(stackrec::ToSerializeOptions(opts, &options));
    stackrec::EncodedProfile profile;
    STACKREC_RETURN_IF_ERROR(recorder->impl->Serialize(
        options, &stackrec::NowUnixNanos, &profile));
    auto encoded = std::make_unique<stackrec_encoded>();
    encoded->bytes = std::move(profile.bytes);
    encoded->start_ns = profile.start_ns;
    encoded->end_ns = profile.end_ns;
    encoded->endpoint_counts = std::move(profile.endpoint_counts);
    encoded->stats = profile.stats;
    *out = encoded.release();
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_reset_after_fork(stackrec_recorder* recorder) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    recorder->impl->ResetAfterFork(stackrec::NowUnixNanos());
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_stats_sized(const stackrec_recorder* recorder,
                                              stackrec_stats* host_out, size_t out_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    if (host_out == nullptr) return NullArgument("out");
    const stackrec::RecorderStats s = recorder->impl->stats();
    stackrec_stats stats{};
    stackrec_stats* out = &stats;
    out->last_samples_recorded = s.last_samples;
    out->last_distinct_keys = s.last_distinct_keys;
    out->last_serialize_ns = s.last_serialize_ns;
    out->serializations_ok = s.serializations_ok;
    out->serializations_failed = s.serializations_failed;
    out->serialize_ns_min = s.serialize_ns_min;
    out->serialize_ns_max = s.serialize_ns_max;
    out->serialize_ns_total = s.serialize_ns_total;
    out->samples_recorded = s.samples_recorded;
    out->records_rejected = s.records_rejected;
    out->samples_truncated = s.samples_truncated;
    out->samples_over_memory = s.samples_over_memory;
    out->samples_left_out_of_output = s.samples_left_out_of_output;
    out->objects_tracked = s.objects_tracked;
    out->objects_not_tracked = s.objects_not_tracked;
    return stackrec::WriteGrowable(stats, out_size, "out", host_out);
  });
}

void stackrec_recorder_free(stackrec_recorder* recorder) { delete recorder; }

}  // extern "C"

// ---- Pre-interned ids -------------------------------------------------------

namespace stackrec {
namespace {

// The four intern calls, for a profile's or a recorder's dictionary:
// `intern(args...)` runs on the dictionary the way the owner guards it.
template <typename Intern>
stackrec_status InternMappingWith(const void* owner, const char* owner_name,
                                  const stackrec_mapping* mapping, uint32_t* id, Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    MappingView view;
    STACKREC_RETURN_IF_ERROR(ToMappingView(mapping, &view));
    return intern(view, id);
  });
}

template <typename Intern>
stackrec_status InternFunctionWith(const void* owner, const char* owner_name,
                                   const stackrec_function* function, uint32_t* id, Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    FunctionView view;
    STACKREC_RETURN_IF_ERROR(ToFunctionView(function, &view));
    return intern(view, id);
  });
}

template <typename Intern>
stackrec_status InternLocationWith(const void* owner, const char* owner_name,
                                   const stackrec_interned_location* location, uint32_t* id,
                                   Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    if (location == nullptr) return NullArgument("location");
    return intern(*location, id);
  });
}

template <typename Intern>
stackrec_status InternStackWith(const void* owner, const char* owner_name,
                                const uint32_t* location_ids, size_t len, uint32_t* id,
                                Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    STACKREC_RETURN_IF_ERROR(CheckArray(location_ids, len, "location_ids", STACKREC_MAX_STACK_LEN));
    return intern(absl::MakeConstSpan(location_ids, len), id);
  });
}

template <typename Intern>
stackrec_status InternLabelsWith(const void* owner, const char* owner_name,
                                 const stackrec_label* labels, size_t len, uint32_t* id,
                                 Intern intern) {
  return Guard([&]() -> Status {
    if (id == nullptr) return NullArgument("id");
    *id = 0;
    if (owner == nullptr) return NullArgument(owner_name);
    STACKREC_RETURN_IF_ERROR(CheckArray(labels, len, "labels"));
    absl::Span<const LabelView> views;
    LabelRoom room;
    STACKREC_RETURN_IF_ERROR(ToLabels(labels, len, "labels", &room, &views));
    return intern(views, id);
  });
}

}  // namespace
}  // namespace stackrec

extern "C" {

stackrec_status stackrec_profile_intern_mapping(stackrec_profile* profile,
                                                const stackrec_mapping* mapping, uint32_t* id) {
  return stackrec::InternMappingWith(
      profile, "profile", mapping, id, [&](const auto& view, uint32_t* out) {
        return stackrec::DictionaryOf(profile).InternMapping(view, out);
      });
}

stackrec_status stackrec_profile_intern_function(stackrec_profile* profile,
                                                 const stackrec_function* function, uint32_t* id) {
  return stackrec::InternFunctionWith(
      profile, "profile", function, id, [&](const auto& view, uint32_t* out) {
        return stackrec::DictionaryOf(profile).InternFunction(view, out);
      });
}

stackrec_status stackrec_profile_intern_location(stackrec_profile* profile,
                                                 const stackrec_interned_location* location,
                                                 uint32_t* id) {
  return stackrec::InternLocationWith(
      profile, "profile", location, id, [&](const auto& l, uint32_t* out) {
        return stackrec::DictionaryOf(profile).InternLocation(l.mapping_id, l.function_id,
                                                              l.address, l.line, l.inlined, out);
      });
}

stackrec_status stackrec_profile_intern_stack(stackrec_profile* profile,
                                              const uint32_t* location_ids, size_t location_ids_len,
                                              uint32_t* id) {
  return stackrec::InternStackWith(profile, "profile", location_ids, location_ids_len, id,
                                   [&](absl::Span<const uint32_t> ids, uint32_t* out) {
                                     stackrec::Dictionary& dict = stackrec::DictionaryOf(profile);
                                     STACKREC_RETURN_IF_ERROR(dict.InternStack(ids, out));
                                     profile->impl->ImportInterned(
                                         dict, stackrec::Profile::Interned::kStack, *out);
                                     return OkStatus();
                                   });
}

stackrec_status stackrec_profile_intern_labels(stackrec_profile* profile,
                                              const stackrec_label* labels, size_t labels_len,
                                              uint32_t* id) {
  return stackrec::InternLabelsWith(
      profile, "profile", labels, labels_len, id,
      [&](absl::Span<const stackrec::LabelView> views, uint32_t* out) {
        stackrec::Dictionary& dict = stackrec::DictionaryOf(profile);
        STACKREC_RETURN_IF_ERROR(dict.InternLabels(views, out));
        profile->impl->ImportInterned(dict, stackrec::Profile::Interned::kLabelSet, *out);
        return OkStatus();
      });
}

stackrec_status stackrec_profile_add_ids_sized(stackrec_profile* profile,
                                               const stackrec_id_sample* host_sample,
                                               size_t sample_size) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    stackrec_id_sample copy;
    const stackrec_id_sample* sample;
    STACKREC_RETURN_IF_ERROR(
        stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample));
    stackrec::IdSampleView view;
    stackrec::LabelRoom room;
    STACKREC_RETURN_IF_ERROR(stackrec::ToIdSample(sample, &room, &view));
    stackrec::Dictionary& dict = stackrec::DictionaryOf(profile);
    return profile->impl->AddIds(
        view, dict.generation(),
        [&](absl::FunctionRef<Status(const stackrec::Dictionary&)> import) {
          return import(dict);
        });
  });
}

stackrec_status stackrec_profile_forget_ids(stackrec_profile* profile) {
  return Guard([&]() -> Status {
    if (profile == nullptr) return NullArgument("profile");
    // Even a dictionary not created yet moves on a generation, so ids
    // (of a garbage value) keep being reported as stale the same way.
    stackrec::DictionaryOf(profile).Forget();
    return OkStatus();
  });
}

stackrec_status stackrec_recorder_intern_mapping(stackrec_recorder* recorder,
                                                 const stackrec_mapping* mapping, uint32_t* id) {
  return stackrec::InternMappingWith(
      recorder, "recorder", mapping, id,
      [&](const auto& view, uint32_t* out) { return recorder->impl->InternMapping(view, out); });
}

stackrec_status stackrec_recorder_intern_function(stackrec_recorder* recorder,
                                                  const stackrec_function* function, uint32_t* id) {
  return stackrec::InternFunctionWith(
      recorder, "recorder", function, id,
      [&](const auto& view, uint32_t* out) { return recorder->impl->InternFunction(view, out); });
}

stackrec_status stackrec_recorder_intern_location(stackrec_recorder* recorder,
                                                  const stackrec_interned_location* location,
                                                  uint32_t* id) {
  return stackrec::InternLocationWith(
      recorder, "recorder", location, id, [&](const auto& l, uint32_t* out) {
        return recorder->impl->InternLocation(l.mapping_id, l.function_id, l.address, l.line,
                                              l.inlined, out);
      });
}

stackrec_status stackrec_recorder_intern_stack(stackrec_recorder* recorder,
                                               const uint32_t* location_ids,
                                               size_t location_ids_len, uint32_t* id) {
  return stackrec::InternStackWith(recorder, "recorder", location_ids, location_ids_len, id,
                                   [&](absl::Span<const uint32_t> ids, uint32_t* out) {
                                     return recorder->impl->InternStack(ids, out);
                                   });
}

stackrec_status stackrec_recorder_intern_labels(stackrec_recorder* recorder,
                                               const stackrec_label* labels, size_t labels_len,
                                               uint32_t* id) {
  return stackrec::InternLabelsWith(
      recorder, "recorder", labels, labels_len, id,
      [&](absl::Span<const stackrec::LabelView> views, uint32_t* out) {
        return recorder->impl->InternLabels(views, out);
      });
}

stackrec_status stackrec_recorder_record_ids_sized(stackrec_recorder* recorder,
                                                   const stackrec_id_sample* host_sample,
                                                   size_t sample_size) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    stackrec::IdSampleView view;
    stackrec::LabelRoom room;
    stackrec_id_sample copy;
    const stackrec_id_sample* sample;
    Status converted = stackrec::ReadGrowable(host_sample, sample_size, "sample", &copy, &sample);
    if (converted.ok()) converted = stackrec::ToIdSample(sample, &room, &view);
    if (!converted.ok()) {
      recorder->impl->CountRejected();
      return converted;
    }
    return recorder->impl->RecordIds(view);
  });
}

stackrec_status stackrec_recorder_forget_ids(stackrec_recorder* recorder) {
  return Guard([&]() -> Status {
    if (recorder == nullptr) return NullArgument("recorder");
    recorder->impl->ForgetIds();
    return OkStatus();
  });
}

}  // extern "C"
