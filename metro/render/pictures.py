"""A game's pictures: its map (with the map's findings marked) and any position of it.

`open_pictures` checks the rules, reads the map without stopping at its errors, runs the
map's checks and computes the drawings of the map; `map_scene` pictures the map alone and
`position_scene` a position as one player (or nobody: the public view) sees it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from compiler.checked import CheckedProgram
from compiler.consteval import Evaluator, MapData
from compiler.draw_eval import DrawProblem, map_items
from compiler.draw_rules import CheckedDraw, item_problems
from compiler.driver import CompileContext, run_stages
from compiler.lower_labels import element_labels, value_words
from compiler.maps import build_map_data, run_checks
from compiler.types import ElemT
from dsl.diagnostics import Diagnostic, Diagnostics, sorted_diagnostics
from dsl.source import Span
from metro.render.layout import Layout
from metro.render.marks import ActionNames, marked_items
from metro.render.model import Finding, Scene, Style
from metro.render.texts import Names
from runtime.errors import MetroRuntimeError, RuleError
from runtime.machine import Game, State

MAX_ITEMS = 100_000  # shapes in one picture


@dataclass
class Pictures:
    """Everything needed to picture a game: its drawings, laid out map, names and findings."""

    title: str  # the game's name, with the expansions and variants applied
    checked: CheckedProgram
    names: Names
    layout: Layout
    findings: list[Finding] = field(default_factory=list)
    maps: tuple[str, ...] = ()  # the names of the map files drawn (`map "Name" for …`)
    element_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> ids, by index

    @cached_property
    def action_names(self) -> ActionNames:
        """What the game's actions name, as the keys its shapes stand for."""
        return ActionNames(self.names)

    @property
    def draws(self) -> list[CheckedDraw]:
        """The game's drawings, in the order they are painted."""
        return self.checked.draws

    @property
    def label_size(self) -> float:
        """The height of labels, in map units."""
        return self.layout.label_size


def open_pictures(path: str, expansions=(), variants=(), map_path: str | None = None) -> Pictures:
    """A game's pictures; CompileError if its rules (not its map) have errors."""
    ctx = run_stages(CompileContext(path, tuple(expansions), tuple(variants), map_path), "check")
    cp = ctx.checked
    found = Diagnostics()
    data = build_map_data(cp, found)
    evaluator = Evaluator(cp, data)
    run_checks(cp, data, evaluator, found)  # also past data errors, as `metro check` does
    items, problems = map_items(cp.draws, data, evaluator)
    element_ids = {kind: tuple(ids) for kind, ids in data.ids.items()}
    enum_ids = {enum: tuple(values) for enum, values in cp.enum_values.items()}
    texts = _element_texts(cp, data, evaluator, found)
    names = Names(texts, _enum_texts(cp), element_ids, enum_ids)
    layout = Layout(cp.draws, names, items)
    program = ctx.program
    title = program.game_name
    if program.applied:
        title += " with " + " and ".join(program.applied)
    findings = _findings(cp, sorted_diagnostics(found.items), problems, data, layout)
    maps = tuple(tree.name for tree in program.map_files)
    return Pictures(title, cp, names, layout, findings, maps, element_ids)


def _element_texts(
    cp: CheckedProgram, data: MapData, evaluator: Evaluator, found: Diagnostics
) -> dict[str, list[str]]:
    """How each element reads: its kind's label, or its id (also where the map is broken)."""
    labels: dict[str, tuple[str, ...]] = {}
    if not found.has_errors:
        failed = Diagnostics()
        labels = element_labels(cp, data, evaluator, failed)
        if failed.has_errors:
            labels = {}
    return {kind: list(labels.get(kind, ids)) for kind, ids in data.ids.items()}


def _enum_texts(cp: CheckedProgram) -> dict[str, list[str]]:
    """How each enum value reads: its declared words, else its name with spaces."""
    return {enum: list(value_words(cp, enum)) for enum in cp.enum_values}


def map_scene(pictures: Pictures) -> Scene:
    """The map alone, with every finding of its checks marked."""
    layers = list(pictures.layout.map_layers)
    return Scene(f"{pictures.title}: map", layers, findings=pictures.findings)


