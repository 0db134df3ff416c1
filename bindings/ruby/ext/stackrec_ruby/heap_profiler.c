/* SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
 * Copyright 2026 The stackrec Authors.
 *
 * Stackrec::HeapProfiler's native half: every N-th object allocation is
 * sampled through Ruby's internal NEWOBJ and FREEOBJ events, its stack is
 * recorded with its class as a label, and it is tracked in the recorder's
 * live heap until the FREEOBJ event for it untracks it.
 *
 * Ruby forbids the NEWOBJ and FREEOBJ hooks to allocate a Ruby object or
 * call Ruby (FREEOBJ runs inside the GC's sweep). So the hooks only:
 *  - NEWOBJ: count down to the next sample; read the stack with
 *    rb_profile_frames (which fills a C buffer and allocates nothing) into a
 *    pending slot with the object and its class; put the object in the
 *    sampled set; and ask for a postponed job. The set and the pending slots
 *    are C memory (malloc, never the GC's).
 *  - FREEOBJ: look the object up in the sampled set (the common miss is a
 *    few loads); a tracked one is untracked at once (stackrec's untrack is
 *    plain C), a pending one is marked freed.
 * The postponed job runs at Ruby's next safe point with the GVL, where
 * allocating is allowed: it names the frames and the class (class names
 * are cached per class), records the allocation, and tracks the object if
 * it is still alive. Its own allocations are not sampled.
 *
 * Bytes are rb_obj_memsize_of(object), what ObjectSpace.memsize_of reports:
 * the object's slot plus the memory it holds outside it (a long String's
 * buffer, an Array's or a Hash's table). #serialize measures every tracked
 * object again just before it serializes, so the live heap's bytes are
 * those of serialization time.
 *
 * An object's id is its address. GC.compact moves objects and gives no
 * event for it, so after a compaction the moved objects would never leave
 * the heap profile: #start refuses while GC.auto_compact is on, and
 * the gem's README.md says not to call GC.compact while profiling.
 */
#include <ruby.h>
#include <ruby/debug.h>
#include <stdlib.h>
#include <string.h>

#include "stackrec_ruby.h"

/* Exported by libruby (ObjectSpace.memsize_of calls it) but declared only in
 * its internal headers; extconf.rb checks that it links. */
size_t rb_obj_memsize_of(VALUE object);

enum { MAX_FRAMES = 128, PENDING_CAPACITY = 128 };
/* The recorder's sample types, as lib/stackrec/heap_profiler.rb declares
 * them. */
enum { ALLOC_SAMPLES, HEAP_LIVE_SAMPLES, HEAP_LIVE_SIZE, TYPE_COUNT };

enum { EMPTY = 0, PENDING, TRACKED, TOMBSTONE };
typedef struct {
  VALUE object; /* its address is its id */
  VALUE info;   /* TRACKED: the frozen [frames, labels] it was tracked with */
  size_t size;  /* TRACKED: the bytes it was tracked with */
  unsigned state;
  unsigned pending; /* PENDING: its slot */
} entry;

typedef struct {
  VALUE object;
  VALUE klass;
  bool freed;
  int frame_count;
  VALUE frames[MAX_FRAMES];
  int lines[MAX_FRAMES];
} pending_slot;

typedef struct {
  VALUE recorder; /* a Stackrec::Recorder with the types above */
  srb_handle *handle;
  VALUE tracepoint;
  VALUE class_names; /* Class => its name, a cache */
  unsigned long every, countdown;
  int max_frames;
  bool running, processing;
  entry *table; /* open addressing, linear probing; capacity a power of 2 */
  size_t capacity, used /* not EMPTY */, live /* PENDING or TRACKED */;
  pending_slot *pending;
  unsigned pending_count;
  /* Counters for #stats. */
  unsigned long long sampled, dropped, freed_before_tracked, untrack_failures,
      track_failures, job_errors;
} profiler;

/* The running profilers, for the postponed job (which is given no data: a
 * queued job cannot be taken back, and must not outlive what it points to). */
static VALUE running_profilers;
static const rb_data_type_t profiler_type;

/* ---- The sampled set
 * ------------------------------------------------------------ */

static size_t slot_of(const profiler *p, VALUE object) {
  /* Object addresses are 8-aligned and slots 40 bytes apart: mix the bits. */
  uint64_t h = (uint64_t)object * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & (p->capacity - 1);
}

