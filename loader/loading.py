"""Loading a game: from the module cache when it holds it, else compiled (the front end only then).

This module imports nothing of the front end or code generation until a game must be
compiled, so running a cached game (`metro simulate`, bots, the API) never loads Lark,
jinja2 or networkx.
"""

from __future__ import annotations

import hashlib
import os

from loader import cache
from loader.games import find_game_file
from runtime.machine import Game, compile_module, run_module


def game_key(path: str, expansions=(), variants=(), map: str | None = None) -> tuple[str, str]:
    """The game file and the module cache's key of a compile ("" when nothing can be keyed)."""
    game_file = find_game_file(path)
    if not os.path.isfile(game_file):
        return game_file, ""  # nothing to key on: compiling reports the missing file
    extra = [*expansions, *variants, map or ""]
    # The paths as given are written into the module (its messages name the files that way), so
    # they are part of the key, with the directory relative ones start from.
    given = (path, *extra)
    start = os.getcwd() if any(p and not os.path.isabs(p) for p in given) else ""
    options = repr((path, start, tuple(expansions), tuple(variants), map))
    return game_file, cache.cache_key(game_file, [e for e in extra if e], options)


def _generated(path: str, expansions, variants, map: str | None, key: str) -> str:
    """The generated module's text: from the cache, else compiled (and then cached)."""
    source = cache.load(key) if key else None
    if source is None:
        from compiler.driver import generate_python  # the heavy path: only on a miss

        source = generate_python(path, expansions, variants, map)
        if key:
            cache.store(key, source)
    return source


def game_source(
    path: str, expansions=(), variants=(), map: str | None = None, use_cache: bool = True
) -> tuple[str, str]:
    """The generated module's text (compiled, or from the cache) and a name for its tracebacks."""
    source, filename, _ = keyed_game_source(path, expansions, variants, map, use_cache)
    return source, filename


def keyed_game_source(
    path: str, expansions=(), variants=(), map: str | None = None, use_cache: bool = True
) -> tuple[str, str, str]:
    """`game_source`, and the key this process remembers the game by (`loaded`)."""
    game_file, key = game_key(path, expansions, variants, map)
    key = key if use_cache else ""
    source = _generated(path, expansions, variants, map, key)
    memo = key or "text:" + hashlib.sha256(source.encode()).hexdigest()
    return source, f"<metro:{game_file}>", memo


# The games this process has run, by cache key: a command that loads a game (to check its
# players and bots) and then simulates it runs the module once, and forked workers inherit it.
_LOADED: dict[str, Game] = {}
_LOADED_MAX = 8


def remember(key: str, game: Game) -> Game:
    """Keep `game` as this process's game of `key` (a few at most); return it."""
    if key:
        if len(_LOADED) >= _LOADED_MAX:
            _LOADED.clear()
        _LOADED[key] = game
    return game


def loaded(key: str) -> Game | None:
    """The game of `key` this process has run, if any."""
    return _LOADED.get(key) if key else None


def game_from_source(source: str, filename: str, variants: tuple[str, ...] = ()) -> Game:
    """A runnable Game from a generated module's text (what a worker without the compiler runs)."""
    digest = hashlib.sha256(source.encode()).hexdigest()
    code = compile_module(source, filename)
    return Game(run_module(code, filename, f"metro_game_{digest[:12]}"), tuple(variants))


def load_game(
    path: str, expansions=(), variants=(), map: str | None = None, use_cache: bool = True
) -> Game:
    """Compile (or load from the cache) and return a runnable Game."""
    game_file, key = game_key(path, expansions, variants, map)
    key = key if use_cache else ""
    filename = f"<metro:{game_file}>"
    name = f"metro_game_{key[:12] or 'nocache'}"
    code = cache.load_code(key) if key else None
    if code is None:
        code = compile_module(_generated(path, expansions, variants, map, key), filename)
        if key:
            cache.store_code(key, code)
    return remember(key, Game(run_module(code, filename, name), tuple(variants)))
