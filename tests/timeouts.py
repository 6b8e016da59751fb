"""A time limit for one test step: a hang becomes a failure (SIGALRM; main thread only)."""

from __future__ import annotations

import signal
from contextlib import contextmanager


class TooSlow(BaseException):
    """A step took longer than its time limit."""


@contextmanager
def time_limit(seconds: float):
    """Raise TooSlow inside the block after `seconds` (SIGALRM; main thread only)."""

    def expire(signum, frame):
        raise TooSlow(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
