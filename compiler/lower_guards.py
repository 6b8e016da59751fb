"""Lowering guard tables: the module constants of `compiler/guards.py`'s tables and the code reading them."""

from __future__ import annotations

from compiler import ir
from compiler.expr import (
    BinOp,
    Call,
    Cond,
    Const,
    Expr,
    Helper,
    Index,
    Name,
    Operand,
    Paren,
    S,
    StateField,
    Unary,
    helper,
    unparen,
)
from compiler.guards import (
    Conjunct,
    GuardSplitter,
    Key,
    Plan,
    Scope,
    StaticParam,
)
from compiler.literals import ident
from compiler.lower_exprs import Env, ExprLowerer, source_text
from compiler.refs import EnumAllRef, KindAllRef
from compiler.types import BoolT, ElemT, EnumT
from dsl import ast
from runtime.limits import MAX_DOMAIN


def fixed_values(gen: ExprLowerer, domain) -> tuple | None:
    """The values of a domain known while compiling (an enum, a kind, truth values, a constant range)."""
    if not isinstance(domain, ast.TypeDomain):
        return None
    tnode = domain.type
    if isinstance(tnode, ast.RangeType):
        size = gen.sizes.range_size(tnode.lo, tnode.hi, tnode.step)
        if size is None or size > MAX_DOMAIN:
            return None
        lo = gen.sizes.const_int(tnode.lo)
        step = gen.sizes.const_int(tnode.step) if tnode.step is not None else 1
        return tuple(range(lo, lo + size * step, step))
    t = gen.checker_type(tnode)
    if isinstance(t, BoolT):
        return (False, True)
    if isinstance(t, EnumT):
        return tuple(range(len(gen.cp.enum_values[t.name])))
    if isinstance(t, ElemT):
        return tuple(range(gen.data.count(t.kind)))
    return None


def fixed_items(gen: ExprLowerer, node: ast.Expr) -> tuple | None:
    """The items of a walked collection known while compiling (every element of a kind or enum, a constant range)."""
    ref = gen.cp.ref(node)
    if isinstance(ref, KindAllRef):
        return tuple(range(gen.data.count(ref.kind)))
    if isinstance(ref, EnumAllRef):
        return tuple(range(len(gen.cp.enum_values[ref.enum])))
    if isinstance(node, ast.RangeExpr):
        size = gen.sizes.range_size(node.lo, node.hi)
        if size is None or size > MAX_DOMAIN:
            return None
        lo = gen.sizes.const_int(node.lo)
        return tuple(range(lo, lo + size))
    return None


def bucket_code(key: Key, code: Expr, points_name: str) -> Expr:
    """A key's slot in its table from the key's value `code`."""
    if key.kind in ("right", "left"):
        return helper("_l", f"bisect_{key.kind}", Name(points_name), code)
    if None in key.values:
        return none_slot(code)
    return code


def none_slot(code: Expr) -> Expr:
    """A value's slot where none takes slot -1 (a literal is resolved here: Python warns
    about `0 is None`)."""
    bare = unparen(code)
    if bare == Const(None):
        return Const(-1)
    if isinstance(bare, Unary) and bare.op == "-":
        literal = bare.operand
        if isinstance(literal, Const) and type(literal.value) is int:
            return bare
    if isinstance(bare, Const) and type(bare.value) is int:
        return bare
    return Paren(Cond(Const(-1), BinOp(code, "is", Const(None)), code))


# Views one maintained index may keep (compiler/guards.py Plan.view), and the keys a table's
# cells must hold on average to be viewed. A view saves a listing the keys it skips, but is
# moved at every write of the table and copied with every copy of the position (a search makes
# thousands a decision): measured (docs/speed.md), views of cells of 9 to 100 keys, written a
# few dozen times a game, paid; views of cells of 3 to 7 keys written at most turns, or a
# hundred views of one table, cost more than they saved.
MAX_VIEWS = 16
VIEWED_KEYS = 16


def _each_cell(cells, depth: int, change):
    """A table's nested cells (tuples `depth` levels deep around each cell) with each cell changed."""
    if depth == 0:
        return change(cells)
    return tuple(_each_cell(inner, depth - 1, change) for inner in cells)


