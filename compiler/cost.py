"""Pass `cost`: how many steps each walk, loop and call may take, so no work escapes the budget.

A step is one iteration of a walk or loop, or one call of a function or procedure of the rules.
The generated code charges steps to the state's step budget (runtime/limits.STEP_BUDGET) at a
few places only: a walk whose size is not known when compiling is charged its length when it
starts, and a `while`/`loop` each iteration. Everything in between runs free. This pass bounds
that free work statically:

- every charge is weighted: a walk charges its length times the steps one iteration may take
  uncharged (its body, its `where`, the walks nested in it);
- a walk of a known small size stays free only while its whole cost is at most FREE_STEPS;
  beyond that it is charged like any other walk (`forced`);
- a function or procedure whose body may take more than FREE_STEPS free steps charges them
  when it is called (`entry`), so calls that fan out (f calls g twice, g calls h twice, …)
  cannot multiply unseen.

So the free work between two charges is at most FREE_STEPS per construct of the rule file,
and everything else is counted.
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.checked import CheckedProgram
from compiler.refs import FunctionRef, ProcedureRef
from compiler.visit import Visitor
from dsl import ast
from dsl.visitor import children
from runtime.limits import FREE_STEPS

# The size of a walk (over a collection expression or a choice domain) that runs without a
# charge (an enum, the players, a small kind, constant range or constant collection), or None
# when the generated code charges the walk its length at run time.
FreeSize = Callable[[ast.Node], int | None]


@dataclass
class StepCosts:
    """The weights of charged walks and loops, the forced charges, and the calls charged at entry.

    Walks are keyed by what the generated code walks: the iterable expression of a `for` or a
    comprehension clause, or the domain of a choice or action parameter; loops by their statement.
    """

    weights: dict[int, int] = field(default_factory=dict)
    forced: set[int] = field(default_factory=set)
    entry: dict[str, int] = field(default_factory=dict)
    bodies: dict[str, int] = field(default_factory=dict)

    def weight(self, node: ast.Node) -> int:
        """Steps one iteration of the walk or loop at `node` may take (at least 1)."""
        return self.weights.get(id(node), 1)

    def is_forced(self, node: ast.Node) -> bool:
        """True if the small walk at `node` costs too much to run free."""
        return id(node) in self.forced

    def entry_charge(self, name: str) -> int:
        """Steps a call of function or procedure `name` charges when it starts (0: none)."""
        return self.entry.get(name, 0)


def step_costs(cp: CheckedProgram, free_size: FreeSize) -> StepCosts:
    """Weigh every walk, loop and call of the checked program (callees before their callers)."""
    costs = StepCosts()
    program = cp.program
    tables = {**program.procedures, **program.functions}
    order = graphlib.TopologicalSorter(
        {name: sorted(cp.calls.get(name, ())) for name in sorted(tables)}
    ).static_order()  # the checker refused recursion, so the calls form a DAG
    for name in order:
        if name not in tables:
            continue
        total = 0
        for version in tables[name].versions:  # a `super` call runs the older versions
            total = _Weigher(cp, free_size, costs, total).decl(version)
        costs.bodies[name] = total
        if total > FREE_STEPS:
            costs.entry[name] = total
    weigher = _Weigher(cp, free_size, costs, 0)
    for versions in (program.flow, program.score, program.rank, program.estimate):
        for decl in versions.versions if versions is not None else ():
            weigher.decl(decl)
    for table in (program.actions,):
        for versions in table.values():
            for decl in versions.versions:
                weigher.decl(decl)
    for decl in (
        *program.invariants.values(),
        *program.bots.values(),
        *program.scenarios.values(),
        *program.metrics.values(),
    ):
        weigher.decl(decl)
    return costs


class _Weigher(Visitor):
    """Free steps of one declaration's nodes, recording weights and forced walks on the way."""

    def __init__(self, cp: CheckedProgram, free_size: FreeSize, costs: StepCosts, older: int):
        self.cp = cp
        self.free_size = free_size
        self.costs = costs
        self.older = older  # free steps of the previous version, for `super`

    def decl(self, node: ast.Node) -> int:
        """Free steps of a declaration; action parameters walk their domains nested."""
        if isinstance(node, ast.ActionDecl):
            inner = self.steps(node.when) + self.steps(node.body)
            return self.nested([(p.domain, p.where) for p in node.params], inner)
        return self.generic_visit(node)

    def steps(self, node: ast.Node | None) -> int:
        """Free steps of a node (0 for None)."""
        return 0 if node is None else self.visit(node)

    def generic_visit(self, node: ast.Node) -> int:
        """Free steps of a node that does nothing itself: the sum of its parts."""
        return sum(self.visit(child) for child in children(node))

    def walk(self, over: ast.Node, weight: int) -> int:
        """Free steps of a walk over `over` whose iterations take `weight` steps each."""
        self.costs.weights[id(over)] = weight
        size = self.free_size(over)
        if size is not None:
            if size * weight <= FREE_STEPS:
                return size * weight
            self.costs.forced.add(id(over))
        return 0

    def nested(self, clauses, inner: int) -> int:
        """Free steps of walks nested in order, `(iterable or domain, where)`, around `inner`."""
        rest = inner
        for over, where in reversed(clauses):
            weight = 1 + self.steps(where) + rest
            rest = self.steps(over) + self.walk(over, weight)
        return rest

    def visit_For(self, node: ast.For) -> int:
        return self.nested([(node.iterable, node.where)], self.steps(node.body))

    def _comprehension(self, fors, inner: int) -> int:
        return self.nested([(c.iterable, c.where) for c in fors], inner)

    def visit_ListComp(self, node: ast.ListComp) -> int:
        return self._comprehension(node.fors, self.steps(node.elem))

    def visit_GenCall(self, node: ast.GenCall) -> int:
        return self._comprehension(node.fors, self.steps(node.elem))

    def visit_DictComp(self, node: ast.DictComp) -> int:
        return self._comprehension(node.fors, self.steps(node.key) + self.steps(node.value))

    def visit_While(self, node: ast.While) -> int:
        self.costs.weights[id(node)] = 1 + self.steps(node.cond) + self.steps(node.body)
        return self.steps(node.cond)  # the last test, after the last charged iteration

    def visit_Loop(self, node: ast.Loop) -> int:
        self.costs.weights[id(node)] = 1 + self.steps(node.body)
        return 0

    def visit_Repeat(self, node: ast.Repeat) -> int:
        self.costs.weights[id(node)] = 1 + self.steps(node.body)
        return self.steps(node.count)

    def visit_If(self, node: ast.If) -> int:
        tests = sum(self.steps(cond) for cond, _ in node.branches)
        arms = [self.steps(body) for _, body in node.branches] + [self.steps(node.orelse)]
        return tests + max(arms)

    def visit_CondExpr(self, node: ast.CondExpr) -> int:
        return self.steps(node.cond) + max(self.steps(node.then), self.steps(node.orelse))

    def visit_Choose(self, node: ast.Choose) -> int:
        return self.steps(node.by) + self.nested([(node.domain, node.where)], 0)

    def visit_EachChoose(self, node: ast.EachChoose) -> int:
        return self.steps(node.players) + self.nested([(node.domain, node.where)], 0)

    def visit_Call(self, node: ast.Call) -> int:
        args = sum(self.steps(arg) for arg in node.args)
        ref = self.cp.ref(node)
        if isinstance(ref, FunctionRef | ProcedureRef):
            name = ref.name
            callee = 0 if name in self.costs.entry else self.costs.bodies.get(name, 0)
            return 1 + args + callee
        # A builtin walks a small collection argument in its own (fast) loop.
        walked = sum(self.free_size(arg) or 0 for arg in node.args)
        return args + walked

    def visit_SuperCall(self, node: ast.SuperCall) -> int:
        return 1 + sum(self.steps(arg) for arg in node.args) + self.older
