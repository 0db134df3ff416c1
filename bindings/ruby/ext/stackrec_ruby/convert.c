/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Ruby values to stackrec's structs: frames, values, labels and the scalar
 * arguments, each checked with a message that names it. The two passes
 * (prepare may allocate, fill may not) are why a sample is built in two
 * calls; stackrec_ruby.h says why that matters.
 */
#include <string.h>

#include "stackrec_ruby.h"

static VALUE location_class; /* Thread::Backtrace::Location */
static ID id_label, id_path, id_lineno;
static ID frame_keys[8], mapping_keys[5];
enum {
  F_NAME,
  F_FILENAME,
  F_LINE,
  F_SYSTEM_NAME,
  F_START_LINE,
  F_ADDRESS,
  F_INLINED,
  F_MAPPING
};
enum { M_MEMORY_START, M_MEMORY_LIMIT, M_FILE_OFFSET, M_FILENAME, M_BUILD_ID };
/* A Hash frame becomes this Array, in the order of the enum above, with the
 * mapping's five fields after it. */
enum { CANONICAL_LEN = 12 };

stackrec_str srb_str(VALUE string) {
  stackrec_str s = {RSTRING_PTR(string), (size_t)RSTRING_LEN(string)};
  return s;
}

VALUE srb_string_arg(VALUE value, const char *what) {
  if (NIL_P(value) || value == Qundef) return rb_str_new(NULL, 0);
  if (RB_SYMBOL_P(value)) return rb_sym2str(value);
  if (!RB_TYPE_P(value, T_STRING)) {
    rb_raise(rb_eTypeError, "%s must be a String, got %+" PRIsVALUE, what,
             value);
  }
  return value;
}

static void check_integer(VALUE value, const char *what) {
  if (!RB_INTEGER_TYPE_P(value)) {
    rb_raise(rb_eTypeError, "%s must be an Integer, got %+" PRIsVALUE, what,
             value);
  }
}

int64_t srb_int64_arg(VALUE value, const char *what) {
  if (NIL_P(value) || value == Qundef) return 0;
  check_integer(value, what);
  return NUM2LL(value); /* RangeError past 64 bits */
}

uint64_t srb_uint64_arg(VALUE value, const char *what) {
  if (NIL_P(value) || value == Qundef) return 0;
  check_integer(value, what);
  if (RTEST(rb_funcall(value, rb_intern("negative?"), 0))) {
    rb_raise(rb_eArgError, "%s must not be negative, got %+" PRIsVALUE, what,
             value);
  }
  return NUM2ULL(value);
}

size_t srb_size_arg(VALUE value, const char *what) {
  uint64_t n = srb_uint64_arg(value, what);
  if (n > SIZE_MAX) rb_raise(rb_eRangeError, "%s is too big", what);
  return (size_t)n;
}

bool srb_bool_arg(VALUE value, const char *what) {
  if (NIL_P(value) || value == Qundef) return false;
  if (value != Qtrue && value != Qfalse) {
    rb_raise(rb_eTypeError, "%s must be true or false, got %+" PRIsVALUE, what,
             value);
  }
  return value == Qtrue;
}

static long find_type(const srb_handle *handle, VALUE name) {
  long i, n = RARRAY_LEN(handle->type_names);
  for (i = 0; i < n; i++) {
    if (rb_str_equal(RARRAY_AREF(handle->type_names, i), name) == Qtrue) {
      return i;
    }
  }
  return -1;
}

NORETURN(static void raise_unknown_type(const srb_handle *handle, VALUE name,
                                        const char *what));
static void raise_unknown_type(const srb_handle *handle, VALUE name,
                               const char *what) {
  VALUE known = rb_ary_join(handle->type_names, rb_str_new_cstr(", "));
  rb_raise(rb_eArgError,
           "%s: unknown sample type %+" PRIsVALUE " (known: %" PRIsVALUE ")",
           what, name, known);
}

