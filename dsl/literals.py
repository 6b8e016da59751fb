"""Literal text to values: string escapes read, integer literals range-checked."""

from __future__ import annotations

from lark import Token

from dsl.diagnostics import INT_RANGE, SYNTAX

# Integers are 64-bit signed values: a literal must lie below INT_LIMIT. The runtime keeps
# its own copy (runtime.values.INT_LIMIT) for the values games compute, and
# tests/test_imports.py asserts the two are equal. A copy rather than a shared import
# because the language and the runtime are the two bottom layers: neither may import the
# other, and the exact range check belongs here, at the literal, where the diagnostic
# can quote the text as written (leading zeros and all).
INT_BITS = 64
INT_LIMIT = 2 ** (INT_BITS - 1)

# A longer literal is refused before `int()` reads it (a megabyte of digits is slow to convert).
_MAX_INT_DIGITS = len(str(INT_LIMIT - 1))

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\"}


class Refused(Exception):
    """Text the parser matched but the language refuses, raised from inside the parser."""

    code = INT_RANGE

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.where = (line or 1, column or 1)


class BadEscape(Refused):
    """A string escape that is not a character (half of a surrogate pair)."""

    code = SYNTAX


def unquote(token: Token) -> str:
    """The text of a STRING token, its quotes removed and its escapes read."""
    body = str(token)[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u" and _is_hex(body[i + 2 : i + 6]):
                code = int(body[i + 2 : i + 6], 16)
                i += 6
                if (
                    0xD800 <= code <= 0xDBFF
                    and body[i : i + 2] == "\\u"
                    and _is_hex(body[i + 2 : i + 6])
                ):
                    low = int(body[i + 2 : i + 6], 16)
                    if (
                        0xDC00 <= low <= 0xDFFF
                    ):  # a UTF-16 pair written as two escapes: one character
                        out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                        i += 6
                        continue
                if 0xD800 <= code <= 0xDFFF:
                    raise BadEscape(
                        f"'\\u{code:04x}' is half of a surrogate pair, not a character",
                        token.line,
                        token.column + i - 5,
                    )
                out.append(chr(code))
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _is_hex(text: str) -> bool:
    return len(text) == 4 and all(c in "0123456789abcdefABCDEF" for c in text)


def integer(token: Token) -> int:
    """The value of an INT token; Refused (error[int-range]) if it is INT_LIMIT or more."""
    text = str(token)
    value = int(text) if len(text.lstrip("0")) <= _MAX_INT_DIGITS else INT_LIMIT
    if value >= INT_LIMIT:
        shown = text if len(text) <= 30 else f"{text[:12]}...({len(text)} digits)"
        raise Refused(
            f"the integer {shown} is larger than the limit of {INT_LIMIT - 1} (2**{INT_BITS - 1} - 1)",
            token.line,
            token.column,
        )
    return value
