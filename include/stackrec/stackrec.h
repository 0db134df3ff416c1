/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * stackrec: aggregate stack samples and encode them as pprof (profile.proto)
 * or as OpenTelemetry profiles (OTLP).
 *
 * The contract, in the order a host runtime needs it:
 *
 *  1. Handles are opaque. Create with stackrec_<object>_new(), release with
 *     stackrec_<object>_free(). Every free accepts NULL and does nothing.
 *     Using a handle after its free is undefined behaviour.
 *  2. Ownership. Everything passed in (strings, arrays, structs) is borrowed
 *     for the duration of the call only: the library copies what it keeps and
 *     holds no pointer the caller gave it once the call returns. Everything
 *     handed out (a stackrec_encoded) is owned by the caller until freed.
 *  3. Strings are UTF-8 {ptr, len} pairs and need not be NUL-terminated.
 *     {NULL, 0} is the empty string; a NULL ptr with a non-zero len is an
 *     error, and so is a string that is not valid UTF-8. Every length is
 *     checked against its limit (STACKREC_MAX_STR_LEN and the array limits
 *     below) before a byte is read, so an impossible length is refused by
 *     name and reads nothing.
 *  4. Errors. Fallible calls return a stackrec_status, which the compiler
 *     warns a host not to ignore (STACKREC_NODISCARD); STACKREC_OK is 0 and
 *     codes are append-only, never renumbered. After a failed call,
 *     stackrec_last_error() gives this thread's message, which names the
 *     offending argument. A failed call leaves the object exactly as it was,
 *     and sets any output pointer (*out) to NULL. No C++ exception ever
 *     crosses this header.
 *  5. Threads. A stackrec_profile is a plain single-threaded object: calls on
 *     one profile must not overlap. A stackrec_recorder is the concurrent
 *     one: any number of sampler threads may record into it while one
 *     serializer thread takes finished profiles, and samplers never wait
 *     for the serializer. The status and error calls are thread-safe.
 *  6. Format. The output is gzip-, zstd- or un-compressed pprof, or, when
 *     the serialize options ask for it, OpenTelemetry profiles (OTLP): string
 *     table entry 0 is "", ids start at 1, and only what the samples
 *     reference is written. See docs/format.md for both and for the label
 *     conventions (end_timestamp_ns, local root span id, trace endpoint).
 *  7. Versions and ABI. A host built against the header of a 1.x version
 *     runs, without recompiling, with every later 1.x library (SONAME
 *     libstackrec.so.1). The structs passed one at a time (options, samples,
 *     id samples, upscaling rules, serialize options, and the two stats the
 *     library fills in) grow at their end only, and every call that takes
 *     one is given its size: the static inline functions below pass sizeof
 *     of this header's struct to the exported stackrec_*_sized entry points
 *     (a host that binds symbols itself, through dlsym or an FFI, calls
 *     those with the size of the layout it declares). A struct shorter than
 *     the library's (an older header) has the fields it lacks read as zero,
 *     their defaults; a longer one (a newer header) must be zero past what
 *     the library knows, else STACKREC_UNSUPPORTED; stats fields the library
 *     does not know are written as zero. The structs passed in arrays or
 *     inside others (stackrec_str, value_type, mapping, function, location,
 *     label, interned_location, attribute) never change within 1.x.
 *
 * Only <stdint.h>, <stddef.h> and <stdbool.h> are included; this header is
 * C99 and C++ clean.
 */
#ifndef STACKREC_STACKREC_H_
#define STACKREC_STACKREC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define STACKREC_API
#elif defined(__GNUC__)
#define STACKREC_API __attribute__((visibility("default")))
#else
#define STACKREC_API
#endif

/* Marks every call that returns a stackrec_status, so that dropping one is a compiler warning:
 * [[nodiscard]] in C++17 and later (a (void) cast silences it); warn_unused_result with GCC and
 * clang in C (GCC's no cast silences: check the status); nothing elsewhere. */
#if defined(__cplusplus) && (__cplusplus >= 201703L || \
                             (defined(_MSVC_LANG) && _MSVC_LANG >= 201703L))
#define STACKREC_NODISCARD [[nodiscard]]
#elif !defined(__cplusplus) && defined(__GNUC__)
#define STACKREC_NODISCARD __attribute__((warn_unused_result))
#else
#define STACKREC_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ------------------------------------------------------------ */

#define STACKREC_VERSION_MAJOR 1
#define STACKREC_VERSION_MINOR 0
#define STACKREC_VERSION_PATCH 0
#define STACKREC_VERSION_NUMBER                                      \
  (STACKREC_VERSION_MAJOR * 10000 + STACKREC_VERSION_MINOR * 100 + \
   STACKREC_VERSION_PATCH)

/* The STACKREC_VERSION_NUMBER the loaded library was built with, so a host
 * can check that it runs against the header it was compiled with. */
