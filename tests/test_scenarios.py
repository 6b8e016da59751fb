"""Every scenario written beside the rules of every shipped game passes."""

from __future__ import annotations

import pytest

from compiler import load_game
from runtime.scenarios import run_scenario, scenarios
from tests.conftest import game_dirs


def _cases():
    for path in game_dirs():
        game = load_game(path)
        for scenario in scenarios(game):
            yield pytest.param(game, scenario, id=f"{path.split('/')[-1]}:{scenario.name}")


@pytest.mark.parametrize(("game", "scenario"), list(_cases()))
def test_scenario(game, scenario):
    run_scenario(game, scenario)
