/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * The native half of Stackrec::StackRecorder (lib/stackrec.rb is the other):
 * a Ruby object that owns one stackrec_recorder.
 *
 * Ruby rules this file follows:
 *  - Every argument is checked, and every pointer into a Ruby string taken,
 *    before stackrec is called; a bad argument raises TypeError or
 *    ArgumentError naming it, and stackrec's own refusals (invalid UTF-8, an
 *    empty label key, ...) raise ArgumentError with stackrec_last_error().
 *  - A raise is a longjmp: nothing is malloc'd that a raise could leak.
 *    Scratch arrays come from ALLOCV_N (the stack, or a buffer the GC owns),
 *    and the encoded profile is freed in an rb_ensure.
 *  - No allocation happens between taking RSTRING_PTR()s and the stackrec
 *    call, so no GC (and no compaction) can move a string under us.
 *  - #serialize releases the GVL while stackrec encodes, so Ruby threads go
 *    on running, and recording, meanwhile. Nothing in that window touches a
 *    Ruby object.
 *  - Recording holds the GVL, so Ruby's fork (which takes the GVL) never
 *    happens in the middle of a record; only a #serialize can be in flight.
 */
#include <ruby.h>
#include <ruby/thread.h>
#include <stackrec/stackrec.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The sample types of Datadog's Ruby profiler, in declaration order. */
enum { CPU_TIME, CPU_SAMPLES, WALL_TIME, ALLOC_SAMPLES, SAMPLE_TYPE_COUNT };
static const char *const type_names[SAMPLE_TYPE_COUNT] = {
    "cpu-time", "cpu-samples", "wall-time", "alloc-samples"};
static const char *const type_units[SAMPLE_TYPE_COUNT] = {
    "nanoseconds", "count", "nanoseconds", "count"};

static VALUE error_class; /* Stackrec::Error */
static VALUE ok_symbol, error_symbol;

/* ---- The wrapped object ------------------------------------------------- */

typedef struct {
  stackrec_recorder *recorder; /* NULL until #initialize */
  /* #serialize calls that released the GVL and have not retaken it, in
   * process serializing_pid. A fork child inherits the count but none of the
   * threads, which is why the pid is kept with it. */
  int serializing;
  pid_t serializing_pid;
} recorder_data;

static void recorder_data_free(void *p) {
  recorder_data *data = p;
  /* Only the GC calls this, once nothing references the object, so no
   * #serialize can be running on it (its frame would hold `self`). */
  stackrec_recorder_free(data->recorder);
  ruby_xfree(data);
}

static size_t recorder_data_size(const void *p) {
  (void)p;
  return sizeof(recorder_data);
}

