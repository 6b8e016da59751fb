"""Where games are: by name (the games shipped with the package) or by path, and the files
of a game's folder (its rules file, its variants and expansions), the one path resolver of the
tools. The compiler finds a game's files with compiler/game_files.py, re-exported here."""

from __future__ import annotations

import os
import re
from importlib import resources

from compiler.game_files import (
    GAME_FILE_NAMES,
    available_patches,
    find_game_file,
    find_patch_file,
    names_a_file,
)

# A shipped game's name is its folder under the `games` package (an expansion, a
# subfolder of a game, is chosen with `expansions=`, not by name).
GAME_NAME = re.compile(r"[a-z][a-z0-9_]*")


__all__ = [
    "GAME_FILE_NAMES",
    "GAME_NAME",
    "UnknownGame",
    "available_patches",
    "find_game_file",
    "find_patch_file",
    "game_path",
    "names_a_file",
    "shipped_games",
    "shipped_name",
]


class UnknownGame(ValueError):
    """Neither a file or folder nor the name of a shipped game."""


def shipped_games() -> list[str]:
    """The names of the games installed with the package, sorted."""
    root = resources.files("games")
    return sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir() and any(entry.joinpath(name).is_file() for name in GAME_FILE_NAMES)
    )


def game_path(game: str) -> str:
    """The path of `game`: an existing file or folder as given, else the shipped game of that name."""
    if os.path.exists(game):
        return game
    if GAME_NAME.fullmatch(game) and game in shipped_games():
        return str(resources.files("games").joinpath(game))
    raise UnknownGame(
        f"no file or folder '{game}', and no shipped game of that name "
        f"(shipped: {', '.join(shipped_games())})"
    )


def shipped_name(path: str) -> str | None:
    """The name of the shipped game whose folder or rules file `path` is, else None."""
    path = os.path.realpath(path)
    if not os.path.isdir(path):
        if os.path.basename(path) not in GAME_FILE_NAMES:
            return None
        path = os.path.dirname(path)
    name = os.path.basename(path)
    root = os.path.realpath(str(resources.files("games")))
    return name if os.path.dirname(path) == root and name in shipped_games() else None
