"""The fast contextual lexer gives exactly Lark's tokens and Lark's errors."""

from __future__ import annotations

import glob
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from lark import Lark, Token
from lark.exceptions import UnexpectedInput

from dsl.keywords import soft_keyword
from dsl.lexer import FastContextualLexer
from tests.test_fuzz import PROGRAMS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = sorted(glob.glob(os.path.join(ROOT, "games", "**", "*.metro"), recursive=True))


def tree_parser(fast: bool) -> Lark:
    """The .metro grammar building plain trees, with our lexer or Lark's."""
    plugins = {"ContextualLexer": FastContextualLexer} if fast else {}
    return Lark.open_from_package(
        "grammar",
        "metro.lark",
        ("",),
        parser="lalr",
        keep_all_tokens=True,
        maybe_placeholders=True,
        strict=True,
        _plugins=plugins,
    )


FAST, LARK = tree_parser(True), tree_parser(False)


def outcome(parser: Lark, text: str):
    """Every token with its position, or the error's kind and position."""
    try:
        tree = parser.parse(text, on_error=soft_keyword)
    except UnexpectedInput as error:
        return type(error).__name__, error.line, error.column, str(getattr(error, "token", ""))
    return [
        (t.type, str(t), t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos)
        for t in tree.scan_values(lambda value: isinstance(value, Token))
    ]


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def mutations(count: int) -> list[str]:
    """Shipped files with a slice deleted or doubled, or a stray character inserted."""
    rng = random.Random(7)
    texts = [read(path) for path in SHIPPED]
    out = []
    for _ in range(count):
        text = rng.choice(texts)
        start = rng.randrange(len(text))
        stop = min(len(text), start + rng.randrange(1, 40))
        kind = rng.randrange(3)
        if kind == 0:
            out.append(text[:start] + text[stop:])
        elif kind == 1:
            out.append(text[:start] + text[start:stop] * 2 + text[stop:])
        else:
            out.append(text[:start] + rng.choice('"#({}@\n') + text[start:])
    return out


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: os.path.relpath(path, ROOT))
def test_shipped_files_lex_the_same(path):
    text = read(path)
    tokens = outcome(FAST, text)
    assert isinstance(tokens, list) and tokens
    assert tokens == outcome(LARK, text)


def test_mutated_files_lex_or_fail_the_same():
    for text in mutations(150):
        assert outcome(FAST, text) == outcome(LARK, text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n# only a comment",
        'game "A" {}',
        'game "A" {\n}  # end',
        'game "A" { players 1..2',
        'game "A"\n\n  {  }\n\n',
        'game "A" { const score = 1 }',
        'game "A" { const X = "a\\"b" }',
        'game "A" { const X = 1 $ 2 }',
        'game "unterminated { }',
        'game "A" {\r\n\tplayers 1..2\r\n}\r\n',
        'game "A" { # no newline at the end',
        'game "A" { const X = 1 }\n\n\n   ',
        'game "A" { const X = é }',
    ],
)
def test_edge_cases_lex_the_same(text):
    assert outcome(FAST, text) == outcome(LARK, text)


@settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(PROGRAMS)
def test_programs_from_the_grammar_lex_the_same(text):
    assert outcome(FAST, text) == outcome(LARK, text)