static entry *lookup(const profiler *p, VALUE object) {
  size_t i;
  if (p->capacity == 0) return NULL;
  for (i = slot_of(p, object);; i = (i + 1) & (p->capacity - 1)) {
    entry *e = &p->table[i];
    if (e->state == EMPTY) return NULL;
    if (e->object == object && (e->state == PENDING || e->state == TRACKED))
      return e;
  }
}

/* Moves the live entries into a table with room for twice as many; false
 * if malloc fails (the table is then as it was). Plain C memory, so it may
 * run in the NEWOBJ hook. */
static bool rehash(profiler *p) {
  size_t capacity = 1024, i, j;
  entry *old = p->table, *table;
  size_t old_capacity = p->capacity;
  while (capacity < (p->live + 1) * 4) capacity *= 2;
  table = calloc(capacity, sizeof(entry));
  if (table == NULL) return false;
  p->table = table;
  p->capacity = capacity;
  p->used = p->live;
  for (i = 0; i < old_capacity; i++) {
    if (old[i].state != PENDING && old[i].state != TRACKED) continue;
    for (j = slot_of(p, old[i].object); table[j].state != EMPTY;
         j = (j + 1) & (capacity - 1)) {
    }
    table[j] = old[i];
  }
  free(old);
  return true;
}

static entry *insert(profiler *p, VALUE object) {
  size_t i;
  if ((p->used + 1) * 2 > p->capacity && !rehash(p)) return NULL;
  for (i = slot_of(p, object);; i = (i + 1) & (p->capacity - 1)) {
    entry *e = &p->table[i];
    if (e->state == EMPTY || e->state == TOMBSTONE) {
      if (e->state == EMPTY) p->used++;
      memset(e, 0, sizeof(*e));
      e->object = object;
      p->live++;
      return e;
    }
  }
}

static void forget(profiler *p, entry *e) {
  e->state = TOMBSTONE;
  e->info = Qnil;
  p->live--;
}

/* ---- The hooks (no Ruby allocation, no Ruby call)
 * ------------------------------- */

static void process_job(void *unused);

static void on_newobj(profiler *p, VALUE object) {
  pending_slot *slot;
  entry *e;
  VALUE klass;
  if (p->processing) return; /* the glue's own allocations */
  klass = RBASIC_CLASS(object);
  if (klass == 0) return; /* hidden: the VM's own objects */
  switch (RB_BUILTIN_TYPE(object)) {
    case T_IMEMO:
    case T_NODE:
    case T_ICLASS:
      return;
    default:
      break;
  }
  if (--p->countdown > 0) return;
  p->countdown = p->every;
  if (p->pending_count == PENDING_CAPACITY || (e = insert(p, object)) == NULL) {
    p->dropped++;
    return;
  }
  p->sampled++;
  slot = &p->pending[p->pending_count];
  slot->object = object;
  slot->klass = rb_obj_class(object);
  slot->freed = false;
  slot->frame_count =
      rb_profile_frames(0, p->max_frames, slot->frames, slot->lines);
  e->state = PENDING;
  e->pending = p->pending_count++;
  rb_postponed_job_register_one(0, process_job, NULL);
}

static void on_freeobj(profiler *p, VALUE object) {
  entry *e = lookup(p, object);
  if (e == NULL) return;
  if (e->state == PENDING) {
    p->pending[e->pending].freed = true;
  } else if (stackrec_recorder_untrack(p->handle->recorder, (uint64_t)object) !=
             STACKREC_OK) {
    p->untrack_failures++; /* out of memory: it stays in the heap profile */
  }
  forget(p, e);
}

static void on_event(VALUE tracepoint, void *data) {
  rb_trace_arg_t *arg = rb_tracearg_from_tracepoint(tracepoint);
  profiler *p = data;
  if (rb_tracearg_event_flag(arg) == RUBY_INTERNAL_EVENT_NEWOBJ) {
    on_newobj(p, rb_tracearg_object(arg));
  } else {
    on_freeobj(p, rb_tracearg_object(arg));
  }
}

/* ---- The postponed job: naming, recording, tracking
 * ------------------------------ */

static VALUE class_name(profiler *p, VALUE klass) {
  VALUE name = rb_hash_lookup2(p->class_names, klass, Qundef);
  if (name == Qundef) {
    name = rb_class_name(klass);
    name =
        rb_str_new_frozen(RB_TYPE_P(name, T_STRING) ? name : rb_inspect(klass));
    rb_hash_aset(p->class_names, klass, name);
  }
  return name;
}

