"""Which compilations a rule file takes part in: its game, with the expansion, variant or map it is.

An editor opens one file; to check it, the language server compiles the game the file
belongs to, the way `metro check` would: a game file alone; a variant or an expansion on
top of its base game (with the expansions it `requires`); a part with whatever `use`s it;
a map file as the game's map. `game_contexts` lists every way a game is played (alone,
with each expansion, with each variant), which the server checks when a file is saved.
"""

from __future__ import annotations

import os
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
from dsl.diagnostics import CompileError

# How far up from a file to look for the rules of its game.
MAX_LEVELS_UP = 4


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


def contexts_for(path: str, files) -> list[Context]:
    """The compilations that check the file at `path` (read through `files`)."""
    path = os.path.abspath(path)
    tree = header(files, path)
    folder = os.path.dirname(path)
    if isinstance(tree, ast.GameFile) or (
        tree is None and os.path.basename(path) in GAME_FILE_NAMES
    ):
        return [Context(path)]
    game = game_file_of(folder, getattr(tree, "game", None), files)
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
