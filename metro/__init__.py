"""metro: board games written as .metro rule files, compiled to Python state machines and played.

import metro
name = metro.shipped_games()[0]    # a shipped game's name, or the path of a game's folder
game = metro.load_game(name)
state = game.new_game(players=2, seed=7)
stats = metro.simulate(name, players=2, games=100, seed=1)
"""

from __future__ import annotations

import compiler
import loader
from dsl.diagnostics import CompileError
from loader.games import UnknownGame, game_path, shipped_games
from metro.analysis.simulate import GameResult, SimulationStats, play_game, simulate
from metro.bots import Bot, bot_names, make_bot
from runtime import Action, Game, IllegalAction, InvalidSave, RuleError, ScenarioFailure, State
from runtime.chance import CHANCE, ChanceNode, replay_record
from runtime.errors import MetroRuntimeError


def load_game(game: str, expansions=(), variants=(), map: str | None = None) -> Game:
    """Compile (or load from the cache) a shipped game by name, or a game at a path."""
    return loader.load_game(game_path(game), expansions=expansions, variants=variants, map=map)


RL_EXTRA = "the RL environments need the rl extra: pip install 'metro-games[rl]'"


def pettingzoo_env(name: str, players: int, **options):
    """A game as a PettingZoo AEC environment (needs the rl extra; see metro/rl/pettingzoo_adapter.py)."""
    try:  # numpy and pettingzoo load only now
        from metro.rl.pettingzoo_adapter import pettingzoo_env as make
    except ImportError as error:
        raise ImportError(f"{RL_EXTRA} ({error})") from error
    return make(name, players, **options)


def openspiel_game(name: str, players: int, **options):
    """A game as an OpenSpiel game (needs the rl extra; see metro/rl/openspiel_adapter.py)."""
    try:  # pyspiel loads only now
        from metro.rl.openspiel_adapter import openspiel_game as make
    except ImportError as error:
        raise ImportError(f"{RL_EXTRA} ({error})") from error
    return make(name, players, **options)


def compare(*args, **options):
    """Play the base and other configurations on the same seeds and compare them (metro.analysis.compare)."""
    from metro.analysis.compare import compare as run

    return run(*args, **options)


def compile_game(game: str, expansions=(), variants=(), map: str | None = None):
    """Compile a game by name or path and return the compile context (diagnostics, Python)."""
    return compiler.compile_game(game_path(game), expansions, variants, map)


__all__ = [
    "CHANCE",
    "Action",
    "Bot",
    "ChanceNode",
    "CompileError",
    "Game",
    "GameResult",
    "IllegalAction",
    "InvalidSave",
    "MetroRuntimeError",
    "RuleError",
    "ScenarioFailure",
    "SimulationStats",
    "State",
    "UnknownGame",
    "bot_names",
    "compare",
    "compile_game",
    "game_path",
    "load_game",
    "make_bot",
    "openspiel_game",
    "pettingzoo_env",
    "play_game",
    "replay_record",
    "shipped_games",
    "simulate",
]
