/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * stackrec: aggregate stack samples and encode them as pprof (profile.proto) or as OpenTelemetry
 * profiles (OTLP). The contract:
 *
 *  1. Handles are opaque: stackrec_profile, stackrec_recorder and stackrec_encoded. Every
 *     stackrec_<object>_free accepts NULL and does nothing; a handle must not be used after it.
 *  2. Ownership. Everything passed in is borrowed for the call only: the library copies what it
 *     keeps. A stackrec_encoded handed out is the caller's until stackrec_encoded_free, and so are
 *     the bytes it holds.
 *  3. NULL and lengths. Strings are UTF-8 {ptr, len}, not NUL-terminated; {NULL, 0} is the empty
 *     string, and an array {NULL, 0} is empty. A NULL handle, struct or output pointer, a NULL ptr
 *     with a non-zero len, invalid UTF-8 and a length over its STACKREC_MAX_* limit are refused by
 *     name (STACKREC_INVALID_ARGUMENT) before a byte is read.
 *  4. Errors. Fallible calls return a stackrec_status, which the compiler warns a host not to
 *     ignore (STACKREC_NODISCARD). STACKREC_OK is 0; codes are append-only. A failed call changes
 *     nothing and sets its output (*out, *id) to NULL or 0; stackrec_last_error() says why. No C++
 *     exception crosses this header.
 *  5. Threads. Calls on one stackrec_profile must not overlap. A stackrec_recorder takes records
 *     from any number of threads while one thread serializes, and samplers never wait for it. The
 *     status and error calls are thread-safe. Each function says which it is.
 *  6. Format: docs/format.md. Caps, limits and the stats that count them: docs/limits.md.
 *  7. Versions. A host built against a 1.x header runs with every later 1.x library (SONAME
 *     libstackrec.so.1): the structs a call takes alone only grow at their end, and the inline
 *     wrappers pass their sizeof to the exported _sized entry points. Zero-initialise every struct
 *     (= {0}) so that fields added later take their defaults (docs/embedding.md#versions-and-abi).
 *
 * Quick start. The CTest header_quick_start_compiles_and_runs builds the lines between the markers
 * as C99, with -Wall -Wextra -pedantic -Werror, and runs them:
 * ---- quick start ----
 * #include <stdio.h>
 * #include <stackrec/stackrec.h>
 *
 * int main(void) {
 *   stackrec_value_type types[1] = {{{"cpu-samples", 11}, {"count", 5}}};
 *   stackrec_profile_options opts = {0};  // every other field: its default
 *   opts.sample_types = types;
 *   opts.sample_types_len = 1;
 *   stackrec_recorder *recorder = NULL;
 *   stackrec_status st = stackrec_recorder_new(&opts, &recorder);
 *
 *   // A sampler, on any thread: the stack, leaf first, and one value per
 *   // sample type, all borrowed for the call.
 *   stackrec_location frames[2] = {0};
 *   frames[0].function.name = (stackrec_str){"parse", 5};
 *   frames[1].function.name = (stackrec_str){"main", 4};
 *   int64_t values[1] = {1};
 *   stackrec_sample sample = {.locations = frames, .locations_len = 2,
 *                             .values = values, .values_len = 1};
 *   if (st == STACKREC_OK) st = stackrec_recorder_record(recorder, &sample);
 *
 *   // The serializer, on one thread: gzip'd pprof of all recorded since.
 *   stackrec_encoded *profile = NULL;
 *   if (st == STACKREC_OK)
 *     st = stackrec_recorder_serialize(recorder, NULL, &profile);
 *   if (st == STACKREC_OK) {
 *     const uint8_t *bytes = stackrec_encoded_data(profile);  // until free
 *     printf("%zu bytes of pprof, gzip magic %02x %02x\n",
 *            stackrec_encoded_size(profile), bytes[0], bytes[1]);
 *   } else {
 *     fprintf(stderr, "stackrec: %s: %s\n", stackrec_status_name(st),
 *             stackrec_last_error());
 *   }
 *   stackrec_encoded_free(profile);  // both frees accept NULL
 *   stackrec_recorder_free(recorder);
 *   return st == STACKREC_OK ? 0 : 1;
 * }
 * ---- end of quick start ----
 *
 * docs/embedding.md has the rest: building against stackrec, the recorder's threads, recording by
 * id, live-heap tracking. Only <stdint.h>, <stddef.h> and <stdbool.h> are included; this header is
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
#if defined(__cplusplus) && \
    (__cplusplus >= 201703L || (defined(_MSVC_LANG) && _MSVC_LANG >= 201703L))
#define STACKREC_NODISCARD [[nodiscard]]
#elif !defined(__cplusplus) && defined(__GNUC__)
#define STACKREC_NODISCARD __attribute__((warn_unused_result))
#else
#define STACKREC_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version, status and errors ------------------------------------------ */

#define STACKREC_VERSION_MAJOR 1
#define STACKREC_VERSION_MINOR 4
#define STACKREC_VERSION_PATCH 0
#define STACKREC_VERSION_NUMBER \
  (STACKREC_VERSION_MAJOR * 10000 + STACKREC_VERSION_MINOR * 100 + STACKREC_VERSION_PATCH)

/* The STACKREC_VERSION_NUMBER the loaded library was built with, so a host can check it runs
 * against the header it was compiled with. Thread-safe. */
STACKREC_API int stackrec_version_number(void);

typedef enum stackrec_status {
  STACKREC_OK = 0,
  STACKREC_INVALID_ARGUMENT = 1, /* an argument broke this header's rules */
  STACKREC_OUT_OF_MEMORY = 2,    /* an allocation failed; nothing changed */
  STACKREC_LIMIT_EXCEEDED = 3,   /* a size or count limit was reached */
  STACKREC_BUSY = 4,             /* another thread holds the operation */
  STACKREC_INTERNAL = 5,         /* a bug in stackrec; please report it */
  STACKREC_UNSUPPORTED = 6,      /* a field this library does not know is set (newer header) */
  STACKREC_TIMED_OUT = 7         /* since 1.2: a deadline passed first (libstackrec_export) */
} stackrec_status;

/* The enum's name for `status`, e.g. "STACKREC_OK"; "STACKREC_UNKNOWN" for a value this version
 * does not know. Thread-safe; static storage, never NULL. */
STACKREC_API const char *stackrec_status_name(stackrec_status status);

/* This thread's message for its last failed call, naming the argument, e.g. "sample.values_len is 2
 * but the profile declares 3 sample types"; "" if none failed yet. Thread-safe (one per thread);
 * never NULL; owned by the library and valid until this thread's next stackrec call. Successful
 * calls do not clear it. */
STACKREC_API const char *stackrec_last_error(void);

/* Since 1.2, for libraries built on stackrec's C API (libstackrec_export) that report their errors
 * the same way: makes `message` (NUL-terminated, copied; truncated to 511 bytes; NULL is "") this
 * thread's stackrec_last_error(). Thread-safe; never allocates. */
STACKREC_API void stackrec_last_error_set(const char *message);

/* ---- Handles ------------------------------------------------------------- */

/* A single-threaded aggregate of samples: calls on one must not overlap. */
typedef struct stackrec_profile stackrec_profile;
/* Two profiles behind one handle: samplers record into one while a serializer encodes the other
 * (docs/embedding.md#the-recorders-threads). */
typedef struct stackrec_recorder stackrec_recorder;
/* One serialized profile (pprof or OTLP) and the interval it covers; owned by the caller until
 * stackrec_encoded_free. Immutable, so any thread may read it. */
typedef struct stackrec_encoded stackrec_encoded;

/* ---- What is recorded ---------------------------------------------------- */

/* The longest input accepted, checked before a byte is read: bytes in a stackrec_str; frames in a
 * stack (max_frames then cuts what is kept); elements of every other array.
 * docs/limits.md#limits-of-the-input. */
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

/* The binary a frame's code lives in. All zero: no mapping. Addresses, if any, are a non-empty
 * range: memory_start < memory_limit. */
typedef struct stackrec_mapping {
  uint64_t memory_start, memory_limit, file_offset;
  stackrec_str filename, build_id;
} stackrec_mapping;

/* All empty and zero: no function, the frame is its address alone (not symbolized yet). Else it
 * has a name, system_name or filename; start_line counts from 1, 0 for none. */
typedef struct stackrec_function {
  stackrec_str name, system_name, filename;
  int64_t start_line;
} stackrec_function;

/* One frame; frames with all fields equal are one location. A frame has a mapping, a function or
 * an address; line counts from 1, 0 for none. `inlined`: the function was inlined into the next
 * frame's, which must then have the same address and mapping (docs/format.md#inline-frames). */
typedef struct stackrec_location {
  stackrec_mapping mapping;
  stackrec_function function;
  uint64_t address;
  int64_t line;
  bool inlined;
} stackrec_location;

/* A string label when str.len > 0, else a numeric one (num, and an optional num_unit such as
 * "bytes"); both at once is refused. Keys are non-empty and unique in a sample; a number keyed
 * "end_timestamp_ns" is refused, the sample's timestamp_ns says it (docs/format.md#labels). */
typedef struct stackrec_label {
  stackrec_str key;
  stackrec_str str;
  int64_t num;
  stackrec_str num_unit;
} stackrec_label;

/* Since 1.2: the trace and span a sample ran under, as OpenTelemetry's W3C ids, raw bytes in
 * network order. Neither may be all zero, which OpenTelemetry defines as invalid. Written as an
 * OTLP Link, and as the pprof string labels "trace_id" and "span_id" in lowercase hex
 * (docs/format.md#trace-links). */
typedef struct stackrec_link {
  uint8_t trace_id[16];
  uint8_t span_id[8];
} stackrec_link;

/* One observation: the stack (leaf first, may be empty), exactly one value per declared sample type
 * (disabled ones included), and labels. Samples with timestamp_ns 0 and the same stack, labels
 * (in any order) and link are summed, saturating; a timestamp_ns (nanoseconds since the Unix
 * epoch, 0 for none, never negative) keeps the sample on its own, labelled "end_timestamp_ns"
 * (docs/format.md#sample-types-and-values). */
typedef struct stackrec_sample {
  const stackrec_location *locations;
  size_t locations_len;
  const int64_t *values;
  size_t values_len;
  const stackrec_label *labels;
  size_t labels_len;
  int64_t timestamp_ns;
  /* Since 1.2, the trace link (NULL: none), borrowed for the call. With a link, no label may be
   * keyed "trace_id" or "span_id". */
  const stackrec_link *link;
} stackrec_sample;

/* What a profile or recorder measures; zero-initialise it. A 0 cap is its default
 * (docs/limits.md#caps-you-configure); {NULL, 0} leaves a string unset. */
typedef struct stackrec_profile_options {
  const stackrec_value_type *sample_types; /* at least one, named */
  size_t sample_types_len;
  stackrec_value_type period_type;  /* written if its type is non-empty */
  int64_t period;                   /* written if > 0, negative refused */
  const bool *sample_types_enabled; /* NULL: all, else a flag per type */
  size_t max_frames;                /* 0: 512, then "[N frames truncated]" */
  size_t max_memory_bytes;          /* 0: 1 GiB, then "[stackrec: storage full]" */
  /* 0: 1 GiB. Past it, the samples whose first value is largest in magnitude are kept and the
   * others summed into "[stackrec: output limit]" (docs/limits.md#caps-you-configure). */
  size_t max_output_bytes;
  stackrec_str default_sample_type; /* an enabled type's name */
  const stackrec_str *comments;     /* written in the profile's comment */
  size_t comments_len;
  stackrec_str drop_frames; /* pprof's regular expressions, as given */
  stackrec_str keep_frames;
  /* Live-heap tracking, recorders only (docs/embedding.md#live-heap-tracking): offsets into
   * sample_types of the values a tracked object carries, no repeats ({NULL, 0}: off), and how
   * many objects may be tracked at once (0: 1 << 22, at most 4294967294). */
  const size_t *live_heap_types;
  size_t live_heap_types_len;
  size_t max_tracked_objects;
} stackrec_profile_options;

/* ---- The profile: single-threaded ---------------------------------------- */

/* Creates an empty profile whose interval starts now; *out is the caller's until
 * stackrec_profile_free. `opts` is borrowed; NULL opts or out, no sample types or a bad field:
 * INVALID_ARGUMENT naming it. Thread-safe. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_new_sized(
    const stackrec_profile_options *opts, stackrec_profile **out, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_new(
    const stackrec_profile_options *opts, stackrec_profile **out) {
  return stackrec_profile_new_sized(opts, out, sizeof(stackrec_profile_options));
}

/* Adds one sample; `sample` and all it points to are borrowed for the call. NULL profile or sample:
 * INVALID_ARGUMENT. On any error the profile is as it was. Not concurrently with another call on
 * the profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_sized(
    stackrec_profile *profile, const stackrec_sample *sample, size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_add(
    stackrec_profile *profile, const stackrec_sample *sample) {
  return stackrec_profile_add_sized(profile, sample, sizeof(stackrec_sample));
}

/* Drops every sample and endpoint and frees what only they used; the interval starts again now.
 * Upscaling rules and interned ids stay. NULL: INVALID_ARGUMENT. Not concurrently with another call
 * on the profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_reset(stackrec_profile *profile);

/* Frees the profile; NULL does nothing. No other call on it may run. */
STACKREC_API void stackrec_profile_free(stackrec_profile *profile);

/* ---- Serializing (docs/format.md) ---------------------------------------- */

typedef enum stackrec_compression {
  STACKREC_COMPRESSION_GZIP = 0,
  STACKREC_COMPRESSION_NONE = 1,
  STACKREC_COMPRESSION_ZSTD = 2
} stackrec_compression;

/* PPROF: a perftools.profiles.Profile. OTLP: an OpenTelemetry ExportProfilesServiceRequest
 * (opentelemetry-proto v1.11.0), one Profile per enabled sample type, and one more per type for
 * timestamped samples if there are any (docs/format.md#opentelemetry-profiles-otlp). */
typedef enum stackrec_format {
  STACKREC_FORMAT_PPROF = 0,
  STACKREC_FORMAT_OTLP = 1
} stackrec_format;

/* Since 1.3: the backend a serialization is for, whose naming and series rules it then follows
 * (docs/exporting.md#what-each-backend-is-sent). ANY writes every name as recorded. PYROSCOPE, for
 * pprof only (with OTLP: INVALID_ARGUMENT naming opts.target), writes the sample and period types
 * under Pyroscope's names ("cpu-time" as "cpu", "alloc-samples" as "alloc_objects", ...; any other
 * character outside [A-Za-z0-9_] as '_'), one pprof (each split by the budget) for each profile
 * type Pyroscope files them under (CPU, wall, memory, ...) that has samples; and of the string
 * labels, which Pyroscope makes series, keeps only span_id and those the host names in
 * series_labels, their keys written as Prometheus label names ("thread name" as "thread_name");
 * numeric labels are written as recorded. */
typedef enum stackrec_target {
  STACKREC_TARGET_ANY = 0,
  STACKREC_TARGET_PYROSCOPE = 1
} stackrec_target;

/* A string attribute, e.g. {"host.name", "web-1"}. */
typedef struct stackrec_attribute {
  stackrec_str key;
  stackrec_str value;
} stackrec_attribute;

/* How to serialize; zero-initialised: gzip pprof at level 1. level 0 is the default, else 1-9
 * (gzip) or 1-19 (zstd); NONE takes 0 (docs/format.md#compression). gzip is one member written by
 * ISA-L's igzip, whose levels 1-3 the gzip levels map onto: 1 -> 1, 2-5 -> 2, 6-9 -> 3. The
 * resource and scope fields are written by OTLP only and checked for either format: each valid
 * UTF-8, keys non-empty and unique (docs/format.md#the-request). compress_threads 0 or 1 compresses
 * on the calling thread; 2 lets one helper thread, started by the serialization and joined before
 * it returns, compress while the encoder writes (where the system refuses a thread, the calling
 * thread compresses); else INVALID_ARGUMENT naming opts.compress_threads. */
typedef struct stackrec_serialize_options {
  stackrec_compression compression;
  int level;
  stackrec_format format;
  stackrec_str service_name; /* {NULL, 0}: from the attributes, else "unknown_service" */
  const stackrec_attribute *resource_attributes;
  size_t resource_attributes_len;
  stackrec_str scope_name;    /* {NULL, 0}: "stackrec" */
  stackrec_str scope_version; /* {NULL, 0}: STACKREC_VERSION_* */
  /* Since 1.1, budgets for backends that refuse big profiles
   * (docs/limits.md#budgets-profiles-that-backends-accept); 0: no limit, and with none set the
   * output is one part, as before. Past one, the output is several parts, each a complete profile
   * of the same interval within every limit set, the samples dealt among them
   * (stackrec_encoded_part). When max_parts is reached, or a sample alone is too big for a part,
   * samples are summed into "[stackrec: output limit]" (see the stats). A budget not even a part
   * holding only that sample fits: INVALID_ARGUMENT naming the field, before anything changes. */
  size_t part_max_bytes;              /* a part's bytes as returned (compressed); and at most the
                                         profile's max_output_bytes */
  size_t part_max_uncompressed_bytes; /* a part's message before compression */
  size_t part_max_samples;            /* a part's samples (OTLP: of each sample type) */
  size_t max_parts;                   /* parts of one serialization */
  int compress_threads; /* since 1.1; 0: 1, no thread started (docs/format.md#compression) */
  /* Since 1.3: the backend this output is for (see stackrec_target), and for PYROSCOPE the string
   * label keys, as recorded ("thread name", "trace endpoint"), that become series labels: each
   * valid UTF-8 and non-empty, at most 16 of them (Pyroscope allows 30 label names a series,
   * counting its own and the exporter's tags); else INVALID_ARGUMENT naming the field. */
  stackrec_target target;
  const stackrec_str *series_labels;
  size_t series_labels_len;
} stackrec_serialize_options;

/* Encodes everything added since creation or the last reset, without resetting, over [start, now].
 * `opts` is borrowed; NULL means gzip pprof. *out is the caller's until stackrec_encoded_free. NULL
 * profile or out, or a bad option: INVALID_ARGUMENT naming it. Not concurrently with another call
 * on the profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_profile_serialize_sized(stackrec_profile *profile, const stackrec_serialize_options *opts,
                                 stackrec_encoded **out, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_serialize(
    stackrec_profile *profile, const stackrec_serialize_options *opts, stackrec_encoded **out) {
  return stackrec_profile_serialize_sized(profile, opts, out, sizeof(stackrec_serialize_options));
}

/* ---- Encoded output ------------------------------------------------------ */

/* Any number of threads may read one encoded profile at once; every getter accepts NULL. */

/* The bytes: owned by `encoded`, valid until its free; NULL for NULL. Those of the first part
 * when a budget split the output: see stackrec_encoded_part. */
STACKREC_API const uint8_t *stackrec_encoded_data(const stackrec_encoded *encoded);
/* Their count; 0 for NULL. */
STACKREC_API size_t stackrec_encoded_size(const stackrec_encoded *encoded);
/* Since 1.1: the parts of the output, 1 unless a budget split it (0 for NULL). Each part is a
 * complete profile (pprof, or an OTLP request) of the whole interval: send each as a request of
 * its own, in any order, part 0 with the endpoint counts (docs/limits.md#sending-parts). */
STACKREC_API size_t stackrec_encoded_parts_len(const stackrec_encoded *encoded);
typedef struct stackrec_part {
  const uint8_t *data;         /* owned by `encoded`, valid until its free */
  size_t size;                 /* compressed as the options said */
  uint64_t samples_written;    /* Samples (OTLP: of each sample type) */
  uint64_t uncompressed_bytes; /* the part's message before compression */
} stackrec_part;
/* Copies the index-th part's figures into *out (borrowed). NULL encoded or out, or an index past
 * the end: INVALID_ARGUMENT. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_encoded_part_sized(
    const stackrec_encoded *encoded, size_t index, stackrec_part *out, size_t out_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_encoded_part(
    const stackrec_encoded *encoded, size_t index, stackrec_part *out) {
  return stackrec_encoded_part_sized(encoded, index, out, sizeof(stackrec_part));
}
/* Since 1.3: what the output is, as its serialization's options said (NULL: PPROF, ANY), and its
 * sample types as written, enabled ones only, after the target's renaming: how many (0 for NULL),
 * and the index-th, whose bytes are owned by `encoded`. A NULL argument or an index past the end:
 * INVALID_ARGUMENT. An exporter reads these to hold a part to its backend's rules unparsed. */
STACKREC_API stackrec_format stackrec_encoded_format(const stackrec_encoded *encoded);
STACKREC_API stackrec_target stackrec_encoded_target(const stackrec_encoded *encoded);
STACKREC_API stackrec_compression stackrec_encoded_compression(const stackrec_encoded *encoded);
STACKREC_API size_t stackrec_encoded_sample_types_len(const stackrec_encoded *encoded);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_encoded_sample_type(
    const stackrec_encoded *encoded, size_t index, stackrec_str *type, stackrec_str *unit);

/* The interval covered, Unix nanoseconds (the profile's time_nanos and time_nanos +
 * duration_nanos); 0 for NULL. */
STACKREC_API int64_t stackrec_encoded_start_ns(const stackrec_encoded *encoded);
STACKREC_API int64_t stackrec_encoded_end_ns(const stackrec_encoded *encoded);
/* The endpoint hit counts (see stackrec_profile_add_endpoint_count), sorted by endpoint: how many
 * (0 for NULL), and the index-th, whose bytes are owned by `encoded`. A NULL argument or an index
 * past the end: INVALID_ARGUMENT. */
STACKREC_API size_t stackrec_encoded_endpoint_counts_len(const stackrec_encoded *encoded);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_encoded_endpoint_count(
    const stackrec_encoded *encoded, size_t index, stackrec_str *endpoint, int64_t *count);

/* Why a serialization summed samples into "[stackrec: output limit]". */
typedef enum stackrec_fold_reason {
  STACKREC_FOLD_NONE = 0,
  STACKREC_FOLD_OUTPUT_LIMIT = 1,   /* the unsplit output was over max_output_bytes */
  STACKREC_FOLD_SAMPLE_TOO_BIG = 2, /* a sample did not fit a part on its own */
  STACKREC_FOLD_PARTS_LIMIT = 3     /* max_parts parts could not hold them all */
} stackrec_fold_reason;

/* What the serialization that produced an encoded profile did
 * (docs/limits.md#the-stats-that-count-them). Fields are only appended. */
typedef struct stackrec_encode_stats {
  /* The profile (recorder: the slot) since its creation or last reset. */
  uint64_t samples_recorded;    /* samples accepted */
  uint64_t samples_truncated;   /* of which with the stack cut to max_frames */
  uint64_t samples_over_memory; /* of which sent to "[stackrec: storage full]" */
  /* The output. */
  uint64_t samples_written;  /* Samples, pseudo-samples included (OTLP: of each sample type) */
  uint64_t samples_left_out; /* summed into "[stackrec: output limit]" */
  uint64_t locations_written, functions_written, mappings_written;
  uint64_t strings_written;    /* string_table entries, "" included */
  uint64_t uncompressed_bytes; /* the message (pprof, or the OTLP request) uncompressed */
  uint64_t compressed_bytes;   /* stackrec_encoded_size() (split: of every part) */
  int64_t encode_ns;           /* time spent encoding and compressing */
  /* Since 1.1 (the figures above are sums over the parts): */
  uint64_t parts;                      /* stackrec_encoded_parts_len() */
  stackrec_fold_reason folded_because; /* why samples_left_out is not 0 */
} stackrec_encode_stats;

/* Copies those figures into *out (borrowed). NULL encoded or out: INVALID_ARGUMENT. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_encoded_stats_sized(
    const stackrec_encoded *encoded, stackrec_encode_stats *out, size_t out_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_encoded_stats(
    const stackrec_encoded *encoded, stackrec_encode_stats *out) {
  return stackrec_encoded_stats_sized(encoded, out, sizeof(stackrec_encode_stats));
}

/* Frees it and its bytes; NULL does nothing. No other call on it may run. */
STACKREC_API void stackrec_encoded_free(stackrec_encoded *encoded);

/* ---- The recorder: concurrent sampling, periodic serialization ----------- */

/* Thread-safety (docs/embedding.md#the-recorders-threads): record, record_ids, track, untrack, the
 * intern_* calls, forget_ids, the endpoint calls, add_upscaling_rule and stats may run on any
 * number of threads at once, concurrently with serialize, and none waits for the serializer
 * (add_upscaling_rule only while it copies the rules). One serialize runs at a time. free and
 * reset_after_fork must overlap no other call. */

/* As stackrec_profile_new; *out is the caller's until stackrec_recorder_free. Also checks the
 * live-heap fields: INVALID_ARGUMENT naming opts.live_heap_types[i] (past the sample types, or a
 * repeat) or opts.max_tracked_objects (over its limit). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_new_sized(
    const stackrec_profile_options *opts, stackrec_recorder **out, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_new(
    const stackrec_profile_options *opts, stackrec_recorder **out) {
  return stackrec_recorder_new_sized(opts, out, sizeof(stackrec_profile_options));
}

/* As stackrec_profile_add, into the active slot. Any thread; never waits for the serializer nor
 * another sampler, and the common path makes no system call. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_record_sized(
    stackrec_recorder *recorder, const stackrec_sample *sample, size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_record(
    stackrec_recorder *recorder, const stackrec_sample *sample) {
  return stackrec_recorder_record_sized(recorder, sample, sizeof(stackrec_sample));
}

/* Flips the slots and encodes the old one, covering [previous flip or creation, this flip], as
 * stackrec_profile_serialize does (`opts` NULL: gzip pprof; bad options are refused before the
 * flip). One thread at a time: STACKREC_BUSY if another serialize runs, or if a sampler stopped
 * while adding to the slot's tables holds them (after 100 ms). If encoding fails, the samples come
 * out in a later profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_serialize_sized(
    stackrec_recorder *recorder, const stackrec_serialize_options *opts, stackrec_encoded **out,
    size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_serialize(
    stackrec_recorder *recorder, const stackrec_serialize_options *opts, stackrec_encoded **out) {
  return stackrec_recorder_serialize_sized(recorder, opts, out, sizeof(stackrec_serialize_options));
}

/* In the child after fork(), before any other call on the recorder: it becomes empty, whatever the
 * parent's threads were doing, its interval starts now, and it forgets every tracked object. Memory
 * a parent thread was changing is abandoned, never freed or reused. NULL: INVALID_ARGUMENT. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_recorder_reset_after_fork(stackrec_recorder *recorder);

/* Counters of a recorder (docs/limits.md#the-stats-that-count-them). Fields are only appended. */
typedef struct stackrec_stats {
  /* The most recent successful serialization. */
  uint64_t last_samples_recorded; /* records that went into that profile */
  uint64_t last_distinct_keys;    /* its samples after aggregation */
  int64_t last_serialize_ns;      /* time spent encoding it */
  /* Since creation or reset_after_fork. */
  uint64_t serializations_ok;
  uint64_t serializations_failed;
  int64_t serialize_ns_min, serialize_ns_max, serialize_ns_total;
  uint64_t samples_recorded;           /* accepted records, serialized or not */
  uint64_t records_rejected;           /* records refused for bad input */
  uint64_t samples_truncated;          /* stacks cut to max_frames */
  uint64_t samples_over_memory;        /* sent to "[stackrec: storage full]" */
  uint64_t samples_left_out_of_output; /* summed into "[stackrec: output limit]" */
  uint64_t objects_tracked;            /* now: tracked and not untracked since */
  uint64_t objects_not_tracked;        /* tracks refused at max_tracked_objects */
} stackrec_stats;

/* Copies the counters into *out (borrowed). Any thread. NULL recorder or out: INVALID_ARGUMENT. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_stats_sized(
    const stackrec_recorder *recorder, stackrec_stats *out, size_t out_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_stats(
    const stackrec_recorder *recorder, stackrec_stats *out) {
  return stackrec_recorder_stats_sized(recorder, out, sizeof(stackrec_stats));
}

/* Frees the recorder; NULL does nothing. No other call on it may run. */
STACKREC_API void stackrec_recorder_free(stackrec_recorder *recorder);

/* ---- Endpoints (docs/format.md#labels) ----------------------------------- */

/* At serialization, samples whose numeric label "local root span id" is local_root_span_id also get
 * the string label "trace endpoint" = endpoint (borrowed), unless they have one. The last call for
 * a span wins. Span 0, an empty endpoint or a NULL profile: INVALID_ARGUMENT. Not concurrently with
 * another call on the profile. Since 1.4, under the name of the recorder's call. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_record_endpoint(
    stackrec_profile *profile, uint64_t local_root_span_id, stackrec_str endpoint);

/* The older name of stackrec_profile_record_endpoint: the same call, kept for hosts built before
 * 1.4 (no 1.x name is removed). */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_set_endpoint(
    stackrec_profile *profile, uint64_t local_root_span_id, stackrec_str endpoint);

/* Adds `value` to the hits of `endpoint` (borrowed), saturating. They come back with each
 * stackrec_encoded and are dropped by a reset. An empty endpoint or a NULL profile:
 * INVALID_ARGUMENT. Not concurrently with another call on the profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_endpoint_count(
    stackrec_profile *profile, stackrec_str endpoint, int64_t value);

/* As stackrec_profile_record_endpoint; also applied to the profile after the next flip, so a
 * request that outlives a flip keeps its label. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_record_endpoint(
    stackrec_recorder *recorder, uint64_t local_root_span_id, stackrec_str endpoint);

/* As stackrec_profile_add_endpoint_count, into the active slot: the counts go out with that slot's
 * profile. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_add_endpoint_count(
    stackrec_recorder *recorder, stackrec_str endpoint, int64_t value);

/* ---- Upscaling (docs/format.md#upscaling) -------------------------------- */

/* A rule scales the values at value_offsets (enabled sample types) of every sample, or, with a
 * label_key, of the samples with that label (label_str if its len > 0, else the number label_num),
 * to round(value * scale). PROPORTIONAL: scale = total_real / total_sampled (> 0). POISSON: from
 * the sample's own sum and count values, for values sampled every sampling_distance (> 0) units.
 * Two rules that could scale one value of one sample are refused; at most 64. */
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

/* Adds a rule (borrowed), applied by every later serialize; rules stay through resets. A NULL
 * argument, a bad or overlapping rule: INVALID_ARGUMENT naming its field; LIMIT_EXCEEDED past 64.
 * Not concurrently with another call on the profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_upscaling_rule_sized(
    stackrec_profile *profile, const stackrec_upscaling_rule *rule, size_t rule_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_add_upscaling_rule(
    stackrec_profile *profile, const stackrec_upscaling_rule *rule) {
  return stackrec_profile_add_upscaling_rule_sized(profile, rule, sizeof(stackrec_upscaling_rule));
}
/* As the above, for every profile serialized from the next serialize on, after reset_after_fork
 * too. Any thread; samplers never wait for it. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_add_upscaling_rule_sized(
    stackrec_recorder *recorder, const stackrec_upscaling_rule *rule, size_t rule_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_add_upscaling_rule(
    stackrec_recorder *recorder, const stackrec_upscaling_rule *rule) {
  return stackrec_recorder_add_upscaling_rule_sized(recorder, rule,
                                                    sizeof(stackrec_upscaling_rule));
}

/* ---- Live-heap tracking (docs/embedding.md#live-heap-tracking) ----------- */

/* Remembers object `object_id` (e.g. its address) with the sample's stack, labels and values
 * (borrowed); every later profile carries it until it is untracked. The sample is checked as by
 * record, and needs timestamp_ns 0 and 0 at every value not in opts.live_heap_types
 * (INVALID_ARGUMENT names it), as does a recorder without live-heap types. Tracking a tracked id
 * replaces it. At max_tracked_objects, a new id gets LIMIT_EXCEEDED. Any thread; never waits for
 * the serializer nor for a record. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_recorder_track_sized(stackrec_recorder *recorder, uint64_t object_id,
                              const stackrec_sample *sample, size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_track(
    stackrec_recorder *recorder, uint64_t object_id, const stackrec_sample *sample) {
  return stackrec_recorder_track_sized(recorder, object_id, sample, sizeof(stackrec_sample));
}

/* The object was freed: it leaves the next profiles. STACKREC_OK, cheaply, if it is not tracked.
 * NULL recorder: INVALID_ARGUMENT; OUT_OF_MEMORY (it stays tracked) if memory for its key ran out.
 * Any thread, as track. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_recorder_untrack(stackrec_recorder *recorder, uint64_t object_id);

/* ---- Recording by id (docs/embedding.md#recording-by-id) ----------------- */

/* A runtime that knows its functions and call sites ahead of sampling interns them once and records
 * by id, reading no frame or label string per sample. Ids are uint32_t, never 0, of one handle's
 * dictionary, and valid across serializations, resets and reset_after_fork until forget_ids
 * (docs/limits.md#pre-interned-ids). Each intern call borrows its input and writes the id to *id (0
 * on failure); a NULL argument is INVALID_ARGUMENT. */

/* A location of interned parts: mapping_id and function_id 0 for none, the rest as in
 * stackrec_location. */
typedef struct stackrec_interned_location {
  uint32_t mapping_id;
  uint32_t function_id;
  uint64_t address;
  int64_t line;
  bool inlined;
} stackrec_interned_location;

/* A sample by id: the stack stack_id, or when it is 0 location_ids (leaf first); the labels
 * labels_id, or when it is 0 labels. The rest as in stackrec_sample. */
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
  const stackrec_link *link; /* since 1.2, as in stackrec_sample, with labels or labels_id */
} stackrec_id_sample;

