/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * The native half of the stackrec gem (lib/ is the other): the objects that
 * own a stackrec handle and one method per call of the C API on them.
 * Stackrec::Profile owns a stackrec_profile, Stackrec::Recorder and
 * Stackrec::StackRecorder a stackrec_recorder. They share one wrapped
 * struct, so each method that both a profile and a recorder have is written
 * once and calls whichever handle `self` owns; the Ruby names follow the C
 * ones (Profile#add, Recorder#record). stackrec_ruby.h has the rules every
 * file follows; ids.c has the id API, serialize.c serializes,
 * heap_profiler.c samples allocations and exporter.c ships profiles.
 *
 * Recording holds the GVL, so Ruby's fork (which takes the GVL) never
 * happens in the middle of a record; only a #serialize can be in flight.
 */
#include "stackrec_ruby.h"

#include <string.h>
#include <unistd.h>

VALUE srb_eError;
static VALUE eInvalidArgument, eLimitExceeded, eBusy, eInternal, eUnsupported;
static VALUE cProfile;
static ID id_status;

/* ---- Errors
 * ------------------------------------------------------------------ */

static VALUE status_class(stackrec_status status, VALUE *symbol) {
  switch (status) {
    case STACKREC_INVALID_ARGUMENT:
      *symbol = ID2SYM(rb_intern("invalid_argument"));
      return eInvalidArgument;
    case STACKREC_LIMIT_EXCEEDED:
      *symbol = ID2SYM(rb_intern("limit_exceeded"));
      return eLimitExceeded;
    case STACKREC_BUSY:
      *symbol = ID2SYM(rb_intern("busy"));
      return eBusy;
    case STACKREC_UNSUPPORTED:
      *symbol = ID2SYM(rb_intern("unsupported"));
      return eUnsupported;
    default:
      *symbol = ID2SYM(rb_intern("internal"));
      return eInternal;
  }
}

void srb_raise_captured(stackrec_status status, const char *message) {
  VALUE symbol, klass, exception;
  if (status == STACKREC_OUT_OF_MEMORY) rb_memerror();
  klass = status_class(status, &symbol);
  exception = rb_exc_new_cstr(klass, message);
  rb_ivar_set(exception, id_status, symbol);
  rb_exc_raise(exception);
}

void srb_raise_status(stackrec_status status, const char *method) {
  char message[4096];
  /* stackrec_last_error() is this thread's until its next stackrec call;
   * nothing here makes one. */
  if (status == STACKREC_INVALID_ARGUMENT) {
    snprintf(message, sizeof(message), "%s: %s", method, stackrec_last_error());
  } else {
    snprintf(message, sizeof(message), "%s: %s: %s", method,
             stackrec_status_name(status), stackrec_last_error());
  }
  srb_raise_captured(status, message);
}

/* ---- The wrapped object
 * ------------------------------------------------------ */

static void handle_mark(void *p) {
  srb_handle *handle = p;
  rb_gc_mark(handle->type_names);
}

static void handle_destroy(srb_handle *handle) {
  stackrec_profile_free(handle->profile);
  stackrec_recorder_free(handle->recorder);
  ruby_xfree(handle);
}

static void handle_free(void *p) {
  srb_handle *handle = p;
  /* Only the GC calls this, once nothing references the object, so no
   * #serialize can be running on it (its frame would hold `self`). An
   * exporter's thread may be, if that exporter was collected with it. */
  handle->collected = true;
  if (handle->leases == 0) handle_destroy(handle);
}

static size_t handle_size(const void *p) {
  (void)p;
  return sizeof(srb_handle);
}

const rb_data_type_t srb_handle_type = {
    .wrap_struct_name = "stackrec handle",
    .function = {.dmark = handle_mark,
                 .dfree = handle_free,
                 .dsize = handle_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE handle_alloc(VALUE klass) {
  srb_handle *handle;
  VALUE self =
      TypedData_Make_Struct(klass, srb_handle, &srb_handle_type, handle);
  handle->type_names = rb_ary_new();
  return self;
}

/* A copy would share, or lack, the handle; neither is useful. */
static VALUE handle_initialize_copy(VALUE self, VALUE original) {
  (void)self;
  (void)original;
  rb_raise(rb_eTypeError, "a %" PRIsVALUE " cannot be copied",
           rb_obj_class(self));
}

int srb_serializing_here(const srb_handle *handle) {
  return handle->serializing_pid == getpid() ? handle->serializing : 0;
}

srb_handle *srb_get_handle(VALUE self) {
  srb_handle *handle;
  TypedData_Get_Struct(self, srb_handle, &srb_handle_type, handle);
  if (handle->profile == NULL && handle->recorder == NULL) {
    rb_raise(srb_eError, "this %" PRIsVALUE " was not initialized",
             rb_obj_class(self));
  }
  if (handle->profile != NULL && srb_serializing_here(handle) > 0) {
    rb_raise(eBusy,
             "another thread is serializing this Profile; a Profile's calls "
             "must not overlap");
  }
  return handle;
}

srb_handle *srb_handle_lease(VALUE self) {
  srb_handle *handle;
  if (!rb_typeddata_is_kind_of(self, &srb_handle_type) ||
      RTEST(rb_obj_is_kind_of(self, cProfile))) {
    rb_raise(rb_eTypeError,
             "recorder must be a Stackrec::Recorder or StackRecorder, got "
             "%+" PRIsVALUE,
             self);
  }
  handle = srb_get_handle(self);
  handle->leases++;
  return handle;
}

void srb_handle_release(srb_handle *handle) {
  if (--handle->leases == 0 && handle->collected) handle_destroy(handle);
}

/* ---- new
 * ---------------------------------------------------------------------- */

enum {
  K_SAMPLE_TYPES,
  K_DISABLED,
  K_ENABLED,
  K_PERIOD_TYPE,
  K_PERIOD,
  K_MAX_FRAMES,
  K_MAX_MEMORY_BYTES,
  K_MAX_OUTPUT_BYTES,
  K_DEFAULT_SAMPLE_TYPE,
  K_COMMENTS,
  K_DROP_FRAMES,
  K_KEEP_FRAMES,
  /* Recorders only. */
  K_LIVE_HEAP_TYPES,
  K_MAX_TRACKED_OBJECTS,
  K_COUNT
};
static ID new_keywords[K_COUNT];

/* [name, unit] pairs, from a Hash {name => unit} or an Array of pairs. */
static VALUE sample_type_pairs(VALUE types) {
  VALUE pairs;
  long i;
  if (RB_TYPE_P(types, T_HASH)) types = rb_funcall(types, rb_intern("to_a"), 0);
  if (!RB_TYPE_P(types, T_ARRAY) || RARRAY_LEN(types) == 0) {
    rb_raise(
        rb_eArgError,
        "sample_types must be a non-empty Hash of name => unit or Array of "
        "[name, unit], got %+" PRIsVALUE,
        types);
  }
  pairs = rb_ary_new_capa(RARRAY_LEN(types));
  for (i = 0; i < RARRAY_LEN(types); i++) {
    VALUE pair = RARRAY_AREF(types, i);
    if (!RB_TYPE_P(pair, T_ARRAY) || RARRAY_LEN(pair) != 2) {
      rb_raise(rb_eTypeError,
               "sample_types[%ld] must be [name, unit], got %+" PRIsVALUE, i,
               pair);
    }
    rb_ary_push(pairs, rb_ary_new_from_args(
                           2,
                           rb_str_new_frozen(srb_string_arg(
                               RARRAY_AREF(pair, 0), "a sample type's name")),
                           rb_str_new_frozen(srb_string_arg(
                               RARRAY_AREF(pair, 1), "a sample type's unit"))));
  }
  return pairs;
}

static VALUE strings_arg(VALUE value, const char *what) {
  VALUE strings = rb_ary_new();
  long i;
  if (NIL_P(value) || value == Qundef) return strings;
  if (!RB_TYPE_P(value, T_ARRAY)) {
    rb_raise(rb_eTypeError, "%s must be an Array of Strings, got %+" PRIsVALUE,
             what, value);
  }
  for (i = 0; i < RARRAY_LEN(value); i++) {
    rb_ary_push(strings, srb_string_arg(RARRAY_AREF(value, i), what));
  }
  return strings;
}

/* Sample type names as an Array (one name alone is one), or nil for none. */
static VALUE names_arg(VALUE names) {
  if (NIL_P(names) || names == Qundef) return Qnil;
  return RB_TYPE_P(names, T_ARRAY) ? names : rb_ary_new_from_args(1, names);
}

/* Fills `offsets` with those of the types `names` (an Array) names. */
static void fill_offsets(const srb_handle *handle, VALUE names,
                         const char *what, size_t *offsets) {
  long i;
  for (i = 0; i < RARRAY_LEN(names); i++) {
    offsets[i] = srb_type_offset(handle, RARRAY_AREF(names, i), what);
  }
}

static VALUE handle_initialize(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle;
  VALUE options, k[K_COUNT], pairs, units, comments, period_type = Qnil;
  VALUE default_type, drop, keep, live;
  VALUE types_buffer = 0, enabled_buffer = 0, comments_buffer = 0,
        live_buffer = 0;
  stackrec_profile_options opts;
  stackrec_value_type *types;
  stackrec_str *comment_strs;
  bool *enabled;
  bool is_profile = RTEST(rb_obj_is_kind_of(self, cProfile));
  long i, n;

  rb_scan_args(argc, argv, ":", &options);
  TypedData_Get_Struct(self, srb_handle, &srb_handle_type, handle);
  if (handle->profile != NULL || handle->recorder != NULL) {
    rb_raise(srb_eError, "this %" PRIsVALUE " is initialized already",
             rb_obj_class(self));
  }
  rb_get_kwargs(options, new_keywords, 1,
                (is_profile ? K_LIVE_HEAP_TYPES : K_COUNT) - 1, k);
  for (i = is_profile ? K_LIVE_HEAP_TYPES : K_COUNT; i < K_COUNT; i++)
    k[i] = Qundef;

  /* First everything that allocates. */
  pairs = sample_type_pairs(k[K_SAMPLE_TYPES]);
  n = RARRAY_LEN(pairs);
  handle->type_names = rb_ary_new_capa(n);
  units = rb_ary_new_capa(n);
  for (i = 0; i < n; i++) {
    rb_ary_push(handle->type_names, RARRAY_AREF(RARRAY_AREF(pairs, i), 0));
    rb_ary_push(units, RARRAY_AREF(RARRAY_AREF(pairs, i), 1));
  }
  rb_ary_freeze(handle->type_names);
  if (k[K_PERIOD_TYPE] != Qundef && !NIL_P(k[K_PERIOD_TYPE])) {
    period_type = RARRAY_AREF(
        sample_type_pairs(rb_ary_new_from_args(1, k[K_PERIOD_TYPE])), 0);
  }
  comments = strings_arg(k[K_COMMENTS], "comments");
  default_type =
      srb_string_arg(k[K_DEFAULT_SAMPLE_TYPE], "default_sample_type");
  drop = srb_string_arg(k[K_DROP_FRAMES], "drop_frames");
  keep = srb_string_arg(k[K_KEEP_FRAMES], "keep_frames");

  memset(&opts, 0, sizeof(opts));
  types = ALLOCV_N(stackrec_value_type, types_buffer, n);
  enabled = ALLOCV_N(bool, enabled_buffer, n);
  comment_strs = ALLOCV_N(stackrec_str, comments_buffer, RARRAY_LEN(comments));
  for (i = 0; i < n; i++) enabled[i] = true;
  if (k[K_DISABLED] != Qundef && !NIL_P(k[K_DISABLED])) {
    VALUE disabled = k[K_DISABLED];
    if (!RB_TYPE_P(disabled, T_ARRAY))
      disabled = rb_ary_new_from_args(1, disabled);
    for (i = 0; i < RARRAY_LEN(disabled); i++) {
      enabled[srb_type_offset(handle, RARRAY_AREF(disabled, i), "disabled")] =
          false;
    }
    RB_GC_GUARD(disabled);
  }
  if (k[K_ENABLED] != Qundef && !NIL_P(k[K_ENABLED])) {
    VALUE flags = k[K_ENABLED];
    if (k[K_DISABLED] != Qundef && !NIL_P(k[K_DISABLED])) {
      rb_raise(rb_eArgError, "give enabled: or disabled:, not both");
    }
    /* {name => true or false} changes the types it names; an Array of
     * names enables those alone. */
    if (RB_TYPE_P(flags, T_HASH)) {
      flags = rb_funcall(flags, rb_intern("to_a"), 0);
      for (i = 0; i < RARRAY_LEN(flags); i++) {
        VALUE pair = RARRAY_AREF(flags, i);
        enabled[srb_type_offset(handle, RARRAY_AREF(pair, 0), "enabled")] =
            srb_bool_arg(RARRAY_AREF(pair, 1), "enabled: a flag");
      }
    } else {
      if (!RB_TYPE_P(flags, T_ARRAY)) flags = rb_ary_new_from_args(1, flags);
      for (i = 0; i < n; i++) enabled[i] = false;
      for (i = 0; i < RARRAY_LEN(flags); i++) {
        enabled[srb_type_offset(handle, RARRAY_AREF(flags, i), "enabled")] =
            true;
      }
    }
    RB_GC_GUARD(flags);
  }
  live = names_arg(k[K_LIVE_HEAP_TYPES]);
  if (!NIL_P(live)) {
    size_t *offsets = ALLOCV_N(size_t, live_buffer, RARRAY_LEN(live));
    fill_offsets(handle, live, "live_heap_types", offsets);
    opts.live_heap_types = offsets;
    opts.live_heap_types_len = (size_t)RARRAY_LEN(live);
  }
  opts.period = srb_int64_arg(k[K_PERIOD], "period");
  opts.max_frames = srb_size_arg(k[K_MAX_FRAMES], "max_frames");
  opts.max_memory_bytes =
      srb_size_arg(k[K_MAX_MEMORY_BYTES], "max_memory_bytes");
  opts.max_output_bytes =
      srb_size_arg(k[K_MAX_OUTPUT_BYTES], "max_output_bytes");
  opts.max_tracked_objects =
      srb_size_arg(k[K_MAX_TRACKED_OBJECTS], "max_tracked_objects");

  /* Then the pointers. */
  for (i = 0; i < n; i++) {
    types[i].type = srb_str(RARRAY_AREF(handle->type_names, i));
    types[i].unit = srb_str(RARRAY_AREF(units, i));
  }
  for (i = 0; i < RARRAY_LEN(comments); i++)
    comment_strs[i] = srb_str(RARRAY_AREF(comments, i));
  opts.sample_types = types;
  opts.sample_types_len = (size_t)n;
  opts.sample_types_enabled = enabled;
  if (!NIL_P(period_type)) {
    opts.period_type.type = srb_str(RARRAY_AREF(period_type, 0));
    opts.period_type.unit = srb_str(RARRAY_AREF(period_type, 1));
  }
  opts.default_sample_type = srb_str(default_type);
  opts.comments = comment_strs;
  opts.comments_len = (size_t)RARRAY_LEN(comments);
  opts.drop_frames = srb_str(drop);
  opts.keep_frames = srb_str(keep);
  if (is_profile) {
    SRB_CHECK(stackrec_profile_new(&opts, &handle->profile), "Profile.new");
  } else {
    SRB_CHECK(stackrec_recorder_new(&opts, &handle->recorder), "Recorder.new");
  }
  ALLOCV_END(live_buffer);
  ALLOCV_END(comments_buffer);
  ALLOCV_END(enabled_buffer);
  ALLOCV_END(types_buffer);
  RB_GC_GUARD(pairs);
  RB_GC_GUARD(units);
  RB_GC_GUARD(comments);
  RB_GC_GUARD(period_type);
  RB_GC_GUARD(default_type);
  RB_GC_GUARD(drop);
  RB_GC_GUARD(keep);
  return self;
}

/* sample_types => [[name, unit], ...] as declared (disabled ones too). */
static VALUE handle_sample_type_names(VALUE self) {
  return srb_get_handle(self)->type_names;
}

/* ---- Recording
 * ------------------------------------------------------------------ */

static ID record_keywords[3]; /* labels:, timestamp:, link: */

static void add_sample(VALUE self, VALUE frames, VALUE values, VALUE labels,
                       VALUE timestamp, VALUE link, const char *method) {
  srb_handle *handle = srb_get_handle(self);
  srb_sample sample;
  stackrec_sample s;
  stackrec_link link_ids;
  stackrec_status status;
  int64_t timestamp_ns = srb_timestamp_arg(timestamp);
  const stackrec_link *link_arg = srb_link_arg(link, &link_ids);
  SRB_SAMPLE_PREPARE(&sample, handle, frames, values, labels);
  srb_sample_fill(&sample, handle);
  memset(&s, 0, sizeof(s));
  s.locations = sample.locations;
  s.locations_len = sample.locations_len;
  s.values = sample.value_array;
  s.values_len = sample.values_len;
  s.labels = sample.label_array;
  s.labels_len = sample.labels_len;
  s.timestamp_ns = timestamp_ns;
  s.link = link_arg;
  status = handle->profile ? stackrec_profile_add(handle->profile, &s)
                           : stackrec_recorder_record(handle->recorder, &s);
  srb_sample_release(&sample);
  if (status != STACKREC_OK) srb_raise_status(status, method);
}

/* record(frames, values, labels: {}, timestamp: nil, link: nil); Profile#add */
static VALUE handle_record(int argc, VALUE *argv, VALUE self) {
  VALUE frames, values, options, k[3];
  rb_scan_args(argc, argv, "2:", &frames, &values, &options);
  srb_keywords(options, 3, record_keywords, k);
  add_sample(self, frames, values, k[0], k[1], k[2],
             srb_get_handle(self)->profile ? "add" : "record");
  return self;
}

/* StackRecorder#record_sample(frames, values, labels = {}) */
static VALUE stack_recorder_record_sample(int argc, VALUE *argv, VALUE self) {
  VALUE frames, values, labels;
  rb_scan_args(argc, argv, "21", &frames, &values, &labels);
  /* This surface takes values by name only. */
  if (!RB_TYPE_P(values, T_HASH)) {
    rb_raise(rb_eTypeError,
             "values must be a Hash of sample type name => Integer, got "
             "%+" PRIsVALUE,
             values);
  }
  add_sample(self, frames, values, labels, Qnil, Qnil, "record_sample");
  return Qnil;
}

/* track(object_id, frames, values, labels: {}, link: nil) */
static VALUE recorder_track(int argc, VALUE *argv, VALUE self) {
  static ID track_keywords[2]; /* labels:, link: */
  VALUE object_id, frames, values, options, k[2];
  srb_handle *handle = srb_get_handle(self);
  srb_sample sample;
  stackrec_sample s;
  stackrec_link link_ids;
  const stackrec_link *link_arg;
  stackrec_status status;
  uint64_t id;
  if (track_keywords[0] == 0) {
    track_keywords[0] = record_keywords[0];
    track_keywords[1] = record_keywords[2];
  }
  rb_scan_args(argc, argv, "3:", &object_id, &frames, &values, &options);
  srb_keywords(options, 2, track_keywords, k);
  id = srb_uint64_arg(object_id, "object_id");
  link_arg = srb_link_arg(k[1], &link_ids);
  SRB_SAMPLE_PREPARE(&sample, handle, frames, values, k[0]);
  srb_sample_fill(&sample, handle);
  memset(&s, 0, sizeof(s));
  s.locations = sample.locations;
  s.locations_len = sample.locations_len;
  s.values = sample.value_array;
  s.values_len = sample.values_len;
  s.labels = sample.label_array;
  s.labels_len = sample.labels_len;
  s.link = link_arg;
  status = stackrec_recorder_track(handle->recorder, id, &s);
  srb_sample_release(&sample);
  if (status != STACKREC_OK) srb_raise_status(status, "track");
  return self;
}

static VALUE recorder_untrack(VALUE self, VALUE object_id) {
  srb_handle *handle = srb_get_handle(self);
  SRB_CHECK(stackrec_recorder_untrack(handle->recorder,
                                      srb_uint64_arg(object_id, "object_id")),
            "untrack");
  return self;
}

/* ---- Endpoints
 * ------------------------------------------------------------------ */

/* record_endpoint(local_root_span_id, endpoint); Profile#set_endpoint */
static VALUE handle_record_endpoint(VALUE self, VALUE span_id, VALUE endpoint) {
  srb_handle *handle = srb_get_handle(self);
  const char *method = handle->profile ? "set_endpoint" : "record_endpoint";
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
  /* The profile's call by its older name, which every 1.x library has: the
   * gem runs with libraries from 1.2 on, and 1.2 and 1.3 lack the newer
   * name, stackrec_profile_record_endpoint. */
  status = handle->profile
               ? stackrec_profile_set_endpoint(
                     handle->profile, NUM2ULL(span_id), srb_str(endpoint))
               : stackrec_recorder_record_endpoint(
                     handle->recorder, NUM2ULL(span_id), srb_str(endpoint));
  if (status != STACKREC_OK) srb_raise_status(status, method);
  return Qnil;
}

/* add_endpoint_count(endpoint, value = 1) */
static VALUE handle_add_endpoint_count(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  VALUE endpoint, value;
  int64_t count;
  stackrec_status status;
  rb_scan_args(argc, argv, "11", &endpoint, &value);
  if (!RB_TYPE_P(endpoint, T_STRING)) {
    rb_raise(rb_eTypeError, "endpoint must be a String, got %+" PRIsVALUE,
             endpoint);
  }
  count = NIL_P(value) ? 1 : srb_int64_arg(value, "value");
  status = handle->profile ? stackrec_profile_add_endpoint_count(
                                 handle->profile, srb_str(endpoint), count)
                           : stackrec_recorder_add_endpoint_count(
                                 handle->recorder, srb_str(endpoint), count);
  if (status != STACKREC_OK) srb_raise_status(status, "add_endpoint_count");
  return self;
}

/* ---- Upscaling
 * --------------------------------------------------------------------- */

enum {
  U_VALUES,
  U_LABEL,
  U_TOTAL_SAMPLED,
  U_TOTAL_REAL,
  U_SUM,
  U_COUNT,
  U_SAMPLING_DISTANCE,
  U_KEYWORDS
};
static ID upscaling_keywords[U_KEYWORDS];

/* add_upscaling_rule(:proportional | :poisson, values:, label: nil,
 *   total_sampled:, total_real:, sum:, count:, sampling_distance:) */
static VALUE handle_add_upscaling_rule(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  VALUE kind, options, k[U_KEYWORDS], label_key = Qnil, label_value = Qnil,
                                      names;
  VALUE offsets_buffer = 0;
  stackrec_upscaling_rule rule;
  stackrec_status status;

  rb_scan_args(argc, argv, "1:", &kind, &options);
  rb_get_kwargs(options, upscaling_keywords, 1, U_KEYWORDS - 1, k);
  memset(&rule, 0, sizeof(rule));
  if (kind == ID2SYM(rb_intern("proportional"))) {
    rule.kind = STACKREC_UPSCALING_PROPORTIONAL;
  } else if (kind == ID2SYM(rb_intern("poisson"))) {
    rule.kind = STACKREC_UPSCALING_POISSON;
  } else {
    rb_raise(rb_eArgError,
             "kind must be :proportional or :poisson, got %+" PRIsVALUE, kind);
  }
  if (k[U_LABEL] != Qundef && !NIL_P(k[U_LABEL])) {
    VALUE label = k[U_LABEL];
    if (RB_TYPE_P(label, T_HASH) && RHASH_SIZE(label) == 1) {
      label = RARRAY_AREF(rb_funcall(label, rb_intern("to_a"), 0), 0);
    }
    if (!RB_TYPE_P(label, T_ARRAY) || RARRAY_LEN(label) != 2 ||
        !RB_TYPE_P(RARRAY_AREF(label, 0), T_STRING) ||
        !(RB_TYPE_P(RARRAY_AREF(label, 1), T_STRING) ||
          RB_INTEGER_TYPE_P(RARRAY_AREF(label, 1)))) {
      rb_raise(rb_eTypeError,
               "label must be {key => String or Integer} or [key, value], got "
               "%+" PRIsVALUE,
               k[U_LABEL]);
    }
    label_key = RARRAY_AREF(label, 0);
    label_value = RARRAY_AREF(label, 1);
  }
  names = names_arg(k[U_VALUES]);
  if (!NIL_P(names)) {
    size_t *offsets = ALLOCV_N(size_t, offsets_buffer, RARRAY_LEN(names));
    fill_offsets(handle, names, "values", offsets);
    rule.value_offsets = offsets;
    rule.value_offsets_len = (size_t)RARRAY_LEN(names);
  }
  rule.total_sampled = srb_uint64_arg(k[U_TOTAL_SAMPLED], "total_sampled");
  rule.total_real = srb_uint64_arg(k[U_TOTAL_REAL], "total_real");
  if (k[U_SUM] != Qundef)
    rule.sum_value_offset = srb_type_offset(handle, k[U_SUM], "sum");
  if (k[U_COUNT] != Qundef) {
    rule.count_value_offset = srb_type_offset(handle, k[U_COUNT], "count");
  }
  rule.sampling_distance =
      srb_uint64_arg(k[U_SAMPLING_DISTANCE], "sampling_distance");
  if (!NIL_P(label_key)) {
    rule.label_key = srb_str(label_key);
    if (RB_TYPE_P(label_value, T_STRING)) {
      rule.label_str = srb_str(label_value);
    } else {
      rule.label_num = NUM2LL(label_value);
    }
  }
  status = handle->profile
               ? stackrec_profile_add_upscaling_rule(handle->profile, &rule)
               : stackrec_recorder_add_upscaling_rule(handle->recorder, &rule);
  ALLOCV_END(offsets_buffer);
  RB_GC_GUARD(label_key);
  RB_GC_GUARD(label_value);
  RB_GC_GUARD(names);
  if (status != STACKREC_OK) srb_raise_status(status, "add_upscaling_rule");
  return self;
}

/* ---- Resets and stats
 * ----------------------------------------------------------- */

/* Profile#reset: drops what was recorded; the interval starts anew. */
static VALUE profile_reset(VALUE self) {
  SRB_CHECK(stackrec_profile_reset(srb_get_handle(self)->profile), "reset");
  return self;
}

/* reset_after_fork: in a fork child, before anything else */
static VALUE recorder_reset_after_fork(VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  /* A #serialize of this process still running means this is not a fresh
   * fork child, and stackrec requires reset_after_fork to overlap no other
   * call. A #serialize the parent was running at the fork does not count. */
  if (srb_serializing_here(handle) > 0) {
    rb_raise(srb_eError,
             "reset_after_fork: a #serialize is running in another thread of "
             "this process; call reset_after_fork in a fork child only");
  }
  SRB_CHECK(stackrec_recorder_reset_after_fork(handle->recorder),
            "reset_after_fork");
  handle->serializing = 0;
  handle->serializing_pid = getpid();
  return Qtrue;
}

/* stats => {samples_recorded: ..., serializations_ok: ..., ...} */
static VALUE recorder_stats(VALUE self) {
  stackrec_stats stats;
  VALUE hash = rb_hash_new();
  SRB_CHECK(stackrec_recorder_stats(srb_get_handle(self)->recorder, &stats),
            "stats");
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
  STACKREC_STAT(objects_tracked, ULL2NUM);
  STACKREC_STAT(objects_not_tracked, ULL2NUM);
#undef STACKREC_STAT
  return hash;
}

/* Stackrec._status_name(code) => "STACKREC_BUSY"; errors.rb wraps it. */
static VALUE module_status_name(VALUE module, VALUE code) {
  (void)module;
  return rb_str_new_cstr(stackrec_status_name((stackrec_status)NUM2INT(code)));
}

/* ---- Init
 * -------------------------------------------------------------------------- */

void srb_intern_all(ID *ids, int count, const char *const *names) {
  int i;
  for (i = 0; i < count; i++) ids[i] = rb_intern(names[i]);
}

void srb_init_handle(VALUE module) {
  static const char *const new_names[K_COUNT] = {"sample_types",
                                                 "disabled",
                                                 "enabled",
                                                 "period_type",
                                                 "period",
                                                 "max_frames",
                                                 "max_memory_bytes",
                                                 "max_output_bytes",
                                                 "default_sample_type",
                                                 "comments",
                                                 "drop_frames",
                                                 "keep_frames",
                                                 "live_heap_types",
                                                 "max_tracked_objects"};
  static const char *const record_names[3] = {"labels", "timestamp", "link"};
  static const char *const upscaling_names[U_KEYWORDS] = {
      "values", "label", "total_sampled",    "total_real",
      "sum",    "count", "sampling_distance"};
  VALUE cRecorder, cStackRecorder, classes[3];
  int i;

  srb_intern_all(new_keywords, K_COUNT, new_names);
  srb_intern_all(record_keywords, 3, record_names);
  srb_intern_all(upscaling_keywords, U_KEYWORDS, upscaling_names);
  id_status = rb_intern("@status");

  srb_eError = rb_define_class_under(module, "Error", rb_eStandardError);
  eInvalidArgument =
      rb_define_class_under(module, "InvalidArgument", rb_eArgError);
  eLimitExceeded = rb_define_class_under(module, "LimitExceeded", srb_eError);
  eBusy = rb_define_class_under(module, "Busy", srb_eError);
  eInternal = rb_define_class_under(module, "InternalError", srb_eError);
  eUnsupported = rb_define_class_under(module, "Unsupported", srb_eError);
  rb_define_singleton_method(module, "_status_name", module_status_name, 1);
  rb_define_const(module, "LIBRARY_VERSION_NUMBER",
                  INT2NUM(stackrec_version_number()));

  cProfile = rb_define_class_under(module, "Profile", rb_cObject);
  cRecorder = rb_define_class_under(module, "Recorder", rb_cObject);
  cStackRecorder = rb_define_class_under(module, "StackRecorder", rb_cObject);
  classes[0] = cProfile;
  classes[1] = cRecorder;
  classes[2] = cStackRecorder;
  for (i = 0; i < 3; i++) {
    rb_define_alloc_func(classes[i], handle_alloc);
    rb_define_method(classes[i], "initialize_copy", handle_initialize_copy, 1);
  }

  /* Profile and Recorder: the whole C API. */
  for (i = 0; i < 2; i++) {
    VALUE c = classes[i];
    rb_define_method(c, "initialize", handle_initialize, -1);
    rb_define_method(c, "sample_type_names", handle_sample_type_names, 0);
    rb_define_method(c, i == 0 ? "add" : "record", handle_record, -1);
    rb_define_method(c, i == 0 ? "set_endpoint" : "record_endpoint",
                     handle_record_endpoint, 2);
    rb_define_method(c, "add_endpoint_count", handle_add_endpoint_count, -1);
    rb_define_method(c, "add_upscaling_rule", handle_add_upscaling_rule, -1);
  }
  rb_define_method(cProfile, "reset", profile_reset, 0);
  rb_define_method(cRecorder, "track", recorder_track, -1);
  rb_define_method(cRecorder, "untrack", recorder_untrack, 1);

  /* Recorder and StackRecorder. */
  for (i = 1; i < 3; i++) {
    rb_define_method(classes[i], "reset_after_fork", recorder_reset_after_fork,
                     0);
    rb_define_method(classes[i], "stats", recorder_stats, 0);
  }

  /* StackRecorder: the surface of the StackRecorder in Datadog's profiler;
   * lib/stackrec/stack_recorder.rb has the rest. */
  rb_define_private_method(cStackRecorder, "_native_initialize",
                           handle_initialize, -1);
  rb_define_method(cStackRecorder, "record_sample",
                   stack_recorder_record_sample, -1);
  rb_define_method(cStackRecorder, "record_endpoint", handle_record_endpoint,
                   2);
}

RUBY_FUNC_EXPORTED void Init_stackrec_ruby(void) {
  VALUE module = rb_define_module("Stackrec");
  srb_init_convert();
  srb_init_handle(module);
  srb_init_ids(module);
  srb_init_serialize(module);
  srb_init_heap_profiler(module);
#ifdef HAVE_STACKREC_EXPORT
  srb_init_exporter(module);
#endif
}
