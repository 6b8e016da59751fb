"""Where a game is: the game file of a path (without the front end, so loading stays light)."""

from __future__ import annotations

import os

from dsl.diagnostics import RESOLVE, Diagnostics, whole_file

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
