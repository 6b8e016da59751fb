"""What an expansion or variant changes in a game, in words (for `metro diff`)."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.resolve import resolve


@dataclass(frozen=True)
class Change:
    """One declaration a patch adds, replaces, removes or extends."""

    verb: str
    what: str
    name: str
    where: str

    def __str__(self) -> str:
        return f"{self.verb} {self.what} '{self.name}'  ({self.where})"


def describe_patches(game_path: str, expansions=(), variants=()) -> list[Change]:
    """Every change the given expansions and variants make, in the order they apply."""
    program = resolve(game_path, list(expansions), list(variants))
    changes = [Change(r.verb, r.what, r.name, f"{r.source}:{r.line}") for r in program.patches]
    base = resolve(game_path)
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
