"""Action ids: the exact text form of an action and its arguments, and its parser.

An id is written by `Action.id` and read back by `Game.parse_action`; every legal action's id
parses back to that action. The grammar (EBNF; `SP` is one space character U+0020):

    id        = name , [ "(" , value , { "," , value } , ")" ] ;
    value     = atom | list | tuple ;
    list      = "[" , [ value , { SP , value } ] , "]" ;
    tuple     = "(" , [ value , { SP , value } ] , ")" ;
    atom      = bare | quoted ;
    name      = bare ;
    bare      = bare char , { bare char } ;
    bare char = ? any character except whitespace and , ( ) [ ] " \\ ? ;
    quoted    = ? a JSON string literal: "..." with \\" \\\\ \\n \\t \\uXXXX ... escapes ? ;

How values are written:

    integer            decimal digits, `-` first when negative: 0, 12, -3
    truth value        yes | no
    none (an optional) none
    player             P1, P2, ...
    text, enum value,  bare when the text is plain, else quoted: red, R003, "El Paso",
    map element        "a,b", "x\\"y", "none", "5", ""
    list               list: [T05 T12]
    tuple              tuple: (0 0 2 0)

A text is *plain* when it is not empty, every character is a printable bare char, it is not
`none`, `yes` or `no`, and it does not start like a number (a digit, or `+`, `-` or `.` then a
digit). Only plain texts are written bare, so the ids of ordinary values read as before and no
two values of one type share an id. Reading accepts either form for a text or a name (`red` or
`"red"`); a bare `none` is the none value, a quoted `"none"` the text or element named none.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

MAX_DEPTH = 100  # brackets nested deeper than this in an id are refused (no type nests so deep)

_SPECIAL = frozenset(',()[]"\\')
_BARE = re.compile(r'[^\s,()\[\]"\\]+')
_QUOTED = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.S)
_NUMBER_LIKE = re.compile(r"[+\-.]?[0-9]")
_WORDS = frozenset(("none", "yes", "no"))
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


@dataclass(frozen=True, slots=True)
class Atom:
    """A word of an id: its text, and whether it was written quoted."""

    text: str
    quoted: bool = False

    def __str__(self) -> str:
        return quote(self.text) if self.quoted else self.text


@dataclass(frozen=True, slots=True)
class Group:
    """A bracketed value: `[` for a list, `(` for a tuple, with its items."""

    open: str
    items: tuple

    def __str__(self) -> str:
        return self.open + " ".join(map(str, self.items)) + _CLOSE[self.open]


_CLOSE = {"[": "]", "(": ")"}


def is_plain(text: str) -> bool:
    """True when `text` may be written bare in an id."""
    return (
        bool(text)
        and text not in _WORDS
        and not _NUMBER_LIKE.match(text)
        and all(c.isprintable() and c not in _SPECIAL and not c.isspace() for c in text)
    )


def quote(text: str) -> str:
    """`text` as a JSON string literal whose every character is printable."""
    out = ['"']
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif char.isprintable():
            out.append(char)
        elif ord(char) > 0xFFFF:  # written as its UTF-16 surrogate pair, as JSON does
            code = ord(char) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    out.append('"')
    return "".join(out)


def atom(text: str) -> str:
    """A text or name as an id atom: bare when plain, else quoted."""
    return text if is_plain(text) else quote(text)


def parse_id(text: str) -> tuple[str, tuple]:
    """An id's action name and argument nodes (ValueError, naming the column, if malformed)."""
    if not isinstance(text, str):
        raise ValueError(f"an action id is text, not {type(text).__name__}")
    reader = _Reader(text)
    name = reader.bare()
    if name is None:
        raise reader.error("expected an action name")
    if reader.at_end():
        return name, ()
    reader.expect("(")
    args = [reader.value()]
    while reader.peek() == ",":
        reader.pos += 1
        args.append(reader.value())
    reader.expect(")")
    if not reader.at_end():
        raise reader.error("unexpected text after the closing ')'")
    return name, tuple(args)


def parse_value(text: str):
    """One value's node, e.g. from `[T05 T12]` (ValueError if malformed)."""
    reader = _Reader(text)
    node = reader.value()
    if not reader.at_end():
        raise reader.error("unexpected text after the value")
    return node


class _Reader:
    """A cursor over an id; values are read with an explicit stack, so depth costs no recursion."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def at_end(self) -> bool:
        return self.pos == len(self.text)

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def error(self, what: str) -> ValueError:
        shown = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return ValueError(f"malformed action id {shown!r}: {what} at column {self.pos + 1}")

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = f"{self.peek()!r}" if self.peek() else "the end"
            raise self.error(f"expected '{char}', found {found}")
        self.pos += 1

    def bare(self) -> str | None:
        match = _BARE.match(self.text, self.pos)
        if match is None:
            return None
        self.pos = match.end()
        return match.group()

    def atom(self) -> Atom:
        if self.peek() == '"':
            match = _QUOTED.match(self.text, self.pos)
            if match is None:
                raise self.error("unterminated or invalid quoted text")
            try:
                value = json.loads(match.group())
            except ValueError:
                raise self.error("invalid escape in quoted text") from None
            self.pos = match.end()
            return Atom(value, quoted=True)
        word = self.bare()
        if word is None:
            found = f"{self.peek()!r}" if self.peek() else "the end"
            raise self.error(f"expected a value, found {found}")
        return Atom(word)

    def value(self):
        # Each open group is (its bracket, its items so far); items are separated by one space.
        stack: list[tuple[str, list]] = []
        while True:
            char = self.peek()
            if char in _CLOSE:
                if len(stack) >= MAX_DEPTH:
                    raise self.error(f"brackets nested deeper than {MAX_DEPTH} levels")
                self.pos += 1
                stack.append((char, []))
                if self.peek() != _CLOSE[char]:
                    continue
                node = None  # an empty group: closed just below
            else:
                node = self.atom()
            while stack:
                opener, items = stack[-1]
                if node is not None:
                    items.append(node)
                if self.peek() == " ":
                    self.pos += 1
                    break
                self.expect(_CLOSE[opener])
                stack.pop()
                node = Group(opener, tuple(items))
            else:
                return node
