/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Stackrec::Exporter: a stackrec_exporter (libstackrec_export), which ships
 * what #serialize returned to a profiling backend from a thread of its own.
 * extconf.rb compiles this file only when pkg-config finds stackrec_export.
 *
 * What the C contract asks of a host, and how this object keeps it:
 *  - #flush and #shutdown wait, up to their deadline, without the GVL, so
 *    other Ruby threads run meanwhile. No unblocking function is given: the
 *    deadline bounds the wait, and a Thread#raise lands when it returns.
 *  - shutdown, free and reset_after_fork must overlap no other call: while
 *    a #shutdown waits, every other call raises Stackrec::Busy, and
 *    #shutdown raises it while a #flush waits.
 *  - After fork() the child must reset before any other call: every call
 *    but #reset_after_fork raises in a process other than the one the
 *    exporter's thread belongs to, and the GC's free resets first there.
 *  - start_periodic's recorder must outlive the exporter's use of it: the
 *    exporter marks it, and leases its handle (srb_handle_lease), as the GC
 *    may free both in one sweep, in either order.
 * Left to the GC, an exporter is freed by stackrec_exporter_free, which
 * gives the queue up to 1 s; #shutdown says how long.
 */
#include <ruby/thread.h>
#include <stackrec/export.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stackrec_ruby.h"

static VALUE eBusy;

typedef struct {
  stackrec_exporter *exporter;
  stackrec_export_protocol protocol;
  /* start_periodic's Recorder, and its leased handle; Qnil and NULL when
   * the exporter's thread serializes nothing. */
  VALUE recorder;
  srb_handle *leased;
  /* #flush and #shutdown calls that released the GVL. */
  int waiting;
  bool shutting_down;
  /* The process the exporter's thread belongs to: where it was created, or
   * last reset after a fork. */
  pid_t pid;
} srb_exporter;

static void release_recorder(srb_exporter *e) {
  if (e->leased != NULL) srb_handle_release(e->leased);
  e->leased = NULL;
  e->recorder = Qnil;
}

static void exporter_mark(void *p) {
  srb_exporter *e = p;
  rb_gc_mark(e->recorder);
}

static void exporter_free(void *p) {
  srb_exporter *e = p;
  if (e->exporter != NULL && e->pid != getpid()) {
    /* A fork child that never reset has none of the parent's threads, and
     * stackrec allows it no call but this one; it fails only for NULL. */
    stackrec_status ignored = stackrec_exporter_reset_after_fork(e->exporter);
    (void)ignored;
  }
  stackrec_exporter_free(e->exporter);
  release_recorder(e);
  ruby_xfree(e);
}

static size_t exporter_size(const void *p) {
  (void)p;
  return sizeof(srb_exporter);
}

