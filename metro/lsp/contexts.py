"""Which compilations a rule file takes part in: its game, with the expansion, variant or map it is.

An editor opens one file; to check it, the language server compiles the game the file
belongs to, the way `metro check` would: a game file alone; a variant or an expansion on
top of its base game (with the expansions it `requires`); a part with whatever `use`s it;
a map file as the game's map. A variant, an expansion or a map names its game (`for
"My game"`): the game is looked for in the file's folder and the folders above it,
then among the installed games (a part's only in its folder and above, since a game must
`use` it); `findings_alone` says so when it is in neither.
`game_contexts` lists every way a game is played (alone, with each expansion, with each
variant), which the server checks when a file is saved.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from compiler.resolve import (
    GAME_FILE_NAMES,
    SourceFiles,
    available_patches,
    expansion_named,
    find_patch_file,
    patch_title,
)
from dsl import ast
from dsl.diagnostics import RESOLVE, CompileError, Diagnostic, did_you_mean
from dsl.source import Span
from loader.games import game_path, shipped_games

# How far up from a file to look for the rules of its game.
MAX_LEVELS_UP = 4
# The title of the game a variant, expansion, map or part is for: `for "My game"`.
FOR_GAME = re.compile(r'\bfor\s+("(?:[^"\\\n]|\\.)*")')


@dataclass(frozen=True)
class Context:
    """One compilation: a game's rules file with expansions, variants and a map."""

    game: str
    expansions: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    map_path: str | None = None

    def describe(self) -> str:
        """In words, for diagnostics found only in this compilation: 'with variant solo'."""
        parts = [f"expansion {_stem(path)}" for path in self.expansions]
        parts += [f"variant {_stem(path)}" for path in self.variants]
        if self.map_path:
            parts.append(f"map {os.path.basename(self.map_path)}")
        return "with " + ", ".join(parts) if parts else "the base game"


def _stem(path: str) -> str:
    name = os.path.basename(path)
    if name == "expansion.metro":
        return os.path.basename(os.path.dirname(path))
    return name.removesuffix(".metro")


def header(files: SourceFiles, path: str) -> ast.File | None:
    """The syntax tree of a file, or None if it cannot be read or parsed."""
    try:
        return files.parse(files.text(path), path)
    except CompileError:
        return None


def game_file_of(directory: str, name: str | None, files) -> str | None:
    """The rules file of the game called `name` (any game if None), in `directory` or above."""
    folder = os.path.abspath(directory)
    for _ in range(MAX_LEVELS_UP + 1):
        for file_name in GAME_FILE_NAMES:
            candidate = os.path.join(folder, file_name)
            if os.path.isfile(candidate):
                tree = header(files, candidate)
                if isinstance(tree, ast.GameFile) and name in (None, tree.name):
                    return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def installed_games(files) -> dict[str, str]:
    """The rules file of every installed game, by the title its `game "…"` gives it."""
    found = {}
    for name in shipped_games():
        folder = game_path(name)
        for file_name in GAME_FILE_NAMES:
            tree = header(files, os.path.join(folder, file_name))
            if isinstance(tree, ast.GameFile):
                found.setdefault(tree.name, os.path.abspath(os.path.join(folder, file_name)))
    return found


def names_a_game(tree: ast.File | None) -> bool:
    """Whether a file says which game it is for, so that its game may be an installed one."""
    return isinstance(tree, ast.PatchFile) or (
        isinstance(tree, ast.MapFile) and not tree.for_library
    )


def game_of(path: str, tree: ast.File | None, files) -> str | None:
    """The rules file of the game a file belongs to: in its folder or above, else installed."""
    name = getattr(tree, "game", None)
    found = game_file_of(os.path.dirname(path), name, files)
    if found is None and names_a_game(tree):
        found = installed_games(files).get(name)
    return found