STACKREC_API int stackrec_version_number(void);

/* ---- Status and errors -------------------------------------------------- */

typedef enum stackrec_status {
  STACKREC_OK = 0,
  STACKREC_INVALID_ARGUMENT = 1, /* an argument broke this header's rules */
  STACKREC_OUT_OF_MEMORY = 2,    /* an allocation failed; nothing changed */
  STACKREC_LIMIT_EXCEEDED = 3,   /* a size or count limit was reached */
  STACKREC_BUSY = 4,             /* another thread holds the operation */
  STACKREC_INTERNAL = 5,         /* a bug in stackrec; please report it */
  STACKREC_UNSUPPORTED = 6       /* the host set a field this library does not
                                    know (built against a newer header) */
} stackrec_status;

/* The enum's name for `status`, e.g. "STACKREC_OK". Static storage; never
 * NULL, also for values this version does not know ("STACKREC_UNKNOWN"). */
STACKREC_API const char *stackrec_status_name(stackrec_status status);

/* This thread's message for its last failed call, e.g.
 * "sample.values_len is 2 but the profile declares 3 sample types".
 * "" if no call failed on this thread yet. Never NULL. Valid until this
 * thread's next stackrec call. Successful calls do not clear it. */
STACKREC_API const char *stackrec_last_error(void);

/* ---- Input types -------------------------------------------------------- */

/* The longest input the library accepts; a call passing anything longer
 * gets INVALID_ARGUMENT naming the field, e.g. "sample.labels[2].key.len"
 * or "sample.locations_len".
 * - STACKREC_MAX_STR_LEN: bytes in one stackrec_str.
 * - STACKREC_MAX_STACK_LEN: frames in one stack (sample.locations_len,
 *   location_ids_len); max_frames then cuts what is kept.
 * - STACKREC_MAX_ARRAY_LEN: elements of every other array (labels, values,
 *   sample types, comments, value offsets, live-heap types, resource
 *   attributes). */
#define STACKREC_MAX_STR_LEN ((size_t)1 << 24)
#define STACKREC_MAX_STACK_LEN ((size_t)1 << 20)
#define STACKREC_MAX_ARRAY_LEN ((size_t)1 << 16)

/* UTF-8 bytes, not necessarily NUL-terminated. {NULL, 0} is "". */
typedef struct stackrec_str {
  const char *ptr;
  size_t len;
} stackrec_str;

/* A pprof ValueType, e.g. {"cpu-time", "nanoseconds"}. */
typedef struct stackrec_value_type {
  stackrec_str type;
  stackrec_str unit;
} stackrec_value_type;

/* The binary a frame's code lives in. All fields zero means "no mapping"
 * (mapping_id 0 in the output). */
typedef struct stackrec_mapping {
  uint64_t memory_start, memory_limit, file_offset;
  stackrec_str filename, build_id;
} stackrec_mapping;

/* All fields empty/zero means "no function": the location is written with
 * its address only (a native frame not symbolized yet). */
typedef struct stackrec_function {
  stackrec_str name, system_name, filename;
  int64_t start_line;
} stackrec_function;

/* One frame. Two frames are the same location when all fields are equal.
 * - inlined: this frame's function was inlined into the next frame's (its
 *   caller, one step toward the root), so both are at one machine address:
 *   the next frame must have the same address and mapping, and the run of
 *   frames ending at the first frame not inlined is written as one pprof
 *   Location with one Line per frame, callee first, as pprof intends. If
 *   max_frames cuts a stack between an inlined frame and its caller, the
 *   kept frame is written alone. */
typedef struct stackrec_location {
  stackrec_mapping mapping;
  stackrec_function function;
  uint64_t address;
  int64_t line;
  bool inlined;
} stackrec_location;

/* A string label when str.len > 0, else a numeric label (num, and an
 * optional num_unit such as "bytes"). A label with both a string and a
 * non-zero num is rejected. Keys must be non-empty and unique in a sample. */
typedef struct stackrec_label {
  stackrec_str key;
  stackrec_str str;
  int64_t num;
  stackrec_str num_unit;
} stackrec_label;

/* One observation.
 * - locations: the stack, leaf first. May be empty.
 * - values: exactly one per declared sample type, in declaration order
 *   (disabled types included; their values are ignored).
 * - timestamp_ns: 0 to aggregate with every sample of the same stack (same
 *   frames, same order) and the same labels (same order): values are summed
 *   element-wise and saturate at INT64_MIN / INT64_MAX. Non-zero: the sample
 *   is kept on its own and written with the numeric label
 *   "end_timestamp_ns" (a key the sample must then not use itself). */
typedef struct stackrec_sample {
  const stackrec_location *locations;
  size_t locations_len;
  const int64_t *values;
  size_t values_len;
  const stackrec_label *labels;
  size_t labels_len;
  int64_t timestamp_ns;
} stackrec_sample;

