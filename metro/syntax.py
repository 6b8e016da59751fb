"""Highlighting of .metro text: the word classes, the Pygments lexer and the TextMate grammar.

One table (`WORD_CLASSES`) says which class every keyword of the grammar belongs to;
`MetroLexer` (registered as the Pygments lexer `metro`, so `pygmentize -l metro`, rich and
MkDocs highlight rule files) and the TextMate grammar of the VS Code extension
(`python -m metro.syntax --textmate` writes editors/vscode/syntaxes/metro.tmLanguage.json)
are both built from it, so they tell the same words apart. tests/test_syntax.py checks the
table against grammar/metro.lark and the committed grammar against this module.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from compiler.builtins import TABLE
from compiler.check.typer import BUILTIN_TYPES


@dataclass(frozen=True)
class WordClass:
    """Words highlighted alike: their Pygments token and TextMate scope."""

    name: str
    token: object  # a pygments.token type
    scope: str
    words: tuple[str, ...]


def _listed(text: str) -> tuple[str, ...]:
    """Words written as one string, separated by spaces (long lists read better so)."""
    return tuple(text.split())


WORD_CLASSES = (
    WordClass(
        "declaration",
        Keyword.Declaration,
        "keyword.declaration.metro",
        _listed(
            "game map part variant expansion for enum extends actions const function procedure "
            "action kind schema state per flow final score rank invariant bot scenario seed "
            "check use default requires excludes override remove extend max decisions label "
            "breakdown display estimate metric library level"
        ),
    ),
    WordClass(
        "control",
        Keyword,
        "keyword.control.metro",
        _listed(
            "if elif else in where when while loop repeat times break continue return choose "
            "each by optional play refuse expect chance let draw from to move shuffle end step size "
            "subset of"
        ),
    ),
    WordClass(
        "type",
        Keyword.Type,
        "storage.type.metro",
        ("list", "pile", "bag", "set", "player", *BUILTIN_TYPES),
    ),
    WordClass(
        "modifier",
        Keyword.Pseudo,
        "storage.modifier.metro",
        ("public", "owner", "hidden", "internal", "asc", "desc"),
    ),
    # Drawings (`draw "edges" for e in edge: line from e.a to e.b colour "red"`): the shapes
    # and the words that place them, then the properties (named as CSS properties are).
    WordClass(
        "shape",
        Keyword.Reserved,
        "keyword.other.shape.metro",
        _listed("point line path rect box at through around along"),
    ),
    WordClass(
        "property",
        Name.Property,
        "support.type.property-name.metro",
        _listed("colour outline width dashes mark title on legend names chooses"),
    ),
    WordClass("operator", Operator.Word, "keyword.operator.word.metro", ("and", "or", "not", "is")),
    WordClass("constant", Keyword.Constant, "constant.language.metro", ("true", "false", "none")),
    WordClass(
        "variable", Name.Builtin.Pseudo, "variable.language.metro", ("me", "players", "super")
    ),
)

BUILTIN_NAMES = tuple(builtin.name for builtin in TABLE)
IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
OPERATORS = r"->|\.\.|[-+*]=|==|!=|<=|>=|[-+*/%<>=?]"
PUNCTUATION = r"[{}()\[\],.;:]"
PLACEHOLDER = r'\{[^{}"\n]*\}'


def _word_rule(words_: tuple[str, ...]) -> str:
    return r"\b(?:" + "|".join(sorted(words_, key=lambda w: (-len(w), w))) + r")\b"


class MetroLexer(RegexLexer):
    """Pygments lexer for .metro rule files (games, maps, variants, expansions, parts)."""

    name = "Metro"
    aliases: ClassVar = ["metro"]
    filenames: ClassVar = ["*.metro"]
    mimetypes: ClassVar = ["text/x-metro"]

    tokens: ClassVar = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (r"\b[0-9]+\b", Number.Integer),
            # After a dot, a word is a field, whatever else it could be (`p.score`).
            (rf"(\.)(\s*)({IDENTIFIER})", bygroups(Punctuation, Whitespace, Name.Attribute)),
            (
                rf"\b(function|procedure|action)(\s+)({IDENTIFIER})",
                bygroups(Keyword.Declaration, Whitespace, Name.Function),
            ),
            (
                rf"\b(enum|kind)(\s+)({IDENTIFIER})",
                bygroups(Keyword.Declaration, Whitespace, Name.Class),
            ),
            (
                rf"\b(const)(\s+)({IDENTIFIER})",
                bygroups(Keyword.Declaration, Whitespace, Name.Constant),
            ),
            # A word before `:` names a parameter, a field or a choice (`score: int`).
            (rf"\b({IDENTIFIER})(\s*)(?=:)", bygroups(Name.Variable, Whitespace)),
            (words(BUILTIN_NAMES, prefix=r"\b", suffix=r"(?=\s*\()"), Name.Builtin),
            *((words(c.words, prefix=r"\b", suffix=r"\b"), c.token) for c in WORD_CLASSES),
            (IDENTIFIER, Name),
            (OPERATORS, Operator),
            (PUNCTUATION, Punctuation),
        ],
        "string": [
            (r"\\u[0-9a-fA-F]{4}|\\[^\n]", String.Escape),
            # a label's placeholders (`"claim {r}"`); `{{` and `}}` are braces
            (r"\{\{|\}\}", String.Escape),
            (PLACEHOLDER, String.Interpol),
            (r'[^"\\\n{}]+|[{}]', String.Double),
            (r'"', String.Double, "#pop"),
        ],
    }


def textmate_grammar() -> dict:
    """The TextMate grammar of .metro files (scope `source.metro`), as JSON data."""
    declared = [
        ("function|procedure|action", "entity.name.function.metro"),
        ("enum|kind", "entity.name.type.metro"),
        ("const", "variable.other.constant.metro"),
    ]
    patterns = [
        {"include": "#comment"},
        {"include": "#string"},
        {"name": "constant.numeric.integer.metro", "match": r"\b[0-9]+\b"},
        {
            "match": rf"(\.)\s*({IDENTIFIER})",
            "captures": {
                "1": {"name": "punctuation.accessor.metro"},
                "2": {"name": "variable.other.member.metro"},
            },
        },
        *(
            {
                "match": rf"\b({keywords})\s+({IDENTIFIER})",
                "captures": {
                    "1": {"name": "keyword.declaration.metro"},
                    "2": {"name": scope},
                },
            }
            for keywords, scope in declared
        ),
        {
            "match": rf"\b({IDENTIFIER})\s*(?=:)",
            "captures": {"1": {"name": "variable.parameter.metro"}},
        },
        {
            "name": "support.function.builtin.metro",
            "match": _word_rule(BUILTIN_NAMES) + r"(?=\s*\()",
        },
        *({"name": c.scope, "match": _word_rule(c.words)} for c in WORD_CLASSES),
        {"name": "variable.other.metro", "match": IDENTIFIER},
        {"name": "keyword.operator.metro", "match": OPERATORS},
        {"name": "punctuation.metro", "match": PUNCTUATION},
    ]
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "Metro",
        "scopeName": "source.metro",
        "fileTypes": ["metro"],
        "comment": "Generated by `python -m metro.syntax --textmate` from metro/syntax.py; do not edit.",
        "patterns": patterns,
        "repository": {
            "comment": {"name": "comment.line.number-sign.metro", "match": "#.*$"},
            "string": {
                "name": "string.quoted.double.metro",
                "begin": '"',
                "end": r'"|$',
                "patterns": [
                    {"name": "constant.character.escape.metro", "match": r"\\u[0-9a-fA-F]{4}|\\."},
                    {"name": "constant.character.escape.metro", "match": r"\{\{|\}\}"},
                    {"name": "meta.interpolation.metro", "match": PLACEHOLDER},
                ],
            },
        },
    }


def textmate_json() -> str:
    """The TextMate grammar as the committed file's text."""
    return json.dumps(textmate_grammar(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    """`python -m metro.syntax --textmate`: print the TextMate grammar of .metro files."""
    parser = argparse.ArgumentParser(prog="python -m metro.syntax", description=main.__doc__)
    parser.add_argument("--textmate", action="store_true", help="print metro.tmLanguage.json")
    parser.parse_args(argv)
    print(textmate_json(), end="")


if __name__ == "__main__":
    main()
