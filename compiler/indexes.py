"""Maintained indexes: for a table of the state, the keys holding each value, kept up to date.

A game-wide field `owner: map edge -> player?` is read by guards such as
`[e for e in edge where owner[e] == p]` or `owner[e] is none`: a walk over every edge to
find the few with one value. For such a field the state keeps, beside the table, the sorted
keys holding each value (`S.i_owner[p]`, none's keys last), and every write to the table
moves its key from the old value's list to the new one's. A walk over the key kind whose
condition tests the field for one value then walks that list instead.

Only fields whose every use in the rules is `F[key]` (read or written) or a whole
assignment `F = …` are indexed: the table can then never change behind the index's back
(no alias of it is ever made). Saves, clones and sampled positions rebuild or copy the
index with the fields (`refresh_indexes`, `copy_fields`).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.checked import CheckedProgram
from compiler.refs import GlobalRef
from compiler.types import BoolT, ElemT, EnumT, MapT, OptT, PlayerT, Type
from dsl import ast
from dsl.visitor import children


@dataclass(frozen=True)
class Index:
    """The maintained index of one state table: its slot and how many values it tells apart."""

    field: str
    key: Type  # the kind or enum the table is over
    values: int  # value slots (0 … values-1; none is one more, the last)

    @property
    def slot(self) -> str:
        """The state slot holding the index."""
        return f"i_{self.field}"

    @property
    def table(self) -> str:
        """The state slot holding the table itself."""
        return f"S.g_{self.field}"


def find_indexes(cp: CheckedProgram, count_of) -> dict[str, Index]:
    """The state tables worth and safe to index: a finite key, few values, never aliased.

    `count_of(t)` is the number of values of a finite type (elements of a kind, …).
    """
    candidates = {}
    for name, t in cp.state_types.items():
        if not isinstance(t, MapT) or not isinstance(t.key, ElemT | EnumT):
            continue
        value = t.value.inner if isinstance(t.value, OptT) else t.value
        if isinstance(value, ElemT | EnumT | PlayerT | BoolT):
            candidates[name] = Index(name, t.key, count_of(value))
    if candidates:
        for node in _bodies(cp.program):
            _drop_aliased(cp, node, None, candidates)
    return candidates


def _bodies(program) -> list[ast.Node]:
    """Every declaration whose code may read or write the state (all versions)."""
    out: list[ast.Node] = []
    for table in (program.functions, program.procedures, program.actions):
        for versions in table.values():
            out += versions.versions
    for versions in (program.flow, program.score, program.rank):
        if versions is not None:
            out += versions.versions
    out += [*program.invariants.values(), *program.bots.values(), *program.scenarios.values()]
    out += [*program.state.values(), *program.per_player.values()]
    return out


def _drop_aliased(cp: CheckedProgram, node: ast.Node, parent, candidates: dict) -> None:
    """Remove from `candidates` every table used other than as `F[key]` or `F = …`."""
    stack = [(node, parent)]
    while stack:
        current, above = stack.pop()
        if (
            isinstance(current, ast.Name)
            and current.name in candidates
            and isinstance(cp.ref(current), GlobalRef)
        ):
            indexed = isinstance(above, ast.Index) and above.obj is current
            replaced = isinstance(above, ast.Assign) and above.target is current
            if not (indexed or (replaced and above.op == "=")):
                del candidates[current.name]
        stack.extend((child, current) for child in children(current))
