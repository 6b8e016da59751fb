"""Pass `lower` (plain part): statements that never wait for a decision become IR statements.

Dispatch is `visit_<StmtClass>` by name (the compiler-wide visitor scheme is not in yet).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler import ir
from compiler.expr import (
    Attr,
    BinOp,
    Call,
    Const,
    Display,
    Expr,
    FrameLocal,
    Hoisted,
    Index,
    Lambda,
    Listing,
    Local,
    Name,
    Operand,
    Paren,
    S,
    StateField,
    Table,
    Unary,
    call,
    helper,
)
from compiler.indexes import Index as MaintainedIndex
from compiler.indexes import find_indexes
from compiler.literals import ident
from compiler.lower_exprs import Env, ExprLowerer, source_text, spot
from compiler.lower_guards import GuardTables
from compiler.printer import ir_expr
from compiler.program import Program
from compiler.refs import ElemByIdRef, GlobalRef, PlayerFieldRef
from compiler.types import CollT, MapT, OptT
from compiler.visit import StrictVisitor
from dsl import ast
from dsl.source import Span
from dsl.visitor import walk

CHOOSE_NODES = (ast.Choose, ast.EachChoose, ast.ChooseAction, ast.EachChooseAction)

X = ir_expr  # an IR expression of a node


@dataclass
class LoweringContext:
    """What lowering the whole program shares and collects: sites, choice labels, limit errors."""

    gen: ExprLowerer
    sites: list[ir.Site] = field(default_factory=list)
    action_descs: dict[str, tuple[Expr, int]] = field(default_factory=dict)
    errors: list[tuple[str, Span]] = field(default_factory=list)
    labelled: dict[str, Expr] = field(default_factory=dict)  # action/choice -> its descriptors

    indexes: dict[str, MaintainedIndex] = field(default_factory=dict)  # compiler/indexes.py
    action_tables: list[ir.Assign] = field(default_factory=list)  # actions built once
    action_memos: set[str] = field(default_factory=set)  # `MEMO_`/`ACTIONS_<name>` made so far

    def __post_init__(self):
        self.gen.tables = GuardTables(self.gen)
        self.indexes = find_indexes(self.gen.cp, self.gen.sizes.value_count)
        self.gen.tables.indexes = self.indexes

    def index_written(self, target: ast.Expr) -> MaintainedIndex | None:
        """The index an assignment to `target` must keep up to date: `F[key] = …` or `F = …`."""
        if isinstance(target, ast.Index):
            target = target.obj
        if isinstance(target, ast.Name) and isinstance(self.gen.cp.ref(target), GlobalRef):
            return self.indexes.get(target.name)
        return None

    def guard_tables(self) -> GuardTables:
        """The guard tables of this program (compiler/lower_guards.py)."""
        return self.gen.tables

    def register_choice(self, name: str, descs: Expr, rank: int) -> None:
        """Record how a choice's values are written (`descs`: its descriptors), so ids parse back."""
        self.action_descs.setdefault(name, (descs, rank))

    def arg_descs(self, name: str, descs: Expr) -> Expr:
        """The descriptors of an action's or choice's arguments: with its label if declared.

        A labelled one gets a module constant `AD_<name>` (`ArgDescs`: the descriptors and the
        label function), defined once the label functions are (compiler/lower_labels.py).
        """
        if name not in self.gen.labels:
            return descs
        self.labelled.setdefault(name, descs)
        return Name(f"AD_{ident(name)}")


def where_args(p: Program, span: Span) -> tuple[Expr, Expr]:
    """`file, line` arguments locating a runtime check at `span` (the file as the module's name
    for its path, `_F<index>`; compiler/sources.py)."""
    return Name(p.source_table.ref(span.file)), Const(span.line)


def refused(message: Expr, rule: str, where: tuple[Expr, Expr]) -> Expr:
    """`(message, rule, file, line)`: why an action or a choice is refused."""
    return Paren(Display("bare", (message, Const(rule), *where)))


