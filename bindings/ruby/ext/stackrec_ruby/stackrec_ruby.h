/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * What the extension's C files share: the object that owns a stackrec handle
 * (Stackrec::Profile, Stackrec::Recorder and Stackrec::StackRecorder all wrap
 * one), the Ruby-to-stackrec conversions and the exceptions.
 *
 * Ruby rules every file follows:
 *  - Every argument is checked, and every pointer into a Ruby string taken,
 *    before stackrec is called; a bad argument raises TypeError or
 *    ArgumentError naming it, and stackrec's own refusals raise
 *    Stackrec::InvalidArgument (an ArgumentError) with stackrec_last_error().
 *  - A raise is a longjmp: nothing is malloc'd that a raise could leak.
 *    Scratch arrays come from ALLOCV_N (the stack, or a buffer the GC owns),
 *    and an encoded profile is freed in an rb_ensure.
 *  - Conversion runs in two passes: the first may allocate (a
 *    Thread::Backtrace::Location becomes an Array, a Symbol its String), the
 *    second only takes pointers. So no GC, and no compaction, runs between
 *    taking an RSTRING_PTR() and the stackrec call that reads it.
 */
#ifndef STACKREC_RUBY_H_
#define STACKREC_RUBY_H_

#include <ruby.h>
#include <stackrec/stackrec.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- The wrapped handle ---------------------------------------------------
 */

typedef struct {
  /* Exactly one is set once #initialize ran: a Stackrec::Profile owns a
   * profile, a Recorder or StackRecorder a recorder. */
  stackrec_profile *profile;
  stackrec_recorder *recorder;
  /* The declared sample type names, a frozen Array of frozen Strings, in
   * declaration order: values Hashes and upscaling rules name them. */
  VALUE type_names;
  /* #serialize calls that released the GVL and have not retaken it, in
   * process serializing_pid. A fork child inherits the count but none of the
   * threads, which is why the pid is kept with it. A Profile refuses every
   * other call meanwhile, as its calls must not overlap. */
  int serializing;
  pid_t serializing_pid;
  /* Exporters whose thread may serialize `recorder` (start_periodic). The
   * GC frees what became unreachable together in no set order, so while
   * any holds a lease, this object's free leaves the recorder, and this
   * struct, to the last lease's release (collected records that it ran). */
  int leases;
  bool collected;
} srb_handle;

extern const rb_data_type_t srb_handle_type;

/* The handle of `self`; raises Stackrec::Error if #initialize did not run,
 * or if `self` is a Profile that another thread is serializing. */
srb_handle *srb_get_handle(VALUE self);
int srb_serializing_here(const srb_handle *handle);
/* The recorder of `self` (a Recorder or StackRecorder, else TypeError), to
 * be serialized by another thread until srb_handle_release. */
srb_handle *srb_handle_lease(VALUE self);
void srb_handle_release(srb_handle *handle);

/* ---- Errors -----------------------------------------------------------------
 */

extern VALUE srb_eError; /* Stackrec::Error, a StandardError */

/* Raises the exception for a failed stackrec call made by `method`. */
NORETURN(void srb_raise_status(stackrec_status status, const char *method));
/* The same, from a message captured earlier (the GVL was released). */
NORETURN(void srb_raise_captured(stackrec_status status, const char *message));
/* Raises for `call`'s status unless it is STACKREC_OK. */
#define SRB_CHECK(call, method)                                                \
  do {                                                                         \
    stackrec_status check_status_ = (call);                                    \
    if (check_status_ != STACKREC_OK) srb_raise_status(check_status_, method); \
  } while (0)

/* ---- Conversions ----------------------------------------------------------
 */

/* A String's bytes, borrowed: valid while the string is neither changed nor
 * collected, and no allocation happens (see the top of this file). */
stackrec_str srb_str(VALUE string);
/* nil is "" and a Symbol its name; anything else must be a String. */
VALUE srb_string_arg(VALUE value, const char *what);
int64_t srb_int64_arg(VALUE value, const char *what);
uint64_t srb_uint64_arg(VALUE value, const char *what);
size_t srb_size_arg(VALUE value, const char *what);
bool srb_bool_arg(VALUE value, const char *what);
/* The offset of a declared sample type, named by a String or Symbol. */
size_t srb_type_offset(const srb_handle *handle, VALUE name, const char *what);
/* Unix nanoseconds of a Time, or an Integer as is; nil is 0. */
int64_t srb_timestamp_arg(VALUE value);
/* A trace link: nil (NULL), or [trace_id, span_id], each a String of 16
 * (8) bytes or a non-negative Integer that fits them, into *out. */
