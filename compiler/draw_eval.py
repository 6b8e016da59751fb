"""Drawings of the map, computed before the game from map data and constants.

`map_items` evaluates every drawing that reads no game state with the constant evaluator,
element by element, so a map whose data or checks fail still draws everything it can; each
element that cannot be drawn becomes a `DrawProblem` (a diagnostic when compiling, a mark
on the picture in `metro render`).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.consteval import BrokenElementRead, EvalError, Evaluator, MapData
from compiler.draw_rules import CheckedDraw, item_problems
from dsl import ast
from dsl.diagnostics import TYPE, Diagnostics
from dsl.source import Span


@dataclass
class DrawProblem:
    """A drawing that cannot draw one of its items: where, which element, and why."""

    draw: CheckedDraw
    element: int | None  # index of the first binding's element, if it is one
    message: str
    span: Span


def map_items(
    drawings: list[CheckedDraw], data: MapData, evaluator: Evaluator
) -> tuple[dict[str, list[tuple]], list[DrawProblem]]:
    """The items of every map drawing (by drawing name), and the problems met."""
    items: dict[str, list[tuple]] = {}
    problems: list[DrawProblem] = []
    for draw in drawings:
        if not draw.dynamic:
            items[draw.name] = _evaluate(draw, data, evaluator, problems)
    return items, problems


def report(problems: list[DrawProblem], diags: Diagnostics) -> None:
    """Record each problem as an error diagnostic."""
    for problem in problems:
        diags.error(TYPE, problem.message, problem.span, f"in drawing '{problem.draw.name}'")


def _evaluate(
    draw: CheckedDraw, data: MapData, evaluator: Evaluator, problems: list[DrawProblem]
) -> list[tuple]:
    bindings = draw.decl.bindings
    if not bindings:
        return _checked(draw, None, lambda: evaluator.eval(draw.rest, {}), problems)
    first = bindings[0]
    try:
        values = evaluator.concrete(evaluator.eval(first.iterable, {}), first.iterable)
    except EvalError as error:
        problems.append(DrawProblem(draw, None, str(error), error.node.span))
        return []
    out: list[tuple] = []
    for value in sorted(values) if isinstance(values, set) else values:
        env = {first.var: value}
        element = value if draw.element is not None else None

        def compute(env=env, first=first):
            if first.where is not None and not evaluator.eval(first.where, env):
                return []
            return evaluator.eval(draw.rest, env)

        out += _checked(draw, element, compute, problems, data)
    return out


def _checked(draw, element, compute, problems, data: MapData | None = None) -> list[tuple]:
    """The items `compute` gives, without those with values that cannot be drawn."""
    known = data is not None and element is not None
    where = f"{draw.element} '{data.ids[draw.element][element]}': " if known else ""
    try:
        items = compute()
    except BrokenElementRead:  # an element whose map data has errors (reported before)
        message = f"{where}cannot be drawn: a value it needs is missing from the map"
        problems.append(DrawProblem(draw, element, message, draw.decl.span))
        return []
    except EvalError as error:
        problems.append(DrawProblem(draw, element, f"{where}{error}", error.node.span))
        return []
    except TypeError:  # map data that failed to load is none, and none has no fields
        message = f"{where}cannot be drawn: a value it needs is missing from the map"
        problems.append(DrawProblem(draw, element, message, draw.decl.span))
        return []
    kept = []
    for item in items:
        found = item_problems(draw, item)
        for part, why in found:
            span = _part_span(draw, part)
            problems.append(DrawProblem(draw, element, f"{where}'{part}': {why}", span))
        if not found:
            kept.append(item)
    return kept


def _part_span(draw: CheckedDraw, part: str) -> Span:
    elem = draw.whole.elem if isinstance(draw.whole, ast.ListComp) else draw.whole.items[0]
    return elem.items[draw.parts.index(part)].span