/* What a profile measures. Zero-initialise it (= {0}) so that fields added
 * by later versions take their defaults.
 * - sample_types: at least one; each type name non-empty.
 * - period_type / period: written when the type is non-empty / period > 0.
 *   A negative period, and a period unit without a period type, are
 *   rejected.
 * - sample_types_enabled: NULL enables every type; otherwise one flag per
 *   sample type. Disabled types are left out of the output's sample_type
 *   and values, while samples still pass a value for them, so a sampler's
 *   call never depends on the configuration. At least one must be enabled.
 * - max_frames (0: 512): a deeper stack keeps its max_frames leaf-side
 *   frames and ends in one pseudo-frame "[N frames truncated]".
 * - max_memory_bytes (0: 1 GiB): a bound on the tables of one profile (of
 *   each recorder slot, all of its lanes together). Once reached, a sample that needs a new stack,
 *   label set or key is added to one pseudo-sample whose stack is the frame
 *   "[stackrec: storage full]", with no labels, so totals are kept; samples
 *   of existing keys keep aggregating normally. Counted in the stats.
 * - max_output_bytes (0: 1 GiB): serialize never returns more. If the
 *   whole profile would be larger, the aggregated samples with the largest
 *   first value are kept and all others, timestamped ones included, are
 *   summed into one pseudo-sample whose stack is the frame
 *   "[stackrec: output limit]"; STACKREC_LIMIT_EXCEEDED if not even that
 *   fits. Counted in the recorder stats.
 * - default_sample_type: the type name of an enabled sample type that
 *   viewers show first (pprof's default_sample_type); {NULL, 0}: unset.
 * - comments: free-form strings written in the profile's comment field
 *   (e.g. "host: web-1"); any count, each valid UTF-8.
 * - drop_frames / keep_frames: pprof's regular expressions for frames a
 *   viewer hides (drop_frames) unless they match keep_frames. Written as
 *   given; stackrec itself does not interpret them. {NULL, 0}: unset.
 * - Live-heap tracking (recorders only; a stackrec_profile ignores these
 *   fields but for the checks every array gets: see stackrec_recorder_track):
 *   - live_heap_types / live_heap_types_len: offsets into sample_types of
 *     the values a tracked object carries, e.g. of "heap-live-samples" and
 *     "heap-live-size". Each below sample_types_len, no repeats. NULL with
 *     length 0 (the default) turns tracking off.
 *   - max_tracked_objects (0: 4,194,304, i.e. 1 << 22; at most
 *     4,294,967,294): how many objects may be tracked at once. */
typedef struct stackrec_profile_options {
  const stackrec_value_type *sample_types;
  size_t sample_types_len;
  stackrec_value_type period_type;
  int64_t period;
  const bool *sample_types_enabled;
  size_t max_frames;
  size_t max_memory_bytes;
  size_t max_output_bytes;
  stackrec_str default_sample_type;
  const stackrec_str *comments;
  size_t comments_len;
  stackrec_str drop_frames;
  stackrec_str keep_frames;
  /* Live-heap tracking (recorders only). */
  const size_t *live_heap_types;
  size_t live_heap_types_len;
  size_t max_tracked_objects;
} stackrec_profile_options;

typedef enum stackrec_compression {
  STACKREC_COMPRESSION_GZIP = 0,
  STACKREC_COMPRESSION_NONE = 1,
  STACKREC_COMPRESSION_ZSTD = 2
} stackrec_compression;

/* What a serialization writes (docs/format.md describes both):
 * - PPROF: a perftools.profiles.Profile (profile.proto), the default;
 * - OTLP: an OpenTelemetry profiles request (opentelemetry-proto v1.11.0,
 *   collector.profiles.v1development.ExportProfilesServiceRequest), the
 *   body a collector takes at POST /v1development/profiles: one Profile
 *   per enabled sample type, sharing one dictionary. */
typedef enum stackrec_format {
  STACKREC_FORMAT_PPROF = 0,
  STACKREC_FORMAT_OTLP = 1
} stackrec_format;

/* A string attribute, e.g. {"host.name", "web-1"}. */
typedef struct stackrec_attribute {
  stackrec_str key;
  stackrec_str value;
} stackrec_attribute;

