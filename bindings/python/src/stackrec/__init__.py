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

The library is $STACKREC_LIBRARY if that is set, else libstackrec.so.1 in
the libdir of the stackrec that pkg-config knows, else wherever the dynamic
loader finds it; importing raises LibraryNotFoundError (an ImportError)
saying what was tried when none loads. library_path says which was loaded.

Threads: ctypes releases the GIL for the length of every foreign call, so
threads really do record into a Recorder at once, also while another
thread serializes. A Profile is single-threaded in C; its calls take turns
on a lock.

Errors: a call stackrec refuses raises a StackrecError subclass, one per
status (InvalidArgumentError is also a ValueError), carrying .status and the
library's .message. Python values of the wrong type raise TypeError, and
ints that do not fit their C field OverflowError, before stackrec is called.
The guide is the package's README.md (bindings/python in stackrec's
repository); each C function's Python form is listed there.
"""

from __future__ import annotations

from . import _native
from .data import (Compression, EncodeStats, FoldReason, Format, Frame, Function, LabelValue,
                   Labels, Location, Mapping, NumLabel, Part, SampleType, Serialized, Stats, Text,
                   TraceLink,
                   UpscalingKind, Values, ValueType)
from .errors import (BusyError, Error, InternalError, InvalidArgumentError, LimitExceededError,
                     OutOfMemoryError, StackrecError, Status, TimedOutError, UnsupportedError)
from ._convert import COMPRESSIONS, FORMATS
from .exporter import Exporter, ExporterNotFoundError
from .handles import Profile, Recorder

LibraryNotFoundError = _native.LibraryNotFoundError
ABI_MAJOR = _native.ABI_MAJOR
library_path: str = _native.library_path
"""The path or name libstackrec was loaded by."""

# The header's limits on input, checked by the library before a byte is read.
MAX_STR_LEN = 1 << 24
MAX_STACK_LEN = 1 << 20
MAX_ARRAY_LEN = 1 << 16


def version_number() -> int:
    """The STACKREC_VERSION_NUMBER the loaded library was built with
    (major * 10000 + minor * 100 + patch)."""
    return int(_native.version_number())


def version() -> str:
    """The loaded library's version as "major.minor.patch"."""
    number = version_number()
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def status_name(status: Status | int) -> str:
    """The C name of a status, e.g. "STACKREC_BUSY"; "STACKREC_UNKNOWN"
    for a number the loaded library does not know."""
    code = status.code if isinstance(status, Status) else status
    return str(_native.status_name(code).decode())


def last_error() -> str:
    """This thread's message for its last failed stackrec call ("" if none
    failed). The exceptions carry it already, as .message."""
    return str(_native.last_error().decode("utf-8", "replace"))


__all__ = [
    "ABI_MAJOR", "BusyError", "COMPRESSIONS", "Compression", "EncodeStats", "Error", "Exporter",
    "ExporterNotFoundError", "FORMATS", "FoldReason", "Format", "Frame", "Function",
    "InternalError", "InvalidArgumentError", "LabelValue", "Labels", "LibraryNotFoundError",
    "LimitExceededError", "Location", "MAX_ARRAY_LEN", "MAX_STACK_LEN", "MAX_STR_LEN", "Mapping",
    "NumLabel", "OutOfMemoryError", "Part", "Profile", "Recorder", "SampleType", "Serialized",
    "StackrecError", "Stats", "Status", "Text", "TimedOutError", "TraceLink", "UnsupportedError",
    "UpscalingKind", "ValueType", "Values", "last_error", "library_path", "status_name", "version",
    "version_number",
]
