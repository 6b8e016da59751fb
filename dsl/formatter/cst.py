"""The concrete syntax tree the formatter lays out: every token kept, comments placed.

The compiler's parser builds the AST as it parses and drops punctuation and comments; the
formatter needs both. This parser reads the same grammar keeping every token, and
`CommentTable` gives each comment to a place: a comment after code on its line trails the
token before it; a comment on a line of its own leads the token after it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache

from lark import Lark, Token, Tree

from dsl.formatter.doc import Comment
from dsl.keywords import soft_keyword

# A string or a comment: strings are matched so that a `#` inside one is not a comment.
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"|#[^\n]*')


@lru_cache(maxsize=1)
def cst_parser() -> Lark:
    """The grammar's LALR parser keeping every token (built once per process)."""
    return Lark.open_from_package(
        "grammar",
        "metro.lark",
        ("",),
        parser="lalr",
        keep_all_tokens=True,
        maybe_placeholders=True,
        propagate_positions=True,
        strict=True,
    )


def parse_cst(text: str) -> Tree:
    """The concrete syntax tree of a text that the compiler's parser accepted."""
    return cst_parser().parse(text, on_error=soft_keyword)


@dataclass
class Leading:
    """Comments on lines of their own before a token, and whether an empty line follows them."""

    comments: list[Comment]
    blank_after: bool
    line: int  # the line of the first comment


@dataclass
class CommentTable:
    """Every comment of a file, keyed by the token it belongs to (by character offset)."""

    leading: dict[int, Leading] = field(default_factory=dict)  # by the next token's start
    trailing: dict[int, str] = field(default_factory=dict)  # by the previous token's end
    at_end: Leading | None = None  # after the last token

    @classmethod
    def of(cls, text: str, tree: Tree) -> CommentTable:
        """Place each comment of `text` (whose syntax tree is `tree`)."""
        tokens = sorted(
            (t for t in tree.scan_values(lambda v: isinstance(v, Token))),
            key=lambda t: t.start_pos,
        )
        starts = [t.start_pos for t in tokens]
        comments = [
            found.span()
            for found in _STRING_OR_COMMENT.finditer(text)
            if found.group().startswith("#")
        ]
        table = cls()
        pending: list[tuple[int, int, Comment]] = []  # own-line comments waiting for a token
        for index, (start, end) in enumerate(comments):
            line_start = text.rfind("\n", 0, start) + 1
            at = bisect.bisect_left(starts, start)
            before = tokens[at - 1] if at else None
            body = text[start:end].rstrip()
            if text[line_start:start].strip():  # code before it on its line
                table.trailing[before.end_pos] = body
                continue
            gap_from = pending[-1][1] if pending else (before.end_pos if before else 0)
            blank = (before is not None or bool(pending)) and text.count("\n", gap_from, start) >= 2
            pending.append((start, end, Comment(body, blank)))
            following = tokens[at] if at < len(tokens) else None
            next_start = comments[index + 1][0] if index + 1 < len(comments) else len(text)
            if following is not None and next_start > following.start_pos:
                table.leading[following.start_pos] = _leading(text, pending, following.start_pos)
                pending = []
        if pending:
            table.at_end = _leading(text, pending, len(text))
        return table

    def take_leading(self, offset: int) -> Leading | None:
        """The comments before the token at `offset`, once (the outermost node takes them)."""
        return self.leading.pop(offset, None)

    def take_trailing(self, offset: int) -> str | None:
        """The comment after the token ending at `offset`, once."""
        return self.trailing.pop(offset, None)

    def first_line(self, offset: int) -> int | None:
        """The line of the first comment leading the token at `offset`, if any."""
        found = self.leading.get(offset)
        return found.line if found else None

    def leftover(self) -> int:
        """How many comments no node or token took (the formatter's own check)."""
        return len(self.leading) + len(self.trailing)


def _leading(text: str, pending: list[tuple[int, int, Comment]], before: int) -> Leading:
    last_end = pending[-1][1]
    first_start = pending[0][0]
    return Leading(
        [comment for _, _, comment in pending],
        blank_after=text.count("\n", last_end, before) >= 2,
        line=text.count("\n", 0, first_start) + 1,
    )
