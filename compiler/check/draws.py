"""Pass `draws`: type every `draw` declaration and learn what each one draws from.

Input: a CheckedProgram after `types` and `visibility`. Output: `cp.draws`, one
`CheckedDraw` per declaration in drawing order, and errors: wrong types of places, colours,
sizes, texts and of what shapes stand for (`names`, `chooses`); choices (`chooses`) of
argument types no choice of the game has, or in a drawing that does not read the state; properties a shape does not take; places
of elements nothing draws (or draws as a shape `on` or `along` cannot follow); legends of
drawings of the state;
drawings of the map that place each other in a circle; drawings in the map schema that
read the game state; drawings that would show hidden or another player's private data.
"""

from __future__ import annotations

import networkx as nx

from compiler.builtins import BUILTINS
from compiler.check.names import valid_identifier
from compiler.check.typer import Scope
from compiler.check.types import Typer
from compiler.check.visibility import guard_reads
from compiler.checked import CheckedProgram
from compiler.draw_rules import PLACE_ARGS, PLACES_ARGS, PROP_SHAPES, SHAPE_ARGS, CheckedDraw
from compiler.refs import BuiltinRef, FunctionRef, GlobalRef, PlayerFieldRef
from compiler.types import (
    AnyT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    IntT,
    NoneT,
    OptT,
    PlayerT,
    StrT,
    TupleT,
    Type,
)
from dsl import ast
from dsl.diagnostics import BAD_NAME, DUPLICATE, STRUCTURE, TYPE, Diagnostics
from dsl.visitor import walk

# A part of an item and what its value must be.
_TEXT = "a number, truth value, text, element, enum value, player, or a tuple or list of them"
_NAMEABLE = "a map element, an enum value or a player, or a list or tuple of them"
_CHOOSABLE = (
    "a choice's argument (a map element, enum value, player, number or placement), "
    "or a tuple of them"
)


