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
    if len(line) <= width:
        return [line]
    tokens = _tokens(line)
    if not tokens:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    return _Layout(line, tokens, width, indent).piece(0, len(tokens), indent, inside=False)


class _Layout:
    """One statement's tokens (read once) laid out piece by piece; a piece is a run of tokens."""

    def __init__(self, line: str, tokens: list[_Token], width: int, statement: str):
        self.line, self.tokens, self.width = line, tokens, width
        self.deepest = len(statement) + MAX_LEVELS * len(INDENT)  # the deepest indentation

    def text(self, lo: int, hi: int) -> str:
        """The text of tokens lo..hi-1 as the line has it."""
        return self.line[self.tokens[lo].start : self.tokens[hi - 1].end]

    def piece(self, lo: int, hi: int, indent: str, inside: bool) -> list[str]:
        """Tokens lo..hi-1 as lines at `indent`; `inside` a bracket, a piece may also be cut
        outside its own brackets (Python joins lines there)."""
        text = self.text(lo, hi)
        deepest = len(indent) >= self.deepest
        # At the deepest level a piece keeps its line unless that is very long: a staircase
        # of one-word lines reads worse than a long line.
        if len(indent) + len(text) <= (2 * self.width if deepest else self.width):
            return [indent + text]
        tokens = self.tokens
        if inside:
            first = lo
            while first < hi and tokens[first].text in _CLOSING:
                first += 1
            if first > lo:  # the brackets it closes first, on a line of their own
                rest = self.piece(first, hi, indent, inside) if first < hi else []
                return [indent + self.text(lo, first), *rest]
            cuts = self.cuts(lo, hi, tokens[lo].depth, _SPLIT_BEFORE + _OPERATORS)
            if cuts:
                return [line for a, b in cuts for line in self.piece(a, b, indent, True)]
        pairs = self.pairs_to_break(lo, hi, len(indent))
        if not pairs:
            return [indent + text]
        deeper = indent if deepest else indent + INDENT
        out: list[str] = []
        glue = lo  # each pair's opening ends a line, its closing starts one: all within brackets
        for opening, closing in pairs:
            out.append(indent + self.text(glue, opening + 1))
            parts = self.parts(opening + 1, closing, tokens[opening].depth + 1)
            if all(len(self.text(a, b)) <= SHORT for a, b in parts):  # a table's items
                out += _filled([self.text(a, b) for a, b in parts], deeper, self.width)
            else:
                for a, b in parts:
                    out += self.piece(a, b, deeper, True)
            glue = closing
        return out + self.piece(glue, hi, indent, inside)

    def parts(self, lo: int, hi: int, depth: int) -> list[tuple[int, int]]:
        """A bracket's contents (tokens lo..hi-1) as parts at `depth`: cut after its commas,
        else before a keyword, else one part."""
        if lo >= hi:
            return []
        commas = [n for n in range(lo, hi - 1) if self._at(n, depth, ",")]
        if commas:
            bounds = [lo, *(n + 1 for n in commas), hi]
            return list(itertools.pairwise(bounds))
        return self.cuts(lo, hi, depth, _SPLIT_BEFORE) or [(lo, hi)]

    def cuts(self, lo: int, hi: int, depth: int, groups) -> list[tuple[int, int]]:
        """Tokens lo..hi-1 cut before the words of the first group found at `depth` (else [])."""
        for words in groups:
            at = [
                n
                for n in range(lo + 1, hi)
                if self.tokens[n].depth == depth and self.tokens[n].text in words
            ]
            if at:
                return list(itertools.pairwise([lo, *at, hi]))
        return []

    def _at(self, n: int, depth: int, text: str) -> bool:
        return self.tokens[n].depth == depth and self.tokens[n].text == text

    def pairs_to_break(self, lo: int, hi: int, indent: int) -> list[tuple[int, int]]:
        """The bracket pairs of the piece's outer level to break, in order: the widest, then
        the widest in what is still too long between them, while there is one."""
        tokens = self.tokens
        pairs = self.outer_pairs(lo, hi)
        chosen: list[tuple[int, int]] = []
        while True:
            edges = [tokens[lo].start]
            for opening, closing in chosen:
                edges += [tokens[opening].end, tokens[closing].start]
            edges.append(tokens[hi - 1].end)
            long = [
                (a, b)
                for a, b in zip(edges[::2], edges[1::2], strict=True)
                if indent + b - a > self.width
            ]
            candidates = [
                (opening, closing)
                for opening, closing in pairs
                if (opening, closing) not in chosen
                and closing > opening + 1
                and any(a <= tokens[opening].start and tokens[closing].end <= b for a, b in long)
            ]
            if not candidates:
                return sorted(chosen)
            chosen.append(max(candidates, key=lambda p: tokens[p[1]].start - tokens[p[0]].end))
            chosen.sort()

    def outer_pairs(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The (opening, closing) indexes of the bracket pairs at the piece's outer level."""
        depth = self.tokens[lo].depth
        pairs: list[tuple[int, int]] = []
        opened: int | None = None
        for n in range(lo, hi):
            token = self.tokens[n]
            if token.depth != depth:
                continue
            if token.text in _OPENING:
                opened = n
            elif token.text in _CLOSING and opened is not None:
                pairs.append((opened, n))
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


def _filled(parts: list[str], indent: str, width: int) -> list[str]:
    """Short parts side by side on lines of at most `width` characters."""
    lines = [indent + parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 1 + len(part) > width:
            lines.append(indent + part)
        else:
            lines[-1] += " " + part
    return lines
