"""The random-play battery over every shipped game and player count (100 seeded games each)."""

from __future__ import annotations

import os

import pytest

from compiler import load_game
from runtime.testing import run_battery
from tests.conftest import game_dirs

GAMES_PER_CONFIG = int(os.environ.get("METRO_BATTERY_GAMES", "100"))


def _configs():
    for path in game_dirs():
        game = load_game(path)
        for players in range(game.min_players, game.max_players + 1):
            yield pytest.param(path, players, id=f"{os.path.basename(path)}-{players}p")


@pytest.mark.parametrize(("path", "players"), list(_configs()))
def test_random_play_battery(path, players):
    game = load_game(path)
    report = run_battery(game, players, GAMES_PER_CONFIG, seed=players, check_every=7)
    assert report.problems == [], "\n".join(report.problems)
    assert report.games == GAMES_PER_CONFIG
