"""Guard splitting: the parts of a domain's guard that the map fixes become tables made while compiling.

A guard `where A and B and C` over the values of a parameter is cut into conjuncts (also
through calls of one-expression functions). A conjunct that reads no state — only the
parameter, earlier parameters with fixed domains, map data and constants — is evaluated for
every combination while compiling. So is a conjunct that reads the state or `me` only through
*keys*: expressions that depend on no parameter, of a type with few values (a truth value, an
enum value, a map element, a player, or none), or integers compared with a value fixed by the
map (`me.pieces >= e.length`: what matters is between which two lengths it lies). The
listing then walks the table of the values that pass, indexed by the earlier parameters and
the keys, and tests only the other conjuncts, in their written order.

Nothing observable changes. A moved conjunct is evaluated for every combination while
compiling; if that fails anywhere it stays in the guard. Conjuncts are moved only while those
written before them that stay in the guard cannot fail (`total`), so a value the table skips
is one whose guard would have been false without an error.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass, field

from compiler.builtins import BUILTINS
from compiler.consteval import EvalError, Evaluator
from compiler.indexes import Index
from compiler.inline_functions import inlinable
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
)
from compiler.types import BoolT, CollT, ElemT, EnumT, IntT, MapT, OptT, PlayerT, Type
from dsl import ast
from dsl.visitor import children, walk

# Evaluations (conjunct × combination) one table may take while compiling, and the values
# it may hold: beyond either, the conjunct stays in the guard.
MAX_EVALUATIONS = 100_000
MAX_TABLE_VALUES = 50_000
MAX_INLINE_DEPTH = 4  # as deep as code generation inlines one-expression functions
STATE = "@state"  # the dependency on anything that changes while playing (state, me, players)
ORDERINGS = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}  # an ordering and its mirror image


@dataclass(frozen=True)
class Scope:
    """The parameters of an inlined one-expression function: name -> (argument, its scope)."""

    bindings: tuple[tuple[str, ast.Expr, Scope | None], ...]

    def lookup(self, name: str) -> tuple[ast.Expr, Scope | None]:
        """The argument bound to a parameter, and the scope it is read in."""
        for bound, arg, outer in self.bindings:
            if bound == name:
                return arg, outer
        raise KeyError(name)


@dataclass(frozen=True)
class Conjunct:
    """One part of a guard: an expression read in a scope (None: the guard's own)."""

    node: ast.Expr
    scope: Scope | None


@dataclass
class Key:
    """A value read while playing that a table is indexed by, with one representative per slot.

    `kind` is "finite" (the slot is the value itself; none is the last slot), or "right" /
    "left": an integer whose slot is `bisect_right` / `bisect_left` of it in `points`.
    """

    node: ast.Expr
    scope: Scope | None
    kind: str
    values: tuple  # one representative value per slot
    points: tuple[int, ...] = ()


@dataclass
class StaticParam:
    """An earlier parameter with a fixed domain: a table dimension indexed by its value."""

    name: str
    values: tuple


@dataclass
class Table:
    """The values of a parameter that the moved conjuncts let through, per slot of each dimension."""

    dims: list[StaticParam | Key]
    moved: list[Conjunct]
    cells: object  # nested tuples, one level per dimension, values innermost


@dataclass
class IndexWalk:
    """A walk over the keys a maintained index holds for one value (compiler/indexes.py)."""

    index: Index
    value: ast.Expr | None  # what the table must hold (None: none)
    scope: Scope | None
    may_be_none: bool  # the value may be none (its slot is then the last)


@dataclass
class Plan:
    """How one parameter's values are listed: over a table or an index, and the conjuncts left
    to test (neither: the guard as written). A table's cells may be walked as views of a
    maintained index (`view`): each cell's keys whose table entry is none, kept up to date."""

    table: Table | None
    residual: list[Conjunct]
    walk: IndexWalk | None = None
    view: IndexWalk | None = None
    unviewed: list[Conjunct] | None = None  # the conjuncts left if the view is not taken


@dataclass
class _Candidate:
    conjunct: Conjunct
    keys: list[Key]
    params: list[str]  # earlier static parameters it reads
    reads_var: bool
    truth: dict = field(default_factory=dict)  # (param values, key slots) -> values that pass


class GuardSplitter:
    """Splits the guards of one compiled program (shares its types, references and map data)."""

    def __init__(self, gen):
        self.gen = gen
        self.cp = gen.cp
        self.p = gen.p
        self.evaluator = _PinnedEvaluator(gen.cp, gen.data)
        self.evaluator.consts = gen.evaluator.consts  # constants are computed once
        self.domains: dict[str, tuple] = {}  # the fixed values of the parameters being planned
        self.indexes: dict[str, Index] = {}  # the maintained indexes (compiler/indexes.py)
        self.trusted: set[str] = set()  # locals whose type says whether they may be none

    # ------------------------------------------------------------ the plan for one parameter

    def plan(
        self,
        var: str,
        domain: tuple | None,
        where: ast.Expr | None,
        static: list[StaticParam],
        loop_vars: set[str],
        simple_keys: bool = False,
        kind: Type | None = None,
    ) -> Plan:
        """Which conjuncts of `where` (over `var`'s fixed `domain` values, or None) move into a table.

        `static` are the earlier parameters a table may be indexed by; `loop_vars` every
        parameter in scope (this one included). With `simple_keys`, only keys that cannot
        fail and walk nothing are used. `kind` is the kind or enum whose every value the
        domain is (or None): without a table, a maintained index of a table over it may serve.
        """
        if where is None or domain is None:
            return Plan(None, [])
        self.domains = {var: domain, **{s.name: s.values for s in static}}
        self.trusted = set(loop_vars)
        conjuncts = self.conjuncts(where, None, 0)
        allowed = {var} | {s.name for s in static}
        moved: list[_Candidate] = []
        residual: list[Conjunct] = []
        blocked = False  # a conjunct left in the guard may fail: none after it may move
        for conj in conjuncts:
            candidate = None if blocked else self._candidate(conj, var, allowed, loop_vars)
            if candidate is not None and simple_keys and not all(map(self._simple, candidate.keys)):
                candidate = None
            if candidate is not None and self._evaluate(candidate, var, domain, static):
                trial = moved + [candidate]
                if _size(trial, static, domain) <= MAX_TABLE_VALUES:
                    moved = trial
                    continue
            residual.append(conj)
            blocked = blocked or not self.total(conj.node, conj.scope, frozenset())
        if moved:
            table = self._table(moved, var, domain, static)
            left, view = self._viewed(residual, var, kind)
            return Plan(table, left, view=view, unviewed=residual)
        if kind is not None:
            return self._index_walk(conjuncts, var, kind)
        return Plan(None, [])

    def _index_walk(self, conjuncts: list[Conjunct], var: str, kind: Type) -> Plan:
        """A walk over an index instead of every key: for a conjunct `F[var] == x` (or `is none`)."""
        for number, conj in enumerate(conjuncts):
            walk = self._indexed_test(conj, var, kind)
            if walk is not None:
                return Plan(None, conjuncts[:number] + conjuncts[number + 1 :], walk)
            if not self.total(conj.node, conj.scope, frozenset()):
                break  # the conjuncts before the one walked by cannot fail
        return Plan(None, [])

    def _viewed(
        self, residual: list[Conjunct], var: str, kind: Type | None
    ) -> tuple[list[Conjunct], IndexWalk | None]:
        """The conjuncts left once a table's cells are walked as views of a maintained index,
        and that view: for the first `F[var] is none` left, if those before it cannot fail
        (a value the view skips had its guard false without an error)."""
        if kind is None:
            return residual, None
        for number, conj in enumerate(residual):
            walk = self._indexed_test(conj, var, kind)
            if walk is not None and walk.value is None:
                return residual[:number] + residual[number + 1 :], walk
            if not self.total(conj.node, conj.scope, frozenset()):
                break
        return residual, None

    def _indexed_test(self, conj: Conjunct, var: str, kind: Type) -> IndexWalk | None:
        node, scope = conj.node, conj.scope
        if isinstance(node, ast.IsNone) and not node.negated:
            pairs = [(node.operand, None)]
        elif isinstance(node, ast.Compare) and node.op == "==":
            pairs = [(node.left, node.right), (node.right, node.left)]
        else:
            return None
        for entry, value in pairs:
            index = self._entry_of(entry, scope, var, kind)
            if index is None:
                continue
            if value is None:
                return IndexWalk(index, None, scope, True)
            found = self.deps(value, scope)
            if var in found or not self._simple(Key(value, scope, "finite", ())):
                continue
            may_be_none = isinstance(self.gen.t(value), OptT) or not self._present(
                value, scope, frozenset()
            )
            return IndexWalk(index, value, scope, may_be_none)
        return None

    def _entry_of(self, node: ast.Expr, scope, var: str, kind: Type) -> Index | None:
        """The index of `F` if `node` is `F[var]` for an indexed table F over `kind`."""
        if not isinstance(node, ast.Index) or not isinstance(node.obj, ast.Name):
            return None
        index = self.indexes.get(node.obj.name)
        if index is None or index.key != kind or not isinstance(self.cp.ref(node.obj), GlobalRef):
            return None
        return index if self._is_var(node.index, scope, var) else None

    def _is_var(self, node: ast.Expr, scope, var: str) -> bool:
        if not isinstance(node, ast.Name) or not isinstance(self.cp.ref(node), LocalRef):
            return False
        if scope is None:
            return node.name == var
        try:
            arg, outer = scope.lookup(node.name)
        except KeyError:
            return False
        return self._is_var(arg, outer, var)

    def conjuncts(self, node: ast.Expr, scope: Scope | None, depth: int) -> list[Conjunct]:
        """The parts of an `and` chain, seen through calls of inlinable one-expression functions."""
        if isinstance(node, ast.BoolOp) and node.op == "and":
            return self.conjuncts(node.left, scope, depth) + self.conjuncts(
                node.right, scope, depth
            )
        if isinstance(node, ast.Call) and depth < MAX_INLINE_DEPTH:
            decl = self.inlinable(node)
            if decl is not None:
                return self.conjuncts(decl.expr, _scope_of(decl, node, scope), depth + 1)
        return [Conjunct(node, scope)]

    def inlinable(self, node: ast.Call):
        """The declaration of a called function that code generation inlines, else None."""
        return inlinable(self.cp, self.gen.costs, node)

    # ------------------------------------------------------------ what a conjunct depends on

    def deps(self, node: ast.Node, scope: Scope | None) -> frozenset[str]:
        """The locals an expression reads (parameters seen through inlining), plus STATE if it reads what changes."""
        ref = self.cp.ref(node)
        if isinstance(node, ast.Name):
            if isinstance(ref, LocalRef):
                if scope is None:
                    return frozenset({node.name})
                try:
                    arg, outer = scope.lookup(node.name)
                except KeyError:  # a comprehension variable of the function's own body
                    return frozenset({node.name})
                return self.deps(arg, outer)
            return frozenset({STATE}) if isinstance(ref, GlobalRef) else frozenset()
        if isinstance(node, ast.MeLit | ast.PlayersLit | ast.SuperCall):
            return frozenset({STATE})
        if isinstance(node, ast.Call):
            args = frozenset().union(*(self.deps(a, scope) for a in node.args))
            if isinstance(ref, FunctionRef):
                decl = self.p.functions[node.func].active
                if decl.expr is None:
                    return args | {STATE}
                return self.deps(decl.expr, _scope_of(decl, node, scope))
            if isinstance(ref, BuiltinRef) and _evaluable(node.func):
                return args
            return args | {STATE}
        out = frozenset({STATE}) if isinstance(ref, PlayerFieldRef) else frozenset()
        bound = _bound_by(node)
        for child in children(node):
            out |= self.deps(child, scope) - bound
        return out

    def _candidate(self, conj: Conjunct, var: str, allowed: set[str], loop_vars: set[str]):
        keys = self.keys(conj.node, conj.scope, allowed, loop_vars, frozenset(), None)
        if keys is None:
            return None
        free = self.deps(conj.node, conj.scope) - {STATE}
        params = sorted(free & allowed - {var})
        return _Candidate(conj, keys, params, var in free)

    def _simple(self, key: Key) -> bool:
        """True for a key that cannot fail and walks nothing (no call, comprehension or range)."""
        walks = (ast.Call, ast.GenCall, ast.ListComp, ast.DictComp, ast.RangeExpr, ast.SuperCall)
        return not any(isinstance(n, walks) for n in walk(key.node)) and self.total(
            key.node, key.scope, frozenset()
        )

    def keys(self, node, scope, allowed, loop_vars, bound, parent) -> list[Key] | None:
        """The keys that make `node` computable while compiling, or None if it cannot be."""
        if (
            isinstance(node, ast.Name)
            and scope is not None
            and isinstance(self.cp.ref(node), LocalRef)
        ):
            try:  # a parameter of an inlined function stands for its argument
                arg, outer = scope.lookup(node.name)
            except KeyError:
                pass  # a comprehension variable of the function's body
            else:
                return self.keys(arg, outer, allowed, loop_vars, bound, parent)
        found = self.deps(node, scope)
        free = found - {STATE}
        if STATE not in found and free <= allowed | bound:
            return []
        if not free & (loop_vars | bound):  # the same for every value: a key, if it has few values
            t = self._key_type(node, scope)
            if _finite(t):
                return [Key(node, scope, "finite", self._values(t))]
            if isinstance(t, IntT) and parent is not None:
                return None  # an integer key is made by the comparison around it
        if isinstance(node, ast.Compare) and node.op in ORDERINGS:
            key = self._int_key(node, scope, allowed, loop_vars, bound)
            if key is not None:
                return [key]
        if isinstance(node, ast.Name) or _reads_state_itself(self.cp, node):
            return None
        if isinstance(node, ast.Call) and isinstance(self.cp.ref(node), FunctionRef):
            decl = self.p.functions[node.func].active
            return self.keys(
                decl.expr, _scope_of(decl, node, scope), allowed, loop_vars, frozenset(), node
            )
        out: list[Key] = []
        inner = bound | _bound_by(node)
        for child in children(node):
            part = self.keys(child, scope, allowed, loop_vars, inner, node)
            if part is None:
                return None
            out += part
        return out

    def _key_type(self, node: ast.Expr, scope) -> Type:
        """A key's type; none is a possible value of a parameter that is not trusted to hold one."""
        t = self.gen.t(node)
        if not isinstance(t, OptT) and not self._present(node, scope, frozenset()):
            return OptT(t)
        return t

    def _int_key(self, node: ast.Compare, scope, allowed, loop_vars, bound) -> Key | None:
        for key_side, fixed, op in (
            (node.left, node.right, node.op),
            (node.right, node.left, ORDERINGS[node.op]),
        ):
            found = self.deps(key_side, scope)
            if found & (loop_vars | bound) or not (STATE in found or found - allowed):
                continue  # not the same for every value, or fixed itself
            if not isinstance(self.gen.t(key_side), IntT) or not self._present(
                key_side, scope, frozenset()
            ):
                continue
            fixed_deps = self.deps(fixed, scope)
            if STATE in fixed_deps or not fixed_deps <= allowed:
                continue
            points = self._points(fixed, scope, sorted(fixed_deps))
            if points is None:
                continue
            # `key >= x` and `key < x` change where key reaches a point: bisect_right; `key > x`
            # and `key <= x` just past it: bisect_left. One representative key value per slot.
            if op in (">=", "<"):
                values = (points[0] - 1, *points)
                return Key(key_side, scope, "right", values, points)
            values = (points[0], *(x + 1 for x in points))
            return Key(key_side, scope, "left", values, points)
        return None

    def _points(self, node, scope, names: list[str]) -> tuple[int, ...] | None:
        """The distinct values an integer expression takes over every value of the parameters it reads."""
        domains = [self._param_values(name) for name in names]
        if any(d is None for d in domains):
            return None
        seen: set[int] = set()
        try:
            for combo in itertools.product(*domains):
                value = self.evaluator.eval(
                    node, _env(self, dict(zip(names, combo, strict=True)), scope)
                )
                if type(value) is not int:
                    return None
                seen.add(value)
        except (EvalError, KeyError, TypeError, RecursionError):
            return None
        return tuple(sorted(seen)) if seen else None

    def _param_values(self, name: str):
        return self.domains.get(name)

    # ------------------------------------------------------------ tables

    def _evaluate(
        self, cand: _Candidate, var: str, domain: tuple, static: list[StaticParam]
    ) -> bool:
        """Fill the candidate's truth table; False if it fails or is too costly anywhere."""
        by_name = {s.name: s.values for s in static}
        param_values = [by_name[name] for name in cand.params]
        slots = [range(len(k.values)) for k in cand.keys]
        combos = 1
        for values in param_values + slots:
            combos *= len(values)
        if combos * len(domain) > MAX_EVALUATIONS:
            return False
        self.evaluator.steps = 0
        try:
            for params in itertools.product(*param_values):
                for key_slots in itertools.product(*slots):
                    pins = {
                        id(k.node): k.values[slot]
                        for k, slot in zip(cand.keys, key_slots, strict=True)
                    }
                    if len(pins) != len(cand.keys):
                        return False  # one node as two keys (a function inlined twice)
                    self.evaluator.pins = pins
                    names = dict(zip(cand.params, params, strict=True))
                    passing = []
                    for value in domain if cand.reads_var else domain[:1]:
                        env = _env(self, {**names, var: value}, cand.conjunct.scope)
                        result = self.evaluator.eval(cand.conjunct.node, env)
                        if type(result) is not bool:
                            return False
                        if result:
                            passing.append(value)
                    if not cand.reads_var:
                        passing = list(domain) if passing else []
                    cand.truth[(params, key_slots)] = frozenset(passing)
        except (EvalError, KeyError, TypeError, RecursionError, ZeroDivisionError):
            return False
        finally:
            self.evaluator.pins = {}
        return True

    def _table(self, moved: list[_Candidate], var: str, domain: tuple, static) -> Table:
        params = [s for s in static if any(s.name in c.params for c in moved)]
        keys: list[Key] = []
        for cand in moved:
            for key in cand.keys:
                if not any(_same_key(key, k) for k in keys):
                    keys.append(key)
        dims: list[StaticParam | Key] = [*params, *keys]

        def cell(param_values: dict, key_slots: dict) -> tuple:
            allowed = set(domain)
            for cand in moved:
                own = tuple(param_values[name] for name in cand.params)
                slots = tuple(key_slots[_key_index(keys, k)] for k in cand.keys)
                allowed &= cand.truth[(own, slots)]
            return tuple(v for v in domain if v in allowed)

        def build(depth: int, param_values: dict, key_slots: dict):
            if depth == len(dims):
                return cell(param_values, key_slots)
            dim = dims[depth]
            if isinstance(dim, StaticParam):
                return tuple(
                    build(depth + 1, {**param_values, dim.name: v}, key_slots) for v in dim.values
                )
            index = depth - len(params)
            return tuple(
                build(depth + 1, param_values, {**key_slots, index: slot})
                for slot in range(len(dim.values))
            )

        return Table(dims, [c.conjunct for c in moved], build(0, {}, {}))

    def _values(self, t: Type) -> tuple:
        if isinstance(t, OptT):
            return (*self._values(t.inner), None)
        if isinstance(t, BoolT):
            return (False, True)
        if isinstance(t, EnumT):
            return tuple(range(len(self.cp.enum_values[t.name])))
        if isinstance(t, ElemT):
            return tuple(range(self.gen.data.count(t.kind)))
        return tuple(range(self.p.players.hi if self.p.players else 1))

    # ------------------------------------------------------------ what cannot fail

    def total(self, node: ast.Expr, scope: Scope | None, known: frozenset) -> bool:
        """True if evaluating `node` cannot raise, whatever the position (conservative).

        `known` holds the optional values known not to be none here (by an `is none` test
        that short-circuits before `node`).
        """
        ref = self.cp.ref(node)
        if isinstance(
            node,
            ast.IntLit | ast.StrLit | ast.BoolLit | ast.NoneLit | ast.MeLit | ast.PlayersLit,
        ):
            return True
        if isinstance(node, ast.Name):
            if isinstance(ref, LocalRef) and scope is not None:
                try:
                    arg, outer = scope.lookup(node.name)
                except KeyError:
                    return True
                return self.total(arg, outer, frozenset())
            return isinstance(
                ref, LocalRef | GlobalRef | ConstRef | EnumValueRef | EnumAllRef | KindAllRef
            )  # reading a name cannot fail; what is done with a none in it is checked apart
        if isinstance(node, ast.Field):
            if isinstance(ref, EnumValueRef):
                return True
            if not isinstance(ref, PlayerFieldRef | ElemFieldRef):
                return False
            return self.total(node.obj, scope, known) and self._present(node.obj, scope, known)
        if isinstance(node, ast.Index):
            if isinstance(ref, ElemByIdRef):
                return ref.id in self.gen.data.ids.get(ref.kind, [])
            return (
                self.total(node.obj, scope, known)
                and self.total(node.index, scope, known)
                and self._present(node.index, scope, known)
                and self._fits(self.gen.t(node.obj), self.gen.t(node.index))
            )
        if isinstance(node, ast.Compare):
            parts = self.total(node.left, scope, known) and self.total(node.right, scope, known)
            if node.op in ("==", "!="):
                return parts
            if node.op in ("in", "not in"):
                right = self.gen.t(node.right)
                if isinstance(right, CollT) and right.kind == "bag":
                    return parts and self._fits(right, self.gen.t(node.left))
                return parts and isinstance(right, CollT)
            return parts and all(
                self._present(side, scope, known) for side in (node.left, node.right)
            )
        if isinstance(node, ast.IsNone | ast.Not | ast.Neg):
            return self.total(node.operand, scope, known)
        if isinstance(node, ast.BoolOp):
            if not self.total(node.left, scope, known):
                return False
            after = known | self._facts(node.left, node.op == "and", scope)
            return self.total(node.right, scope, after)
        if isinstance(node, ast.BinOp):
            if not (self.total(node.left, scope, known) and self.total(node.right, scope, known)):
                return False
            if not all(
                isinstance(self.gen.t(s), IntT) and self._present(s, scope, known)
                for s in (node.left, node.right)
            ):
                return False
            if node.op in ("+", "-", "*"):
                return True
            divisor = self.gen.sizes.const_int(node.right)
            return divisor is not None and divisor != 0
        if isinstance(node, ast.CondExpr):
            return all(self.total(n, scope, known) for n in (node.cond, node.then, node.orelse))
        if isinstance(node, ast.Call):
            if not all(self.total(a, scope, known) for a in node.args):
                return False
            if isinstance(ref, FunctionRef):
                decl = self.p.functions[node.func].active
                return decl.expr is not None and self.total(
                    decl.expr, _scope_of(decl, node, scope), frozenset()
                )
            return node.func in ("size", "abs") or (
                node.func in ("min", "max") and len(node.args) == 2
            )
        if isinstance(node, ast.GenCall) and node.func in ("any", "all", "sum", "count"):
            return all(
                self.total(part, scope, known)
                for c in node.fors
                for part in (c.iterable, c.where)
                if part is not None
            ) and self.total(node.elem, scope, known)
        return False

    def _present(self, node: ast.Expr, scope, known: frozenset) -> bool:
        """True if a value is never none here: not optional, or tested for none before.

        A parameter of a function may hold none whatever its type says (an optional value
        passes where its value is expected), so only the names in `trusted` (the walked
        values) and arguments seen through inlining are judged by their type.
        """
        if (node, scope) in known:
            return True
        if isinstance(node, ast.Name) and isinstance(self.cp.ref(node), LocalRef):
            if scope is not None:
                try:
                    arg, outer = scope.lookup(node.name)
                except KeyError:
                    pass  # a comprehension variable: its type holds
                else:
                    return self._present(arg, outer, frozenset())
            elif node.name not in self.trusted:
                return False
        return not isinstance(self.gen.t(node), OptT)

    def _facts(self, node: ast.Expr, truth: bool, scope) -> frozenset:
        """The optional values known not to be none once `node` has evaluated to `truth`."""
        if isinstance(node, ast.IsNone) and node.negated == truth:
            return frozenset({(node.operand, scope)})
        if isinstance(node, ast.BoolOp) and (node.op == "and") == truth:
            return self._facts(node.left, truth, scope) | self._facts(node.right, truth, scope)
        return frozenset()

    def _fits(self, container: Type, index: Type) -> bool:
        """True if every value of `index` is a valid position of `container` (a table or bag).

        An optional index counts by its values: whether it may be none is checked apart.
        """
        if isinstance(index, OptT):
            index = index.inner
        key = (
            container.key
            if isinstance(container, MapT)
            else container.item
            if isinstance(container, CollT) and container.kind == "bag"
            else None
        )
        if isinstance(key, ElemT) and isinstance(index, ElemT):
            return key.kind == index.kind
        if isinstance(key, EnumT) and isinstance(index, EnumT):
            values = self.cp.enum_values
            return len(values[index.name]) <= len(values[key.name])
        return False


def _same_key(a: Key, b: Key) -> bool:
    return a.node == b.node and a.scope == b.scope and a.kind == b.kind and a.points == b.points


def _key_index(keys: list[Key], key: Key) -> int:
    return next(i for i, k in enumerate(keys) if _same_key(k, key))


def _size(cands: list[_Candidate], static: list[StaticParam], domain: tuple) -> int:
    """An upper bound of the values a table of these candidates holds."""
    names = {n for c in cands for n in c.params}
    total = len(domain)
    for s in static:
        if s.name in names:
            total *= len(s.values)
    seen: list[Key] = []
    for cand in cands:
        for key in cand.keys:
            if not any(_same_key(key, k) for k in seen):
                seen.append(key)
                total *= len(key.values)
    return total


def _scope_of(decl, call: ast.Call, scope: Scope | None) -> Scope:
    return Scope(tuple((p.name, a, scope) for p, a in zip(decl.params, call.args, strict=True)))


def _bound_by(node: ast.Node) -> frozenset[str]:
    if isinstance(node, ast.GenCall | ast.ListComp | ast.DictComp):
        return frozenset(c.var for c in node.fors)
    return frozenset()


def _finite(t: Type) -> bool:
    if isinstance(t, OptT):
        t = t.inner
    return isinstance(t, BoolT | EnumT | ElemT | PlayerT)


def _evaluable(name: str) -> bool:
    """True for a builtin that reads only its arguments and can run while compiling."""
    builtin = BUILTINS[name]
    return builtin.const is not None and builtin.effect == "reads" and not builtin.reads_position


def _reads_state_itself(cp, node: ast.Node) -> bool:
    """True if the node's own operation reads what changes (not only through its parts)."""
    ref = cp.ref(node)
    if isinstance(node, ast.MeLit | ast.PlayersLit | ast.SuperCall):
        return True
    if isinstance(node, ast.Name):
        return isinstance(ref, GlobalRef)
    if isinstance(node, ast.Field):
        return isinstance(ref, PlayerFieldRef)
    if isinstance(node, ast.Call):
        if isinstance(ref, FunctionRef):
            return cp.program.functions[node.func].active.expr is None
        return not (isinstance(ref, BuiltinRef) and _evaluable(node.func))
    return False


def _env(splitter: GuardSplitter, values: dict, scope: Scope | None) -> dict:
    """Local values for evaluating in `scope`: the arguments of inlined calls, where computable."""
    if scope is None:
        return values
    outer_envs: dict[int, dict] = {}
    env = {}
    for name, arg, outer in scope.bindings:
        outer_env = outer_envs.setdefault(id(outer), _env(splitter, values, outer))
        # An argument that cannot be computed (`me`) is read only under a key: never needed.
        with contextlib.suppress(EvalError, KeyError):
            env[name] = splitter.evaluator.eval(arg, outer_env)
    return env


class _PinnedEvaluator(Evaluator):
    """Constant evaluation where some nodes (the keys) have given values."""

    def __init__(self, cp, data):
        super().__init__(cp, data)
        self.pins: dict[int, object] = {}

    def eval(self, node: ast.Expr, env: dict):
        """A pinned node's value, else the node evaluated."""
        pinned = self.pins.get(id(node), _UNPINNED)
        if pinned is not _UNPINNED:
            return pinned
        return super().eval(node, env)

    def visit_Call(self, node, env):
        """A function's body with its arguments bound when computable (a key may stand in)."""
        if isinstance(self.cp.ref(node), FunctionRef):
            decl = self.cp.program.functions[node.func].active
            if decl.expr is not None:
                inner = {}
                for param, arg in zip(decl.params, node.args, strict=True):
                    with contextlib.suppress(EvalError, KeyError):
                        inner[param.name] = self.eval(arg, env)
                return self.eval(decl.expr, inner)
        return super().visit_Call(node, env)


_UNPINNED = object()
