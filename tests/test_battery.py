"""The random-play battery over every shipped game, player count, variant and expansion.

Each configuration plays seeded games (100 by default; METRO_BATTERY_GAMES overrides) and checks
the state contract after every step. Games that declare a default bot are played by it.
"""

from __future__ import annotations

import os
import random

import pytest

from compiler import load_game
from compiler.resolve import available_patches, expansion_named, find_patch_file, patch_title
from metro.battery import run_battery
from metro.preference import declared_bot
from tests.conftest import ROOT, game_dirs

GAMES_PER_CONFIG = int(os.environ.get("METRO_BATTERY_GAMES", "100"))


def _setups(path: str):
    """(label, expansions, variants) for the base game, each expansion and each variant."""
    game_dir = os.path.join(ROOT, path)
    yield "base", (), ()
    for name in available_patches(game_dir, "expansions"):
        yield name, (name,), ()
    for name in available_patches(game_dir, "variants"):
        found = patch_title(find_patch_file(game_dir, name, "variants"))
        needs = tuple(
            e for e in (expansion_named(game_dir, t) for t in (found[1] if found else ())) if e
        )
        yield name, needs, (name,)


def _configs():
    for path in game_dirs():
        for label, expansions, variants in _setups(path):
            game = load_game(path, expansions=expansions, variants=variants)
            for players in range(game.min_players, game.max_players + 1):
                yield pytest.param(
                    path,
                    expansions,
                    variants,
                    players,
                    id=f"{os.path.basename(path)}-{label}-{players}p",
                )


@pytest.mark.parametrize(("path", "expansions", "variants", "players"), list(_configs()))
def test_random_play_battery(path, expansions, variants, players):
    game = load_game(path, expansions=expansions, variants=variants)
    choose = None
    if game.default_bot:
        bots = {}

        def choose(state, player, legal, rng: random.Random):
            bot = bots.setdefault(player, declared_bot(game, game.default_bot, rng.random()))
            return bot.choose(state, player)

    report = run_battery(game, players, GAMES_PER_CONFIG, seed=players, choose=choose)
    assert report.problems == [], "\n".join(report.problems)
    assert report.games == GAMES_PER_CONFIG
