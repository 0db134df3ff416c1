# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""Profile and Recorder: the library's two handles, with the calls they
share written once in _Handle.

The handles differ in what may overlap, so each guards itself its own way:
- A stackrec_profile is single-threaded in C, so Profile holds a lock for
  each call: Python threads may share one, and their calls take turns.
- A stackrec_recorder takes records from any number of threads while one
  serializes, and samplers must not wait for the serializer, so Recorder
  holds no lock across a call. Only free (close) and reset_after_fork must
  overlap nothing; a count of the calls under way lets close wait for them
  and refuse new ones, so a recorder closed by one thread while another
  records is never used after its free.
"""

from __future__ import annotations

import ctypes
import datetime
import threading
from typing import Any, Callable, Iterable, Mapping as MappingType, Sequence, cast

from . import _convert as convert, _native as c
from .data import (EncodeStats, FoldReason, Frame, Function, Labels, Location, Mapping, Part,
                   SampleType, Serialized, Stats, TraceLink, Values)
from .errors import check, error_for


class _Encoded:
    """Owns a stackrec_encoded handle: freed when the Serialized that holds
    it is collected (a tuple subclass cannot be weakly referenced, so the
    Serialized holds this instead of a finalizer)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __del__(self) -> None:
        c.encoded_free(self.handle)


def _read_encoded(encoded: Any) -> Serialized:
    """Copies everything out of a stackrec_encoded (the caller frees it)."""
    data = ctypes.string_at(c.encoded_data(encoded), c.encoded_size(encoded))
    parts = []
    for index in range(c.encoded_parts_len(encoded)):
        part = c.Part()
        check(c.encoded_part(encoded, index, ctypes.byref(part)))
        parts.append(Part(ctypes.string_at(part.data, part.size), part.samples_written,
                          part.uncompressed_bytes))
    counts = {}
    for index in range(c.encoded_endpoint_counts_len(encoded)):
        endpoint, count = c.StrView(), ctypes.c_int64()
        check(c.encoded_endpoint_count(encoded, index, ctypes.byref(endpoint), ctypes.byref(count)))
        counts[ctypes.string_at(endpoint.ptr, endpoint.len).decode("utf-8")] = count.value
    raw = c.EncodeStats()
    check(c.encoded_stats(encoded, ctypes.byref(raw)))
    stats: dict[str, Any] = {name: getattr(raw, name) for name, _ in c.EncodeStats._fields_}
    stats["folded_because"] = FoldReason(stats["folded_because"])
    return Serialized(c.encoded_start_ns(encoded), c.encoded_end_ns(encoded), data, parts, counts,
                      cast(EncodeStats, stats))


