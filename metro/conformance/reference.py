"""`metro reference GAME`: the engine reference page of a game, generated from its compiled rules.

What an engine author needs and a rule file declares: the players, every field with its type,
visibility and the rules' own comment, every action and choice with its signature (the form of
its id), every random event in the order the rules meet them, the score and the ranking keys,
and the constants. The game's hand-written conventions (`conventions.md` beside its rules) end
the page. Generated, so it cannot drift from the rules (tests/test_reference.py).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from compiler.program import Program
from compiler.resolve import resolve
from dsl import ast
from dsl.visitor import walk

CONVENTIONS = "conventions.md"


@dataclass(frozen=True)
class Decision:
    """A place the rules ask a player: an action, or a choice of a value."""

    id_form: str  # `name(arg, ...)` as ids are written
    kind: str  # "action", "choice" or "simultaneous choice"
    where: str  # the procedure or action that offers it
    text: str  # its declaration in the rules, whitespace collapsed
    note: str  # the rules' comment on it


def reference_page(game_path: str) -> str:
    """The Markdown reference page of a game (with its default map)."""
    program = resolve(game_path)
    source = _Source(program)
    lines = [
        f"# {program.game_name}: engine reference",
        "",
        f"Generated from `{_shown_path(program.game_file)}` by "
        f"`metro reference {_shipped(program.game_file)}`; do not edit (a test compares this "
        "page with a fresh generation). How fields, views, ids and chance outcomes are written "
        "is in [the protocol](../protocol.md); this page says what this game has.",
        "",
        "## Players",
        "",
        _players(program),
        "",
    ]
    lines += _names(program)
    lines += _fields(program, source)
    lines += _decisions(program, source)
    lines += _chance(program, source)
    lines += _scoring(program, source)
    conventions = os.path.join(os.path.dirname(program.game_file), CONVENTIONS)
    if os.path.isfile(conventions):
        with open(conventions, encoding="utf-8") as handle:
            lines += [handle.read().rstrip("\n"), ""]
    lines += _constants(program, source)
    lines += _map_data(program, source)
    return "\n".join(lines).rstrip("\n") + "\n"


class _Source:
    """The text of spans of the program's files."""

    def __init__(self, program: Program):
        self.files = program.sources

    def text(self, span) -> str:
        """The source text of `span`, whitespace collapsed."""
        lines = self.files[span.file].lines[span.line - 1 : span.end_line]
        if len(lines) == 1:
            part = lines[0][span.col - 1 : span.end_col - 1]
        else:
            part = "\n".join(
                [lines[0][span.col - 1 :], *lines[1:-1], lines[-1][: span.end_col - 1]]
            )
        return " ".join(_uncommented(line) for line in part.split("\n")).strip().replace("  ", " ")

    def note(self, span) -> str:
        """The comment lines just above `span` and the comment ending its first line."""
        lines = self.files[span.file].lines
        above = []
        index = span.line - 2
        while index >= 0 and lines[index].strip().startswith("#"):
            above.insert(0, lines[index].strip().lstrip("#").strip())
            index -= 1
        trailing = _trailing_comment(lines[span.line - 1])
        return " ".join(part for part in [*above, trailing] if part)


def _uncommented(line: str) -> str:
    comment = _trailing_comment(line)
    text = line[: line.rindex("# " + comment)] if comment else line
    return " ".join(text.split())


def _trailing_comment(line: str) -> str:
    found = re.search(r"\s#\s(.*)$", line)
    if found is None or line.count('"', 0, found.start()) % 2:
        return ""
    return found.group(1).strip()


def _shown_path(path: str) -> str:
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[parts.index("games") :]) if "games" in parts else os.path.basename(path)


def _shipped(path: str) -> str:
    return os.path.basename(os.path.dirname(path))


