# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""stackrec from Python, through ctypes: no compiler needed.

    import stackrec

    recorder = stackrec.Recorder([("cpu-time", "nanoseconds"), ("cpu-samples", "count")])
    recorder.record(
        [("Users.show", "app/users.py", 12), ("<module>", "app.py", 1)],  # leaf first
        [10_000_000, 1],                                                 # one per type
        {"thread id": 7, "thread name": "worker-1"},
    )
    start_ns, end_ns, pprof = recorder.serialize()  # gzip'd pprof bytes

The library is $STACKREC_LIBRARY if that is set, else libstackrec.so.<major>
wherever the dynamic loader finds it (LD_LIBRARY_PATH, the system).

ctypes releases the GIL for the length of every foreign call, so threads
really do record at once, also while another thread serializes: that is the
concurrency include/stackrec/stackrec.h promises for a recorder.

Errors: a call stackrec refuses raises InvalidArgumentError (a ValueError)
or another stackrec.Error, with stackrec_last_error()'s message. Python
values of the wrong type raise TypeError before stackrec is called.
"""

import ctypes
import os

ABI_MAJOR = 1  # the SONAME's number; a new major is a new ABI

_library = ctypes.CDLL(os.environ.get("STACKREC_LIBRARY") or f"libstackrec.so.{ABI_MAJOR}")

# ---- The C types, field for field as in stackrec.h ------------------------
#
# ctypes cannot read the header, so these mirror it by hand, and a field the
# header gains must be added here too (the library would read or write past
# a structure that is too short). test_structures_match_the_header compares
# every size and offset with abi_layout.c, compiled against the header.

c_int64, c_uint64, c_size_t = ctypes.c_int64, ctypes.c_uint64, ctypes.c_size_t


class _Str(ctypes.Structure):
    # ptr is a c_char_p so that ctypes keeps the bytes it points into alive
    # (in the structure's _objects) for as long as the structure lives.
    _fields_ = [("ptr", ctypes.c_char_p), ("len", c_size_t)]


class _ValueType(ctypes.Structure):
    _fields_ = [("type", _Str), ("unit", _Str)]


class _Mapping(ctypes.Structure):
    _fields_ = [("memory_start", c_uint64), ("memory_limit", c_uint64),
                ("file_offset", c_uint64), ("filename", _Str), ("build_id", _Str)]


class _Function(ctypes.Structure):
    _fields_ = [("name", _Str), ("system_name", _Str), ("filename", _Str),
                ("start_line", c_int64)]


class _Location(ctypes.Structure):
    _fields_ = [("mapping", _Mapping), ("function", _Function),
                ("address", c_uint64), ("line", c_int64), ("inlined", ctypes.c_bool)]


class _Label(ctypes.Structure):
    _fields_ = [("key", _Str), ("str", _Str), ("num", c_int64), ("num_unit", _Str)]


class _Link(ctypes.Structure):
    _fields_ = [("trace_id", ctypes.c_uint8 * 16), ("span_id", ctypes.c_uint8 * 8)]


class _Sample(ctypes.Structure):
    _fields_ = [("locations", ctypes.POINTER(_Location)), ("locations_len", c_size_t),
                ("values", ctypes.POINTER(c_int64)), ("values_len", c_size_t),
                ("labels", ctypes.POINTER(_Label)), ("labels_len", c_size_t),
                ("timestamp_ns", c_int64), ("link", ctypes.POINTER(_Link))]


class _InternedLocation(ctypes.Structure):
    _fields_ = [("mapping_id", ctypes.c_uint32), ("function_id", ctypes.c_uint32),
                ("address", c_uint64), ("line", c_int64), ("inlined", ctypes.c_bool)]


class _IdSample(ctypes.Structure):
    _fields_ = [("stack_id", ctypes.c_uint32),
                ("location_ids", ctypes.POINTER(ctypes.c_uint32)), ("location_ids_len", c_size_t),
                ("values", ctypes.POINTER(c_int64)), ("values_len", c_size_t),
                ("labels", ctypes.POINTER(_Label)), ("labels_len", c_size_t),
                ("timestamp_ns", c_int64), ("labels_id", ctypes.c_uint32),
                ("link", ctypes.POINTER(_Link))]


class _ProfileOptions(ctypes.Structure):
    _fields_ = [("sample_types", ctypes.POINTER(_ValueType)), ("sample_types_len", c_size_t),
                ("period_type", _ValueType), ("period", c_int64),
                ("sample_types_enabled", ctypes.POINTER(ctypes.c_bool)),
                ("max_frames", c_size_t), ("max_memory_bytes", c_size_t),
                ("max_output_bytes", c_size_t),
                ("default_sample_type", _Str),
                ("comments", ctypes.POINTER(_Str)), ("comments_len", c_size_t),
                ("drop_frames", _Str), ("keep_frames", _Str),
                ("live_heap_types", ctypes.POINTER(c_size_t)), ("live_heap_types_len", c_size_t),
                ("max_tracked_objects", c_size_t)]


class _Attribute(ctypes.Structure):
    _fields_ = [("key", _Str), ("value", _Str)]


class _SerializeOptions(ctypes.Structure):
    _fields_ = [("compression", ctypes.c_int), ("level", ctypes.c_int), ("format", ctypes.c_int),
                ("service_name", _Str),
                ("resource_attributes", ctypes.POINTER(_Attribute)),
                ("resource_attributes_len", c_size_t),
                ("scope_name", _Str), ("scope_version", _Str),
                ("part_max_bytes", c_size_t), ("part_max_uncompressed_bytes", c_size_t),
                ("part_max_samples", c_size_t), ("max_parts", c_size_t),
                ("compress_threads", ctypes.c_int)]


class _Stats(ctypes.Structure):
    _fields_ = [("last_samples_recorded", c_uint64), ("last_distinct_keys", c_uint64),
                ("last_serialize_ns", c_int64),
                ("serializations_ok", c_uint64), ("serializations_failed", c_uint64),
                ("serialize_ns_min", c_int64), ("serialize_ns_max", c_int64),
                ("serialize_ns_total", c_int64),
                ("samples_recorded", c_uint64), ("records_rejected", c_uint64),
                ("samples_truncated", c_uint64), ("samples_over_memory", c_uint64),
                ("samples_left_out_of_output", c_uint64),
                ("objects_tracked", c_uint64), ("objects_not_tracked", c_uint64)]


_status = ctypes.c_int
_recorder_p = ctypes.c_void_p
_encoded_p = ctypes.c_void_p


def _declare(name, restype, *argtypes):
    function = getattr(_library, "stackrec_" + name)
    function.restype = restype
    function.argtypes = argtypes
    return function


def _declare_sized(name, restype, struct, *argtypes):
    """A call that passes a growable struct: binds stackrec_<name>_sized and
    appends the size of the layout declared here, as the C header's inline
    functions append sizeof of theirs."""
    function = _declare(name + "_sized", restype, *argtypes, c_size_t)
    size = ctypes.sizeof(struct)
    return lambda *args: function(*args, size)


_version_number = _declare("version_number", ctypes.c_int)
_status_name = _declare("status_name", ctypes.c_char_p, _status)
_last_error = _declare("last_error", ctypes.c_char_p)
_recorder_new = _declare_sized("recorder_new", _status, _ProfileOptions,
                               ctypes.POINTER(_ProfileOptions), ctypes.POINTER(_recorder_p))
_recorder_record = _declare_sized("recorder_record", _status, _Sample, _recorder_p,
                                  ctypes.POINTER(_Sample))
_recorder_track = _declare_sized("recorder_track", _status, _Sample, _recorder_p, c_uint64,
                                 ctypes.POINTER(_Sample))
_recorder_untrack = _declare("recorder_untrack", _status, _recorder_p, c_uint64)
_recorder_intern_function = _declare("recorder_intern_function", _status, _recorder_p,
                                     ctypes.POINTER(_Function), ctypes.POINTER(ctypes.c_uint32))
_recorder_intern_location = _declare("recorder_intern_location", _status, _recorder_p,
                                     ctypes.POINTER(_InternedLocation),
                                     ctypes.POINTER(ctypes.c_uint32))
_recorder_intern_stack = _declare("recorder_intern_stack", _status, _recorder_p,
                                  ctypes.POINTER(ctypes.c_uint32), c_size_t,
                                  ctypes.POINTER(ctypes.c_uint32))
_recorder_intern_labels = _declare("recorder_intern_labels", _status, _recorder_p,
                                   ctypes.POINTER(_Label), c_size_t,
                                   ctypes.POINTER(ctypes.c_uint32))
_recorder_record_ids = _declare_sized("recorder_record_ids", _status, _IdSample, _recorder_p,
                                      ctypes.POINTER(_IdSample))
_recorder_forget_ids = _declare("recorder_forget_ids", _status, _recorder_p)
_recorder_record_endpoint = _declare("recorder_record_endpoint", _status,
                                     _recorder_p, c_uint64, _Str)
_recorder_serialize = _declare_sized("recorder_serialize", _status, _SerializeOptions,
                                     _recorder_p, ctypes.POINTER(_SerializeOptions),
                                     ctypes.POINTER(_encoded_p))
_recorder_reset_after_fork = _declare("recorder_reset_after_fork", _status, _recorder_p)
_recorder_stats = _declare_sized("recorder_stats", _status, _Stats, _recorder_p,
                                 ctypes.POINTER(_Stats))
_recorder_free = _declare("recorder_free", None, _recorder_p)
_encoded_data = _declare("encoded_data", ctypes.POINTER(ctypes.c_uint8), _encoded_p)
_encoded_size = _declare("encoded_size", c_size_t, _encoded_p)
_encoded_start_ns = _declare("encoded_start_ns", c_int64, _encoded_p)
_encoded_end_ns = _declare("encoded_end_ns", c_int64, _encoded_p)
_encoded_free = _declare("encoded_free", None, _encoded_p)

# ---- Errors -------------------------------------------------------------------


class Error(Exception):
    """A stackrec call failed; .status is the stackrec_status name."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


