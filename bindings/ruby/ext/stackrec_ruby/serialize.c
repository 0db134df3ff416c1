/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Serializing a Profile or a Recorder into a Stackrec::Encoded: the options
 * as keywords, the encoding without the GVL, and the result copied into Ruby
 * values. The encoded handle itself stays inside the Encoded, in a hidden
 * instance variable, until the GC collects it: Exporter#send hands that
 * handle to stackrec_exporter_send, which takes every part from it.
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
/* The Encoded's hidden instance variable that holds its handle: a name
 * without "@" is invisible to Ruby code (instance_variables, inspect). */
static ID id_handle;
static VALUE cHandle; /* Stackrec::Encoded::Handle, what that variable holds */

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
  S_TARGET,
  S_SERIES_LABELS,
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

/* ---- The encoded handle, kept for Exporter#send
 * ------------------------------------------------ */

typedef struct {
  stackrec_encoded *encoded;
  /* The exporter cannot tell pprof from OTLP by the bytes; send can, by this.
   */
  stackrec_format format;
  /* The bytes the handle holds, which the GC is told about: without them, it
   * would see only the Ruby copies and let the handles pile up. */
  size_t bytes;
} encoded_handle;

static void encoded_handle_free(void *p) {
  encoded_handle *handle = p;
  stackrec_encoded_free(handle->encoded);
  if (handle->bytes > 0) rb_gc_adjust_memory_usage(-(ssize_t)handle->bytes);
  ruby_xfree(handle);
}

static size_t encoded_handle_size(const void *p) {
  const encoded_handle *handle = p;
  return sizeof(*handle) + handle->bytes;
}

