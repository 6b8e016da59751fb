"""The .metro compiler: resolve, check, validate maps, lower, emit Python, cache."""

from compiler.driver import compile_game, generate_python, load_game

__all__ = ["compile_game", "generate_python", "load_game"]