class InvalidArgumentError(Error, ValueError):
    """STACKREC_INVALID_ARGUMENT: an argument broke the header's rules."""


class BusyError(Error):
    """STACKREC_BUSY: another thread is serializing this recorder."""


_ERRORS = {1: InvalidArgumentError, 4: BusyError}


def _check(status):
    if status != 0:
        # stackrec_last_error() is this thread's, and ctypes made the call on
        # this thread, so it is the message for this status.
        message = _last_error().decode("utf-8", "replace")
        raise _ERRORS.get(status, Error)(_status_name(status).decode(), message)


# ---- Conversion ---------------------------------------------------------------


def _bytes(value, what):
    # Bytes pass as they are (stackrec checks that they are UTF-8).
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")


def _str(value, what):
    data = _bytes(value, what)
    return _Str(data, len(data))


def _int(value, what, low=-2**63, high=2**63 - 1):
    # ctypes would silently wrap an int that does not fit.
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise OverflowError(f"{what} must be in {low}..{high}, not {value}")
    return value


COMPRESSIONS = {"gzip": 0, "none": 1, "zstd": 2}
FORMATS = {"pprof": 0, "otlp": 1}


def version_number():
    """The STACKREC_VERSION_NUMBER the loaded library was built with."""
    return _version_number()


