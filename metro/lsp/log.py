"""The server's log on standard error, which editors show: one line a message, no tracebacks.

pygls logs what it cannot handle with the whole traceback (inside the message, or as the
record's exception); a user reading the editor's log gets the first line of each instead.
"""

from __future__ import annotations

import logging
import sys


class FirstLine(logging.Formatter):
    """A record as `metro lsp: LEVEL: its message's first line`, without its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """The record on one line."""
        first = record.getMessage().strip().split("\n", 1)[0]
        return f"metro lsp: {record.levelname.lower()}: {first}"


def log_to_stderr() -> None:
    """Send warnings and errors of the server and of pygls to standard error, a line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(FirstLine())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
