"""The reserved words are written once (dsl/keywords.py) and agree with the grammar."""

from __future__ import annotations

import pytest
from lark.grammar import Terminal

from compiler import compile_game
from dsl.diagnostics import CompileError
from dsl.keywords import RESERVED_TERMINALS, RESERVED_WORDS
from dsl.parser import metro_parser

# The rules whose alternatives are one operand of an expression; a keyword that can begin
# one of them stands where a name could, so it must be reserved (by design, and only those).
OPERAND_RULES = {"atom", "postfix", "target"}

GAME = """game "G" {
  players 1..2
  state { n: int public }
  function f() -> int {
    let %s = 1
    return 1
  }
  flow { n = f() }
  score(p) = 0
}
"""


def keyword_terminals() -> dict[str, str]:
    """Every terminal of the grammar that is one literal word, by terminal name."""
    words = {}
    for terminal in metro_parser().terminals:
        pattern = terminal.pattern
        if pattern.type == "str" and pattern.value.isidentifier():
            words[terminal.name] = pattern.value
    return words


def test_every_reserved_word_is_a_keyword_of_the_grammar():
    keywords = keyword_terminals()
    assert {keywords.get(name) for name in RESERVED_TERMINALS} == RESERVED_WORDS


def test_the_reserved_words_are_the_keywords_that_begin_an_operand():
    keywords = keyword_terminals()
    beginning_operands = set()
    for rule in metro_parser().rules:
        first = rule.expansion[0] if rule.expansion else None
        if (
            rule.origin.name in OPERAND_RULES
            and isinstance(first, Terminal)
            and first.name in keywords
        ):
            beginning_operands.add(keywords[first.name])
    assert beginning_operands == RESERVED_WORDS


def test_the_grammar_has_soft_keywords_beside_the_reserved_ones():
    # Guards the test above from passing on a grammar whose keywords it failed to find.
    soft = set(keyword_terminals().values()) - RESERVED_WORDS
    assert {"game", "score", "state", "choose", "not", "in"} <= soft


@pytest.mark.parametrize("word", sorted(RESERVED_WORDS))
def test_a_reserved_word_cannot_name_a_local(tmp_path, word):
    with pytest.raises(CompileError) as info:
        compile_game(write(tmp_path, GAME % word))
    assert f"error[bad-name]: '{word}' cannot be used as a name" in info.value.render()


@pytest.mark.parametrize("word", ["score", "state", "kind", "game", "times"])
def test_a_soft_keyword_can_name_a_local(tmp_path, word):
    compile_game(write(tmp_path, GAME % word))


def write(tmp_path, text: str) -> str:
    """A game directory holding `text` as its rules.metro."""
    (tmp_path / "rules.metro").write_text(text, encoding="utf-8")
    return str(tmp_path)
