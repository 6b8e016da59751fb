"""Pass `labels`: how elements, actions and choices read, and each player's score breakdown.

Input: a CheckedProgram after `types` (kind fields, action signatures, the types of choices).
Output: the types of every placeholder (in `cp.types`) and `cp.label_kinds`, the order in
which map kinds' labels are computed (a kind after the kinds its label shows). Errors:

- a label reads only what it is given — a kind's fields (and the element itself, by the
  kind's name), an action's parameters, a choice's value — with constants, map data and the
  rules' functions that read no game state. So a label is the same wherever it is shown
  (menus, move lists, replays, in any player's view) and can never reveal anything.
- a kind's label that shows its own kind (`twin: route` in a route's label), directly or
  through other kinds' labels, would read itself;
- a label's conditions (`("…" if locos == 0 else "…")`) are truth values; choices of one
  name (which share an id) have one label;
- a breakdown is shown to every player at the end, and a `display` entry on every screen:
  they read public fields only.
"""

from __future__ import annotations

from compiler.builtins import BUILTINS, template_reads_state
from compiler.check.typer import Local, Scope
from compiler.check.types import Typer
from compiler.checked import CheckedProgram
from compiler.refs import GlobalRef, PlayerFieldRef
from compiler.types import PLAYER, CollT, ElemT, MapT, OptT, TupleT, Type
from dsl import ast
from dsl.diagnostics import LABEL, Diagnostics
from dsl.visitor import walk