const stackrec_link *srb_link_arg(VALUE value, stackrec_link *out);

/* A sample's stack, values and labels, ready for stackrec. Built by
 * SRB_SAMPLE_PREPARE (which may allocate, and takes the scratch arrays in
 * the caller's frame: ALLOCV_N may alloca) then srb_sample_fill (which does
 * not allocate); the buffers are the GC's until srb_sample_release. */
typedef struct {
  VALUE frames; /* an Array of [name, filename, line] or canonical frames */
  VALUE labels; /* a Hash */
  VALUE values; /* a Hash or an Array, checked by fill */
  stackrec_location *locations;
  stackrec_label *label_array;
  int64_t *value_array;
  size_t locations_len, labels_len, labels_capacity, values_len;
  VALUE locations_buffer, labels_buffer, values_buffer;
} srb_sample;

void srb_sample_check(srb_sample *sample, const srb_handle *handle,
                      VALUE frames, VALUE values, VALUE labels);
#define SRB_SAMPLE_PREPARE(sample, handle, frames, values, labels)            \
  do {                                                                        \
    srb_sample_check((sample), (handle), (frames), (values), (labels));       \
    (sample)->locations =                                                     \
        ALLOCV_N(stackrec_location, (sample)->locations_buffer,               \
                 (sample)->locations_len);                                    \
    (sample)->value_array =                                                   \
        ALLOCV_N(int64_t, (sample)->values_buffer, (sample)->values_len);     \
    (sample)->label_array = ALLOCV_N(stackrec_label, (sample)->labels_buffer, \
                                     (sample)->labels_capacity);              \
  } while (0)
void srb_sample_fill(srb_sample *sample, const srb_handle *handle);
void srb_sample_release(srb_sample *sample);

/* Labels alone (the id API's label sets): srb_labels_prepare checks (nil is
 * {}), the caller takes RHASH_SIZE(labels) stackrec_labels, and
 * srb_labels_fill fills them and returns how many. */
VALUE srb_labels_prepare(VALUE labels);
size_t srb_labels_fill(VALUE labels, stackrec_label *out);

/* Splits a keyword Hash (nil: none) by `ids`, the accepted keywords; an unknown
 * one raises ArgumentError as Ruby's own keyword arguments do. values[i] is
 * Qundef when ids[i] was not given. */
void srb_keywords(VALUE hash, int count, const ID *ids, VALUE *values);

/* ---- The parts, each Init'ed by Init_stackrec_ruby ----------------------- */

void srb_init_convert(void);
void srb_init_handle(VALUE module);
void srb_init_ids(VALUE module);
/* ids[i] = rb_intern(names[i]), for the keyword tables. */
void srb_intern_all(ID *ids, int count, const char *const *names);
void srb_init_serialize(VALUE module);
void srb_init_heap_profiler(VALUE module);
#ifdef HAVE_STACKREC_EXPORT
void srb_init_exporter(VALUE module);
#endif

/* The serialization Ruby sees; defined in serialize.c, used by the heap
 * profiler too. `options` is a keyword Hash (or nil). */
VALUE srb_serialize(VALUE self, VALUE options);

/* The serialize options of a keyword Hash (nil: the defaults), checked, for
 * a stackrec call: fill allocates first, then takes the pointers. What they
 * point into is held here, so keep the struct in the caller's frame, make
 * no allocation before the call, and pass it to release after it. */
typedef struct {
  stackrec_serialize_options opts;
  VALUE service, scope_name, scope_version, attributes, series;
  VALUE attributes_buffer, series_buffer;
} srb_serialize_args;
void srb_serialize_args_fill(srb_serialize_args *args, VALUE options);
void srb_serialize_args_release(srb_serialize_args *args);

/* The handle a Stackrec::Encoded from #serialize keeps (borrowed: valid
 * while `encoded` is reachable) and the format it was serialized in; raises
 * TypeError or ArgumentError for anything else. */
const stackrec_encoded *srb_encoded_handle(VALUE encoded,
                                           stackrec_format *format);

#endif /* STACKREC_RUBY_H_ */
