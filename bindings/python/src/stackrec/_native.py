# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""libstackrec.so.1 as ctypes sees it: where the library is found, the C
structures mirrored field for field, and every exported function declared.

The rest of the package converts Python values into these structures and
never declares a foreign call of its own, so this file and
include/stackrec/stackrec.h can be read side by side. ctypes cannot read the
header: a field the header gains must be added here too, or the library would
read or write past a structure that is too short. The shipped test
test_structures_match_the_header compares every size and offset with what
abi_layout.c, compiled against the header, prints.

Calls go through ctypes.CDLL, which releases the GIL for the length of each
foreign call: threads really do record at once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import subprocess
from typing import Any, Callable

ABI_MAJOR = 1  # the SONAME's number; a new major is a new ABI
SONAME = f"libstackrec.so.{ABI_MAJOR}"


class LibraryNotFoundError(ImportError):
    """No libstackrec.so.1 could be loaded; the message lists where it was
    looked for and how to point the package at one."""


def _pkg_config_libdir() -> tuple[str | None, str]:
    """stackrec.pc's libdir, and what happened when asking for it."""
    program = shutil.which("pkg-config")
    if program is None:
        return None, "pkg-config is not installed"
    try:
        result = subprocess.run([program, "--variable=libdir", "stackrec"], capture_output=True,
                                text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"pkg-config failed: {error}"
    libdir = result.stdout.strip()
    if result.returncode != 0 or not libdir:
        return None, "pkg-config knows no stackrec (is its lib/pkgconfig on PKG_CONFIG_PATH?)"
    return libdir, f"pkg-config's libdir is {libdir}"


def _load() -> tuple[ctypes.CDLL, str]:
    """The library and the path or name it was loaded by: $STACKREC_LIBRARY
    alone if set (a path the user chose must not silently be replaced by
    another copy), else stackrec.pc's libdir, else the dynamic loader's own
    search (LD_LIBRARY_PATH, the system's directories), else
    ctypes.util.find_library."""
    chosen = os.environ.get("STACKREC_LIBRARY")
    if chosen:
        try:
            return ctypes.CDLL(chosen), chosen
        except OSError as error:
            raise LibraryNotFoundError(
                f"stackrec: STACKREC_LIBRARY={chosen} could not be loaded: {error}") from None
    tried = []
    libdir, said = _pkg_config_libdir()
    tried.append(said)
    if libdir is not None:
        path = os.path.join(libdir, SONAME)
        try:
            return ctypes.CDLL(path), os.path.normpath(path)
        except OSError as error:
            tried.append(f"{path}: {error}")
    names = [SONAME]
    found = ctypes.util.find_library("stackrec")
    if found is not None and found != SONAME and found.endswith(f".so.{ABI_MAJOR}"):
        names.append(found)
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as error:
            tried.append(f"{name}: {error}")
    raise LibraryNotFoundError(
        f"stackrec: {SONAME} was not found ({'; '.join(tried)}). Install stackrec and put its "
        "lib/pkgconfig on PKG_CONFIG_PATH, or set STACKREC_LIBRARY to the path of "
        f"{SONAME} (stackrec's bindings/python/README.md).")


library, library_path = _load()

# ---- The C types, field for field as in stackrec.h ------------------------

c_int64, c_uint64, c_uint32, c_size_t = ctypes.c_int64, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_size_t


class Str(ctypes.Structure):
    # ptr is a c_char_p so that ctypes keeps the bytes it points into alive
    # (in the structure's _objects) for as long as the structure lives.
    _fields_ = [("ptr", ctypes.c_char_p), ("len", c_size_t)]


class StrView(ctypes.Structure):
    # The same layout, for strings the library hands out: they are not
    # NUL-terminated, so they are read by address and length (a c_char_p
    # would read up to the first NUL).
    _fields_ = [("ptr", ctypes.c_void_p), ("len", c_size_t)]


class ValueType(ctypes.Structure):
    _fields_ = [("type", Str), ("unit", Str)]


class Mapping(ctypes.Structure):
    _fields_ = [("memory_start", c_uint64), ("memory_limit", c_uint64),
                ("file_offset", c_uint64), ("filename", Str), ("build_id", Str)]


class Function(ctypes.Structure):
    _fields_ = [("name", Str), ("system_name", Str), ("filename", Str),
                ("start_line", c_int64)]


class Location(ctypes.Structure):
    _fields_ = [("mapping", Mapping), ("function", Function),
                ("address", c_uint64), ("line", c_int64), ("inlined", ctypes.c_bool)]


class Label(ctypes.Structure):
    _fields_ = [("key", Str), ("str", Str), ("num", c_int64), ("num_unit", Str)]


class Link(ctypes.Structure):
    _fields_ = [("trace_id", ctypes.c_uint8 * 16), ("span_id", ctypes.c_uint8 * 8)]


class Sample(ctypes.Structure):
    _fields_ = [("locations", ctypes.POINTER(Location)), ("locations_len", c_size_t),
                ("values", ctypes.POINTER(c_int64)), ("values_len", c_size_t),
                ("labels", ctypes.POINTER(Label)), ("labels_len", c_size_t),
                ("timestamp_ns", c_int64), ("link", ctypes.POINTER(Link))]


class InternedLocation(ctypes.Structure):
    _fields_ = [("mapping_id", c_uint32), ("function_id", c_uint32),
                ("address", c_uint64), ("line", c_int64), ("inlined", ctypes.c_bool)]


class IdSample(ctypes.Structure):
    _fields_ = [("stack_id", c_uint32),
                ("location_ids", ctypes.POINTER(c_uint32)), ("location_ids_len", c_size_t),
                ("values", ctypes.POINTER(c_int64)), ("values_len", c_size_t),
                ("labels", ctypes.POINTER(Label)), ("labels_len", c_size_t),
                ("timestamp_ns", c_int64), ("labels_id", c_uint32),
                ("link", ctypes.POINTER(Link))]


class ProfileOptions(ctypes.Structure):
    _fields_ = [("sample_types", ctypes.POINTER(ValueType)), ("sample_types_len", c_size_t),
                ("period_type", ValueType), ("period", c_int64),
                ("sample_types_enabled", ctypes.POINTER(ctypes.c_bool)),
                ("max_frames", c_size_t), ("max_memory_bytes", c_size_t),
                ("max_output_bytes", c_size_t),
                ("default_sample_type", Str),
                ("comments", ctypes.POINTER(Str)), ("comments_len", c_size_t),
                ("drop_frames", Str), ("keep_frames", Str),
                ("live_heap_types", ctypes.POINTER(c_size_t)), ("live_heap_types_len", c_size_t),
                ("max_tracked_objects", c_size_t)]


class Attribute(ctypes.Structure):
    _fields_ = [("key", Str), ("value", Str)]


class SerializeOptions(ctypes.Structure):
    _fields_ = [("compression", ctypes.c_int), ("level", ctypes.c_int), ("format", ctypes.c_int),
                ("service_name", Str),
                ("resource_attributes", ctypes.POINTER(Attribute)),
                ("resource_attributes_len", c_size_t),
                ("scope_name", Str), ("scope_version", Str),
                ("part_max_bytes", c_size_t), ("part_max_uncompressed_bytes", c_size_t),
                ("part_max_samples", c_size_t), ("max_parts", c_size_t),
                ("compress_threads", ctypes.c_int), ("target", ctypes.c_int),
                ("series_labels", ctypes.POINTER(Str)), ("series_labels_len", c_size_t)]


class Part(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", c_size_t),
                ("samples_written", c_uint64), ("uncompressed_bytes", c_uint64)]


class EncodeStats(ctypes.Structure):
    _fields_ = [("samples_recorded", c_uint64), ("samples_truncated", c_uint64),
                ("samples_over_memory", c_uint64),
                ("samples_written", c_uint64), ("samples_left_out", c_uint64),
                ("locations_written", c_uint64), ("functions_written", c_uint64),
                ("mappings_written", c_uint64), ("strings_written", c_uint64),
                ("uncompressed_bytes", c_uint64), ("compressed_bytes", c_uint64),
                ("encode_ns", c_int64),
                ("parts", c_uint64), ("folded_because", ctypes.c_int)]


class Stats(ctypes.Structure):
    _fields_ = [("last_samples_recorded", c_uint64), ("last_distinct_keys", c_uint64),
                ("last_serialize_ns", c_int64),
                ("serializations_ok", c_uint64), ("serializations_failed", c_uint64),
                ("serialize_ns_min", c_int64), ("serialize_ns_max", c_int64),
                ("serialize_ns_total", c_int64),
                ("samples_recorded", c_uint64), ("records_rejected", c_uint64),
                ("samples_truncated", c_uint64), ("samples_over_memory", c_uint64),
                ("samples_left_out_of_output", c_uint64),
                ("objects_tracked", c_uint64), ("objects_not_tracked", c_uint64)]


class UpscalingRule(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int),
                ("value_offsets", ctypes.POINTER(c_size_t)), ("value_offsets_len", c_size_t),
                ("label_key", Str), ("label_str", Str), ("label_num", c_int64),
                ("total_sampled", c_uint64), ("total_real", c_uint64),
                ("sum_value_offset", c_size_t), ("count_value_offset", c_size_t),
                ("sampling_distance", c_uint64)]