class _Handle:
    """What a profile and a recorder share: options, interning, upscaling,
    endpoint counts, serialize and close. Subclasses say how a call is
    guarded (_call) and which C functions they are (_c)."""

    _c: c.Calls
    sample_types: list[tuple[Any, Any]]
    _type_names: list[str]

    def __init__(self, sample_types: Iterable[SampleType], enabled: Sequence[bool] | MappingType[str, bool] | None,
                 live_heap_types: Iterable[int | str] | None, max_tracked_objects: int, *,
                 period_type: SampleType | None, period: int, max_frames: int,
                 max_memory_bytes: int, max_output_bytes: int, default_sample_type: str | None,
                 comments: Iterable[str | bytes], drop_frames: str | bytes,
                 keep_frames: str | bytes) -> None:
        self._handle = c.handle_t()  # NULL until created: close and __del__ see nothing to free
        types = convert.sample_types(sample_types)
        options = convert.profile_options(
            types, enabled, period_type, period, max_frames, max_memory_bytes, max_output_bytes,
            default_sample_type, comments, drop_frames, keep_frames, live_heap_types,
            max_tracked_objects)
        handle = c.handle_t()
        check(self._c.new(ctypes.byref(options), ctypes.byref(handle)))
        self._handle = handle
        self.sample_types = types
        self._type_names = [convert.type_name(t, "") for t, _ in types]

    def _call(self, function: Callable[..., int], *args: Any) -> None:
        raise NotImplementedError

    def _intern(self, function: Callable[..., int], *args: Any) -> int:
        out = ctypes.c_uint32()
        self._call(function, *args, ctypes.byref(out))
        return out.value

    # ---- Recording by id -----------------------------------------------

    def intern_mapping(self, mapping: Mapping) -> int:
        """Interns a binary (not all zero) once: its id, for intern_location."""
        return self._intern(self._c.intern_mapping, ctypes.byref(convert.mapping(mapping, "mapping")))

    def intern_function(self, function: Function) -> int:
        """Interns a function (not all empty) once: its id, for intern_location."""
        return self._intern(self._c.intern_function,
                            ctypes.byref(convert.function(function, "function")))

    def intern_location(self, *, function_id: int = 0, mapping_id: int = 0, address: int = 0,
                        line: int = 0, inlined: bool = False) -> int:
        """Interns a location of interned parts (0: none): its id, for intern_stack."""
        location = c.InternedLocation(
            convert.to_int(mapping_id, "mapping_id", (0, 2**32 - 1)),
            convert.to_int(function_id, "function_id", (0, 2**32 - 1)),
            convert.to_int(address, "address", convert.UINT64), convert.to_int(line, "line"),
            convert.to_bool(inlined, "inlined"))
        return self._intern(self._c.intern_location, ctypes.byref(location))

    def _intern_frame(self, frame: Location) -> int:
        function_id = mapping_id = 0
        if frame.function is not None and frame.function != Function():
            function_id = self.intern_function(frame.function)
        if frame.mapping is not None and frame.mapping != Mapping():
            mapping_id = self.intern_mapping(frame.mapping)
        return self.intern_location(function_id=function_id, mapping_id=mapping_id,
                                    address=frame.address, line=frame.line, inlined=frame.inlined)

    def intern_stack(self, frames: Iterable[Frame | int]) -> int:
        """Interns a stack, leaf first, once: its id, for record_ids, which
        then reads no frame string per sample. Frames are (name, filename,
        line) tuples or Locations (each interned on the way), or ids from
        intern_location. Ids stay valid across serializations until
        forget_ids; interning equal frames again gives the same id."""
        ids = []
        for i, frame in enumerate(frames):
            if isinstance(frame, int) and not isinstance(frame, bool):
                ids.append(convert.to_int(frame, f"frames[{i}]", convert.ID))
            else:
                ids.append(self._intern_frame(convert.frame(frame, f"frames[{i}]")))
        array = (ctypes.c_uint32 * len(ids))(*ids)
        return self._intern(self._c.intern_stack, array, len(ids))

    def intern_labels(self, labels: Labels) -> int:
        """Interns labels {key: str, int or NumLabel} once: an id to pass as
        record_ids' labels, valid as intern_stack's ids are."""
        array, count = convert.labels(labels)
        return self._intern(self._c.intern_labels, array, count)

    def forget_ids(self) -> None:
        """Frees what the intern_* calls interned; their ids are refused from
        now on (what was recorded stays). For a process whose code keeps
        changing: forget now and then, and intern what is still live again."""
        self._call(self._c.forget_ids)

    def _add_ids(self, stack: int | Sequence[int], values: Values, labels: Labels | int | None,
                 timestamp_ns: int, timestamp: datetime.datetime | None,
                 link: TraceLink | None = None) -> None:
        sample = convert.id_sample(stack, values, labels, convert.timestamp_ns(timestamp_ns, timestamp),
                                   self._type_names, link)
        self._call(self._c.add_ids, ctypes.byref(sample))

    # ---- Endpoints and upscaling -----------------------------------------

    def add_endpoint_count(self, endpoint: str | bytes, value: int = 1) -> None:
        """Adds `value` to the hits of `endpoint` (saturating); they come back
        in Serialized.endpoint_counts."""
        self._call(self._c.add_endpoint_count, convert.to_str(endpoint, "endpoint"),
                   convert.to_int(value, "value"))

    def add_upscaling_rule(self, kind: str, values: Iterable[int | str], *,
                           label: tuple[str | bytes, str | bytes | int] | None = None,
                           total_sampled: int = 0, total_real: int = 0,
                           sum_value: int | str = 0, count_value: int | str = 0,
                           sampling_distance: int = 0) -> None:
        """Scales `values` (sample types by index or name) of every sample, or
        of those with `label` (key, value), by every later serialize.
        "proportional": by total_real / total_sampled. "poisson": from each
        sample's own sum_value and count_value, sampled every
        sampling_distance units (docs/format.md#upscaling)."""
        rule = convert.upscaling_rule(kind, values, label, total_sampled, total_real, sum_value,
                                      count_value, sampling_distance, self._type_names)
        self._call(self._c.add_upscaling_rule, ctypes.byref(rule))

    # ---- Serializing -------------------------------------------------------

    def serialize(self, compression: str = "gzip", level: int = 0, format: str = "pprof",
                  service_name: str | bytes = "", *,
                  resource_attributes: MappingType[str, str] | Iterable[tuple[str, str]] | None = None,
                  scope_name: str | bytes = "", scope_version: str | bytes = "",
                  part_max_bytes: int = 0, part_max_uncompressed_bytes: int = 0,
                  part_max_samples: int = 0, max_parts: int = 0,
                  compress_threads: int = 0, target: str = "any",
                  series_labels: Iterable[str | bytes] = ()) -> Serialized:
        """The profile as (start_ns, end_ns, data), a Serialized that also has
        .parts, .endpoint_counts, .stats and .start/.end as UTC datetimes.
        compression "gzip", "zstd" or "none" (level 0: the default);
        format "pprof" or "otlp" (an OpenTelemetry profiles request naming
        service_name and the resource attributes). The part_* and
        max_parts budgets split the output into parts that each fit. target
        "pyroscope" writes Pyroscope's type and label names, with
        series_labels the string label keys it makes series of
        (docs/exporting.md); Exporter.serialize_options(protocol) gives what
        each backend keeps."""
        options = convert.serialize_options(
            compression, level, format, service_name, resource_attributes, scope_name,
            scope_version, part_max_bytes, part_max_uncompressed_bytes, part_max_samples,
            max_parts, compress_threads, target, series_labels)
        encoded = c.handle_t()
        self._call(self._c.serialize, ctypes.byref(options), ctypes.byref(encoded))
        try:
            serialized = _read_encoded(encoded)
        except BaseException:
            c.encoded_free(encoded)
            raise
        # The handle lives as long as the Serialized, so that an Exporter
        # can send it (stackrec_exporter_send takes the handle).
        serialized._encoded = _Encoded(encoded)
        return serialized

    # ---- Lifetime ----------------------------------------------------------

    def close(self) -> None:
        """Frees the handle; later calls raise ValueError. Closing twice is fine."""
        raise NotImplementedError

    def __enter__(self) -> _Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self.close()


