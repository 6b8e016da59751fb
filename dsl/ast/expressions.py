"""AST nodes of written types, choice domains and expressions (labels and templates too)."""

from __future__ import annotations

from dataclasses import dataclass

from dsl.ast.nodes import Expr, Node, TypeExpr, span_field
from dsl.source import Span

# ---------------------------------------------------------------- types


@dataclass(frozen=True, slots=True)
class NamedType(TypeExpr):
    """A type named by an identifier: int, bool, an enum, a map kind."""

    name: str
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class PlayerType(TypeExpr):
    """The player type."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class OptionalType(TypeExpr):
    """`T?`: a value of T or none."""

    inner: TypeExpr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class RangeType(TypeExpr):
    """`lo..hi [step s]`: the integers in a range."""

    lo: Expr
    hi: Expr
    step: Expr | None
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class CollectionType(TypeExpr):
    """`list of T`, `pile of T`, `bag of T`, `set of T`."""

    kind: str
    item: TypeExpr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class MapType(TypeExpr):
    """`map K -> V`."""

    key: TypeExpr
    value: TypeExpr
    span: Span = span_field()


# ---------------------------------------------------------------- domains of choices


@dataclass(frozen=True, slots=True)
class TypeDomain(Node):
    """Choose any value of a finite type."""

    type: TypeExpr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class InDomain(Node):
    """Choose an item of a collection."""

    collection: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class SubsetDomain(Node):
    """Choose a subset of a collection, optionally with a size range."""

    collection: Expr
    lo: Expr | None
    hi: Expr | None
    span: Span = span_field()


Domain = TypeDomain | InDomain | SubsetDomain

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class IntLit(Expr):
    """An integer literal."""

    value: int
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class StrLit(Expr):
    """A string literal (already unescaped)."""

    value: str
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class BoolLit(Expr):
    """`true` or `false`."""

    value: bool
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class NoneLit(Expr):
    """`none`."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class PlayersLit(Expr):
    """`players`: every player in seat order."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class MeLit(Expr):
    """`me`: the player taking the current action."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A bare identifier."""

    name: str
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Field(Expr):
    """`obj.name`."""

    obj: Expr
    name: str
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Index(Expr):
    """`obj[index]`."""

    obj: Expr
    index: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """`func(args…)` of a function, procedure or library builtin."""

    func: str
    args: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class CompFor(Node):
    """`for var in iterable [where cond]` inside a comprehension."""

    var: str
    iterable: Expr
    where: Expr | None
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class GenCall(Expr):
    """`func(elem for x in C where …)`: an aggregate over a comprehension."""

    func: str
    elem: Expr
    fors: tuple[CompFor, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class SuperCall(Expr):
    """`super(args…)`: the overridden definition."""

    args: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class BinOp(Expr):
    """Arithmetic: + - * / %."""

    op: str
    left: Expr
    right: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    """Comparison: == != < <= > >= in, not in."""

    op: str
    left: Expr
    right: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class IsNone(Expr):
    """`x is none` / `x is not none`."""

    operand: Expr
    negated: bool
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Not(Expr):
    """`not x`."""

    operand: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    """`a and b`, `a or b`."""

    op: str
    left: Expr
    right: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Neg(Expr):
    """`-x`."""

    operand: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class CondExpr(Expr):
    """`(a if cond else b)`."""

    cond: Expr
    then: Expr
    orelse: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class TupleLit(Expr):
    """`(a, b, …)`."""

    items: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ListLit(Expr):
    """`[a, b, …]`."""

    items: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ListComp(Expr):
    """`[elem for x in C where …]`."""

    elem: Expr
    fors: tuple[CompFor, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class DictLit(Expr):
    """`{k: v, …}`: a table."""

    entries: tuple[tuple[Expr, Expr], ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class DictComp(Expr):
    """`{key: value for x in C where …}`: a table built by a comprehension."""

    key: Expr
    value: Expr
    fors: tuple[CompFor, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Template(Node):
    """Text as a person reads it: `texts[0] {exprs[0]} texts[1] …` (one more text than exprs)."""

    texts: tuple[str, ...]
    exprs: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class LabelIf(Node):
    """`("…" if cond else "…")`: one of two texts, as a condition says."""

    cond: Expr
    then: Template | LabelIf
    orelse: Template | LabelIf
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Label(Node):
    """`label "…"` (or a `(… if … else …)` of texts): how an element, action or choice reads."""

    text: Template | LabelIf
    span: Span = span_field()

    def templates(self) -> list[Template]:
        """Every text the label may show."""
        return [n for n in _label_parts(self.text) if isinstance(n, Template)]

    def conditions(self) -> list[Expr]:
        """Every condition that picks between its texts."""
        return [n.cond for n in _label_parts(self.text) if isinstance(n, LabelIf)]


def _label_parts(node: Template | LabelIf) -> list[Template | LabelIf]:
    if isinstance(node, Template):
        return [node]
    return [node, *_label_parts(node.then), *_label_parts(node.orelse)]


@dataclass(frozen=True, slots=True)
class RangeExpr(Expr):
    """`lo..hi`: the integers from lo to hi inclusive."""

    lo: Expr
    hi: Expr
    span: Span = span_field()
