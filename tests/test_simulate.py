"""Bots and simulation: seeded bots, one game, exact tallies, serial equals parallel."""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import subprocess
import sys
from fractions import Fraction

import pytest

from compiler import generate_python
from metro.analysis.simulate import GameResult, Tally, batches, play_game, simulate, wilson_interval
from metro.bots import BOTS, RandomBot, make_bot
from runtime.errors import RuleError
from tests.conftest import ROOT

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
simulate_module = importlib.import_module("metro.analysis.simulate")

CRASH = """game "Crash" {
  players 2..2
  state { total: int public }
  flow { total = 10 / (total - total) }
  score(p) = total
  rank p by total desc
}
"""


def test_random_bot_is_seeded_and_picks_legal_actions(ttr):
    state = ttr.new_game(2, seed=5)
    player = state.to_move[0]
    legal = state.legal_actions(player)
    first = [RandomBot("s").choose(state, player) for _ in range(3)]
    assert len(set(first)) == 1 and first[0] in legal
    bot = RandomBot("s")
    picks = {bot.choose(state, player) for _ in range(50)}
    assert picks <= set(legal) and len(picks) > 1


def test_make_bot_knows_random_and_names_the_known_bots():
    assert "random" in BOTS
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(ValueError, match=r"known: .*random"):
        make_bot("oracle", 1)


def test_play_game_reaches_the_end(ttr):
    bots = [make_bot("random", f"t/{p}") for p in range(3)]
    result = play_game(ttr, 3, "t", bots)
    assert result.over and result.decisions > 0
    assert sorted(result.ranking)[0] == 1
    assert result.winners == [p for p, place in enumerate(result.ranking) if place == 1]
    again = play_game(ttr, 3, "t", [make_bot("random", f"t/{p}") for p in range(3)])
    assert again == result


def test_tally_splits_a_tie_for_first_and_merges_exactly():
    tally = Tally.empty(3)
    tally.add(GameResult("a", [5, 5, 1], [1, 1, 3], [0, 1], 10, True))
    other = Tally.empty(3)
    other.add(GameResult("b", [0, 0, 9], [2, 2, 1], [2], 4, True))
    tally.merge(other)
    assert tally.wins == [Fraction(1, 2), Fraction(1, 2), Fraction(1)]
    assert (tally.games, tally.decisions, tally.score_sums) == (2, 14, [5, 5, 10])


def test_batches_cover_every_game_once():
    for games, parts in [(1, 16), (10, 3), (100, 16), (7, 7)]:
        runs = batches(games, parts)
        assert len(runs) <= parts
        indices = [i for start, count in runs for i in range(start, start + count)]
        assert indices == list(range(games))


def test_wilson_interval():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0


def test_serial_and_parallel_runs_agree():
    serial = simulate(TTR, players=3, games=24, seed="x")
    parallel = simulate(TTR, players=3, games=24, seed="x", jobs=2)
    assert serial.games == parallel.games == 24
    assert serial.wins == parallel.wins and sum(serial.wins) == 24
    assert serial.mean_scores == parallel.mean_scores
    assert serial.decisions == parallel.decisions
    assert serial.games_per_second > 0 and serial.decisions_per_second > 0
    summary = serial.to_dict()
    assert summary["wins_by_seat"] == serial.wins and len(summary["win_rate_ci95"]) == 3


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="only forked workers inherit the game"
)
def test_simulate_rejects_bad_counts():
    with pytest.raises(ValueError, match="players"):
        simulate(TTR, players=9, games=1, seed=1)
    with pytest.raises(ValueError, match="at least 1"):
        simulate(TTR, players=2, games=0, seed=1)


def test_a_rule_error_names_the_game_and_its_seed(tmp_path):
    game = tmp_path / "crash" / "rules.metro"
    game.parent.mkdir()
    game.write_text(CRASH, encoding="utf-8")
    with pytest.raises(
        RuleError, match=r"in game 0 \(seed 's/0'\): .*rules.metro:4: division by zero"
    ):
        simulate(str(game.parent), players=2, games=3, seed="s")


def test_the_runners_floor_benchmark_takes_as_many_decisions_as_the_yardsticks_games():
    # bench/turns_only is bench_ratios.py's measure of the runner alone: its rate compares with
    # the yardstick's games only while a game has about as many decisions as one of those.
    report = simulate(os.path.join(ROOT, "bench", "turns_only"), players=4, games=3, seed="b")
    assert report.finished == 3 and report.mean_decisions == 300


def run_bench(script: str, *args: str) -> subprocess.CompletedProcess:
    """Run one of bench/'s scripts (briefly, as `args` ask), requiring it to succeed."""
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_games_benchmark_plays_each_configuration_in_rounds():
    # bench/bench_games.py (a benchmark, not a timed test): the games asked for, over its rounds.
    done = run_bench(
        "bench_games.py", "--json", "--games", "3", "--rounds", "2", "--only", "Izakaya, 2"
    )
    (row,) = json.loads(done.stdout)["rows"]
    assert row["label"].startswith("Izakaya, 2") and row["games"] == 3 and row["ratio"] is None
    assert row["mean_decisions"] > 0


def test_the_module_comparison_benchmark_plays_both_modules_to_the_same_games(tmp_path):
    # bench/bench_ab.py (a benchmark, not a timed test): one module against itself must play
    # the same games; only that it runs and compares them is checked here.
    module = tmp_path / "izakaya.py"
    module.write_text(generate_python(os.path.join(ROOT, "games", "izakaya")), encoding="utf-8")
    done = run_bench(
        "bench_ab.py", str(module), str(module), "--players", "2", "--rounds", "1", "--games", "2"
    )
    assert "as fast" in done.stdout and "the same scores in as many decisions" in done.stdout


# A stand-in for the yardstick engine (kept outside the repository): a countdown by ones or twos.
FAKE_YARDSTICK = """
class Countdown:
    def __init__(self):
        self.left = 10


def new_game(players, seed=0):
    return Countdown()


def is_over(s):
    return s.left == 0


def legal_actions(s):
    return [1, 2] if s.left >= 2 else [1]


def apply(s, a):
    s.left -= a


def play_random(players, seed, policy_seed=None):
    s, d = new_game(players, seed), 0
    while not is_over(s):
        apply(s, legal_actions(s)[-1])
        d += 1
    return s, d
"""


def test_the_listing_benchmark_times_both_engines_at_every_decision(tmp_path):
    # bench/bench_listing.py (a benchmark, not a timed test): positions kept and timed in both.
    fake = tmp_path / "yardstick.py"
    fake.write_text(FAKE_YARDSTICK, encoding="utf-8")
    done = run_bench(
        "bench_listing.py",
        "--json",
        "--yardstick",
        str(fake),
        "--games",
        "2",
        "--repeats",
        "1",
        "--rounds",
        "1",
        "--batch-seconds",
        "0.05",
    )
    figures = json.loads(done.stdout)
    assert 5 * 2 <= figures["yardstick_positions"] <= 10 * 2  # two countdowns of 5 to 10 moves
    assert figures["positions"] > 2 * 100  # two Ticket to Ride games
    assert figures["listing_us"] > 0 and figures["runner_us"] > 0
    assert figures["budget_us"] == 2 * figures["yardstick_decision_us"]