static const rb_data_type_t encoded_handle_type = {
    .wrap_struct_name = "stackrec encoded",
    .function = {.dfree = encoded_handle_free, .dsize = encoded_handle_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

/* Marshal writes instance variables, hidden ones too; the copy it makes
 * would be a profile's bytes without the library's handle, so the handle
 * marshals as nothing and loads as nil (#send then says what it needs). */
static VALUE encoded_handle_dump(VALUE self, VALUE depth) {
  (void)self;
  (void)depth;
  return rb_str_new(NULL, 0);
}

static VALUE encoded_handle_load(VALUE klass, VALUE data) {
  (void)klass;
  (void)data;
  return Qnil;
}

const stackrec_encoded *srb_encoded_handle(VALUE encoded,
                                           stackrec_format *format) {
  VALUE holder;
  encoded_handle *handle;
  if (!RTEST(rb_obj_is_kind_of(encoded, cEncoded))) {
    rb_raise(rb_eTypeError,
             "encoded must be a Stackrec::Encoded, got %+" PRIsVALUE, encoded);
  }
  holder = rb_attr_get(encoded, id_handle);
  if (!rb_typeddata_is_kind_of(holder, &encoded_handle_type)) {
    rb_raise(rb_eArgError,
             "encoded must be what #serialize returned, with the library's "
             "handle; one built by Stackrec::Encoded.new or Marshal has none");
  }
  handle = RTYPEDDATA_DATA(holder);
  *format = handle->format;
  return handle->encoded;
}

/* ---- The Encoded Ruby sees
 * ------------------------------------------------------- */

static VALUE encoded_value(VALUE holder) {
  const encoded_handle *handle = RTYPEDDATA_DATA(holder);
  const stackrec_encoded *encoded = handle->encoded;
  VALUE data = rb_str_new((const char *)stackrec_encoded_data(encoded),
                          (long)stackrec_encoded_size(encoded));
  VALUE parts = rb_ary_new();
  VALUE counts = rb_hash_new();
  VALUE value;
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
  value = rb_struct_new(cEncoded, time_of(stackrec_encoded_start_ns(encoded)),
                        time_of(stackrec_encoded_end_ns(encoded)), data,
                        encode_stats(encoded), parts, counts);
  rb_ivar_set(value, id_handle, holder);
  return value;
}

static VALUE serialize_body(VALUE arg) {
  serialize_call *call = (serialize_call *)arg;
  encoded_handle *handle;
  VALUE holder;
  size_t i, n;
  rb_thread_call_without_gvl(serialize_without_gvl, call, NULL, NULL);
  if (call->status != STACKREC_OK)
    srb_raise_captured(call->status, call->error);
  /* Allocating the holder may raise, and then serialize_cleanup frees the
   * handle; once the holder has it, the GC frees it. */
  holder = TypedData_Make_Struct(cHandle, encoded_handle, &encoded_handle_type,
                                 handle);
  handle->encoded = call->encoded;
  handle->format = call->opts->format;
  call->encoded = NULL;
  n = stackrec_encoded_parts_len(handle->encoded);
  for (i = 0; i < n; i++) {
    stackrec_part part;
    if (stackrec_encoded_part(handle->encoded, i, &part) == STACKREC_OK)
      handle->bytes += part.size;
  }
  rb_gc_adjust_memory_usage((ssize_t)handle->bytes);
  return encoded_value(holder);
}

static VALUE serialize_cleanup(VALUE arg) {
  serialize_call *call = (serialize_call *)arg;
  call->handle->serializing--;
  stackrec_encoded_free(call->encoded);
  return Qnil;
}

/* ---- The options
 * ----------------------------------------------------------------- */

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

void srb_serialize_args_fill(srb_serialize_args *args, VALUE options) {
  static const char *const formats[2] = {"pprof", "otlp"};
  /* In the order of the stackrec_compression enum. */
  static const char *const compressions[3] = {"gzip", "none", "zstd"};
  /* In the order of the stackrec_target enum. */
  static const char *const targets[2] = {"any", "pyroscope"};
  stackrec_str *series = NULL;
  long i, series_len = 0;
  stackrec_serialize_options *opts = &args->opts;
  VALUE k[S_KEYWORDS];
  attributes_args attributes = {NULL, 0};

  memset(args, 0, sizeof(*args));
  args->service = args->scope_name = args->scope_version = Qnil;
  args->attributes = args->series = Qnil;
  /* rb_get_kwargs takes the keywords out of the Hash it is given. */
  if (!NIL_P(options)) options = rb_hash_dup(options);
  srb_keywords(options, S_KEYWORDS, serialize_keywords, k);
  opts->format =
      (stackrec_format)symbol_choice(k[S_FORMAT], "format", 2, formats);
  opts->compression = (stackrec_compression)symbol_choice(
      k[S_COMPRESSION], "compression", 3, compressions);
  opts->level = (int)srb_int64_arg(k[S_LEVEL], "level");
  opts->part_max_bytes = srb_size_arg(k[S_PART_MAX_BYTES], "part_max_bytes");
  opts->part_max_uncompressed_bytes = srb_size_arg(
      k[S_PART_MAX_UNCOMPRESSED_BYTES], "part_max_uncompressed_bytes");
  opts->part_max_samples =
      srb_size_arg(k[S_PART_MAX_SAMPLES], "part_max_samples");
  opts->max_parts = srb_size_arg(k[S_MAX_PARTS], "max_parts");
  opts->compress_threads =
      (int)srb_int64_arg(k[S_COMPRESS_THREADS], "compress_threads");
  opts->target =
      (stackrec_target)symbol_choice(k[S_TARGET], "target", 2, targets);
  args->service = srb_string_arg(k[S_SERVICE_NAME], "service_name");
  args->scope_name = srb_string_arg(k[S_SCOPE_NAME], "scope_name");
  args->scope_version = srb_string_arg(k[S_SCOPE_VERSION], "scope_version");
  if (k[S_RESOURCE_ATTRIBUTES] != Qundef && !NIL_P(k[S_RESOURCE_ATTRIBUTES])) {
    args->attributes = k[S_RESOURCE_ATTRIBUTES];
    if (!RB_TYPE_P(args->attributes, T_HASH)) {
      rb_raise(rb_eTypeError,
               "resource_attributes must be a Hash, got %+" PRIsVALUE,
               args->attributes);
    }
    /* Not ALLOCV_N, which may alloca in this frame: a buffer the GC owns. */
    attributes.attributes = rb_alloc_tmp_buffer2(
        &args->attributes_buffer, (long)RHASH_SIZE(args->attributes),
        sizeof(stackrec_attribute));
    rb_hash_foreach(args->attributes, attribute_entry, (VALUE)&attributes);
  }
  if (k[S_SERIES_LABELS] != Qundef && !NIL_P(k[S_SERIES_LABELS])) {
    args->series = k[S_SERIES_LABELS];
    if (!RB_TYPE_P(args->series, T_ARRAY)) {
      rb_raise(rb_eTypeError,
               "series_labels must be an Array of Strings, got %+" PRIsVALUE,
               args->series);
    }
    /* A frozen copy: the Strings the stackrec_strs point into stay put. */
    args->series = rb_ary_dup(args->series);
    series_len = RARRAY_LEN(args->series);
    for (i = 0; i < series_len; i++) {
      VALUE label = RARRAY_AREF(args->series, i);
      if (!RB_TYPE_P(label, T_STRING)) {
        rb_raise(rb_eTypeError,
                 "series_labels[%ld] must be a String, got %+" PRIsVALUE, i,
                 label);
      }
    }
    series = rb_alloc_tmp_buffer2(&args->series_buffer, series_len,
                                  sizeof(stackrec_str));
  }
  /* From here on nothing allocates until stackrec has read the strings. */
  opts->service_name = srb_str(args->service);
  opts->scope_name = srb_str(args->scope_name);
  opts->scope_version = srb_str(args->scope_version);
  opts->resource_attributes = attributes.attributes;
  opts->resource_attributes_len = attributes.count;
  for (i = 0; i < series_len; i++)
    series[i] = srb_str(RARRAY_AREF(args->series, i));
  opts->series_labels = series;
  opts->series_labels_len = (size_t)series_len;
}

void srb_serialize_args_release(srb_serialize_args *args) {
  ALLOCV_END(args->attributes_buffer);
  ALLOCV_END(args->series_buffer);
}

VALUE srb_serialize(VALUE self, VALUE options) {
  serialize_call call;
  srb_serialize_args args;
  srb_handle *handle = srb_get_handle(self);
  VALUE result;

  srb_serialize_args_fill(&args, options);
  memset(&call, 0, sizeof(call));
  call.handle = handle;
  call.opts = &args.opts;
  if (handle->serializing_pid != getpid()) {
    handle->serializing = 0;
    handle->serializing_pid = getpid();
  }
  handle->serializing++;
  result =
      rb_ensure(serialize_body, (VALUE)&call, serialize_cleanup, (VALUE)&call);
  srb_serialize_args_release(&args);
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
      "part_max_samples", "max_parts",           "compress_threads",
      "target",           "series_labels"};
  const char *const classes[3] = {"Profile", "Recorder", "StackRecorder"};
  int i;
  srb_intern_all(serialize_keywords, S_KEYWORDS, names);
  id_handle = rb_intern("stackrec_encoded_handle");
  /* lib/stackrec/encoded.rb documents both and adds to Encoded. */
  cEncoded =
      rb_struct_define_under(module, "Encoded", "start", "finish", "data",
                             "stats", "parts", "endpoint_counts", NULL);
  cPart = rb_struct_define_under(module, "Part", "data", "samples_written",
                                 "uncompressed_bytes", NULL);
  /* The class of the hidden handle, for Marshal alone: nothing makes one
   * but #serialize. */
  cHandle = rb_define_class_under(cEncoded, "Handle", rb_cObject);
  rb_undef_alloc_func(cHandle);
  rb_define_method(cHandle, "_dump", encoded_handle_dump, 1);
  rb_define_singleton_method(cHandle, "_load", encoded_handle_load, 1);
  for (i = 0; i < 3; i++) {
    rb_define_private_method(rb_const_get(module, rb_intern(classes[i])),
                             "_serialize", handle_serialize, 1);
  }
}
