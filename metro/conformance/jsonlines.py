"""Bounded JSON lines: reading one line and one JSON document from an untrusted peer.

Both ends of the engine protocol check lines through these (metro/conformance/adapter.py with
metro/conformance/engine_pipe.py, examples/json_engine.py), so a peer can never make the other side hold a
line longer than `MAX_LINE_BYTES`, recurse on deep nesting, or carry text that is not Unicode.
"""

from __future__ import annotations

import json

MAX_LINE_BYTES = 1 << 20  # one request or answer, without its newline
MAX_DEPTH = 100  # arrays and objects nested deeper than this are refused
_SKIP_CHUNK = 1 << 16


class LineTooLong(ValueError):
    """A line is longer than the limit; the rest of it has not been read."""


def read_line(stream, limit: int = MAX_LINE_BYTES) -> bytes | None:
    """The next line of a binary stream (None at its end); LineTooLong past `limit` bytes."""
    line = stream.readline(limit + 1)
    if not line:
        return None
    if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
        raise LineTooLong(f"a line is longer than the limit of {limit:,} bytes")
    return line


def skip_line(stream) -> None:
    """Read and drop the rest of the current line, in bounded chunks."""
    while True:
        part = stream.readline(_SKIP_CHUNK)
        if not part or part.endswith(b"\n"):
            return


def loads(data: bytes | str, max_depth: int = MAX_DEPTH):
    """One JSON document from a line; ValueError saying why it is not valid UTF-8 JSON within bounds."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"the line is not UTF-8 (byte {error.start + 1})") from None
    try:
        doc = json.loads(data)
    except RecursionError:
        raise ValueError(f"the JSON is nested deeper than {max_depth} levels") from None
    except ValueError as error:  # JSONDecodeError, and integers longer than Python's digit limit
        raise ValueError(f"the line is not JSON ({error})") from None
    _check(doc, max_depth)
    return doc


def _check(doc, max_depth: int) -> None:
    # An explicit stack: the document may be as deep as json.loads allows before recursing.
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
        elif isinstance(value, list | dict):
            if depth > max_depth:
                raise ValueError(f"the JSON is nested deeper than {max_depth} levels")
            if isinstance(value, dict):
                for key in value:
                    _check_text(key)
                value = value.values()
            stack.extend((item, depth + 1) for item in value)


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"a JSON string holds a lone surrogate (\\u{ord(text[error.start]):04x}), "
                "which is not text"
            ) from None


def dumps(doc) -> bytes:
    """One JSON line, UTF-8; a lone surrogate in `doc` is written as its \\u escape."""
    try:
        return (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(doc) + "\n").encode("ascii")
