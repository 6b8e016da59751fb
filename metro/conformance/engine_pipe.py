"""An engine's pipes read and written on demand, each wait bounded, and what a run allows in all.

Nothing is read ahead of a request: an engine that writes without being asked fills its own
pipe, never our memory. A line over its limit is reported and skipped, every byte read counts
against what the whole run allows (restarted engines included), and no wait outlasts the
request's timeout or the run's deadline.
"""

from __future__ import annotations

import math
import os
import select
import time
from dataclasses import dataclass

from metro.conformance.jsonlines import MAX_LINE_BYTES, LineTooLong

MAX_RUN_BYTES = 256 << 20  # answers of a whole run; a shipped game's full vectors take 4 MB
RUN_DEADLINE = 1800.0  # seconds a whole run may take by default; the same vectors take 3 s
_CHUNK = 1 << 16


@dataclass
class RunLimits:
    """What one run allows all its engines together: bytes of answers, and a deadline."""

    # Unbounded unless given (as `metro conform` does): an engine kept for a long session of
    # generated tests may answer gigabytes, each line still bounded.
    max_bytes: float = math.inf
    deadline: float = math.inf  # a time.monotonic() reading after which nothing more is awaited
    used_bytes: int = 0

    @classmethod
    def lasting(cls, seconds: float, max_bytes: int = MAX_RUN_BYTES) -> RunLimits:
        """Limits for a run (of `metro conform`) that starts now and may last `seconds`."""
        return cls(max_bytes, time.monotonic() + seconds)


class OutOfRun(Exception):
    """The run's deadline passed, or its engines wrote more than the run allows."""


class AnswerTimeout(Exception):
    """No whole answer (or no room for a request) within the request's timeout."""


class AnswerPipe:
    """Answer lines from an engine's stdout, read only when one is awaited."""

    def __init__(self, fd: int, limits: RunLimits, line_limit: int = MAX_LINE_BYTES):
        self.fd = fd
        self.limits = limits
        self.line_limit = line_limit
        self._buffer = bytearray()
        self._skipping = False  # the rest of an overlong line is still to be dropped
        self._ended = False

    def unasked(self) -> bytes:
        """What the engine has written since its last answer (a breach: nothing was asked), or b""."""
        idle = not self._skipping and not self._buffer and not self._ended
        if idle and select.select([self.fd], [], [], 0)[0]:
            self._take()
        return b"" if self._skipping else bytes(self._buffer[:200])

    def read_line(self, timeout: float) -> bytes | None:
        """The next answer line (None once the engine closed its output); LineTooLong past the limit."""
        until = time.monotonic() + timeout
        while True:
            line = self._line_in_buffer()
            if line is not None:
                return line
            if self._ended:
                rest, self._buffer = bytes(self._buffer), bytearray()
                return None if self._skipping or not rest else rest
            self._wait_readable(until)
            self._take()

    def _line_in_buffer(self) -> bytes | None:
        end = self._buffer.find(b"\n")
        if self._skipping:
            if end < 0:
                self._buffer.clear()
                return None
            del self._buffer[: end + 1]
            self._skipping = False
            end = self._buffer.find(b"\n")
        if end > self.line_limit or (end < 0 and len(self._buffer) > self.line_limit):
            self._skipping = True  # what is left of the line is dropped on the next read
            raise LineTooLong(f"a line is longer than the limit of {self.line_limit:,} bytes")
        if end < 0:
            return None
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def _wait_readable(self, until: float) -> None:
        while not select.select([self.fd], [], [], _wait(until, self.limits))[0]:
            pass

    def _take(self) -> None:
        chunk = os.read(self.fd, _CHUNK)
        if not chunk:
            self._ended = True
            return
        self.limits.used_bytes += len(chunk)
        if self.limits.used_bytes > self.limits.max_bytes:
            raise OutOfRun(
                f"the engine wrote more than {self.limits.max_bytes:,} bytes over this run"
            )
        self._buffer += chunk


def send(fd: int, data: bytes, timeout: float, limits: RunLimits) -> None:
    """Write a whole request, never waiting past the timeout or the deadline (OSError if closed)."""
    until = time.monotonic() + timeout
    view = memoryview(data)
    while view:
        if not select.select([], [fd], [], _wait(until, limits))[1]:
            continue
        # PIPE_BUF bytes always fit once select says writable: a write never blocks.
        view = view[os.write(fd, view[: select.PIPE_BUF]) :]


def _wait(until: float, limits: RunLimits) -> float:
    """Seconds left to wait: AnswerTimeout or OutOfRun once none are."""
    now = time.monotonic()
    if limits.deadline <= now:
        raise OutOfRun("the run's deadline passed")
    if until <= now:
        raise AnswerTimeout
    return min(until, limits.deadline) - now