size_t srb_type_offset(const srb_handle *handle, VALUE name, const char *what) {
  VALUE string = name;
  long offset;
  if (RB_SYMBOL_P(name)) {
    string = rb_sym2str(name);
  } else if (!RB_TYPE_P(name, T_STRING)) {
    rb_raise(rb_eTypeError,
             "%s: sample types are named by a String or Symbol, got "
             "%+" PRIsVALUE,
             what, name);
  }
  offset = find_type(handle, string);
  if (offset < 0) raise_unknown_type(handle, name, what);
  return (size_t)offset;
}

int64_t srb_timestamp_arg(VALUE value) {
  if (NIL_P(value) || value == Qundef) return 0;
  if (RB_INTEGER_TYPE_P(value)) return NUM2LL(value);
  if (rb_obj_is_kind_of(value, rb_cTime)) {
    struct timespec ts = rb_time_timespec(value);
    if (ts.tv_sec < 0) {
      rb_raise(rb_eArgError,
               "timestamp must not be before 1970, got %+" PRIsVALUE, value);
    }
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  }
  rb_raise(rb_eTypeError,
           "timestamp must be a Time or Integer nanoseconds, got %+" PRIsVALUE,
           value);
}

/* One id of a link into `out`, `size` bytes, big-endian as the W3C ids are
 * written. */
static void link_id(VALUE value, uint8_t *out, size_t size, const char *what) {
  if (RB_INTEGER_TYPE_P(value)) {
    /* The sign (-1, 0, 1), or 2 when the magnitude overflows the bytes. */
    const int sign =
        rb_integer_pack(value, out, size, 1, 0, INTEGER_PACK_BIG_ENDIAN);
    if (sign < 0 || sign > 1) {
      rb_raise(rb_eRangeError, "link %s %+" PRIsVALUE " does not fit %zu bytes",
               what, value, size);
    }
    return;
  }
  if (!RB_TYPE_P(value, T_STRING) || (size_t)RSTRING_LEN(value) != size) {
    rb_raise(
        rb_eArgError,
        "link %s must be a String of %zu bytes or an Integer, got %+" PRIsVALUE,
        what, size, value);
  }
  memcpy(out, RSTRING_PTR(value), size);
}

const stackrec_link *srb_link_arg(VALUE value, stackrec_link *out) {
  if (NIL_P(value) || value == Qundef) return NULL;
  if (!RB_TYPE_P(value, T_ARRAY) || RARRAY_LEN(value) != 2) {
    rb_raise(rb_eTypeError,
             "link must be [trace_id, span_id], got %+" PRIsVALUE, value);
  }
  memset(out, 0, sizeof(*out));
  link_id(RARRAY_AREF(value, 0), out->trace_id, sizeof(out->trace_id),
          "trace_id");
  link_id(RARRAY_AREF(value, 1), out->span_id, sizeof(out->span_id), "span_id");
  return out;
}

void srb_keywords(VALUE hash, int count, const ID *ids, VALUE *values) {
  if (!NIL_P(hash) && !RB_TYPE_P(hash, T_HASH)) {
    rb_raise(rb_eTypeError, "options must be a Hash, got %+" PRIsVALUE, hash);
  }
  rb_get_kwargs(hash, ids, 0, count, values);
}

/* ---- Frames
 * ------------------------------------------------------------------ */

