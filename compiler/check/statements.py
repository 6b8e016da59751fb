"""Typing rules for statements (part of the `types` pass; see `compiler/check/types.py`)."""

from __future__ import annotations

from compiler.builtin_rules import item_type
from compiler.check.names import valid_identifier
from compiler.check.typer import Local, Scope, TyperBase
from compiler.refs import GlobalRef, LocalRef, PlayerFieldRef
from compiler.types import (
    ANY,
    INT,
    PLAYER,
    AnyT,
    CollT,
    IntT,
    MapT,
    NoneT,
    OptT,
    Type,
    is_sequence,
)
from dsl import ast
from dsl.diagnostics import (
    ASSIGN,
    BAD_NAME,
    DUPLICATE,
    PURITY,
    STRUCTURE,
    TYPE,
    UNDEFINED_NAME,
)
from dsl.keywords import RESERVED_WORDS


class StatementRules(TyperBase):
    """`visit_<Stmt>(node, scope)`: check one statement, declaring what it binds in `scope`."""

    def visit_Let(self, node: ast.Let, scope: Scope) -> None:
        t = self.expr(node.value, scope)
        if isinstance(node.value, ast.Call) and node.value.func in self.p.procedures:
            sig = self.cp.signatures.get(node.value.func)
            if sig is not None and sig.ret is None:
                self.error(TYPE, f"procedure '{node.value.func}' returns no value", node.value)
        if node.type is not None:
            declared = self.type_expr(node.type)
            self.expect_assignable(t, declared, node.value, f"'{node.name}'")
            t = declared
            self.cp.types[id(node)] = declared
        elif isinstance(t, NoneT):
            self.error(TYPE, f"give '{node.name}' a type: `let {node.name}: T? = none`", node)
        self._declare(node.name, t, node, scope)

    def _declare(
        self, name: str, t: Type, node: ast.Node, scope: Scope, mutable: bool = True
    ) -> None:
        if not valid_identifier(name) or name in RESERVED_WORDS:
            self.error(BAD_NAME, f"'{name[:40]}' cannot be used as a name", node)
        if name in self.global_names or name in self.cp.value_enum:
            self.error(DUPLICATE, f"'{name}' hides a declaration of the same name", node)
        elif scope.lookup(name) is not None:
            self.error(DUPLICATE, f"'{name}' is already a local here", node)
        scope.frames[-1][name] = Local(t, mutable, node)

    def visit_Assign(self, node: ast.Assign, scope: Scope) -> None:
        target_t = self.lvalue(node.target, scope)
        value_t = self.expr(node.value, scope)
        if node.op == "=":
            self.expect_assignable(value_t, target_t, node.value, "the value")
        elif isinstance(target_t, CollT) and node.op in ("+=", "-="):
            if node.op == "-=" and target_t.kind not in ("bag", "set"):
                self.error(TYPE, "`-=` removes items from a bag or a set", node)
            elif not isinstance(value_t, CollT | AnyT) or not self.sub.assignable(
                value_t.item if isinstance(value_t, CollT) else ANY, target_t.item
            ):
                self.error(TYPE, f"cannot add {value_t} to {target_t}", node.value)
        elif not isinstance(target_t, IntT | AnyT) or not isinstance(value_t, IntT | AnyT):
            self.error(TYPE, f"`{node.op}` needs numbers, not {target_t} and {value_t}", node)

    def lvalue(self, node: ast.Expr, scope: Scope) -> Type:
        """Check an assignment target and return its type."""
        root = node
        while isinstance(root, ast.Field | ast.Index):
            root = root.obj
        t = self.expr(node, scope)
        ref = self.cp.ref(node)
        if isinstance(node, ast.Name):
            if ref is None:
                return t
            if isinstance(ref, LocalRef):
                local = scope.lookup(node.name)
                if local is not None and not local.mutable:
                    self.error(
                        ASSIGN,
                        f"'{node.name}' is a parameter or choice and cannot be assigned",
                        node,
                    )
                return t
            if isinstance(ref, GlobalRef):
                if scope.pure:
                    self.error(PURITY, "a function or guard may not change the game state", node)
                return t
            self.error(ASSIGN, f"cannot assign to {ref.what} '{node.name}'", node)
            return t
        if isinstance(node, ast.Field):
            if isinstance(ref, PlayerFieldRef):
                if scope.pure:
                    self.error(PURITY, "a function or guard may not change the game state", node)
                return t
            self.error(ASSIGN, "only player fields can be assigned with `.`", node)
            return t
        if isinstance(node, ast.Index):
            obj_t = self.cp.type_of(node.obj)
            if isinstance(obj_t, CollT) and obj_t.kind == "set":
                self.error(ASSIGN, "cannot assign into a set; use add() or remove()", node)
            self.mutable_root(node.obj, scope)
            return t
        self.error(ASSIGN, "this cannot be assigned", node)
        return t

    def visit_ExprStmt(self, node: ast.ExprStmt, scope: Scope) -> None:
        if not isinstance(node.expr, ast.Call | ast.SuperCall):
            self.error(
                STRUCTURE, "an expression on its own does nothing; call a procedure or assign", node
            )
        self.expr(node.expr, scope, statement=True)

    def visit_Return(self, node: ast.Return, scope: Scope) -> None:
        t = self.expr(node.value, scope) if node.value is not None else None
        if scope.returns is None:
            self.error(
                STRUCTURE,
                "this body returns no value; use a bare `return` at the end of a block",
                node,
            )
        elif t is not None:
            self.expect_assignable(t, scope.returns, node.value, "the returned value")

    def visit_Break(self, node, scope: Scope) -> None:
        """Where `break`, `continue` and `end game` may stand is the `control` pass's job."""

    visit_Continue = visit_Break
    visit_EndGame = visit_Break

    def visit_Draw(self, node: ast.Draw, scope: Scope) -> None:
        if node.count is not None:
            self.expect_assignable(self.expr(node.count, scope), INT, node.count, "the count")
        src = self.expr(node.source, scope)
        if not (isinstance(src, CollT) and is_sequence(src)) and not isinstance(src, AnyT):
            self.error(TYPE, f"`draw` takes from a pile or list, not {src}", node.source)
        self.mutable_root(node.source, scope)
        dst = self.expr(node.dest, scope)
        self._check_dest(src, dst, node.dest, scope)

    def visit_Move(self, node: ast.Move, scope: Scope) -> None:
        item = self.expr(node.item, scope)
        src = self.expr(node.source, scope)
        dst = self.expr(node.dest, scope)
        for coll, where in ((src, node.source), (dst, node.dest)):
            if not isinstance(coll, CollT | AnyT):
                self.error(TYPE, f"`move` works between collections, not {coll}", where)
            self.mutable_root(where, scope)
        if isinstance(src, CollT) and not self.sub.comparable(item, src.item):
            self.error(TYPE, f"cannot move {item} out of {src}", node.item)
        if isinstance(dst, CollT):
            self.expect_assignable(item, dst.item, node.item, "the moved item")

    def _check_dest(self, src: Type, dst: Type, where: ast.Expr, scope: Scope) -> None:
        if not isinstance(dst, CollT | AnyT):
            self.error(TYPE, f"can only draw into a collection, not {dst}", where)
            return
        self.mutable_root(where, scope)
        if isinstance(src, CollT) and isinstance(dst, CollT):
            self.expect_assignable(src.item, dst.item, where, "the drawn items")

    def visit_Shuffle(self, node: ast.Shuffle, scope: Scope) -> None:
        t = self.expr(node.target, scope)
        if not (isinstance(t, CollT) and is_sequence(t)) and not isinstance(t, AnyT):
            self.error(TYPE, f"can only shuffle a pile or list, not {t}", node.target)
        self.mutable_root(node.target, scope)

    def visit_Choose(self, node: ast.Choose, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.by, scope), PLAYER, node.by, "`by`")
        t = self.domain(node.domain, scope)
        self.cp.types[id(node)] = t  # the chosen value's type, for lowering and naming
        guard = scope.child()
        guard.pure, guard.me = True, True
        guard.frames[-1][node.name] = Local(t, False, node)
        if node.where is not None:
            self.condition(node.where, guard)
        self._declare(node.name, OptT(t) if node.optional else t, node, scope, mutable=False)

    def visit_EachChoose(self, node: ast.EachChoose, scope: Scope) -> None:
        t = self.expr(node.players, scope)
        if not (isinstance(t, CollT) and self.sub.assignable(t.item, PLAYER)) and not isinstance(
            t, AnyT
        ):
            self.error(TYPE, f"`each … in` needs a collection of players, not {t}", node.players)
        inner = scope.child()
        inner.frames[-1][node.var] = Local(PLAYER, False, node)
        value_t = self.domain(node.domain, inner)
        self.cp.types[id(node)] = value_t
        guard = inner.child()
        guard.pure, guard.me = True, True
        guard.frames[-1][node.name] = Local(value_t, False, node)
        if node.where is not None:
            self.condition(node.where, guard)
        self._declare(node.name, MapT(PLAYER, value_t), node, scope, mutable=False)

    def visit_ChooseAction(self, node: ast.ChooseAction, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.by, scope), PLAYER, node.by, "`by`")
        self._offered_names(node)
        if node.orelse is not None:
            self.block(node.orelse, scope)

    def visit_EachChooseAction(self, node: ast.EachChooseAction, scope: Scope) -> None:
        t = self.expr(node.players, scope)
        if not (isinstance(t, CollT) and self.sub.assignable(t.item, PLAYER)) and not isinstance(
            t, AnyT
        ):
            self.error(TYPE, f"`each … in` needs a collection of players, not {t}", node.players)
        self._offered_names(node)

    def _offered_names(self, node: ast.ChooseAction | ast.EachChooseAction) -> None:
        # A group's own members are checked once, at the group (pass `structure`).
        seen: set[str] = set()
        for index, name in enumerate(node.actions):
            where = node.action_spans[index] if node.action_spans else node.span
            if name not in self.p.actions and name not in self.p.groups:
                self.diags.error(
                    UNDEFINED_NAME,
                    f"unknown action or action group '{name}'",
                    where,
                    *self.suggest(name, list(self.p.actions) + list(self.p.groups)),
                )
            if name in seen:
                self.diags.error(DUPLICATE, f"action '{name}' is offered twice", where)
            seen.add(name)

    def visit_If(self, node: ast.If, scope: Scope) -> None:
        for cond, body in node.branches:
            self.condition(cond, scope)
            self.block(body, scope)
        if node.orelse is not None:
            self.block(node.orelse, scope)

    def visit_For(self, node: ast.For, scope: Scope) -> None:
        t = self.expr(node.iterable, scope)
        item = item_type(t)
        if item is None:
            self.error(TYPE, f"cannot loop over {t}", node.iterable)
            item = ANY
        inner = scope.child()
        self._declare(node.var, item, node, inner, mutable=False)
        if node.where is not None:
            self.condition(node.where, inner)
        self.block(node.body, inner)

    def visit_Repeat(self, node: ast.Repeat, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.count, scope), INT, node.count, "the count")
        self.block(node.body, scope)

    def visit_While(self, node: ast.While, scope: Scope) -> None:
        self.condition(node.cond, scope)
        self.block(node.body, scope)

    def visit_Loop(self, node: ast.Loop, scope: Scope) -> None:
        self.block(node.body, scope)

    def visit_Play(self, node: ast.Play, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.player, scope), PLAYER, node.player, "the player")
        for arg in node.args:
            self.expr(arg, scope)

    visit_Refuse = visit_Play

    def visit_ChanceStep(self, node: ast.ChanceStep, scope: Scope) -> None:
        self.expr(node.value, scope)

    def visit_Expect(self, node: ast.Expect, scope: Scope) -> None:
        self.condition(node.expr, scope)
