"""The .metro compiler: resolve, check, validate maps, lower, emit Python, cache.

`load_game` of a cached game imports only the light loader; the front end and code
generation are imported when something is compiled.
"""

from compiler.loading import load_game

__all__ = ["compile_game", "generate_python", "load_game"]


def __getattr__(name: str):
    if name in ("compile_game", "generate_python"):
        from compiler import driver  # heavy: only when something is compiled

        return getattr(driver, name)
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")