def _players(program: Program) -> str:
    lo, hi = (program.players.lo, program.players.hi) if program.players else (1, 1)
    return (
        f"{lo} to {hi} players. Seats are written `P1` … `P{hi}` in the state JSON, views and "
        f"ids; the protocol numbers players from 0 (player 0 is `P1`)."
    )


def enum_values(program: Program, name: str) -> list[str]:
    """An enum's values in declared order, its base's first."""
    decl = program.enums[name]
    base = enum_values(program, decl.base) if decl.base else []
    return base + list(decl.values) + program.enum_extra.get(name, [])


def _names(program: Program) -> list[str]:
    out = [
        "## Enums and map elements",
        "",
        "Enum values are written by name; a `set` of them, and a `subset of` choice, is sorted in "
        "this declared order.",
        "",
    ]
    out += [f"- `{name}`: {', '.join(enum_values(program, name))}" for name in program.enums]
    if program.kinds:
        where = (
            "the default map " + ", ".join(f"`{p}`" for p in program.default_map.paths)
            if program.default_map is not None
            else "the map file"
        )
        out += [
            "",
            f"Map elements ({', '.join(f'`{k}`' for k in program.kinds)}) are written by the "
            f"names {where} gives them, and sorted in its order.",
        ]
    out.append("")
    return out


