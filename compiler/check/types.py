"""Pass `types`: the type of every expression and what every name refers to.

Input: a CheckedProgram after `names`. Output: `cp.kind_fields`, `cp.const_types`,
`cp.state_types`, `cp.player_types`, `cp.signatures`, `cp.types` (node id -> Type, for
expressions, written types and choices) and `cp.refs` (node id -> a record of
`compiler/refs.py`). Rules that depend on the scope an expression stands in are checked
here too: purity (a function or guard may not change the state or call a procedure),
`me` outside actions, assignability of targets, and finite choice domains.
"""

from __future__ import annotations

from compiler.check.choices import choices
from compiler.check.expressions import ExpressionRules
from compiler.check.names import valid_identifier
from compiler.check.statements import StatementRules
from compiler.check.typer import Local, Scope
from compiler.checked import CheckedProgram, Signature
from compiler.refs import GlobalRef
from compiler.types import INT, PLAYER, AnyT, BoolT, CollT, ElemT, IntT, Type, is_finite
from dsl.diagnostics import BAD_NAME, DUPLICATE, TYPE, UNDEFINED_NAME, Diagnostics
from dsl.visitor import walk


def check_types(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Type the declarations, then every body."""
    Typer(cp, diags).run()


class Typer(StatementRules, ExpressionRules):
    """The typing rules of statements and expressions, applied to every declaration."""

    def run(self) -> None:
        """Type kinds, consts, state, signatures, then bodies, in that order."""
        self._kinds()
        self._consts()
        self._state()
        self._signatures()
        self._bodies()

    def _kinds(self) -> None:
        for name, kind in self.p.kinds.items():
            fields: list[tuple[str, Type]] = []
            seen: set[str] = set()
            for f in kind.fields:
                if f.name in seen:
                    self.error(DUPLICATE, f"field '{f.name}' twice in kind '{name}'", f)
                seen.add(f.name)
                if not valid_identifier(f.name):
                    self.error(BAD_NAME, f"'{f.name[:40]}' cannot be a field name", f)
                fields.append((f.name, self.type_expr(f.type, data=True)))
            self.cp.kind_fields[name] = fields

    def _consts(self) -> None:
        scope = Scope([{}], pure=True)
        for name, versions in self.p.consts.items():
            decl = versions.active
            self.current_decl = name
            self.cp.const_types[name] = self.expr(decl.value, scope)
            if len(versions.versions) > 1:
                # An override keeps the base's type, and the error belongs to the override's line.
                base_t = self.expr(versions.versions[0].value, scope)
                if not self.sub.assignable(self.cp.const_types[name], base_t):
                    self.error(
                        TYPE,
                        f"override of const '{name}' has type {self.cp.const_types[name]}, "
                        f"but the base declares {base_t}",
                        decl,
                    )
                    self.cp.const_types[name] = base_t
            for node in walk(decl.value):
                if isinstance(self.cp.ref(node), GlobalRef):
                    self.error(TYPE, "a const may not read the game state", node)

    def _state(self) -> None:
        scope = Scope([{}], pure=True)
        for table, out in (
            (self.p.state, self.cp.state_types),
            (self.p.per_player, self.cp.player_types),
        ):
            for name, spec in table.items():
                t = self.type_expr(spec.type)
                out[name] = t
                if spec.init is not None:
                    init_t = self.expr(spec.init, scope)
                    self.expect_assignable(init_t, t, spec.init, "initial value")
                    for node in walk(spec.init):
                        if isinstance(self.cp.ref(node), GlobalRef):
                            self.error(TYPE, "an initial value may not read the game state", node)
                if isinstance(t, CollT) and t.kind == "bag" and not is_finite(t.item):
                    self.error(
                        TYPE,
                        f"a bag holds enum values, map elements or players, not {t.item}",
                        spec.type,
                    )

    def _signatures(self) -> None:
        for table in (self.p.functions, self.p.procedures):
            for name, versions in table.items():
                sigs = [self._signature(decl) for decl in versions.versions]
                for decl, sig in zip(versions.versions[1:], sigs[1:], strict=True):
                    if self._sig_types(sig) != self._sig_types(sigs[0]):
                        self.error(
                            TYPE,
                            f"override of '{name}' changes its parameters or result "
                            f"(was {self._describe(sigs[0])})",
                            decl,
                        )
                self.cp.signatures[name] = sigs[-1]
        for name in self.p.actions:
            self.cp.signatures[name] = Signature([], None)

    def _sig_types(self, sig: Signature):
        return ([t for _, t in sig.params], sig.ret)

    def _describe(self, sig: Signature) -> str:
        params = ", ".join(f"{n}: {t}" for n, t in sig.params)
        return f"({params})" + (f" -> {sig.ret}" if sig.ret else "")

    def _signature(self, decl) -> Signature:
        params = []
        seen: set[str] = set()
        for param in decl.params:
            if param.name in seen:
                self.error(DUPLICATE, f"parameter '{param.name}' twice", param)
            seen.add(param.name)
            params.append((param.name, self.type_expr(param.type)))
        ret = self.type_expr(decl.ret) if decl.ret is not None else None
        return Signature(params, ret)

    # ------------------------------------------------------------ bodies

    def _bodies(self) -> None:
        p = self.p
        for name, versions in p.functions.items():
            for decl in versions.versions:
                self.current_decl = name
                scope = self._param_scope(decl, pure=True)
                scope.returns = self.cp.signatures[name].ret
                if decl.expr is not None:
                    self.expect_assignable(
                        self.expr(decl.expr, scope), scope.returns, decl.expr, "result"
                    )
                else:
                    self.block(decl.body, scope)
        for name, versions in p.procedures.items():
            for decl in versions.versions:
                self.current_decl = name
                scope = self._param_scope(decl, pure=False)
                scope.returns = self.cp.signatures[name].ret
                self.block(decl.body, scope)
        for name, versions in p.actions.items():
            for decl in versions.versions:
                self.current_decl = name
                scope = Scope([{}], me=True)
                params = []
                for param in decl.params:
                    t = self.domain(param.domain, scope)
                    if param.name in scope.frames[-1] or param.name in self.global_names:
                        self.error(DUPLICATE, f"parameter '{param.name}' hides another name", param)
                    scope.frames[-1][param.name] = Local(t, mutable=False, site=param)
                    params.append((param.name, t))
                    if param.where is not None:
                        self.condition(param.where, scope.child().with_pure())
                if decl.when is not None:
                    when_scope = Scope([{}], me=True, pure=True)
                    self.condition(decl.when, when_scope)
                self.cp.signatures[name] = Signature(params, None)
                self.block(decl.body, scope)
        if p.flow is not None:
            for decl in p.flow.versions:
                self.current_decl = "flow"
                self.block(decl.body, Scope([{}]))
                if decl.final is not None:
                    self.block(decl.final, Scope([{}]))
        if p.score is not None:
            decl = p.score.active
            scope = Scope([{decl.var: Local(PLAYER, False, decl)}], pure=True)
            self.expect_assignable(self.expr(decl.expr, scope), INT, decl.expr, "score")
        if p.estimate is not None:
            decl = p.estimate.active
            scope = Scope([{decl.var: Local(PLAYER, False, decl)}], pure=True)
            self.expect_assignable(self.expr(decl.expr, scope), INT, decl.expr, "the estimate")
        for decl in p.metrics.values():
            scope = Scope([{decl.var: Local(PLAYER, False, decl)}], pure=True)
            t = self.expr(decl.expr, scope)
            if not isinstance(t, IntT | BoolT | AnyT):
                self.error(TYPE, f"a metric must be a number or a truth value, not {t}", decl.expr)
        if p.rank is not None:
            decl = p.rank.active
            scope = Scope([{decl.var: Local(PLAYER, False, decl)}], pure=True)
            for key in decl.keys:
                t = self.expr(key.expr, scope)
                if not isinstance(t, IntT | BoolT | AnyT):
                    self.error(
                        TYPE, f"a ranking key must be a number or a truth value, not {t}", key.expr
                    )
        for decl in p.invariants.values():
            self.current_decl = decl.name
            self.condition(decl.expr, Scope([{}], pure=True))
        chosen = {c.name: c.type for c in reversed(choices(self.cp))}  # the first one's type
        for decl in p.bots.values():
            for rule in decl.rules:
                # an action's rule sees its parameters; a choice's rule sees the value chosen
                if rule.action in p.actions:
                    params = self.cp.signatures[rule.action].params
                elif rule.action in chosen:
                    params = [(rule.action, chosen[rule.action])]
                else:
                    self.error(
                        UNDEFINED_NAME,
                        f"bot '{decl.name}' scores unknown action or choice '{rule.action}'",
                        rule,
                        *self.suggest(rule.action, p.actions),
                    )
                    continue
                scope = Scope([{}], pure=True, me=True)
                sites = {}
                if rule.action in p.actions:
                    sites = {param.name: param for param in p.actions[rule.action].active.params}
                for name, t in params:
                    scope.frames[-1][name] = Local(t, False, sites.get(name))
                self.expect_assignable(
                    self.expr(rule.score, scope), INT, rule.score, "a bot's score"
                )
        for decl in p.scenarios.values():
            self.current_decl = decl.name
            scope = Scope([{}])
            for step in decl.steps:
                self.visit(step, scope)
        for decl in p.checks.values():
            self.current_decl = decl.name
            scope = Scope([{}], pure=True)
            if decl.var is not None:
                if decl.kind not in p.kinds:
                    self.error(
                        UNDEFINED_NAME,
                        f"unknown map kind '{decl.kind}'",
                        decl,
                        *self.suggest(decl.kind, p.kinds),
                    )
                    continue
                scope.frames[-1][decl.var] = Local(ElemT(decl.kind), False, decl)
                if decl.where is not None:
                    self.condition(decl.where, scope)
            self.condition(decl.cond, scope)
            for node in walk(decl.cond):
                if isinstance(self.cp.ref(node), GlobalRef):
                    self.error(TYPE, "a map check may only read map data, not the game state", node)

    def _param_scope(self, decl, pure: bool) -> Scope:
        scope = Scope([{}], pure=pure)
        sites = {param.name: param for param in decl.params}
        for name, t in self._signature_quiet(decl):
            if name in self.global_names:
                self.error(
                    DUPLICATE,
                    f"parameter '{name}' hides the {self.global_names[name]} '{name}'",
                    decl,
                )
            scope.frames[-1][name] = Local(t, mutable=False, site=sites.get(name))
        return scope

    def _signature_quiet(self, decl) -> list[tuple[str, Type]]:
        sig = self.cp.signatures.get(decl.name)
        return sig.params if sig else []