static VALUE frames_of(const pending_slot *slot) {
  VALUE frames = rb_ary_new_capa(slot->frame_count);
  int i;
  for (i = 0; i < slot->frame_count; i++) {
    VALUE name = rb_profile_frame_full_label(slot->frames[i]);
    VALUE path = rb_profile_frame_path(slot->frames[i]);
    rb_ary_push(frames, rb_ary_new_from_args(
                            3, NIL_P(name) ? rb_str_new_cstr("") : name,
                            NIL_P(path) ? rb_str_new_cstr("") : path,
                            INT2NUM(slot->lines[i])));
  }
  return frames;
}

/* Records or tracks one sample of the profiler's recorder; the status. */
static stackrec_status add(profiler *p, VALUE object, VALUE frames,
                           VALUE labels, int64_t values[TYPE_COUNT]) {
  srb_sample sample;
  stackrec_sample s;
  stackrec_status status;
  VALUE value_array = rb_ary_new_from_args(
      3, LL2NUM(values[0]), LL2NUM(values[1]), LL2NUM(values[2]));
  SRB_SAMPLE_PREPARE(&sample, p->handle, frames, value_array, labels);
  srb_sample_fill(&sample, p->handle);
  memset(&s, 0, sizeof(s));
  s.locations = sample.locations;
  s.locations_len = sample.locations_len;
  s.values = sample.value_array;
  s.values_len = sample.values_len;
  s.labels = sample.label_array;
  s.labels_len = sample.labels_len;
  status = object == Qnil ? stackrec_recorder_record(p->handle->recorder, &s)
                          : stackrec_recorder_track(p->handle->recorder,
                                                    (uint64_t)object, &s);
  srb_sample_release(&sample);
  return status;
}

/* Tracks (or, tracked already, re-tracks) the entry's object; false if the
 * recorder refused, e.g. at max_tracked_objects, and then nothing changed. */
static bool track(profiler *p, entry *e, VALUE info, size_t size) {
  int64_t values[TYPE_COUNT] = {0, 1, (int64_t)size};
  if (add(p, e->object, RARRAY_AREF(info, 0), RARRAY_AREF(info, 1), values) !=
      STACKREC_OK) {
    p->track_failures++;
    return false;
  }
  e->state = TRACKED;
  e->info = info;
  e->size = size;
  return true;
}

static VALUE process_pending_body(VALUE arg) {
  profiler *p = (profiler *)arg;
  unsigned i;
  for (i = 0; i < p->pending_count; i++) {
    pending_slot *slot = &p->pending[i];
    int64_t values[TYPE_COUNT] = {1, 0, 0};
    VALUE labels = rb_hash_new();
    VALUE info;
    entry *e;
    rb_hash_aset(labels, rb_str_new_cstr("allocation class"),
                 class_name(p, slot->klass));
    info = rb_ary_freeze(rb_ary_new_from_args(2, frames_of(slot), labels));
    if (add(p, Qnil, RARRAY_AREF(info, 0), labels, values) != STACKREC_OK)
      p->track_failures++;
    /* The GC may have run while this slot was named: freed is current. */
    if (slot->freed) {
      p->freed_before_tracked++;
      continue;
    }
    e = lookup(p, slot->object);
    /* A refused one is left out of the heap profile. */
    if (e != NULL && e->state == PENDING &&
        !track(p, e, info, rb_obj_memsize_of(slot->object))) {
      forget(p, e);
    }
  }
  return Qnil;
}

/* Runs `body` with sampling paused, and never lets an exception out: it may
 * run in a postponed job, inside whatever Ruby code was running. */
static void without_sampling(profiler *p, VALUE (*body)(VALUE)) {
  int state = 0;
  if (p->processing) return;
  p->processing = true;
  rb_protect(body, (VALUE)p, &state);
  p->processing = false;
  if (state != 0) {
    /* What was pending when it failed is dropped rather than recorded twice. */
    p->pending_count = 0;
    p->job_errors++;
    rb_set_errinfo(Qnil);
  }
}

static VALUE process_pending(VALUE arg) {
  profiler *p = (profiler *)arg;
  process_pending_body(arg);
  p->pending_count = 0;
  return Qnil;
}

static void process_job(void *unused) {
  long i;
  (void)unused;
  for (i = 0; i < RARRAY_LEN(running_profilers); i++) {
    profiler *p =
        rb_check_typeddata(RARRAY_AREF(running_profilers, i), &profiler_type);
    without_sampling(p, process_pending);
  }
}

