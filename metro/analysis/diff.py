"""What an expansion or variant changes in a game, in words (for `metro diff`).

A replaced declaration that is a value is shown with its old and new value as written in
the rule files (`replaces const 'LONGEST_BONUS': 10 → 15`): the expression of a constant, a
score, rank, estimate, metric, invariant, check or one-expression function, the whole of a
state field; a procedure, action or flow (a block of statements) only by where it changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.program import Program, Versions
from compiler.resolve import resolve
from dsl import ast
from dsl.source import Span
from dsl.terminal import printable

SHOWN = 60  # characters of an old or new value shown before it is cut with "…"


@dataclass(frozen=True)
class Change:
    """One declaration a patch adds, replaces, removes or extends; a replacement's old and new text."""

    verb: str
    what: str
    name: str
    where: str
    old: str = ""
    new: str = ""

    def __str__(self) -> str:
        values = f": {self.old} → {self.new}" if self.old or self.new else ""
        return f"{self.verb} {self.what} '{self.name}'{values}  ({self.where})"


def describe_patches(game_path: str, expansions=(), variants=()) -> list[Change]:
    """Every change the given expansions and variants make, in the order they apply."""
    program = resolve(game_path, list(expansions), list(variants))
    base = resolve(game_path)
    changes = []
    for record in program.patches:
        old = new = ""
        if record.verb == "replaces":
            old, new = _values(base, program, record.what, record.name, record.source, record.line)
        where = f"{record.source}:{record.line}"
        changes.append(Change(record.verb, record.what, record.name, where, old, new))
    if base.map_paths != program.map_paths:
        changes.append(
            Change(
                "replaces",
                "data files",
                ", ".join(base.map_paths) or "none",
                "now " + ", ".join(program.map_paths),
            )
        )
    return changes


def _values(
    base: Program, patched: Program, what: str, name: str, file: str, line: int
) -> tuple[str, str]:
    """The replaced declaration's old and new text, or two empty texts if it cannot be found."""
    versions = _versions(patched, what, name)
    if versions is not None:
        for index, decl in enumerate(versions.versions):
            if index and decl.span.file == file and decl.span.line == line:
                return _text(patched, versions.versions[index - 1]), _text(patched, decl)
        return "", ""
    old, new = _entry(base, what, name), _entry(patched, what, name)
    if old is None or new is None:
        return "", ""
    return _text(base, old), _text(patched, new)


def _versions(program: Program, what: str, name: str) -> Versions | None:
    tables = {
        "const": program.consts,
        "function": program.functions,
        "procedure": program.procedures,
        "action": program.actions,
    }
    if what in tables:
        return tables[what].get(name)
    if what in ("flow", "score", "rank", "estimate"):
        return getattr(program, what)
    return None


def _entry(program: Program, what: str, name: str) -> ast.Node | None:
    tables = {
        "state field": {**program.state, **program.per_player},
        "invariant": program.invariants,
        "scenario": program.scenarios,
        "check": program.checks,
        "bot": program.bots,
        "metric": program.metrics,
    }
    return tables.get(what, {}).get(name)


def _text(program: Program, decl: ast.Node) -> str:
    """A declaration's value as written on one line: its expression, a state field whole, else ''."""
    shown = decl if isinstance(decl, ast.FieldSpec) else None
    for attr in ("value", "expr", "cond"):
        part = getattr(decl, attr, None)
        if isinstance(part, ast.Expr):
            shown = part
    if isinstance(decl, ast.RankDecl):
        shown = decl
    if shown is None:
        return ""
    text = " ".join(_span_text(program, shown.span).split())
    text = printable(text)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _span_text(program: Program, span: Span) -> str:
    source = program.sources.get(span.file)
    if source is None:
        return ""
    lines = [source.line(n) for n in range(span.line, span.end_line + 1)]
    if len(lines) == 1:
        return lines[0][span.col - 1 : span.end_col - 1]
    lines[0] = lines[0][span.col - 1 :]
    lines[-1] = lines[-1][: span.end_col - 1]
    return "\n".join(lines)