/* How to serialize. Zero-initialise it (= {0}): gzip pprof.
 * - compression, level: level 0 is the compression's default (gzip 1, as
 *   Go's runtime writes pprof; zstd 1, its fastest, which on pprof's
 *   varints compresses about as well as gzip 1 in half the time).
 *   Otherwise 1-9 for gzip and 1-19 for zstd; NONE takes 0. Both formats
 *   are compressed alike.
 * - format: a stackrec_format.
 * - The rest is written by OTLP only (and checked for either format):
 *   - service_name: the resource's "service.name" attribute. {NULL, 0}:
 *     the one in resource_attributes, else "unknown_service", as
 *     OpenTelemetry SDKs write it.
 *   - resource_attributes: more string attributes of the resource, in
 *     order after service.name: keys non-empty and unique, and not
 *     "service.name" when service_name is set.
 *   - scope_name, scope_version: the instrumentation scope. {NULL, 0}:
 *     "stackrec" at this library's version (STACKREC_VERSION_*); a
 *     scope_version without a scope_name is refused.
 *   Each string must be valid UTF-8. INVALID_ARGUMENT names the field,
 *   e.g. "opts.resource_attributes[2].key is empty". */
typedef struct stackrec_serialize_options {
  stackrec_compression compression;
  int level;
  stackrec_format format;
  stackrec_str service_name;
  const stackrec_attribute *resource_attributes;
  size_t resource_attributes_len;
  stackrec_str scope_name;
  stackrec_str scope_version;
} stackrec_serialize_options;

/* Upscaling: sampled values scaled up when a profile is serialized, to
 * estimate the real ones. A rule scales the values at value_offsets
 * (declared sample-type offsets, each naming an enabled type) of every
 * sample, or, when label_key is non-empty, of the samples recorded with
 * that label: the string label_str when its len > 0, else the number
 * label_num (a numeric label matches by its number; its unit is not
 * compared). Each scaled value becomes round(value * scale), half away
 * from zero, clamped to the int64 range, where scale is
 * - PROPORTIONAL: total_real / total_sampled (e.g. 150000 allocations made
 *   for the 1000 sampled); total_sampled must be > 0;
 * - POISSON: for values sampled every sampling_distance units (e.g. every
 *   524288 bytes allocated), from the sample's own (unscaled) values sum
 *   and count at sum_value_offset and count_value_offset:
 *   1 / (1 - exp(-(sum / count) / sampling_distance)), and 1 when sum or
 *   count is <= 0; sampling_distance must be > 0.
 * A rule is refused if a sample could match it and an earlier rule that
 * scales one of the same offsets (only the same label_key with different
 * values keeps two rules apart). At most 64 rules. Pseudo-samples
 * ("[stackrec: storage full]", "[stackrec: output limit]") carry no labels:
 * rules without a label_key scale them too. */
typedef enum stackrec_upscaling_kind {
  STACKREC_UPSCALING_PROPORTIONAL = 0,
  STACKREC_UPSCALING_POISSON = 1
} stackrec_upscaling_kind;

typedef struct stackrec_upscaling_rule {
  stackrec_upscaling_kind kind;
  const size_t *value_offsets;
  size_t value_offsets_len;
  stackrec_str label_key; /* {NULL, 0}: every sample */
  stackrec_str label_str;
  int64_t label_num;
  uint64_t total_sampled, total_real;          /* PROPORTIONAL */
  size_t sum_value_offset, count_value_offset; /* POISSON */
  uint64_t sampling_distance;                  /* POISSON */
} stackrec_upscaling_rule;

/* ---- The profile: a single-threaded aggregate --------------------------- */

typedef struct stackrec_profile stackrec_profile;

/* An encoded profile (pprof or OTLP) and the interval it covers. Owned by
 * the caller. */
typedef struct stackrec_encoded stackrec_encoded;

