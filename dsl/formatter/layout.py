"""The canonical layout of every construct of the grammar, as documents for the printer.

`Layout` has one `rule_<name>` method per node the grammar builds (those of files,
declarations, drawings, map data and types in declarations.py, of statements and
expressions in code.py) (the names of
grammar/metro.lark's rules and aliases); tests/test_formatter.py fails when the grammar
gains one without a method here. The style: two spaces of indentation; a declaration's
body one statement a line; a statement block with one simple statement stays on the
statement's line when it fits; anything too long for the width breaks at its outermost
brackets or operators first; one empty line kept where the source had one or more.
"""

from __future__ import annotations

from lark import Token, Tree

from dsl.formatter.code import CodeRules
from dsl.formatter.cst import CommentTable
from dsl.formatter.declarations import DeclarationRules
from dsl.formatter.doc import (
    BLANKLINE,
    HARDLINE,
    LINE,
    SOFTLINE,
    Assign,
    Comments,
    Concat,
    Doc,
    Fill,
    Group,
    Nest,
)
from dsl.formatter.trees import (
    CHAINS,
    NO_SPACE_AFTER,
    NO_SPACE_BEFORE,
    OPENS_BRACKET,
    SIMPLE_STATEMENTS,
    Child,
    FormatterGap,
    around,
    children_of,
    end_line,
    is_token,
    node_type,
    statement_kind,
)

__all__ = ["FormatterGap", "Layout"]


