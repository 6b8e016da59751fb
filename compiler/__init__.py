"""The .metro compiler: resolve, check, validate maps, lower, emit Python.

Importing this package is light: the front end and code generation are imported when
something is compiled. Loading a game (from the module cache, compiled on a miss) is the
loader's job (`loader/`), above the compiler.
"""

__all__ = ["compile_game", "generate_python"]


def __getattr__(name: str):
    if name in ("compile_game", "generate_python"):
        from compiler import driver  # heavy: only when something is compiled

        return getattr(driver, name)
    if name == "load_game":  # where the loader lived; it is `loader.load_game` now
        import warnings

        from loader import load_game

        warnings.warn(
            "compiler.load_game has moved to loader.load_game; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return load_game
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")