/* Creates an empty profile whose interval starts now. `opts` is borrowed.
 * INVALID_ARGUMENT: opts or out NULL, no sample types, an empty type name,
 * a negative period, invalid strings. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_new_sized(
    const stackrec_profile_options *opts, stackrec_profile **out,
    size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_new(
    const stackrec_profile_options *opts, stackrec_profile **out) {
  return stackrec_profile_new_sized(opts, out,
                                    sizeof(stackrec_profile_options));
}

/* Adds one sample (see stackrec_sample). On any error the profile is left
 * exactly as it was. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_sized(
    stackrec_profile *profile, const stackrec_sample *sample,
    size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_add(
    stackrec_profile *profile, const stackrec_sample *sample) {
  return stackrec_profile_add_sized(profile, sample, sizeof(stackrec_sample));
}

/* At serialization, every sample whose numeric label "local root span id"
 * equals local_root_span_id (compared as the same 64 bits) also gets the
 * string label "trace endpoint" = endpoint, unless it has that key already.
 * The last call for an id wins. Span id 0 and an empty endpoint are
 * rejected. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_set_endpoint(
    stackrec_profile *profile, uint64_t local_root_span_id,
    stackrec_str endpoint);

/* Adds `value` to the number of times `endpoint` was hit (saturating at
 * the int64 bounds). The counts go out with each stackrec_encoded (see
 * stackrec_encoded_endpoint_count) and are dropped by a reset. An empty
 * endpoint is rejected. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_endpoint_count(
    stackrec_profile *profile, stackrec_str endpoint, int64_t value);

/* Adds an upscaling rule (see stackrec_upscaling_rule), applied by every
 * later serialize. Rules stay through resets. INVALID_ARGUMENT naming the
 * rule's field for a bad or overlapping rule, LIMIT_EXCEEDED past 64. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_upscaling_rule_sized(
    stackrec_profile *profile, const stackrec_upscaling_rule *rule,
    size_t rule_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_add_upscaling_rule(
    stackrec_profile *profile, const stackrec_upscaling_rule *rule) {
  return stackrec_profile_add_upscaling_rule_sized(profile, rule,
                                                   sizeof(stackrec_upscaling_rule));
}

/* Encodes everything added since creation or the last reset, without
 * resetting, in opts->format. `opts` NULL means gzip pprof at the default
 * level. The interval is [start, now]: time_nanos = start, duration_nanos =
 * now - start (OTLP: each Profile's time_unix_nano and duration_nano).
 * INVALID_ARGUMENT naming the field for bad options (see
 * stackrec_serialize_options). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_serialize_sized(
    stackrec_profile *profile, const stackrec_serialize_options *opts,
    stackrec_encoded **out, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_serialize(
    stackrec_profile *profile, const stackrec_serialize_options *opts,
    stackrec_encoded **out) {
  return stackrec_profile_serialize_sized(profile, opts, out,
                                          sizeof(stackrec_serialize_options));
}

/* Drops every sample and endpoint and frees what only they used; the
 * profile's interval starts again now. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_reset(stackrec_profile *profile);

/* NULL-safe. */
STACKREC_API void stackrec_profile_free(stackrec_profile *profile);

/* ---- Encoded output: every getter accepts NULL ------------------------- */

/* The bytes (NULL for a NULL handle). Valid until stackrec_encoded_free. */
STACKREC_API const uint8_t *stackrec_encoded_data(
    const stackrec_encoded *encoded);
/* Their count (0 for NULL). */
STACKREC_API size_t stackrec_encoded_size(const stackrec_encoded *encoded);
/* The interval covered, Unix nanoseconds (0 for NULL): equal to the
 * profile's time_nanos and time_nanos + duration_nanos. */
STACKREC_API int64_t stackrec_encoded_start_ns(
    const stackrec_encoded *encoded);
STACKREC_API int64_t stackrec_encoded_end_ns(const stackrec_encoded *encoded);
/* The endpoint hit counts of the profile encoded, sorted by endpoint name:
 * how many there are (0 for NULL), and the index-th one. The endpoint's
 * bytes stay valid until stackrec_encoded_free. INVALID_ARGUMENT for a NULL
 * handle or output, or an index past the end. */
STACKREC_API size_t stackrec_encoded_endpoint_counts_len(
    const stackrec_encoded *encoded);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_encoded_endpoint_count(
    const stackrec_encoded *encoded, size_t index, stackrec_str *endpoint,
    int64_t *count);
/* What the serialization that produced an encoded profile did.
 * Zero-initialised fields may be appended. */
typedef struct stackrec_encode_stats {
  /* The profile (recorder: the slot) since its creation or last reset. */
  uint64_t samples_recorded;    /* samples accepted */
  uint64_t samples_truncated;   /* of which with the stack cut to max_frames */
  uint64_t samples_over_memory; /* of which sent to "[stackrec: storage full]" */
  /* The output. */
  uint64_t samples_written;   /* Samples, pseudo-samples included (OTLP: of
                                 each Profile, a key's timestamped samples
                                 counting as one) */
  uint64_t samples_left_out;  /* summed into "[stackrec: output limit]" */
  uint64_t locations_written, functions_written, mappings_written;
  uint64_t strings_written;   /* string_table entries, "" included */
  uint64_t uncompressed_bytes; /* the message (pprof, or the OTLP request)
                                  before compression */
  uint64_t compressed_bytes;   /* stackrec_encoded_size() */
  int64_t encode_ns;           /* time spent encoding and compressing */
} stackrec_encode_stats;

/* Copies those figures into *out. INVALID_ARGUMENT for a NULL handle or
 * output. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_encoded_stats_sized(
    const stackrec_encoded *encoded, stackrec_encode_stats *out,
    size_t out_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_encoded_stats(
    const stackrec_encoded *encoded, stackrec_encode_stats *out) {
  return stackrec_encoded_stats_sized(encoded, out,
                                      sizeof(stackrec_encode_stats));
}

/* NULL-safe. */
STACKREC_API void stackrec_encoded_free(stackrec_encoded *encoded);

/* ---- The recorder: concurrent sampling, periodic serialization --------- */

