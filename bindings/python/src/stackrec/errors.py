# SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
# Copyright 2026 The stackrec Authors.
"""stackrec_status as Python exceptions: one class per status, all under
StackrecError, each carrying the status and stackrec_last_error()'s message.

Status is a str enum whose values are the C names ("STACKREC_BUSY"), so code
written against the first binding, whose .status was that name, still
compares equal. The classes that have a natural Python counterpart also
derive from it (InvalidArgumentError is a ValueError, OutOfMemoryError a
MemoryError), so generic handlers catch them.
"""

from __future__ import annotations

import enum

from . import _native


class Status(str, enum.Enum):
    """A stackrec_status; .code is its number in the header."""

    OK = "STACKREC_OK"
    INVALID_ARGUMENT = "STACKREC_INVALID_ARGUMENT"
    OUT_OF_MEMORY = "STACKREC_OUT_OF_MEMORY"
    LIMIT_EXCEEDED = "STACKREC_LIMIT_EXCEEDED"
    BUSY = "STACKREC_BUSY"
    INTERNAL = "STACKREC_INTERNAL"
    UNSUPPORTED = "STACKREC_UNSUPPORTED"
    TIMED_OUT = "STACKREC_TIMED_OUT"

    @property
    def code(self) -> int:
        return _CODES[self]

    @classmethod
    def from_code(cls, code: int) -> Status:
        """The member for a number; ValueError for one this binding does not know."""
        for member, number in _CODES.items():
            if number == code:
                return member
        raise ValueError(f"{code} is not a stackrec_status this binding knows")


_CODES = {member: number for number, member in enumerate(Status)}


class StackrecError(Exception):
    """A stackrec call failed. .status is the Status, .message the
    library's explanation (stackrec_last_error()), naming the argument."""

    status: Status
    message: str

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(f"{status.value}: {message}")
        self.status = status
        self.message = message

    @property
    def code(self) -> int:
        """The status's number, as the C call returned it."""
        return self.status.code


Error = StackrecError  # the first binding's name for the base class


class InvalidArgumentError(StackrecError, ValueError):
    """STACKREC_INVALID_ARGUMENT: an argument broke the header's rules."""


class OutOfMemoryError(StackrecError, MemoryError):
    """STACKREC_OUT_OF_MEMORY: an allocation failed; nothing changed."""


class LimitExceededError(StackrecError):
    """STACKREC_LIMIT_EXCEEDED: a size or count limit was reached."""


class BusyError(StackrecError):
    """STACKREC_BUSY: another thread is serializing this recorder."""


class InternalError(StackrecError):
    """STACKREC_INTERNAL: a bug in stackrec; please report it."""


class UnsupportedError(StackrecError):
    """STACKREC_UNSUPPORTED: a field this library does not know is set."""


class TimedOutError(StackrecError, TimeoutError):
    """STACKREC_TIMED_OUT: a deadline passed first (the exporter's flush and
    shutdown)."""


_CLASSES: dict[Status, type[StackrecError]] = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.OUT_OF_MEMORY: OutOfMemoryError,
    Status.LIMIT_EXCEEDED: LimitExceededError,
    Status.BUSY: BusyError,
    Status.INTERNAL: InternalError,
    Status.UNSUPPORTED: UnsupportedError,
    Status.TIMED_OUT: TimedOutError,
}


def error_for(code: int) -> StackrecError:
    """The exception for a failed call's status, with this thread's message.
    Must run on the thread that made the call, before its next stackrec
    call: stackrec_last_error() is per thread and overwritten by each
    failure. ctypes makes the call on the calling thread, so it is."""
    message = _native.last_error().decode("utf-8", "replace")
    try:
        status = Status.from_code(code)
    except ValueError:
        # A status appended after this binding was written: still an error.
        return StackrecError(Status.INTERNAL, f"{_native.status_name(code).decode()} ({code}): {message}")
    return _CLASSES[status](status, message)


def check(code: int) -> None:
    """Raises the exception for a failed call's status; nothing for OK."""
    if code != 0:
        raise error_for(code)