# ---- The functions ----------------------------------------------------------

status_t = ctypes.c_int
handle_t = ctypes.c_void_p  # stackrec_profile *, stackrec_recorder *, stackrec_encoded *
id_p = ctypes.POINTER(c_uint32)


# Every exported function declared below, by C name: the shipped tests check
# it against the header, so a function the header gains is not forgotten.
declared: set[str] = set()


def _declare(name: str, restype: Any, *argtypes: Any) -> Any:
    declared.add("stackrec_" + name)
    function = getattr(library, "stackrec_" + name)
    function.restype = restype
    function.argtypes = argtypes
    return function


def _declare_sized(name: str, restype: Any, struct: type, *argtypes: Any) -> Callable[..., Any]:
    """A call that passes a growable struct: binds stackrec_<name>_sized and
    appends the size of the layout declared here, as the C header's inline
    functions append sizeof of theirs."""
    function = _declare(name + "_sized", restype, *argtypes, c_size_t)
    size = ctypes.sizeof(struct)
    return lambda *args: function(*args, size)


P = ctypes.POINTER

version_number = _declare("version_number", ctypes.c_int)
status_name = _declare("status_name", ctypes.c_char_p, status_t)
last_error = _declare("last_error", ctypes.c_char_p)
# For libraries built on stackrec (libstackrec_export reports through it);
# declared so that the header check finds every function bound.
last_error_set = _declare("last_error_set", None, ctypes.c_char_p)

