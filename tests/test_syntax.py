"""Highlighting: the word classes cover the grammar; Pygments and TextMate tell words apart alike."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String

from dsl.formatter.cst import cst_parser
from metro.syntax import WORD_CLASSES, MetroLexer, textmate_grammar, textmate_json

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "editors" / "vscode"
GRAMMAR_FILE = VSCODE / "syntaxes" / "metro.tmLanguage.json"
SHIPPED = sorted((ROOT / "games").rglob("*.metro"))

# The Pygments token and the TextMate scope of one kind of word.
SCOPES = {
    Keyword.Declaration: "keyword.declaration.metro",
    Keyword: "keyword.control.metro",
    Keyword.Type: "storage.type.metro",
    Keyword.Pseudo: "storage.modifier.metro",
    Keyword.Reserved: "keyword.other.shape.metro",
    Name.Property: "support.type.property-name.metro",
    Operator.Word: "keyword.operator.word.metro",
    Keyword.Constant: "constant.language.metro",
    Name.Builtin.Pseudo: "variable.language.metro",
    Name.Builtin: "support.function.builtin.metro",
    Name.Function: "entity.name.function.metro",
    Name.Class: "entity.name.type.metro",
    Name.Constant: "variable.other.constant.metro",
    Name.Attribute: "variable.other.member.metro",
    Name.Variable: "variable.parameter.metro",
    Name: "variable.other.metro",
    Number.Integer: "constant.numeric.integer.metro",
    Comment.Single: "comment.line.number-sign.metro",
}
WORD = re.compile(r"[A-Za-z_0-9]+|#.*")


def grammar_keywords() -> set[str]:
    """The words grammar/metro.lark writes as keywords."""
    return {
        t.pattern.value
        for t in cst_parser().terminals
        if t.pattern.type == "str" and t.pattern.value.isidentifier()
    }


def test_every_keyword_of_the_grammar_has_exactly_one_class():
    classes: dict[str, list[str]] = {}
    for word_class in WORD_CLASSES:
        for word in word_class.words:
            classes.setdefault(word, []).append(word_class.name)
    assert grammar_keywords() - set(classes) == set(), "keywords without a highlighting class"
    assert {word: names for word, names in classes.items() if len(names) > 1} == {}


# ---------------------------------------------------------------- Pygments


def test_the_lexer_is_registered_for_the_name_and_the_file_suffix():
    assert isinstance(get_lexer_by_name("metro"), MetroLexer)
    assert isinstance(get_lexer_for_filename("rules.metro"), MetroLexer)


def pygments_words(text: str) -> list[tuple[str, str]]:
    """(text, TextMate scope) of each word, number and comment, as the Pygments lexer reads them."""
    out = []
    for token, value in MetroLexer().get_tokens(text):
        if token in SCOPES and WORD.fullmatch(value):
            out.append((value, SCOPES[token]))
    return out


def test_a_snippet_is_highlighted_by_meaning():
    text = (
        'game "g" {  # the game\n  function f(p: player) -> int = p.score + size(xs)\n'
        '  const A = "a\\"b"\n  enum E { x }\n  score(p) = 0\n}\n'
    )
    tokens = list(MetroLexer().get_tokens(text))
    kinds = {value: token for token, value in reversed(tokens) if value.strip()}  # first wins
    assert kinds["game"] is Keyword.Declaration
    assert kinds["# the game"] is Comment.Single
    assert kinds["f"] is Name.Function and kinds["E"] is Name.Class and kinds["A"] is Name.Constant
    assert kinds["p"] is Name.Variable and kinds["player"] is Keyword.Type
    assert kinds["score"] is Name.Attribute  # the field …
    assert (Keyword.Declaration, "score") in tokens  # … and the declaration of the same name
    assert kinds["size"] is Name.Builtin and kinds["xs"] is Name
    assert kinds['\\"'] is String.Escape


def test_labels_headings_and_drawings_are_highlighted_by_meaning():
    text = (
        '  kind city(x: int) label "{x}"\n  per player { score: int public internal }\n'
        '  draw "cities" for c in city: point at (c.x, 0) colour "#fff" width 3\n'
        '  metric "cities"(p) = 1\n'
    )
    kinds = {value: token for token, value in reversed(list(MetroLexer().get_tokens(text)))}
    assert kinds["label"] is Keyword.Declaration and kinds["metric"] is Keyword.Declaration
    assert kinds["internal"] is Keyword.Pseudo
    assert kinds["draw"] is Keyword and kinds["point"] is Keyword.Reserved
    assert kinds["at"] is Keyword.Reserved
    assert kinds["colour"] is Name.Property and kinds["width"] is Name.Property
    assert kinds["{x}"] is String.Interpol  # a label's placeholder
    braces = {v: t for t, v in MetroLexer().get_tokens('label "{{a}} {b}"')}
    assert braces["{{"] is String.Escape and braces["{b}"] is String.Interpol
    assert textmate_words(text) == pygments_words(text)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_files_lex_without_errors_and_losslessly(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(MetroLexer().get_tokens(text))
    assert [value for token, value in tokens if token in Error] == []
    assert "".join(value for _, value in tokens) == text + ("" if text.endswith("\n") else "\n")


def test_pygmentize_highlights_a_rule_file():
    path = ROOT / "games" / "ticket_to_ride" / "variants" / "big_bonus.metro"
    done = subprocess.run(
        [sys.executable, "-m", "pygments", "-l", "metro", "-f", "html", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert '<span class="kd">variant</span>' in done.stdout


# ---------------------------------------------------------------- TextMate


def test_the_committed_textmate_grammar_is_current():
    assert GRAMMAR_FILE.read_text(encoding="utf-8") == textmate_json(), (
        "run: python -m metro.syntax --textmate > editors/vscode/syntaxes/metro.tmLanguage.json"
    )


def _patterns(grammar: dict, patterns: list[dict]) -> list[dict]:
    out = []
    for pattern in patterns:
        if "include" in pattern:
            out.append(grammar["repository"][pattern["include"].removeprefix("#")])
        else:
            out.append(pattern)
    return out


def _end_of(pattern: dict, line: str, pos: int) -> int:
    """Where a `begin`/`end` pattern's scope ends: its inner patterns (an escaped quote) are
    tried with the end, the earliest winning and the end on a tie, as a TextMate engine does."""
    end = re.compile(pattern["end"])
    inner = [re.compile(p["match"]) for p in pattern.get("patterns", [])]
    while pos < len(line):
        stop = end.search(line, pos)
        skips = [m for rx in inner if (m := rx.search(line, pos)) and m.end() > m.start()]
        skip = min(skips, key=lambda m: m.start(), default=None)
        if skip is not None and (stop is None or skip.start() < stop.start()):
            pos = skip.end()
            continue
        if stop is None or stop.end() == stop.start():
            return len(line)
        return stop.end()
    return len(line)


def textmate_words(text: str, grammar: dict | None = None) -> list[tuple[str, str]]:
    """(text, scope) of each word, number and comment, reading the grammar as a TextMate engine
    does: at each place the pattern matching first wins (the earlier one on a tie); a
    `begin`/`end` pattern scopes everything up to its end."""
    grammar = grammar or textmate_grammar()
    patterns = [
        (p, re.compile(p.get("match") or p["begin"]))
        for p in _patterns(grammar, grammar["patterns"])
    ]
    out: list[tuple[str, str]] = []
    for line in text.split("\n"):
        pos = 0
        while pos < len(line):
            found = [
                (m.start(), i, p, m)
                for i, (p, rx) in enumerate(patterns)
                if (m := rx.search(line, pos))
            ]
            if not found:
                break
            _, _, pattern, match = min(found, key=lambda f: (f[0], f[1]))
            if "begin" in pattern:  # a string: to its end, nothing inside is a word
                pos = _end_of(pattern, line, match.end())
                continue
            for group, capture in pattern.get("captures", {}).items():
                out.append((match.group(int(group)), capture["name"]))
            if "name" in pattern:
                out.append((match.group(), pattern["name"]))
            pos = max(match.end(), pos + 1)
    return [
        (value, scope) for value, scope in out if WORD.fullmatch(value) and scope in SCOPES.values()
    ]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_textmate_and_pygments_tell_the_same_words_apart(path):
    text = path.read_text(encoding="utf-8")
    assert textmate_words(text) == pygments_words(text)


def test_every_keyword_alone_gets_its_class_scope():
    for word_class in WORD_CLASSES:
        for word in word_class.words:
            assert textmate_words(f"{word} ") == [(word, word_class.scope)]
            assert pygments_words(f"{word} ") == [(word, word_class.scope)]


# ---------------------------------------------------------------- the VS Code extension


def test_the_vscode_extension_declares_the_language_grammar_and_server():
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    (language,) = package["contributes"]["languages"]
    assert language["id"] == "metro" and language["extensions"] == [".metro"]
    configuration = json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    assert configuration["comments"]["lineComment"] == "#"
    (grammar,) = package["contributes"]["grammars"]
    assert grammar["scopeName"] == "source.metro" and (VSCODE / grammar["path"]).is_file()
    settings = package["contributes"]["configuration"]["properties"]
    assert settings["metro.server.command"]["default"] == "metro"
    assert settings["metro.server.args"]["default"] == ["lsp"]
    assert "vscode-languageclient" in package["dependencies"]
    assert (VSCODE / package["main"]).is_file()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_extension_script_is_valid_javascript():
    subprocess.run(["node", "--check", str(VSCODE / "extension.js")], check=True, timeout=60)


@pytest.mark.skipif(
    shutil.which("node") is None or not (VSCODE / "node_modules" / "vscode-textmate").is_dir(),
    reason="the real TextMate engine needs node and `npm install` in editors/vscode",
)
def test_the_real_textmate_engine_agrees_with_this_reading_of_the_grammar(tmp_path):
    path = ROOT / "games" / "ticket_to_ride" / "rules.metro"
    done = subprocess.run(
        ["node", "test/tokenize.js", str(GRAMMAR_FILE), str(path)],
        cwd=VSCODE,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    engine = [
        (value, scope)
        for line in json.loads(done.stdout)
        for value, scope in line
        if WORD.fullmatch(value) and scope in SCOPES.values()
    ]
    assert engine == textmate_words(path.read_text(encoding="utf-8"))
