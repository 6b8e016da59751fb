"""A game's own way of turning a city network into its map file: the module
`tools/city_import.py` in a shipped game's folder, with `map_from_network(network) -> (text,
notes)`. Only shipped games' importers run: a game folder from elsewhere is rules, not code."""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable
from importlib import resources

from loader.games import shipped_games, shipped_name
from metro.network.model import Network

IMPORTER = os.path.join("tools", "city_import.py")

MapBuilder = Callable[[Network], tuple[str, list[str]]]


class NoImporter(ValueError):
    """The game has no city importer (or is not a shipped game)."""


def importing_games() -> list[str]:
    """The shipped games that can take a city network, sorted."""
    root = resources.files("games")
    return [name for name in shipped_games() if root.joinpath(name, IMPORTER).is_file()]


def map_builder(game: str) -> MapBuilder:
    """The `map_from_network` of a shipped game (by name, or its folder or rules file)."""
    name = game if game in shipped_games() else shipped_name(game) if os.path.exists(game) else None
    offered = ", ".join(importing_games()) or "none"
    if name is None or name not in importing_games():
        what = "is not a shipped game" if name is None else "has no city importer"
        raise NoImporter(f"{game!r} {what}; games that import cities: {offered}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # `games` is also an old import path
        module = importlib.import_module(f"games.{name}.tools.city_import")
    return module.map_from_network
