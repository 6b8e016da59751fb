"""The pytest plugin collects a user's variant files wherever they are (`--metro-variant FILE`)."""

from __future__ import annotations

import os
import subprocess
import sys

HOUSE = """# A user's house rule, far from the game's folder.
variant "Small longest-route bonus" for "{game}" {{
  override const LONGEST_BONUS = 5

  scenario "small bonus: the longest trail earns 5" players 3 seed 1 {{
    for p in players {{ play p: keep(p.offered) }}
    for p in players {{ scenario_tickets(p, []) }}
    scenario_own(seat(1), [route["R047"]])
    last_round_from = seat(1)
    play seat(1): draw_blind; play seat(1): second_blind
    expect seat(1).score == 15 + 5
  }}

  scenario "small bonus: mistaken arithmetic" players 3 seed 1 {{
    expect LONGEST_BONUS == 10
  }}
}}
"""


def _pytest(cwd, *args: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_variant_file_anywhere_is_collected_when_named(tmp_path):
    house = tmp_path / "house" / "small_bonus.metro"
    house.parent.mkdir()
    house.write_text(HOUSE.format(game="Ticket to Ride"))
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    result = _pytest(elsewhere, "--metro-variant", str(house))
    assert result.returncode == 1, result.stdout[-2000:]
    assert "1 failed, 1 passed" in result.stdout
    assert f"{house}:14: scenario small bonus: mistaken arithmetic" in result.stdout
    assert "expected LONGEST_BONUS == 10; saw LONGEST_BONUS = 5" in result.stdout
    assert _pytest(house.parent).returncode == 5  # not named: nothing is collected


def test_the_game_of_a_variant_is_found_by_name_or_given(tmp_path):
    house = tmp_path / "renamed.metro"
    house.write_text(HOUSE.format(game="Train Game"))
    unknown = _pytest(tmp_path, "--metro-variant", str(house))
    assert unknown.returncode == 1
    assert (
        "no shipped game is named 'Train Game'; name its game with --metro-game" in unknown.stdout
    )
    given = _pytest(tmp_path, "--metro-variant", str(house), "--metro-game", "ticket_to_ride")
    assert "error[resolve]" in given.stdout  # the file says it is for another game
    missing = _pytest(tmp_path, "--metro-variant", str(tmp_path / "nope.metro"))
    assert missing.returncode == 4 and "--metro-variant: no file" in missing.stderr
