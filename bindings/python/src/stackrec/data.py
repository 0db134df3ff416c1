# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""The values that cross the binding, as typed Python objects: what a caller
passes in (frames, labels, sample types) and what a serialization hands back.

Plain tuples stay accepted where the first binding took them, a frame as
(name, filename, line) and a sample type as (type, unit), since that is what
most callers have at hand; the classes here are for the fields a tuple has
no room for (a mapping, an address, a label's unit).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Any, Literal, Mapping as MappingType, NamedTuple, Sequence, TypedDict, Union

Text = Union[str, bytes]  # bytes pass as they are; stackrec checks they are UTF-8

Compression = Literal["gzip", "none", "zstd"]
Format = Literal["pprof", "otlp"]
UpscalingKind = Literal["proportional", "poisson"]


class ValueType(NamedTuple):
    """A sample type, e.g. ValueType("cpu-time", "nanoseconds")."""

    type: Text
    unit: Text


@dataclasses.dataclass(frozen=True)
class Mapping:
    """The binary a frame's code lives in; all zero is no mapping."""

    memory_start: int = 0
    memory_limit: int = 0
    file_offset: int = 0
    filename: Text = ""
    build_id: Text = ""


@dataclasses.dataclass(frozen=True)
class Function:
    """A function; all empty is none (the frame is its address alone)."""

    name: Text = ""
    system_name: Text = ""
    filename: Text = ""
    start_line: int = 0


@dataclasses.dataclass(frozen=True)
class Location:
    """One frame with every field stackrec_location has. `inlined`: this
    function was inlined into the next frame's, which has the same address
    and mapping."""

    function: Function | None = None
    line: int = 0
    mapping: Mapping | None = None
    address: int = 0
    inlined: bool = False


class NumLabel(NamedTuple):
    """A numeric label with a unit, e.g. NumLabel(4096, "bytes")."""

    num: int
    unit: Text


class TraceLink(NamedTuple):
    """The trace and span a sample ran under (since 1.2): each id as bytes
    (16 and 8) or as the int OpenTelemetry's SpanContext holds; neither may
    be zero. Written as an OTLP Link, and as the pprof labels "trace_id" and
    "span_id" in hex."""

    trace_id: bytes | int
    span_id: bytes | int


Frame = Union[Location, tuple[Text, Text, int]]  # leaf first; a tuple is (name, filename, line)
SampleType = Union[ValueType, tuple[Text, Text]]
LabelValue = Union[Text, int, NumLabel]
Labels = MappingType[Text, LabelValue]
# One value per sample type, in order, or by sample type name (missing: 0).
Values = Union[Sequence[int], MappingType[str, int]]


class Stats(TypedDict):
    """A recorder's counters (stackrec_stats): docs/limits.md."""

    last_samples_recorded: int
    last_distinct_keys: int
    last_serialize_ns: int
    serializations_ok: int
    serializations_failed: int
    serialize_ns_min: int
    serialize_ns_max: int
    serialize_ns_total: int
    samples_recorded: int
    records_rejected: int
    samples_truncated: int
    samples_over_memory: int
    samples_left_out_of_output: int
    objects_tracked: int
    objects_not_tracked: int


class FoldReason(enum.IntEnum):
    """Why a serialization summed samples into "[stackrec: output limit]"."""

    NONE = 0
    OUTPUT_LIMIT = 1  # the unsplit output was over max_output_bytes
    SAMPLE_TOO_BIG = 2  # a sample did not fit a part on its own
    PARTS_LIMIT = 3  # max_parts parts could not hold them all


class EncodeStats(TypedDict):
    """What one serialization did (stackrec_encode_stats)."""

    samples_recorded: int
    samples_truncated: int
    samples_over_memory: int
    samples_written: int
    samples_left_out: int
    locations_written: int
    functions_written: int
    mappings_written: int
    strings_written: int
    uncompressed_bytes: int
    compressed_bytes: int
    encode_ns: int
    parts: int
    folded_because: FoldReason


class Part(NamedTuple):
    """One part of a serialization a budget split: a complete profile of the
    whole interval, to send as a request of its own."""

    data: bytes
    samples_written: int
    uncompressed_bytes: int


def _utc(ns: int) -> datetime.datetime:
    return (datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
            + datetime.timedelta(microseconds=ns // 1000))


class Serialized(tuple[int, int, bytes]):
    """One serialization. It unpacks as (start_ns, end_ns, data), as the
    first binding's serialize() returned, and also carries the parts, the
    endpoint counts and that serialization's stats."""

    parts: tuple[Part, ...]
    endpoint_counts: dict[str, int]
    stats: EncodeStats
    _encoded: Any  # owns the stackrec_encoded handle (handles._Encoded)

    def __new__(cls, start_ns: int, end_ns: int, data: bytes, parts: Sequence[Part],
                endpoint_counts: dict[str, int], stats: EncodeStats) -> Serialized:
        # A tuple subclass without __slots__ has a __dict__, which holds
        # what does not fit the three items. (mypy types tuple.__new__ for
        # tuples of one item type only, hence the ignore.)
        self = super().__new__(cls, (start_ns, end_ns, data))  # type: ignore[arg-type]
        self.parts = tuple(parts)
        self.endpoint_counts = endpoint_counts
        self.stats = stats
        return self

    @property
    def start_ns(self) -> int:
        """The interval's start, Unix nanoseconds (pprof's time_nanos)."""
        return int(self[0])

    @property
    def end_ns(self) -> int:
        """The interval's end, Unix nanoseconds."""
        return int(self[1])

    @property
    def data(self) -> bytes:
        """The encoded bytes: of the first part if a budget split the output."""
        return bytes(self[2])

    @property
    def start(self) -> datetime.datetime:
        """start_ns as an aware datetime in UTC (to the microsecond)."""
        return _utc(self.start_ns)

    @property
    def end(self) -> datetime.datetime:
        """end_ns as an aware datetime in UTC (to the microsecond)."""
        return _utc(self.end_ns)

    def __repr__(self) -> str:
        return (f"Serialized(start_ns={self.start_ns}, end_ns={self.end_ns}, "
                f"{len(self.data)} bytes, {len(self.parts)} part(s))")
