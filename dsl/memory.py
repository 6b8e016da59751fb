"""Pausing Python's cycle collector while large acyclic trees are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Turn the cycle collector off for the block (it would rescan every new node many times)."""
    # Parsing and checking allocate hundreds of thousands of nodes and no garbage cycles
    # to speak of; the collector's repeated full passes cost a quarter of the time on a
    # 1 MiB file. Whatever cycles do appear are collected once it is back on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