/* A Hash frame, checked, as its canonical Array (allocates). */
static VALUE canonical_frame(VALUE frame, long i) {
  VALUE fields[8], mapping[5] = {Qundef, Qundef, Qundef, Qundef, Qundef};
  VALUE canonical = rb_ary_new_capa(CANONICAL_LEN);
  char what[64];
  int k;
  rb_get_kwargs(rb_hash_dup(frame), frame_keys, 0, 8, fields);
  if (fields[F_MAPPING] != Qundef && !NIL_P(fields[F_MAPPING])) {
    if (!RB_TYPE_P(fields[F_MAPPING], T_HASH)) {
      rb_raise(rb_eTypeError,
               "frames[%ld][:mapping] must be a Hash, got %+" PRIsVALUE, i,
               fields[F_MAPPING]);
    }
    rb_get_kwargs(rb_hash_dup(fields[F_MAPPING]), mapping_keys, 0, 5, mapping);
  }
  snprintf(what, sizeof(what), "frames[%ld][:name]", i);
  rb_ary_push(canonical, srb_string_arg(fields[F_NAME], what));
  snprintf(what, sizeof(what), "frames[%ld][:filename]", i);
  rb_ary_push(canonical, srb_string_arg(fields[F_FILENAME], what));
  for (k = F_LINE; k < F_MAPPING; k++) {
    VALUE v = fields[k] == Qundef ? Qnil : fields[k];
    if (k == F_SYSTEM_NAME) {
      snprintf(what, sizeof(what), "frames[%ld][:system_name]", i);
      v = srb_string_arg(v, what);
    } else if (k == F_INLINED) {
      snprintf(what, sizeof(what), "frames[%ld][:inlined]", i);
      v = srb_bool_arg(v, what) ? Qtrue : Qfalse;
    } else {
      snprintf(what, sizeof(what), "frames[%ld][:%s]", i,
               rb_id2name(frame_keys[k]));
      if (!NIL_P(v))
        check_integer(v, what);
      else
        v = INT2FIX(0);
    }
    rb_ary_push(canonical, v);
  }
  for (k = 0; k < 5; k++) {
    VALUE v = mapping[k] == Qundef ? Qnil : mapping[k];
    snprintf(what, sizeof(what), "frames[%ld][:mapping][:%s]", i,
             rb_id2name(mapping_keys[k]));
    if (k == M_FILENAME || k == M_BUILD_ID) {
      v = srb_string_arg(v, what);
    } else if (!NIL_P(v)) {
      check_integer(v, what);
    } else {
      v = INT2FIX(0);
    }
    rb_ary_push(canonical, v);
  }
  return canonical;
}

/* Locations and Hashes become Arrays; a frames Array with none is kept. */
static VALUE prepare_frames(VALUE frames) {
  long i, n;
  VALUE copy = Qnil;
  if (!RB_TYPE_P(frames, T_ARRAY)) {
    rb_raise(
        rb_eTypeError,
        "frames must be an Array of [name, filename, line], got %+" PRIsVALUE,
        frames);
  }
  n = RARRAY_LEN(frames);
  for (i = 0; i < n; i++) {
    VALUE frame = RARRAY_AREF(frames, i);
    VALUE converted;
    if (rb_obj_is_kind_of(frame, location_class)) {
      converted = rb_ary_new_from_args(3, rb_funcall(frame, id_label, 0),
                                       rb_funcall(frame, id_path, 0),
                                       rb_funcall(frame, id_lineno, 0));
    } else if (RB_TYPE_P(frame, T_HASH)) {
      converted = canonical_frame(frame, i);
    } else {
      continue;
    }
    if (NIL_P(copy)) copy = rb_ary_dup(frames);
    rb_ary_store(copy, i, converted);
  }
  return NIL_P(copy) ? frames : copy;
}

