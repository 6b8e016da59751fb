"""The named choices of a program (`choose x …`, `each p … choose x …`) with their types."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.checked import CheckedProgram
from compiler.types import OptT, Type
from dsl import ast
from dsl.visitor import walk


@dataclass(frozen=True)
class Choice:
    """One `choose` of a rule: its name, the type of the value chosen and the node."""

    name: str
    type: Type
    node: ast.Node


def choices(cp: CheckedProgram) -> list[Choice]:
    """Every typed choice of the procedures, actions and flow, in declaration order."""
    p = cp.program
    bodies = [v for t in (p.procedures, p.actions) for vs in t.values() for v in vs.versions]
    if p.flow is not None:
        bodies += p.flow.versions
    found = []
    for decl in bodies:
        for node in walk(decl):
            if isinstance(node, ast.Choose | ast.EachChoose) and id(node) in cp.types:
                t = cp.types[id(node)]
                if isinstance(node, ast.Choose) and node.optional:
                    t = OptT(t)
                found.append(Choice(node.name, t, node))
    return found
