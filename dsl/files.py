"""Bounded reads of regular files only: the one way metro reads a rule file or a cache entry."""

from __future__ import annotations

import os
import stat


class UnreadableFile(Exception):
    """A file that is missing, not a regular file, too large, or cannot be read; `reason` says which."""

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def read_regular(path: str, limit: int, follow_links: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (UnreadableFile otherwise)."""
    try:
        before = os.stat(path) if follow_links else os.lstat(path)
    except (OSError, ValueError) as error:
        raise UnreadableFile(path, _reason(error)) from None
    # Checked before opening: opening a FIFO blocks, and opening a device can have effects.
    if not stat.S_ISREG(before.st_mode):
        raise UnreadableFile(path, "cannot read file: not a regular file")
    if before.st_size > limit:
        raise UnreadableFile(path, _too_large(limit))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOCTTY", 0) | (0 if follow_links else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise UnreadableFile(path, _reason(error)) from None
    try:
        after = os.fstat(fd)
        # The name may have been swapped for something else between stat and open.
        if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (
            before.st_dev,
            before.st_ino,
        ):
            raise UnreadableFile(path, "cannot read file: not a regular file")
        chunks = []
        left = limit + 1  # /proc files report size 0: the read itself is bounded too
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise UnreadableFile(path, _reason(error)) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise UnreadableFile(path, _too_large(limit))
    return data


def _too_large(limit: int) -> str:
    if limit % (1024 * 1024) == 0:
        return f"file is larger than the limit of {limit // 1024 // 1024} MiB"
    return f"file is larger than the limit of {limit} bytes"


def _reason(error: Exception) -> str:
    return f"cannot read file: {getattr(error, 'strerror', None) or error}"