/* Measures every tracked object again; re-tracks those whose size changed. */
static VALUE refresh_sizes(VALUE arg) {
  profiler *p = (profiler *)arg;
  size_t i;
  process_pending(arg);
  /* Sampling is paused, so nothing is inserted and the table stays where it
   * is; a FREEOBJ meanwhile only turns an entry into a tombstone. */
  for (i = 0; i < p->capacity; i++) {
    entry *e = &p->table[i];
    size_t size;
    if (e->state != TRACKED) continue;
    size = rb_obj_memsize_of(e->object);
    if (size != e->size)
      track(p, e, e->info, size); /* refused: the old size stays */
  }
  return Qnil;
}

/* ---- The Ruby object
 * ---------------------------------------------------------- */

static void profiler_mark(void *ptr) {
  profiler *p = ptr;
  size_t i;
  unsigned j;
  int k;
  rb_gc_mark(p->recorder);
  rb_gc_mark(p->tracepoint);
  rb_gc_mark(p->class_names);
  /* The objects themselves are not marked: sampling must not keep them. */
  for (i = 0; i < p->capacity; i++) {
    if (p->table[i].state == TRACKED) rb_gc_mark(p->table[i].info);
  }
  for (j = 0; j < p->pending_count; j++) {
    rb_gc_mark(p->pending[j].klass);
    for (k = 0; k < p->pending[j].frame_count; k++)
      rb_gc_mark(p->pending[j].frames[k]);
  }
}

static void profiler_free(void *ptr) {
  profiler *p = ptr;
  free(p->table);
  free(p->pending);
  ruby_xfree(p);
}

static size_t profiler_size(const void *ptr) {
  const profiler *p = ptr;
  return sizeof(*p) + p->capacity * sizeof(entry) +
         PENDING_CAPACITY * sizeof(pending_slot);
}

