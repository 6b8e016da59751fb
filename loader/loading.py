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
    # The module's text names no path, but its compiled code does (`<metro:GAME_FILE>`, whose
    # folder its rule files are joined to: messages name them as given), so the paths as given
    # are part of the key, with the directory relative ones start from.
    given = (path, *extra)
    start = os.getcwd() if any(p and not os.path.isabs(p) for p in given) else ""
    options = repr((path, start, tuple(expansions), tuple(variants), map))
    return game_file, cache.cache_key(game_file, [e for e in extra if e], options)


SCENARIOS_PART = ".scenarios"  # the cache entry of a game's scenarios module: KEY.scenarios.py
TEXT_KEY = "text:"  # what a game without a cache key is remembered by: its text's digest


def _generated(
    path: str, expansions, variants, map: str | None, key: str, part: str = ""
) -> tuple[str, str | None]:
    """The text of the game module (`part` "") or of its scenarios module (SCENARIOS_PART):
    from the cache, else compiled (and both then cached). On a compile, the other text too."""
    source = cache.load(key + part) if key else None
    if source is not None:
        return source, None
    from compiler.driver import compile_game  # the heavy path: only on a miss

    ctx = compile_game(path, expansions, variants, map)
    if key:
        cache.store(key, ctx.python)
        cache.store(key + SCENARIOS_PART, ctx.scenarios_python)
    if part:
        return ctx.scenarios_python, ctx.python
    return ctx.python, ctx.scenarios_python


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
    source = _generated(path, expansions, variants, map, key)[0]
    memo = key or TEXT_KEY + hashlib.sha256(source.encode()).hexdigest()
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


def game_from_source(
    source: str,
    filename: str,
    variants: tuple[str, ...] = (),
    scenarios: str | None = None,
    key: str = "",
) -> Game:
    """A runnable Game from a generated module's text (what a worker without the compiler runs),
    with the text of its scenarios module if it is given (else it has none).

    With the key `keyed_game_source` gave with the text, the module's compiled code is taken
    from the module cache when this machine's holds it, as `load_game` does: compiling the text
    is most of a load's time, and its peak memory (a few MiB) stays with the process."""
    digest = hashlib.sha256(source.encode()).hexdigest()
    name = f"metro_game_{digest[:12]}"
    code = cache.load_code(key) if key and not key.startswith(TEXT_KEY) else None
    if code is None:
        code = compile_module(source, filename)
    loader = None
    if scenarios is not None:

        def loader(module):
            return run_module(
                compile_module(scenarios, _scenarios_file(filename)),
                _scenarios_file(filename),
                name + "_scenarios",
                module,
            )

    return Game(run_module(code, filename, name), tuple(variants), loader)


def _scenarios_file(filename: str) -> str:
    """The tracebacks' name of a scenarios module, from its game module's."""
    return filename.replace("<metro:", "<metro-scenarios:", 1)


def load_game(
    path: str, expansions=(), variants=(), map: str | None = None, use_cache: bool = True
) -> Game:
    """Compile (or load from the cache) and return a runnable Game.

    Its scenarios module is loaded when the scenarios or invariants are first asked for:
    from the cache under the same key (an entry for files changed since is never taken).
    """
    game_file, key = game_key(path, expansions, variants, map)
    key = key if use_cache else ""
    filename = f"<metro:{game_file}>"
    name = f"metro_game_{key[:12] or 'nocache'}"
    code = cache.load_code(key) if key else None
    compiled: str | None = None  # the scenarios module's text, when this load compiled the game
    if code is None:
        source, compiled = _generated(path, expansions, variants, map, key)
        code = compile_module(source, filename)
        if key:
            cache.store_code(key, code)

    def scenarios(module):
        text = compiled
        part_key = key + SCENARIOS_PART if key else ""
        code = cache.load_code(part_key) if key else None
        if code is None:
            if text is None:
                if key and game_key(path, expansions, variants, map)[1] != key:
                    raise RuntimeError(
                        f"the rule files of {game_file} changed since the game was loaded: "
                        "load it again to run its scenarios"
                    )
                text = _generated(path, expansions, variants, map, key, SCENARIOS_PART)[0]
            code = compile_module(text, _scenarios_file(filename))
            if key:
                cache.store_code(part_key, code)
        return run_module(code, _scenarios_file(filename), f"{name}_scenarios", module)

    return remember(key, Game(run_module(code, filename, name), tuple(variants), scenarios))