/* Interns a mapping (not all zero, which is mapping_id 0), a function (not all empty), a location
 * (of this dictionary's ids), a stack of location ids (leaf first, possibly none; cut to max_frames
 * once, here) or a label set (the rules of a sample's labels, once; errors name labels[i]). Not
 * concurrently with another call on the profile. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_mapping(
    stackrec_profile *profile, const stackrec_mapping *mapping, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_function(
    stackrec_profile *profile, const stackrec_function *function, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_location(
    stackrec_profile *profile, const stackrec_interned_location *location, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_stack(
    stackrec_profile *profile, const uint32_t *location_ids, size_t location_ids_len, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_intern_labels(
    stackrec_profile *profile, const stackrec_label *labels, size_t labels_len, uint32_t *id);
/* As stackrec_profile_add, by id. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_profile_add_ids_sized(
    stackrec_profile *profile, const stackrec_id_sample *sample, size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_profile_add_ids(
    stackrec_profile *profile, const stackrec_id_sample *sample) {
  return stackrec_profile_add_ids_sized(profile, sample, sizeof(stackrec_id_sample));
}
/* Invalidates every id of the profile and frees the dictionary; what was recorded stays. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_profile_forget_ids(stackrec_profile *profile);

/* The same for a recorder: any thread, concurrently with record and serialize; samplers wait for
 * each other only on the dictionary's lock. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_mapping(
    stackrec_recorder *recorder, const stackrec_mapping *mapping, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_function(
    stackrec_recorder *recorder, const stackrec_function *function, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_location(
    stackrec_recorder *recorder, const stackrec_interned_location *location, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_recorder_intern_stack(stackrec_recorder *recorder, const uint32_t *location_ids,
                               size_t location_ids_len, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_intern_labels(
    stackrec_recorder *recorder, const stackrec_label *labels, size_t labels_len, uint32_t *id);
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_recorder_record_ids_sized(
    stackrec_recorder *recorder, const stackrec_id_sample *sample, size_t sample_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_recorder_record_ids(
    stackrec_recorder *recorder, const stackrec_id_sample *sample) {
  return stackrec_recorder_record_ids_sized(recorder, sample, sizeof(stackrec_id_sample));
}
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_recorder_forget_ids(stackrec_recorder *recorder);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STACKREC_STACKREC_H_ */
