"""The vocabulary of `draw` declarations: shapes, properties, and a checked drawing.

A drawing is a list of items, one per combination of its bindings; each item is a tuple
(the first binding's value, the shape's arguments, the properties), in `CheckedDraw.parts`
order. The same tuples come from the constant evaluator (drawings of the map) and from
generated code (drawings of the game state), so one renderer reads both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compiler.types import Type
from dsl import ast

# The arguments of each shape, by the word that introduces them.
SHAPE_ARGS: dict[str, tuple[str, ...]] = {
    "point": ("at",),
    "line": ("from", "to"),
    "along": ("along",),  # a line over the drawn line (or path) of a map element
    "path": ("through",),
    "rect": ("at",),
    "box": ("around",),
    "text": ("text", "at"),
}

# Arguments that are one place ((x, y) or a drawn element) and that are lists of places.
PLACE_ARGS = frozenset({"at", "from", "to"})
PLACES_ARGS = frozenset({"through", "around"})

# Which shapes each property applies to ("restyle": a drawing without a shape).
PROP_SHAPES: dict[str, frozenset[str]] = {
    "colour": frozenset({"point", "line", "along", "path", "rect", "box", "text", "restyle"}),
    "outline": frozenset({"point", "line", "along", "rect", "box", "restyle"}),
    "width": frozenset({"point", "line", "along", "path", "rect", "box", "restyle"}),
    "size": frozenset({"point", "rect", "text"}),
    "dashes": frozenset({"line", "along", "path"}),
    "mark": frozenset({"point"}),
    "label": frozenset({"point", "line", "along", "path", "rect", "box"}),
    "title": frozenset({"point", "line", "along", "path", "rect", "box", "text"}),
    "on": frozenset({"point", "line", "path", "rect", "text"}),
    "legend": frozenset({"point", "line", "along", "path", "rect", "box"}),
    "names": frozenset({"point", "line", "along", "path", "rect", "box", "text"}),
    "chooses": frozenset({"point", "line", "along", "path", "rect", "box", "text"}),
}

MARKS = ("circle", "square", "triangle", "diamond")

# A colour is `#rgb`, `#rrggbb`, a CSS colour name or `none`: never anything that could
# escape an SVG attribute or a CSS rule.
_COLOUR = re.compile(r"#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-z]{3,20}")

# Coordinates and sizes stay within this bound (map units), so a picture stays drawable.
MAX_COORDINATE = 1_000_000


def colour_problem(value: object) -> str | None:
    """Why a value is not a colour, or None if it is one."""
    if isinstance(value, str) and _COLOUR.fullmatch(value):
        return None
    return f"{value!r} is not a colour (#rgb, #rrggbb or a CSS colour name such as 'red')"


def mark_problem(value: object) -> str | None:
    """Why a value is not a mark, or None if it is one."""
    if value in MARKS:
        return None
    return f"{value!r} is not a mark ({', '.join(MARKS)})"


def item_problems(draw: CheckedDraw, item: tuple) -> list[tuple[str, str]]:
    """(part, why) for each value of an item that cannot be drawn."""
    problems = []
    for name, value in zip(draw.parts, item, strict=True):
        problem = None
        if name in ("colour", "outline"):
            problem = colour_problem(value)
        elif name == "mark":
            problem = mark_problem(value)
        elif name in ("width", "size", "dashes"):
            numbers = value if isinstance(value, tuple) else (value,)
            if any(not 0 <= n <= MAX_COORDINATE for n in numbers):
                problem = f"{value!r} is not between 0 and {MAX_COORDINATE:,}"
        elif name in PLACE_ARGS:
            problem = _place_problem(value)
        elif name in PLACES_ARGS:
            problem = next(filter(None, (_place_problem(v) for v in value)), None)
        if problem is not None:
            problems.append((name, problem))
    return problems


def _place_problem(value: object) -> str | None:
    # A place that is none is no problem: the item is not drawn.
    if isinstance(value, tuple) and any(abs(n) > MAX_COORDINATE for n in value):
        return f"{value!r} is farther than {MAX_COORDINATE:,} from (0, 0)"
    return None


@dataclass
class CheckedDraw:
    """A `draw` declaration after checking: what its items hold and how they are computed."""

    decl: ast.DrawDecl
    shape: str  # a SHAPE_ARGS key, or "restyle"
    parts: tuple[str, ...]  # "item", the shape's arguments, then the properties
    types: tuple[Type, ...]  # the checked type of each part
    element: str | None  # the map kind of the first binding's values, if they are elements
    dynamic: bool  # reads the game state (drawn per position), else drawn from the map alone
    per_viewer: bool  # reads `me`: drawn only in a player's view
    whole: ast.Expr  # the list of item tuples (typed; generated code computes it)
    rest: ast.Expr  # the same with the first binding's variable given (the evaluator's)

    @property
    def name(self) -> str:
        """The drawing's name."""
        return self.decl.name

    @property
    def chooses(self) -> bool:
        """Whether each shape stands for a choice of the viewer's (`chooses`): drawn only on a
        board where the viewer is choosing, and only for the choices offered there."""
        return "chooses" in self.parts

    @property
    def named_part(self) -> str | None:
        """The part holding what each shape stands for: `names`, else the first binding's value."""
        if "names" in self.parts:
            return "names"
        if self.chooses:
            return None
        return "item" if self.decl.bindings and self.shape != "restyle" else None

    def part(self, item: tuple, name: str, default=None):
        """The value of one part of an item (`default` when the drawing does not set it)."""
        try:
            return item[self.parts.index(name)]
        except ValueError:
            return default