def position_scene(
    pictures: Pictures,
    game: Game,
    state: State,
    viewer: int | None,
    caption: list[str] = (),
    named: frozenset[str] = frozenset(),
    choices: list[frozenset[str]] | None = None,
) -> Scene:
    """A position as `viewer` sees it (None: what everyone sees), every shape standing for
    something `named` ringed (what the last moves named: metro/render/marks.py).

    A drawing of the viewer's choices (`chooses`) is drawn only when `choices` gives them
    (each choice's arguments as `ActionNames.choice_keys` gives them: the board of a seat
    that is to decide), and only its shapes standing for one of them."""
    scene = Scene(pictures.title, [], caption=list(caption))
    by_name = {layer.name: layer for layer in pictures.layout.map_layers}
    count = 0
    for draw in pictures.draws:
        if draw.name in by_name:
            scene.layers.append(by_name[draw.name])
            continue
        if not draw.dynamic or (draw.chooses and not choices):
            continue
        items = state_items(game, state, draw, viewer)
        count += len(items)
        if count > MAX_ITEMS:
            raise RuleError(
                f"the picture has more than {MAX_ITEMS:,} shapes", draw.decl.span.file, 0
            )
        if draw.shape == "restyle":
            for number, changes in pictures.layout.restyles(draw, items).items():
                scene.restyled[number] = scene.restyled.get(number, Style()).over(changes)
        else:
            layer = pictures.layout.layer(draw, items)
            if draw.chooses:
                layer.items = [item for item in layer.items if offered(item.chooses, choices)]
            scene.layers.append(layer)
    scene.marked = marked_items(scene.layers, named)
    return scene


def offered(keys: tuple[str, ...], choices: list[frozenset[str]]) -> bool:
    """Whether one of the choices has every argument a shape's `chooses` names."""
    wanted = set(keys)
    return bool(wanted) and any(wanted <= choice for choice in choices)


def state_items(game: Game, state: State, draw: CheckedDraw, viewer: int | None) -> list[tuple]:
    """The items of a drawing of the state (none for a player's own drawing in the public view)."""
    if draw.per_viewer and viewer is None:
        return []
    span = draw.decl.span
    try:
        items = game.module.DRAWS[draw.name](state, viewer)
    except MetroRuntimeError:
        raise
    except Exception as error:  # a failure inside generated code: name the .metro line
        raise game.rule_error(error) from error
    for item in items:
        for part, why in item_problems(draw, item):
            raise RuleError(f"drawing '{draw.name}', '{part}': {why}", span.file, span.line)
    return items


def _findings(
    cp: CheckedProgram,
    diagnostics: list[Diagnostic],
    problems: list[DrawProblem],
    data: MapData,
    layout: Layout,
) -> list[Finding]:
    """The map's findings, each with the drawings of the elements it names marked."""
    places = [
        (kind, index, item.span)
        for kind, items in data.items.items()
        for index, item in enumerate(items)
    ]
    findings: list[Finding] = []

    def drawn(element: tuple[str, int]) -> list:
        """The drawings of an element, else of the drawn elements its fields name (a goal
        card's two ends, say, when such cards are not drawn on the map)."""
        items = layout.of_element.get(element, [])
        if items:
            return items
        kind, index = element
        for name, t in cp.kind_fields.get(kind, []):
            value = data.fields.get(kind, {}).get(name, [None] * (index + 1))[index]
            if isinstance(t, ElemT) and value is not None:
                items = items + layout.of_element.get((t.kind, value), [])
        return items

    def add(message: str, span: Span, elements: list[tuple[str, int]]) -> None:
        marked = [item.bounds() for e in elements for item in drawn(e)]
        where = str(span) if span.line else span.file
        findings.append(Finding(len(findings) + 1, message, where, marked))

    for diagnostic in diagnostics:
        # The element a finding is at, and the others its notes name ("… at file:line:col").
        named = [
            (kind, index)
            for kind, index, span in places
            if _inside(diagnostic.span, span)
            or any(n.endswith(f" at {span}") for n in diagnostic.all_notes)
        ]
        add(diagnostic.message, diagnostic.span, named)
    for problem in problems:
        named = [(problem.draw.element, problem.element)] if problem.element is not None else []
        add(f"drawing '{problem.draw.name}': {problem.message}", problem.span, named)
    return findings


def _inside(inner: Span, outer: Span) -> bool:
    """True if a place lies within a span (same file, from its start to its end)."""
    return (
        inner.file == outer.file
        and (outer.line, outer.col) <= (inner.line, inner.col)
        and (inner.line, inner.col) <= (outer.end_line, outer.end_col)
    )