def _frames(frames):
    """frames [(name, filename, line), ...] checked and converted:
    [(name _Str, filename _Str, line int)]."""
    out = []
    for i, frame in enumerate(frames):
        if not isinstance(frame, (tuple, list)) or len(frame) != 3:
            raise TypeError(f"frames[{i}] must be (name, filename, line), not {frame!r}")
        name, filename, line = frame
        out.append((_str(name, f"frames[{i}] name"), _str(filename, f"frames[{i}] filename"),
                    _int(line, f"frames[{i}] line")))
    return out


def _values_and_labels(values, labels):
    """(values array, its length, labels array, its length) for one int value
    per sample type and labels {key: str or int}."""
    values = [_int(v, f"values[{i}]") for i, v in enumerate(values)]
    value_array = (c_int64 * len(values))(*values)
    labels = dict(labels or {})
    label_array = (_Label * len(labels))()
    for i, (key, value) in enumerate(labels.items()):
        label_array[i].key = _str(key, "label key")
        if isinstance(value, (str, bytes)):
            label_array[i].str = _str(value, f"label {key!r}")
        else:
            label_array[i].num = _int(value, f"label {key!r}")
    return value_array, len(values), label_array, len(labels)


def _sample(frames, values, labels, timestamp_ns):
    """A _Sample for frames [(name, filename, line), ...], one int value per
    sample type, labels {key: str or int}."""
    frames = _frames(frames)
    locations = (_Location * len(frames))()
    for i, (name, filename, line) in enumerate(frames):
        locations[i].function.name = name
        locations[i].function.filename = filename
        locations[i].line = line
    # The arrays stay alive as fields of the returned structure.
    return _Sample(locations, len(frames), *_values_and_labels(values, labels),
                   _int(timestamp_ns, "timestamp_ns"))