def findings_alone(path: str, files) -> list[Diagnostic]:
    """What a file in no compilation shows: why it cannot be read, or that its game is missing."""
    path = os.path.abspath(path)
    try:
        tree = files.parse(files.text(path), path)
    except CompileError as error:
        return list(error.diagnostics)
    if isinstance(tree, ast.PartFile) and game_of(path, tree, files) is None:
        message = (
            f"part '{tree.name}' is for '{tree.game}', but no game of that name is in this "
            f"folder or the {MAX_LEVELS_UP} above it (a part is checked with the game that uses it)"
        )
        return [Diagnostic(RESOLVE, message, _game_name_span(path, tree, files))]
    if not names_a_game(tree) or game_of(path, tree, files) is not None:
        return []
    titles = sorted(installed_games(files))
    what = tree.kind if isinstance(tree, ast.PatchFile) else "map"
    missing = Diagnostic(
        RESOLVE,
        f"{what} '{tree.name}' is for '{tree.game}', but no game of that name is in this "
        f"folder, the {MAX_LEVELS_UP} above it or the installed games",
        _game_name_span(path, tree, files),
        notes=(*did_you_mean(tree.game, titles), f"installed games: {', '.join(titles)}"),
    )
    return [missing]


def _game_name_span(path: str, tree: ast.PatchFile | ast.MapFile | ast.PartFile, files) -> Span:
    """Where the file names its game: the string after `for` in its header."""
    lines = files.text(path).split("\n")
    start = tree.span
    text = "\n".join(lines[start.line - 1 :])
    found = FOR_GAME.search(text, start.col - 1)
    if found is None:
        return start
    before = text[: found.start(1)]
    line = start.line + before.count("\n")
    col = len(before) - (before.rfind("\n") + 1) + 1
    return Span(path, line, col, line, col + len(found[1]))


def contexts_for(path: str, files) -> list[Context]:
    """The compilations that check the file at `path` (read through `files`)."""
    path = os.path.abspath(path)
    tree = header(files, path)
    if isinstance(tree, ast.GameFile) or (
        tree is None and os.path.basename(path) in GAME_FILE_NAMES
    ):
        return [Context(path)]
    game = game_of(path, tree, files)
    if game is None:
        return []
    game_dir = os.path.dirname(game)
    if isinstance(tree, ast.PatchFile):
        required = [
            d.other for d in tree.decls if isinstance(d, ast.CombinationDecl) and d.required
        ]
        needed = tuple(e for e in (expansion_named(game_dir, t) for t in required) if e)
        if tree.kind == "expansion":
            return [Context(game, (path, *needed))]
        return [Context(game, needed, (path,))]
    if isinstance(tree, ast.MapFile):
        if path in _default_maps(game, files):
            return [Context(game)]
        return [Context(game, map_path=path)]
    for expansion in _expansions(game_dir):
        if path in _used_files(expansion, files):
            return [Context(game, (expansion,))]
    return [Context(game)]


def game_contexts(game: str) -> list[Context]:
    """Every way a game is played: alone, with each expansion, with each variant."""
    game_dir = os.path.dirname(game)
    out = [Context(game)]
    out += [Context(game, (expansion,)) for expansion in _expansions(game_dir)]
    for name in available_patches(game_dir, "variants"):
        variant = os.path.abspath(find_patch_file(game_dir, name, "variants"))
        found = patch_title(variant)
        required = found[1] if found else []
        needed = tuple(e for e in (expansion_named(game_dir, t) for t in required) if e)
        out.append(Context(game, tuple(os.path.abspath(e) for e in needed), (variant,)))
    return out


def _expansions(game_dir: str) -> list[str]:
    return [
        os.path.abspath(find_patch_file(game_dir, name, "expansions"))
        for name in available_patches(game_dir, "expansions")
    ]


def _default_maps(game: str, files) -> set[str]:
    tree = header(files, game)
    folder = os.path.dirname(game)
    if not isinstance(tree, ast.GameFile):
        return set()
    return {
        os.path.abspath(os.path.join(folder, p))
        for d in tree.decls
        if isinstance(d, ast.DefaultMapDecl)
        for p in d.paths
    }


def _used_files(path: str, files) -> set[str]:
    """The files a game or patch file `use`s, directly or through the parts it uses."""
    found: set[str] = set()
    todo = [os.path.abspath(path)]
    while todo:
        current = todo.pop()
        tree = header(files, current)
        decls = getattr(tree, "decls", ())
        for decl in decls:
            if isinstance(decl, ast.UseDecl):
                target = os.path.abspath(os.path.join(os.path.dirname(current), decl.path))
                if target not in found:
                    found.add(target)
                    todo.append(target)
    return found