def static_param(gen: ExprLowerer, name: str, domain) -> StaticParam | None:
    """A parameter a later table may be indexed by: its values are the positions 0, 1, …"""
    values = fixed_values(gen, domain)
    if values is None or (isinstance(domain.type, ast.RangeType) and values[:1] != (0,)):
        return None
    return StaticParam(name, values) if values == tuple(range(len(values))) else None


class GuardTables:
    """Plans the tables of one program's listings and writes them as module constants."""

    enabled = True  # off only in tests that compare a game with and without its tables

    def __init__(self, gen: ExprLowerer):
        self.gen = gen
        self.splitter = GuardSplitter(gen)
        self.constants: list[ir.GuardTable] = []
        self.walks = 0  # tables of comprehension walks so far
        self.walked: set[str] = set()  # the state tables whose maintained index a walk uses
        self.views: dict[str, ir.IndexViews] = {}  # per indexed table, the cells walked as views

    @property
    def indexes(self) -> dict:
        """The maintained indexes walks may use (compiler/indexes.py)."""
        return self.splitter.indexes

    @indexes.setter
    def indexes(self, indexes: dict) -> None:
        self.splitter.indexes = indexes

    def plan(self, var: str, domain, where, static: list[StaticParam], loop_vars: set[str]) -> Plan:
        """The plan for a parameter (none unless part of its guard is fixed by the map or indexed)."""
        if not self.enabled:
            return Plan(None, [])
        kind = None
        if isinstance(domain, ast.TypeDomain) and not isinstance(domain.type, ast.RangeType):
            kind = self.gen.checker_type(domain.type)
            kind = kind if isinstance(kind, ElemT | EnumT) else None
        values = fixed_values(self.gen, domain)
        return self.splitter.plan(var, values, where, static, loop_vars, kind=kind)

    def clause(
        self, clause: ast.CompFor, iterable: Expr, where: Expr, env: Env, pure: bool
    ) -> tuple[Expr, Expr | None]:
        """A comprehension clause's (iterable, condition): over a table when part is fixed by the
        map, or over a maintained index when the comprehension changes nothing (`pure`).

        Its keys are computed once per walk instead of per value, so only keys that cannot
        fail and walk nothing are used (their reads are the same, their charges none).
        """
        values = fixed_items(self.gen, clause.iterable)
        if values is None or not self.enabled:
            return iterable, where
        ref = self.gen.cp.ref(clause.iterable)
        kind = None
        if pure and isinstance(ref, KindAllRef):
            kind = ElemT(ref.kind)
        elif pure and isinstance(ref, EnumAllRef):
            kind = EnumT(ref.enum)
        plan = self.splitter.plan(
            clause.var, values, clause.where, [], {clause.var}, simple_keys=True, kind=kind
        )
        if plan.table is None and plan.walk is None:
            return iterable, where
        with self.gen.numbered_apart("t"):
            table = self.lookup(plan, "", clause.var, env)
            residual = self.residual(plan, env)
        if isinstance(iterable, Call) and iterable.func == Helper("_l", "each"):
            # charged as the whole walk, as written
            where = self.gen.charge_args(clause.iterable)
            return helper("_l", "charged", S, table, Const(len(values)), *where), residual
        return table, residual

    def lookup(self, plan: Plan, owner: str, var: str, env: Env) -> Expr:
        """Code for the table's values for the current keys.

        Writes the table (and each integer key's points) as module constants named after
        `owner` (the action or site) and `var`.
        """
        if plan.walk is not None:
            return self.walk(plan.walk, env)
        table = plan.table
        name = self.name(owner, var, table)
        indexes = []
        dims_text = []
        for number, dim in enumerate(table.dims):
            if isinstance(dim, StaticParam):
                indexes.append(env.local(dim.name))
                dims_text.append(dim.name)
                continue
            points = ""
            if dim.points:
                points = f"{name}__k{number}"
                comment = f"{owner}: the values of `{self.text(dim)}` where a slot of {name} starts"
                self.constants.append(ir.GuardTable(points, comment, dim.points))
            indexes.append(bucket_code(dim, self.key_code(dim, env), points))
            dims_text.append(self.text(dim))
        conditions = ", ".join(f"`{self.text(c)}`" for c in table.moved)
        by = f", by {' and '.join(dims_text)}" if dims_text else ""
        comment = f"{owner or 'a walk'}: the values of {var} for which {conditions} hold{by}"
        cells = table.cells
        if plan.view is not None and not self.views_afford(plan.view, table):
            plan.view, plan.residual = None, plan.unviewed  # its test stays in the guard
        if plan.view is not None:  # the table holds each cell's number among the index's views
            views = self.viewed(plan.view)
            cells = _each_cell(cells, len(table.dims), views.number)
            comment += f": the numbers of its cells in {views.slot} (their keys whose {views.index.field} is none)"
        constant = ir.GuardTable(name, comment, cells)
        if constant not in self.constants:
            self.constants.append(constant)
        code: Expr = Name(name)
        for index in indexes:
            code = Index(code, index)
        if plan.view is not None:
            code = Index(StateField(views.slot), code)
        return code

    def views_afford(self, walk, table) -> bool:
        """Whether views of this table's cells pay: every view is copied with each copy of the
        position and moved at each write, so an index keeps at most MAX_VIEWS, and a cell is
        viewed only if the table's cells hold VIEWED_KEYS keys on average (a small cell is
        walked about as fast as its view is kept up)."""
        kept = self.views.get(walk.index.field)
        known = set(kept.cells) if kept is not None else set()
        cells: set = set()
        _each_cell(table.cells, len(table.dims), cells.add)
        keys = sum(len(cell) for cell in cells)
        return len(known | cells) <= MAX_VIEWS and keys >= VIEWED_KEYS * len(cells)

    def viewed(self, walk) -> ir.IndexViews:
        """The views of the index a table's cells are walked by (its index maintained)."""
        index = walk.index
        self.walked.add(index.field)
        if index.field not in self.views:
            key = index.key
            if isinstance(key, ElemT):
                keys = self.gen.data.count(key.kind)
            else:
                keys = len(self.gen.cp.enum_values[key.name])
            self.views[index.field] = ir.IndexViews(index, keys)
        return self.views[index.field]

    def walk(self, walk, env: Env) -> Expr:
        """Code for the keys a maintained index holds for the walked-by value."""
        index = walk.index
        self.walked.add(index.field)
        if walk.value is None:
            slot = Const(-1)
        else:
            value = self.gen.expr(walk.value, self.scope_env(walk.scope, env))
            slot = none_slot(value) if walk.may_be_none else value
        return Index(StateField(index.slot), slot)

    def name(self, owner: str, var: str, table) -> str:
        """The constant's name: after the action (or site) and parameter, or numbered for a walk."""
        if owner:
            return f"G_{ident(owner)}__{ident(var)}"
        # The same walk written twice (an inlined function) shares its table. A number
        # (never an action's name) stands for the walk.
        for constant in self.constants:
            walked, _, name = constant.name[2:].partition("__")
            if walked.isdigit() and name == var and constant.value == table.cells:
                return constant.name
        self.walks += 1
        return f"G_{self.walks}__{ident(var)}"

    def residual(self, plan: Plan, env: Env) -> Expr | None:
        """The conjuncts left to test per value, in their written order (None: nothing left)."""
        if not plan.residual:
            return None
        codes = [Operand(self.conj_code(c, env)) for c in plan.residual]
        if len(codes) == 1:
            return codes[0]
        joined = codes[0]
        for code in codes[1:]:
            joined = BinOp(joined, "and", code)
        return Paren(joined)

    def conj_code(self, conj: Conjunct, env: Env) -> Expr:
        """One conjunct in its scope."""
        return self.gen.expr(conj.node, self.scope_env(conj.scope, env))

    def key_code(self, key: Key, env: Env) -> Expr:
        """A key's value."""
        return self.gen.expr(key.node, self.scope_env(key.scope, env))

    def scope_env(self, scope: Scope | None, env: Env) -> Env:
        """The env in which an inlined function's body reads its arguments (as the stage inline_functions puts a body in)."""
        if scope is None:
            return env
        gen = self.gen
        inner = Env(
            frame=False,
            tag=f"_{gen.fresh()}",
            within=env.within,
            listing=env.listing,
        )
        for name, arg, outer in scope.bindings:
            inner = inner.bind(name, Paren(gen.expr(arg, self.scope_env(outer, env))))
        return inner

    def text(self, part: Conjunct | Key) -> str:
        """The .metro text of a conjunct or key (for the table's comment)."""
        return source_text(self.gen.p, part.node.span) or "…"
