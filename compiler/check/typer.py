"""The typing pass's core: scopes, written types, choice domains and the dispatch of rules.

`Typer` (in `compiler/check/types.py`) combines this base with the statement rules
(`statements.py`) and the expression rules (`expressions.py`); all three share one
`CheckedProgram` whose `types` and `refs` tables they fill.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.builtin_rules import item_type
from compiler.checked import CheckedProgram
from compiler.refs import GlobalRef, LocalRef, PlayerFieldRef
from compiler.types import (
    ANY,
    BOOL,
    BUILDING,
    FRAME,
    INT,
    PLACEMENT,
    PLAYER,
    SHAPE,
    STR,
    AnyT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    IntT,
    MapT,
    OptT,
    Type,
    is_finite,
)
from compiler.visit import Visitor
from dsl import ast
from dsl.diagnostics import (
    ASSIGN,
    NOT_FINITE,
    PURITY,
    TYPE,
    UNDEFINED_NAME,
    Diagnostics,
    did_you_mean,
)

# The types every rule file may name (besides `player`, enums, map kinds and collections).
BUILTIN_TYPES: dict[str, Type] = {
    "int": INT,
    "bool": BOOL,
    "text": STR,
    "shape": SHAPE,
    "frame": FRAME,
    "building": BUILDING,
    "placement": PLACEMENT,
}


@dataclass
class Local:
    """A local variable: its type, whether it may be assigned, and the node that binds it."""

    type: Type
    mutable: bool = True
    site: ast.Node | None = None  # a parameter, `let`, loop, choice or comprehension


@dataclass
class Scope:
    """Nested local scopes of one body, plus what the body may do."""

    frames: list[dict[str, Local]]
    pure: bool = False  # a function, guard or constant: reads only
    me: bool = False  # `me` (the deciding player) is known
    returns: Type | None = None

    def lookup(self, name: str) -> Local | None:
        """The innermost local of that name."""
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def child(self) -> Scope:
        """A nested block scope sharing the flags."""
        return Scope(self.frames + [{}], self.pure, self.me, self.returns)

    def with_pure(self) -> Scope:
        """This scope, now read-only (for guards)."""
        self.pure = True
        return self


class TyperBase(Visitor):
    """What the statement and expression rules share: the result, errors, types and domains."""

    def __init__(self, cp: CheckedProgram, diags: Diagnostics):
        self.cp = cp
        self.p = cp.program
        self.sub = cp.sub
        self.diags = diags
        self.global_names = cp.global_names
        self.current_decl = ""  # the declaration being checked (for `super` and const cycles)

    def error(self, code, message: str, node: ast.Node, *notes: str) -> None:
        """Record an error at a node."""
        self.diags.error(code, message, node.span, *notes)

    def suggest(self, name: str, candidates) -> tuple[str, ...]:
        """A 'did you mean' note for a misspelt name, if one candidate is close."""
        return did_you_mean(name, candidates)

    def generic_visit(self, node: ast.Node, *args):
        """Every statement and expression class has a typing rule; a missing one is a bug."""
        raise TypeError(f"no typing rule for {type(node).__name__}")

    def block(self, block: ast.Block, scope: Scope) -> None:
        """Check a block in a new nested scope."""
        inner = scope.child()
        for stmt in block.stmts:
            self.visit(stmt, inner)

    def expr(self, node: ast.Expr, scope: Scope, statement: bool = False) -> Type:
        """Check an expression, record and return its type (`statement`: a call standing alone)."""
        if statement and isinstance(node, ast.Call):
            t = self.visit(node, scope, True)
        else:
            t = self.visit(node, scope)
        self.cp.types[id(node)] = t
        return t

    def mutable_root(self, node: ast.Expr, scope: Scope) -> None:
        """Report changing what cannot change: constants, map data, or the state in a function."""
        ref = self.cp.ref(node)
        if isinstance(ref, GlobalRef | PlayerFieldRef):
            if scope.pure:
                self.error(PURITY, "a function or guard may not change the game state", node)
        elif isinstance(ref, LocalRef):
            pass
        elif isinstance(node, ast.Index):
            self.mutable_root(node.obj, scope)
        else:
            self.error(ASSIGN, "this cannot be changed (constants and map data are fixed)", node)

    def type_expr(self, node: ast.TypeExpr, data: bool = False) -> Type:
        """The checker type a written type denotes (recorded for the code generator)."""
        t = self._type_expr(node, data)
        self.cp.types[id(node)] = t
        return t

    def _type_expr(self, node: ast.TypeExpr, data: bool) -> Type:
        if isinstance(node, ast.NamedType):
            builtin = BUILTIN_TYPES.get(node.name)
            if builtin is not None:
                return builtin
            if node.name in self.p.enums:
                return EnumT(node.name)
            if node.name in self.p.kinds:
                return ElemT(node.name)
            self.error(
                UNDEFINED_NAME,
                f"unknown type '{node.name}'",
                node,
                *self.suggest(node.name, [*BUILTIN_TYPES, "player", *self.p.enums, *self.p.kinds]),
                "types are int, bool, text, player, shape, frame, building, placement, enums, "
                "map kinds and collections of them",
            )
            return ANY
        if isinstance(node, ast.PlayerType):
            return PLAYER
        if isinstance(node, ast.OptionalType):
            return OptT(self.type_expr(node.inner, data))
        if isinstance(node, ast.RangeType):
            scope = Scope([{}], pure=True)
            for bound in (node.lo, node.hi, node.step):
                if bound is not None:
                    self.expect_assignable(self.expr(bound, scope), INT, bound, "range bound")
            return INT
        if isinstance(node, ast.CollectionType):
            return CollT(node.kind, self.type_expr(node.item, data))
        if isinstance(node, ast.MapType):
            key = self.type_expr(node.key, data)
            if not is_finite(key) and not isinstance(key, IntT | AnyT):
                self.error(
                    TYPE,
                    f"map keys must be enum values, map elements, players or numbers, not {key}",
                    node.key,
                )
            return MapT(key, self.type_expr(node.value, data))
        return ANY

    def domain(self, node: ast.Node, scope: Scope) -> Type:
        """The type of a choice's values; the domain must be finite."""
        pure = scope.child().with_pure()
        if isinstance(node, ast.TypeDomain):
            if isinstance(node.type, ast.RangeType):
                for bound in (node.type.lo, node.type.hi, node.type.step):
                    if bound is not None:
                        self.expect_assignable(self.expr(bound, pure), INT, bound, "range bound")
                return INT
            t = self.type_expr(node.type)
            if not is_finite(t) and not isinstance(t, AnyT):
                self.error(
                    NOT_FINITE,
                    f"cannot choose among all values of {t}: the choice must be finite",
                    node,
                    "choose from an enum, a map kind, players, bool, a range lo..hi, "
                    "`in` a collection or a `subset of` one",
                )
            return t
        if isinstance(node, ast.InDomain):
            t = self.expr(node.collection, pure)
            item = item_type(t)
            if item is None:
                self.error(NOT_FINITE, f"cannot choose from {t}: not a collection", node)
                return ANY
            return item
        if isinstance(node, ast.SubsetDomain):
            t = self.expr(node.collection, pure)
            item = item_type(t)
            if item is None:
                self.error(NOT_FINITE, f"cannot choose a subset of {t}: not a collection", node)
                return ANY
            for bound in (node.lo, node.hi):
                if bound is not None:
                    self.expect_assignable(self.expr(bound, pure), INT, bound, "size bound")
            return CollT("list", item)
        return ANY

    def expect_assignable(self, src: Type, dst: Type | None, node: ast.Node, what: str) -> None:
        """Report a type error unless src may be stored as dst."""
        if dst is None:
            return
        if not self.sub.assignable(src, dst) and not self._converts(src, dst):
            self.error(TYPE, f"{what} has type {src}, but {dst} is expected", node)

    def _converts(self, src: Type, dst: Type) -> bool:
        # A list literal or comprehension may fill a bag or a set of the same items.
        return (
            isinstance(src, CollT)
            and isinstance(dst, CollT)
            and src.kind == "list"
            and dst.kind in ("bag", "set")
            and self.sub.assignable(src.item, dst.item)
        )

    def condition(self, node: ast.Expr, scope: Scope) -> None:
        """Check an expression that must be a truth value."""
        t = self.expr(node, scope)
        if not isinstance(t, BoolT | AnyT):
            self.error(TYPE, f"a condition must be a truth value, not {t}", node)
