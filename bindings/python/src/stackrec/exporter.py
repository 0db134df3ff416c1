# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""stackrec.Exporter: ships what a Profile or Recorder serialized to an
OTLP collector, Grafana Pyroscope or Datadog, through libstackrec_export
(docs/exporting.md), from a queue on the library's own thread.

The library is optional and loaded at the first Exporter, not at import:
a host that sends profiles its own way never needs it. It is looked for as
$STACKREC_EXPORT_LIBRARY alone if set, else beside the libstackrec.so.1
already loaded, else in stackrec_export.pc's libdir, else by the dynamic
loader."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import threading
from typing import Any, Callable, Iterable, Mapping as MappingType, TypedDict, cast

from . import _convert as convert, _native as c
from .data import Serialized
from .errors import Status, check
from .handles import Recorder

SONAME = f"libstackrec_export.so.{c.ABI_MAJOR}"

PROTOCOLS = {"otlp": 0, "pyroscope": 1, "datadog_agent": 2, "datadog_agentless": 3}


class ExporterNotFoundError(ImportError):
    """No libstackrec_export.so.1 could be loaded; the message lists where
    it was looked for."""


class ExporterOptions(ctypes.Structure):
    _fields_ = [("protocol", ctypes.c_int), ("endpoint", c.Str), ("site", c.Str),
                ("api_key", c.Str), ("app_name", c.Str), ("spy_name", c.Str),
                ("sample_rate", ctypes.c_uint32),
                ("tags", ctypes.POINTER(c.Attribute)), ("tags_len", ctypes.c_size_t),
                ("basic_auth_user", c.Str), ("basic_auth_password", c.Str),
                ("bearer_token", c.Str), ("tenant_id", c.Str), ("family", c.Str),
                ("origin", c.Str), ("origin_version", c.Str),
                ("otlp_development_header", ctypes.c_bool),
                ("headers", ctypes.POINTER(c.Attribute)), ("headers_len", ctypes.c_size_t),
                ("max_queue_bytes", ctypes.c_size_t), ("max_queue_requests", ctypes.c_size_t),
                ("connect_timeout_ms", ctypes.c_uint32), ("timeout_ms", ctypes.c_uint32),
                ("max_retries", ctypes.c_int32), ("initial_backoff_ms", ctypes.c_uint32),
                ("max_backoff_ms", ctypes.c_uint32), ("ca_file", c.Str),
                ("insecure", ctypes.c_bool)]


class ExportStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "requests_queued", "queued", "requests_sent", "bytes_sent", "retries", "failed_http_4xx",
        "failed_too_large", "failed_http_5xx", "failed_connection", "dropped", "abandoned",
        "partial_success_rejected", "serialize_failed")] + [
        ("last_http_status", ctypes.c_int64), ("last_error", ctypes.c_char * 256),
        ("refused_before_sending", ctypes.c_uint64), ("dropped_too_old", ctypes.c_uint64)]


class ExportStatsDict(TypedDict):
    """Exporter.stats(): export.h's stackrec_export_stats, last_error a str."""

    requests_queued: int
    queued: int
    requests_sent: int
    bytes_sent: int
    retries: int
    failed_http_4xx: int
    failed_too_large: int
    failed_http_5xx: int
    failed_connection: int
    dropped: int
    abandoned: int
    partial_success_rejected: int
    serialize_failed: int
    last_http_status: int
    last_error: str
    refused_before_sending: int
    dropped_too_old: int


def _candidates() -> tuple[list[str], list[str]]:
    """Paths and names to try, in order, and what was learnt on the way."""
    chosen = os.environ.get("STACKREC_EXPORT_LIBRARY")
    if chosen:
        return [chosen], []
    names, said = [], []
    if os.path.dirname(c.library_path):
        names.append(os.path.join(os.path.dirname(c.library_path), SONAME))
    program = shutil.which("pkg-config")
    if program is not None:
        try:
            result = subprocess.run([program, "--variable=libdir", "stackrec_export"],
                                    capture_output=True, text=True, timeout=30, check=False)
            if result.returncode == 0 and result.stdout.strip():
                names.append(os.path.join(result.stdout.strip(), SONAME))
            else:
                said.append("pkg-config knows no stackrec_export")
        except (OSError, subprocess.SubprocessError) as error:
            said.append(f"pkg-config failed: {error}")
    names.append(SONAME)
    return names, said


