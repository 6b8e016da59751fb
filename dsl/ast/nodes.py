"""The AST's base classes: frozen dataclasses, each with a span that equality ignores."""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.source import Span


def span_field() -> Span:
    """A node's span: kept on the node, ignored by equality and repr."""
    return field(compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Node:
    """Base of every AST node."""


@dataclass(frozen=True, slots=True)
class Expr(Node):
    """Base of expressions."""


@dataclass(frozen=True, slots=True)
class Stmt(Node):
    """Base of statements."""


@dataclass(frozen=True, slots=True)
class Decl(Node):
    """Base of declarations."""


@dataclass(frozen=True, slots=True)
class TypeExpr(Node):
    """Base of written types."""
