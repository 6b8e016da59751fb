"""The expression lowerer: checked expressions as expression nodes (compiler/expr.py).

`ExprLowerer.expr` turns one checked expression into a node, given an `Env` (how locals
are reached, which callable is being lowered, whether it is an optimised listing). Every
literal from a rule file reaches the output as a `Const` (printed with `repr`) and every
identifier is validated and prefixed, so no rule text is ever executed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol

from compiler import ir
from compiler.builtins import BUILTINS
from compiler.checked import CheckedProgram
from compiler.consteval import Evaluator, MapData
from compiler.cost import StepCosts
from compiler.expr import (
    ME,
    PLAYER_COUNT,
    Attr,
    BinOp,
    Call,
    Comp,
    Cond,
    Const,
    Display,
    Expr,
    For,
    FrameLocal,
    Helper,
    If,
    Index,
    Loc,
    Local,
    Name,
    Pair,
    Paren,
    S,
    Starred,
    StateField,
    Table,
    Unary,
    call,
    helper,
    unparen,
)
from compiler.inline_functions import inlinable
from compiler.literals import ident
from compiler.printer import ir_expr
from compiler.program import Program
from compiler.refs import (
    BuiltinRef,
    ConstRef,
    ElemByIdRef,
    ElemFieldRef,
    EnumAllRef,
    EnumValueRef,
    FunctionRef,
    GlobalRef,
    KindAllRef,
    LocalRef,
    PlayerFieldRef,
    ProcedureRef,
)
from compiler.sizes import Sizes
from compiler.types import (
    AnyT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    GeoT,
    IntT,
    MapT,
    OptT,
    PlayerT,
    StrT,
    TupleT,
    Type,
    is_finite,
)
from compiler.visit import StrictVisitor
from dsl import ast
from dsl.source import Span
from dsl.visitor import walk
from runtime.limits import FREE_WALK


class ClauseTables(Protocol):
    """What the expression lowerer asks of the guard tables (compiler/lower_guards.py builds on
    this module, so it names their interface rather than importing them)."""

    def clause(
        self, clause: ast.CompFor, iterable: Expr, where: Expr, env: Env, pure: bool
    ) -> tuple[Expr, Expr | None]:
        """A comprehension clause's walk and the condition left to test, using a table if any."""


@dataclass
class Env:
    """The context of the code being generated: how locals are reached, and where we are.

    `within` is the (function/procedure, version) being generated, for `super(...)`. `listing`
    marks an optimised listing, whose invariant values the stage `hoist_listings` computes once
    (compiler/hoist.py): there a test may be rewritten to pay off once they are.
    """

    frame: bool
    names: dict[str, Expr] = field(default_factory=dict)
    tag: str = ""
    within: tuple[str, int] = ("", 0)
    listing: bool = False

    def local(self, name: str) -> Expr:
        """The expression reading local `name`."""
        code = self.names.get(name)
        if code is not None:
            return code
        return FrameLocal(name) if self.frame else Local(f"v_{ident(name)}{self.tag}")

    def bind(self, name: str, code: Expr | None = None) -> Env:
        """A copy where `name` is a Python-level variable (or reads as `code`)."""
        names = dict(self.names)
        names[name] = code if code is not None else Local(f"v_{ident(name)}{self.tag}")
        return replace(self, names=names)


