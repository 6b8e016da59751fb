"""Walking the AST: a node's children in field order, and every node below one."""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any

from dsl.ast import Node


def children(node: Node) -> list[Node]:
    """The direct child nodes of `node`, in field order."""
    out: list[Node] = []
    for name in _field_names(type(node)):
        _collect(getattr(node, name), out)
    return out


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def _collect(value: Any, out: list[Node]) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for item in value:
            _collect(item, out)


def walk(node: Node):
    """Every node below and including `node`, iteratively (no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))
