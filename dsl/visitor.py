"""NodeVisitor: `visit_<Class>` dispatch with a generic walk over dataclass fields."""

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


class NodeVisitor:
    """Walks a tree calling `visit_<ClassName>` where defined, else visiting children."""

    def visit(self, node: Node, *args: Any) -> Any:
        """Dispatch on the node's class name."""
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is not None:
            return method(node, *args)
        return self.generic_visit(node, *args)

    def generic_visit(self, node: Node, *args: Any) -> Any:
        """Visit every child node."""
        for child in children(node):
            self.visit(child, *args)
        return None


def walk(node: Node):
    """Every node below and including `node`, iteratively (no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))