class ExprLowerer(StrictVisitor):
    """Lowers the expressions of one checked program and its map data to nodes."""

    def __init__(
        self,
        cp: CheckedProgram,
        data: MapData,
        evaluator: Evaluator,
        sizes: Sizes,
        costs: StepCosts,
    ):
        self.cp = cp
        self.p = cp.program
        self.data = data
        self.evaluator = evaluator
        self.descs: dict[object, str] = {}  # a type's repr (or a save's descriptor) -> its name
        self.descriptors: list[ir.Assign] = []  # the descriptor constants, `D3 = _v.ListD(D1)`
        self.counter = 0
        self.number_prefix = ""
        self.numbered: dict[str, int] = {}  # the last number of each `numbered_apart` prefix
        self.tables: ClauseTables | None = None  # guard tables, once lowering has set them up
        self.action_rank = {name: 2 * i for i, name in enumerate(self.p.actions)}
        # Enum values and map elements the code names: constant name -> value.
        self.named_values: dict[str, int] = {}
        self.sizes = sizes  # how many values walks, ranges and types have
        self.costs = costs  # how many steps each walk, loop and call may take (stage weigh_steps)
        # Enums some of whose values read other than their names (`red "bright red"`).
        self.enum_words: set[str] = set()
        # Actions and choices with a declared label (their arguments' descriptors carry it).
        self.labels = {n for n, v in self.p.actions.items() if v.active.label is not None}
        self.labels |= set(cp.choice_labels)

    def enum_value(self, enum: str, index: int) -> Name:
        """The named constant for one enum value (`E_Color__gray`)."""
        value = self.cp.enum_values[enum][index]
        name = f"E_{ident(enum)}__{ident(value)}"
        self.named_values[name] = index
        return Name(name)

    def element(self, kind: str, element_id: str) -> Expr:
        """The named constant for one map element (`M_city__Atlanta`), or its index when its id is no name."""
        index = self.data.ids[kind].index(element_id)
        if not (element_id.isascii() and element_id.replace("_", "a").isalnum()):
            return Const(index)
        name = f"M_{ident(kind)}__{element_id}"
        self.named_values[name] = index
        return Name(name)

    # ------------------------------------------------------------ names

    def fresh(self) -> str:
        """A new number for synthetic locals (prefixed inside `numbered_apart`)."""
        self.counter += 1
        return f"{self.number_prefix}{self.counter}"

    @contextmanager
    def numbered_apart(self, prefix: str) -> Iterator[None]:
        """Number the names made inside as `prefix1`, `prefix2`, … apart from the others.

        Frame locals are named by this numbering and saved with the game: code that an
        optimisation adds must not shift the names the rest of the module gets.
        """
        saved = self.counter, self.number_prefix
        self.counter, self.number_prefix = self.numbered.get(prefix, 0), prefix
        try:
            yield
        finally:
            self.numbered[prefix] = self.counter
            self.counter, self.number_prefix = saved

    def version_name(self, prefix: str, name: str, version: int) -> str:
        """Python name of one version of a function/procedure."""
        return f"{prefix}_{ident(name)}__{version}"

    def callable_name(self, name: str) -> tuple[str, bool]:
        """(Python name, waits-for-decisions) of the active version of a function/procedure."""
        if name in self.p.functions:
            return self.version_name("f", name, len(self.p.functions[name].versions) - 1), False
        versions = self.p.procedures[name].versions
        if name in self.cp.suspends:
            return self.version_name("s", name, len(versions) - 1), True
        return self.version_name("p", name, len(versions) - 1), False

    def size_of(self, t: Type) -> Expr:
        """Number of values of a finite type."""
        if isinstance(t, EnumT):
            return Const(len(self.cp.enum_values[t.name]))
        if isinstance(t, ElemT):
            return Const(self.data.count(t.kind))
        if isinstance(t, BoolT):
            return Const(2)
        return PLAYER_COUNT

    def desc(self, t: Type) -> str:
        """A module-level descriptor constant for a type."""
        key = repr(t)
        if key in self.descs:
            return self.descs[key]
        if isinstance(t, IntT | AnyT):
            code = Helper("_v", "INT")
        elif isinstance(t, BoolT):
            code = Helper("_v", "BOOL")
        elif isinstance(t, StrT):
            code = Helper("_v", "STR")
        elif isinstance(t, PlayerT):
            code = Helper("_v", "PLAYER")
        elif isinstance(t, EnumT):
            words = (Name(f"E_{ident(t.name)}__words"),) if t.name in self.enum_words else ()
            code = helper("_v", "NamedD", Name(f"E_{ident(t.name)}"), *words)
        elif isinstance(t, ElemT):
            labels = (Table(ident(t.kind), "label"),) if t.kind in self.data.labels else ()
            code = helper("_v", "NamedD", Name(f"K_{ident(t.kind)}"), *labels)
        elif isinstance(t, OptT):
            code = helper("_v", "OptD", Name(self.desc(t.inner)))
        elif isinstance(t, CollT) and t.kind == "bag":
            size = self.size_of(t.item)
            size = Const(self.p.players.hi) if size == PLAYER_COUNT else size
            code = helper("_v", "BagD", Name(self.desc(t.item)), size)
        elif isinstance(t, CollT) and t.kind == "set":
            code = helper("_v", "SetD", Name(self.desc(t.item)))
        elif isinstance(t, CollT):
            code = helper("_v", "ListD", Name(self.desc(t.item)))
        elif isinstance(t, MapT):
            size = self.size_of(t.key) if is_finite(t.key) else Const(None)
            size = Const(0) if size == PLAYER_COUNT else size
            code = helper("_v", "MapD", Name(self.desc(t.key)), Name(self.desc(t.value)), size)
        elif isinstance(t, TupleT):
            items = Display("tuple", tuple(Name(self.desc(i)) for i in t.items))
            code = helper("_v", "TupleD", items)
        elif isinstance(t, GeoT):
            code = helper("_v", "GeoD", Const(t.kind))
        else:
            code = Helper("_v", "INT")
        name = f"D{len(self.descs)}"
        self.descs[key] = name
        self.descriptors.append(ir.Assign(ir_expr(Name(name)), ir_expr(code)))
        return name

    def extra_desc(self, code: Expr) -> str:
        """A module-level descriptor constant for descriptor code not tied to one type."""
        key = ("save", code)
        if key not in self.descs:
            self.descs[key] = f"D{len(self.descs)}"
            self.descriptors.append(ir.Assign(ir_expr(Name(self.descs[key])), ir_expr(code)))
        return self.descs[key]

    def t(self, node: ast.Expr) -> Type:
        """The checked type of an expression."""
        return self.cp.type_of(node)

    def checker_type(self, node: ast.TypeExpr) -> Type:
        """The type a written type denotes (recorded by the checker)."""
        return self.cp.types[id(node)]

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr, env: Env) -> Expr:
        """The expression node for a checked expression."""
        return self.visit(node, env)

    def visit_IntLit(self, node, env):
        return Const(node.value)

    def visit_StrLit(self, node, env):
        return Const(node.value)

    def visit_BoolLit(self, node, env):
        return Const(node.value)

    def visit_NoneLit(self, node, env):
        return Const(None)

    def visit_PlayersLit(self, node, env):
        return call("list", call("range", PLAYER_COUNT))

    def visit_MeLit(self, node, env):
        return env.local("me") if env.frame and "me" not in env.names else ME

    def visit_Name(self, node: ast.Name, env: Env) -> Expr:
        ref = self.cp.ref(node)
        if isinstance(ref, LocalRef):
            return env.local(node.name)
        if isinstance(ref, GlobalRef):
            return StateField(f"g_{ident(node.name)}")
        if isinstance(ref, ConstRef):
            return Name(f"C_{ident(node.name)}")
        if isinstance(ref, EnumValueRef):
            return self.enum_value(ref.enum, ref.index)
        if isinstance(ref, EnumAllRef):
            return call("list", call("range", Const(len(self.cp.enum_values[ref.enum]))))
        if isinstance(ref, KindAllRef):
            return call("list", call("range", Const(self.data.count(ref.kind))))
        raise AssertionError(f"unresolved name {node.name}")

    def visit_Field(self, node: ast.Field, env: Env) -> Expr:
        ref = self.cp.ref(node)
        if isinstance(ref, EnumValueRef):
            return self.enum_value(ref.enum, ref.index)
        obj = self.expr(node.obj, env)
        if isinstance(ref, PlayerFieldRef):
            if unparen(obj) == ME:
                return Index(StateField(f"p_{ident(node.name)}"), ME)
            return Index(StateField(f"p_{ident(node.name)}"), obj)
        if isinstance(ref, ElemFieldRef):
            return Index(Table(ident(ref.kind), ident(ref.field)), obj)
        raise AssertionError("unresolved field")

    def visit_Index(self, node: ast.Index, env: Env) -> Expr:
        ref = self.cp.ref(node)
        if isinstance(ref, ElemByIdRef):
            ids = self.data.ids.get(ref.kind, [])
            if ref.id not in ids:
                return helper("_l", "no_element", Const(ref.kind), Const(ref.id))
            return self.element(ref.kind, ref.id)
        whole = self.cp.ref(node.obj)
        if isinstance(whole, EnumAllRef | KindAllRef) or isinstance(node.obj, ast.PlayersLit):
            # The n-th of every value: a range indexes as the list would, without making it.
            return Index(self.items(node.obj, env, charge=False), self.expr(node.index, env))
        return Index(self.expr(node.obj, env), self.expr(node.index, env))

    def items(self, node: ast.Expr, env: Env, snapshot: bool = False, charge: bool = True) -> Expr:
        """Code iterating the items of a collection expression in a defined order.

        With `charge`, a walk that is not bounded when compiling (anything but an enum, a map
        the players, or a kind, constant range or constant collection of at most FREE_WALK items)
        is charged to the step budget first.
        """
        t = self.t(node)
        # A small walk is free unless what it nests costs more than runs free (pass `cost`).
        forced = self.costs.is_forced(node)
        if isinstance(node, ast.RangeExpr):
            hi = BinOp(Paren(self.expr(node.hi, env)), "+", Const(1))
            code = call("range", self.expr(node.lo, env), hi)
            size = self.sizes.range_size(node.lo, node.hi)
            free = size is not None and size <= FREE_WALK and not forced
            return self.charged(code, node) if charge and not free else code
        if isinstance(node, ast.PlayersLit):
            code = call("range", PLAYER_COUNT)
            return self.charged(code, node) if charge and forced else code
        ref = self.cp.ref(node)
        if isinstance(ref, EnumAllRef):  # an enum is small (written out in the rules)
            code = call("range", Const(len(self.cp.enum_values[ref.enum])))
            return self.charged(code, node) if charge and forced else code
        if isinstance(ref, KindAllRef):
            code = call("range", Const(self.data.count(ref.kind)))
            large = self.data.count(ref.kind) > FREE_WALK
            return self.charged(code, node) if charge and (large or forced) else code
        charge = charge and (forced or not self.sizes.small_constant(node))
        code = self.expr(node, env)
        if isinstance(t, GeoT):
            return Attr(Paren(code), "cells")
        if isinstance(t, CollT):
            if t.kind == "bag":
                if charge:
                    return helper("_l", "each_bag", S, code, *self.charge_args(node))
                return helper("_l", "bag_items", code)
            if t.kind == "set":
                code = call("sorted", code)
            elif snapshot and _in_state_or_frame(code):
                code = call("tuple", code)
        return self.charged(code, node) if charge else code

    def charged(self, code: Expr, node: ast.Node) -> Expr:
        """`code` (a sized collection or range), charged to the step budget at `node`'s line."""
        return helper("_l", "each", S, code, *self.charge_args(node))

    def charge_args(self, node: ast.Node, span: Span | None = None) -> tuple[Expr, ...]:
        """`(file, line, column)[, weight]`: where a charge for the walk or loop at `node` is made,
        and its weight (the steps one iteration may take) when that is more than one."""
        weight = self.costs.weight(node)
        where = spot(self.p, span or node.span)
        return (where, Const(weight)) if weight != 1 else (where,)

    def comp(self, elem: ast.Expr, fors, env: Env) -> tuple[tuple[For | If, ...], Env]:
        """`elem for … in … if …` clauses, and the env inside them."""
        parts: list[For | If] = []
        inner = env
        pure = self.changes_nothing([elem, *fors])
        for c in fors:
            iterable = self.items(c.iterable, inner)
            inner = inner.bind(c.var)
            where = self.expr(c.where, inner) if c.where is not None else None
            if where is not None and self.tables is not None:
                # The part of the condition fixed by the map: a table made while compiling
                # (or a maintained index of the state).
                iterable, where = self.tables.clause(c, iterable, where, inner, pure)
            parts.append(For(inner.local(c.var), iterable))
            if where is not None:
                parts.append(If(where))
        return tuple(parts), inner

    def changes_nothing(self, nodes) -> bool:
        """True if evaluating the nodes calls no procedure and no builtin that changes anything."""
        for node in nodes:
            for sub in walk(node):
                ref = self.cp.ref(sub)
                if isinstance(ref, ProcedureRef) or isinstance(sub, ast.SuperCall):
                    return False
                if isinstance(ref, BuiltinRef) and BUILTINS[sub.func].effect != "reads":
                    return False
        return True

    def visit_ListComp(self, node, env):
        clauses, inner = self.comp(node.elem, node.fors, env)
        return Comp("list", self.expr(node.elem, inner), clauses)

    def invariant(self, node: ast.Expr, env: Env, also: frozenset[str] = frozenset()) -> bool:
        """True if an expression reads only the state and `me` (so a read-only loop may compute it
        once), and the locals in `also`."""
        return self._free_locals(node, env, also) == set()

    def _free_locals(self, node: ast.Expr, env: Env, also=frozenset()) -> set[Expr] | None:
        """The Python locals an expression reads besides `me` and the names bound inside it (or
        in `also`); None if it calls a builtin that changes anything or reads the position."""
        bound = {
            c.var
            for sub in walk(node)
            if isinstance(sub, ast.GenCall | ast.ListComp)
            for c in sub.fors
        } | also
        read: set[Expr] = set()
        for sub in walk(node):
            ref = self.cp.ref(sub)
            if isinstance(ref, LocalRef) and sub.name not in bound:
                local = unparen(env.local(sub.name))
                if local != ME:
                    read.add(local)
            if isinstance(ref, BuiltinRef):
                builtin = BUILTINS[sub.func]
                if builtin.effect != "reads" or builtin.reads_position:
                    return None
        return read

    def visit_GenCall(self, node: ast.GenCall, env: Env) -> Expr:
        found = self._found_in_any(node, env)
        if found is not None:
            return found
        clauses, inner = self.comp(node.elem, node.fors, env)
        elem = self.expr(node.elem, inner)
        func = node.func
        if func == "count":
            if isinstance(self.t(node.elem), BoolT):
                return call("sum", Comp("gen", Const(1), (*clauses, If(elem))))
            return call("sum", Comp("gen", Const(1), clauses))
        if func in ("sum", "any", "all", "sorted"):
            return call(func, Comp("gen", elem, clauses))
        if func == "min":
            return helper("_l", "least", Comp("gen", elem, clauses))
        if func == "max":
            return helper("_l", "greatest", Comp("gen", elem, clauses))
        return helper("_l", "distinct", Comp("gen", elem, clauses))

    def _found_in_any(self, node: ast.GenCall, env: Env) -> Expr | None:
        """In an optimised listing, `any(x in C(d) for d in D)` whose collections C(d) depend on
        no parameter: `x in` the set of all their items, which hoisting makes once (the same
        test, one lookup; else None).

        Only for items equal by value and hashable (numbers, elements, enum values, players,
        truth values); C(d) and D may read the state and `me`, x anything but d.
        """
        if not env.listing or node.func != "any" or len(node.fors) != 1:
            return None
        clause, elem = node.fors[0], node.elem
        if clause.where is not None or not (isinstance(elem, ast.Compare) and elem.op == "in"):
            return None
        kind = self.t(elem.right)
        if not (isinstance(kind, CollT) and kind.kind != "bag"):
            return None
        if not isinstance(kind.item, IntT | ElemT | EnumT | PlayerT | BoolT):
            return None
        if any(isinstance(sub, ast.Name) and sub.name == clause.var for sub in walk(elem.left)):
            return None
        if not (
            self.invariant(elem.right, env, also=frozenset({clause.var}))
            and self.invariant(clause.iterable, env)
        ):
            return None
        clauses, inner = self.comp(elem.right, node.fors, env)
        items = self.expr(elem.right, inner)
        item = Local("_item")
        found = Comp("set", item, (*clauses, For(item, items)))
        return Paren(BinOp(self.expr(elem.left, env), "in", found))

    def visit_ListLit(self, node, env):
        return Display("list", tuple(self.expr(i, env) for i in node.items))

    def visit_TupleLit(self, node, env):
        return Display("tuple", tuple(self.expr(i, env) for i in node.items))

    def visit_DictLit(self, node, env):
        pairs = tuple(Pair(self.expr(k, env), self.expr(v, env)) for k, v in node.entries)
        return Display("dict", pairs)

    def visit_DictComp(self, node: ast.DictComp, env: Env) -> Expr:
        clauses, inner = self.comp(node.key, node.fors, env)
        pair = Pair(self.expr(node.key, inner), self.expr(node.value, inner))
        return Comp("dict", pair, clauses)

    def visit_BinOp(self, node: ast.BinOp, env: Env) -> Expr:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if isinstance(self.t(node.left), CollT):
            both = (Starred(self.charged(left, node)), Starred(self.charged(right, node)))
            return Display("list", both)
        op = "//" if node.op == "/" else node.op
        return Paren(BinOp(left, op, right))

    def visit_Neg(self, node, env):
        return Paren(Unary("-", self.expr(node.operand, env)))

    def visit_Compare(self, node: ast.Compare, env: Env) -> Expr:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if node.op in ("in", "not in"):
            rt = self.t(node.right)
            if isinstance(rt, CollT) and rt.kind == "bag":
                op = ">" if node.op == "in" else "<="
                return Paren(BinOp(Index(right, left), op, Const(0)))
            if isinstance(node.right, ast.RangeExpr):  # membership of a range takes no walk
                return Paren(BinOp(left, node.op, self.items(node.right, env, charge=False)))
        return Paren(BinOp(left, node.op, right))

    def visit_IsNone(self, node, env):
        op = "is not" if node.negated else "is"
        return Paren(BinOp(self.expr(node.operand, env), op, Const(None)))

    def visit_Not(self, node, env):
        return Paren(Unary("not", self.expr(node.operand, env)))

    def visit_BoolOp(self, node, env):
        return Paren(BinOp(self.expr(node.left, env), node.op, self.expr(node.right, env)))

    def visit_CondExpr(self, node, env):
        then, cond = self.expr(node.then, env), self.expr(node.cond, env)
        return Paren(Cond(then, cond, self.expr(node.orelse, env)))

    def visit_SuperCall(self, node: ast.SuperCall, env: Env) -> Expr:
        name, version = env.within
        prefix = "f" if name in self.p.functions else "p"
        args = tuple(self.expr(a, env) for a in node.args)
        return Call(Name(self.version_name(prefix, name, version - 1)), (S, *args))

    def visit_Call(self, node: ast.Call, env: Env) -> Expr:
        ref = self.cp.ref(node)
        args = [self.expr(a, env) for a in node.args]
        if isinstance(ref, FunctionRef | ProcedureRef):
            pyname, waits = self.callable_name(node.func)
            if waits:
                raise AssertionError("waiting calls are lowered as statements")
            inline = inlinable(self.cp, self.costs, node) is not None  # a function's calls only
            return Call(Name(pyname), (S, *args), inline)
        return self.builtin(node, args, env)

    def builtin(self, node: ast.Call, args: list[Expr], env: Env) -> Expr:
        """Code for a library call, as its entry in compiler/builtins.py writes it."""
        return BUILTINS[node.func].emit_code(self, node, args, env)

    def checked(self, code: Expr, value: ast.Expr, dst: Type) -> Expr:
        """Code for `value` about to be stored where `dst` is declared: integers range-checked.

        Only stored values are checked (a value grows without bound only by being stored and
        reused), and only those not already known to be in range.
        """
        if isinstance(dst, OptT) and isinstance(dst.inner, IntT):
            return code if self.in_range(value) else helper("_l", "opt_int_ok", code)
        if isinstance(dst, IntT):
            return code if self.in_range(value) else helper("_l", "int_ok", code)
        item = (
            dst.value
            if isinstance(dst, MapT)
            else dst.item
            if isinstance(dst, CollT) and dst.kind != "bag"
            else None
        )
        if isinstance(item, OptT):
            item = item.inner
        if isinstance(item, IntT) and not self.stored(value):
            return helper("_l", "ints_ok", code)
        return code

    def in_range(self, node: ast.Expr) -> bool:
        """True if an integer expression cannot lie outside the range: literals, stored values, sizes."""
        if isinstance(node, ast.IntLit | ast.BoolLit | ast.NoneLit) or self.stored(node):
            return True
        if isinstance(node, ast.CondExpr):
            return self.in_range(node.then) and self.in_range(node.orelse)
        if isinstance(self.cp.ref(node), BuiltinRef):
            if node.func in ("min", "max") and len(node.args) == 2:
                return all(self.in_range(a) for a in node.args)
            return BUILTINS[node.func].small_result
        return False

    def stored(self, node: ast.Expr) -> bool:
        """True if `node` reads a constant, the state or map data (whose integers are all in range)."""
        ref = self.cp.ref(node)
        if isinstance(node, ast.Name):
            return isinstance(ref, GlobalRef | ConstRef | EnumValueRef)
        if isinstance(node, ast.Field):
            return isinstance(ref, PlayerFieldRef | ElemFieldRef | EnumValueRef)
        if isinstance(node, ast.Index):
            return isinstance(ref, ElemByIdRef) or self.stored(node.obj)
        return False

    def convert(self, code: Expr, src: Type, dst: Type) -> Expr:
        """Code storing a value of type src where dst is declared (copies collections)."""
        if isinstance(dst, CollT):
            if dst.kind == "bag":
                if isinstance(src, CollT) and src.kind == "bag":
                    return call("list", code)
                return helper("_l", "to_bag", code, self.size_of(dst.item))
            if dst.kind == "set":
                return call("set", code)
            if isinstance(src, CollT) and src.kind == "bag":
                return helper("_l", "bag_items", code)
            return call("list", code)
        if isinstance(dst, MapT):
            if is_finite(dst.key):
                return helper("_l", "table_to_list", code, self.size_of(dst.key))
            return call("dict", code)
        return code


def spot(p: Program, span: Span) -> Loc:
    """`(file, line, column)` locating a step or domain charge at `span` (the file by its index
    in the module's table of rule files)."""
    return Loc(p.source_table.index(span.file), span.line, span.col)


def _in_state_or_frame(code: Expr) -> bool:
    """True if `code` reads a collection kept in the state or a frame (a walk copies it first)."""
    while isinstance(code, Index | Attr):
        code = code.obj
    return isinstance(code, StateField | FrameLocal)


def source_text(program, span: Span) -> str:
    """The .metro text of a one-line span (for messages)."""
    source = program.sources.get(span.file)
    if source is None or span.line < 1:
        return ""
    line = source.line(span.line)
    if span.end_line == span.line:
        return line[span.col - 1 : span.end_col - 1]
    return line[span.col - 1 :]