class Layout(DeclarationRules, CodeRules):
    """Builds the document of a concrete syntax tree, placing every comment once."""

    def __init__(self, comments: CommentTable):
        self.comments = comments

    # ------------------------------------------------------------ nodes, tokens, comments

    def fmt(self, child: Child) -> Doc | str:
        """The layout of a node or token with the comments it owns around it."""
        if isinstance(child, Token):
            return self.token(child)
        handler = getattr(self, f"rule_{child.data}", None)
        if handler is None:
            raise FormatterGap(f"the formatter has no layout for grammar rule {child.data!r}")
        meta = child.meta
        lead = trail = None
        if not meta.empty:  # the outermost node at a place owns its comments
            lead = self.comments.take_leading(meta.start_pos)
            trail = self.comments.take_trailing(meta.end_pos)
        return around(handler(children_of(child)), lead, trail)

    def token(self, token: Token, text: str | None = None) -> Doc | str:
        """A token's text (or `text` instead) with its comments."""
        lead = self.comments.take_leading(token.start_pos)
        trail = self.comments.take_trailing(token.end_pos)
        return around(token.value if text is None else text, lead, trail)

    def _has_comments(self, token: Token) -> bool:
        table = self.comments
        return token.start_pos in table.leading or token.end_pos in table.trailing

    def drop(self, *tokens: Token) -> Doc | str:
        """Tokens the canonical layout leaves out (`;`, optional commas, empty brackets).

        A token that carries a comment stays, so the comment keeps its place for good.
        """
        if any(self._has_comments(token) for token in tokens):
            return Concat(*(self.token(token) for token in tokens))
        return ""

    def spaced(self, kids: list[Child]) -> Doc:
        """Words and punctuation with single spaces where the language writes them."""
        parts: list[Doc | str] = []
        previous = None
        for child in kids:
            if previous is not None and not (
                (is_token(child) and child.value in NO_SPACE_BEFORE)
                or (is_token(previous) and previous.value in NO_SPACE_AFTER)
            ):
                parts.append(" ")
            parts.append(self.fmt(child))
            previous = child
        return Concat(*parts)

    # ------------------------------------------------------------ lists of lines

    def _start_line(self, child: Child) -> int:
        offset = child.start_pos if isinstance(child, Token) else child.meta.start_pos
        line = child.line if isinstance(child, Token) else child.meta.line
        first = self.comments.first_line(offset)
        return first if first is not None else line

    def lines(self, items: list[Child], commas: dict[int, Token] | None = None) -> Doc:
        """Items one a line, with one empty line where the source had any between them.

        With `commas` (the comma token after an item, by the item's id), every item ends
        in a comma, the last one too.
        """
        parts: list[Doc | str] = []
        end = None
        for item in items:
            if end is not None:
                parts.append(BLANKLINE if self._start_line(item) - end > 1 else HARDLINE)
            comma = commas.get(id(item)) if commas is not None else None
            if commas is None:
                parts.append(self.fmt(item))
            elif comma is None:
                parts.append(self.with_comma(item))
            else:
                parts.append(Concat(self.fmt(item), self.fmt(comma)))
            end = end_line(comma if comma is not None else item)
        return Concat(*parts)

    def with_comma(self, child: Child) -> Doc:
        """A child and a comma the source did not have, before the child's trailing comment."""
        end = child.end_pos if isinstance(child, Token) else child.meta.end_pos
        trail = self.comments.take_trailing(end)
        return around(Concat(self.fmt(child), ","), None, trail)

    def braced(
        self,
        open_: Token,
        items: list[Child],
        close: Token,
        commas: dict[int, Token] | None = None,
    ) -> Doc:
        """`{`, the items one a line, indented, `}`; `{}` when empty. `commas` as in `lines`."""
        remark = open_.end_pos in self.comments.trailing  # `{  # …` keeps its own line
        opening = self.token(open_)
        lead = self.comments.take_leading(close.start_pos)
        closing = self.token(close)
        if not items and lead is None and not remark:
            return Concat(opening, closing)
        body: list[Doc | str] = [HARDLINE, self.lines(items, commas)] if items else []
        if lead is not None:
            if items:
                blank = lead.line - end_line(items[-1]) > 1
                body.append(BLANKLINE if blank else HARDLINE)
            body.append(Comments(lead.comments))
        return Concat(opening, Nest(Concat(*body)), HARDLINE, closing)

    def block(self, node: Tree, hard: bool) -> Doc:
        """A statement block: always broken when `hard` or when it holds more than one simple statement."""
        lead = self.comments.take_leading(node.meta.start_pos)
        trail = self.comments.take_trailing(node.meta.end_pos)
        kids = children_of(node)
        open_, items, close = kids[0], kids[1:-1], kids[-1]
        if hard or len(items) != 1 or statement_kind(items[0]) not in SIMPLE_STATEMENTS:
            return around(self.braced(open_, items, close), lead, trail)
        inner = Concat(self.token(open_), Nest(Concat(LINE, self.fmt(items[0]))), LINE)
        return around(Concat(inner, self.token(close)), lead, trail)

    # ------------------------------------------------------------ brackets and separators

    def commas(self, kids: list[Child]) -> Doc:
        """Items and their comma tokens: `a, b, c`, breaking after each comma."""
        parts: list[Doc | str] = []
        for index, child in enumerate(kids):
            if is_token(child, ","):
                parts.append(self.fmt(child))
                if index + 1 < len(kids):
                    parts.append(LINE)
            else:
                parts.append(self.fmt(child))
        return Concat(*parts)

    def bracketed(
        self, open_: Child, inner: list[Child], close: Child, after: Doc | str | None = None
    ) -> Doc:
        """`(a, b)`: on one line, else the items on their own line(s) between the brackets.

        `after` is what follows on the line of the closing bracket (`) when …`): when the
        whole does not fit, the brackets break first.
        """
        if not inner:
            return Group(self.fmt(open_), self.fmt(close), after)
        return Group(
            self.fmt(open_),
            Nest(Concat(SOFTLINE, Group(self.commas(inner)))),
            SOFTLINE,
            self.fmt(close),
            after,
        )

    def call_args(self, kids: list[Child]) -> Doc:
        """`(` [args] `)` given those children (args may be missing)."""
        open_, *middle, close = kids
        return self.bracketed(open_, children_of(middle[0]) if middle else [], close)

    def comprehension(self, opening: Doc | str, elem: Child, fors: list[Child], close: Child):
        """`[x for x in xs where c]`, broken as the element, then each clause, on its own line."""
        clauses = [Concat(LINE, self.fmt(clause)) for clause in fors]
        return Group(
            opening,
            Nest(Concat(SOFTLINE, self.fmt(elem), *clauses)),
            SOFTLINE,
            self.fmt(close),
        )

    def assignment(self, lhs: Doc | str, op: Doc | str, value: Child) -> Doc:
        """`lhs = value`: one line; else the value on the next; else broken in its brackets."""
        return Assign(Concat(lhs, " ", op), self.fmt(value), node_type(value) in OPENS_BRACKET)

    def chain(self, node_kids: list[Child], family: set[str], op_types: set[str] | None = None):
        """`a or b or c` (a left-nested chain of one operator family), broken before operators."""
        operands: list[Child] = []
        operators: list[list[Token]] = []
        left: list[Child] = node_kids
        while True:
            first, *ops, right = left
            operands.append(right)
            operators.append(ops)
            if (
                isinstance(first, Tree)
                and first.data in family
                and (op_types is None or first.children[1].type in op_types)
            ):
                left = children_of(first)
                continue
            operands.append(first)
            break
        operands.reverse()
        operators.reverse()
        rest = [
            Concat(LINE, *self._words(ops), " ", self.fmt(operand))
            for ops, operand in zip(operators, operands[1:], strict=True)
        ]
        first = self.fmt(operands[0])
        if node_type(operands[0]) in CHAINS:  # its own broken lines go deeper than this chain's
            first = Nest(first)
        return Group(first, Nest(Concat(*rest)))

    def _words(self, tokens: list[Token]) -> list[Doc | str]:
        parts: list[Doc | str] = []
        for token in tokens:
            if parts:
                parts.append(" ")
            parts.append(self.fmt(token))
        return parts

    def names(self, kids: list[Child], commas: bool) -> Doc:
        """Names of an enum (`a b c`) or an action list (`a, b, c`), as many a line as fit."""
        entries: list[tuple[Child, Token | None]] = []
        for child in kids:
            if is_token(child, ","):
                entries[-1] = (entries[-1][0], child)
            else:
                entries.append((child, None))
        items: list[Doc | str] = []
        for index, (name, comma) in enumerate(entries):
            wanted = commas and index + 1 < len(entries)
            if comma is None:
                items.append(self.with_comma(name) if wanted else self.fmt(name))
            else:
                shown = self.fmt(comma) if wanted else self.drop(comma)
                items.append(Concat(self.fmt(name), shown))
        return Fill(items)

    def name_block(self, open_: Token, names: Doc, close: Token, empty: bool) -> Doc:
        """`{ names }` on one line, else the names indented between the braces."""
        if empty:
            return Concat(self.fmt(open_), self.fmt(close))
        lead = self.comments.take_leading(close.start_pos)
        last = Comments(lead.comments) if lead is not None else None  # inside, as in `braced`
        return Group(self.fmt(open_), Nest(Concat(LINE, names, last)), LINE, self.fmt(close))
