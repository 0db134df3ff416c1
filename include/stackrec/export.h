/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * libstackrec_export: ships what stackrec serialized to a profiling backend over HTTP(S), from a
 * thread of its own (docs/embedding.md#shipping-profiles; the requests: docs/exporting.md). A
 * separate library (SONAME libstackrec_export.so.1) on libcurl, so that a host that only records
 * never links an HTTP client. It follows stackrec.h's contract, and adds:
 *
 *  1. The handle is opaque: stackrec_exporter. stackrec_exporter_free accepts NULL.
 *  2. Ownership. Everything passed in is borrowed for the call: the exporter copies the options and
 *     the bytes of every profile it is given, so a stackrec_encoded may be freed as soon as
 *     stackrec_exporter_send returns.
 *  3. Errors as in stackrec.h: a stackrec_status, and stackrec_last_error() naming the field. A
 *     deadline that passes first is STACKREC_TIMED_OUT. What goes wrong later, on the exporter's
 *     thread, is counted in stackrec_export_stats. API keys, passwords and tokens never appear
 *     in a message or a stat.
 *  4. Threads. send, flush, stats and start_periodic may be called from any number of threads at
 *     once; none waits for the network (flush waits, up to its deadline, by design). shutdown, free
 *     and reset_after_fork must overlap no other call on the exporter. One background thread per
 *     exporter, started by the first send or start_periodic, does every request.
 *  5. Security. https verifies the peer's certificate and host name unless insecure is set; a value
 *     that would go into a header or the URL (a tag, the app name, a key) with a CR, LF or NUL is
 *     refused; the endpoint must be http or https, with a host and no user name or password.
 */
#ifndef STACKREC_EXPORT_H_
#define STACKREC_EXPORT_H_

#include "stackrec/stackrec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ships profiles from a queue on its own thread. */
typedef struct stackrec_exporter stackrec_exporter;

/* Where the profiles go, and as what (docs/exporting.md). */
typedef enum stackrec_export_protocol {
  /* OTLP/HTTP: POST <endpoint>/v1development/profiles, a serialized ExportProfilesServiceRequest
   * (STACKREC_FORMAT_OTLP). */
  STACKREC_EXPORT_OTLP = 0,
  /* Grafana Pyroscope: POST <endpoint>/ingest, pprof as the multipart file `profile`. */
  STACKREC_EXPORT_PYROSCOPE = 1,
  /* The Datadog agent: POST <endpoint>/profiling/v1/input, multipart `event` + `profile.pprof`. */
  STACKREC_EXPORT_DATADOG_AGENT = 2,
  /* Datadog's agentless intake: POST https://intake.profile.<site>/api/v2/profile with the
   * DD-API-KEY header; or <endpoint>/api/v2/profile when an endpoint is given. */
  STACKREC_EXPORT_DATADOG_AGENTLESS = 3
} stackrec_export_protocol;

/* How to export; zero-initialise it: a 0 or {NULL, 0} field takes its default. Strings follow
 * stackrec.h's rules, and every value sent in a header or the URL is refused with a CR, LF or NUL.
 * stackrec_attribute pairs are borrowed for the call like every string. */
typedef struct stackrec_exporter_options {
  stackrec_export_protocol protocol;
  /* The base URL, http:// or https://, without the protocol's path: "http://localhost:4318"
   * (OTLP), "http://localhost:4040" (Pyroscope), "http://localhost:8126" (Datadog agent).
   * Required but for DATADOG_AGENTLESS, which builds it from `site`. */
  stackrec_str endpoint;
  stackrec_str site;    /* DATADOG_AGENTLESS: {NULL, 0}: "datadoghq.com" */
  stackrec_str api_key; /* DATADOG_AGENTLESS: required, sent as DD-API-KEY */
  /* PYROSCOPE: the application name (required; [A-Za-z0-9_.-/] as Pyroscope takes it), the
   * series' labels and how the profile was taken (spy_name {NULL, 0}: "stackrec"; sample_rate 0:
   * 100 Hz). */
  stackrec_str app_name;
  stackrec_str spy_name;
  uint32_t sample_rate;
  /* PYROSCOPE: the labels {k=v,...} after the name, at most 10, keys [A-Za-z0-9_.] not starting
   * with a digit or "__", values non-empty; DATADOG_*: tags_profiler (k:v, comma-joined, as
   * libdatadog checks them: no key starting and no value ending with ':', no empty value), before
   * the tags a tracer sends that these do not set (docs/exporting.md); OTLP: not sent (set resource
   * attributes when serializing). Keys non-empty; no ','. */
  const stackrec_attribute *tags;
  size_t tags_len;
  /* Authorization: HTTP Basic (user and password) or a Bearer token, not both. */
  stackrec_str basic_auth_user;
  stackrec_str basic_auth_password;
  stackrec_str bearer_token;
  stackrec_str tenant_id; /* sent as X-Scope-OrgID (Grafana's multi-tenant backends) */
  /* DATADOG_*: the event's family, the profiled runtime ("ruby", "python"; {NULL, 0}: "native"),
   * and the DD-EVP-ORIGIN and DD-EVP-ORIGIN-VERSION headers ({NULL, 0}: "stackrec" and its
   * version). */
  stackrec_str family;
  stackrec_str origin;
  stackrec_str origin_version;
  /* OTLP: send OTLP-Profiles-Development-Version: 1, which collectors that gate the development
   * profiles signal ask for. */
  bool otlp_development_header;
  /* More headers for every request, e.g. {"X-Team", "payments"}; names are HTTP tokens. */
  const stackrec_attribute *headers;
  size_t headers_len;
  /* The queue between send and the thread: when a new part would pass either bound, the oldest
   * queued parts are dropped (and counted) until it fits. 0: 64 MiB and 64 requests. A part larger
   * than max_queue_bytes on its own is dropped. */
  size_t max_queue_bytes;
  size_t max_queue_requests;
  /* Per attempt, in milliseconds. 0: 10,000 to connect and 30,000 in all; at most 3,600,000. */
  uint32_t connect_timeout_ms;
  uint32_t timeout_ms;
  /* Retries after a connection error, a timeout, or HTTP 429, 502, 503 or 504: exponential
   * backoff from initial_backoff_ms, doubling, capped by max_backoff_ms, with full jitter; a
   * Retry-After answer is honoured (capped the same). 0: 3 retries, 100 ms, 10,000 ms; a negative
   * max_retries: none. At most 100 retries and 3,600,000 ms. */
  int32_t max_retries;
  uint32_t initial_backoff_ms;
  uint32_t max_backoff_ms;
  /* TLS: a PEM file of CA certificates to verify the server with ({NULL, 0}: the system's), and an
   * opt-out of verification for test setups only. */
  stackrec_str ca_file;
  bool insecure;
} stackrec_exporter_options;

/* Checks and copies the options; *out is the caller's until stackrec_exporter_free. No thread is
 * started and no connection made yet. NULL opts or out, or a bad field: INVALID_ARGUMENT naming
 * it, e.g. "opts.tags[2].value contains a line break". Thread-safe. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_exporter_new_sized(
    const stackrec_exporter_options *opts, stackrec_exporter **out, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_exporter_new(
    const stackrec_exporter_options *opts, stackrec_exporter **out) {
  return stackrec_exporter_new_sized(opts, out, sizeof(stackrec_exporter_options));
}

/* Copies every part of `encoded` (borrowed) onto the queue, each a request of its own with the
 * same interval, the endpoint counts with part 0 only, and returns: never waits for the network.
 * Since 1.3 each part is first held to the backend's rules that the exporter can tell
 * (docs/exporting.md#what-each-backend-is-sent): the format the protocol sends (OTLP:
 * STACKREC_FORMAT_OTLP; the others: pprof), and for Pyroscope the target STACKREC_TARGET_PYROSCOPE,
 * gzip or no compression, sizes within its limits and rate burst, and a start inside its
 * ingestion window; for Datadog at most 10 MiB; for OTLP at most the collector's 20 MiB, compressed
 * or not. A part that breaks one: INVALID_ARGUMENT naming the part and the rule, nothing queued
 * (the caller keeps the profile), counted in refused_before_sending. NULL exporter or encoded, or
 * an encoded with no bytes: INVALID_ARGUMENT; the thread could not be started: OUT_OF_MEMORY. Any
 * thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_exporter_send(stackrec_exporter *exporter, const stackrec_encoded *encoded);

/* Waits until the queue is empty and no request is in flight: OK; or TIMED_OUT when timeout_ms
 * passes first (the requests go on). Succeeded or failed, every request is then counted in the
 * stats. NULL: INVALID_ARGUMENT. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_exporter_flush(stackrec_exporter *exporter,
                                                                        uint32_t timeout_ms);

/* Every period_ms (at least 10), the exporter's thread serializes `recorder` (borrowed until
 * shutdown, free or reset_after_fork: it must outlive them) and queues the parts. `opts` is copied;
 * NULL takes the protocol's defaults: gzip, in the protocol's format, with the budget of
 * docs/limits.md's backends table (OTLP: part_max_uncompressed_bytes 20 MiB; Pyroscope: target
 * PYROSCOPE, part_max_uncompressed_bytes 1,998,848 (2 MiB less 96 KiB) and 16,000 samples;
 * Datadog: part_max_bytes 10 MiB). A format that does not suit the protocol, a bad option or a
 * second call: INVALID_ARGUMENT naming it. A failed serialization is counted
 * (serialize_failed) and its samples come out in the next one. Shutdown does not serialize a last
 * time: serialize and send before it to ship the rest. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_exporter_start_periodic_sized(
    stackrec_exporter *exporter, stackrec_recorder *recorder,
    const stackrec_serialize_options *opts, uint32_t period_ms, size_t opts_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_exporter_start_periodic(
    stackrec_exporter *exporter, stackrec_recorder *recorder,
    const stackrec_serialize_options *opts, uint32_t period_ms) {
  return stackrec_exporter_start_periodic_sized(exporter, recorder, opts, period_ms,
                                                sizeof(stackrec_serialize_options));
}

/* What the exporter did since it was created (or reset after a fork). Fields are only appended.
 * queued + in flight + sent + every failed + dropped + dropped_too_old + abandoned ==
 * requests_queued. */
typedef struct stackrec_export_stats {
  uint64_t requests_queued;   /* parts ever put on the queue */
  uint64_t queued;            /* parts waiting now (not the one in flight) */
  uint64_t requests_sent;     /* answered 2xx */
  uint64_t bytes_sent;        /* the bodies of those requests */
  uint64_t retries;           /* attempts after a request's first */
  uint64_t failed_http_4xx;   /* refused, not retried: 4xx but 413 and 429, and 1xx/3xx */
  uint64_t failed_too_large;  /* 413: see docs/limits.md#budgets-profiles-that-backends-accept */
  uint64_t failed_http_5xx;   /* still 429 or 5xx when the retries ran out (or not retried) */
  uint64_t failed_connection; /* no answer (connect, TLS, timeout, reset) after the retries */
  uint64_t dropped;           /* the oldest, dropped from a full queue */
  uint64_t abandoned;         /* queued or in flight when shutdown's deadline passed */
  uint64_t partial_success_rejected; /* OTLP: rejected_profiles the collector reported */
  uint64_t serialize_failed;         /* periodic serializations that failed */
  int64_t last_http_status;          /* of the last answer, 0 before the first */
  /* The last failure's description, NUL-terminated and cut to fit; "" if none. Copied under the
   * exporter's lock, so each call gets a consistent snapshot: the caller owns it. */
  char last_error[256];
  /* Since 1.3. Parts of sends refused because the backend would refuse them (the send returned
   * INVALID_ARGUMENT, the caller keeps the profile); and parts that aged out of the backend's
   * ingestion window while queued or retried, dropped unsent (docs/exporting.md). */
  uint64_t refused_before_sending;
  uint64_t dropped_too_old;
} stackrec_export_stats;

/* Copies the figures into *out (borrowed). NULL exporter or out: INVALID_ARGUMENT. Any thread. */
STACKREC_NODISCARD STACKREC_API stackrec_status stackrec_exporter_stats_sized(
    const stackrec_exporter *exporter, stackrec_export_stats *out, size_t out_size);
STACKREC_NODISCARD static inline stackrec_status stackrec_exporter_stats(
    const stackrec_exporter *exporter, stackrec_export_stats *out) {
  return stackrec_exporter_stats_sized(exporter, out, sizeof(stackrec_export_stats));
}

/* Stops the periodic serialization, lets the queue drain for up to timeout_ms, then aborts the
 * request in flight and joins the thread: returns within about timeout_ms whatever the network
 * does. OK when everything queued was sent or failed; TIMED_OUT when requests were abandoned
 * (counted). Afterwards send and start_periodic refuse (INVALID_ARGUMENT); stats still work. NULL:
 * INVALID_ARGUMENT. Must overlap no other call on the exporter. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_exporter_shutdown(stackrec_exporter *exporter, uint32_t timeout_ms);

/* In the child after fork(), before any other call on the exporter: it forgets the parent's queue,
 * thread, connections and periodic serialization, whatever they were doing, and starts empty, with
 * zero stats; its thread starts again on the next send. Memory, locks and sockets the parent was
 * using are abandoned, never touched, freed or reused. NULL: INVALID_ARGUMENT. */
STACKREC_NODISCARD STACKREC_API stackrec_status
stackrec_exporter_reset_after_fork(stackrec_exporter *exporter);

/* As stackrec_exporter_shutdown with a 1,000 ms deadline (nothing if already shut down), then frees
 * it; NULL does nothing. No other call on it may run. */
STACKREC_API void stackrec_exporter_free(stackrec_exporter *exporter);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STACKREC_EXPORT_H_ */
