"""The layouts of statements and expressions."""

from __future__ import annotations

from lark import Tree

from dsl.formatter.doc import (
    LINE,
    SOFTLINE,
    Concat,
    Doc,
    Group,
    Nest,
)
from dsl.formatter.trees import (
    CHAINS,
    Child,
    FormatterGap,
    is_token,
    node_type,
)


class CodeRules:
    """`rule_<name>` layouts of statements and expressions (a part of `Layout`)."""

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
        label = clauses.pop() if clauses and node_type(clauses[-1]) == "label" else None
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
        return Nest(doc) if node_type(child) in CHAINS else doc

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
        open_at = next(i for i, c in enumerate(kids) if is_token(c, "{"))
        close_at = next(i for i, c in enumerate(kids) if is_token(c, "}"))
        head = self.spaced(kids[:open_at])
        names = self.names(kids[open_at + 1 : close_at], commas=True)
        listed = Group(head, " ", self.name_block(kids[open_at], names, kids[close_at], False))
        rest = kids[close_at + 1 :]
        if not rest:
            return listed
        orelse, body = rest
        return Concat(listed, " ", self.fmt(orelse), " ", Group(self.block(body, False)))

    def rule_each_choose_action_stmt(self, kids):
        open_at = next(i for i, c in enumerate(kids) if is_token(c, "{"))
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
