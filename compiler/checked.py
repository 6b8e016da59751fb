"""The output of the `check` stage: the merged program plus what the check passes learned."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.draw_rules import CheckedDraw
from compiler.program import Program
from compiler.refs import Ref
from compiler.types import ANY, Subtyping, Type
from dsl import ast


@dataclass
class Signature:
    """Parameter types and result of a function, procedure or action."""

    params: list[tuple[str, Type]]
    ret: Type | None


@dataclass
class CheckedProgram:
    """The program plus everything the checker learned about it.

    Side tables are keyed by node identity; the AST itself is never changed. Which pass
    fills which table is listed in `compiler/check/__init__.py`.
    """

    program: Program
    sub: Subtyping
    global_names: dict[str, str] = field(default_factory=dict)
    enum_values: dict[str, list[str]] = field(default_factory=dict)
    value_enum: dict[str, tuple[str, int]] = field(default_factory=dict)
    kind_fields: dict[str, list[tuple[str, Type]]] = field(default_factory=dict)
    state_types: dict[str, Type] = field(default_factory=dict)
    player_types: dict[str, Type] = field(default_factory=dict)
    const_types: dict[str, Type] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    types: dict[int, Type] = field(default_factory=dict)
    refs: dict[int, Ref] = field(default_factory=dict)
    suspends: set[str] = field(default_factory=set)
    calls: dict[str, set[str]] = field(default_factory=dict)
    draws: list[CheckedDraw] = field(default_factory=list)
    label_kinds: list[str] = field(default_factory=list)  # labelled kinds, in computing order
    choice_labels: dict[str, tuple[ast.Label, Type]] = field(
        default_factory=dict
    )  # name -> label, value type
    private_choices: set[int] = field(default_factory=set)  # choices of owner-only or hidden data

    @classmethod
    def start(cls, program: Program) -> CheckedProgram:
        """An empty result for a program, before any pass ran."""
        bases = {name: decl.base for name, decl in program.enums.items()}
        return cls(program, Subtyping(bases))

    def type_of(self, node: ast.Expr) -> Type:
        """The checked type of an expression."""
        return self.types.get(id(node), ANY)

    def ref(self, node: ast.Node) -> Ref | None:
        """What a name, field, index or call refers to (None for anything else)."""
        return self.refs.get(id(node))
