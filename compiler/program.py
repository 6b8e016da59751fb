"""The merged program: every declaration of a game after uses, map and patches."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from compiler.sources import SourceTable
from dsl import ast
from dsl.source import SourceFile


@dataclass
class Versions:
    """A named declaration and the versions it replaced (for `super`)."""

    versions: list[ast.Decl]

    @property
    def active(self) -> ast.Decl:
        """The newest version."""
        return self.versions[-1]


@dataclass
class PatchRecord:
    """One change a variant or expansion made, for `metro diff`."""

    source: str
    verb: str
    what: str
    name: str
    line: int


@dataclass
class Program:
    """Everything the checker needs, merged from all files."""

    game_name: str
    game_file: str
    sources: dict[str, SourceFile] = field(default_factory=dict)
    players: ast.PlayersDecl | None = None
    default_map: ast.DefaultMapDecl | None = None
    default_bot: str | None = None
    levels: dict[str, ast.LevelDecl] = field(default_factory=dict)  # level -> the bot it names
    max_decisions: int = 100_000
    enums: dict[str, ast.EnumDecl] = field(default_factory=dict)
    enum_extra: dict[str, list[str]] = field(default_factory=dict)
    consts: dict[str, Versions] = field(default_factory=dict)
    kinds: dict[str, ast.KindDecl] = field(default_factory=dict)
    checks: dict[str, ast.CheckDecl] = field(default_factory=dict)
    state: dict[str, ast.FieldSpec] = field(default_factory=dict)
    per_player: dict[str, ast.FieldSpec] = field(default_factory=dict)
    functions: dict[str, Versions] = field(default_factory=dict)
    procedures: dict[str, Versions] = field(default_factory=dict)
    actions: dict[str, Versions] = field(default_factory=dict)
    flow: Versions | None = None
    score: Versions | None = None
    rank: Versions | None = None
    breakdown: Versions | None = None
    display: Versions | None = None
    enum_words: dict[str, dict[str, str]] = field(default_factory=dict)  # enum -> value -> words
    estimate: Versions | None = None
    metrics: dict[str, ast.MetricDecl] = field(default_factory=dict)
    invariants: dict[str, ast.InvariantDecl] = field(default_factory=dict)
    bots: dict[str, ast.BotDecl] = field(default_factory=dict)
    draws: dict[str, ast.DrawDecl] = field(default_factory=dict)
    schema_draws: set[str] = field(default_factory=set)  # names of draws written in `map schema`
    groups: dict[str, list[str]] = field(default_factory=dict)
    group_decls: dict[str, ast.Decl] = field(default_factory=dict)

    def offered(self, names) -> list[str]:
        """Action names with every action group expanded (in order, without repeats)."""
        out: list[str] = []
        for name in names:
            for action in self.groups.get(name, [name]):
                if action not in out:
                    out.append(action)
        return out

    scenarios: dict[str, ast.ScenarioDecl] = field(default_factory=dict)
    map_files: list[ast.MapFile] = field(default_factory=list)
    map_paths: list[str] = field(default_factory=list)
    libraries: dict[str, str] = field(default_factory=dict)  # name -> its library.metro
    library_data: list[str] = field(default_factory=list)  # data files of the libraries used
    patches: list[PatchRecord] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)

    @cached_property
    def source_table(self) -> SourceTable:
        """The generated module's table of the rule files its locations name (compiler/sources.py)."""
        return SourceTable(self.game_file, self.sources)

    def enum_values(self, name: str) -> list[str]:
        """All values of an enum, base values first (indices are shared with the base)."""
        decl = self.enums[name]
        base = self.enum_values(decl.base) if decl.base and decl.base in self.enums else []
        return base + list(decl.values) + self.enum_extra.get(name, [])
