"""The server's input read frame by frame, so that one bad frame cannot stop or sink the server.

pygls reads `Content-Length` frames itself and trusts them: a huge length is allocated
at once, and a frame without a length makes it read the next frames' bodies as headers
for ever after. `FramedInput` stands between the standard input and pygls (which reads
its input only through `readline` and `read`): it passes on whole, well-formed frames of
at most `MAX_FRAME_BYTES`, skips any other frame up to the next `Content-Length` header
(reading it in bounded pieces), and puts in its place a `REFUSED_FRAME` request that the
server answers with a JSON-RPC error, so a client waiting on that request hears why.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

# The largest message body accepted: 32 MiB. The compiler refuses rule files over 2 MiB
# (dsl.input_checks.MAX_FILE_BYTES); such a file sent whole as JSON, escapes and all, fits.
MAX_FRAME_BYTES = 32 * 1024 * 1024
# The longest header line; a longer line is not a header, so the frame is skipped.
MAX_HEADER_LINE = 1024
# Input read at a time while skipping a bad frame.
SKIP_CHUNK = 64 * 1024
# How much of a skipped frame is kept to find the id of the request it carried.
KEPT_OF_SKIPPED = 64 * 1024
# The request that stands for a skipped frame; the server answers it with an error.
REFUSED_FRAME = "metro/refusedFrame"
INVALID_REQUEST = -32600  # JSON-RPC's code for a message that is not a valid request

CONTENT_LENGTH = b"Content-Length: "
HEADER = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r\n")
LENGTH_HEADER = re.compile(rb"Content-Length: *(\d+) *\r\n", re.IGNORECASE)
MESSAGE_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


@dataclass(frozen=True)
class Frame:
    """One message body, with its header block."""

    body: bytes

    def lines(self) -> list[bytes]:
        """The header lines pygls reads before the body."""
        return [b"Content-Length: %d\r\n" % len(self.body), b"\r\n"]


class FramedInput(io.BufferedIOBase):
    """A byte stream of well-formed frames, read from one that may hold bad ones."""

    def __init__(self, raw: BinaryIO):
        super().__init__()
        self.raw = raw
        self.pending = b""  # read from `raw` but not yet used
        self.header_lines: list[bytes] = []  # what `readline` returns next
        self.body = b""  # what `read` returns next

    # ------------------------------------------------------------ what pygls calls

    def readable(self) -> bool:
        """Whether it can be read: yes."""
        return True

    def readline(self, size: int | None = -1) -> bytes:
        """The next header line of a good frame (b"" at the end of the input; `size` unused)."""
        if not self.header_lines:
            frame = self.next_frame()
            if frame is None:
                return b""
            self.header_lines, self.body = frame.lines(), frame.body
        return self.header_lines.pop(0)

    def read(self, size: int | None = -1) -> bytes:
        """The body of the frame whose header was just read (all of it if `size` is None or -1)."""
        size = len(self.body) if size is None or size < 0 else size
        body, self.body = self.body[:size], self.body[size:]
        return body

    # ------------------------------------------------------------ reading frames

    def next_frame(self) -> Frame | None:
        """The next good frame, or a refusal in place of a bad one (None at the end)."""
        length: int | None = None
        while True:
            line = self.line(MAX_HEADER_LINE)
            if not line:
                return None
            if line == b"\r\n" and length is not None:
                return self.body_of(length)
            if line == b"\r\n":
                return self.skip("a frame without a Content-Length header", line)
            found = LENGTH_HEADER.fullmatch(line)
            if found is not None:
                length = int(found[1])
            elif not HEADER.fullmatch(line):
                return self.skip("a frame that does not start with a header", line)

    def body_of(self, length: int) -> Frame:
        """The frame of a body of `length` bytes, or a refusal if it is over the limit."""
        if length > MAX_FRAME_BYTES:
            return self.skip(
                f"a frame of {length} bytes (the limit is {MAX_FRAME_BYTES} bytes)", b""
            )
        return Frame(self.exactly(length))

    def skip(self, what: str, seen: bytes) -> Frame:
        """Read on to the next `Content-Length` header; a refusal of the frame skipped."""
        kept = seen  # where the skipped request's id is looked for (the first "id" is its)
        after = 1  # a bad line that starts like a header is skipped, not read again
        while True:
            start = seen.find(CONTENT_LENGTH, after)
            after = 0
            if start >= 0:
                self.pending = seen[start:] + self.pending
                break
            carried = seen[-(len(CONTENT_LENGTH) - 1) :]  # a header may straddle two pieces
            piece = self.line(SKIP_CHUNK)
            if not piece:
                break
            if len(kept) < KEPT_OF_SKIPPED:
                kept += piece
            seen = carried + piece
        return refusal(what, kept[:KEPT_OF_SKIPPED])

    def line(self, limit: int) -> bytes:
        """One line of the input, or its first `limit` bytes."""
        end = self.pending.find(b"\n", 0, limit)
        if end < 0 and len(self.pending) < limit:
            self.pending += self.raw.readline(limit - len(self.pending))
            end = self.pending.find(b"\n", 0, limit)
        cut = end + 1 if end >= 0 else limit
        line, self.pending = self.pending[:cut], self.pending[cut:]
        return line

    def exactly(self, size: int) -> bytes:
        """The next `size` bytes of the input (fewer at its end)."""
        data, self.pending = self.pending[:size], self.pending[size:]
        while len(data) < size:
            more = self.raw.read(size - len(data))
            if not more:
                break
            data += more
        return data


def refusal(what: str, skipped: bytes) -> Frame:
    """A request that stands for a skipped frame, with the id of the request it held if any."""
    request = refusal_request(message_id_in(skipped), f"skipped {what}")
    return Frame(json.dumps(request).encode())


def message_id_in(text: bytes) -> int | str | None:
    """The id of the request in a text that may not be whole JSON (None if none is seen)."""
    found = MESSAGE_ID.search(text)
    return json.loads(found[1]) if found else None


def refusal_request(
    message_id: int | str | None, reason: str, code: int = INVALID_REQUEST
) -> dict[str, Any]:
    """The `REFUSED_FRAME` request answered by the error `code` with `reason` to request `message_id`."""
    return {
        "jsonrpc": "2.0",
        "id": message_id,
        "method": REFUSED_FRAME,
        "params": {"reason": reason, "code": code},
    }
