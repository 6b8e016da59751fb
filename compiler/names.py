"""What a written IR expression names: the module-level names it reads (the runtime aliases
whose imports a module needs), the frame locals it reads or writes and whether it reads the
last call's result (`F.ret`).

An expression lowered as a node (compiler/expr.py) is visited; one still lowered as text has
its names from Python's own parser (`ast`), never from a regular expression.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from compiler import expr as e
from compiler.pyexpr import PyExpr
from compiler.sources import location_name


@dataclass(frozen=True, slots=True)
class Names:
    """The names one expression uses."""

    names: frozenset[
        str
    ]  # module-level and Python names read (`_l`, `S`, `L`, `len`, `_L0_5_3`, …)
    frame_locals: tuple[str, ...]  # `L['x']`, in order
    reads_ret: bool  # `F.ret`
    uses_frame: bool  # `F` other than in `F.ret`


NONE = Names(frozenset(), (), False, False)


def names_of(x: PyExpr | None) -> Names:
    """The names `x` uses (nothing for None)."""
    if x is None:
        return NONE
    if x.node is not None:
        return _of_node(x.node)
    return _of_text(x.code)


@lru_cache(maxsize=4096)
def _of_node(node: e.Expr) -> Names:
    names: set[str] = set()
    frame_locals: list[str] = []
    reads_ret = False
    frames = rets = 0
    for sub in e.walk(node):
        if isinstance(sub, e.Name):
            names.add(sub.id)
            frames += sub.id == "F"
        elif isinstance(sub, e.Helper):
            names.add(sub.module)
        elif isinstance(sub, e.Loc):
            names.add(location_name(sub.source, sub.line, sub.col))
        elif isinstance(sub, e.FrameLocal):
            names.add("L")
            if sub.name not in frame_locals:
                frame_locals.append(sub.name)
        elif isinstance(sub, e.Attr) and sub.obj == e.Name("F") and sub.name == "ret":
            reads_ret = True
            rets += 1
    return Names(frozenset(names), tuple(frame_locals), reads_ret, frames > rets)


@lru_cache(maxsize=4096)
def _of_text(code: str) -> Names:
    names: set[str] = set()
    frame_locals: list[tuple[int, int, str]] = []  # (line, column, name): in written order
    reads_ret = False
    frames = rets = 0
    for sub in ast.walk(ast.parse(code.strip(), mode="eval")):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
            frames += sub.id == "F"
        elif (
            isinstance(sub, ast.Subscript)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "L"
            and isinstance(sub.slice, ast.Constant)
            and isinstance(sub.slice.value, str)
        ):
            frame_locals.append((sub.lineno, sub.col_offset, sub.slice.value))
        elif (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "F"
            and sub.attr == "ret"
        ):
            reads_ret = True
            rets += 1
    ordered = list(dict.fromkeys(name for _, _, name in sorted(frame_locals)))
    return Names(frozenset(names), tuple(ordered), reads_ret, frames > rets)