/* Two profiles ("slots") behind one handle. Samplers record into the active
 * slot; stackrec_recorder_serialize flips the slots, so samplers go on in
 * the other one, encodes the old one and resets it. Consecutive profiles
 * tile time: each starts at the previous flip (or creation) and ends at
 * its own flip.
 *
 * Samplers do not wait for each other: a slot holds "lanes", profiles that
 * samplers write into side by side, one lane for each sampler that was
 * recording at the same instant as the others (a lane is added when every
 * lane is held, and stays). The serializer merges a slot's lanes into the
 * profile it encodes. A lane holding a sampler that does not come out of
 * its record within 2 ms (descheduled, or stopped in a debugger) is left
 * for a later serialization: its samples then come out in a later profile,
 * and every serialization after the samplers stopped takes them all. The
 * lanes of a slot share its max_memory_bytes. Each lane interns the
 * stacks and labels its samples use: two samplers recording the same
 * stacks hold two copies of them. A lane that recorded nothing in an
 * interval is emptied at the next serialization (a few KB).
 *
 * Thread-safety: record, record_ids, record_endpoint, add_endpoint_count,
 * track, untrack, the intern_* calls, forget_ids, add_upscaling_rule and
 * stats may be called from any number of threads at once, concurrently
 * with serialize; none of them waits for a serializer, except
 * add_upscaling_rule for the moment a serializer copies the rules. At most one
 * serialize runs at a time; a concurrent second call returns STACKREC_BUSY
 * and does not disturb the first. free and reset_after_fork must not
 * overlap any other call on the same recorder. */
typedef struct stackrec_recorder stackrec_recorder;

