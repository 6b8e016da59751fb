"""Loading a game: from the module cache when it holds it, else compiled (the front end only then).

This module imports nothing of the front end or code generation until a game must be
compiled, so running a cached game (`metro simulate`, bots, the API) never loads Lark,
jinja2 or networkx.
"""

from __future__ import annotations

import os

from compiler import cache
from compiler.game_files import find_game_file
from runtime.machine import Game, compile_module, run_module


def load_game(
    path: str, expansions=(), variants=(), map: str | None = None, use_cache: bool = True
) -> Game:
    """Compile (or load from the cache) and return a runnable Game."""
    game_file = find_game_file(path)
    if not os.path.isfile(game_file):
        use_cache = False  # nothing to key on: compiling reports the missing file
    extra = [*expansions, *variants, map or ""]
    options = repr((tuple(expansions), tuple(variants), map))
    key = cache.cache_key(game_file, [e for e in extra if e], options) if use_cache else ""
    filename = f"<metro:{game_file}>"
    name = f"metro_game_{key[:12] or 'nocache'}"
    code = cache.load_code(key) if use_cache else None
    if code is None:
        source = cache.load(key) if use_cache else None
        if source is None:
            from compiler.driver import generate_python  # the heavy path: only on a miss

            source = generate_python(path, expansions, variants, map)
            if use_cache:
                cache.store(key, source)
        code = compile_module(source, filename)
        if use_cache:
            cache.store_code(key, code)
    return Game(run_module(code, filename, name), tuple(variants))
