"""The reserved words, and reading any other keyword as a name wherever a name fits."""

from __future__ import annotations

from lark import Token
from lark.exceptions import UnexpectedInput, UnexpectedToken

# The words that stay reserved: each stands alone as an operand of an expression (a value,
# the current player, the overridden rule), so `x = me` could not say which it means.
# Every other keyword of grammar/metro.lark is soft (see `soft_keyword`), and may name a
# field, action or element. tests/test_keywords.py checks this list against the grammar.
RESERVED_WORDS = frozenset({"none", "true", "false", "me", "players", "super"})

# Their terminal names: Lark names the terminal of a keyword literal after the word, upper case.
RESERVED_TERMINALS = frozenset(word.upper() for word in RESERVED_WORDS)


def soft_keyword(error: UnexpectedInput) -> bool:
    """Keywords are soft: where a keyword is not acceptable but a name is, read it as a name.

    The contextual lexer sees a keyword wherever LALR lookahead sets (merged across
    states) allow one, so a field named `score` after an expression would otherwise
    be read as the `score` declaration keyword. This is Lark's `on_error` hook.
    """
    if not isinstance(error, UnexpectedToken):
        return False
    token = error.token
    value = str(token)
    if "NAME" not in error.expected or token.type in ("NAME", "$END") or value in RESERVED_WORDS:
        return False
    if not (value.isascii() and value.isidentifier()):
        return False
    error.interactive_parser.feed_token(Token.new_borrow_pos("NAME", value, token))
    return True
