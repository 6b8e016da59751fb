"""How many values things have while compiling: walks, ranges, finite types, constant integers.

One object over the checked program and its map data answers these for every stage: the step
weights (`weigh_steps`, compiler/cost.py) and lowering (domains, tables, unrolling) ask alike.
"""

from __future__ import annotations

from compiler.checked import CheckedProgram
from compiler.consteval import EvalError, Evaluator, MapData
from compiler.refs import ConstRef, EnumAllRef, KindAllRef
from compiler.types import BoolT, ElemT, EnumT, PlayerT, Type
from dsl import ast
from runtime.limits import FREE_WALK, MAX_DOMAIN


class Sizes:
    """Sizes and constant values known while compiling one checked program with its map."""

    def __init__(self, cp: CheckedProgram, data: MapData, evaluator: Evaluator):
        self.cp = cp
        self.p = cp.program
        self.data = data
        self.evaluator = evaluator

    def free_size(self, over: ast.Node) -> int | None:
        """The items a walk over `over` takes without a charge (None: charged at run time)."""
        if isinstance(over, ast.InDomain | ast.SubsetDomain):
            return None
        if isinstance(over, ast.TypeDomain):
            if isinstance(over.type, ast.RangeType):
                size = self.range_size(over.type.lo, over.type.hi, over.type.step)
                return size if size is not None and size <= MAX_DOMAIN else None
            t = self.cp.types[id(over.type)]  # the type the checker recorded
            return 2 if isinstance(t, BoolT) else self.finite_size(t)
        if isinstance(over, ast.RangeExpr):
            size = self.range_size(over.lo, over.hi)
            return size if size is not None and size <= FREE_WALK else None
        if isinstance(over, ast.PlayersLit):
            return self.finite_size(PlayerT())
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
        return 2 if isinstance(t, BoolT) else self.finite_size(t)

    def finite_size(self, t: Type) -> int:
        """The number of values of an enum, kind or player type (at most the players)."""
        if isinstance(t, EnumT):
            return len(self.cp.enum_values[t.name])
        if isinstance(t, ElemT):
            return self.data.count(t.kind)
        return self.p.players.hi if self.p.players is not None else FREE_WALK

    def small_constant(self, node: ast.Expr) -> bool:
        """True for a constant collection, or an entry of a constant table, of at most FREE_WALK items."""
        if isinstance(node, ast.Index):
            values = self.const_value(node.obj)
            values = (
                values.values()
                if isinstance(values, dict)
                else values
                if isinstance(values, list)
                else None
            )
            return values is not None and all(_small(v) for v in values)
        return _small(self.const_value(node))

    def const_value(self, node: ast.Expr):
        """The value of a const the node names (None otherwise, or when it cannot be computed)."""
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
            value = self.const_value(node)
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
        value = self.const_value(node)
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


def _small(value) -> bool:
    return isinstance(value, list | tuple | set | dict) and len(value) <= FREE_WALK