/* Same options as stackrec_profile_new; sample_types_enabled is how a
 * recorder leaves types out while samplers keep passing every value.
 * Recorders also read the live-heap fields: INVALID_ARGUMENT naming
 * opts.live_heap_types[i] for an offset past the sample types or a
 * repeat, or opts.max_tracked_objects over its limit. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_new_sized(
    const stackrec_profile_options *opts, stackrec_recorder **out,
    size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_new(
    const stackrec_profile_options *opts, stackrec_recorder **out) {
  return stackrec_recorder_new_sized(opts, out,
                                     sizeof(stackrec_profile_options));
}

/* As stackrec_profile_add, into a lane of the active slot. Never waits for
 * a serializer nor for another sampler: a lane held by either is passed
 * over, and the common path makes no system call. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_record_sized(
    stackrec_recorder *recorder, const stackrec_sample *sample,
    size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_record(
    stackrec_recorder *recorder, const stackrec_sample *sample) {
  return stackrec_recorder_record_sized(recorder, sample,
                                        sizeof(stackrec_sample));
}

/* As stackrec_profile_set_endpoint. The mapping also applies to the
 * profile after the next flip, so a request that outlives a flip keeps its
 * endpoint label (unless the later profile sets that span itself). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_record_endpoint(
    stackrec_recorder *recorder, uint64_t local_root_span_id,
    stackrec_str endpoint);

/* As stackrec_profile_add_endpoint_count, into the active slot: the counts
 * go out with the profile of the slot, and are reset with it. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_add_endpoint_count(
    stackrec_recorder *recorder, stackrec_str endpoint, int64_t value);

/* As stackrec_profile_add_upscaling_rule, for every profile this recorder
 * serializes from the next serialize on, whatever the flips, and after
 * reset_after_fork too. Any thread; samplers never wait for it. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_add_upscaling_rule_sized(
    stackrec_recorder *recorder, const stackrec_upscaling_rule *rule,
    size_t rule_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_add_upscaling_rule(
    stackrec_recorder *recorder, const stackrec_upscaling_rule *rule) {
  return stackrec_recorder_add_upscaling_rule_sized(recorder, rule,
                                                    sizeof(stackrec_upscaling_rule));
}
/* Live-heap tracking, for heap profiles: an object allocated in one
 * profile's interval and still alive in the next must appear in both.
 * Every serialization adds all objects tracked at its flip to its profile,
 * summed by (stack, labels) exactly as samples are: into the sample of
 * that key if the interval recorded one, else into a sample of their own,
 * with their values at the live-heap types and 0 at the others. Samplers
 * call track and untrack concurrently with record and serialize, and
 * never wait for the serializer nor for a record; trackers wait for each
 * other only for one lookup or change of a table they share. A tracker
 * held up inside a track (descheduled, or stopped in a debugger) holds up
 * no record, no other tracker and no serialization: until it comes out,
 * profiles carry the objects tracked as of the last serialization that
 * could read every change.
 *
 * stackrec_recorder_track remembers object `object_id` (any 64 bits, e.g.
 * its address) with the sample's stack, labels and values. The sample is
 * checked as by record (values_len, labels, UTF-8; max_frames cuts the
 * stack) and also needs timestamp_ns == 0 and a value of 0 at every offset
 * that is not in opts.live_heap_types (INVALID_ARGUMENT naming
 * sample.timestamp_ns or sample.values[i]). Tracking an id already tracked
 * replaces that object, as if untracked first. INVALID_ARGUMENT if the
 * recorder has no live-heap types. At max_tracked_objects, a new id gets
 * STACKREC_LIMIT_EXCEEDED, nothing changes, and the stats'
 * objects_not_tracked grows. `sample` is borrowed for the call. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_track_sized(
    stackrec_recorder *recorder, uint64_t object_id,
    const stackrec_sample *sample, size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_track(
    stackrec_recorder *recorder, uint64_t object_id,
    const stackrec_sample *sample) {
  return stackrec_recorder_track_sized(recorder, object_id, sample,
                                       sizeof(stackrec_sample));
}

/* The object `object_id` was freed: it leaves the next profiles. STACKREC_OK
 * and no change if it is not tracked (a runtime calls this on frees of
 * objects it never sampled), and that case is cheap: no slot is entered.
 * INVALID_ARGUMENT for a NULL recorder; OUT_OF_MEMORY (the object stays
 * tracked) if memory for its key in the current profile ran out. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_untrack(
    stackrec_recorder *recorder, uint64_t object_id);

/* Flips the slots and returns the old slot's profile, covering
 * [previous flip or creation, this flip], in opts->format. `opts` NULL
 * means gzip pprof at the default level; bad options are refused before
 * the flip. STACKREC_BUSY if another serialize is running. If encoding
 * fails, the old slot's samples are kept and come out in a later profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_serialize_sized(
    stackrec_recorder *recorder, const stackrec_serialize_options *opts,
    stackrec_encoded **out, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_serialize(
    stackrec_recorder *recorder, const stackrec_serialize_options *opts,
    stackrec_encoded **out) {
  return stackrec_recorder_serialize_sized(recorder, opts, out,
                                           sizeof(stackrec_serialize_options));
}

/* Call in the child after fork(), before any other call on the recorder:
 * whatever the parent's threads were doing at the fork (recording,
 * flipping, encoding), the child's recorder becomes empty, its interval
 * starts now, and it records and serializes normally. It also forgets
 * every tracked object: the child's profiles hold only objects the child
 * tracks itself. Memory that a parent
 * thread was changing at the fork is abandoned, never freed or reused. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_reset_after_fork(
    stackrec_recorder *recorder);

/* Counters of a recorder. Zero-initialised fields may be appended. */
typedef struct stackrec_stats {
  /* The most recent successful serialization. */
  uint64_t last_samples_recorded; /* records that went into that profile */
  uint64_t last_distinct_keys;    /* its samples after aggregation */
  int64_t last_serialize_ns;      /* time spent encoding it */
  /* Since creation or reset_after_fork. */
  uint64_t serializations_ok;
  uint64_t serializations_failed;
  int64_t serialize_ns_min, serialize_ns_max, serialize_ns_total;
  uint64_t samples_recorded; /* accepted records, serialized or not */
  uint64_t records_rejected; /* records refused for bad input */
  uint64_t samples_truncated;   /* stacks cut to max_frames */
  uint64_t samples_over_memory; /* sent to "[stackrec: storage full]" */
  uint64_t samples_left_out_of_output; /* summed into "[stackrec: output limit]" */
  uint64_t objects_tracked;     /* now: tracked and not untracked since */
  uint64_t objects_not_tracked; /* tracks refused at max_tracked_objects */
} stackrec_stats;

/* Copies the counters into *out. Thread-safe. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_stats_sized(
    const stackrec_recorder *recorder, stackrec_stats *out, size_t out_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_stats(
    const stackrec_recorder *recorder, stackrec_stats *out) {
  return stackrec_recorder_stats_sized(recorder, out, sizeof(stackrec_stats));
}

/* NULL-safe. No other call on the recorder may be running. */
STACKREC_API void stackrec_recorder_free(stackrec_recorder *recorder);

/* ---- Pre-interned frames: recording by id ------------------------------ */