class StmtLowerer(StrictVisitor):
    """Lowers plain statements (no decisions inside) to IR statements."""

    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx
        self.gen = ctx.gen

    def block(self, stmts, env: Env, returns: bool = False) -> list[ir.Stmt]:
        """IR for a sequence of statements (ending with a return when `returns`)."""
        out: list[ir.Stmt] = []
        for stmt in stmts:
            out.extend(self.stmt(stmt, env))
        if returns:
            out.append(ir.FrameReturn() if env.frame else ir.Return())
        return out

    def stmt(self, node: ast.Stmt, env: Env) -> list[ir.Stmt]:
        """IR for one plain statement."""
        return self.visit(node, env)

    def visit_Let(self, node: ast.Let, env):
        gen = self.gen
        value = gen.expr(node.value, env)
        declared = gen.cp.types.get(id(node))
        if node.type is not None and isinstance(declared, CollT | MapT):
            value = gen.convert(value, gen.t(node.value), declared)
        value = gen.checked(value, node.value, declared or gen.t(node.value))
        return [ir.Assign(X(env.local(node.name)), X(value), node.span)]

    def visit_Assign(self, node: ast.Assign, env):
        return self.assign(node, self.gen.expr(node.value, env), env)

    def assign(self, node: ast.Assign, value: Expr, env: Env) -> list[ir.Stmt]:
        """An assignment of the value computed by `value` (also a waiting call's result)."""
        gen = self.gen
        place = gen.expr(node.target, env)
        tt, vt = gen.t(node.target), gen.t(node.value)
        if node.op == "=":
            if isinstance(tt, CollT | MapT):
                value = gen.convert(value, vt, tt)
            value = gen.checked(value, node.value, tt)
            return self.store(node.target, place, value, env, node.span)
        if not isinstance(tt, CollT):
            return self.augmented(node, value, env)
        value = gen.checked(value, node.value, tt)
        if isinstance(vt, CollT) and vt.kind == "bag":
            items = helper("_l", "each_bag", S, value, spot(self.gen.p, node.span))
        else:
            items = gen.charged(value, node)
        if tt.kind == "bag":
            fn = "bag_add_all" if node.op == "+=" else "bag_remove_all"
            return [ir.Eval(X(helper("_l", fn, place, items)), node.span)]
        if tt.kind == "set":
            op = "|=" if node.op == "+=" else "-="
            return [ir.Assign(X(place), X(call("set", items)), node.span, op)]
        return [ir.Eval(X(Call(Attr(place, "extend"), (items,))), node.span)]

    def store(self, target: ast.Expr, code: Expr, value: Expr, env: Env, span) -> list[ir.Stmt]:
        """`code = value` (`code` is `target`'s), keeping an indexed state table's index up to date."""
        gen = self.gen
        index = self.ctx.index_written(target)
        if index is None:
            return [ir.Assign(X(code), X(value), span)]
        if not isinstance(target, ast.Index):  # the whole table replaced
            return [ir.IndexedStore(X(code), X(value), index, None, span)]
        # The value first, as Python's own assignment does, then where it goes.
        out: list[ir.Stmt] = [ir.Assign(X(_IV), X(value), span)]
        with gen.numbered_apart("t"):  # the names the rest of the module gets stay as they were
            key = gen.expr(target.index, env)
        if not _stable(key):
            out.append(ir.Assign(X(_IK), X(key), span))
            key = _IK
        place = Index(StateField(f"g_{index.field}"), key)
        out.append(ir.IndexedStore(X(place), X(_IV), index, X(key), span))
        return out

    def augmented(self, node: ast.Assign, value: Expr, env: Env) -> list[ir.Stmt]:
        """`x += v` (or -=, *=) on a number, its result range-checked.

        The parts of the target (container, index) are evaluated once, before the value,
        as Python's own augmented assignment does.
        """
        gen = self.gen
        target = node.target
        ref = gen.cp.ref(target)
        out: list[ir.Stmt] = []
        if isinstance(ref, PlayerFieldRef):
            container, index = StateField(f"p_{ident(target.name)}"), gen.expr(target.obj, env)
        elif isinstance(target, ast.Index) and not isinstance(ref, ElemByIdRef):
            container, index = gen.expr(target.obj, env), gen.expr(target.index, env)
        else:
            container = index = None
        if container is None:
            place = gen.expr(target, env)
        elif _stable(container) and _stable(index):
            place = Index(container, index)
        else:
            # Python temporaries used at once (no counter: numbered frame locals are saved state).
            temporaries = (Local("_at"), Local("_ai"))
            pair = Display("bare", (container, index))
            out.append(ir.Assign(X(Display("bare", temporaries)), X(pair), node.span))
            place = Index(*temporaries)
        check = "opt_int_ok" if isinstance(gen.t(target), OptT) else "int_ok"
        value = helper("_l", check, BinOp(place, node.op[0], value))
        out.append(ir.Assign(X(place), X(value), node.span))
        return out

    def visit_ExprStmt(self, node: ast.ExprStmt, env):
        return [ir.Eval(X(self.gen.expr(node.expr, env)), node.span)]

    def visit_Return(self, node: ast.Return, env):
        value = X(self.gen.expr(node.value, env) if node.value is not None else Const(None))
        return [ir.FrameReturn(value, node.span) if env.frame else ir.Return(value, node.span)]

    def visit_Break(self, node, env):
        return [ir.Break(node.span)]

    def visit_Continue(self, node, env):
        return [ir.Continue(node.span)]

    def visit_EndGame(self, node, env):
        return [ir.RaiseEndGame(node.span)]

    def visit_Draw(self, node: ast.Draw, env):
        gen = self.gen
        count = gen.expr(node.count, env) if node.count is not None else Const(1)
        items = helper("_l", "draw", gen.expr(node.source, env), count)
        return [self.add_items(node.dest, items, env, node.span)]

    def add_items(self, dest: ast.Expr, items: Expr, env: Env, span: Span) -> ir.Stmt:
        """Append drawn items to a destination collection."""
        code = self.gen.expr(dest, env)
        t = self.gen.t(dest)
        if isinstance(t, CollT) and t.kind == "bag":
            return ir.Eval(X(helper("_l", "bag_add_all", code, items)), span)
        method = "update" if isinstance(t, CollT) and t.kind == "set" else "extend"
        return ir.Eval(X(Call(Attr(code, method), (items,))), span)

    def visit_Move(self, node: ast.Move, env):
        gen = self.gen
        item = gen.expr(node.item, env)
        source, dest = gen.expr(node.source, env), gen.expr(node.dest, env)
        st, dt = gen.t(node.source), gen.t(node.dest)
        tmp = Local(f"_m{gen.fresh()}")
        skind = st.kind if isinstance(st, CollT) else "list"
        dkind = dt.kind if isinstance(dt, CollT) else "list"
        remove = {"bag": "bag_remove", "set": "set_remove"}.get(skind, "list_remove")
        out: list[ir.Stmt] = [
            ir.Assign(X(tmp), X(item), node.span),
            ir.Eval(X(helper("_l", remove, source, tmp)), node.span),
        ]
        if dkind == "bag":
            out.append(ir.Assign(X(Index(dest, tmp)), X(Const(1)), node.span, "+="))
        else:
            method = "add" if dkind == "set" else "append"
            out.append(ir.Eval(X(Call(Attr(dest, method), (tmp,))), node.span))
        return out

    def visit_Shuffle(self, node, env):
        gen = self.gen
        pile = gen.t(node.target)
        items = Name(gen.desc(pile.item)) if isinstance(pile, CollT) else Const(None)
        return [
            ir.Eval(X(helper("_l", "shuffle", S, gen.expr(node.target, env), items)), node.span)
        ]

    def visit_If(self, node: ast.If, env):
        branches = [
            ir.Branch(
                X(self.gen.expr(cond, env)),
                self.block(body.stmts, env, body.returns),
                cond.span,
            )
            for cond, body in node.branches
        ]
        orelse = None
        if node.orelse is not None:
            orelse = self.block(node.orelse.stmts, env, node.orelse.returns)
        return [ir.If(branches, orelse, node.span)]

    def visit_For(self, node: ast.For, env):
        gen = self.gen
        iterable = gen.items(node.iterable, env, snapshot=True)
        body: list[ir.Stmt] = []
        if node.where is not None:
            body.append(skip_unless(gen.expr(node.where, env), ir.Continue(), node.where.span))
        body += self.block(node.body.stmts, env, node.body.returns)
        return [ir.For(X(env.local(node.var)), X(iterable), body, node.span)]

    def visit_Repeat(self, node: ast.Repeat, env):
        gen = self.gen
        count = helper("_l", "times", S, gen.expr(node.count, env), *gen.charge_args(node))
        body = self.block(node.body.stmts, env, node.body.returns)
        return [ir.For(X(Local(f"_r{gen.fresh()}")), X(call("range", count)), body, node.span)]

    def visit_While(self, node: ast.While, env):
        return [self._loop(self.gen.expr(node.cond, env), node, env)]

    def visit_Loop(self, node: ast.Loop, env):
        return [self._loop(Const(True), node, env)]

    def _loop(self, cond: Expr, node, env: Env) -> ir.While:
        tick = ir.Eval(X(helper("_l", "tick", S, *self.gen.charge_args(node))), node.span)
        body = self.block(node.body.stmts, env, node.body.returns)
        return ir.While(X(cond), [tick, *body], node.span)

    def visit_Play(self, node: ast.Play, env):
        return [self._step("play", node, env)]

    def visit_Refuse(self, node: ast.Refuse, env):
        return [self._step("refuse", node, env)]

    def _step(self, fn: str, node, env: Env) -> ir.Stmt:
        gen = self.gen
        player = gen.expr(node.player, env)
        args = Display("tuple", tuple(gen.expr(a, env) for a in node.args))
        code = helper("_l", fn, S, player, Const(node.action), args, *where_args(gen.p, node.span))
        return ir.Eval(X(code), node.span)

    def visit_ChanceStep(self, node: ast.ChanceStep, env):
        value = self.gen.expr(node.value, env)
        code = helper("_l", "chance", S, value, *where_args(self.gen.p, node.span))
        return [ir.Eval(X(code), node.span)]

    def visit_Expect(self, node: ast.Expect, env):
        gen = self.gen
        text = source_text(gen.p, node.expr.span)
        # What a failed expectation shows: the value of each operand it compared (computed
        # only when it fails), so a scenario's author sees what the game did.
        seen = []
        for operand in _compared(node.expr):
            words = source_text(gen.p, operand.span)
            value = helper("_l", "show", gen.expr(operand, env), Name(gen.desc(gen.t(operand))))
            if words not in (w for w, _ in seen):
                seen.append((words, value))
        pairs = tuple(Paren(Display("bare", (Const(words), value))) for words, value in seen)
        detail = Lambda((), Display("list", pairs)) if seen else Const(None)
        where = where_args(gen.p, node.span)
        code = helper("_l", "expect", gen.expr(node.expr, env), Const(text), detail, *where)
        return [ir.Eval(X(code), node.span)]


