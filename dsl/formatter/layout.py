"""The canonical layout of every construct of the grammar, as documents for the printer.

`Layout` has one `rule_<name>` method per node the grammar builds (the names of
grammar/metro.lark's rules and aliases); tests/test_formatter.py fails when the grammar
gains one without a method here. The style: two spaces of indentation; a declaration's
body one statement a line; a statement block with one simple statement stays on the
statement's line when it fits; anything too long for the width breaks at its outermost
brackets or operators first; one empty line kept where the source had one or more.
"""

from __future__ import annotations

from itertools import pairwise

from lark import Token, Tree

from dsl.formatter.cst import CommentTable, Leading
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
    IfFits,
    LineSuffix,
    Nest,
)

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
_NO_SPACE_BEFORE = frozenset({",", ")", "]", "?", "..", ".", ":"})
_NO_SPACE_AFTER = frozenset({"(", "[", "..", "."})

Child = Tree | Token


class FormatterGap(Exception):
    """The grammar built a node this layout has no rule for (a bug the tests catch)."""


def _kids(node: Tree) -> list[Child]:
    return [child for child in node.children if child is not None]


def _is_token(child: Child, value: str | None = None) -> bool:
    return isinstance(child, Token) and (value is None or child.value == value)


def _data(child: Child) -> str:
    return child.data if isinstance(child, Tree) else child.type