static const rb_data_type_t profiler_type = {
    .wrap_struct_name = "Stackrec::HeapProfiler",
    .function = {.dmark = profiler_mark,
                 .dfree = profiler_free,
                 .dsize = profiler_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE profiler_alloc(VALUE klass) {
  profiler *p;
  VALUE self = TypedData_Make_Struct(klass, profiler, &profiler_type, p);
  p->recorder = Qnil;
  p->tracepoint = Qnil;
  p->class_names = Qnil;
  return self;
}

static profiler *get_profiler(VALUE self) {
  profiler *p;
  TypedData_Get_Struct(self, profiler, &profiler_type, p);
  if (NIL_P(p->recorder))
    rb_raise(srb_eError, "this HeapProfiler was not initialized");
  return p;
}

/* A copy would share the tracepoint and the sampled set. */
static VALUE profiler_initialize_copy(VALUE self, VALUE original) {
  (void)self;
  (void)original;
  rb_raise(rb_eTypeError, "a HeapProfiler cannot be copied");
}

/* _native_initialize(recorder, every, max_frames); see heap_profiler.rb */
static VALUE profiler_initialize(VALUE self, VALUE recorder, VALUE every,
                                 VALUE max_frames) {
  profiler *p;
  TypedData_Get_Struct(self, profiler, &profiler_type, p);
  if (!NIL_P(p->recorder))
    rb_raise(srb_eError, "this HeapProfiler is initialized already");
  p->handle = rb_check_typeddata(recorder, &srb_handle_type);
  if (p->handle->recorder == NULL ||
      RARRAY_LEN(p->handle->type_names) != TYPE_COUNT) {
    rb_raise(rb_eArgError,
             "the HeapProfiler's recorder must declare its %d sample types",
             TYPE_COUNT);
  }
  p->every = (unsigned long)srb_uint64_arg(every, "every");
  if (p->every == 0) rb_raise(rb_eArgError, "every must be at least 1");
  p->max_frames = (int)srb_int64_arg(max_frames, "max_frames");
  if (p->max_frames < 1 || p->max_frames > MAX_FRAMES) {
    rb_raise(rb_eArgError, "max_frames must be in 1..%d, got %d", MAX_FRAMES,
             p->max_frames);
  }
  p->countdown = p->every;
  p->pending = calloc(PENDING_CAPACITY, sizeof(pending_slot));
  if (p->pending == NULL) rb_memerror();
  p->class_names = rb_hash_new();
  rb_funcall(p->class_names, rb_intern("compare_by_identity"), 0);
  p->recorder = recorder;
  p->tracepoint = rb_tracepoint_new(
      Qnil, RUBY_INTERNAL_EVENT_NEWOBJ | RUBY_INTERNAL_EVENT_FREEOBJ, on_event,
      p);
  return self;
}

static VALUE profiler_start(VALUE self) {
  profiler *p = get_profiler(self);
  if (p->running) return Qfalse;
  if (RTEST(rb_funcall(rb_mGC, rb_intern("auto_compact"), 0))) {
    rb_raise(srb_eError,
             "HeapProfiler#start: GC.auto_compact is on, and a moved object "
             "would never leave the heap profile");
  }
  rb_ary_push(running_profilers, self);
  rb_tracepoint_enable(p->tracepoint);
  p->running = true;
  return Qtrue;
}

static VALUE untrack_all(VALUE arg) {
  profiler *p = (profiler *)arg;
  size_t i;
  for (i = 0; i < p->capacity; i++) {
    entry *e = &p->table[i];
    if (e->state == TRACKED &&
        stackrec_recorder_untrack(p->handle->recorder, (uint64_t)e->object) !=
            STACKREC_OK) {
      p->untrack_failures++;
    }
  }
  free(p->table);
  p->table = NULL;
  p->capacity = p->used = p->live = 0;
  p->pending_count = 0;
  return Qnil;
}

/* stop: no more sampling; the allocations recorded so far stay for the
 * next serialize, and the tracked objects leave the heap profile. */
static VALUE profiler_stop(VALUE self) {
  profiler *p = get_profiler(self);
  if (!p->running) return Qfalse;
  without_sampling(p, process_pending);
  rb_tracepoint_disable(p->tracepoint);
  p->running = false;
  rb_ary_delete(running_profilers, self);
  without_sampling(p, untrack_all);
  return Qtrue;
}

static VALUE profiler_running(VALUE self) {
  return get_profiler(self)->running ? Qtrue : Qfalse;
}

/* flush: records the sampled allocations now rather than at the next safe
 * point. */
static VALUE profiler_flush(VALUE self) {
  profiler *p = get_profiler(self);
  without_sampling(p, process_pending);
  return self;
}

/* _serialize(options): flush, measure, then serialize the recorder. */
static VALUE profiler_serialize(VALUE self, VALUE options) {
  profiler *p = get_profiler(self);
  without_sampling(p, refresh_sizes);
  return srb_serialize(p->recorder, options);
}

/* In a fork child: the recorder forgets what it tracked, and so does this. */
static VALUE profiler_reset_after_fork(VALUE self) {
  profiler *p = get_profiler(self);
  rb_funcall(p->recorder, rb_intern("reset_after_fork"), 0);
  free(p->table);
  p->table = NULL;
  p->capacity = p->used = p->live = 0;
  p->pending_count = 0;
  return self;
}

static VALUE profiler_native_stats(VALUE self) {
  profiler *p = get_profiler(self);
  VALUE hash = rb_hash_new();
#define STAT(field) \
  rb_hash_aset(hash, ID2SYM(rb_intern(#field)), ULL2NUM(p->field))
  STAT(sampled);
  STAT(dropped);
  STAT(freed_before_tracked);
  STAT(track_failures);
  STAT(untrack_failures);
  STAT(job_errors);
#undef STAT
  rb_hash_aset(hash, ID2SYM(rb_intern("live_objects")), ULL2NUM(p->live));
  return hash;
}

/* At exit, before Ruby frees every object (and the recorder with them):
 * no FREEOBJ hook may then reach a freed recorder. */
static void stop_all_at_exit(VALUE unused) {
  (void)unused;
  while (RARRAY_LEN(running_profilers) > 0) {
    profiler_stop(RARRAY_AREF(running_profilers, 0));
  }
}

void srb_init_heap_profiler(VALUE module) {
  VALUE c = rb_define_class_under(module, "HeapProfiler", rb_cObject);
  running_profilers = rb_ary_new();
  rb_gc_register_address(&running_profilers);
  rb_set_end_proc(stop_all_at_exit, Qnil);
  rb_define_alloc_func(c, profiler_alloc);
  rb_define_method(c, "initialize_copy", profiler_initialize_copy, 1);
  rb_define_private_method(c, "_native_initialize", profiler_initialize, 3);
  rb_define_private_method(c, "_serialize", profiler_serialize, 1);
  rb_define_private_method(c, "_native_stats", profiler_native_stats, 0);
  rb_define_method(c, "start", profiler_start, 0);
  rb_define_method(c, "stop", profiler_stop, 0);
  rb_define_method(c, "running?", profiler_running, 0);
  rb_define_method(c, "flush", profiler_flush, 0);
  rb_define_method(c, "reset_after_fork", profiler_reset_after_fork, 0);
}