def check_draws(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Check every drawing and record it in `cp.draws`."""
    typer = Typer(cp, diags)
    reads = _StateReads(cp)
    for decl in cp.program.draws.values():
        draw = _check_one(typer, reads, decl)
        if draw is not None:
            cp.draws.append(draw)
    _check_places(cp, diags)


def _check_one(typer: Typer, reads: _StateReads, decl: ast.DrawDecl) -> CheckedDraw | None:
    cp, diags = typer.cp, typer.diags
    if decl.shape is None and not decl.props:
        diags.error(STRUCTURE, "a drawing needs a shape or properties to restyle", decl.span)
        return None
    for binding in decl.bindings:
        if not valid_identifier(binding.var):
            diags.error(BAD_NAME, f"'{binding.var[:40]}' cannot be a name", binding.span)
        elif binding.var in cp.global_names:
            diags.error(
                DUPLICATE, f"'{binding.var}' hides a declaration of the same name", binding.span
            )
    shape = decl.shape.shape if decl.shape is not None else "restyle"
    seen: set[str] = set()
    for prop in decl.props:
        if prop.name in seen:
            diags.error(DUPLICATE, f"'{prop.name}' is given twice", prop.span)
        seen.add(prop.name)
        if shape not in PROP_SHAPES[prop.name]:
            what = "a restyle (a drawing without a shape)" if shape == "restyle" else f"a {shape}"
            diags.error(STRUCTURE, f"'{prop.name}' does not apply to {what}", prop.span)
    first = decl.bindings[0].var if decl.bindings else None
    head: ast.Expr = ast.Name(first, decl.span) if first else ast.NoneLit(decl.span)
    values = (head, *(decl.shape.args if decl.shape else ()), *(p.value for p in decl.props))
    elem = ast.TupleLit(values, decl.span)
    fors = tuple(ast.CompFor(b.var, b.iterable, b.where, b.span) for b in decl.bindings)
    whole = ast.ListComp(elem, fors, decl.span) if fors else ast.ListLit((elem,), decl.span)
    rest = (
        ast.ListComp(elem, fors[1:], decl.span)
        if len(fors) > 1
        else ast.ListLit((elem,), decl.span)
    )
    typer.current_decl = decl.name
    typer.expr(whole, Scope([{}], pure=True, me=True))
    parts = ("item", *SHAPE_ARGS.get(shape, ()), *(p.name for p in decl.props))
    types = tuple(cp.type_of(v) for v in values)
    for name, value, t in zip(parts[1:], values[1:], types[1:], strict=True):
        problem = _part_problem(name, shape, t)
        if problem is not None:
            diags.error(TYPE, f"'{name}' {problem}, not {t}", value.span)
    item_t = types[0]
    element = item_t.kind if isinstance(item_t, ElemT) else None
    if shape == "restyle" and element is None:
        diags.error(
            STRUCTURE,
            "a drawing without a shape restyles the drawing of a map element: "
            "its first `for` must go over elements",
            decl.span,
        )
    dynamic = any(reads.state(node) for node in walk(whole))
    if decl.name in cp.program.schema_draws and dynamic:
        diags.error(
            STRUCTURE,
            "a drawing in the map schema may only read map data and constants "
            "(draw the game state outside the schema)",
            decl.span,
        )
    legend = next((p for p in decl.props if p.name == "legend"), None)
    if legend is not None and dynamic:
        diags.error(
            STRUCTURE,
            "a legend lists what the map draws: `legend` goes in a drawing of the map "
            "(this one reads the game state)",
            legend.span,
        )
    chooses = next((p for p in decl.props if p.name == "chooses"), None)
    if chooses is not None:
        _check_chooses(cp, diags, decl, chooses, types[parts.index("chooses")], dynamic)
    guard_reads(cp, diags, whole, set(), what="this drawing")
    per_viewer = any(isinstance(node, ast.MeLit) for node in walk(whole))
    return CheckedDraw(decl, shape, parts, types, element, dynamic, per_viewer, whole, rest)


def _part_problem(name: str, shape: str, t: Type) -> str | None:
    """Why a part of this type cannot be drawn (None if it can)."""
    if isinstance(t, AnyT):
        return None
    if name in PLACE_ARGS:
        return None if _is_place(t) else "is a place: (x, y) or a drawn map element"
    if name in PLACES_ARGS:
        ok = isinstance(t, CollT) and _is_place(t.item)
        return None if ok else "is a list of places: (x, y) or drawn map elements"
    if name in ("text", "label", "title", "legend"):
        return None if _is_text(t) else f"is shown as text: {_TEXT}"
    if name in ("colour", "outline", "mark"):
        return None if isinstance(t, StrT) else "is text"
    if name in ("width", "dashes"):
        return None if isinstance(t, IntT) else "is a number"
    if name == "size":
        pair = shape == "rect" and _is_pair(t)
        return None if isinstance(t, IntT) or pair else _size_needs(shape)
    if name in ("on", "along"):
        inner = t.inner if isinstance(t, OptT) else t
        drawn_as = "a rect" if name == "on" else "a line or path"
        return None if isinstance(inner, ElemT) else f"is a map element drawn as {drawn_as}"
    if name == "names":
        return None if _is_nameable(t) else f"is what the shape stands for: {_NAMEABLE}"
    if name == "chooses":
        ok = _choice_tags(t) is not None
        return None if ok else f"is the choice the shape stands for: {_CHOOSABLE}"
    return None


def _check_chooses(
    cp: CheckedProgram,
    diags: Diagnostics,
    decl: ast.DrawDecl,
    prop: ast.DrawProp,
    t: Type,
    dynamic: bool,
) -> None:
    """A shape standing for a choice: of the position (so a drawing of the state), not also
    standing for things (`names`), and of argument types some choice of the game has."""
    if not dynamic:
        diags.error(
            STRUCTURE,
            "`chooses` draws the choices offered in a position: it goes in a drawing that "
            "reads the game state",
            prop.span,
        )
    if any(p.name == "names" for p in decl.props):
        diags.error(
            STRUCTURE,
            "a shape stands for things (`names`) or for a choice (`chooses`), not both",
            prop.span,
        )
    tags = _choice_tags(t)
    if not tags or any(tag == ("any",) for tag in tags):
        return
    offered = _choice_signatures(cp)
    if not any(all(tag in choice for tag in tags) for choice in offered):
        what = ", ".join(_tag_words(tag) for tag in tags)
        diags.error(
            TYPE,
            f"'chooses' names a choice with arguments ({what}), and no action or `choose` of "
            "this game has arguments of all these types",
            prop.value.span,
        )


def _choice_tag(t: Type) -> tuple | None:
    """The kind of value one argument of a choice is, as `chooses` matches it."""
    if isinstance(t, OptT):
        return _choice_tag(t.inner)
    if isinstance(t, ElemT):
        return ("element", t.kind)
    if isinstance(t, EnumT):
        return ("enum", t.name)
    if isinstance(t, PlayerT):
        return ("player",)
    if isinstance(t, IntT):
        return ("number",)
    if isinstance(t, TupleT) and t.items and all(isinstance(i, IntT) for i in t.items):
        return ("numbers", len(t.items))  # a placement: (turn, x, y, floor)
    if isinstance(t, AnyT):
        return ("any",)
    return None


def _choice_tags(t: Type) -> list[tuple] | None:
    """The arguments a `chooses` value matches: one value, or a tuple of values (all of them)."""
    one = _choice_tag(t)
    if one is not None:
        return [one]
    if isinstance(t, TupleT) and t.items:
        tags = [_choice_tag(item) for item in t.items]
        return None if None in tags else tags
    return None


def _choice_signatures(cp: CheckedProgram) -> list[list[tuple]]:
    """The argument kinds of each action and each `choose` of the game."""
    out = []
    for name in cp.program.actions:
        sig = cp.signatures.get(name)
        if sig is not None:
            out.append([_choice_tag(t) for _, t in sig.params])
    bodies = [
        v
        for t in (cp.program.procedures, cp.program.actions)
        for vs in t.values()
        for v in vs.versions
    ]
    if cp.program.flow is not None:
        bodies += cp.program.flow.versions
    out += [
        [_choice_tag(cp.types[id(node)])]
        for body in bodies
        for node in walk(body)
        if isinstance(node, ast.Choose | ast.EachChoose) and id(node) in cp.types
    ]
    return out


def _tag_words(tag: tuple) -> str:
    if tag[0] in ("element", "enum"):
        return tag[1]
    if tag[0] == "numbers":
        return f"a tuple of {tag[1]} numbers"
    return "a number" if tag[0] == "number" else "a player"


def _is_nameable(t: Type) -> bool:
    """A thing a choice can name (an element, enum value or player), or a list or tuple of them."""
    if isinstance(t, OptT):
        return _is_nameable(t.inner)
    if isinstance(t, CollT):
        return isinstance(t.item, ElemT | EnumT | PlayerT | AnyT | OptT) and _is_nameable(t.item)
    if isinstance(t, TupleT):
        return all(_is_nameable(item) for item in t.items)
    return isinstance(t, ElemT | EnumT | PlayerT | AnyT)


def _size_needs(shape: str) -> str:
    return "is a number or (width, height)" if shape == "rect" else "is a number"


def _is_pair(t: Type) -> bool:
    return isinstance(t, TupleT) and len(t.items) == 2 and all(isinstance(i, IntT) for i in t.items)


def _is_place(t: Type) -> bool:
    """A pair of numbers or a map element; optional ones too (an item without a place is not drawn)."""
    if isinstance(t, OptT):
        t = t.inner
    return _is_pair(t) or isinstance(t, ElemT | AnyT)


def _is_text(t: Type) -> bool:
    if isinstance(t, OptT):
        return _is_text(t.inner)
    if isinstance(t, TupleT):
        return all(_is_text(i) for i in t.items)
    if isinstance(t, CollT):
        return _is_text(t.item)
    return isinstance(t, IntT | BoolT | StrT | ElemT | EnumT | PlayerT | NoneT | AnyT)


class _StateReads:
    """Whether an expression reads the game state (directly or in a function it calls)."""

    def __init__(self, cp: CheckedProgram):
        self.cp = cp
        self.functions: dict[str, bool] = {}

    def state(self, node: ast.Node) -> bool:
        """True if this node reads the state, the players or `me`, or cannot be a constant."""
        if isinstance(node, ast.PlayersLit | ast.MeLit):
            return True
        ref = self.cp.ref(node)
        if isinstance(ref, GlobalRef | PlayerFieldRef):
            return True
        if isinstance(ref, BuiltinRef):
            return BUILTINS[ref.name].const is None
        if isinstance(ref, FunctionRef):
            return self._function(ref.name)
        return isinstance(node, ast.GenCall) and (
            node.func not in BUILTINS or BUILTINS[node.func].const is None
        )

    def _function(self, name: str) -> bool:
        if name not in self.functions:
            self.functions[name] = True  # no recursion is allowed; this guards the walk anyway
            decl = self.cp.program.functions[name].active
            body = decl.expr if decl.expr is not None else decl.body
            self.functions[name] = any(self.state(n) for n in walk(body))
        return self.functions[name]


def _check_places(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Every element used as a place is drawn by the map; the map's drawings place no circle."""
    anchors: dict[str, CheckedDraw] = {}
    for draw in cp.draws:
        if draw.shape != "restyle" and draw.element and not draw.dynamic:
            anchors.setdefault(draw.element, draw)
    graph = nx.DiGraph()
    for draw in cp.draws:
        for name, value, t in _place_parts(draw):
            kind = _element_of(t)
            if kind is None:
                continue
            anchor = anchors.get(kind)
            if anchor is None:
                diags.error(
                    STRUCTURE,
                    f"a {kind} has no place on the picture: no drawing of the map draws {kind}s",
                    value.span,
                    f'draw them first, e.g. `draw "{kind}s" for x in {kind}: point at (x, y)`',
                )
            elif name == "on" and anchor.shape != "rect":
                diags.error(
                    STRUCTURE,
                    f"`on` puts a drawing on a rect, but {kind}s are drawn as a {anchor.shape} "
                    f"(drawing '{anchor.name}')",
                    value.span,
                )
            elif name == "along" and anchor.shape not in ("line", "path"):
                diags.error(
                    STRUCTURE,
                    f"`line along` follows a line or path, but {kind}s are drawn as a "
                    f"{anchor.shape} (drawing '{anchor.name}')",
                    value.span,
                )
            elif not draw.dynamic:
                graph.add_edge(draw.name, anchor.name, span=value.span)
        if draw.shape == "restyle" and draw.element and draw.element not in anchors:
            diags.error(
                STRUCTURE,
                f"nothing draws {draw.element}s from the map, so there is nothing to restyle",
                draw.decl.span,
            )
    for cycle in nx.simple_cycles(graph):
        first = cycle[0]
        target = cycle[1] if len(cycle) > 1 else first
        diags.error(
            STRUCTURE,
            "drawings place each other in a circle: " + " -> ".join(cycle + [first]),
            graph.edges[first, target]["span"],
        )
        break


def _place_parts(draw: CheckedDraw):
    """(part name, expression, type) of each part that names a place or a parent."""
    values = draw.whole.elem.items if isinstance(draw.whole, ast.ListComp) else None
    if values is None:
        values = draw.whole.items[0].items
    for name, value, t in zip(draw.parts, values, draw.types, strict=True):
        if name in PLACE_ARGS or name in ("on", "along"):
            yield name, value, t
        elif name in PLACES_ARGS and isinstance(t, CollT):
            yield name, value, t.item


def _element_of(t: Type) -> str | None:
    if isinstance(t, OptT):
        t = t.inner
    return t.kind if isinstance(t, ElemT) else None
