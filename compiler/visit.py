"""One dispatch scheme for every pass over the AST: `visit_<NodeClass>` methods.

The shape of jinja2's `visitor.NodeVisitor`, with the method lookup cached per visitor
class and node class (passes visit every node of every game, so lookups add up).
"""

from __future__ import annotations

from typing import Any, ClassVar

from dsl.ast import Node
from dsl.visitor import children

_MISSING = object()


class Visitor:
    """Calls `visit_<ClassName>(node, *args)` for a node, else `generic_visit(node, *args)`."""

    _rules: ClassVar[dict[type, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._rules = {}  # each visitor class caches its own rules

    def visit(self, node: Node, *args: Any) -> Any:
        """Dispatch on the node's class."""
        kind = type(node)
        rule = self._rules.get(kind, _MISSING)
        if rule is _MISSING:
            rule = getattr(type(self), f"visit_{kind.__name__}", None)
            self._rules[kind] = rule
        if rule is None:
            return self.generic_visit(node, *args)
        return rule(self, node, *args)

    def generic_visit(self, node: Node, *args: Any) -> Any:
        """Visit every child node (a node without a rule of its own)."""
        for child in children(node):
            self.visit(child, *args)
        return None


class StrictVisitor(Visitor):
    """A Visitor with a rule for every node class it meets (code generation, lowering)."""

    def generic_visit(self, node, *args: Any) -> Any:
        """A node without a rule is a compiler bug, never a user's mistake."""
        raise AssertionError(f"no rule for {type(node).__name__} in {type(self).__name__}")
