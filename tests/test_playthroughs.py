"""Golden playthroughs: one seeded game per shipped game, compared line by line.

Regenerate after an intended rule change with `metro playthrough PATH -o tests/playthroughs/NAME.txt`
(or METRO_REGEN=1 python -m pytest tests/test_playthroughs.py) and review the diff.
"""

from __future__ import annotations

import os

import pytest

from loader import load_game
from metro.analysis.playthrough import transcript
from tests.conftest import ROOT, game_dirs

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playthroughs")
REGENERATE = os.environ.get("METRO_REGEN") == "1"


@pytest.mark.parametrize("path", game_dirs())
def test_golden_playthrough(path):
    game = load_game(os.path.join(ROOT, path))
    players = min(max(3, game.min_players), game.max_players)
    got = transcript(game, players, seed=1)
    golden = os.path.join(HERE, f"{os.path.basename(path)}.txt")
    if REGENERATE or not os.path.exists(golden):
        with open(golden, "w", encoding="utf-8") as handle:
            handle.write(got)
    with open(golden, encoding="utf-8") as handle:
        expected = handle.read()
    if got != expected:
        diff = [
            f"line {i + 1}: expected {a!r}, got {b!r}"
            for i, (a, b) in enumerate(zip(expected.splitlines(), got.splitlines(), strict=False))
            if a != b
        ]
        pytest.fail("playthrough differs from the golden file:\n" + "\n".join(diff[:5]))
