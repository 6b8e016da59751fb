"""The games a server offers: shipped ones by name, or those named on its command line.

Clients choose a game, its variants and its expansions by name from these lists only, so no
request ever names a file. Compiled games and their pictures are kept once loaded.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from loader import load_game
from loader.games import available_patches, find_game_file, game_path, shipped_games
from metro.render.pictures import Pictures, open_pictures
from runtime.machine import Game


@dataclass(frozen=True)
class GameEntry:
    """One game offered: its public name, where it is, and the patches it may take."""

    name: str
    path: str
    variants: tuple[str, ...]
    expansions: tuple[str, ...]


class Catalog:
    """The offered games, by name; compiles each configuration once, on first use."""

    def __init__(self, refs: list[str]):
        self.entries: dict[str, GameEntry] = {}
        for ref in refs or shipped_games():
            path = game_path(ref)
            folder = os.path.dirname(find_game_file(path)) if not os.path.isdir(path) else path
            name = ref if ref in shipped_games() else os.path.basename(os.path.normpath(folder))
            self.entries[name] = GameEntry(
                name,
                path,
                tuple(available_patches(folder, "variants")),
                tuple(available_patches(folder, "expansions")),
            )
        self._games: dict[tuple, Game] = {}
        self._pictures: dict[tuple, Pictures] = {}
        self._lock = threading.Lock()  # games compile in worker threads

    def game(self, name: str, variants=(), expansions=()) -> Game:
        """An offered game (by name) compiled with these patches (by name)."""
        key = (name, tuple(variants), tuple(expansions))
        with self._lock:
            if key not in self._games:
                path = self.entries[name].path
                self._games[key] = load_game(path, expansions=expansions, variants=variants)
            return self._games[key]

    def pictures(self, name: str, variants=(), expansions=()) -> Pictures:
        """The pictures of an offered game with these patches."""
        key = (name, tuple(variants), tuple(expansions))
        with self._lock:
            if key not in self._pictures:
                path = self.entries[name].path
                self._pictures[key] = open_pictures(path, expansions, variants)
            return self._pictures[key]