class Layout:
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
        return _around(handler(_kids(child)), lead, trail)

    def token(self, token: Token, text: str | None = None) -> Doc | str:
        """A token's text (or `text` instead) with its comments."""
        lead = self.comments.take_leading(token.start_pos)
        trail = self.comments.take_trailing(token.end_pos)
        return _around(token.value if text is None else text, lead, trail)

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
                (_is_token(child) and child.value in _NO_SPACE_BEFORE)
                or (_is_token(previous) and previous.value in _NO_SPACE_AFTER)
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
            end = _end_line(comma if comma is not None else item)
        return Concat(*parts)

    def with_comma(self, child: Child) -> Doc:
        """A child and a comma the source did not have, before the child's trailing comment."""
        end = child.end_pos if isinstance(child, Token) else child.meta.end_pos
        trail = self.comments.take_trailing(end)
        return _around(Concat(self.fmt(child), ","), None, trail)

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
                blank = lead.line - _end_line(items[-1]) > 1
                body.append(BLANKLINE if blank else HARDLINE)
            body.append(Comments(lead.comments))
        return Concat(opening, Nest(Concat(*body)), HARDLINE, closing)

    def block(self, node: Tree, hard: bool) -> Doc:
        """A statement block: always broken when `hard` or when it holds more than one simple statement."""
        lead = self.comments.take_leading(node.meta.start_pos)
        trail = self.comments.take_trailing(node.meta.end_pos)
        kids = _kids(node)
        open_, items, close = kids[0], kids[1:-1], kids[-1]
        if hard or len(items) != 1 or _statement_kind(items[0]) not in SIMPLE_STATEMENTS:
            return _around(self.braced(open_, items, close), lead, trail)
        inner = Concat(self.token(open_), Nest(Concat(LINE, self.fmt(items[0]))), LINE)
        return _around(Concat(inner, self.token(close)), lead, trail)

    # ------------------------------------------------------------ brackets and separators

    def commas(self, kids: list[Child]) -> Doc:
        """Items and their comma tokens: `a, b, c`, breaking after each comma."""
        parts: list[Doc | str] = []
        for index, child in enumerate(kids):
            if _is_token(child, ","):
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
        return self.bracketed(open_, _kids(middle[0]) if middle else [], close)

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
        return Assign(Concat(lhs, " ", op), self.fmt(value), _data(value) in OPENS_BRACKET)

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
                left = _kids(first)
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
        if _data(operands[0]) in CHAINS:  # its own broken lines go deeper than this chain's
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
            if _is_token(child, ","):
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

    # ------------------------------------------------------------ files

    def rule_start(self, kids):
        doc = self.fmt(kids[0])
        end = self.comments.at_end
        if end is None:
            return doc
        self.comments.at_end = None
        return Concat(
            doc, BLANKLINE if end.comments[0].blank_before else HARDLINE, Comments(end.comments)
        )

    def rule_game_file(self, kids):
        return Concat(self.spaced(kids[:2]), " ", self.braced(kids[2], kids[3:-1], kids[-1]))

    def rule_map_file(self, kids):
        return Concat(self.spaced(kids[:4]), " ", self.braced(kids[4], kids[5:-1], kids[-1]))

    def rule_library_map_file(self, kids):
        return Concat(self.spaced(kids[:5]), " ", self.braced(kids[5], kids[6:-1], kids[-1]))

    def rule_library_file(self, kids):
        return Concat(self.spaced(kids[:2]), " ", self.braced(kids[2], kids[3:-1], kids[-1]))

    def rule_patch_file(self, kids):
        return Concat(self.spaced(kids[:4]), " ", self.braced(kids[4], kids[5:-1], kids[-1]))

    def rule_part_file(self, kids):
        return Concat(self.spaced(kids[:4]), " ", self.braced(kids[4], kids[5:-1], kids[-1]))

    def rule_patch_kind(self, kids):
        return self.fmt(kids[0])

    # ------------------------------------------------------------ declarations

    def rule_override_decl(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_relabel_kind_decl(self, kids):
        """`override kind name label "…"`, the label on the next line when too long."""
        *head, label = kids
        return self._labelled(self.spaced(head), label)

    def rule_remove_decl(self, kids):
        return self.spaced(kids)

    def rule_removable(self, kids):
        return self.fmt(kids[0])

    def rule_extend_enum_decl(self, kids):
        return self._enum_like(kids[:3], kids[3:], commas=False)

    def rule_extend_group_decl(self, kids):
        return self._enum_like(kids[:3], kids[3:], commas=True)

    def rule_enum_decl(self, kids):
        return self._enum_like(kids[:-3], kids[-3:], commas=False)

    def rule_group_decl(self, kids):
        return self._enum_like(kids[:2], kids[2:], commas=True)

    def _enum_like(self, head, body, commas: bool):
        open_, names, close = body
        inner = _kids(names)
        listed = self.names(inner, commas)
        return Concat(self.spaced(head), " ", self.name_block(open_, listed, close, not inner))

    def rule_enum_names(self, kids):
        return self.names(kids, commas=False)

    def rule_enum_values(self, kids):
        return self.names(kids, commas=False)

    def rule_enum_value(self, kids):  # `gray` or `gray "grey"`: a value and the words it reads as
        return self.spaced(kids)

    def rule_players_decl(self, kids):
        return self.spaced(kids)

    def rule_default_map_decl(self, kids):
        head, paths = kids[:2], kids[2:]
        items: list[Doc | str] = []
        for child in paths:
            if _is_token(child, ","):
                items[-1] = Concat(items[-1], self.fmt(child))
            else:
                items.append(self.fmt(child))
        return Group(self.spaced(head), " ", Nest(Fill(items), 4))

    def rule_default_bot_decl(self, kids):
        return self.spaced(kids)

    def rule_max_decisions_decl(self, kids):
        return self.spaced(kids)

    def rule_use_decl(self, kids):
        return self.spaced(kids)

    def rule_use_library_decl(self, kids):
        return self.spaced(kids)

    def rule_requires_decl(self, kids):
        return self.spaced(kids)

    def rule_excludes_decl(self, kids):
        return self.spaced(kids)

    def rule_const_decl(self, kids):
        const, name, equals, value = kids
        return self.assignment(self.spaced([const, name]), self.fmt(equals), value)

    def rule_schema_decl(self, kids):
        return Concat(self.spaced(kids[:2]), " ", self.braced(kids[2], kids[3:-1], kids[-1]))

    def rule_kind_decl(self, kids):
        label = kids[-1] if _data(kids[-1]) == "label" else None
        if label is not None:
            kids = kids[:-1]
        trail = self._trail_before(label, kids[-1])
        head = self.spaced(kids[:2])
        if len(kids) == 4:  # `kind x()`: the empty brackets are left out
            head = Concat(head, self.drop(kids[2], kids[3]))
        elif len(kids) > 4:
            head = Concat(head, self.bracketed(kids[2], kids[3:-1], kids[-1]))
        return self._labelled(head, label, trail=trail)

    def _trail_before(self, label: Child | None, last: Child) -> str | None:
        """The comment after a labelled head's last child (it goes before the label's line)."""
        if label is None:
            return None
        return self.comments.take_trailing(
            last.end_pos if isinstance(last, Token) else last.meta.end_pos
        )

    def _labelled(
        self,
        head: Doc | str,
        label: Child | None,
        after: Doc | str | None = None,
        trail: str | None = None,
    ) -> Doc | str:
        """`head label "…"` (and `after`); the label on the next line, indented, when too long
        or when a comment (`trail`) ends the head's line."""
        if label is None:
            return head
        suffix = LineSuffix(trail) if trail is not None else None
        return Group(head, suffix, Nest(Concat(LINE, Group(self.fmt(label), after))))

    def rule_field_decl(self, kids):
        head = Concat(self.fmt(kids[0]), self.fmt(kids[1]), " ", self.fmt(kids[2]))
        if len(kids) == 3:
            return head
        return self.assignment(head, self.fmt(kids[3]), kids[4])

    def rule_check_each_decl(self, kids):
        head = self.spaced(kids[:6])
        rest = kids[6:]
        parts: list[Doc | str] = [head]
        if _is_token(rest[0], "where"):
            parts += [" ", self.fmt(rest[0]), " ", self._condition(rest[1])]
            rest = rest[2:]
        colon, cond = rest
        return Group(*parts, self.fmt(colon), Nest(Concat(LINE, self.fmt(cond))))

    def rule_check_decl(self, kids):
        check, message, colon, cond = kids
        head = Concat(self.fmt(check), " ", self.fmt(message), self.fmt(colon))
        return Group(head, Nest(Concat(LINE, self.fmt(cond))))

    def rule_state_decl(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.braced(kids[1], kids[2:-1], kids[-1]))

    def rule_per_player_decl(self, kids):
        return Concat(self.spaced(kids[:2]), " ", self.braced(kids[2], kids[3:-1], kids[-1]))

    def rule_field_spec(self, kids):
        name, colon, type_, *rest = kids
        head: list[Doc | str] = [self.fmt(name), self.fmt(colon), " ", self.fmt(type_)]
        while rest and not _is_token(rest[0], "="):  # its visibility, its heading or `internal`
            head += [" ", self.fmt(rest[0])]
            rest = rest[1:]
        if not rest:
            return Concat(*head)
        return self.assignment(Concat(*head), self.fmt(rest[0]), rest[1])

    def rule_visibility(self, kids):
        return self.fmt(kids[0])

    def rule_heading(self, kids):
        return self.fmt(kids[0])

    def rule_internal(self, kids):
        return self.fmt(kids[0])

    def _signature(self, kids, after=None) -> tuple[Doc, list[Child]]:
        """`function name(params)` (and `after` on its line), and the children after `)`."""
        keyword, name, open_ = kids[:3]
        close_at = next(i for i, c in enumerate(kids) if _is_token(c, ")") and i > 2)
        middle = kids[3:close_at]
        inner = _kids(middle[0]) if middle else []
        head = Concat(self.fmt(keyword), " ", self.fmt(name))
        brackets = self.bracketed(open_, inner, kids[close_at], after)
        return Concat(head, brackets), kids[close_at + 1 :]

    def rule_function_expr_decl(self, kids):
        signature, rest = self._signature(kids)
        arrow, type_, equals, value = rest
        head = Concat(signature, " ", self.fmt(arrow), " ", self.fmt(type_))
        return self.assignment(head, self.fmt(equals), value)

    def rule_function_decl(self, kids):
        signature, rest = self._signature(kids)
        arrow, type_, body = rest
        return Concat(
            signature, " ", self.fmt(arrow), " ", self.fmt(type_), " ", self.block(body, True)
        )

    def rule_procedure_decl(self, kids):
        signature, rest = self._signature(kids)
        parts: list[Doc | str] = [signature]
        if len(rest) == 3:
            parts += [" ", self.fmt(rest[0]), " ", self.fmt(rest[1])]
        return Concat(*parts, " ", self.block(rest[-1], True))

    def rule_action_decl(self, kids):
        close_at = next(i for i, c in enumerate(kids) if _is_token(c, ")") and i > 2)
        rest = kids[close_at + 1 : -1]  # [label] ["when" cond]
        label = rest.pop(0) if rest and _data(rest[0]) == "label" else None
        when = None
        if rest:  # `when cond` before the block
            when = Concat(self.fmt(rest[0]), " ", self._condition(rest[1]))
        if label is None:
            head, _ = self._signature(kids, Concat(" ", when) if when else None)
        else:
            head = self._labelled_signature(kids[: close_at + 1], label, when)
        return Concat(head, " ", self.block(kids[-1], True))

    def _labelled_signature(self, kids: list[Child], label: Child, when: Doc | None) -> Doc:
        """`action name(params) label "…" when c`: on one line; else the label (and `when`)
        on the next line when the signature fits on its own; else the parameters broken
        between the brackets and the label after `)`. A `when` too long for the label's line
        goes on a line of its own."""
        trail = self._trail_before(label, kids[-1])
        keyword, name, open_, *middle, close = kids
        head = Concat(self.fmt(keyword), " ", self.fmt(name))
        opening, closing = self.fmt(open_), self.fmt(close)
        params = Group(self.commas(_kids(middle[0]))) if middle else None
        said = Group(self.fmt(label), Nest(Concat(LINE, when)) if when else None)

        def signature(after: Doc | None) -> Doc:
            if params is None:
                return Concat(head, Group(opening, closing, after))
            inside = Nest(Concat(SOFTLINE, params))
            return Concat(head, Group(opening, inside, SOFTLINE, closing, after))

        suffix = LineSuffix(trail) if trail is not None else None
        next_line = Group(signature(None), suffix, Nest(Concat(LINE, said)))
        if trail is not None or params is None:  # the label can only go on the next line
            return next_line
        return IfFits(signature(None), next_line, signature(Concat(" ", said)))

    def rule_params(self, kids):
        return self.commas(kids)

    def rule_param(self, kids):
        name, colon, type_ = kids
        return Concat(self.fmt(name), self.fmt(colon), " ", self.fmt(type_))

    def rule_action_params(self, kids):
        return self.commas(kids)

    def rule_action_param(self, kids):
        name, domain, *where = kids
        head = Concat(self.fmt(name), self.fmt(domain))
        if not where:
            return head
        return Group(head, Nest(Concat(LINE, self.fmt(where[0]), " ", self.fmt(where[1]))))

    def rule_flow_decl(self, kids):
        parts: list[Doc | str] = [self.fmt(kids[0]), " ", self.block(kids[1], True)]
        if len(kids) == 4:
            parts += [" ", self.fmt(kids[2]), " ", self.block(kids[3], True)]
        return Concat(*parts)

    def rule_score_decl(self, kids):
        score, open_, var, close, equals, value = kids
        head = Concat(self.fmt(score), self.fmt(open_), self.fmt(var), self.fmt(close))
        return self.assignment(head, self.fmt(equals), value)

    def rule_estimate_decl(self, kids):
        return self.rule_score_decl(kids)

    def rule_metric_decl(self, kids):
        metric, name, open_, var, close, equals, value = kids
        head = Concat(self.fmt(metric), " ", self.fmt(name))
        head = Concat(head, self.fmt(open_), self.fmt(var), self.fmt(close))
        return self.assignment(head, self.fmt(equals), value)

    def rule_breakdown_decl(self, kids):
        """`breakdown(p) {`, one entry a line, each with its comma, `}`."""
        keyword, open_, var, close, brace, *entries, end = kids
        head = Concat(self.fmt(keyword), self.fmt(open_), self.fmt(var), self.fmt(close), " ")
        items = [child for child in entries if not _is_token(child, ",")]
        commas = {id(before): child for before, child in pairwise(entries) if _is_token(child, ",")}
        return Concat(head, self.braced(brace, items, end, commas))

    def rule_display_decl(self, kids):
        """`display(p) {`, laid out as a breakdown is."""
        return self.rule_breakdown_decl(kids)

    def rule_breakdown_each(self, kids):
        """`for x in C: value`, a line for each element, laid out as an entry."""
        each, colon, value = kids
        head = Concat(self.fmt(each), self.fmt(colon))
        return Assign(head, self.fmt(value), _data(value) in OPENS_BRACKET)

    def rule_breakdown_entry(self, kids):
        heading, colon, value = kids
        head = Concat(self.fmt(heading), self.fmt(colon))
        return Assign(head, self.fmt(value), _data(value) in OPENS_BRACKET)

    def rule_rank_decl(self, kids):
        rank, var, by, *keys = kids
        head = Concat(self.fmt(rank), " ", self.fmt(var), " ", self.fmt(by))
        return Group(head, Nest(Concat(LINE, Group(self.commas(keys)))))

    def rule_rank_key(self, kids):
        return self.spaced(kids)

    def rule_order(self, kids):
        return self.fmt(kids[0])

    def rule_invariant_decl(self, kids):
        keyword, name, open_, expr, close = kids
        head = Concat(self.fmt(keyword), " ", self.fmt(name), " ", self.fmt(open_))
        return Group(head, Nest(Concat(LINE, self.fmt(expr))), LINE, self.fmt(close))

    def rule_bot_decl(self, kids):
        return Concat(self.spaced(kids[:2]), " ", self.braced(kids[2], kids[3:-1], kids[-1]))

    def rule_bot_rule(self, kids):
        name, colon, score = kids
        return Group(self.fmt(name), self.fmt(colon), Nest(Concat(LINE, self.fmt(score))))

    def rule_scenario_decl(self, kids):
        open_at = next(i for i, c in enumerate(kids) if _is_token(c, "{"))
        head = self.spaced(kids[:open_at])
        return Concat(head, " ", self.braced(kids[open_at], kids[open_at + 1 : -1], kids[-1]))

    # ------------------------------------------------------------ labels and drawings

    def rule_label(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_template(self, kids):
        return self.fmt(kids[0])

    def rule_label_if(self, kids):  # laid out as a conditional expression
        return self.rule_cond_expr(kids)

    def rule_draw_decl(self, kids):
        """`draw "name" for …:` then the shape and its properties, as many a line as fit."""
        colon_at = next(i for i, c in enumerate(kids) if _is_token(c, ":"))
        head = self.spaced(kids[:2])
        if colon_at == 3:
            head = Concat(head, " ", self.fmt(kids[2]))
        parts = [self.fmt(part) for part in kids[colon_at + 1 :]]
        if not parts:
            return Concat(head, self.fmt(kids[colon_at]))
        # The line after the head starts with the shape (or the first property); the properties
        # fill lines one level deeper (the empty first item: none of that depth before the shape).
        body = Concat(parts[0], Nest(Fill(["", *parts[1:]])))
        return Group(head, self.fmt(kids[colon_at]), Nest(Concat(LINE, body)))

    def rule_draw_bindings(self, kids):
        return Concat(self.fmt(kids[0]), " ", Group(Nest(self.commas(kids[1:]), 4)))

    def rule_draw_binding(self, kids):
        head = self.spaced(kids[:3])
        if len(kids) == 3:
            return head
        return Concat(head, " ", self.fmt(kids[3]), " ", self.fmt(kids[4]))

    def rule_point_shape(self, kids):
        return self.spaced(kids)

    def rule_line_shape(self, kids):
        return self.spaced(kids)

    def rule_along_shape(self, kids):
        return self.spaced(kids)

    def rule_path_shape(self, kids):
        return self.spaced(kids)

    def rule_rect_shape(self, kids):
        return self.spaced(kids)

    def rule_box_shape(self, kids):
        return self.spaced(kids)

    def rule_text_shape(self, kids):
        return self.spaced(kids)

    def rule_draw_prop(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_draw_prop_name(self, kids):
        return self.fmt(kids[0])

    # ------------------------------------------------------------ map data

    def rule_map_item(self, kids):
        head = Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))
        if len(kids) == 2:
            return head
        if len(kids) == 4:  # `city x()`: the empty brackets are left out
            return Concat(head, self.drop(kids[2], kids[3]))
        return Concat(head, self.bracketed(kids[2], kids[3:-1], kids[-1]))

    def rule_elem_name(self, kids):
        return self.fmt(kids[0])

    def rule_elem_string(self, kids):
        return self.fmt(kids[0])

    def rule_map_arg(self, kids):
        if len(kids) == 1:
            return self.fmt(kids[0])
        name, colon, value = kids
        return Concat(self.fmt(name), self.fmt(colon), " ", self.fmt(value))

    # ------------------------------------------------------------ types and domains

    def rule_named_type(self, kids):
        return self.fmt(kids[0])

    def rule_player_type(self, kids):
        return self.fmt(kids[0])

    def rule_optional_type(self, kids):
        return Concat(self.fmt(kids[0]), self.fmt(kids[1]))

    def rule_range_type(self, kids):
        return self.spaced(kids)

    def rule_list_type(self, kids):
        return self.spaced(kids)

    def rule_pile_type(self, kids):
        return self.spaced(kids)

    def rule_bag_type(self, kids):
        return self.spaced(kids)

    def rule_set_type(self, kids):
        return self.spaced(kids)

    def rule_map_type(self, kids):
        return self.spaced(kids)

    def rule_type_domain(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_in_domain(self, kids):
        return Concat(" ", self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_subset_domain(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.spaced(kids[1:]))

    # ------------------------------------------------------------ statements

    def rule_block(self, kids):
        raise FormatterGap("a block is laid out by the statement or declaration that owns it")

    def rule_bare_return(self, kids):
        return self.fmt(kids[0])

    def rule_stmt(self, kids):
        return Concat(self.fmt(kids[0]), self.drop(kids[1]))

    def rule_let_stmt(self, kids):
        head = self.spaced(kids[:-2])
        return self.assignment(head, self.fmt(kids[-2]), kids[-1])

    def rule_assign_stmt(self, kids):
        target, op, value = kids
        return self.assignment(self.fmt(target), self.fmt(op), value)

    def rule_expr_stmt(self, kids):
        return self.fmt(kids[0])

    def rule_return_stmt(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_break_stmt(self, kids):
        return self.fmt(kids[0])

    def rule_continue_stmt(self, kids):
        return self.fmt(kids[0])

    def rule_draw_stmt(self, kids):
        return self.spaced(kids)

    def rule_move_stmt(self, kids):
        return self.spaced(kids)

    def rule_shuffle_stmt(self, kids):
        return self.spaced(kids)

    def rule_end_game_stmt(self, kids):
        return self.spaced(kids)

    def rule_optional(self, kids):
        return self.fmt(kids[0])

    def rule_choose_stmt(self, kids):
        domain_at = next(i for i, c in enumerate(kids) if isinstance(c, Tree) and i > 1)
        return self._choice(kids[: domain_at + 1], kids[domain_at + 1 :])

    def rule_each_choose_stmt(self, kids):
        return self._choice(kids[:7], kids[7:])

    def _choice(self, head: list[Child], clauses: list[Child]) -> Doc | str:
        """A choice's head (ending in its domain), its `where c` and `by p` (each on a line of
        its own when they break) and its label (which moves to the next line first)."""
        label = clauses.pop() if clauses and _data(clauses[-1]) == "label" else None
        trail = self._trail_before(label, (clauses or head)[-1])
        choice = Concat(self.spaced(head[:-1]), self.fmt(head[-1]))
        lines = [
            Concat(LINE, self.fmt(keyword), " ", self.fmt(value))
            for keyword, value in zip(clauses[::2], clauses[1::2], strict=True)
        ]
        if lines:
            choice = Group(choice, Nest(Concat(*lines)))
        return self._labelled(choice, label, trail=trail)

    def rule_play_step(self, kids):
        return self._step(kids)

    def rule_refuse_step(self, kids):
        return self._step(kids)

    def _step(self, kids):
        keyword, player, colon, action, *call = kids
        head = Concat(self.fmt(keyword), " ", self.fmt(player), self.fmt(colon), " ")
        head = Concat(head, self.fmt(action))
        if not call:
            return head
        if len(call) == 2:  # `play p: x()`: the empty brackets are left out
            return Concat(head, self.drop(call[0], call[1]))
        return Concat(head, self.call_args(call))

    def rule_expect_step(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_chance_step(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def _condition(self, child: Child) -> Doc | str:
        """A condition in a head before a block: its broken operator lines indented past the body."""
        doc = self.fmt(child)
        return Nest(doc) if _data(child) in CHAINS else doc

    def rule_if_stmt(self, kids):
        keyword, cond, body, *rest = kids
        parts: list[Doc | str] = [
            self.fmt(keyword),
            " ",
            self._condition(cond),
            " ",
            self.block(body, False),
        ]
        while rest:
            if isinstance(rest[0], Tree) and rest[0].data == "elif_clause":
                parts += [" ", self.fmt(rest[0])]
                rest = rest[1:]
            else:
                parts += [" ", self.fmt(rest[0]), " ", self.block(rest[1], False)]
                rest = rest[2:]
        return Group(*parts)

    def rule_elif_clause(self, kids):
        keyword, cond, body = kids
        return Concat(self.fmt(keyword), " ", self._condition(cond), " ", self.block(body, False))

    def rule_for_stmt(self, kids):
        head = self.spaced(kids[:4])
        parts: list[Doc | str] = [head]
        if len(kids) == 7:
            parts += [" ", self.fmt(kids[4]), " ", self._condition(kids[5])]
        return Group(*parts, " ", self.block(kids[-1], False))

    def rule_repeat_stmt(self, kids):
        keyword, count, times, body = kids
        head = Concat(self.fmt(keyword), " ", self._condition(count), " ", self.fmt(times))
        return Group(head, " ", self.block(body, False))

    def rule_while_stmt(self, kids):
        keyword, cond, body = kids
        return Group(self.fmt(keyword), " ", self._condition(cond), " ", self.block(body, False))

    def rule_loop_stmt(self, kids):
        return Group(self.fmt(kids[0]), " ", self.block(kids[1], False))

    def rule_choose_action_stmt(self, kids):
        open_at = next(i for i, c in enumerate(kids) if _is_token(c, "{"))
        close_at = next(i for i, c in enumerate(kids) if _is_token(c, "}"))
        head = self.spaced(kids[:open_at])
        names = self.names(kids[open_at + 1 : close_at], commas=True)
        listed = Group(head, " ", self.name_block(kids[open_at], names, kids[close_at], False))
        rest = kids[close_at + 1 :]
        if not rest:
            return listed
        orelse, body = rest
        return Concat(listed, " ", self.fmt(orelse), " ", Group(self.block(body, False)))

    def rule_each_choose_action_stmt(self, kids):
        open_at = next(i for i, c in enumerate(kids) if _is_token(c, "{"))
        head = self.spaced(kids[:open_at])
        names = self.names(kids[open_at + 1 : -1], commas=True)
        return Group(head, " ", self.name_block(kids[open_at], names, kids[-1], False))

    # ------------------------------------------------------------ expressions

    def rule_or_op(self, kids):
        return self.chain(kids, {"or_op"})

    def rule_and_op(self, kids):
        return self.chain(kids, {"and_op"})

    def rule_binop(self, kids):
        return self.chain(kids, {"binop"}, {kids[1].type})

    def rule_not_op(self, kids):
        return Concat(self.fmt(kids[0]), " ", self.fmt(kids[1]))

    def rule_compare(self, kids):
        return self.chain(kids, set())

    def rule_in_op(self, kids):
        return self.chain(kids, set())

    def rule_not_in_op(self, kids):
        return self.chain(kids, set())

    def rule_is_none(self, kids):
        return self.spaced(kids)

    def rule_is_not_none(self, kids):
        return self.spaced(kids)

    def rule_neg(self, kids):
        return Concat(self.fmt(kids[0]), self.fmt(kids[1]))

    def rule_name(self, kids):
        return self.fmt(kids[0])

    def rule_me_lit(self, kids):
        return self.fmt(kids[0])

    def rule_players_lit(self, kids):
        return self.fmt(kids[0])

    def rule_int_lit(self, kids):
        return self.fmt(kids[0])

    def rule_str_lit(self, kids):
        return self.fmt(kids[0])

    def rule_true_lit(self, kids):
        return self.fmt(kids[0])

    def rule_false_lit(self, kids):
        return self.fmt(kids[0])

    def rule_none_lit(self, kids):
        return self.fmt(kids[0])

    def rule_field(self, kids):
        return Concat(self.fmt(kids[0]), self.fmt(kids[1]), self.fmt(kids[2]))

    def rule_index(self, kids):
        obj, open_, key, close = kids
        inside = Group(
            self.fmt(open_), Nest(Concat(SOFTLINE, self.fmt(key))), SOFTLINE, self.fmt(close)
        )
        return Concat(self.fmt(obj), inside)

    def rule_call(self, kids):
        return Concat(self.fmt(kids[0]), self.call_args(kids[1:]))

    def rule_super_call(self, kids):
        return Concat(self.fmt(kids[0]), self.call_args(kids[1:]))

    def rule_gen_call(self, kids):
        name, open_, elem, *fors, close = kids
        return self.comprehension(Concat(self.fmt(name), self.fmt(open_)), elem, fors, close)

    def rule_args(self, kids):
        return self.commas(kids)

    def rule_atom(self, kids):  # an expression in brackets
        open_, expr, close = kids
        return Group(
            self.fmt(open_), Nest(Concat(SOFTLINE, self.fmt(expr))), SOFTLINE, self.fmt(close)
        )

    def rule_tuple_lit(self, kids):
        open_, *inner, close = kids
        if len(inner) == 2:  # `(a,)`: the comma makes it a tuple
            return Concat(self.fmt(open_), self.fmt(inner[0]), self.fmt(inner[1]), self.fmt(close))
        return self.bracketed(open_, inner, close)

    def rule_cond_expr(self, kids):
        open_, then, if_, cond, else_, orelse, close = kids
        inner = Concat(
            SOFTLINE,
            self.fmt(then),
            LINE,
            self.fmt(if_),
            " ",
            self.fmt(cond),
            LINE,
            self.fmt(else_),
            " ",
            self.fmt(orelse),
        )
        return Group(self.fmt(open_), Nest(inner), SOFTLINE, self.fmt(close))

    def rule_list_lit(self, kids):
        return self.bracketed(kids[0], kids[1:-1], kids[-1])

    def rule_list_comp(self, kids):
        open_, elem, *fors, close = kids
        return self.comprehension(self.fmt(open_), elem, fors, close)

    def rule_dict_lit(self, kids):
        return self.bracketed(kids[0], kids[1:-1], kids[-1])

    def rule_dict_comp(self, kids):
        open_, key, colon, value, *fors, close = kids
        entry = Concat(self.fmt(key), self.fmt(colon), " ", self.fmt(value))
        clauses = [Concat(LINE, self.fmt(clause)) for clause in fors]
        return Group(
            self.fmt(open_), Nest(Concat(SOFTLINE, entry, *clauses)), SOFTLINE, self.fmt(close)
        )

    def rule_dict_entry(self, kids):
        key, colon, value = kids
        return Concat(self.fmt(key), self.fmt(colon), " ", self.fmt(value))

    def rule_comp_for(self, kids):
        head = self.spaced(kids[:4])
        if len(kids) == 4:
            return head
        return Concat(head, LINE, self.fmt(kids[4]), " ", self.fmt(kids[5]))

    def rule_range_expr(self, kids):
        return Concat(self.fmt(kids[0]), self.fmt(kids[1]), self.fmt(kids[2]))


def _end_line(child: Child) -> int:
    return child.end_line if isinstance(child, Token) else child.meta.end_line


def _statement_kind(child: Child) -> str:
    """The kind of a statement, looking through a trailing `;`."""
    if isinstance(child, Tree) and child.data == "stmt":
        return _data(child.children[0])
    return _data(child)


def _around(doc: Doc | str, lead: Leading | None, trail: str | None) -> Doc | str:
    if lead is None and trail is None:
        return doc
    return Concat(
        Comments(lead.comments, lead.blank_after) if lead is not None else None,
        doc,
        # Nothing may follow a trailing comment on its line: what comes next starts a new one.
        Concat(LineSuffix(trail), Nest(HARDLINE)) if trail is not None else None,
    )
