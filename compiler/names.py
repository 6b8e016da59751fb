"""What a written IR expression names: the module-level names it reads (the runtime aliases
whose imports a module needs), the frame locals it reads or writes and whether it reads the
last call's result (`F.ret`), read from its node (compiler/expr.py).
"""

from __future__ import annotations

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
    return NONE if x is None else _of_node(x.node)


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
        elif isinstance(sub, e.StateField):
            names.add("S")
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