static void fill_location(stackrec_location *location, VALUE frame, long i) {
  VALUE name, filename;
  memset(location, 0, sizeof(*location));
  if (!RB_TYPE_P(frame, T_ARRAY) ||
      (RARRAY_LEN(frame) != 3 && RARRAY_LEN(frame) != CANONICAL_LEN)) {
    rb_raise(
        rb_eTypeError,
        "frames[%ld] must be [name, filename, line], got %+" PRIsVALUE
        " (or a Thread::Backtrace::Location, or a Hash of location fields)",
        i, frame);
  }
  name = RARRAY_AREF(frame, 0);
  filename = RARRAY_AREF(frame, 1);
  if (!RB_TYPE_P(name, T_STRING) || !RB_TYPE_P(filename, T_STRING)) {
    rb_raise(rb_eTypeError,
             "frames[%ld]: name and filename must be Strings, got %+" PRIsVALUE,
             i, frame);
  }
  if (!RB_INTEGER_TYPE_P(RARRAY_AREF(frame, 2))) {
    rb_raise(rb_eTypeError,
             "frames[%ld]: line must be an Integer, got %+" PRIsVALUE, i,
             RARRAY_AREF(frame, 2));
  }
  location->function.name = srb_str(name);
  location->function.filename = srb_str(filename);
  location->line = NUM2LL(RARRAY_AREF(frame, 2)); /* RangeError past 64 bits */
  if (RARRAY_LEN(frame) == CANONICAL_LEN) {
    location->function.system_name = srb_str(RARRAY_AREF(frame, F_SYSTEM_NAME));
    location->function.start_line = NUM2LL(RARRAY_AREF(frame, F_START_LINE));
    location->address = NUM2ULL(RARRAY_AREF(frame, F_ADDRESS));
    location->inlined = RARRAY_AREF(frame, F_INLINED) == Qtrue;
    location->mapping.memory_start =
        NUM2ULL(RARRAY_AREF(frame, F_MAPPING + M_MEMORY_START));
    location->mapping.memory_limit =
        NUM2ULL(RARRAY_AREF(frame, F_MAPPING + M_MEMORY_LIMIT));
    location->mapping.file_offset =
        NUM2ULL(RARRAY_AREF(frame, F_MAPPING + M_FILE_OFFSET));
    location->mapping.filename =
        srb_str(RARRAY_AREF(frame, F_MAPPING + M_FILENAME));
    location->mapping.build_id =
        srb_str(RARRAY_AREF(frame, F_MAPPING + M_BUILD_ID));
  }
}

/* ---- Labels
 * ------------------------------------------------------------------ */

static void check_labels(VALUE labels) {
  if (!RB_TYPE_P(labels, T_HASH)) {
    rb_raise(rb_eTypeError,
             "labels must be a Hash of String => String or Integer, got "
             "%+" PRIsVALUE,
             labels);
  }
}

VALUE srb_labels_prepare(VALUE labels) {
  if (NIL_P(labels) || labels == Qundef) return rb_hash_new();
  check_labels(labels);
  return labels;
}

typedef struct {
  stackrec_label *labels;
  size_t count, capacity;
} labels_args;

static int label_entry(VALUE key, VALUE value, VALUE arg) {
  labels_args *args = (labels_args *)arg;
  stackrec_label *label;
  if (args->count == args->capacity) {
    rb_raise(rb_eRuntimeError, "labels: the Hash grew while it was read");
  }
  label = &args->labels[args->count];
  if (!RB_TYPE_P(key, T_STRING)) {
    rb_raise(rb_eTypeError, "labels: keys must be Strings, got %+" PRIsVALUE,
             key);
  }
  memset(label, 0, sizeof(*label));
  label->key = srb_str(key);
  if (RB_TYPE_P(value, T_STRING)) {
    label->str = srb_str(value);
  } else if (RB_INTEGER_TYPE_P(value)) {
    label->num = NUM2LL(value);
  } else if (RB_TYPE_P(value, T_ARRAY) && RARRAY_LEN(value) == 2 &&
             RB_INTEGER_TYPE_P(RARRAY_AREF(value, 0)) &&
             RB_TYPE_P(RARRAY_AREF(value, 1), T_STRING)) {
    label->num = NUM2LL(RARRAY_AREF(value, 0));
    label->num_unit = srb_str(RARRAY_AREF(value, 1));
  } else {
    rb_raise(rb_eTypeError,
             "labels[%+" PRIsVALUE
             "] must be a String or an Integer, got %+" PRIsVALUE
             " (or [Integer, unit String])",
             key, value);
  }
  args->count++;
  return ST_CONTINUE;
}

size_t srb_labels_fill(VALUE labels, stackrec_label *out) {
  labels_args args;
  args.labels = out;
  args.capacity = RHASH_SIZE(labels);
  args.count = 0;
  rb_hash_foreach(labels, label_entry, (VALUE)&args);
  return args.count;
}

/* ---- Values
 * -------------------------------------------------------------------- */

typedef struct {
  const srb_handle *handle;
  int64_t *values;
} values_args;

