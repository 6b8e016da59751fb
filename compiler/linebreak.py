"""Long generated lines broken inside their brackets, so a module reads line by line.

A statement the writer holds as one line (a deep expression of the rules, a call with many
arguments) is laid out the way a person would: the widest bracket pair opened outside all
others is broken after its opening bracket, its contents one part a line (split at its commas,
else before its comprehension clauses, its `if`, its `or`, its `and`), each part broken
again when still too long, and the closing bracket back at the statement's indentation.

Python joins lines inside brackets, so the code is the same. The line's tokens (Python's own
`tokenize`) tell where brackets and strings are; a line that is not one whole statement on its
own (a table the writer opens on one line and closes on another) is left as it is.
"""

from __future__ import annotations

import io
import itertools
import tokenize
from dataclasses import dataclass

WIDTH = 100  # a line longer than this is broken where it can be
INDENT = "    "
MAX_LEVELS = 8
SHORT = 24  # a bracket whose parts are all this short has them side by side
_OPENING = {"(": ")", "[": "]", "{": "}"}
_CLOSING = frozenset(_OPENING.values())
# Where a bracket's contents may be split, best first: each group is tried alone. A part
# starts with the word (`for`, `and`, …); after a comma the part ends with it.
_SPLIT_BEFORE = (("for", "async"), ("if",), ("or",), ("and",))
# Inside a bracket a part may also be cut before an operator, loosest first.
_OPERATORS = (("==", "!=", "<", "<=", ">", ">="), ("+", "-"), ("*", "//", "%"))
# Tokens that open and close an f-string's parts (Python 3.12 splits f-strings into tokens).
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True, slots=True)
class _Token:
    """A token's text and its columns on the line, with its bracket depth before it."""

    text: str
    start: int
    end: int
    depth: int


def broken(line: str, width: int = WIDTH) -> list[str]:
    """`line` (one whole statement) as lines of at most `width` characters where its brackets
    allow, else as it is."""
    indent = line[: len(line) - len(line.lstrip())]
    return _broken(line, width, indent, inside=False)


def _broken(line: str, width: int, statement: str, inside: bool) -> list[str]:
    """`line` broken; `statement` is its statement's indentation, `inside` whether the line is
    within a bracket (so it may also be cut outside its own brackets)."""
    indent = line[: len(line) - len(line.lstrip())]
    deepest = len(indent) >= len(statement) + MAX_LEVELS * len(INDENT)
    # At the deepest level a part keeps its line unless that is very long: a staircase of
    # one-word lines reads worse than a long line.
    if len(line) <= (2 * width if deepest else width):
        return [line]
    closers = ""
    if inside:  # a part may start with the brackets it closes: they go on a line of their own
        closers = line[len(indent) : len(line) - len(line[len(indent) :].lstrip(")]}"))]
        if closers:
            rest = indent + line[len(indent) + len(closers) :].lstrip()
            return [indent + closers, *_broken(rest, width, statement, inside)]
    tokens = _tokens(line)
    if not tokens:
        return [line]
    if inside:
        pieces = _cut_at_depth(line, tokens, 0, _SPLIT_BEFORE + _OPERATORS)
        if len(pieces) > 1:
            return [
                out for piece in pieces for out in _broken(indent + piece, width, statement, True)
            ]
    pairs = _pairs_to_break(line, tokens, width)
    if not pairs:
        return [line]
    # Deep parts stay at most MAX_LEVELS deeper than their statement (Python does not mind).
    deeper = indent if deepest else indent + INDENT
    out: list[str] = []
    glue_from = 0  # each pair's opening ends a line, its closing starts one: all within brackets
    for opening, closing in pairs:
        glue = line[glue_from : tokens[opening].end]
        out.append(glue if glue_from == 0 else indent + glue)
        depth = tokens[opening].depth + 1
        parts = _parts(line, tokens[opening + 1 : closing], depth)
        if all(len(part) <= SHORT for part in parts):  # short items (a table's) fill lines
            out += _filled(parts, deeper, width)
            glue_from = tokens[closing].start
            continue
        for part in parts:
            out += _broken(deeper + part, width, statement, True)
        glue_from = tokens[closing].start
    return out + _broken(indent + line[glue_from:], width, statement, inside)


