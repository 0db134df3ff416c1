# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""Python values checked and converted into the ctypes structures of
_native. A value of the wrong Python type raises TypeError, an int that does
not fit its C field OverflowError, both naming the argument, before the
library is called: ctypes itself would wrap such an int silently. What the
library checks (UTF-8, empty keys, lengths) is left to it, so its message
is the one the caller sees.

Every array built here is kept alive by the structure that points at it
(ctypes stores it in the structure's _objects), so a returned structure is
safe to pass for as long as it is referenced.
"""

from __future__ import annotations

import ctypes
import datetime
from collections.abc import Iterable, Mapping as MappingType, Sequence
from typing import Any

from . import _native as c
from .data import (Frame, Function, Labels, Location, Mapping, NumLabel, SampleType, TraceLink,
                   Values)

INT64 = (-2**63, 2**63 - 1)
UINT64 = (0, 2**64 - 1)
SIZE = (0, 2**63 - 1)  # what Python hands a size_t: never more than fits memory
ID = (1, 2**32 - 1)  # interned ids are uint32, never 0


def to_bytes(value: Any, what: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")


def to_str(value: Any, what: str) -> c.Str:
    data = to_bytes(value, what)
    return c.Str(data, len(data))


def to_int(value: Any, what: str, bounds: tuple[int, int] = INT64) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    low, high = bounds
    if not low <= value <= high:
        raise OverflowError(f"{what} must be in {low}..{high}, not {value}")
    return value


def to_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")
    return value


def timestamp_ns(ns: int, at: datetime.datetime | None) -> int:
    """timestamp_ns, or `at` (an aware datetime) in Unix nanoseconds."""
    ns = to_int(ns, "timestamp_ns")
    if at is None:
        return ns
    if not isinstance(at, datetime.datetime) or at.tzinfo is None:
        raise TypeError("timestamp must be a datetime with a tzinfo (e.g. datetime.timezone.utc)")
    if ns:
        raise ValueError("pass timestamp_ns or timestamp, not both")
    delta = at - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000


def mapping(value: Any, what: str) -> c.Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a stackrec.Mapping, not {type(value).__name__}")
    return c.Mapping(to_int(value.memory_start, f"{what}.memory_start", UINT64),
                     to_int(value.memory_limit, f"{what}.memory_limit", UINT64),
                     to_int(value.file_offset, f"{what}.file_offset", UINT64),
                     to_str(value.filename, f"{what}.filename"),
                     to_str(value.build_id, f"{what}.build_id"))


def function(value: Any, what: str) -> c.Function:
    if not isinstance(value, Function):
        raise TypeError(f"{what} must be a stackrec.Function, not {type(value).__name__}")
    return c.Function(to_str(value.name, f"{what}.name"),
                      to_str(value.system_name, f"{what}.system_name"),
                      to_str(value.filename, f"{what}.filename"),
                      to_int(value.start_line, f"{what}.start_line"))


def frame(value: Any, what: str) -> Location:
    """A frame as a Location, from a Location or a (name, filename, line)."""
    if isinstance(value, Location):
        return value
    name, filename, line = _frame_tuple(value, what)
    return Location(Function(name=name, filename=filename), line)


def _frame_tuple(value: Any, what: str) -> tuple[Any, Any, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise TypeError(f"{what} must be (name, filename, line) or a stackrec.Location, not {value!r}")
    name, filename, line = value
    return name, filename, to_int(line, f"{what} line")


def location(value: Any, what: str) -> c.Location:
    """A stackrec_location from a Location or a (name, filename, line)."""
    out = c.Location()
    if not isinstance(value, Location):
        name, filename, out.line = _frame_tuple(value, what)
        out.function.name = to_str(name, f"{what} name")
        out.function.filename = to_str(filename, f"{what} filename")
        return out
    if value.mapping is not None:
        out.mapping = mapping(value.mapping, f"{what}.mapping")
    if value.function is not None:
        out.function = function(value.function, f"{what}.function")
    out.address = to_int(value.address, f"{what}.address", UINT64)
    out.line = to_int(value.line, f"{what}.line")
    out.inlined = to_bool(value.inlined, f"{what}.inlined")
    return out


def locations(given: Iterable[Frame]) -> tuple[Any, int]:
    frames = given if isinstance(given, (list, tuple)) else list(given)
    array = (c.Location * len(frames))()
    low, high = INT64
    for i, value in enumerate(frames):
        # record is the hot path, and most frames are (str, str, int): those
        # are checked and converted here without formatting the messages
        # that location() would need only if one were wrong.
        if (type(value) is tuple and len(value) == 3 and type(value[0]) is str
                and type(value[1]) is str and type(value[2]) is int and low <= value[2] <= high):
            name, filename = value[0].encode("utf-8"), value[1].encode("utf-8")
            array[i] = c.Location(function=c.Function(name=c.Str(name, len(name)),
                                                      filename=c.Str(filename, len(filename))),
                                  line=value[2])
        else:
            array[i] = location(value, f"frames[{i}]")
    return array, len(frames)


def values(given: Values, type_names: Sequence[str]) -> tuple[Any, int]:
    """One int64 per sample type: a sequence as it is, or a mapping by
    sample type name with 0 for the names it lacks."""
    if isinstance(given, MappingType):
        unknown = [name for name in given if name not in type_names]
        if unknown:
            raise ValueError(f"values names {unknown!r}, which is not a sample type of {type_names!r}")
        given = [given.get(name, 0) for name in type_names]
    checked = [to_int(v, f"values[{i}]") for i, v in enumerate(given)]
    return (c.c_int64 * len(checked))(*checked), len(checked)


def labels(given: Labels | None) -> tuple[Any, int]:
    """Labels {key: str, bytes, int or NumLabel}."""
    items = list((given or {}).items())
    array = (c.Label * len(items))()
    for i, (key, value) in enumerate(items):
        array[i].key = to_str(key, "label key")
        if isinstance(value, (str, bytes)):
            array[i].str = to_str(value, f"label {key!r}")
        elif isinstance(value, NumLabel):
            array[i].num = to_int(value.num, f"label {key!r}")
            array[i].num_unit = to_str(value.unit, f"label {key!r} unit")
        else:
            array[i].num = to_int(value, f"label {key!r}")
    return array, len(items)


def link(given: TraceLink | tuple[bytes | int, bytes | int] | None) -> Any:
    """A pointer to the C link, or None. The library refuses zero ids by
    name; a wrong size or type is refused here."""
    if given is None:
        return None
    if not isinstance(given, tuple) or len(given) != 2:
        raise TypeError(f"link must be a TraceLink(trace_id, span_id), not {given!r}")
    out = c.Link()
    for value, field, size in ((given[0], "trace_id", 16), (given[1], "span_id", 8)):
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value < 1 << (8 * size):
                raise OverflowError(f"link.{field} {value} does not fit {size} bytes")
            value = value.to_bytes(size, "big")
        if not isinstance(value, (bytes, bytearray)) or len(value) != size:
            raise ValueError(f"link.{field} must be {size} bytes or an int, not {value!r}")
        ctypes.memmove(getattr(out, field), bytes(value), size)
    return ctypes.pointer(out)


def sample(frames: Iterable[Frame], values_: Values, labels_: Labels | None, ns: int,
           type_names: Sequence[str], link_: TraceLink | None = None) -> c.Sample:
    # The arrays (and the link) stay alive as fields of the returned structure.
    return c.Sample(*locations(frames), *values(values_, type_names), *labels(labels_), ns,
                    link(link_))


def id_sample(stack: int | Sequence[int], values_: Values, labels_: Labels | int | None, ns: int,
              type_names: Sequence[str], link_: TraceLink | None = None) -> c.IdSample:
    out = c.IdSample(timestamp_ns=ns, link=link(link_))
    if isinstance(stack, int):
        out.stack_id = to_int(stack, "stack_id", ID)
    else:
        ids = [to_int(i, f"location_ids[{n}]", ID) for n, i in enumerate(stack)]
        out.location_ids, out.location_ids_len = (c.c_uint32 * len(ids))(*ids), len(ids)
    out.values, out.values_len = values(values_, type_names)
    if isinstance(labels_, int):  # to_int refuses a bool
        out.labels_id = to_int(labels_, "labels", ID)
    else:
        out.labels, out.labels_len = labels(labels_)
    return out


def sample_types(given: Iterable[SampleType]) -> list[tuple[Any, Any]]:
    out = []
    for i, sample_type in enumerate(given):
        if not isinstance(sample_type, (tuple, list)) or len(sample_type) != 2:
            raise TypeError(f"sample_types[{i}] must be (type, unit), not {sample_type!r}")
        out.append((sample_type[0], sample_type[1]))
    return out


def type_name(value: Any, what: str) -> str:
    return to_bytes(value, what).decode("utf-8", "replace")


def sample_type_index(value: int | str, type_names: Sequence[str], what: str) -> int:
    """A sample type given by index or by name, as its index."""
    if isinstance(value, str):
        if value not in type_names:
            raise ValueError(f"{what} {value!r} is not a sample type of {list(type_names)!r}")
        return type_names.index(value)
    return to_int(value, what, SIZE)


def profile_options(types: list[tuple[Any, Any]], enabled: Sequence[bool] | MappingType[str, bool] | None,
                    period_type: SampleType | None, period: int, max_frames: int,
                    max_memory_bytes: int, max_output_bytes: int, default_sample_type: str | None,
                    comments: Iterable[Any], drop_frames: Any, keep_frames: Any,
                    live_heap_types: Iterable[int | str] | None,
                    max_tracked_objects: int) -> c.ProfileOptions:
    names = [type_name(t, f"sample_types[{i}] type") for i, (t, _) in enumerate(types)]
    options = c.ProfileOptions()
    options.sample_types = (c.ValueType * len(types))(
        *(c.ValueType(to_str(t, f"sample_types[{i}] type"), to_str(u, f"sample_types[{i}] unit"))
          for i, (t, u) in enumerate(types)))
    options.sample_types_len = len(types)
    if enabled is not None:
        if isinstance(enabled, MappingType):
            unknown = [name for name in enabled if name not in names]
            if unknown:
                raise ValueError(f"enabled names {unknown!r}, which is not a sample type of {names!r}")
            flags = [bool(enabled.get(name, True)) for name in names]
        else:
            flags = [bool(e) for e in enabled]
            if len(flags) != len(types):
                raise ValueError(f"enabled has {len(flags)} flags for {len(types)} sample types")
        options.sample_types_enabled = (ctypes.c_bool * len(flags))(*flags)
    if period_type is not None:
        (period_name, period_unit), = sample_types([period_type])
        options.period_type = c.ValueType(to_str(period_name, "period_type type"),
                                          to_str(period_unit, "period_type unit"))
    options.period = to_int(period, "period")
    options.max_frames = to_int(max_frames, "max_frames", SIZE)
    options.max_memory_bytes = to_int(max_memory_bytes, "max_memory_bytes", SIZE)
    options.max_output_bytes = to_int(max_output_bytes, "max_output_bytes", SIZE)
    if default_sample_type is not None:
        options.default_sample_type = to_str(default_sample_type, "default_sample_type")
    texts = [to_str(text, f"comments[{i}]") for i, text in enumerate(comments)]
    options.comments = (c.Str * len(texts))(*texts)
    options.comments_len = len(texts)
    options.drop_frames = to_str(drop_frames, "drop_frames")
    options.keep_frames = to_str(keep_frames, "keep_frames")
    if live_heap_types is not None:
        heap = [sample_type_index(t, names, f"live_heap_types[{i}]") for i, t in enumerate(live_heap_types)]
        options.live_heap_types = (c.c_size_t * len(heap))(*heap)
        options.live_heap_types_len = len(heap)
    options.max_tracked_objects = to_int(max_tracked_objects, "max_tracked_objects", SIZE)
    return options


COMPRESSIONS = {"gzip": 0, "none": 1, "zstd": 2}
FORMATS = {"pprof": 0, "otlp": 1}
TARGETS = {"any": 0, "pyroscope": 1}
UPSCALING_KINDS = {"proportional": 0, "poisson": 1}


def choice(value: Any, choices: dict[str, int], what: str) -> int:
    if value not in choices:
        raise ValueError(f"{what} must be one of {sorted(choices)}, not {value!r}")
    return choices[value]


def serialize_options(compression: str, level: int, format: str, service_name: Any,
                      resource_attributes: MappingType[Any, Any] | Iterable[tuple[Any, Any]] | None,
                      scope_name: Any, scope_version: Any, part_max_bytes: int,
                      part_max_uncompressed_bytes: int, part_max_samples: int, max_parts: int,
                      compress_threads: int, target: str = "any",
                      series_labels: Iterable[Any] = ()) -> c.SerializeOptions:
    options = c.SerializeOptions()
    options.compression = choice(compression, COMPRESSIONS, "compression")
    options.level = to_int(level, "level", (-2**31, 2**31 - 1))
    options.format = choice(format, FORMATS, "format")
    options.service_name = to_str(service_name, "service_name")
    if isinstance(resource_attributes, MappingType):
        resource_attributes = list(resource_attributes.items())
    attributes = [c.Attribute(to_str(k, f"resource_attributes[{i}] key"),
                              to_str(v, f"resource_attributes[{i}] value"))
                  for i, (k, v) in enumerate(resource_attributes or [])]
    options.resource_attributes = (c.Attribute * len(attributes))(*attributes)
    options.resource_attributes_len = len(attributes)
    options.scope_name = to_str(scope_name, "scope_name")
    options.scope_version = to_str(scope_version, "scope_version")
    options.part_max_bytes = to_int(part_max_bytes, "part_max_bytes", SIZE)
    options.part_max_uncompressed_bytes = to_int(part_max_uncompressed_bytes,
                                                 "part_max_uncompressed_bytes", SIZE)
    options.part_max_samples = to_int(part_max_samples, "part_max_samples", SIZE)
    options.max_parts = to_int(max_parts, "max_parts", SIZE)
    options.compress_threads = to_int(compress_threads, "compress_threads", (-2**31, 2**31 - 1))
    options.target = choice(target, TARGETS, "target")
    if isinstance(series_labels, (str, bytes)):
        raise TypeError("series_labels must be an iterable of label keys, not one string")
    labels = [to_str(key, f"series_labels[{i}]") for i, key in enumerate(series_labels)]
    options.series_labels = (c.Str * len(labels))(*labels)
    options.series_labels_len = len(labels)
    return options


def upscaling_rule(kind: str, values_: Iterable[int | str], label: tuple[Any, Any] | None,
                   total_sampled: int, total_real: int, sum_value: int | str,
                   count_value: int | str, sampling_distance: int,
                   type_names: Sequence[str]) -> c.UpscalingRule:
    rule = c.UpscalingRule()
    rule.kind = choice(kind, UPSCALING_KINDS, "kind")
    offsets = [sample_type_index(v, type_names, f"values[{i}]") for i, v in enumerate(values_)]
    rule.value_offsets = (c.c_size_t * len(offsets))(*offsets)
    rule.value_offsets_len = len(offsets)
    if label is not None:
        if not isinstance(label, (tuple, list)) or len(label) != 2:
            raise TypeError(f"label must be (key, str or int), not {label!r}")
        key, value = label
        rule.label_key = to_str(key, "label key")
        if isinstance(value, (str, bytes)):
            rule.label_str = to_str(value, "label value")
        else:
            rule.label_num = to_int(value, "label value")
    rule.total_sampled = to_int(total_sampled, "total_sampled", UINT64)
    rule.total_real = to_int(total_real, "total_real", UINT64)
    rule.sum_value_offset = sample_type_index(sum_value, type_names, "sum_value")
    rule.count_value_offset = sample_type_index(count_value, type_names, "count_value")
    rule.sampling_distance = to_int(sampling_distance, "sampling_distance", UINT64)
    return rule
