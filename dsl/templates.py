"""Label templates: `"claim {r}: {r.length - locos} {c}"` read into texts and expressions.

A template is one STRING token. Its text outside braces is read like any string (escapes
and all); `{{` and `}}` stand for braces; each `{…}` holds an expression, parsed by the one
grammar (start `template_expr`) at its exact line and column, so a mistake inside it is
reported where it stands. A placeholder holds no backslash: a string is never needed inside
one (text belongs outside the braces, or in a function of the rules).
"""

from __future__ import annotations

from collections.abc import Callable

from lark import Token

from dsl import ast
from dsl.diagnostics import SYNTAX
from dsl.literals import Refused, unquote
from dsl.source import Span

_OPEN = "([{"
_CLOSE = ")]}"


class TemplateError(Refused):
    """A template whose braces or placeholders cannot be read."""

    code = SYNTAX


def read_template(
    token: Token, filename: str, parse_expr: Callable[[str, int, int], ast.Expr]
) -> ast.Template:
    """The texts and expressions of a template token (`parse_expr(text, line, column)` reads one)."""
    raw = str(token)
    texts: list[str] = []
    exprs: list[ast.Expr] = []
    piece_start = 1  # offsets into `raw`, whose first character is the opening quote
    i = 1
    literal: list[str] = []  # the raw text of the current piece, `{{`/`}}` already halved
    end = len(raw) - 1
    while i < end:
        char = raw[i]
        if char == "\\":  # an escape is two characters (or more: read by `unquote`)
            literal.append(raw[i : i + 2])
            i += 2
        elif (char == "{" and raw[i + 1 : i + 2] == "{") or (
            char == "}" and raw[i + 1 : i + 2] == "}"
        ):
            literal.append(char)
            i += 2
        elif char == "}":
            raise TemplateError(
                "a single '}' in a label; write '}}' for a brace", token.line, token.column + i
            )
        elif char == "{":
            texts.append(_text(token, "".join(literal), piece_start))
            close = _matching(raw, i, end, token)
            inner = raw[i + 1 : close]
            if not inner.strip():
                raise TemplateError(
                    "an empty placeholder '{}' in a label; put an expression in it",
                    token.line,
                    token.column + i,
                )
            exprs.append(parse_expr(inner, token.line, token.column + i + 1))
            i = close + 1
            literal = []
            piece_start = i
        else:
            literal.append(char)
            i += 1
    texts.append(_text(token, "".join(literal), piece_start))
    span = Span(filename, token.line, token.column, token.end_line, token.end_column)
    return ast.Template(tuple(texts), tuple(exprs), span)


def _matching(raw: str, start: int, end: int, token: Token) -> int:
    """The offset of the `}` closing the placeholder that opens at `start`."""
    depth: list[str] = []
    for i in range(start + 1, end):
        char = raw[i]
        if char == "\\":
            raise TemplateError(
                "a label's placeholder cannot hold a backslash or a string; "
                "put text outside the braces",
                token.line,
                token.column + i,
            )
        if char in _OPEN:
            depth.append(_CLOSE[_OPEN.index(char)])
        elif char in _CLOSE:
            if not depth:
                if char == "}":
                    return i
                break
            if depth.pop() != char:
                break
    raise TemplateError(
        "a placeholder '{' in a label is not closed; write '{{' for a brace",
        token.line,
        token.column + start,
    )


def _text(token: Token, raw_piece: str, offset: int) -> str:
    """A piece of literal text with its escapes read (errors point into the piece)."""
    if "\\" not in raw_piece:
        return raw_piece
    # `unquote` locates a bad escape from its token's column: give it the piece's own.
    piece = Token("STRING", f'"{raw_piece}"', line=token.line, column=token.column + offset - 1)
    return unquote(piece)
