/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Recording by id, on a Profile or a Recorder: a host that knows its
 * functions and call sites ahead of sampling interns them once and records
 * by Integer ids, so no frame or label string is converted per sample. The
 * methods follow the C calls one for one (Profile#add_ids is
 * stackrec_profile_add_ids, Recorder#record_ids stackrec_recorder_record_ids).
 */
#include <stdio.h>
#include <string.h>

#include "stackrec_ruby.h"

static ID mapping_keywords[5], function_keywords[4], location_keywords[5],
    ids_keywords[5];

#define INTERN(handle, what, arg, id)                               \
  ((handle)->profile                                                \
       ? stackrec_profile_intern_##what((handle)->profile, arg, id) \
       : stackrec_recorder_intern_##what((handle)->recorder, arg, id))

/* intern_mapping(memory_start: 0, memory_limit: 0, file_offset: 0,
 *   filename: nil, build_id: nil) => Integer id */
static VALUE handle_intern_mapping(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  VALUE options, k[5], filename, build_id;
  stackrec_mapping mapping;
  uint32_t id = 0;
  rb_scan_args(argc, argv, ":", &options);
  srb_keywords(options, 5, mapping_keywords, k);
  filename = srb_string_arg(k[3], "filename");
  build_id = srb_string_arg(k[4], "build_id");
  memset(&mapping, 0, sizeof(mapping));
  mapping.memory_start = srb_uint64_arg(k[0], "memory_start");
  mapping.memory_limit = srb_uint64_arg(k[1], "memory_limit");
  mapping.file_offset = srb_uint64_arg(k[2], "file_offset");
  mapping.filename = srb_str(filename);
  mapping.build_id = srb_str(build_id);
  SRB_CHECK(INTERN(handle, mapping, &mapping, &id), "intern_mapping");
  RB_GC_GUARD(filename);
  RB_GC_GUARD(build_id);
  return UINT2NUM(id);
}

/* intern_function(name: nil, system_name: nil, filename: nil, start_line: 0) */
static VALUE handle_intern_function(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  VALUE options, k[4], name, system_name, filename;
  stackrec_function function;
  uint32_t id = 0;
  rb_scan_args(argc, argv, ":", &options);
  srb_keywords(options, 4, function_keywords, k);
  name = srb_string_arg(k[0], "name");
  system_name = srb_string_arg(k[1], "system_name");
  filename = srb_string_arg(k[2], "filename");
  memset(&function, 0, sizeof(function));
  function.start_line = srb_int64_arg(k[3], "start_line");
  function.name = srb_str(name);
  function.system_name = srb_str(system_name);
  function.filename = srb_str(filename);
  SRB_CHECK(INTERN(handle, function, &function, &id), "intern_function");
  RB_GC_GUARD(name);
  RB_GC_GUARD(system_name);
  RB_GC_GUARD(filename);
  return UINT2NUM(id);
}

static uint32_t id_arg(VALUE value, const char *what) {
  uint64_t id = srb_uint64_arg(value, what);
  if (id > UINT32_MAX)
    rb_raise(rb_eRangeError, "%s is not an id: %" PRIsVALUE, what, value);
  return (uint32_t)id;
}

/* intern_location(function: 0, mapping: 0, address: 0, line: 0, inlined: false)
 */
static VALUE handle_intern_location(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  VALUE options, k[5];
  stackrec_interned_location location;
  uint32_t id = 0;
  rb_scan_args(argc, argv, ":", &options);
  srb_keywords(options, 5, location_keywords, k);
  memset(&location, 0, sizeof(location));
  location.function_id = id_arg(k[0], "function");
  location.mapping_id = id_arg(k[1], "mapping");
  location.address = srb_uint64_arg(k[2], "address");
  location.line = srb_int64_arg(k[3], "line");
  location.inlined = srb_bool_arg(k[4], "inlined");
  SRB_CHECK(INTERN(handle, location, &location, &id), "intern_location");
  return UINT2NUM(id);
}

static void check_id_array(VALUE ids, const char *what) {
  if (!RB_TYPE_P(ids, T_ARRAY)) {
    rb_raise(rb_eTypeError,
             "%s must be an Array of Integer ids, got %+" PRIsVALUE, what, ids);
  }
}

static void fill_ids(VALUE ids, const char *what, uint32_t *out) {
  long i;
  char element[64];
  for (i = 0; i < RARRAY_LEN(ids); i++) {
    snprintf(element, sizeof(element), "%s[%ld]", what, i);
    out[i] = id_arg(RARRAY_AREF(ids, i), element);
  }
}

/* intern_stack(location_ids) => Integer id; leaf first */
static VALUE handle_intern_stack(VALUE self, VALUE location_ids) {
  srb_handle *handle = srb_get_handle(self);
  VALUE buffer = 0;
  size_t len;
  uint32_t id = 0, *ids;
  stackrec_status status;
  check_id_array(location_ids, "location_ids");
  len = (size_t)RARRAY_LEN(location_ids);
  ids = ALLOCV_N(uint32_t, buffer, len);
  fill_ids(location_ids, "location_ids", ids);
  status =
      handle->profile
          ? stackrec_profile_intern_stack(handle->profile, ids, len, &id)
          : stackrec_recorder_intern_stack(handle->recorder, ids, len, &id);
  ALLOCV_END(buffer);
  if (status != STACKREC_OK) srb_raise_status(status, "intern_stack");
  return UINT2NUM(id);
}

/* intern_labels({"key" => value, ...}) => Integer id */
static VALUE handle_intern_labels(VALUE self, VALUE labels) {
  srb_handle *handle = srb_get_handle(self);
  VALUE buffer = 0;
  size_t len;
  uint32_t id = 0;
  stackrec_label *array;
  stackrec_status status;
  labels = srb_labels_prepare(labels);
  array = ALLOCV_N(stackrec_label, buffer, RHASH_SIZE(labels));
  len = srb_labels_fill(labels, array);
  status =
      handle->profile
          ? stackrec_profile_intern_labels(handle->profile, array, len, &id)
          : stackrec_recorder_intern_labels(handle->recorder, array, len, &id);
  ALLOCV_END(buffer);
  RB_GC_GUARD(labels);
  if (status != STACKREC_OK) srb_raise_status(status, "intern_labels");
  return UINT2NUM(id);
}

/* record_ids(values, stack: id | locations: [ids], labels: id | {...},
 *   timestamp: nil, link: nil); Profile#add_ids */
static VALUE handle_record_ids(int argc, VALUE *argv, VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  const char *method = handle->profile ? "add_ids" : "record_ids";
  VALUE values, options, k[5], labels = Qnil;
  VALUE ids_buffer = 0;
  srb_sample sample;
  stackrec_id_sample s;
  stackrec_link link_ids;
  stackrec_status status;

  rb_scan_args(argc, argv, "1:", &values, &options);
  srb_keywords(options, 5, ids_keywords, k);
  memset(&s, 0, sizeof(s));
  s.timestamp_ns = srb_timestamp_arg(k[3]);
  s.link = srb_link_arg(k[4], &link_ids);
  if (k[0] != Qundef && !NIL_P(k[0])) s.stack_id = id_arg(k[0], "stack");
  if (k[2] != Qundef && RB_INTEGER_TYPE_P(k[2])) {
    s.labels_id = id_arg(k[2], "labels");
  } else {
    labels = k[2] == Qundef ? Qnil : k[2];
  }
  SRB_SAMPLE_PREPARE(&sample, handle, rb_ary_new(), values, labels);
  if (k[1] != Qundef && !NIL_P(k[1])) {
    uint32_t *ids;
    check_id_array(k[1], "locations");
    ids = ALLOCV_N(uint32_t, ids_buffer, RARRAY_LEN(k[1]));
    s.location_ids = ids;
    s.location_ids_len = (size_t)RARRAY_LEN(k[1]);
  }
  if (s.location_ids != NULL)
    fill_ids(k[1], "locations", (uint32_t *)s.location_ids);
  srb_sample_fill(&sample, handle);
  s.values = sample.value_array;
  s.values_len = sample.values_len;
  s.labels = sample.label_array;
  s.labels_len = sample.labels_len;
  status = handle->profile ? stackrec_profile_add_ids(handle->profile, &s)
                           : stackrec_recorder_record_ids(handle->recorder, &s);
  ALLOCV_END(ids_buffer);
  srb_sample_release(&sample);
  if (status != STACKREC_OK) srb_raise_status(status, method);
  return self;
}

static VALUE handle_forget_ids(VALUE self) {
  srb_handle *handle = srb_get_handle(self);
  SRB_CHECK(handle->profile ? stackrec_profile_forget_ids(handle->profile)
                            : stackrec_recorder_forget_ids(handle->recorder),
            "forget_ids");
  return self;
}

void srb_init_ids(VALUE module) {
  static const char *const mapping_names[5] = {
      "memory_start", "memory_limit", "file_offset", "filename", "build_id"};
  static const char *const function_names[4] = {"name", "system_name",
                                                "filename", "start_line"};
  static const char *const location_names[5] = {"function", "mapping",
                                                "address", "line", "inlined"};
  static const char *const ids_names[5] = {"stack", "locations", "labels",
                                           "timestamp", "link"};
  const char *const classes[2] = {"Profile", "Recorder"};
  int i;
  srb_intern_all(mapping_keywords, 5, mapping_names);
  srb_intern_all(function_keywords, 4, function_names);
  srb_intern_all(location_keywords, 5, location_names);
  srb_intern_all(ids_keywords, 5, ids_names);
  for (i = 0; i < 2; i++) {
    VALUE c = rb_const_get(module, rb_intern(classes[i]));
    rb_define_method(c, "intern_mapping", handle_intern_mapping, -1);
    rb_define_method(c, "intern_function", handle_intern_function, -1);
    rb_define_method(c, "intern_location", handle_intern_location, -1);
    rb_define_method(c, "intern_stack", handle_intern_stack, 1);
    rb_define_method(c, "intern_labels", handle_intern_labels, 1);
    rb_define_method(c, i == 0 ? "add_ids" : "record_ids", handle_record_ids,
                     -1);
    rb_define_method(c, "forget_ids", handle_forget_ids, 0);
  }
}