class Profile(_Handle):
    """A stackrec_profile: one aggregate that only grows until reset.
    Calls take turns on a lock, so threads may share one; for samplers on
    several threads with a serializer, Recorder is the faster choice."""

    _c = c.profile_calls

    def __init__(self, sample_types: Iterable[SampleType],
                 enabled: Sequence[bool] | MappingType[str, bool] | None = None, *,
                 period_type: SampleType | None = None, period: int = 0, max_frames: int = 0,
                 max_memory_bytes: int = 0, max_output_bytes: int = 0,
                 default_sample_type: str | None = None, comments: Iterable[str | bytes] = (),
                 drop_frames: str | bytes = "", keep_frames: str | bytes = "") -> None:
        """sample_types: [(type, unit), ...]; enabled: a flag per type or
        {type: flag} (a disabled type's values are still passed, and left
        out of the output). The rest are stackrec_profile_options' fields,
        0 or empty for their defaults (docs/limits.md)."""
        self._lock = threading.Lock()
        super().__init__(sample_types, enabled, None, 0, period_type=period_type, period=period,
                         max_frames=max_frames, max_memory_bytes=max_memory_bytes,
                         max_output_bytes=max_output_bytes,
                         default_sample_type=default_sample_type, comments=comments,
                         drop_frames=drop_frames, keep_frames=keep_frames)

    def _call(self, function: Callable[..., int], *args: Any) -> None:
        with self._lock:
            if not self._handle:
                raise ValueError("this Profile is closed")
            status = function(self._handle, *args)
            if status != 0:
                # Read under the lock, on this thread: the message of this call.
                raise error_for(status)

    def add(self, frames: Iterable[Frame], values: Values, labels: Labels | None = None,
            timestamp_ns: int = 0, *, timestamp: datetime.datetime | None = None,
            link: TraceLink | None = None) -> None:
        """Adds one sample. frames: leaf first, each (function name, filename,
        line) or a Location. values: one int per sample type, or {type: int}.
        labels: {key: str, int or NumLabel}. A timestamp (nanoseconds, or an
        aware datetime) keeps the sample on its own. link: the trace and span
        it ran under (a TraceLink)."""
        sample = convert.sample(frames, values, labels, convert.timestamp_ns(timestamp_ns, timestamp),
                                self._type_names, link)
        self._call(self._c.add, ctypes.byref(sample))

    def add_ids(self, stack: int | Sequence[int], values: Values,
                labels: Labels | int | None = None, timestamp_ns: int = 0, *,
                timestamp: datetime.datetime | None = None,
                link: TraceLink | None = None) -> None:
        """add, by id: `stack` an id from intern_stack or a list of ids from
        intern_location; labels {key: value} or an id from intern_labels."""
        self._add_ids(stack, values, labels, timestamp_ns, timestamp, link)

    def set_endpoint(self, local_root_span_id: int, endpoint: str | bytes) -> None:
        """Samples whose numeric label "local root span id" is this one get
        the string label "trace endpoint"; the last call for a span wins."""
        self._call(self._c.record_endpoint,
                   convert.to_int(local_root_span_id, "local_root_span_id", convert.UINT64),
                   convert.to_str(endpoint, "endpoint"))

    def reset(self) -> None:
        """Drops every sample and endpoint; the interval starts again now.
        Upscaling rules and interned ids stay."""
        self._call(self._c.reset)

    def close(self) -> None:
        with self._lock:
            handle, self._handle = self._handle, c.handle_t()
        if handle:
            self._c.free(handle)


