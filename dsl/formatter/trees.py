"""What every part of the layout shares: the families of grammar nodes, and reading a tree."""

from __future__ import annotations

from lark import Token, Tree

from dsl.formatter.cst import Leading
from dsl.formatter.doc import HARDLINE, Comments, Concat, Doc, LineSuffix, Nest

# Statements that never hold a block: a block of one of them may stay on one line.
SIMPLE_STATEMENTS = frozenset(
    {
        "let_stmt",
        "assign_stmt",
        "expr_stmt",
        "return_stmt",
        "break_stmt",
        "continue_stmt",
        "draw_stmt",
        "move_stmt",
        "shuffle_stmt",
        "end_game_stmt",
        "choose_stmt",
        "each_choose_stmt",
        "play_step",
        "refuse_step",
        "expect_step",
        "chance_step",
        "bare_return",
    }
)

# Values that open a bracket at once: too long for a line of their own, they break inside it.
OPENS_BRACKET = frozenset(
    {
        "call",
        "super_call",
        "gen_call",
        "list_lit",
        "dict_lit",
        "tuple_lit",
        "list_comp",
        "dict_comp",
        "cond_expr",
        "atom",
    }
)

# Operator chains, which break before their operators (`chain`).
CHAINS = frozenset({"or_op", "and_op", "binop", "compare", "in_op", "not_in_op"})

# Spacing inside plain runs of words (`spaced`).
NO_SPACE_BEFORE = frozenset({",", ")", "]", "?", "..", ".", ":"})
NO_SPACE_AFTER = frozenset({"(", "[", "..", "."})

Child = Tree | Token


class FormatterGap(Exception):
    """The grammar built a node this layout has no rule for (a bug the tests catch)."""


def children_of(node: Tree) -> list[Child]:
    return [child for child in node.children if child is not None]


def is_token(child: Child, value: str | None = None) -> bool:
    return isinstance(child, Token) and (value is None or child.value == value)


def node_type(child: Child) -> str:
    return child.data if isinstance(child, Tree) else child.type


def end_line(child: Child) -> int:
    return child.end_line if isinstance(child, Token) else child.meta.end_line


def statement_kind(child: Child) -> str:
    """The kind of a statement, looking through a trailing `;`."""
    if isinstance(child, Tree) and child.data == "stmt":
        return node_type(child.children[0])
    return node_type(child)


def around(doc: Doc | str, lead: Leading | None, trail: str | None) -> Doc | str:
    if lead is None and trail is None:
        return doc
    return Concat(
        Comments(lead.comments, lead.blank_after) if lead is not None else None,
        doc,
        # Nothing may follow a trailing comment on its line: what comes next starts a new one.
        Concat(LineSuffix(trail), Nest(HARDLINE)) if trail is not None else None,
    )