/* A runtime that knows its functions and call sites ahead of sampling (a
 * method table, a JIT's code map) can intern them once and then record
 * samples by id: per sample, no frame string is read or hashed. Label sets
 * (a thread's labels, a request's) can be interned the same way, so that
 * no label string is read either. A profile and a recorder each own one
 * dictionary of ids.
 *  - Ids are uint32_t, never 0, and stay valid for every later call on the
 *    same handle: across serializations, resets, flips and
 *    reset_after_fork, until stackrec_<object>_forget_ids or free. A
 *    recorder's ids work in both slots. Interning equal content twice gives
 *    the same id; ids of one handle mean nothing to another.
 *  - Memory. The dictionary keeps everything interned until forget_ids,
 *    which frees it all at once: a process whose code keeps changing calls
 *    it now and then (after a code reload, or when the dictionary grew past
 *    what it wants to hold) and interns what is still live again. Profiles
 *    keep their own copy of what their samples use, so forgetting never
 *    changes what was recorded; forgetting costs the next samples of each
 *    stack one copy into the profile.
 *  - Cost. intern_stack and intern_labels also copy the stack or label set
 *    into the profile (a recorder's active slot) right away, so that its
 *    first sample costs what later ones do; a recorder's other slot copies
 *    it at its first sample there.
 *  - An id from before forget_ids is refused as stale (INVALID_ARGUMENT)
 *    during the next 255 forget_ids; after that it could be taken for a new
 *    id: do not keep ids across a forget.
 *  - Each table (mappings, functions, locations, stacks, label sets)
 *    holds at most 16,777,215 ids: LIMIT_EXCEEDED past that.
 *  - Recorder threads: the intern_* calls, record_ids and forget_ids may be
 *    called from any number of threads, concurrently with record and
 *    serialize; like record, they never wait for the serializer. Samplers
 *    wait for each other only on the dictionary's lock: while interning,
 *    and when a lane first meets an id. */

/* A location of interned parts: mapping_id from intern_mapping (0: none),
 * function_id from intern_function (0: none, the address alone), and the
 * rest as in stackrec_location (inlined included). */
typedef struct stackrec_interned_location {
  uint32_t mapping_id;
  uint32_t function_id;
  uint64_t address;
  int64_t line;
  bool inlined;
} stackrec_interned_location;

/* A sample by id: the stack is stack_id (from intern_stack), or, when
 * stack_id is 0, the location ids location_ids[0, location_ids_len), leaf
 * first. The labels are labels_id (from intern_labels), or, when labels_id
 * is 0, labels[0, labels_len). values, labels and timestamp_ns as in
 * stackrec_sample; a label set with the key "end_timestamp_ns" is refused
 * for a sample with a timestamp_ns, as such labels are. */
typedef struct stackrec_id_sample {
  uint32_t stack_id;
  const uint32_t *location_ids;
  size_t location_ids_len;
  const int64_t *values;
  size_t values_len;
  const stackrec_label *labels;
  size_t labels_len;
  int64_t timestamp_ns;
  uint32_t labels_id;
} stackrec_id_sample;

/* Interns a mapping (not all zero: "no mapping" is mapping_id 0). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_mapping(
    stackrec_profile *profile, const stackrec_mapping *mapping, uint32_t *id);
/* Interns a function (not all empty: "no function" is function_id 0). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_function(
    stackrec_profile *profile, const stackrec_function *function, uint32_t *id);
/* Interns a location; its ids must be this dictionary's. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_location(
    stackrec_profile *profile, const stackrec_interned_location *location,
    uint32_t *id);
/* Interns a stack of location ids, leaf first (possibly none). The rules of
 * stackrec_sample's locations apply here, once: inlined frames need a
 * caller at their address and mapping, and a stack deeper than max_frames
 * is cut to its leaf side plus "[N frames truncated]" (samples of it count
 * as truncated). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_stack(
    stackrec_profile *profile, const uint32_t *location_ids,
    size_t location_ids_len, uint32_t *id);
/* Interns a label set: the rules of stackrec_sample's labels apply, once
 * (errors name "labels[i]"). The order of the labels is kept, as a
 * sample's is. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_labels(
    stackrec_profile *profile, const stackrec_label *labels, size_t labels_len,
    uint32_t *id);
/* As stackrec_profile_add, by id. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_ids_sized(
    stackrec_profile *profile, const stackrec_id_sample *sample,
    size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_add_ids(
    stackrec_profile *profile, const stackrec_id_sample *sample) {
  return stackrec_profile_add_ids_sized(profile, sample,
                                        sizeof(stackrec_id_sample));
}
/* Invalidates every id of the profile and frees the dictionary. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_forget_ids(
    stackrec_profile *profile);

/* The same for a recorder (see the threads rule above). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_mapping(
    stackrec_recorder *recorder, const stackrec_mapping *mapping, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_function(
    stackrec_recorder *recorder, const stackrec_function *function,
    uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_location(
    stackrec_recorder *recorder, const stackrec_interned_location *location,
    uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_stack(
    stackrec_recorder *recorder, const uint32_t *location_ids,
    size_t location_ids_len, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_labels(
    stackrec_recorder *recorder, const stackrec_label *labels, size_t labels_len,
    uint32_t *id);
/* As stackrec_recorder_record, by id. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_record_ids_sized(
    stackrec_recorder *recorder, const stackrec_id_sample *sample,
    size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_record_ids(
    stackrec_recorder *recorder, const stackrec_id_sample *sample) {
  return stackrec_recorder_record_ids_sized(recorder, sample,
                                            sizeof(stackrec_id_sample));
}
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_forget_ids(
    stackrec_recorder *recorder);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STACKREC_STACKREC_H_ */