class _Library:
    """libstackrec_export's calls, bound once."""

    new: Callable[..., int]
    send: Callable[..., int]
    flush: Callable[..., int]
    start_periodic: Callable[..., int]
    stats: Callable[..., int]
    shutdown: Callable[..., int]
    reset_after_fork: Callable[..., int]
    free: Callable[..., None]

    def __init__(self) -> None:
        names, tried = _candidates()
        library = None
        for name in names:
            try:
                library = ctypes.CDLL(name)
                break
            except OSError as error:
                tried.append(f"{name}: {error}")
        if library is None:
            raise ExporterNotFoundError(
                f"stackrec: {SONAME} was not found ({'; '.join(tried)}). Install stackrec with "
                "its exporter (the default build), or set STACKREC_EXPORT_LIBRARY to its path "
                "(stackrec's bindings/python/README.md).")
        h, st, u32 = c.handle_t, ctypes.c_int, ctypes.c_uint32

        def bind(name: str, restype: Any, *argtypes: Any) -> Any:
            function = getattr(library, "stackrec_exporter_" + name)
            function.restype, function.argtypes = restype, argtypes
            return function

        new = bind("new_sized", st, ctypes.POINTER(ExporterOptions), ctypes.POINTER(h), ctypes.c_size_t)
        self.new = lambda opts, out: int(new(opts, out, ctypes.sizeof(ExporterOptions)))
        self.send = bind("send", st, h, h)
        self.flush = bind("flush", st, h, u32)
        periodic = bind("start_periodic_sized", st, h, h, ctypes.POINTER(c.SerializeOptions), u32,
                        ctypes.c_size_t)
        self.start_periodic = lambda e, r, o, p: int(
            periodic(e, r, o, p, ctypes.sizeof(c.SerializeOptions)))
        stats = bind("stats_sized", st, h, ctypes.POINTER(ExportStats), ctypes.c_size_t)
        self.stats = lambda e, out: int(stats(e, out, ctypes.sizeof(ExportStats)))
        self.shutdown = bind("shutdown", st, h, u32)
        self.reset_after_fork = bind("reset_after_fork", st, h)
        self.free = bind("free", None, h)


_library: _Library | None = None
_library_lock = threading.Lock()


def _lib() -> _Library:
    global _library
    with _library_lock:
        if _library is None:
            _library = _Library()
        return _library


def _attributes(given: MappingType[str, str] | Iterable[tuple[str, str]] | None,
                what: str) -> tuple[Any, int]:
    pairs = list((given.items() if isinstance(given, MappingType) else given) or ())
    array = (c.Attribute * len(pairs))()
    for i, (key, value) in enumerate(pairs):
        array[i].key = convert.to_str(key, f"{what} key")
        array[i].value = convert.to_str(value, f"{what} {key!r}")
    return array, len(pairs)


