"""Where a game and its patches are: file lookups without the front end, so loading stays light."""

from __future__ import annotations

import os

from dsl.diagnostics import COMMAND_LINE, RESOLVE, Diagnostics, whole_file

GAME_FILE_NAMES = ("rules.metro", "game.metro")


def find_game_file(path: str) -> str:
    """The game file for a path: the file itself, or rules.metro/game.metro in a directory."""
    if os.path.isdir(path):
        for name in GAME_FILE_NAMES:
            candidate = os.path.join(path, name)
            if os.path.isfile(candidate):
                return candidate
        diags = Diagnostics()
        diags.error(
            RESOLVE, f"no {' or '.join(GAME_FILE_NAMES)} in this directory", whole_file(path)
        )
        diags.raise_if_errors({})
    return path


def names_a_file(name: str) -> bool:
    """Whether a variant or expansion is given as a file (else by its name beside the game)."""
    return name.endswith(".metro") or os.sep in name or "/" in name


def find_patch_file(game_dir: str, name: str, folder: str) -> str:
    """A variant or expansion by path, or by name under the game's directory."""
    if names_a_file(name):
        return name
    candidates = [
        os.path.join(game_dir, folder, f"{name}.metro"),
        os.path.join(game_dir, name, "expansion.metro"),
        os.path.join(game_dir, name, f"{name}.metro"),
    ]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    known = sorted(available_patches(game_dir, folder))
    hint = f" (known: {', '.join(known)})" if known else ""
    diags = Diagnostics()
    diags.error(
        RESOLVE,
        f"no {folder[:-1]} named '{name}' for this game{hint}",
        COMMAND_LINE,
        f"the game's directory is {game_dir or os.curdir}",
    )
    diags.raise_if_errors({})
    return ""


def available_patches(game_dir: str, folder: str) -> list[str]:
    """Names of the variants (or expansions) shipped beside a game."""
    names = []
    where = os.path.join(game_dir, folder)
    if os.path.isdir(where):
        names += [f[:-6] for f in os.listdir(where) if f.endswith(".metro")]
    if folder == "expansions" and os.path.isdir(game_dir):
        for entry in os.listdir(game_dir):
            if os.path.isfile(os.path.join(game_dir, entry, "expansion.metro")):
                names.append(entry)
    return sorted(names)
