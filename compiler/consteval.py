"""Compile-time evaluation of constants and map checks (an interpreter, never Python `eval`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.builtin_rules import ConstError
from compiler.builtins import BUILTINS, Builtin
from compiler.checked import CheckedProgram
from compiler.refs import (
    BuiltinRef,
    ConstRef,
    ElemByIdRef,
    ElemFieldRef,
    EnumAllRef,
    EnumValueRef,
    FunctionRef,
    KindAllRef,
    LocalRef,
)
from compiler.types import ElemT, EnumT
from compiler.visit import Visitor
from dsl import ast
from dsl.diagnostics import INT_RANGE, ErrorCode
from runtime.limits import CONST_STEP_BUDGET
from runtime.values import INT_LIMIT


class EvalError(Exception):
    """An expression could not be evaluated at compile time (`code`: a more precise diagnostic code)."""

    def __init__(self, message: str, node: ast.Node, code: ErrorCode | None = None):
        super().__init__(message)
        self.node = node
        self.code = code


class EvalBudgetError(EvalError):
    """Evaluating constants and map checks took more steps than CONST_STEP_BUDGET."""


class BrokenElementRead(EvalError):
    """A field of a map element whose data has errors was read: what follows from it is unknown."""


@dataclass
class MapData:
    """Elements of each map kind: ids, per-field value tuples, and their declarations."""

    ids: dict[str, list[str]]
    fields: dict[str, dict[str, list]]
    items: dict[str, list[ast.MapItem]]
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> each element's label
    broken: dict[str, set[int]] = field(default_factory=dict)  # kind -> elements with data errors

    def count(self, kind: str) -> int:
        """Number of elements of a kind."""
        return len(self.ids.get(kind, []))


class Evaluator(Visitor):
    """Evaluates pure expressions over consts and map data (`visit_<Expr>(node, env)`)."""

    def __init__(self, cp: CheckedProgram, data: MapData):
        self.cp = cp
        self.data = data
        self.consts: dict[str, object] = {}
        self.busy: set[str] = set()
        self.steps = 0  # values visited so far, against CONST_STEP_BUDGET

    def charge(self, value, node: ast.Node):
        """Count a walk over `value` (a collection or a lazy range); returns it."""
        try:
            self.steps += len(value)
        except OverflowError:
            self.steps = CONST_STEP_BUDGET + 1
        if self.steps > CONST_STEP_BUDGET:
            raise EvalBudgetError(
                f"computing the constants takes more than {CONST_STEP_BUDGET:,} steps "
                "(the constant evaluation budget)",
                node,
            )
        return value

    def concrete(self, value, node: ast.Node):
        """A value with its lazy range (if it is one) written out as a list."""
        if isinstance(value, range):
            return list(self.charge(value, node))
        return value

    def const(self, name: str, node: ast.Node):
        """The value of a const (evaluated once)."""
        if name not in self.consts:
            if name in self.busy:
                raise EvalError(f"const '{name}' depends on itself", node)
            self.busy.add(name)
            value = self.cp.program.consts[name].active.value
            try:
                self.consts[name] = self.concrete(self.eval(value, {}), value)
            finally:  # a const that failed is reported for its own reason, not as a cycle
                self.busy.discard(name)
        return self.consts[name]

    def eval(self, node: ast.Expr, env: dict):
        """Evaluate an expression with local bindings `env`."""
        value = self.visit(node, env)
        # Every intermediate result is checked, so no computation ever grows far past the limit.
        if type(value) is int and not -INT_LIMIT <= value < INT_LIMIT:
            raise EvalError(
                f"the value {_digits(value)} is outside the integer range -2**63 .. 2**63 - 1",
                node,
                INT_RANGE,
            )
        return value

    def generic_visit(self, node: ast.Node, env: dict):
        """An expression with no rule here (a call of `me`, a player's field, …)."""
        raise EvalError("this expression cannot be computed before the game starts", node)

    def visit_IntLit(self, node, env):
        return node.value

    def visit_StrLit(self, node, env):
        return node.value

    def visit_BoolLit(self, node, env):
        return node.value

    def visit_NoneLit(self, node, env):
        return None

    def visit_Name(self, node, env):
        ref = self.cp.ref(node)
        if isinstance(ref, LocalRef):
            return env[node.name]
        if isinstance(ref, ConstRef):
            return self.const(node.name, node)
        if isinstance(ref, EnumValueRef):
            return ref.index
        if isinstance(ref, EnumAllRef):
            return list(range(len(self.cp.enum_values[ref.enum])))
        if isinstance(ref, KindAllRef):
            return list(range(self.data.count(ref.kind)))
        raise EvalError(f"'{node.name}' is not known before the game starts", node)

    def visit_Field(self, node, env):
        ref = self.cp.ref(node)
        if isinstance(ref, EnumValueRef):
            return ref.index
        if isinstance(ref, ElemFieldRef):
            index = self.eval(node.obj, env)
            if index is None:
                raise EvalError("field of none", node)
            if index in self.data.broken.get(ref.kind, ()):
                raise BrokenElementRead(f"{ref.kind} '{self.data.ids[ref.kind][index]}'", node)
            return self.data.fields[ref.kind][ref.field][index]
        raise EvalError("this field is not known before the game starts", node)

    def visit_Index(self, node, env):
        ref = self.cp.ref(node)
        if isinstance(ref, ElemByIdRef):
            ids = self.data.ids.get(ref.kind, [])
            if ref.id not in ids:
                raise EvalError(f"no {ref.kind} '{ref.id}' in the map", node)
            return ids.index(ref.id)
        obj = self.eval(node.obj, env)
        key = self.eval(node.index, env)
        try:
            return obj[key]
        except (KeyError, IndexError, TypeError):
            raise EvalError(f"no entry for {key!r}", node) from None

    def visit_TupleLit(self, node, env):
        return tuple(self.concrete(self.eval(i, env), i) for i in node.items)

    def visit_ListLit(self, node, env):
        return [self.concrete(self.eval(i, env), i) for i in node.items]

    def visit_DictLit(self, node, env):
        return _table(
            (k, self.eval(k, env), self.concrete(self.eval(v, env), v)) for k, v in node.entries
        )

    def visit_RangeExpr(self, node, env):
        # Lazy: `size(0..10**12)` or `x in 0..10**12` never lists the values; a walk is charged.
        return range(self.eval(node.lo, env), self.eval(node.hi, env) + 1)

    def _iterate(self, fors, env):
        if not fors:
            yield env
            return
        first, rest = fors[0], fors[1:]
        for value in self._items(self.charge(self.eval(first.iterable, env), first.iterable)):
            inner = dict(env)
            inner[first.var] = value
            if first.where is None or self.eval(first.where, inner):
                yield from self._iterate(rest, inner)

    def _items(self, value):
        return sorted(value) if isinstance(value, set) else value

    def visit_ListComp(self, node, env):
        return [
            self.concrete(self.eval(node.elem, e), node.elem) for e in self._iterate(node.fors, env)
        ]

    def visit_DictComp(self, node, env):
        entries = (
            (node.key, self.eval(node.key, e), self.concrete(self.eval(node.value, e), node.value))
            for e in self._iterate(node.fors, env)
        )
        return _table(entries)

    def visit_GenCall(self, node, env):
        values = [self.eval(node.elem, e) for e in self._iterate(node.fors, env)]
        builtin = BUILTINS.get(node.func)
        if builtin is None or builtin.over is None or builtin.const is None:
            raise EvalError(f"{node.func}() is not known before the game starts", node)
        return self._builtin(builtin, [values], node)

    def visit_Call(self, node, env):
        ref = self.cp.ref(node)
        args = [self.eval(a, env) for a in node.args]
        name = node.func
        if isinstance(ref, FunctionRef):
            decl = self.cp.program.functions[name].active
            if decl.expr is None:
                raise EvalError(
                    f"{name}() has statements; only `= expression` functions run before the game",
                    node,
                )
            return self.eval(decl.expr, {p.name: v for p, v in zip(decl.params, args, strict=True)})
        if isinstance(ref, BuiltinRef) and name == "name":
            return self._name(node.args[0], args[0])
        if isinstance(ref, BuiltinRef):
            builtin = BUILTINS[name]
            if not builtin.lazy:  # a range argument is listed (and its walk charged)
                args = [self.concrete(arg, a) for arg, a in zip(args, node.args, strict=True)]
            if builtin.const is not None:
                return self._builtin(builtin, args, node)
        raise EvalError(f"{name}() cannot be computed before the game starts", node)

    def _name(self, node: ast.Expr, value) -> str:
        """name(x) of an element or enum value: its name (its index is what the evaluator holds)."""
        t = self.cp.type_of(node)
        t = getattr(t, "inner", t)  # an optional's value
        if isinstance(t, ElemT) and value is not None:
            return self.data.ids[t.kind][value]
        if isinstance(t, EnumT) and value is not None:
            return self.cp.enum_values[t.name][value]
        return str(value)

    def _builtin(self, builtin: Builtin, args: list, node: ast.Node):
        """A builtin's value at compile time, as its entry in compiler/builtins.py computes it."""
        try:
            return builtin.const(args)
        except ConstError as error:
            raise EvalError(str(error), node) from None

    def visit_BinOp(self, node, env):
        a, b = (
            self.concrete(self.eval(node.left, env), node.left),
            self.concrete(self.eval(node.right, env), node.right),
        )
        if node.op == "+":
            return a + b
        if node.op == "-":
            return a - b
        if node.op == "*":
            return a * b
        if b == 0:
            raise EvalError("division by zero", node)
        return a // b if node.op == "/" else a % b

    def visit_Neg(self, node, env):
        return -self.eval(node.operand, env)

    def visit_Compare(self, node, env):
        a, b = self.eval(node.left, env), self.eval(node.right, env)
        op = node.op
        if op not in ("in", "not in"):  # membership of a range needs no list
            a, b = self.concrete(a, node.left), self.concrete(b, node.right)
        if op == "in":
            return a in b
        if op == "not in":
            return a not in b
        if op == "==":
            return a == b
        if op == "!=":
            return a != b
        if a is None or b is None:
            raise EvalError("cannot order none", node)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]

    def visit_IsNone(self, node, env):
        value = self.eval(node.operand, env)
        return (value is not None) if node.negated else (value is None)

    def visit_Not(self, node, env):
        return not self.eval(node.operand, env)

    def visit_BoolOp(self, node, env):
        left = self.eval(node.left, env)
        if node.op == "and":
            return left and self.eval(node.right, env)
        return left or self.eval(node.right, env)

    def visit_CondExpr(self, node, env):
        return self.eval(node.then if self.eval(node.cond, env) else node.orelse, env)


def _table(entries) -> dict:
    """A table from (key node, key, value) triples; a key that cannot be one is an error at its node."""
    table = {}
    for node, key, value in entries:
        try:
            table[key] = value
        except TypeError:
            raise EvalError(
                "a table key must be a number, enum value, element or player", node
            ) from None
    return table


def _digits(value: int) -> str:
    """A short text for a large integer (never `str` of a huge one: Python limits its digits)."""
    if abs(value) < 10**30:
        return str(value)
    return f"{'-' if value < 0 else ''}about 2**{abs(value).bit_length() - 1}"