class Recorder:
    """A stackrec_recorder: record from any number of threads, serialize from
    one. close() (or leaving a `with` block) must not overlap other calls."""

    def __init__(self, sample_types, enabled=None, live_heap_types=None, max_tracked_objects=0):
        """sample_types: [(type, unit), ...]; enabled: None (all) or one bool
        per type; a disabled type is left out of the output. live_heap_types:
        the indexes of the sample types tracked objects carry (see track)."""
        sample_types = list(sample_types)
        types = (_ValueType * len(sample_types))(
            *(_ValueType(_str(t, f"sample_types[{i}] type"), _str(u, f"sample_types[{i}] unit"))
              for i, (t, u) in enumerate(sample_types)))
        options = _ProfileOptions()
        options.sample_types = types
        options.sample_types_len = len(sample_types)
        if enabled is not None:
            enabled = [bool(e) for e in enabled]
            if len(enabled) != len(sample_types):
                raise ValueError(f"enabled has {len(enabled)} flags for {len(sample_types)} sample types")
            options.sample_types_enabled = (ctypes.c_bool * len(enabled))(*enabled)
        if live_heap_types is not None:
            heap = [_int(t, f"live_heap_types[{i}]", 0, 2**63 - 1) for i, t in enumerate(live_heap_types)]
            options.live_heap_types = (c_size_t * len(heap))(*heap)
            options.live_heap_types_len = len(heap)
        options.max_tracked_objects = _int(max_tracked_objects, "max_tracked_objects", 0, 2**63 - 1)
        self._handle = _recorder_p()
        _check(_recorder_new(ctypes.byref(options), ctypes.byref(self._handle)))
        self.sample_types = sample_types

    def _live_handle(self):
        if not self._handle:
            raise ValueError("this Recorder is closed")
        return self._handle

    def record(self, frames, values, labels=None, timestamp_ns=0):
        """frames: [(function name, filename, line), ...], leaf first.
        values: one int per sample type. labels: {key: str or int}."""
        sample = _sample(frames, values, labels, timestamp_ns)
        _check(_recorder_record(self._live_handle(), ctypes.byref(sample)))

    def intern_stack(self, frames):
        """Interns frames [(name, filename, line), ...], leaf first, once:
        returns a stack id for record_stack, which then costs a fraction of
        record (no strings to read). The id stays valid, in both slots and
        across serializations, until forget_ids; interning equal frames
        again gives the same id. Keep ids in a dict keyed by what identifies
        the stack in your runtime."""
        frames = _frames(frames)
        location_ids = (ctypes.c_uint32 * len(frames))()
        for i, (name, filename, line) in enumerate(frames):
            location = _InternedLocation(line=line)
            if name.len or filename.len:  # else no function, and no address: refused
                function = _Function(name=name, filename=filename)
                function_id = ctypes.c_uint32()
                _check(_recorder_intern_function(self._live_handle(), ctypes.byref(function),
                                                 ctypes.byref(function_id)))
                location.function_id = function_id.value
            location_id = ctypes.c_uint32()
            _check(_recorder_intern_location(self._live_handle(), ctypes.byref(location),
                                             ctypes.byref(location_id)))
            location_ids[i] = location_id.value
        stack_id = ctypes.c_uint32()
        _check(_recorder_intern_stack(self._live_handle(), location_ids, len(frames),
                                      ctypes.byref(stack_id)))
        return stack_id.value

    def intern_labels(self, labels):
        """Interns labels {key: str or int} once: returns an id to pass as
        record_stack's labels (a thread's labels, a request's), valid as
        intern_stack's ids are."""
        _, _, label_array, count = _values_and_labels([], labels)
        labels_id = ctypes.c_uint32()
        _check(_recorder_intern_labels(self._live_handle(), label_array, count,
                                       ctypes.byref(labels_id)))
        return labels_id.value

    def record_stack(self, stack_id, values, labels=None, timestamp_ns=0):
        """record, with the frames of intern_stack's `stack_id`; labels are
        {key: str or int} or an id from intern_labels."""
        stack_id = _int(stack_id, "stack_id", 1, 2**32 - 1)
        labels_id = 0
        if isinstance(labels, int):
            labels_id, labels = _int(labels, "labels", 1, 2**32 - 1), None
        sample = _IdSample(stack_id, None, 0, *_values_and_labels(values, labels),
                           _int(timestamp_ns, "timestamp_ns"), labels_id)
        _check(_recorder_record_ids(self._live_handle(), ctypes.byref(sample)))

    def forget_ids(self):
        """Frees what intern_stack and intern_labels interned; their ids are
        refused from now on (what was recorded stays). For a process whose
        code keeps changing: forget now and then and intern what is still
        live again."""
        _check(_recorder_forget_ids(self._live_handle()))

    def track(self, object_id, frames, values, labels=None):
        """Remembers a live object (e.g. id(obj)) allocated at `frames`; every
        serialize adds it, until untrack, with its values at live_heap_types
        (the other values must be 0)."""
        sample = _sample(frames, values, labels, 0)
        _check(_recorder_track(self._live_handle(), _int(object_id, "object_id", 0, 2**64 - 1),
                               ctypes.byref(sample)))

    def untrack(self, object_id):
        """The object was freed; nothing happens if it is not tracked."""
        _check(_recorder_untrack(self._live_handle(), _int(object_id, "object_id", 0, 2**64 - 1)))

    def record_endpoint(self, local_root_span_id, endpoint):
        """Samples whose numeric label "local root span id" is this one get
        the string label "trace endpoint"."""
        span = _int(local_root_span_id, "local_root_span_id", 0, 2**64 - 1)
        _check(_recorder_record_endpoint(self._live_handle(), span, _str(endpoint, "endpoint")))

    def serialize(self, compression="gzip", level=0, format="pprof", service_name=""):
        """Everything recorded since the previous serialize (or creation),
        as (start_ns, end_ns, bytes): pprof, or with format="otlp" an
        OpenTelemetry profiles request naming service_name; raises BusyError
        if another thread is serializing."""
        if compression not in COMPRESSIONS:
            raise ValueError(f"compression must be one of {sorted(COMPRESSIONS)}, not {compression!r}")
        if format not in FORMATS:
            raise ValueError(f"format must be one of {sorted(FORMATS)}, not {format!r}")
        name = _str(service_name, "service_name")
        options = _SerializeOptions(COMPRESSIONS[compression], _int(level, "level"), FORMATS[format],
                                    name)
        encoded = _encoded_p()
        _check(_recorder_serialize(self._live_handle(), ctypes.byref(options), ctypes.byref(encoded)))
        try:
            data = ctypes.string_at(_encoded_data(encoded), _encoded_size(encoded))
            return _encoded_start_ns(encoded), _encoded_end_ns(encoded), data
        finally:
            _encoded_free(encoded)

    def reset_after_fork(self):
        """In a fork child, before anything else: the recorder becomes empty."""
        _check(_recorder_reset_after_fork(self._live_handle()))

    def stats(self):
        stats = _Stats()
        _check(_recorder_stats(self._live_handle(), ctypes.byref(stats)))
        return {name: getattr(stats, name) for name, _ in _Stats._fields_}

    def close(self):
        handle, self._handle = self._handle, _recorder_p()
        if handle:
            _recorder_free(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None):
            self.close()