def _filled(parts: list[str], indent: str, width: int) -> list[str]:
    """Short parts side by side on lines of at most `width` characters."""
    lines = [indent + parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 1 + len(part) > width:
            lines.append(indent + part)
        else:
            lines[-1] += " " + part
    return lines


def _pairs_to_break(line: str, tokens: list[_Token], width: int) -> list[tuple[int, int]]:
    """The bracket pairs opened at depth 0 to break, in order: the widest, then the widest in
    what is still too long between them (a head, a middle or a tail), while there is one."""
    pairs = _depth_zero_pairs(tokens)
    chosen: list[tuple[int, int]] = []
    while True:
        bounds = [0, *(c for pair in chosen for c in (tokens[pair[0]].end, tokens[pair[1]].start))]
        bounds.append(len(line))
        spans = list(zip(bounds[::2], bounds[1::2], strict=True))
        long = [(a, b) for a, b in spans if b - a > width]
        candidates = [
            pair
            for pair in pairs
            if pair not in chosen
            and any(a <= tokens[pair[0]].start and tokens[pair[1]].end <= b for a, b in long)
            and tokens[pair[1]].start > tokens[pair[0]].end
        ]
        if not candidates:
            return sorted(chosen)
        chosen.append(max(candidates, key=lambda pair: tokens[pair[1]].start - tokens[pair[0]].end))
        chosen.sort()


def _depth_zero_pairs(tokens: list[_Token]) -> list[tuple[int, int]]:
    """The (opening, closing) token indexes of the bracket pairs opened at depth 0."""
    pairs: list[tuple[int, int]] = []
    opened: int | None = None
    for number, token in enumerate(tokens):
        if token.depth != 0:
            continue
        if token.text in _OPENING:
            opened = number
        elif token.text in _CLOSING and opened is not None:
            pairs.append((opened, number))
            opened = None
    return pairs


def _tokens(line: str) -> list[_Token] | None:
    """The line's tokens with their bracket depths; None unless it is one balanced statement."""
    out: list[_Token] = []
    depth = fstrings = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
                continue
            if token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT):
                continue
            if token.start[0] != 1 or token.end[0] != 1:
                return None  # a string over lines: not the writer's one-line statement
            if _FSTRING_START is not None and token.type == _FSTRING_START:
                fstrings += 1
            elif _FSTRING_END is not None and token.type == _FSTRING_END:
                fstrings -= 1
            elif fstrings:
                continue  # inside an f-string: its brackets are not the line's
            opens = token.type == tokenize.OP and token.string in _OPENING
            closes = token.type == tokenize.OP and token.string in _CLOSING
            depth -= closes
            out.append(_Token(token.string, token.start[1], token.end[1], depth))
            depth += opens
            if depth < 0:
                return None
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return out if depth == 0 else None


def _parts(line: str, inside: list[_Token], depth: int) -> list[str]:
    """A bracket's contents split into parts at `depth`: at commas, else before a keyword, else
    one part."""
    commas = [t for t in inside if t.depth == depth and t.text == ","]
    if commas:
        cuts = [t.end for t in commas if t is not inside[-1]]
        return _cut(line, inside, cuts)
    return _cut_at_depth(line, inside, depth, _SPLIT_BEFORE)


def _cut_at_depth(line: str, tokens: list[_Token], depth: int, groups) -> list[str]:
    """The tokens' text cut before the words of the first group found at `depth` (else whole)."""
    for words in groups:
        cuts = [t.start for t in tokens[1:] if t.depth == depth and t.text in words]
        if cuts:
            return _cut(line, tokens, cuts)
    return _cut(line, tokens, [])


def _cut(line: str, inside: list[_Token], cuts: list[int]) -> list[str]:
    """The text from the first to the last token of `inside`, cut at the columns `cuts`."""
    bounds = [inside[0].start, *cuts, inside[-1].end]
    parts = [line[a:b].strip() for a, b in itertools.pairwise(bounds)]
    return [part for part in parts if part]