def _map_data(program: Program, source: _Source) -> list[str]:
    """Every map element of the default map, a table per kind, in the map's order."""
    items = [i for f in program.map_files for i in f.items if isinstance(i, ast.MapItem)]
    out = []
    for kind, decl in program.kinds.items():
        mine = [i for i in items if i.kind == kind]
        if not mine:
            continue
        names = [f.name for f in decl.fields]
        out += [
            f"## Map data: `{kind}`",
            "",
            f"{len(mine)} elements, in the map's order (the order of sets and subsets of them).",
            "",
            "| id | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for item in mine:
            values = dict.fromkeys(names, "")
            for index, arg in enumerate(item.args):
                values[arg.name or names[index]] = source.text(arg.value.span)
            out.append(
                f"| `{_cell(item.ident)}` | " + " | ".join(_cell(v) for v in values.values()) + " |"
            )
        out.append("")
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if text else ""


def _fields(program: Program, source: _Source) -> list[str]:
    out = []
    for title, table in (
        ("State fields", program.state),
        ("Per-player fields", program.per_player),
    ):
        if not table:
            continue
        out += [
            f"## {title}",
            "",
            "| field | type | visibility | heading | the rules' note |",
            "|---|---|---|---|---|",
        ]
        for name, spec in table.items():
            heading = "internal" if spec.internal else (spec.heading or "")
            init = f" = `{source.text(spec.init.span)}`" if spec.init is not None else ""
            out.append(
                f"| `{name}` | `{_cell(source.text(spec.type.span))}`{init} | {spec.visibility} "
                f"| {_cell(heading)} | {_cell(source.note(spec.span))} |"
            )
        out.append("")
    return out


def decisions(program: Program, source: _Source) -> list[Decision]:
    """Every action and choice of the game, in declaration order."""
    found = []
    for name, versions in program.actions.items():
        decl = versions.active
        args = ", ".join(p.name for p in decl.params)
        head = _signature(source, decl)
        found.append(
            Decision(
                f"{name}({args})" if args else name,
                "action",
                "",
                head,
                source.note(decl.span),
            )
        )
    for owner, decl in _bodies(program):
        for node in walk(decl):
            if isinstance(node, ast.Choose | ast.EachChoose):
                simultaneous = isinstance(node, ast.EachChoose)
                found.append(
                    Decision(
                        f"{node.name}(value)",
                        "simultaneous choice" if simultaneous else "choice",
                        owner,
                        source.text(node.span),
                        source.note(node.span),
                    )
                )
            elif isinstance(node, ast.ChooseAction | ast.EachChooseAction):
                found.append(
                    Decision(
                        "",
                        "offer",
                        owner,
                        ", ".join(program.offered(node.actions)),
                        "",
                    )
                )
    return found


def _signature(source: _Source, decl) -> str:
    """`action name(params) when guard`, without its label and body."""
    text = f"action {decl.name}("
    text += ", ".join(source.text(p.span) for p in decl.params) + ")"
    if decl.when is not None:
        text += f" when {source.text(decl.when.span)}"
    return text


def _bodies(program: Program):
    """(name, declaration) of every procedure, action and the flow, in declaration order."""
    if program.flow is not None:
        yield "flow", program.flow.active
    for name, versions in program.procedures.items():
        yield f"procedure {name}", versions.active
    for name, versions in program.actions.items():
        yield f"action {name}", versions.active


def _decisions(program: Program, source: _Source) -> list[str]:
    found = decisions(program, source)
    out = [
        "## Actions and choices",
        "",
        "An action's id is its name, then its arguments in the order of its parameters; a "
        "choice's id is the choice's name and the value chosen as its one argument. Arguments "
        "are written as the protocol's section 5 says.",
        "",
        "| id | kind | offered in | declared as | the rules' note |",
        "|---|---|---|---|---|",
    ]
    offers: dict[str, list[str]] = {}
    for decision in found:
        if decision.kind == "offer":
            for name in decision.text.split(", "):
                offers.setdefault(name, []).append(decision.where)
    for decision in found:
        if decision.kind == "offer":
            continue
        name = decision.id_form.split("(")[0]
        where = decision.where or ", ".join(dict.fromkeys(offers.get(name, [])))
        out.append(
            f"| `{_cell(decision.id_form)}` | {decision.kind} | {_cell(where)} "
            f"| `{_cell(decision.text)}` | {_cell(decision.note)} |"
        )
    out.append("")
    return out


def _chance(program: Program, source: _Source) -> list[str]:
    rows = []
    for owner, decl in _bodies(program):
        for node in walk(decl):
            if isinstance(node, ast.Shuffle):
                rows.append((owner, "shuffle", source.text(node.target.span), node.span))
            elif isinstance(node, ast.Call) and node.func in ("roll", "mix"):
                rows.append((owner, node.func, source.text(node.span), node.span))
    out = [
        "## Random events",
        "",
        "Every place the rules meet chance, in the order of the rule text (the flow first, then "
        "procedures and actions). An outcome does not name its pile: the engine gives it to the "
        "random event that waits, so both sides must meet them in the same order. A shuffle "
        "whose result is certain is no chance node (protocol, section 3).",
        "",
        "| in | event | of | line |",
        "|---|---|---|---|",
    ]
    out += [f"| {o} | {k} | `{_cell(t)}` | {s.line} |" for o, k, t, s in rows] or [
        "| — | none | | |"
    ]
    out.append("")
    return out


def _scoring(program: Program, source: _Source) -> list[str]:
    out = ["## Score and ranking", ""]
    if program.score is not None:
        out.append(f"- `scores` answers, per player: `{source.text(program.score.active.span)}`")
    if program.rank is not None:
        keys = [
            f"`{source.text(k.expr.span)}` {'descending' if k.descending else 'ascending'}"
            for k in program.rank.active.keys
        ]
        out.append(
            "- `ranking` orders players by "
            + ", then ".join(keys)
            + "; players equal on every key share a place and the next place is skipped."
        )
    else:
        out.append(
            "- `ranking` orders players by score, highest first; equal scores share a place."
        )
    out.append("")
    return out


def _constants(program: Program, source: _Source) -> list[str]:
    if not program.consts:
        return []
    out = ["## Constants", "", "| name | value | the rules' note |", "|---|---|---|"]
    for name, versions in program.consts.items():
        decl = versions.active
        out.append(
            f"| `{name}` | `{_cell(source.text(decl.value.span))}` | {_cell(source.note(decl.span))} |"
        )
    out.append("")
    return out
