"""Expressions as Python: the fragments the lowering passes put into the IR.

`Generator.expr` turns one checked expression into Python code text, given an `Env` (how
locals are reached, which callable is being generated, whether state reads are hoisted).
Every literal from a rule file reaches the output through `repr` and every identifier
is validated and prefixed, so no rule text is ever executed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol

from compiler.builtins import BUILTINS
from compiler.checked import CheckedProgram
from compiler.consteval import EvalError, Evaluator, MapData
from compiler.cost import step_costs
from compiler.literals import ident
from compiler.pyexpr import PyExpr
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
from runtime.limits import FREE_WALK, MAX_DOMAIN


class ClauseTables(Protocol):
    """What the expression lowerer asks of the guard tables (compiler/lower_guards.py builds on
    this module, so it names their interface rather than importing them)."""

    def clause(
        self, clause: ast.CompFor, iterable: str, where: str, env: Env, pure: bool
    ) -> tuple[str, str | None]:
        """A comprehension clause's walk and the condition left to test, using a table if any."""


@dataclass
class Tabulation:
    """In a listing: parameters whose values are computed once per listing, and the aggregates
    over one of them computed once per value (not once per combination of arguments)."""

    values: dict[str, str] = field(default_factory=dict)  # a parameter's local -> its values' alias
    # a parameter's local -> {an aggregate's code: the loop's name for its value}
    tables: dict[str, dict[str, str]] = field(default_factory=dict)
    named: int = 0  # names given so far

    def element(self, var: str, code: str) -> str:
        """The name the loop over `var` gives `code`'s value."""
        names = self.tables.setdefault(var, {})
        if code not in names:
            names[code] = f"_e{self.named}"
            self.named += 1
        return names[code]


@dataclass
class Env:
    """The context of the code being generated: how locals are reached, and where we are.

    `within` is the (function/procedure, version) being generated, for `super(...)`. `hoist`,
    inside a read-only enumeration, collects state reads (code -> alias) computed once before it;
    `tabulation`, there too, the aggregates computed once per value of a parameter.
    """

    frame: bool
    names: dict[str, str] = field(default_factory=dict)
    me: str = "me"
    tag: str = ""
    within: tuple[str, int] = ("", 0)
    hoist: dict[str, str] | None = None
    tabulation: Tabulation | None = None

    def local(self, name: str) -> str:
        """Python code reading local `name`."""
        code = self.names.get(name)
        if code is not None:
            return code
        return f"L[{name!r}]" if self.frame else f"v_{ident(name)}{self.tag}"

    def bind(self, name: str, code: str | None = None) -> Env:
        """A copy where `name` is a Python-level variable."""
        names = dict(self.names)
        names[name] = code or f"v_{ident(name)}{self.tag}"
        return replace(self, names=names)


