"""The layouts of files, declarations, labels and drawings, map data, types and domains."""

from __future__ import annotations

from itertools import pairwise

from lark import Token

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
from dsl.formatter.trees import (
    OPENS_BRACKET,
    Child,
    children_of,
    is_token,
    node_type,
)


class DeclarationRules:
    """`rule_<name>` layouts of the declarations' nodes (a part of `Layout`)."""

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
        inner = children_of(names)
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
            if is_token(child, ","):
                items[-1] = Concat(items[-1], self.fmt(child))
            else:
                items.append(self.fmt(child))
        return Group(self.spaced(head), " ", Nest(Fill(items), 4))

    def rule_default_bot_decl(self, kids):
        return self.spaced(kids)

    def rule_level_decl(self, kids):
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
        label = kids[-1] if node_type(kids[-1]) == "label" else None
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
        if is_token(rest[0], "where"):
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
        while rest and not is_token(rest[0], "="):  # its visibility, its heading or `internal`
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
        close_at = next(i for i, c in enumerate(kids) if is_token(c, ")") and i > 2)
        middle = kids[3:close_at]
        inner = children_of(middle[0]) if middle else []
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
        close_at = next(i for i, c in enumerate(kids) if is_token(c, ")") and i > 2)
        rest = kids[close_at + 1 : -1]  # [label] ["when" cond]
        label = rest.pop(0) if rest and node_type(rest[0]) == "label" else None
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
        params = Group(self.commas(children_of(middle[0]))) if middle else None
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
        if where and not is_token(where[0], "where"):  # the words heading its values
            head = Concat(head, " ", self.fmt(where[0]))
            where = where[1:]
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
        items = [child for child in entries if not is_token(child, ",")]
        commas = {id(before): child for before, child in pairwise(entries) if is_token(child, ",")}
        return Concat(head, self.braced(brace, items, end, commas))

    def rule_display_decl(self, kids):
        """`display(p) {`, laid out as a breakdown is."""
        return self.rule_breakdown_decl(kids)

    def rule_breakdown_each(self, kids):
        """`for x in C: value`, a line for each element, laid out as an entry."""
        each, colon, value = kids
        head = Concat(self.fmt(each), self.fmt(colon))
        return Assign(head, self.fmt(value), node_type(value) in OPENS_BRACKET)

    def rule_breakdown_entry(self, kids):
        heading, colon, value = kids
        head = Concat(self.fmt(heading), self.fmt(colon))
        return Assign(head, self.fmt(value), node_type(value) in OPENS_BRACKET)

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
        open_at = next(i for i, c in enumerate(kids) if is_token(c, "{"))
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
        colon_at = next(i for i, c in enumerate(kids) if is_token(c, ":"))
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