_LITERALS = (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)


def _compared(expr: ast.Expr) -> list[ast.Expr]:
    """The operands of an expectation worth showing: through `and`, `or` and `not`, the two
    sides of each comparison, the operand of `is none`, or the condition itself; no literals."""
    if isinstance(expr, ast.BoolOp):
        return _compared(expr.left) + _compared(expr.right)
    if isinstance(expr, ast.Not):
        return _compared(expr.operand)
    if isinstance(expr, ast.Compare):
        parts = [expr.left, expr.right]
    elif isinstance(expr, ast.IsNone):
        parts = [expr.operand]
    else:
        parts = [expr]
    return [part for part in parts if not isinstance(part, _LITERALS)]


def skip_unless(cond: Expr, skip: ir.Stmt, span: Span | None) -> ir.If:
    """`if not cond: skip` (a guard that passes over one item)."""
    return ir.If([ir.Branch(ir_expr(Unary("not", Operand(cond))), [skip], span)], span=span)


def waits(gen: ExprLowerer, node: ast.Node, within: str) -> bool:
    """True if executing this statement (inside callable `within`) may stop for a decision."""
    suspends, procedures = gen.cp.suspends, gen.p.procedures
    for sub in walk(node):
        if isinstance(sub, CHOOSE_NODES):
            return True
        if isinstance(sub, ast.Call) and sub.func in suspends and sub.func in procedures:
            return True
        if isinstance(sub, ast.SuperCall) and within in suspends:
            return True
    return False


def escapes(node: ast.Node) -> bool:
    """True if a break/continue inside leaves this statement."""
    if isinstance(node, ast.Break | ast.Continue):
        return True
    if isinstance(node, ast.For | ast.Repeat | ast.While | ast.Loop):
        return False
    if isinstance(node, ast.If):
        blocks = [b for _, b in node.branches] + ([node.orelse] if node.orelse else [])
        return any(escapes(s) for b in blocks for s in b.stmts)
    if isinstance(node, ast.ChooseAction) and node.orelse is not None:
        return any(escapes(s) for s in node.orelse.stmts)
    return False


_IV, _IK = Local("_iv"), Local("_ik")  # an indexed store's value and key, computed first


def _stable(code: Expr) -> bool:
    """True if evaluating `code` twice gives the same place: a Python name, a number, a frame local."""
    if isinstance(code, Const):
        return code.value is None or (isinstance(code.value, int) and code.value >= 0)
    return isinstance(code, Name | Local | Hoisted | Listing | Table | FrameLocal) or (
        isinstance(code, StateField) and code.name.startswith("p_")
    )
