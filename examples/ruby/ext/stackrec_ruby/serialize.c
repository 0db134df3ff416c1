/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Serializing a Profile or a Recorder into a Stackrec::Encoded: the options
 * as keywords, the encoding without the GVL, and the result copied into Ruby
 * values before the encoded handle is freed.
 *
 * The GVL is released while stackrec encodes, so Ruby threads go on running,
 * and recording, meanwhile; nothing in that window touches a Ruby object.
 * No unblocking function is given: encoding cannot be cut short, and takes
 * milliseconds. Pending interrupts (Thread#raise, #kill) are handled when it
 * returns; the profile it made is then dropped by serialize_cleanup.
 */
#include <limits.h>
#include <ruby/thread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stackrec_ruby.h"

static VALUE cEncoded, cPart;

enum {
  S_FORMAT,
  S_COMPRESSION,
  S_LEVEL,
  S_SERVICE_NAME,
  S_RESOURCE_ATTRIBUTES,
  S_SCOPE_NAME,
  S_SCOPE_VERSION,
  S_PART_MAX_BYTES,
  S_PART_MAX_UNCOMPRESSED_BYTES,
  S_PART_MAX_SAMPLES,
  S_MAX_PARTS,
  S_COMPRESS_THREADS,
  S_KEYWORDS
};
static ID serialize_keywords[S_KEYWORDS];

typedef struct {
  srb_handle *handle;
  const stackrec_serialize_options *opts;
  stackrec_encoded *encoded;
  stackrec_status status;
  /* stackrec_last_error() is this thread's until its next stackrec call, and
   * the interrupts Ruby runs when the GVL is back may make one (the heap
   * profiler's postponed job): keep a copy. */
  char error[4096];
} serialize_call;

static void *serialize_without_gvl(void *arg) {
  serialize_call *call = arg;
  call->status = call->handle->profile
                     ? stackrec_profile_serialize(call->handle->profile,
                                                  call->opts, &call->encoded)
                     : stackrec_recorder_serialize(call->handle->recorder,
                                                   call->opts, &call->encoded);
  if (call->status != STACKREC_OK) {
    if (call->status == STACKREC_INVALID_ARGUMENT) {
      snprintf(call->error, sizeof(call->error), "serialize: %s",
               stackrec_last_error());
    } else {
      snprintf(call->error, sizeof(call->error), "serialize: %s: %s",
               stackrec_status_name(call->status), stackrec_last_error());
    }
  }
  return NULL;
}

/* A Time in UTC. */
static VALUE time_of(int64_t unix_ns) {
  struct timespec ts;
  ts.tv_sec = (time_t)(unix_ns / 1000000000);
  ts.tv_nsec = (long)(unix_ns % 1000000000);
  return rb_time_timespec_new(&ts, INT_MAX - 1);
}

static VALUE fold_reason(stackrec_fold_reason reason) {
  switch (reason) {
    case STACKREC_FOLD_NONE:
      return ID2SYM(rb_intern("none"));
    case STACKREC_FOLD_OUTPUT_LIMIT:
      return ID2SYM(rb_intern("output_limit"));
    case STACKREC_FOLD_SAMPLE_TOO_BIG:
      return ID2SYM(rb_intern("sample_too_big"));
    case STACKREC_FOLD_PARTS_LIMIT:
      return ID2SYM(rb_intern("parts_limit"));
  }
  return INT2NUM((int)reason); /* a reason newer than this glue */
}

static VALUE encode_stats(const stackrec_encoded *encoded) {
  stackrec_encode_stats stats;
  VALUE hash = rb_hash_new();
  stackrec_status status = stackrec_encoded_stats(encoded, &stats);
  if (status != STACKREC_OK) srb_raise_status(status, "serialize");
#define STACKREC_STAT(field, convert) \
  rb_hash_aset(hash, ID2SYM(rb_intern(#field)), convert(stats.field))
  STACKREC_STAT(samples_recorded, ULL2NUM);
  STACKREC_STAT(samples_truncated, ULL2NUM);
  STACKREC_STAT(samples_over_memory, ULL2NUM);
  STACKREC_STAT(samples_written, ULL2NUM);
  STACKREC_STAT(samples_left_out, ULL2NUM);
  STACKREC_STAT(locations_written, ULL2NUM);
  STACKREC_STAT(functions_written, ULL2NUM);
  STACKREC_STAT(mappings_written, ULL2NUM);
  STACKREC_STAT(strings_written, ULL2NUM);
  STACKREC_STAT(uncompressed_bytes, ULL2NUM);
  STACKREC_STAT(compressed_bytes, ULL2NUM);
  STACKREC_STAT(encode_ns, LL2NUM);
  STACKREC_STAT(parts, ULL2NUM);
#undef STACKREC_STAT
  rb_hash_aset(hash, ID2SYM(rb_intern("folded_because")),
               fold_reason(stats.folded_because));
  return hash;
}

static VALUE encoded_value(const stackrec_encoded *encoded) {
  VALUE data = rb_str_new((const char *)stackrec_encoded_data(encoded),
                          (long)stackrec_encoded_size(encoded));
  VALUE parts = rb_ary_new();
  VALUE counts = rb_hash_new();
  size_t i, n = stackrec_encoded_parts_len(encoded);
  stackrec_status status;
  for (i = 0; i < n; i++) {
    stackrec_part part;
    VALUE bytes;
    status = stackrec_encoded_part(encoded, i, &part);
    if (status != STACKREC_OK) srb_raise_status(status, "serialize");
    /* Part 0's bytes are stackrec_encoded_data's: one String for both. */
    bytes =
        i == 0 ? data : rb_str_new((const char *)part.data, (long)part.size);
    rb_ary_push(parts,
                rb_struct_new(cPart, bytes, ULL2NUM(part.samples_written),
                              ULL2NUM(part.uncompressed_bytes)));
  }
  n = stackrec_encoded_endpoint_counts_len(encoded);
  for (i = 0; i < n; i++) {
    stackrec_str endpoint;
    int64_t count;
    status = stackrec_encoded_endpoint_count(encoded, i, &endpoint, &count);
    if (status != STACKREC_OK) srb_raise_status(status, "serialize");
    rb_hash_aset(counts, rb_utf8_str_new(endpoint.ptr, (long)endpoint.len),
                 LL2NUM(count));
  }
  return rb_struct_new(cEncoded, time_of(stackrec_encoded_start_ns(encoded)),
                       time_of(stackrec_encoded_end_ns(encoded)), data,
                       encode_stats(encoded), parts, counts);
}

static VALUE serialize_body(VALUE arg) {
  serialize_call *call = (serialize_call *)arg;
  rb_thread_call_without_gvl(serialize_without_gvl, call, NULL, NULL);
  if (call->status != STACKREC_OK)
    srb_raise_captured(call->status, call->error);
  return encoded_value(call->encoded);
}

static VALUE serialize_cleanup(VALUE arg) {
  serialize_call *call = (serialize_call *)arg;
  call->handle->serializing--;
  stackrec_encoded_free(call->encoded);
  return Qnil;
}

static int symbol_choice(VALUE value, const char *what, int count,
                         const char *const *names) {
  int i;
  if (NIL_P(value) || value == Qundef) return 0;
  for (i = 0; i < count; i++) {
    if (value == ID2SYM(rb_intern(names[i]))) return i;
  }
  rb_raise(rb_eArgError, "%s must be one of :%s, :%s%s%s, got %+" PRIsVALUE,
           what, names[0], names[1], count > 2 ? ", :" : "",
           count > 2 ? names[2] : "", value);
}

typedef struct {
  stackrec_attribute *attributes;
  size_t count;
} attributes_args;

static int attribute_entry(VALUE key, VALUE value, VALUE arg) {
  attributes_args *args = (attributes_args *)arg;
  if (!RB_TYPE_P(key, T_STRING) || !RB_TYPE_P(value, T_STRING)) {
    rb_raise(rb_eTypeError,
             "resource_attributes must map Strings to Strings, got %+" PRIsVALUE
             " => %+" PRIsVALUE,
             key, value);
  }
  args->attributes[args->count].key = srb_str(key);
  args->attributes[args->count].value = srb_str(value);
  args->count++;
  return ST_CONTINUE;
}

VALUE srb_serialize(VALUE self, VALUE options) {
  static const char *const formats[2] = {"pprof", "otlp"};
  /* In the order of the stackrec_compression enum. */
  static const char *const compressions[3] = {"gzip", "none", "zstd"};
  serialize_call call;
  stackrec_serialize_options opts;
  VALUE k[S_KEYWORDS], service, scope_name, scope_version, attributes = Qnil;
  VALUE attributes_buffer = 0;
  attributes_args args = {NULL, 0};
  srb_handle *handle = srb_get_handle(self);
  VALUE result;

  if (!NIL_P(options)) options = rb_hash_dup(options);
  srb_keywords(options, S_KEYWORDS, serialize_keywords, k);
  memset(&opts, 0, sizeof(opts));
  opts.format =
      (stackrec_format)symbol_choice(k[S_FORMAT], "format", 2, formats);
  opts.compression = (stackrec_compression)symbol_choice(
      k[S_COMPRESSION], "compression", 3, compressions);
  opts.level = (int)srb_int64_arg(k[S_LEVEL], "level");
  opts.part_max_bytes = srb_size_arg(k[S_PART_MAX_BYTES], "part_max_bytes");
  opts.part_max_uncompressed_bytes = srb_size_arg(
      k[S_PART_MAX_UNCOMPRESSED_BYTES], "part_max_uncompressed_bytes");
  opts.part_max_samples =
      srb_size_arg(k[S_PART_MAX_SAMPLES], "part_max_samples");
  opts.max_parts = srb_size_arg(k[S_MAX_PARTS], "max_parts");
  opts.compress_threads =
      (int)srb_int64_arg(k[S_COMPRESS_THREADS], "compress_threads");
  service = srb_string_arg(k[S_SERVICE_NAME], "service_name");
  scope_name = srb_string_arg(k[S_SCOPE_NAME], "scope_name");
  scope_version = srb_string_arg(k[S_SCOPE_VERSION], "scope_version");
  if (k[S_RESOURCE_ATTRIBUTES] != Qundef && !NIL_P(k[S_RESOURCE_ATTRIBUTES])) {
    attributes = k[S_RESOURCE_ATTRIBUTES];
    if (!RB_TYPE_P(attributes, T_HASH)) {
      rb_raise(rb_eTypeError,
               "resource_attributes must be a Hash, got %+" PRIsVALUE,
               attributes);
    }
    args.attributes =
        ALLOCV_N(stackrec_attribute, attributes_buffer, RHASH_SIZE(attributes));
    rb_hash_foreach(attributes, attribute_entry, (VALUE)&args);
  }
  /* From here on nothing allocates until stackrec has read the strings. */
  opts.service_name = srb_str(service);
  opts.scope_name = srb_str(scope_name);
  opts.scope_version = srb_str(scope_version);
  opts.resource_attributes = args.attributes;
  opts.resource_attributes_len = args.count;

  memset(&call, 0, sizeof(call));
  call.handle = handle;
  call.opts = &opts;
  if (handle->serializing_pid != getpid()) {
    handle->serializing = 0;
    handle->serializing_pid = getpid();
  }
  handle->serializing++;
  result =
      rb_ensure(serialize_body, (VALUE)&call, serialize_cleanup, (VALUE)&call);
  ALLOCV_END(attributes_buffer);
  RB_GC_GUARD(service);
  RB_GC_GUARD(scope_name);
  RB_GC_GUARD(scope_version);
  RB_GC_GUARD(attributes);
  return result;
}

/* _serialize(options) => Stackrec::Encoded, or raises; lib/stackrec has
 * #serialize and #serialize! on top. */
static VALUE handle_serialize(VALUE self, VALUE options) {
  return srb_serialize(self, options);
}

void srb_init_serialize(VALUE module) {
  static const char *const names[S_KEYWORDS] = {
      "format",           "compression",         "level",
      "service_name",     "resource_attributes", "scope_name",
      "scope_version",    "part_max_bytes",      "part_max_uncompressed_bytes",
      "part_max_samples", "max_parts",           "compress_threads"};
  const char *const classes[3] = {"Profile", "Recorder", "StackRecorder"};
  int i;
  for (i = 0; i < S_KEYWORDS; i++) serialize_keywords[i] = rb_intern(names[i]);
  /* lib/stackrec/encoded.rb documents both and adds to Encoded. */
  cEncoded =
      rb_struct_define_under(module, "Encoded", "start", "finish", "data",
                             "stats", "parts", "endpoint_counts", NULL);
  cPart = rb_struct_define_under(module, "Part", "data", "samples_written",
                                 "uncompressed_bytes", NULL);
  for (i = 0; i < 3; i++) {
    rb_define_private_method(rb_const_get(module, rb_intern(classes[i])),
                             "_serialize", handle_serialize, 1);
  }
}
