"""The light loader, between the compiler and the tools: a game by name or path, run from the
module cache, compiled only on a miss.

`games` resolves names and paths (the one path resolver), `cache` keeps generated modules on
disk, `loading` runs them (`load_game`) and imports the compiler only to compile a game the
cache does not hold, so running a cached game never loads Lark, jinja2 or networkx.
"""

from loader.games import UnknownGame, game_path, shipped_games
from loader.loading import game_from_source, game_source, load_game

__all__ = [
    "UnknownGame",
    "game_from_source",
    "game_path",
    "game_source",
    "load_game",
    "shipped_games",
]