def check_labels(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Type every label and breakdown, and report what they may not read."""
    LabelChecker(cp, diags).run()


class LabelChecker:
    """The rules of labels and breakdowns, over one checked program."""

    def __init__(self, cp: CheckedProgram, diags: Diagnostics):
        self.cp = cp
        self.p = cp.program
        self.diags = diags
        self.typer = Typer(cp, diags)
        self.reads_cache: dict[str, tuple[ast.Node, str] | None] = {}

    def run(self) -> None:
        """Kinds, actions, choices, then the breakdown."""
        self.kinds()
        for name, versions in self.p.actions.items():
            decl = versions.active
            if decl.label is not None:
                params = dict(self.cp.signatures[name].params)
                sites = {param.name: param for param in decl.params}
                self.label(decl.label, params, "an action's label", sites)
        self.choices()
        self.breakdown()

    # ------------------------------------------------------------ labels

    def label(
        self,
        label: ast.Label,
        names: dict[str, Type],
        what: str,
        sites: dict[str, ast.Node],
    ) -> None:
        """Type a label's placeholders and conditions with `names` in scope (bound at `sites`,
        for the tools); report what it may not read."""
        scope = Scope(
            [{n: Local(t, False, sites.get(n)) for n, t in names.items()}], pure=True, me=True
        )
        self.typer.current_decl = ""
        for cond in label.conditions():
            self.typer.condition(cond, scope)
        exprs = [e for t in label.templates() for e in t.exprs]
        for expr in exprs:
            self.typer.expr(expr, scope)
        for expr in label.conditions() + exprs:
            found = self.state_read(expr)
            if found is not None:
                node, reads = found
                self.diags.error(
                    LABEL,
                    f"{what} cannot read {reads}: it shows only "
                    f"{_GIVEN[what]}, constants and map data",
                    node.span,
                )

    def kinds(self) -> None:
        """Kinds' labels, and the order they are computed in (a cycle is an error)."""
        shows: dict[str, dict[str, ast.Expr]] = {}  # kind -> kinds its label shows -> where
        for name, kind in self.p.kinds.items():
            if kind.label is None:
                continue
            fields = dict(self.cp.kind_fields.get(name, []))
            fields[name] = ElemT(name)  # the element itself, by its kind's name
            sites = {f.name: f for f in kind.fields} | {name: kind}
            self.label(kind.label, fields, "a kind's label", sites)
            shows[name] = {}
            for expr in (e for t in kind.label.templates() for e in t.exprs):
                for other in _kinds_in(self.cp.type_of(expr)):
                    shows[name].setdefault(other, expr)
        order: list[str] = []
        state: dict[str, int] = {}  # 1: being ordered, 2: done

        def visit(kind: str) -> None:
            state[kind] = 1
            for other, expr in shows[kind].items():
                if other not in shows:
                    continue  # a kind without a label reads as its elements' names
                if state.get(other) == 1:
                    self.diags.error(
                        LABEL,
                        f"the label of '{kind}' shows a {other}, whose label shows "
                        f"{'itself' if other == kind else 'a ' + kind}: it would read itself",
                        expr.span,
                        "show one of its fields instead (a name, a number)",
                    )
                elif state.get(other) is None:
                    visit(other)
            state[kind] = 2
            order.append(kind)

        for kind in shows:
            if state.get(kind) is None:
                visit(kind)
        self.cp.label_kinds = order

    def choices(self) -> None:
        """Labels of `choose` and `each … choose` (one per choice name), and which are private.

        A choice among owner-only or hidden data (cards from a private hand) is private: others learn
        only that it was made. Any other choice is seen once made (or, when simultaneous,
        once everyone has chosen).
        """
        bodies = [
            v for t in (self.p.procedures, self.p.actions) for vs in t.values() for v in vs.versions
        ]
        if self.p.flow is not None:
            bodies += self.p.flow.versions
        seen: dict[str, ast.Label] = {}
        for body in bodies:
            for node in walk(body):
                if not isinstance(node, ast.Choose | ast.EachChoose):
                    continue
                if self.secret_read(node.domain, set()) or (
                    node.where is not None and self.secret_read(node.where, set())
                ):
                    self.cp.private_choices.add(id(node))
                value = self.cp.types.get(id(node))
                if node.label is None or value is None:
                    continue
                optional = isinstance(node, ast.Choose) and node.optional
                names = {node.name: OptT(value) if optional else value}
                self.label(node.label, names, "a choice's label", {node.name: node})
                self.cp.choice_labels.setdefault(node.name, (node.label, names[node.name]))
                first = seen.setdefault(node.name, node.label)
                if first != node.label:
                    self.diags.error(
                        LABEL,
                        f"choice '{node.name}' has another label at {first.span}; choices of "
                        "one name share their ids, so they read alike",
                        node.label.span,
                    )

    # ------------------------------------------------------------ what a label reads

    def state_read(self, node: ast.Node) -> tuple[ast.Node, str] | None:
        """The first node under `node` that reads the game (or calls a function that does)."""
        for sub in walk(node):
            ref = self.cp.ref(sub)
            if isinstance(ref, GlobalRef):
                return sub, f"the state field '{ref.name}'"
            if isinstance(ref, PlayerFieldRef):
                return sub, f"the player field '{ref.field}'"
            if isinstance(sub, ast.MeLit):
                return sub, "`me` (the same action reads alike whoever takes it)"
            if isinstance(sub, ast.PlayersLit):
                return sub, "`players`"
            if isinstance(sub, ast.Call | ast.GenCall):
                builtin = BUILTINS.get(sub.func)
                if (
                    builtin is not None
                    and _reads_game(builtin)
                    and sub.func not in self.p.functions
                ):
                    return sub, f"{sub.func}() (it reads the game's position)"
                if isinstance(sub, ast.Call) and sub.func in self.p.functions:
                    inner = self.function_reads(sub.func)
                    if inner is not None:
                        return (
                            sub,
                            f"the game through {sub.func}(), which reads {inner[1]} at line {inner[0].span.line}",
                        )
        return None

    def function_reads(self, name: str) -> tuple[ast.Node, str] | None:
        """What a function of the rules reads of the game, if anything (all its versions)."""
        if name in self.reads_cache:
            return self.reads_cache[name]
        self.reads_cache[name] = None  # rules do not recurse; this also ends any cycle
        for decl in self.p.functions[name].versions:
            found = self.state_read(decl.expr or decl.body)
            if found is not None:
                self.reads_cache[name] = found
                break
        return self.reads_cache[name]

    # ------------------------------------------------------------ the breakdown and the display

    def breakdown(self) -> None:
        """`breakdown(p)` and `display(p)` `{ "Heading": value, … }`: typed, reading public data only."""
        for versions, what in (
            (self.p.breakdown, "a score breakdown"),
            (self.p.display, "a display entry"),
        ):
            if versions is not None:
                self.entries(versions.active, what)

    def entries(self, decl: ast.BreakdownDecl | ast.DisplayDecl, what: str) -> None:
        """One declaration's entries: each typed, and reporting a read of secret data."""
        for entry in decl.entries:
            scope = Scope([{decl.var: Local(PLAYER, False, decl)}], pure=True)
            if entry.each is not None:  # a line for each element, headed by its label
                scope = self.typer.comp_scope((entry.each,), scope)
            self.typer.expr(entry.expr, scope)
            found = self.secret_read(entry, set())
            if found is not None:
                node, reads = found
                self.diags.error(
                    LABEL,
                    f"{what} is shown to every player, so it cannot read {reads}",
                    node.span,
                    "keep what it shows in public fields (e.g. counters the scoring adds to)",
                )

    def secret_read(self, node: ast.Node, seen: set[str]) -> tuple[ast.Node, str] | None:
        """The first read of a hidden or owner-only field under `node` (size() may count one)."""
        counted: set[int] = set()
        for sub in walk(node):
            builtin = BUILTINS.get(sub.func) if isinstance(sub, ast.Call) else None
            if builtin is not None and builtin.counts_only:
                counted.update(id(arg) for arg in sub.args)
        for sub in walk(node):
            if id(sub) in counted:
                continue
            ref = self.cp.ref(sub)
            spec = None
            if isinstance(ref, GlobalRef):
                spec = self.p.state.get(ref.name)
            elif isinstance(ref, PlayerFieldRef):
                spec = self.p.per_player.get(ref.field)
            if spec is not None and spec.visibility != "public":
                return sub, f"the {spec.visibility} field '{spec.name}'"
            if isinstance(sub, ast.Call) and sub.func in self.p.functions and sub.func not in seen:
                seen.add(sub.func)
                for decl in self.p.functions[sub.func].versions:
                    inner = self.secret_read(decl.expr or decl.body, seen)
                    if inner is not None:
                        return sub, f"{inner[1]} (through {sub.func}())"
        return None


_GIVEN = {
    "a kind's label": "the element's fields",
    "an action's label": "the action's parameters",
    "a choice's label": "the chosen value",
}


def _reads_game(builtin) -> bool:
    """True for builtins that read the position (who moves, seats, the end) or change it."""
    if builtin.effect != "reads" or builtin.reads_position:
        return True
    return template_reads_state(builtin)


def _kinds_in(t: Type) -> set[str]:
    """The map kinds whose elements a value of type `t` shows."""
    if isinstance(t, ElemT):
        return {t.kind}
    if isinstance(t, OptT):
        return _kinds_in(t.inner)
    if isinstance(t, CollT):
        return _kinds_in(t.item)
    if isinstance(t, MapT):
        return _kinds_in(t.key) | _kinds_in(t.value)
    if isinstance(t, TupleT):
        return set().union(*(_kinds_in(i) for i in t.items))
    return set()