static int value_entry(VALUE key, VALUE value, VALUE arg) {
  values_args *args = (values_args *)arg;
  VALUE name = key;
  long type;
  if (RB_SYMBOL_P(key)) {
    name = rb_sym2str(key); /* the symbol's own frozen string */
  } else if (!RB_TYPE_P(key, T_STRING)) {
    rb_raise(rb_eTypeError,
             "values: keys must be sample type names (String or Symbol), "
             "got %+" PRIsVALUE,
             key);
  }
  type = find_type(args->handle, name);
  if (type < 0) raise_unknown_type(args->handle, key, "values");
  if (!RB_INTEGER_TYPE_P(value)) {
    rb_raise(rb_eTypeError,
             "values[%+" PRIsVALUE "] must be an Integer, got %+" PRIsVALUE,
             key, value);
  }
  args->values[type] = NUM2LL(value);
  return ST_CONTINUE;
}

static void fill_values(srb_sample *sample, const srb_handle *handle) {
  long i;
  if (RB_TYPE_P(sample->values, T_HASH)) {
    values_args args = {handle, sample->value_array};
    memset(sample->value_array, 0, sample->values_len * sizeof(int64_t));
    rb_hash_foreach(sample->values, value_entry, (VALUE)&args);
    return;
  }
  /* An Array: one Integer per declared type, in order (stackrec checks the
   * count, and names it). */
  for (i = 0; i < (long)sample->values_len; i++) {
    VALUE v = RARRAY_AREF(sample->values, i);
    if (!RB_INTEGER_TYPE_P(v)) {
      rb_raise(rb_eTypeError,
               "values[%ld] must be an Integer, got %+" PRIsVALUE, i, v);
    }
    sample->value_array[i] = NUM2LL(v);
  }
}

/* ---- Samples
 * ----------------------------------------------------------------- */

void srb_sample_check(srb_sample *sample, const srb_handle *handle,
                      VALUE frames, VALUE values, VALUE labels) {
  memset(sample, 0, sizeof(*sample));
  sample->frames = prepare_frames(frames);
  if (RB_TYPE_P(values, T_HASH)) {
    sample->values_len = (size_t)RARRAY_LEN(handle->type_names);
  } else if (RB_TYPE_P(values, T_ARRAY)) {
    sample->values_len = (size_t)RARRAY_LEN(values);
  } else {
    rb_raise(rb_eTypeError,
             "values must be a Hash of sample type name => Integer, got "
             "%+" PRIsVALUE " (or an Array of Integers, one per sample type)",
             values);
  }
  sample->values = values;
  sample->labels = srb_labels_prepare(labels);
  sample->locations_len = (size_t)RARRAY_LEN(sample->frames);
  sample->labels_capacity = RHASH_SIZE(sample->labels);
}

void srb_sample_fill(srb_sample *sample, const srb_handle *handle) {
  size_t i;
  for (i = 0; i < sample->locations_len; i++) {
    fill_location(&sample->locations[i], RARRAY_AREF(sample->frames, i),
                  (long)i);
  }
  fill_values(sample, handle);
  sample->labels_len = srb_labels_fill(sample->labels, sample->label_array);
}

void srb_sample_release(srb_sample *sample) {
  ALLOCV_END(sample->labels_buffer);
  ALLOCV_END(sample->values_buffer);
  ALLOCV_END(sample->locations_buffer);
  RB_GC_GUARD(sample->frames);
  RB_GC_GUARD(sample->labels);
  RB_GC_GUARD(sample->values);
}

void srb_init_convert(void) {
  static const char *const frame_names[8] = {
      "name",       "filename", "line",    "system_name",
      "start_line", "address",  "inlined", "mapping"};
  static const char *const mapping_names[5] = {
      "memory_start", "memory_limit", "file_offset", "filename", "build_id"};
  int i;
  location_class = rb_path2class("Thread::Backtrace::Location");
  id_label = rb_intern("label");
  id_path = rb_intern("path");
  id_lineno = rb_intern("lineno");
  for (i = 0; i < 8; i++) frame_keys[i] = rb_intern(frame_names[i]);
  for (i = 0; i < 5; i++) mapping_keys[i] = rb_intern(mapping_names[i]);
}