class Generator(StrictVisitor):
    """Emits the module for one checked program and its map data."""

    def __init__(self, cp: CheckedProgram, data: MapData, evaluator: Evaluator):
        self.cp = cp
        self.p = cp.program
        self.data = data
        self.evaluator = evaluator
        self.descs: dict[str, str] = {}
        self.desc_lines: list[str] = []
        self.counter = 0
        self.number_prefix = ""
        self.numbered: dict[str, int] = {}  # the last number of each `numbered_apart` prefix
        self.inline_tags: dict[tuple, str] = {}  # (function, arguments' code) -> its locals' tag
        self.tables: ClauseTables | None = None  # guard tables, once lowering has set them up
        self.action_rank = {name: 2 * i for i, name in enumerate(self.p.actions)}
        self.inline_depth = 0
        # Enum values and map elements the code names: constant name -> value.
        self.named_values: dict[str, int] = {}
        # How many steps each walk, loop and call may take (the step budget's weights).
        self.costs = step_costs(cp, self.free_size)
        # Enums some of whose values read other than their names (`red "bright red"`).
        self.enum_words: set[str] = set()
        # Actions and choices with a declared label (their arguments' descriptors carry it).
        self.labels = {n for n, v in self.p.actions.items() if v.active.label is not None}
        self.labels |= set(cp.choice_labels)

    def free_size(self, over: ast.Node) -> int | None:
        """The items a walk over `over` takes without a charge (None: charged at run time)."""
        if isinstance(over, ast.InDomain | ast.SubsetDomain):
            return None
        if isinstance(over, ast.TypeDomain):
            if isinstance(over.type, ast.RangeType):
                size = self.range_size(over.type.lo, over.type.hi, over.type.step)
                return size if size is not None and size <= MAX_DOMAIN else None
            t = self.checker_type(over.type)
            return 2 if isinstance(t, BoolT) else self._finite_size(t)
        if isinstance(over, ast.RangeExpr):
            size = self.range_size(over.lo, over.hi)
            return size if size is not None and size <= FREE_WALK else None
        if isinstance(over, ast.PlayersLit):
            return self._finite_size(PlayerT())
        ref = self.cp.ref(over)
        if isinstance(ref, EnumAllRef):
            return len(self.cp.enum_values[ref.enum])
        if isinstance(ref, KindAllRef):
            count = self.data.count(ref.kind)
            return count if count <= FREE_WALK else None
        if isinstance(over, ast.Expr) and self.small_constant(over):
            return FREE_WALK  # at most this many (a constant collection or a table's entry)
        return None

    def value_count(self, t: Type) -> int:
        """The number of values of a finite type (truth values: 2)."""
        return 2 if isinstance(t, BoolT) else self._finite_size(t)

    def _finite_size(self, t: Type) -> int:
        if isinstance(t, EnumT):
            return len(self.cp.enum_values[t.name])
        if isinstance(t, ElemT):
            return self.data.count(t.kind)
        return self.p.players.hi if self.p.players is not None else FREE_WALK

    @staticmethod
    def hoisted(code: str, env: Env) -> str:
        """An alias for a state read inside a read-only enumeration (`code` itself elsewhere)."""
        if env.hoist is None:
            return code
        alias = env.hoist.get(code)
        if alias is None:
            alias = env.hoist[code] = f"_h{len(env.hoist)}"
        return alias

    def enum_value(self, enum: str, index: int) -> str:
        """The named constant for one enum value (`E_Color__gray`)."""
        value = self.cp.enum_values[enum][index]
        name = f"E_{ident(enum)}__{ident(value)}"
        self.named_values[name] = index
        return name

    def element(self, kind: str, element_id: str) -> str:
        """The named constant for one map element (`M_city__Atlanta`), or its index when its id is no name."""
        index = self.data.ids[kind].index(element_id)
        if not (element_id.isascii() and element_id.replace("_", "a").isalnum()):
            return repr(index)
        name = f"M_{ident(kind)}__{element_id}"
        self.named_values[name] = index
        return name

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

    def size_of(self, t: Type) -> str:
        """Number of values of a finite type, as code."""
        if isinstance(t, EnumT):
            return str(len(self.cp.enum_values[t.name]))
        if isinstance(t, ElemT):
            return str(self.data.count(t.kind))
        if isinstance(t, BoolT):
            return "2"
        return "S.n"

    def desc(self, t: Type) -> str:
        """A module-level descriptor constant for a type."""
        key = repr(t)
        if key in self.descs:
            return self.descs[key]
        if isinstance(t, IntT | AnyT):
            code = "_v.INT"
        elif isinstance(t, BoolT):
            code = "_v.BOOL"
        elif isinstance(t, StrT):
            code = "_v.STR"
        elif isinstance(t, PlayerT):
            code = "_v.PLAYER"
        elif isinstance(t, EnumT):
            words = f", E_{ident(t.name)}__words" if t.name in self.enum_words else ""
            code = f"_v.NamedD(E_{ident(t.name)}{words})"
        elif isinstance(t, ElemT):
            labels = f", K_{ident(t.kind)}__label" if t.kind in self.data.labels else ""
            code = f"_v.NamedD(K_{ident(t.kind)}{labels})"
        elif isinstance(t, OptT):
            code = f"_v.OptD({self.desc(t.inner)})"
        elif isinstance(t, CollT) and t.kind == "bag":
            size = self.size_of(t.item)
            code = f"_v.BagD({self.desc(t.item)}, {size if size != 'S.n' else self.p.players.hi})"
        elif isinstance(t, CollT) and t.kind == "set":
            code = f"_v.SetD({self.desc(t.item)})"
        elif isinstance(t, CollT):
            code = f"_v.ListD({self.desc(t.item)})"
        elif isinstance(t, MapT):
            size = self.size_of(t.key) if is_finite(t.key) else "None"
            code = (
                f"_v.MapD({self.desc(t.key)}, {self.desc(t.value)}, {0 if size == 'S.n' else size})"
            )
        elif isinstance(t, TupleT):
            code = "_v.TupleD((" + "".join(self.desc(i) + ", " for i in t.items) + "))"
        elif isinstance(t, GeoT):
            code = f"_v.GeoD({t.kind!r})"
        else:
            code = "_v.INT"
        name = f"D{len(self.descs)}"
        self.descs[key] = name
        self.desc_lines.append(f"{name} = {code}")
        return name

    def extra_desc(self, code: str) -> str:
        """A module-level descriptor constant for descriptor code not tied to one type."""
        key = f"save:{code}"
        if key not in self.descs:
            self.descs[key] = f"D{len(self.descs)}"
            self.desc_lines.append(f"{self.descs[key]} = {code}")
        return self.descs[key]

    def t(self, node: ast.Expr) -> Type:
        """The checked type of an expression."""
        return self.cp.type_of(node)

    def checker_type(self, node: ast.TypeExpr) -> Type:
        """The type a written type denotes (recorded by the checker)."""
        return self.cp.types[id(node)]

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr, env: Env) -> str:
        """Python code for an expression."""
        return self.visit(node, env)

    def visit_IntLit(self, node, env):
        return repr(node.value)

    def visit_StrLit(self, node, env):
        return repr(node.value)

    def visit_BoolLit(self, node, env):
        return repr(node.value)

    def visit_NoneLit(self, node, env):
        return "None"

    def visit_PlayersLit(self, node, env):
        return "list(range(S.n))"

    def visit_MeLit(self, node, env):
        return env.local("me") if env.frame and "me" not in env.names else env.me

    def visit_Name(self, node: ast.Name, env: Env) -> str:
        ref = self.cp.ref(node)
        if isinstance(ref, LocalRef):
            return env.local(node.name)
        if isinstance(ref, GlobalRef):
            return self.hoisted(f"S.g_{ident(node.name)}", env)
        if isinstance(ref, ConstRef):
            return f"C_{ident(node.name)}"
        if isinstance(ref, EnumValueRef):
            return self.enum_value(ref.enum, ref.index)
        if isinstance(ref, EnumAllRef):
            return f"list(range({len(self.cp.enum_values[ref.enum])}))"
        if isinstance(ref, KindAllRef):
            return f"list(range({self.data.count(ref.kind)}))"
        raise AssertionError(f"unresolved name {node.name}")

    def visit_Field(self, node: ast.Field, env: Env) -> str:
        ref = self.cp.ref(node)
        if isinstance(ref, EnumValueRef):
            return self.enum_value(ref.enum, ref.index)
        obj = self.expr(node.obj, env)
        if isinstance(ref, PlayerFieldRef):
            if obj.strip("()") == "me":
                return self.hoisted(f"S.p_{ident(node.name)}[me]", env)
            return f"S.p_{ident(node.name)}[{obj}]"
        if isinstance(ref, ElemFieldRef):
            return f"K_{ident(ref.kind)}__{ident(ref.field)}[{obj}]"
        raise AssertionError("unresolved field")

    def visit_Index(self, node: ast.Index, env: Env) -> str:
        ref = self.cp.ref(node)
        if isinstance(ref, ElemByIdRef):
            ids = self.data.ids.get(ref.kind, [])
            if ref.id not in ids:
                return f"_l.no_element({ref.kind!r}, {ref.id!r})"
            return self.element(ref.kind, ref.id)
        whole = self.cp.ref(node.obj)
        if isinstance(whole, EnumAllRef | KindAllRef) or isinstance(node.obj, ast.PlayersLit):
            # The n-th of every value: a range indexes as the list would, without making it.
            return f"{self.items(node.obj, env, charge=False)}[{self.expr(node.index, env)}]"
        return f"{self.expr(node.obj, env)}[{self.expr(node.index, env)}]"

    def items(self, node: ast.Expr, env: Env, snapshot: bool = False, charge: bool = True) -> str:
        """Code iterating the items of a collection expression in a defined order.

        With `charge`, a walk that is not bounded when compiling (anything but an enum, a map
        the players, or a kind, constant range or constant collection of at most FREE_WALK items)
        is charged to the step budget first.
        """
        t = self.t(node)
        # A small walk is free unless what it nests costs more than runs free (pass `cost`).
        forced = self.costs.is_forced(node)
        if isinstance(node, ast.RangeExpr):
            code = f"range({self.expr(node.lo, env)}, ({self.expr(node.hi, env)}) + 1)"
            size = self.range_size(node.lo, node.hi)
            free = size is not None and size <= FREE_WALK and not forced
            return self.charged(code, node) if charge and not free else code
        if isinstance(node, ast.PlayersLit):
            return self.charged("range(S.n)", node) if charge and forced else "range(S.n)"
        ref = self.cp.ref(node)
        if isinstance(ref, EnumAllRef):  # an enum is small (written out in the rules)
            code = f"range({len(self.cp.enum_values[ref.enum])})"
            return self.charged(code, node) if charge and forced else code
        if isinstance(ref, KindAllRef):
            code = f"range({self.data.count(ref.kind)})"
            large = self.data.count(ref.kind) > FREE_WALK
            return self.charged(code, node) if charge and (large or forced) else code
        charge = charge and (forced or not self.small_constant(node))
        code = self.expr(node, env)
        if isinstance(t, GeoT):
            return f"({code}).cells"
        if isinstance(t, CollT):
            if t.kind == "bag":
                if charge:
                    return f"_l.each_bag(S, {code}, {self.charge_args(node)})"
                return f"_l.bag_items({code})"
            if t.kind == "set":
                code = f"sorted({code})"
            elif snapshot and code.startswith(("S.", "L[")):
                code = f"tuple({code})"
        return self.charged(code, node) if charge else code

    def charged(self, code: str, node: ast.Node) -> str:
        """`code` (a sized collection or range), charged to the step budget at `node`'s line."""
        return f"_l.each(S, {code}, {self.charge_args(node)})"

    def charge_args(self, node: ast.Node, span: Span | None = None) -> str:
        """`(file, line, column)[, weight]`: where a charge for the walk or loop at `node` is made,
        and its weight (the steps one iteration may take) when that is more than one."""
        weight = self.costs.weight(node)
        return spot(span or node.span) + (f", {weight}" if weight != 1 else "")

    def small_constant(self, node: ast.Expr) -> bool:
        """True for a constant collection, or an entry of a constant table, of at most FREE_WALK items."""
        if isinstance(node, ast.Index):
            values = self._const_value(node.obj)
            values = (
                values.values()
                if isinstance(values, dict)
                else values
                if isinstance(values, list)
                else None
            )
            return values is not None and all(_small(v) for v in values)
        return _small(self._const_value(node))

    def _const_value(self, node: ast.Expr):
        if isinstance(self.cp.ref(node), ConstRef):
            try:
                return self.evaluator.const(node.name, node)
            except (EvalError, RecursionError):
                return None
        return None

    def const_int(self, node: ast.Expr | None) -> int | None:
        """The value of an integer expression made of literals and consts, else None."""
        if node is None:
            return None
        if isinstance(node, ast.IntLit):
            return node.value
        if isinstance(node, ast.Neg):
            value = self.const_int(node.operand)
            return None if value is None else -value
        if isinstance(self.cp.ref(node), ConstRef):
            value = self._const_value(node)
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(node, ast.BinOp) and node.op in ("+", "-", "*"):
            left, right = self.const_int(node.left), self.const_int(node.right)
            if left is None or right is None:
                return None
            return (
                left + right if node.op == "+" else left - right if node.op == "-" else left * right
            )
        return None

    def const_size(self, node: ast.Expr) -> int | None:
        """The number of items of a collection known while compiling (literal, const, enum, kind), else None."""
        if isinstance(node, ast.ListLit):
            return len(node.items)
        if isinstance(node, ast.RangeExpr):
            return self.range_size(node.lo, node.hi)
        ref = self.cp.ref(node)
        if isinstance(ref, EnumAllRef):
            return len(self.cp.enum_values[ref.enum])
        if isinstance(ref, KindAllRef):
            return self.data.count(ref.kind)
        value = self._const_value(node)
        return len(value) if isinstance(value, list | tuple | set | dict) else None

    def range_size(self, lo: ast.Expr, hi: ast.Expr, step: ast.Expr | None = None) -> int | None:
        """The number of values of lo..hi (step) if its bounds are constant, else None."""
        bounds = (
            self.const_int(lo),
            self.const_int(hi),
            self.const_int(step) if step is not None else 1,
        )
        if None in bounds or bounds[2] == 0:
            return None
        return max(
            0, (bounds[1] + 1 - bounds[0] + bounds[2] - (1 if bounds[2] > 0 else -1)) // bounds[2]
        )

    def comp(self, elem: ast.Expr, fors, env: Env) -> tuple[str, Env]:
        """`elem for … in … if …` clauses, and the env inside them."""
        parts = []
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
            parts.append(f"for {inner.local(c.var)} in {iterable}")
            if where is not None:
                parts.append(f"if {where}")
        return " ".join(parts), inner

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
        if env.hoist is not None and self.invariant(node, env):
            return self.hoisted(self._list_comp(node, env), env)
        var = self.tabulable(node, env)
        if var is not None:
            return env.tabulation.element(var, self._list_comp(node, env))
        return self._list_comp(node, env)

    def _list_comp(self, node, env):
        clauses, inner = self.comp(node.elem, node.fors, env)
        return f"[{self.expr(node.elem, inner)} {clauses}]"

    def invariant(self, node: ast.Expr, env: Env, also: frozenset[str] = frozenset()) -> bool:
        """True if an expression reads only the state and `me` (so a read-only loop may compute it
        once), and the locals in `also`."""
        return self._free_locals(node, env, also) == set()

    def tabulable(self, node: ast.Expr, env: Env) -> str | None:
        """The one listing parameter an aggregate reads besides the state and `me`, if that
        parameter's values are computed once per listing (so the aggregate can be too)."""
        tabulation = env.tabulation
        if tabulation is None or not tabulation.values or env.hoist is None:
            return None
        read = self._free_locals(node, env)
        if read is None or len(read) != 1:
            return None
        (local,) = read
        return local if local in tabulation.values else None

    def _free_locals(self, node: ast.Expr, env: Env, also=frozenset()) -> set[str] | None:
        """The Python locals an expression reads besides `me` and the names bound inside it (or
        in `also`); None if it calls a builtin that changes anything or reads the position."""
        bound = {
            c.var
            for sub in walk(node)
            if isinstance(sub, ast.GenCall | ast.ListComp)
            for c in sub.fors
        } | also
        read: set[str] = set()
        for sub in walk(node):
            ref = self.cp.ref(sub)
            if isinstance(ref, LocalRef) and sub.name not in bound:
                local = env.local(sub.name).strip("()")
                if local != "me":
                    read.add(local)
            if isinstance(ref, BuiltinRef):
                builtin = BUILTINS[sub.func]
                if builtin.effect != "reads" or builtin.reads_position:
                    return None
        return read

    def visit_GenCall(self, node: ast.GenCall, env: Env) -> str:
        if env.hoist is not None and self.invariant(node, env):
            return self.hoisted(self._gen_call(node, env), env)
        found = self._found_in_any(node, env)
        if found is not None:
            return found
        var = self.tabulable(node, env)
        if var is not None:
            return env.tabulation.element(var, self._gen_call(node, env))
        return self._gen_call(node, env)

    def _gen_call(self, node: ast.GenCall, env: Env) -> str:
        clauses, inner = self.comp(node.elem, node.fors, env)
        elem = self.expr(node.elem, inner)
        func = node.func
        unrolled = self._unrolled(node, clauses, env)
        if unrolled is not None:
            return unrolled
        if func == "count":
            if isinstance(self.t(node.elem), BoolT):
                return f"sum(1 {clauses} if {elem})"
            return f"sum(1 {clauses})"
        if func in ("sum", "any", "all"):
            return f"{func}({elem} {clauses})"
        if func == "min":
            return f"_l.least({elem} {clauses})"
        if func == "max":
            return f"_l.greatest({elem} {clauses})"
        if func == "sorted":
            return f"sorted({elem} {clauses})"
        return f"_l.distinct({elem} {clauses})"

    def _found_in_any(self, node: ast.GenCall, env: Env) -> str | None:
        """In a listing, `any(x in C(d) for d in D)` whose collections C(d) are read once:
        `x in` the set of all their items, made once (the same test, one lookup; else None).

        Only for items equal by value and hashable (numbers, elements, enum values, players,
        truth values); C(d) and D may read the state and `me`, x anything but d.
        """
        if env.hoist is None or node.func != "any" or len(node.fors) != 1:
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
        found = self.hoisted(f"{{_item {clauses} for _item in {items}}}", env)
        return f"({self.expr(elem.left, env)} in {found})"

    def _unrolled(self, node: ast.GenCall, clauses: str, env: Env) -> str | None:
        """`any`, `all`, `sum`, `min` or `max` over a few constant values, written out, else None.

        `any(c in col[d] for d in range(3))` becomes `c in col[0] or c in col[1] or …`: the
        same values tested in the same order, without a generator. Only a walk that is not
        charged (clauses `for x in range(n)`) of at most UNROLL values, without a condition.
        """
        ops = {"any": " or ", "all": " and ", "sum": " + ", "min": ", ", "max": ", "}
        if node.func not in ops or len(node.fors) != 1 or node.fors[0].where is not None:
            return None
        var = node.fors[0].var
        head = f"for {env.bind(var).local(var)} in range("
        if not (clauses.startswith(head) and clauses.endswith(")")):
            return None
        count = clauses[len(head) : -1]
        if not count.isdigit() or not 1 <= int(count) <= UNROLL:
            return None
        # Written apart: the names the rest of the module gets stay as they were.
        with self.numbered_apart("u"):
            parts = [
                PyExpr.of(self.expr(node.elem, env.bind(var, str(value)))).operand()
                for value in range(int(count))
            ]
        joined = ops[node.func].join(parts)
        return f"{node.func}({joined})" if node.func in ("min", "max") else f"({joined})"

    def visit_ListLit(self, node, env):
        return "[" + ", ".join(self.expr(i, env) for i in node.items) + "]"

    def visit_TupleLit(self, node, env):
        return "(" + "".join(self.expr(i, env) + ", " for i in node.items) + ")"

    def visit_DictLit(self, node, env):
        return (
            "{"
            + ", ".join(f"{self.expr(k, env)}: {self.expr(v, env)}" for k, v in node.entries)
            + "}"
        )

    def visit_DictComp(self, node: ast.DictComp, env: Env) -> str:
        clauses, inner = self.comp(node.key, node.fors, env)
        return f"{{{self.expr(node.key, inner)}: {self.expr(node.value, inner)} {clauses}}}"

    def visit_BinOp(self, node: ast.BinOp, env: Env) -> str:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if isinstance(self.t(node.left), CollT):
            return f"[*{self.charged(left, node)}, *{self.charged(right, node)}]"
        op = "//" if node.op == "/" else node.op
        return f"({left} {op} {right})"

    def visit_Neg(self, node, env):
        return f"(-{self.expr(node.operand, env)})"

    def visit_Compare(self, node: ast.Compare, env: Env) -> str:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if node.op in ("in", "not in"):
            rt = self.t(node.right)
            if isinstance(rt, CollT) and rt.kind == "bag":
                return f"({right}[{left}] {'>' if node.op == 'in' else '<='} 0)"
            if isinstance(node.right, ast.RangeExpr):  # membership of a range takes no walk
                return f"({left} {node.op} {self.items(node.right, env, charge=False)})"
            return f"({left} {node.op} {right})"
        return f"({left} {node.op} {right})"

    def visit_IsNone(self, node, env):
        return f"({self.expr(node.operand, env)} is {'not ' if node.negated else ''}None)"

    def visit_Not(self, node, env):
        return f"(not {self.expr(node.operand, env)})"

    def visit_BoolOp(self, node, env):
        return f"({self.expr(node.left, env)} {node.op} {self.expr(node.right, env)})"

    def visit_CondExpr(self, node, env):
        return f"({self.expr(node.then, env)} if {self.expr(node.cond, env)} else {self.expr(node.orelse, env)})"

    def visit_SuperCall(self, node: ast.SuperCall, env: Env) -> str:
        name, version = env.within
        prefix = "f" if name in self.p.functions else "p"
        args = "".join(", " + self.expr(a, env) for a in node.args)
        return f"{self.version_name(prefix, name, version - 1)}(S{args})"

    def visit_Call(self, node: ast.Call, env: Env) -> str:
        ref = self.cp.ref(node)
        args = [self.expr(a, env) for a in node.args]
        if isinstance(ref, FunctionRef):
            if env.hoist is not None and self.invariant(node, env):
                return self.hoisted(self.visit_Call(node, replace(env, hoist=None)), env)
            inlined = self.inline(node.func, node.args, args, env)
            if inlined is not None:
                return inlined
        if isinstance(ref, FunctionRef | ProcedureRef):
            pyname, waits = self.callable_name(node.func)
            if waits:
                raise AssertionError("waiting calls are lowered as statements")
            code = f"{pyname}(S{''.join(', ' + a for a in args)})"
            var = self.tabulable(node, env) if isinstance(ref, FunctionRef) else None
            return code if var is None else env.tabulation.element(var, code)
        return self.builtin(node, args, env)

    def inline(self, name: str, arg_nodes, args: list[str], env: Env) -> str | None:
        """The body of a small one-expression function with its arguments substituted, if safe."""
        versions = self.p.functions[name].versions
        decl = versions[-1]
        if decl.expr is None or len(versions) > 1 or self.inline_depth > 4:
            return None
        if self.costs.entry_charge(name):  # its call is charged when it starts: keep the call
            return None
        if any(not isinstance(a, ast.Name | ast.MeLit | ast.IntLit | ast.Field) for a in arg_nodes):
            return None
        if sum(1 for _ in walk(decl.expr)) > 80:
            return None
        number = self.fresh()  # taken even when the tag is reused: later names stay as they were
        # The same call inlined twice reads the same, so hoisting computes it once.
        tag = self.inline_tags.setdefault((name, tuple(args)), f"_{number}")
        inner = Env(
            frame=False, tag=tag, within=env.within, hoist=env.hoist, tabulation=env.tabulation
        )
        for param, code in zip(decl.params, args, strict=True):
            inner = inner.bind(param.name, f"({code})")
        self.inline_depth += 1
        try:
            return f"({self.expr(decl.expr, inner)})"
        finally:
            self.inline_depth -= 1

    def builtin(self, node: ast.Call, args: list[str], env: Env) -> str:
        """Code for a library call, as its entry in compiler/builtins.py writes it."""
        return BUILTINS[node.func].emit_code(self, node, args, env)

    def checked(self, code: str, value: ast.Expr, dst: Type) -> str:
        """Code for `value` about to be stored where `dst` is declared: integers range-checked.

        Only stored values are checked (a value grows without bound only by being stored and
        reused), and only those not already known to be in range.
        """
        if isinstance(dst, OptT) and isinstance(dst.inner, IntT):
            return code if self.in_range(value) else f"_l.opt_int_ok({code})"
        if isinstance(dst, IntT):
            return code if self.in_range(value) else f"_l.int_ok({code})"
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
            return f"_l.ints_ok({code})"
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

    def convert(self, code: str, src: Type, dst: Type) -> str:
        """Code storing a value of type src where dst is declared (copies collections)."""
        if isinstance(dst, CollT):
            if dst.kind == "bag":
                if isinstance(src, CollT) and src.kind == "bag":
                    return f"list({code})"
                return f"_l.to_bag({code}, {self.size_of(dst.item)})"
            if dst.kind == "set":
                return f"set({code})"
            if isinstance(src, CollT) and src.kind == "bag":
                return f"_l.bag_items({code})"
            return f"list({code})"
        if isinstance(dst, MapT):
            if is_finite(dst.key):
                return f"_l.table_to_list({code}, {self.size_of(dst.key)})"
            return f"dict({code})"
        return code


UNROLL = 8  # aggregates over at most this many constant values are written out


def _small(value) -> bool:
    return isinstance(value, list | tuple | set | dict) and len(value) <= FREE_WALK


def spot(span: Span) -> str:
    """`(file, line, column)`, one constant locating a step or domain charge at `span`."""
    return f"({span.file!r}, {span.line!r}, {span.col!r})"


def source_text(program, span: Span) -> str:
    """The .metro text of a one-line span (for messages)."""
    source = program.sources.get(span.file)
    if source is None or span.line < 1:
        return ""
    line = source.line(span.line)
    if span.end_line == span.line:
        return line[span.col - 1 : span.end_col - 1]
    return line[span.col - 1 :]