class Recorder(_Handle):
    """A stackrec_recorder: record from any number of threads while one
    thread serializes; serialize returns what was recorded since the
    previous one, and consecutive profiles tile time."""

    _c = c.recorder_calls

    def __init__(self, sample_types: Iterable[SampleType],
                 enabled: Sequence[bool] | MappingType[str, bool] | None = None,
                 live_heap_types: Iterable[int | str] | None = None, max_tracked_objects: int = 0,
                 *, period_type: SampleType | None = None, period: int = 0, max_frames: int = 0,
                 max_memory_bytes: int = 0, max_output_bytes: int = 0,
                 default_sample_type: str | None = None, comments: Iterable[str | bytes] = (),
                 drop_frames: str | bytes = "", keep_frames: str | bytes = "") -> None:
        """As Profile; live_heap_types (indexes or names of sample types) are
        the values a tracked object carries (see track), and
        max_tracked_objects caps how many are tracked at once (0: 1 << 22)."""
        self._guard = threading.Condition()
        self._calls = 0  # calls under way, each outside the guard's lock
        super().__init__(sample_types, enabled, live_heap_types, max_tracked_objects,
                         period_type=period_type, period=period, max_frames=max_frames,
                         max_memory_bytes=max_memory_bytes, max_output_bytes=max_output_bytes,
                         default_sample_type=default_sample_type, comments=comments,
                         drop_frames=drop_frames, keep_frames=keep_frames)

    def _call(self, function: Callable[..., int], *args: Any) -> None:
        with self._guard:
            handle = self._handle
            if not handle:
                raise ValueError("this Recorder is closed")
            self._calls += 1
        try:
            status = function(handle, *args)
        finally:
            with self._guard:
                self._calls -= 1
                if self._calls == 0:
                    self._guard.notify_all()
        check(status)  # on this thread, before its next stackrec call

    def record(self, frames: Iterable[Frame], values: Values, labels: Labels | None = None,
               timestamp_ns: int = 0, *, timestamp: datetime.datetime | None = None,
               link: TraceLink | None = None) -> None:
        """Records one sample, from any thread; as Profile.add."""
        sample = convert.sample(frames, values, labels, convert.timestamp_ns(timestamp_ns, timestamp),
                                self._type_names, link)
        self._call(self._c.add, ctypes.byref(sample))

    def record_ids(self, stack: int | Sequence[int], values: Values,
                   labels: Labels | int | None = None, timestamp_ns: int = 0, *,
                   timestamp: datetime.datetime | None = None,
                   link: TraceLink | None = None) -> None:
        """record, by id: `stack` an id from intern_stack or a list of ids from
        intern_location; labels {key: value} or an id from intern_labels."""
        self._add_ids(stack, values, labels, timestamp_ns, timestamp, link)

    def record_stack(self, stack_id: int, values: Values, labels: Labels | int | None = None,
                     timestamp_ns: int = 0) -> None:
        """The first binding's name for record_ids with a stack id."""
        self._add_ids(convert.to_int(stack_id, "stack_id", convert.ID), values, labels,
                      timestamp_ns, None)

    def track(self, object_id: int, frames: Iterable[Frame], values: Values,
              labels: Labels | None = None, *, link: TraceLink | None = None) -> None:
        """Remembers a live object (e.g. id(obj)) allocated at `frames`; every
        serialize adds it, until untrack, with its values at live_heap_types
        (the other values must be 0)."""
        sample = convert.sample(frames, values, labels, 0, self._type_names, link)
        self._call(self._c.track, convert.to_int(object_id, "object_id", convert.UINT64),
                   ctypes.byref(sample))

    def untrack(self, object_id: int) -> None:
        """The object was freed; nothing happens if it is not tracked."""
        self._call(self._c.untrack, convert.to_int(object_id, "object_id", convert.UINT64))

    def record_endpoint(self, local_root_span_id: int, endpoint: str | bytes) -> None:
        """As Profile.set_endpoint; also applied after the next flip, so a
        request that outlives a serialization keeps its label."""
        self._call(self._c.record_endpoint,
                   convert.to_int(local_root_span_id, "local_root_span_id", convert.UINT64),
                   convert.to_str(endpoint, "endpoint"))

    def stats(self) -> Stats:
        """The recorder's counters (docs/limits.md#the-stats-that-count-them)."""
        raw = c.Stats()
        self._call(self._c.stats, ctypes.byref(raw))
        return cast(Stats, {name: getattr(raw, name) for name, _ in c.Stats._fields_})

    def reset_after_fork(self) -> None:
        """In a fork child, before anything else: the recorder becomes empty.
        The parent's threads do not exist in the child, so neither do the
        calls they had under way: the count of them starts again."""
        self._guard = threading.Condition()
        self._calls = 0
        self._call(self._c.reset_after_fork)

    def close(self) -> None:
        """Frees the recorder once the calls under way have returned; calls
        made from now on raise ValueError."""
        with self._guard:
            handle, self._handle = self._handle, c.handle_t()
            while self._calls:
                self._guard.wait()
        if handle:
            self._c.free(handle)