class Exporter:
    """Sends serialized profiles from a bounded queue on its own thread:
    send() returns at once. protocol is "otlp", "pyroscope", "datadog_agent"
    or "datadog_agentless"; the other options are export.h's
    stackrec_exporter_options (0 or "": the default), but family, which
    Datadog files the profile under, is "python". Safe from several
    threads; close() (or shutdown) waits for the calls under way.
    Exporter.serialize_options(protocol) are the Recorder.serialize
    options whose output that protocol's backend keeps; send() refuses,
    with InvalidArgument naming the rule, what the backend would refuse."""

    _MIB = 1 << 20
    # docs/limits.md's budgets; Pyroscope's names, within its 2 MiB rate
    # burst less room for the series' labels.
    _SERIALIZE_OPTIONS: dict[str, dict[str, Any]] = {
        "otlp": {"format": "otlp", "part_max_uncompressed_bytes": 20 * _MIB},
        "pyroscope": {"format": "pprof", "target": "pyroscope",
                      "part_max_uncompressed_bytes": 2 * _MIB - 96 * 1024,
                      "part_max_samples": 16000},
        "datadog_agent": {"format": "pprof", "part_max_bytes": 10 * _MIB},
        "datadog_agentless": {"format": "pprof", "part_max_bytes": 10 * _MIB},
    }

    @staticmethod
    def serialize_options(protocol: str) -> dict[str, Any]:
        """The Recorder.serialize keyword options for `protocol`'s backend
        (a new dict): recorder.serialize(**Exporter.serialize_options(p))."""
        if protocol not in Exporter._SERIALIZE_OPTIONS:
            raise ValueError(f"protocol must be one of {sorted(PROTOCOLS)}, not {protocol!r}")
        return dict(Exporter._SERIALIZE_OPTIONS[protocol])

    def __init__(self, protocol: str, endpoint: str = "", *, site: str = "", api_key: str = "",
                 app_name: str = "", spy_name: str = "", sample_rate: int = 0,
                 tags: MappingType[str, str] | Iterable[tuple[str, str]] | None = None,
                 basic_auth: tuple[str, str] | None = None, bearer_token: str = "",
                 tenant_id: str = "", family: str = "python", origin: str = "",
                 origin_version: str = "",
                 otlp_development_header: bool = False,
                 headers: MappingType[str, str] | Iterable[tuple[str, str]] | None = None,
                 max_queue_bytes: int = 0, max_queue_requests: int = 0,
                 connect_timeout_ms: int = 0, timeout_ms: int = 0, max_retries: int = 0,
                 initial_backoff_ms: int = 0, max_backoff_ms: int = 0, ca_file: str = "",
                 insecure: bool = False) -> None:
        self._lib = _lib()
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {sorted(PROTOCOLS)}, not {protocol!r}")
        o = ExporterOptions(protocol=PROTOCOLS[protocol])
        strings = {"endpoint": endpoint, "site": site, "api_key": api_key, "app_name": app_name,
                   "spy_name": spy_name, "bearer_token": bearer_token, "tenant_id": tenant_id,
                   "family": family, "origin": origin, "origin_version": origin_version,
                   "ca_file": ca_file}
        if basic_auth is not None:
            strings["basic_auth_user"], strings["basic_auth_password"] = basic_auth
        for field, text in strings.items():
            setattr(o, field, convert.to_str(text, field))
        o.tags, o.tags_len = _attributes(tags, "tags")
        o.headers, o.headers_len = _attributes(headers, "headers")
        o.sample_rate = convert.to_int(sample_rate, "sample_rate", (0, (1 << 32) - 1))
        o.max_queue_bytes = convert.to_int(max_queue_bytes, "max_queue_bytes", convert.SIZE)
        o.max_queue_requests = convert.to_int(max_queue_requests, "max_queue_requests", convert.SIZE)
        for field, number in (("connect_timeout_ms", connect_timeout_ms), ("timeout_ms", timeout_ms),
                              ("initial_backoff_ms", initial_backoff_ms),
                              ("max_backoff_ms", max_backoff_ms)):
            setattr(o, field, convert.to_int(number, field, (0, (1 << 32) - 1)))
        o.max_retries = convert.to_int(max_retries, "max_retries", (-(1 << 31), (1 << 31) - 1))
        o.otlp_development_header = bool(otlp_development_header)
        o.insecure = bool(insecure)
        self._guard = threading.Condition()
        self._calls = 0  # calls under way, each outside the guard's lock
        self._recorder: Recorder | None = None  # kept alive for start_periodic
        handle = c.handle_t()
        check(self._lib.new(ctypes.byref(o), ctypes.byref(handle)))
        self._handle = handle

    def _call(self, function: Any, *args: Any) -> int:
        with self._guard:
            handle = self._handle
            if not handle:
                raise ValueError("this Exporter is closed")
            self._calls += 1
        try:
            return int(function(handle, *args))
        finally:
            with self._guard:
                self._calls -= 1
                if self._calls == 0:
                    self._guard.notify_all()

    def send(self, serialized: Serialized) -> None:
        """Queues every part of what serialize() returned, each a request of
        its own; returns at once. The format must suit the protocol (OTLP:
        format="otlp"; the others pprof)."""
        if not isinstance(serialized, Serialized):
            raise TypeError(f"send takes what serialize() returned, not {type(serialized).__name__}")
        check(self._call(self._lib.send, serialized._encoded.handle))

    def flush(self, timeout_ms: int) -> bool:
        """Waits until everything queued was sent or failed: True; False if
        timeout_ms passed first (the requests go on)."""
        status = self._call(self._lib.flush, convert.to_int(timeout_ms, "timeout_ms", (0, (1 << 32) - 1)))
        if status == Status.TIMED_OUT.code:
            return False
        check(status)
        return True

    def start_periodic(self, recorder: Recorder, period_ms: int, **serialize_options: Any) -> None:
        """Every period_ms, the exporter's thread serializes `recorder` (with
        Recorder.serialize's keyword options; none: the protocol's format and
        budget) and queues the parts. The recorder must stay open until
        shutdown or close, which this Exporter holds it for."""
        options = None
        if serialize_options:
            options = ctypes.byref(convert.serialize_options(
                serialize_options.pop("compression", "gzip"), serialize_options.pop("level", 0),
                serialize_options.pop("format", "pprof"), serialize_options.pop("service_name", ""),
                serialize_options.pop("resource_attributes", None),
                serialize_options.pop("scope_name", ""), serialize_options.pop("scope_version", ""),
                serialize_options.pop("part_max_bytes", 0),
                serialize_options.pop("part_max_uncompressed_bytes", 0),
                serialize_options.pop("part_max_samples", 0), serialize_options.pop("max_parts", 0),
                serialize_options.pop("compress_threads", 0),
                serialize_options.pop("target", "any"), serialize_options.pop("series_labels", ())))
            if serialize_options:
                raise TypeError(f"unknown serialize options {sorted(serialize_options)!r}")
        if not recorder._handle:
            raise ValueError("the Recorder is closed")
        check(self._call(self._lib.start_periodic, recorder._handle, options,
                         convert.to_int(period_ms, "period_ms", (0, (1 << 32) - 1))))
        self._recorder = recorder

    def stats(self) -> ExportStatsDict:
        """What the exporter did: requests sent, retried, failed by cause,
        dropped; the last HTTP status and error (never a key or token)."""
        raw = ExportStats()
        check(self._call(self._lib.stats, ctypes.byref(raw)))
        out: dict[str, Any] = {name: getattr(raw, name) for name, _ in ExportStats._fields_}
        out["last_error"] = raw.last_error.decode("utf-8", "replace")
        return cast(ExportStatsDict, out)

    def reset_after_fork(self) -> None:
        """In a fork child, before anything else: forgets the parent's queue,
        thread and connections; the next send starts a thread again."""
        self._guard = threading.Condition()
        self._calls = 0
        check(self._call(self._lib.reset_after_fork))

    def shutdown(self, timeout_ms: int = 1000) -> bool:
        """Lets the queue drain for up to timeout_ms, then stops: True if
        everything was sent or failed, False if requests were abandoned.
        Later sends raise; stats still work."""
        timeout = convert.to_int(timeout_ms, "timeout_ms", (0, (1 << 32) - 1))
        with self._guard:
            while self._calls:
                self._guard.wait()
            handle = self._handle
            if not handle:
                raise ValueError("this Exporter is closed")
            status = self._lib.shutdown(handle, timeout)
        self._recorder = None
        if status == Status.TIMED_OUT.code:
            return False
        check(status)
        return True

    def close(self) -> None:
        """Shuts down (1 s) and frees the exporter once the calls under way
        have returned."""
        with self._guard:
            handle, self._handle = self._handle, c.handle_t()
            while self._calls:
                self._guard.wait()
        if handle:
            self._lib.free(handle)
        self._recorder = None

    def __enter__(self) -> Exporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self.close()