static const rb_data_type_t recorder_data_type = {
    .wrap_struct_name = "Stackrec::StackRecorder",
    .function = {.dmark = NULL,
                 .dfree = recorder_data_free,
                 .dsize = recorder_data_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE recorder_alloc(VALUE klass) {
  recorder_data *data;
  return TypedData_Make_Struct(klass, recorder_data, &recorder_data_type, data);
}

/* A copy would share, or lack, the recorder; neither is useful. */
static VALUE recorder_initialize_copy(VALUE self, VALUE original) {
  (void)self;
  (void)original;
  rb_raise(rb_eTypeError, "a StackRecorder cannot be copied");
}

static recorder_data *get_data(VALUE self) {
  recorder_data *data;
  TypedData_Get_Struct(self, recorder_data, &recorder_data_type, data);
  return data;
}

static stackrec_recorder *get_recorder(VALUE self) {
  recorder_data *data = get_data(self);
  if (data->recorder == NULL) {
    rb_raise(error_class, "this StackRecorder was not initialized");
  }
  return data->recorder;
}

static int serializing_here(const recorder_data *data) {
  return data->serializing_pid == getpid() ? data->serializing : 0;
}

/* Raises the Ruby exception for a failed stackrec call. */
static void raise_status(stackrec_status status, const char *method) {
  const char *message = stackrec_last_error();
  switch (status) {
    case STACKREC_INVALID_ARGUMENT:
      rb_raise(rb_eArgError, "%s: %s", method, message);
    case STACKREC_OUT_OF_MEMORY:
      rb_memerror();
    default:
      rb_raise(error_class, "%s: %s: %s", method, stackrec_status_name(status),
               message);
  }
}

/* ---- Argument conversion ------------------------------------------------ */

static stackrec_str str_of(VALUE string) {
  stackrec_str s = {RSTRING_PTR(string), (size_t)RSTRING_LEN(string)};
  return s;
}

static void check_bool(VALUE value, const char *name) {
  if (value != Qtrue && value != Qfalse) {
    rb_raise(rb_eTypeError, "%s: must be true or false, got %+" PRIsVALUE, name,
             value);
  }
}

/* values: {"cpu-time" => 10_000, :"cpu-samples" => 1, ...} */
typedef struct {
  int64_t values[SAMPLE_TYPE_COUNT];
} values_args;

static int value_entry(VALUE key, VALUE value, VALUE arg) {
  values_args *args = (values_args *)arg;
  VALUE name = key;
  int type;
  if (RB_SYMBOL_P(key)) {
    name = rb_sym2str(key); /* the symbol's own frozen string */
  } else if (!RB_TYPE_P(key, T_STRING)) {
    rb_raise(rb_eTypeError,
             "values: keys must be sample type names (String or Symbol), "
             "got %+" PRIsVALUE,
             key);
  }
  for (type = 0; type < SAMPLE_TYPE_COUNT; type++) {
    if ((size_t)RSTRING_LEN(name) == strlen(type_names[type]) &&
        memcmp(RSTRING_PTR(name), type_names[type], strlen(type_names[type])) ==
            0) {
      break;
    }
  }
  if (type == SAMPLE_TYPE_COUNT) {
    rb_raise(rb_eArgError,
             "values: unknown sample type %+" PRIsVALUE
             " (known: cpu-time, cpu-samples, wall-time, alloc-samples)",
             key);
  }
  if (!RB_INTEGER_TYPE_P(value)) {
    rb_raise(rb_eTypeError,
             "values[%+" PRIsVALUE "] must be an Integer, got %+" PRIsVALUE,
             key, value);
  }
  args->values[type] = NUM2LL(value);
  return ST_CONTINUE;
}

/* labels: {"thread id" => 7, "thread name" => "puma 001", ...} */
typedef struct {
  stackrec_label *labels;
  size_t count;
} labels_args;

static int label_entry(VALUE key, VALUE value, VALUE arg) {
  labels_args *args = (labels_args *)arg;
  stackrec_label *label = &args->labels[args->count];
  if (!RB_TYPE_P(key, T_STRING)) {
    rb_raise(rb_eTypeError, "labels: keys must be Strings, got %+" PRIsVALUE,
             key);
  }
  memset(label, 0, sizeof(*label));
  label->key = str_of(key);
  if (RB_TYPE_P(value, T_STRING)) {
    label->str = str_of(value);
  } else if (RB_INTEGER_TYPE_P(value)) {
    label->num = NUM2LL(value);
  } else {
    rb_raise(rb_eTypeError,
             "labels[%+" PRIsVALUE
             "] must be a String or an Integer, got %+" PRIsVALUE,
             key, value);
  }
  args->count++;
  return ST_CONTINUE;
}

/* ---- Methods ------------------------------------------------------------ */

/* _native_initialize(cpu_time_enabled, alloc_samples_enabled); see
 * StackRecorder#initialize in lib/stackrec.rb. */
static VALUE recorder_initialize(VALUE self, VALUE cpu_time_enabled,
                                 VALUE alloc_samples_enabled) {
  recorder_data *data = get_data(self);
  stackrec_value_type types[SAMPLE_TYPE_COUNT];
  bool enabled[SAMPLE_TYPE_COUNT] = {true, true, true, true};
  stackrec_profile_options opts;
  stackrec_status status;
  int i;

  check_bool(cpu_time_enabled, "cpu_time_enabled");
  check_bool(alloc_samples_enabled, "alloc_samples_enabled");
  if (data->recorder != NULL) {
    rb_raise(error_class, "this StackRecorder is initialized already");
  }
  for (i = 0; i < SAMPLE_TYPE_COUNT; i++) {
    types[i].type.ptr = type_names[i];
    types[i].type.len = strlen(type_names[i]);
    types[i].unit.ptr = type_units[i];
    types[i].unit.len = strlen(type_units[i]);
  }
  enabled[CPU_TIME] = cpu_time_enabled == Qtrue;
  enabled[ALLOC_SAMPLES] = alloc_samples_enabled == Qtrue;
  memset(&opts, 0, sizeof(opts));
  opts.sample_types = types;
  opts.sample_types_len = SAMPLE_TYPE_COUNT;
  opts.sample_types_enabled = enabled;
  status = stackrec_recorder_new(&opts, &data->recorder);
  if (status != STACKREC_OK) raise_status(status, "StackRecorder.new");
  return self;
}

/* _native_record_sample(frames, values, labels): frames are
 * [name, filename, line] Arrays, leaf first; see lib/stackrec.rb. */
static VALUE recorder_record_sample(VALUE self, VALUE frames, VALUE values,
                                    VALUE labels) {
  stackrec_recorder *recorder = get_recorder(self);
  values_args value_args;
  labels_args label_args;
  stackrec_location *locations;
  stackrec_sample sample;
  stackrec_status status;
  VALUE locations_buffer, labels_buffer;
  long frame_count, i;

  if (!RB_TYPE_P(frames, T_ARRAY)) {
    rb_raise(
        rb_eTypeError,
        "frames must be an Array of [name, filename, line], got %+" PRIsVALUE,
        frames);
  }
  if (!RB_TYPE_P(values, T_HASH)) {
    rb_raise(rb_eTypeError,
             "values must be a Hash of sample type name => Integer, got "
             "%+" PRIsVALUE,
             values);
  }
  if (NIL_P(labels)) labels = rb_hash_new();
  if (!RB_TYPE_P(labels, T_HASH)) {
    rb_raise(rb_eTypeError,
             "labels must be a Hash of String => String or Integer, got "
             "%+" PRIsVALUE,
             labels);
  }

  /* All allocation first (see the top of this file). */
  frame_count = RARRAY_LEN(frames);
  locations = ALLOCV_N(stackrec_location, locations_buffer, frame_count);
  label_args.labels =
      ALLOCV_N(stackrec_label, labels_buffer, RHASH_SIZE(labels));
  label_args.count = 0;

  for (i = 0; i < frame_count; i++) {
    VALUE frame = RARRAY_AREF(frames, i);
    VALUE name, filename;
    if (!RB_TYPE_P(frame, T_ARRAY) || RARRAY_LEN(frame) != 3) {
      rb_raise(rb_eTypeError,
               "frames[%ld] must be [name, filename, line], got %+" PRIsVALUE,
               i, frame);
    }
    name = RARRAY_AREF(frame, 0);
    filename = RARRAY_AREF(frame, 1);
    if (!RB_TYPE_P(name, T_STRING) || !RB_TYPE_P(filename, T_STRING)) {
      rb_raise(
          rb_eTypeError,
          "frames[%ld]: name and filename must be Strings, got %+" PRIsVALUE, i,
          frame);
    }
    if (!RB_INTEGER_TYPE_P(RARRAY_AREF(frame, 2))) {
      rb_raise(rb_eTypeError,
               "frames[%ld]: line must be an Integer, got %+" PRIsVALUE, i,
               RARRAY_AREF(frame, 2));
    }
    memset(&locations[i], 0, sizeof(locations[i]));
    locations[i].function.name = str_of(name);
    locations[i].function.filename = str_of(filename);
    locations[i].line =
        NUM2LL(RARRAY_AREF(frame, 2)); /* RangeError past 64 bits */
  }
  memset(&value_args, 0, sizeof(value_args));
  rb_hash_foreach(values, value_entry, (VALUE)&value_args);
  rb_hash_foreach(labels, label_entry, (VALUE)&label_args);

  memset(&sample, 0, sizeof(sample));
  sample.locations = locations;
  sample.locations_len = (size_t)frame_count;
  sample.values = value_args.values;
  sample.values_len = SAMPLE_TYPE_COUNT;
  sample.labels = label_args.labels;
  sample.labels_len = label_args.count;
  status = stackrec_recorder_record(recorder, &sample);
  ALLOCV_END(labels_buffer);
  ALLOCV_END(locations_buffer);
  if (status != STACKREC_OK) raise_status(status, "record_sample");
  return Qnil;
}

/* record_endpoint(local_root_span_id, endpoint) */
static VALUE recorder_record_endpoint(VALUE self, VALUE span_id,
                                      VALUE endpoint) {
  stackrec_recorder *recorder = get_recorder(self);
  stackrec_status status;
  if (!RB_INTEGER_TYPE_P(span_id)) {
    rb_raise(rb_eTypeError,
             "local_root_span_id must be an Integer, got %+" PRIsVALUE,
             span_id);
  }
  if (RTEST(rb_funcall(span_id, rb_intern("negative?"), 0))) {
    rb_raise(rb_eArgError,
             "local_root_span_id must be in 1..2**64-1, got %+" PRIsVALUE,
             span_id);
  }
  if (!RB_TYPE_P(endpoint, T_STRING)) {
    rb_raise(rb_eTypeError, "endpoint must be a String, got %+" PRIsVALUE,
             endpoint);
  }
  status = stackrec_recorder_record_endpoint(recorder, NUM2ULL(span_id),
                                             str_of(endpoint));
  if (status != STACKREC_OK) raise_status(status, "record_endpoint");
  return Qnil;
}

/* #serialize: everything in serialize_call is plain C, as the part that
 * runs without the GVL may touch no Ruby object. */
typedef struct {
  recorder_data *data;
  stackrec_encoded *encoded;
  stackrec_status status;
  char error[512];
} serialize_call;

static void *serialize_without_gvl(void *arg) {
  serialize_call *call = arg;
  call->status =
      stackrec_recorder_serialize(call->data->recorder, NULL, &call->encoded);
  if (call->status != STACKREC_OK) {
    /* stackrec_last_error() is this thread's and lives until its next
     * stackrec call; keep a copy for after the GVL is back. */
    snprintf(call->error, sizeof(call->error), "%s: %s",
             stackrec_status_name(call->status), stackrec_last_error());
  }
  return NULL;
}

static VALUE time_of(int64_t unix_ns) {
  return rb_time_nano_new((time_t)(unix_ns / 1000000000),
                          (long)(unix_ns % 1000000000));
}

static VALUE serialize_body(VALUE arg) {
  serialize_call *call = (serialize_call *)arg;
  VALUE start, finish, pprof;
  /* No unblocking function: encoding cannot be cut short, and takes
   * milliseconds. Pending interrupts (Thread#raise, #kill) are handled when
   * it returns; the profile it made is then dropped by serialize_cleanup. */
  rb_thread_call_without_gvl(serialize_without_gvl, call, NULL, NULL);
  if (call->status != STACKREC_OK) {
    return rb_ary_new_from_args(2, error_symbol, rb_str_new_cstr(call->error));
  }
  start = time_of(stackrec_encoded_start_ns(call->encoded));
  finish = time_of(stackrec_encoded_end_ns(call->encoded));
  pprof = rb_str_new((const char *)stackrec_encoded_data(call->encoded),
                     (long)stackrec_encoded_size(call->encoded));
  return rb_ary_new_from_args(2, ok_symbol,
                              rb_ary_new_from_args(3, start, finish, pprof));
}

static VALUE serialize_cleanup(VALUE arg) {
  serialize_call *call = (serialize_call *)arg;
  call->data->serializing--;
  stackrec_encoded_free(call->encoded);
  return Qnil;
}

/* serialize => [:ok, [start_time, finish_time, gzip'd pprof String]] or
 * [:error, message] */
static VALUE recorder_serialize(VALUE self) {
  serialize_call call;
  memset(&call, 0, sizeof(call));
  get_recorder(self);
  call.data = get_data(self);
  if (call.data->serializing_pid != getpid()) {
    call.data->serializing = 0;
    call.data->serializing_pid = getpid();
  }
  call.data->serializing++;
  return rb_ensure(serialize_body, (VALUE)&call, serialize_cleanup,
                   (VALUE)&call);
}

/* reset_after_fork: in a fork child, before anything else */
static VALUE recorder_reset_after_fork(VALUE self) {
  recorder_data *data = get_data(self);
  stackrec_status status;
  get_recorder(self);
  /* A #serialize of this process still running means this is not a fresh
   * fork child, and stackrec requires reset_after_fork to overlap no other
   * call. A #serialize the parent was running at the fork does not count. */
  if (serializing_here(data) > 0) {
    rb_raise(error_class,
             "reset_after_fork: a #serialize is running in another thread of "
             "this process; call reset_after_fork in a fork child only");
  }
  status = stackrec_recorder_reset_after_fork(data->recorder);
  if (status != STACKREC_OK) raise_status(status, "reset_after_fork");
  data->serializing = 0;
  data->serializing_pid = getpid();
  return Qtrue;
}

/* stats => {samples_recorded: ..., serializations_ok: ..., ...} */
static VALUE recorder_stats(VALUE self) {
  stackrec_stats stats;
  stackrec_status status;
  VALUE hash;
  status = stackrec_recorder_stats(get_recorder(self), &stats);
  if (status != STACKREC_OK) raise_status(status, "stats");
  hash = rb_hash_new();
#define STACKREC_STAT(field, convert) \
  rb_hash_aset(hash, ID2SYM(rb_intern(#field)), convert(stats.field))
  STACKREC_STAT(last_samples_recorded, ULL2NUM);
  STACKREC_STAT(last_distinct_keys, ULL2NUM);
  STACKREC_STAT(last_serialize_ns, LL2NUM);
  STACKREC_STAT(serializations_ok, ULL2NUM);
  STACKREC_STAT(serializations_failed, ULL2NUM);
  STACKREC_STAT(serialize_ns_min, LL2NUM);
  STACKREC_STAT(serialize_ns_max, LL2NUM);
  STACKREC_STAT(serialize_ns_total, LL2NUM);
  STACKREC_STAT(samples_recorded, ULL2NUM);
  STACKREC_STAT(records_rejected, ULL2NUM);
  STACKREC_STAT(samples_truncated, ULL2NUM);
  STACKREC_STAT(samples_over_memory, ULL2NUM);
  STACKREC_STAT(samples_left_out_of_output, ULL2NUM);
#undef STACKREC_STAT
  return hash;
}

RUBY_FUNC_EXPORTED void Init_stackrec_ruby(void) {
  VALUE stackrec = rb_define_module("Stackrec");
  VALUE recorder_class =
      rb_define_class_under(stackrec, "StackRecorder", rb_cObject);
  VALUE sample_types = rb_ary_new();
  int i;

  error_class = rb_define_class_under(stackrec, "Error", rb_eStandardError);
  ok_symbol = ID2SYM(rb_intern("ok"));
  error_symbol = ID2SYM(rb_intern("error"));

  for (i = 0; i < SAMPLE_TYPE_COUNT; i++) {
    rb_ary_push(sample_types,
                rb_ary_freeze(rb_ary_new_from_args(
                    2, rb_str_freeze(rb_str_new_cstr(type_names[i])),
                    rb_str_freeze(rb_str_new_cstr(type_units[i])))));
  }
  /* [[type, unit], ...] in the order pprof's sample_type lists them. */
  rb_define_const(recorder_class, "SAMPLE_TYPES", rb_ary_freeze(sample_types));
  rb_define_const(stackrec, "LIBRARY_VERSION_NUMBER",
                  INT2NUM(stackrec_version_number()));

  rb_define_alloc_func(recorder_class, recorder_alloc);
  rb_define_private_method(recorder_class, "_native_initialize",
                           recorder_initialize, 2);
  rb_define_private_method(recorder_class, "_native_record_sample",
                           recorder_record_sample, 3);
  rb_define_method(recorder_class, "initialize_copy", recorder_initialize_copy,
                   1);
  rb_define_method(recorder_class, "record_endpoint", recorder_record_endpoint,
                   2);
  rb_define_method(recorder_class, "serialize", recorder_serialize, 0);
  rb_define_method(recorder_class, "reset_after_fork",
                   recorder_reset_after_fork, 0);
  rb_define_method(recorder_class, "stats", recorder_stats, 0);
}