static const rb_data_type_t exporter_type = {
    .wrap_struct_name = "stackrec exporter",
    .function = {.dmark = exporter_mark,
                 .dfree = exporter_free,
                 .dsize = exporter_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE exporter_alloc(VALUE klass) {
  srb_exporter *e;
  VALUE self = TypedData_Make_Struct(klass, srb_exporter, &exporter_type, e);
  e->recorder = Qnil;
  return self;
}

static VALUE exporter_initialize_copy(VALUE self, VALUE original) {
  (void)original;
  rb_raise(rb_eTypeError, "a %" PRIsVALUE " cannot be copied",
           rb_obj_class(self));
}

static srb_exporter *exporter_of(VALUE self) {
  srb_exporter *e;
  TypedData_Get_Struct(self, srb_exporter, &exporter_type, e);
  if (e->exporter == NULL) {
    rb_raise(srb_eError, "this Stackrec::Exporter was not initialized");
  }
  return e;
}

/* The exporter of `self`, for any call but #reset_after_fork. */
static srb_exporter *get_exporter(VALUE self, const char *method) {
  srb_exporter *e = exporter_of(self);
  if (e->pid != getpid()) {
    rb_raise(srb_eError,
             "%s: this Stackrec::Exporter belongs to process %ld; in a fork "
             "child, call reset_after_fork first",
             method, (long)e->pid);
  }
  if (e->shutting_down) {
    rb_raise(eBusy, "%s: another thread is shutting this exporter down",
             method);
  }
  return e;
}

/* ---- Arguments
 * ------------------------------------------------------------------- */

static uint32_t uint32_arg(VALUE value, const char *what) {
  uint64_t n = srb_uint64_arg(value, what);
  if (n > UINT32_MAX) {
    rb_raise(rb_eRangeError, "%s must be at most 4294967295, got %+" PRIsVALUE,
             what, value);
  }
  return (uint32_t)n;
}

static int32_t int32_arg(VALUE value, const char *what) {
  int64_t n = srb_int64_arg(value, what);
  if (n < INT32_MIN || n > INT32_MAX) {
    rb_raise(rb_eRangeError, "%s must fit 32 bits, got %+" PRIsVALUE, what,
             value);
  }
  return (int32_t)n;
}

static stackrec_export_protocol protocol_arg(VALUE value) {
  /* In the order of the stackrec_export_protocol enum. */
  static const char *const names[4] = {"otlp", "pyroscope", "datadog_agent",
                                       "datadog_agentless"};
  int i;
  for (i = 0; i < 4; i++) {
    if (value == ID2SYM(rb_intern(names[i])))
      return (stackrec_export_protocol)i;
  }
  rb_raise(rb_eArgError,
           "protocol must be one of :otlp, :pyroscope, :datadog_agent, "
           ":datadog_agentless, got %+" PRIsVALUE,
           value);
}

static VALUE pair_string(VALUE value, VALUE key, VALUE entry,
                         const char *what) {
  if (RB_SYMBOL_P(value)) return rb_sym2str(value);
  if (!RB_TYPE_P(value, T_STRING)) {
    rb_raise(rb_eTypeError,
             "%s must map Strings to Strings, got %+" PRIsVALUE
             " => %+" PRIsVALUE,
             what, key, entry);
  }
  return value;
}

/* {key => value} (Strings or Symbols; nil is {}) as [[key, value], ...] of
 * Strings, so that filling the stackrec_attributes allocates nothing. */
static VALUE pairs_arg(VALUE value, const char *what) {
  VALUE pairs = rb_ary_new(), entries;
  long i;
  if (NIL_P(value) || value == Qundef) return pairs;
  if (!RB_TYPE_P(value, T_HASH)) {
    rb_raise(rb_eTypeError, "%s must be a Hash, got %+" PRIsVALUE, what, value);
  }
  entries = rb_funcall(value, rb_intern("to_a"), 0);
  for (i = 0; i < RARRAY_LEN(entries); i++) {
    VALUE key = RARRAY_AREF(RARRAY_AREF(entries, i), 0);
    VALUE entry = RARRAY_AREF(RARRAY_AREF(entries, i), 1);
    rb_ary_push(pairs, rb_assoc_new(pair_string(key, key, entry, what),
                                    pair_string(entry, key, entry, what)));
  }
  return pairs;
}

static void fill_attributes(VALUE pairs, stackrec_attribute *out) {
  long i;
  for (i = 0; i < RARRAY_LEN(pairs); i++) {
    out[i].key = srb_str(RARRAY_AREF(RARRAY_AREF(pairs, i), 0));
    out[i].value = srb_str(RARRAY_AREF(RARRAY_AREF(pairs, i), 1));
  }
}

/* ---- new
 * ------------------------------------------------------------------------- */

enum {
  E_PROTOCOL, /* required */
  E_ENDPOINT,
  E_SITE,
  E_API_KEY,
  E_APP_NAME,
  E_SPY_NAME,
  E_BEARER_TOKEN,
  E_TENANT_ID,
  E_FAMILY,
  E_ORIGIN,
  E_ORIGIN_VERSION,
  E_CA_FILE,
  E_SAMPLE_RATE,
  E_TAGS,
  E_BASIC_AUTH,
  E_OTLP_DEVELOPMENT_HEADER,
  E_HEADERS,
  E_MAX_QUEUE_BYTES,
  E_MAX_QUEUE_REQUESTS,
  E_CONNECT_TIMEOUT_MS,
  E_TIMEOUT_MS,
  E_MAX_RETRIES,
  E_INITIAL_BACKOFF_MS,
  E_MAX_BACKOFF_MS,
  E_INSECURE,
  E_COUNT
};
static const char *const exporter_names[E_COUNT] = {"protocol",
                                                    "endpoint",
                                                    "site",
                                                    "api_key",
                                                    "app_name",
                                                    "spy_name",
                                                    "bearer_token",
                                                    "tenant_id",
                                                    "family",
                                                    "origin",
                                                    "origin_version",
                                                    "ca_file",
                                                    "sample_rate",
                                                    "tags",
                                                    "basic_auth",
                                                    "otlp_development_header",
                                                    "headers",
                                                    "max_queue_bytes",
                                                    "max_queue_requests",
                                                    "connect_timeout_ms",
                                                    "timeout_ms",
                                                    "max_retries",
                                                    "initial_backoff_ms",
                                                    "max_backoff_ms",
                                                    "insecure"};
static ID exporter_keywords[E_COUNT];

/* The string options, E_ENDPOINT to E_CA_FILE in order, then the two halves
 * of basic_auth. */
enum { STRINGS = E_CA_FILE - E_ENDPOINT + 1, ALL_STRINGS = STRINGS + 2 };
static const size_t string_fields[ALL_STRINGS] = {
    offsetof(stackrec_exporter_options, endpoint),
    offsetof(stackrec_exporter_options, site),
    offsetof(stackrec_exporter_options, api_key),
    offsetof(stackrec_exporter_options, app_name),
    offsetof(stackrec_exporter_options, spy_name),
    offsetof(stackrec_exporter_options, bearer_token),
    offsetof(stackrec_exporter_options, tenant_id),
    offsetof(stackrec_exporter_options, family),
    offsetof(stackrec_exporter_options, origin),
    offsetof(stackrec_exporter_options, origin_version),
    offsetof(stackrec_exporter_options, ca_file),
    offsetof(stackrec_exporter_options, basic_auth_user),
    offsetof(stackrec_exporter_options, basic_auth_password)};

/* new(protocol:, endpoint: nil, ...): the keywords are
 * stackrec_exporter_options' fields (lib/stackrec/exporter.rb). */
static VALUE exporter_initialize(int argc, VALUE *argv, VALUE self) {
  VALUE options, k[E_COUNT], strings[ALL_STRINGS], tags, headers;
  VALUE tags_buffer = 0, headers_buffer = 0;
  stackrec_exporter_options opts;
  stackrec_attribute *tag_array, *header_array;
  stackrec_status status;
  srb_exporter *e;
  int i;

  rb_scan_args(argc, argv, ":", &options);
  TypedData_Get_Struct(self, srb_exporter, &exporter_type, e);
  if (e->exporter != NULL) {
    rb_raise(srb_eError, "this Stackrec::Exporter is initialized already");
  }
  rb_get_kwargs(options, exporter_keywords, 1, E_COUNT - 1, k);

  /* First everything that allocates. */
  memset(&opts, 0, sizeof(opts));
  opts.protocol = protocol_arg(k[E_PROTOCOL]);
  for (i = 0; i < STRINGS; i++) {
    strings[i] =
        srb_string_arg(k[E_ENDPOINT + i], exporter_names[E_ENDPOINT + i]);
  }
  /* The profiled runtime, which Datadog files the profile under. */
  if (RSTRING_LEN(strings[E_FAMILY - E_ENDPOINT]) == 0) {
    strings[E_FAMILY - E_ENDPOINT] = rb_str_new_cstr("ruby");
  }
  strings[STRINGS] = strings[STRINGS + 1] = rb_str_new(NULL, 0);
  if (k[E_BASIC_AUTH] != Qundef && !NIL_P(k[E_BASIC_AUTH])) {
    VALUE pair = k[E_BASIC_AUTH];
    if (!RB_TYPE_P(pair, T_ARRAY) || RARRAY_LEN(pair) != 2) {
      rb_raise(rb_eTypeError,
               "basic_auth must be [user, password], got %+" PRIsVALUE, pair);
    }
    strings[STRINGS] = srb_string_arg(RARRAY_AREF(pair, 0), "basic_auth user");
    strings[STRINGS + 1] =
        srb_string_arg(RARRAY_AREF(pair, 1), "basic_auth password");
  }
  tags = pairs_arg(k[E_TAGS], "tags");
  headers = pairs_arg(k[E_HEADERS], "headers");
  opts.sample_rate = uint32_arg(k[E_SAMPLE_RATE], "sample_rate");
  opts.otlp_development_header =
      srb_bool_arg(k[E_OTLP_DEVELOPMENT_HEADER], "otlp_development_header");
  opts.max_queue_bytes = srb_size_arg(k[E_MAX_QUEUE_BYTES], "max_queue_bytes");
  opts.max_queue_requests =
      srb_size_arg(k[E_MAX_QUEUE_REQUESTS], "max_queue_requests");
  opts.connect_timeout_ms =
      uint32_arg(k[E_CONNECT_TIMEOUT_MS], "connect_timeout_ms");
  opts.timeout_ms = uint32_arg(k[E_TIMEOUT_MS], "timeout_ms");
  opts.max_retries = int32_arg(k[E_MAX_RETRIES], "max_retries");
  opts.initial_backoff_ms =
      uint32_arg(k[E_INITIAL_BACKOFF_MS], "initial_backoff_ms");
  opts.max_backoff_ms = uint32_arg(k[E_MAX_BACKOFF_MS], "max_backoff_ms");
  opts.insecure = srb_bool_arg(k[E_INSECURE], "insecure");
  tag_array = ALLOCV_N(stackrec_attribute, tags_buffer, RARRAY_LEN(tags));
  header_array =
      ALLOCV_N(stackrec_attribute, headers_buffer, RARRAY_LEN(headers));

  /* Then the pointers. */
  for (i = 0; i < ALL_STRINGS; i++) {
    *(stackrec_str *)((char *)&opts + string_fields[i]) = srb_str(strings[i]);
  }
  fill_attributes(tags, tag_array);
  opts.tags = tag_array;
  opts.tags_len = (size_t)RARRAY_LEN(tags);
  fill_attributes(headers, header_array);
  opts.headers = header_array;
  opts.headers_len = (size_t)RARRAY_LEN(headers);

  status = stackrec_exporter_new(&opts, &e->exporter);
  ALLOCV_END(tags_buffer);
  ALLOCV_END(headers_buffer);
  for (i = 0; i < ALL_STRINGS; i++) RB_GC_GUARD(strings[i]);
  RB_GC_GUARD(tags);
  RB_GC_GUARD(headers);
  if (status != STACKREC_OK) srb_raise_status(status, "Exporter.new");
  e->protocol = opts.protocol;
  e->pid = getpid();
  return self;
}

/* ---- Sending
 * --------------------------------------------------------------------- */

/* send(encoded): queues every part of what #serialize returned. */
static VALUE exporter_send(VALUE self, VALUE encoded) {
  srb_exporter *e = get_exporter(self, "send");
  stackrec_format format;
  const stackrec_encoded *handle = srb_encoded_handle(encoded, &format);
  /* stackrec_exporter_send cannot tell the formats apart; a backend would
   * refuse the wrong one much later, counted in #stats. */
  bool otlp = e->protocol == STACKREC_EXPORT_OTLP;
  if ((format == STACKREC_FORMAT_OTLP) != otlp) {
    rb_raise(rb_eArgError,
             "send: this exporter's protocol takes %s profiles, and encoded "
             "was serialized with format: %s",
             otlp ? "format: :otlp" : "pprof", otlp ? ":pprof" : ":otlp");
  }
  SRB_CHECK(stackrec_exporter_send(e->exporter, handle), "send");
  RB_GC_GUARD(encoded);
  return self;
}

/* start_periodic(recorder, period_ms, **serialize_options) */
static VALUE exporter_start_periodic(int argc, VALUE *argv, VALUE self) {
  VALUE recorder, period, options;
  srb_exporter *e = get_exporter(self, "start_periodic");
  srb_serialize_args args;
  srb_handle *handle;
  uint32_t period_ms;
  stackrec_status status;

  rb_scan_args(argc, argv, "2:", &recorder, &period, &options);
  period_ms = uint32_arg(period, "period_ms");
  srb_serialize_args_fill(&args, options);
  handle = srb_handle_lease(recorder);
  /* No options: the protocol's own defaults, which no keyword spells. */
  status = stackrec_exporter_start_periodic(e->exporter, handle->recorder,
                                            NIL_P(options) ? NULL : &args.opts,
                                            period_ms);
  srb_serialize_args_release(&args);
  if (status != STACKREC_OK) {
    srb_handle_release(handle);
    srb_raise_status(status, "start_periodic");
  }
  e->recorder = recorder;
  e->leased = handle;
  return self;
}

/* stats => {requests_queued: ..., last_error: "...", ...} */
static VALUE exporter_stats(VALUE self) {
  stackrec_export_stats stats;
  VALUE hash = rb_hash_new(), last_error, scrubbed;
  SRB_CHECK(
      stackrec_exporter_stats(get_exporter(self, "stats")->exporter, &stats),
      "stats");
#define STACKREC_STAT(field, convert) \
  rb_hash_aset(hash, ID2SYM(rb_intern(#field)), convert(stats.field))
  STACKREC_STAT(requests_queued, ULL2NUM);
  STACKREC_STAT(queued, ULL2NUM);
  STACKREC_STAT(requests_sent, ULL2NUM);
  STACKREC_STAT(bytes_sent, ULL2NUM);
  STACKREC_STAT(retries, ULL2NUM);
  STACKREC_STAT(failed_http_4xx, ULL2NUM);
  STACKREC_STAT(failed_too_large, ULL2NUM);
  STACKREC_STAT(failed_http_5xx, ULL2NUM);
  STACKREC_STAT(failed_connection, ULL2NUM);
  STACKREC_STAT(dropped, ULL2NUM);
  STACKREC_STAT(abandoned, ULL2NUM);
  STACKREC_STAT(partial_success_rejected, ULL2NUM);
  STACKREC_STAT(serialize_failed, ULL2NUM);
  STACKREC_STAT(last_http_status, LL2NUM);
  STACKREC_STAT(refused_before_sending, ULL2NUM);
  STACKREC_STAT(dropped_too_old, ULL2NUM);
#undef STACKREC_STAT
  /* Cut to fit, it may end inside a character, and a server's words may be
   * anything: scrubbed, it is a valid UTF-8 String. */
  last_error = rb_utf8_str_new_cstr(stats.last_error);
  scrubbed = rb_str_scrub(last_error, Qnil);
  rb_hash_aset(hash, ID2SYM(rb_intern("last_error")),
               NIL_P(scrubbed) ? last_error : scrubbed);
  return hash;
}

/* ---- Waiting: flush and shutdown
 * ------------------------------------------------ */

typedef struct {
  srb_exporter *e;
  bool shutdown;
  uint32_t timeout_ms;
  stackrec_status status;
  /* stackrec_last_error() is this thread's until its next stackrec call,
   * which the interrupts run when the GVL is back may make: a copy. */
  char error[1024];
} wait_call;

static void *wait_without_gvl(void *arg) {
  wait_call *call = arg;
  const char *method = call->shutdown ? "shutdown" : "flush";
  call->status =
      call->shutdown
          ? stackrec_exporter_shutdown(call->e->exporter, call->timeout_ms)
          : stackrec_exporter_flush(call->e->exporter, call->timeout_ms);
  if (call->status == STACKREC_INVALID_ARGUMENT) {
    snprintf(call->error, sizeof(call->error), "%s: %s", method,
             stackrec_last_error());
  } else if (call->status != STACKREC_OK &&
             call->status != STACKREC_TIMED_OUT) {
    snprintf(call->error, sizeof(call->error), "%s: %s: %s", method,
             stackrec_status_name(call->status), stackrec_last_error());
  }
  return NULL;
}

static VALUE wait_body(VALUE arg) {
  wait_call *call = (wait_call *)arg;
  rb_thread_call_without_gvl(wait_without_gvl, call, NULL, NULL);
  if (call->status == STACKREC_TIMED_OUT) return Qfalse;
  if (call->status != STACKREC_OK)
    srb_raise_captured(call->status, call->error);
  return Qtrue;
}

static VALUE wait_cleanup(VALUE arg) {
  wait_call *call = (wait_call *)arg;
  call->e->waiting--;
  if (call->shutdown) {
    call->e->shutting_down = false;
    /* Shut down, the exporter's thread is joined: the recorder is free. */
    release_recorder(call->e);
  }
  return Qnil;
}

static VALUE wait_for(VALUE self, VALUE timeout, bool shutdown) {
  const char *method = shutdown ? "shutdown" : "flush";
  wait_call call;
  memset(&call, 0, sizeof(call));
  call.e = get_exporter(self, method);
  call.shutdown = shutdown;
  call.timeout_ms = uint32_arg(timeout, "timeout_ms");
  if (shutdown && call.e->waiting > 0) {
    rb_raise(eBusy,
             "shutdown: another thread is flushing this exporter, and "
             "shutdown must overlap no other call");
  }
  call.e->waiting++;
  call.e->shutting_down = shutdown;
  return rb_ensure(wait_body, (VALUE)&call, wait_cleanup, (VALUE)&call);
}

/* flush(timeout_ms) => true, or false when the deadline passed first */
static VALUE exporter_flush(VALUE self, VALUE timeout) {
  return wait_for(self, timeout, false);
}

/* shutdown(timeout_ms) => true, or false when requests were abandoned */
static VALUE exporter_shutdown(VALUE self, VALUE timeout) {
  return wait_for(self, timeout, true);
}

/* reset_after_fork => true in a fork child; false, doing nothing, in the
 * process the exporter's thread belongs to, where a reset would abandon a
 * running thread and the recorder it may be serializing. */
static VALUE exporter_reset_after_fork(VALUE self) {
  srb_exporter *e = exporter_of(self);
  if (e->pid == getpid()) return Qfalse;
  SRB_CHECK(stackrec_exporter_reset_after_fork(e->exporter),
            "reset_after_fork");
  e->waiting = 0;
  e->shutting_down = false;
  e->pid = getpid();
  /* The child's exporter serializes nothing until start_periodic. */
  release_recorder(e);
  return Qtrue;
}

void srb_init_exporter(VALUE module) {
  VALUE cExporter = rb_define_class_under(module, "Exporter", rb_cObject);
  srb_intern_all(exporter_keywords, E_COUNT, exporter_names);
  eBusy = rb_const_get(module, rb_intern("Busy"));
  rb_define_alloc_func(cExporter, exporter_alloc);
  rb_define_method(cExporter, "initialize", exporter_initialize, -1);
  rb_define_method(cExporter, "initialize_copy", exporter_initialize_copy, 1);
  rb_define_method(cExporter, "send", exporter_send, 1);
  rb_define_method(cExporter, "start_periodic", exporter_start_periodic, -1);
  rb_define_method(cExporter, "stats", exporter_stats, 0);
  rb_define_method(cExporter, "flush", exporter_flush, 1);
  rb_define_method(cExporter, "shutdown", exporter_shutdown, 1);
  rb_define_method(cExporter, "reset_after_fork", exporter_reset_after_fork, 0);
}