encoded_data = _declare("encoded_data", ctypes.c_void_p, handle_t)
encoded_size = _declare("encoded_size", c_size_t, handle_t)
encoded_parts_len = _declare("encoded_parts_len", c_size_t, handle_t)
encoded_part = _declare_sized("encoded_part", status_t, Part, handle_t, c_size_t, P(Part))
encoded_start_ns = _declare("encoded_start_ns", c_int64, handle_t)
encoded_end_ns = _declare("encoded_end_ns", c_int64, handle_t)
encoded_endpoint_counts_len = _declare("encoded_endpoint_counts_len", c_size_t, handle_t)
encoded_endpoint_count = _declare("encoded_endpoint_count", status_t, handle_t, c_size_t,
                                  P(StrView), P(c_int64))
encoded_stats = _declare_sized("encoded_stats", status_t, EncodeStats, handle_t, P(EncodeStats))
# What the output is, which libstackrec_export reads to hold a part to its
# backend's rules; declared so that the header check finds every function.
encoded_format = _declare("encoded_format", ctypes.c_int, handle_t)
encoded_target = _declare("encoded_target", ctypes.c_int, handle_t)
encoded_compression = _declare("encoded_compression", ctypes.c_int, handle_t)
encoded_sample_types_len = _declare("encoded_sample_types_len", c_size_t, handle_t)
encoded_sample_type = _declare("encoded_sample_type", status_t, handle_t, c_size_t, P(StrView),
                               P(StrView))
encoded_free = _declare("encoded_free", None, handle_t)


class Calls:
    """The calls a stackrec_profile and a stackrec_recorder share, bound for
    one of them: the classes built on top call self._c.<verb> either way."""

    def __init__(self, kind: str) -> None:
        def d(verb: str, *argtypes: Any) -> Any:
            return _declare(f"{kind}_{verb}", status_t, handle_t, *argtypes)

        def ds(verb: str, struct: type, *argtypes: Any) -> Callable[..., Any]:
            return _declare_sized(f"{kind}_{verb}", status_t, struct, handle_t, *argtypes)

        self.new = _declare_sized(f"{kind}_new", status_t, ProfileOptions,
                                  P(ProfileOptions), P(handle_t))
        self.free = _declare(f"{kind}_free", None, handle_t)
        self.serialize = ds("serialize", SerializeOptions, P(SerializeOptions), P(handle_t))
        self.add_endpoint_count = d("add_endpoint_count", Str, c_int64)
        self.add_upscaling_rule = ds("add_upscaling_rule", UpscalingRule, P(UpscalingRule))
        self.intern_mapping = d("intern_mapping", P(Mapping), id_p)
        self.intern_function = d("intern_function", P(Function), id_p)
        self.intern_location = d("intern_location", P(InternedLocation), id_p)
        self.intern_stack = d("intern_stack", id_p, c_size_t, id_p)
        self.intern_labels = d("intern_labels", P(Label), c_size_t, id_p)
        self.forget_ids = d("forget_ids")
        self.record_endpoint = d("record_endpoint", c_uint64, Str)
        if kind == "profile":
            self.add = ds("add", Sample, P(Sample))
            self.add_ids = ds("add_ids", IdSample, P(IdSample))
            self.reset = d("reset")
            # The older name of profile_record_endpoint, the same call;
            # declared so that the header check finds every function.
            self.set_endpoint = d("set_endpoint", c_uint64, Str)
        else:
            self.add = ds("record", Sample, P(Sample))
            self.add_ids = ds("record_ids", IdSample, P(IdSample))
            self.reset_after_fork = d("reset_after_fork")
            self.track = ds("track", Sample, c_uint64, P(Sample))
            self.untrack = d("untrack", c_uint64)
            self.stats = ds("stats", Stats, P(Stats))


profile_calls = Calls("profile")
recorder_calls = Calls("recorder")
