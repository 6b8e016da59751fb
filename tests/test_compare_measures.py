"""`metro compare`'s measures of how games unfold, its recording mode and its skill trace."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from jsonschema import validate

from loader.games import game_path
from metro.analysis.compare import (
    Config,
    ConfigResult,
    Record,
    compare,
    compare_with_base,
    configurations,
)
from metro.analysis.measures import (
    Decision,
    GameMeasures,
    Trajectory,
    decisiveness,
    drama,
    lead_changes,
    lead_sequence,
    score_spread,
    stability,
    turns,
)
from metro.analysis.simulate import GameResult, Setup, play_results, prepare
from metro.analysis.skill import SkillPlan
from metro.cli import main
from tests.conftest import ROOT

pytest.importorskip("scipy")

TTR = os.path.join(ROOT, "games", "ticket_to_ride")

# A small race with an estimate: a simultaneous opening choice, then ROUNDS turns each, a turn
# being one step (1 to 3 points) and, after an even total, one forced rest (a second decision).
RACE = """\
game "Race" {
  players 2..3
  const ROUNDS = 4
  per player { points: int public }
  action step(k in [1, 2, 3]) { me.points += k }
  action rest() { me.points += 1 }
  flow {
    each p in players choose opening: 0..1
    repeat ROUNDS times {
      for p in players {
        choose by p { step }
        if p.points % 2 == 0 { choose by p { rest } }
      }
    }
  }
  score(p) = p.points
  rank p by p.points desc
  estimate(p) = p.points
}
"""
LONG = 'variant "Long" for "Race" {\n  override const ROUNDS = 6\n}\n'


@pytest.fixture(scope="module")
def race(tmp_path_factory) -> str:
    """The race's directory, with its variant `long` (six rounds instead of four)."""
    folder = tmp_path_factory.mktemp("race")
    (folder / "rules.metro").write_text(RACE, encoding="utf-8")
    (folder / "variants").mkdir()
    (folder / "variants" / "long.metro").write_text(LONG, encoding="utf-8")
    return str(folder)


def _schema() -> dict:
    with open(os.path.join(ROOT, "schemas", "compare.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)


# ---------------------------------------------------------------- measures by hand


def test_a_turn_is_a_run_of_one_players_decisions_and_a_simultaneous_step_is_one_turn():
    alone = [Decision(0, 2, (0,)), Decision(0, 2, (0,)), Decision(1, 2, (1,)), Decision(0, 2, (0,))]
    assert turns(alone) == 3
    # P1 and P2 choose at once (P2 was already to move when P1 chose), then P1 again.
    together = [Decision(0, 2, (0, 1)), Decision(1, 2, (1,)), Decision(0, 2, (0,))]
    assert turns(together) == 2
    assert turns([]) == 0


def test_branching_factor_and_decision_moves():
    decisions = [Decision(0, 1, (0,)), Decision(1, 3, (1,)), Decision(0, 2, (0,))]
    measures = GameMeasures.of(Trajectory(2, decisions, [0]))
    assert (measures.branching_mean, measures.branching_max) == (2, 3)
    assert measures.decision_moves == pytest.approx(2 / 3)
    assert measures.lead_changes is None and measures.stability is None  # no estimate
    empty = GameMeasures.of(Trajectory(2, [], [0]))
    assert (empty.turns, empty.branching_mean, empty.decision_moves) == (0, None, None)


# Estimates before each of five decisions: P1 leads, P2 overtakes, P1 wins: two lead changes.
SWING = [[0, 0], [1, 0], [1, 2], [1, 2], [3, 2]]


def test_lead_changes_count_each_new_sole_leader():
    leaders = lead_sequence(SWING, 0)
    assert leaders == [None, 0, 1, 1, 0, 0]
    assert lead_changes(leaders) == 2
    # A shared top keeps the last leader: 0, tie, 1 is one change, not two.
    assert lead_changes(lead_sequence([[1, 0], [1, 1], [1, 2]], 1)) == 1
    assert lead_changes(lead_sequence([[0, 0], [0, 0]], None)) == 0


def test_decisiveness_is_when_the_winner_leads_for_good():
    assert decisiveness(lead_sequence(SWING, 0), 0) == pytest.approx(4 / 5)
    led_throughout = [[1, 0], [2, 0], [2, 1]]
    assert decisiveness(lead_sequence(led_throughout, 0), 0) == 0
    # Tied until the end: the winner leads only once the game is over.
    assert decisiveness(lead_sequence([[0, 0], [1, 1]], 1), 1) == 1


def test_drama_is_the_winners_worst_deficit_over_the_games_range():
    assert drama(SWING, 0) == pytest.approx(1 / 3)  # 1 behind at worst, estimates from 0 to 3
    assert drama([[1, 0], [2, 0], [2, 1]], 0) == 0
    assert drama([[0, 0], [0, 0]], 0) == 0


def test_stability_is_the_mean_move_per_decision_over_the_range():
    # Moves per seat: (1, 0), (0, 2), (0, 0), (2, 0): 5 over 8 moves, range 3.
    assert stability(SWING) == pytest.approx(5 / 8 / 3)
    assert stability([[4, 4], [4, 4]]) == 0
    assert stability([[1, 2]]) is None


def test_a_shared_win_has_no_decisiveness_or_drama_but_lead_changes_and_stability():
    decisions = [Decision(p % 2, 2, (p % 2,)) for p in range(5)]
    measures = GameMeasures.of(Trajectory(2, decisions, [0, 1], SWING))
    assert measures.decisiveness is None and measures.drama is None
    assert measures.lead_changes == 2  # P1, P2, P1 by the estimate; a shared end adds none
    assert measures.stability == pytest.approx(5 / 8 / 3)


def test_score_spread_is_the_standard_deviation_within_a_game():
    assert score_spread([1, 3]) == 1
    assert score_spread([2, 2, 2]) == 0
    assert score_spread([7]) == 0


def _record(config: str, index: int, winners: list[int], measures: GameMeasures) -> Record:
    result = GameResult(index, [5, 5], [1, 1], winners, 4, True, {}, measures)
    return Record(config, index, result, ("random", "random"))


def _config(label: str, records: list[Record]) -> ConfigResult:
    return ConfigResult(Config(label), "Game", records, [])


def test_draws_rounds_and_pairs_of_games_that_both_have_a_value():
    def measures(decided: float | None) -> GameMeasures:
        return GameMeasures(6, 2.0, 3, 1.0, 1, decided, 0.0, 0.1)

    base = _config("base", [_record("base", i, [0, 1], measures(None)) for i in range(2)])
    base.records.append(_record("base", 2, [0], measures(0.5)))
    base.records.append(_record("base", 3, [1], measures(0.25)))
    other = _config("x", [_record("x", i, [0], measures(1.0)) for i in range(4)])
    assert base.draws == 2 and base.interval("draws")[0] == 0.5
    low, high = base.draw_interval()
    assert 0 < low < 0.5 < high < 1
    assert base.measure("game length (rounds)") == [3, 3, 3, 3]  # 6 turns by 2 players
    assert base.measure("decisiveness") == [None, None, 0.5, 0.25]
    by_name = {d.name: d for d in compare_with_base(base, other).differences}
    decided = by_name["decisiveness"]  # only games 2 and 3 are paired: differences 0.5, 0.75
    assert (decided.base, decided.other, decided.mean) == (0.375, 1.0, 0.625)
    assert by_name["draws"].mean == -0.5


# ---------------------------------------------------------------- recording and games


def _results(path: str, bots: tuple[str, ...], count: int, record: bool) -> list[GameResult]:
    setup = Setup(game_path(path), len(bots), "rec", bots)
    _, game = prepare(setup)
    return play_results(game, setup, 0, count, metrics=True, record=record)


def _outcome(result: GameResult) -> tuple:
    return (result.seed, result.scores, result.ranking, result.decisions, result.metrics)


@pytest.mark.parametrize(
    ("game", "bots", "count"),
    [
        ("ttr", ("random", "random"), 4),
        ("ttr", ("greedy", "random"), 1),
        ("race", ("mcts:8",) * 2, 3),
    ],
)
def test_recording_plays_the_very_same_games(race, game, bots, count):
    path = TTR if game == "ttr" else race
    plain = _results(path, bots, count, record=False)
    recorded = _results(path, bots, count, record=True)
    assert [_outcome(r) for r in recorded] == [_outcome(r) for r in plain]
    assert all(r.measures is None for r in plain)
    assert all(r.measures is not None and r.measures.turns > 0 for r in recorded)


def test_the_race_counts_its_turns_rounds_and_lead(race):
    result = compare(race, 2, 6, "m", ["random", "random"], configurations(["long"]))
    base, long = result.results
    # An opening choice made at once (one turn), then one turn per player per round.
    assert base.measure("game length (turns)") == [1 + 2 * 4] * 6
    assert long.measure("game length (turns)") == [1 + 2 * 6] * 6
    assert long.measure("game length (rounds)") == [6.5] * 6
    assert all(1 <= v <= 3 for v in base.values("branching factor (mean)"))
    assert base.values("branching factor (max)") == [3] * 6
    assert base.defined("lead changes") and base.defined("stability")
    (comparison,) = result.comparisons
    by_name = {d.name: d for d in comparison.differences}
    assert by_name["game length (turns)"].low == by_name["game length (turns)"].high == 4
    assert "variant long raises the game length (turns) by 4" in " ".join(comparison.words)


def test_the_measures_do_not_depend_on_the_number_of_jobs(race):
    configs = configurations(["long"])
    serial = compare(race, 2, 8, "j", ["random", "random"], configs, skill=SkillPlan(2, 1, 2))
    pooled = compare(
        race, 2, 8, "j", ["random", "random"], configs, jobs=2, skill=SkillPlan(2, 1, 2)
    )
    one, two = serial.to_dict(), pooled.to_dict()
    one.pop("seconds"), two.pop("seconds")
    assert one == two


# ---------------------------------------------------------------- skill trace, JSON, report, CLI


@pytest.fixture(scope="module")
def traced(race):
    """The race and its variant compared, with a two-round skill trace of four games a round."""
    plan = SkillPlan(budget=2, rounds=2, games=4)
    return compare(race, 2, 4, "s", ["random", "random"], configurations(["long"]), skill=plan)


def test_the_skill_trace_reports_each_round_asked_for(traced):
    for config in traced.results:
        assert [(s.small, s.large) for s in config.skill] == [
            ("mcts:2", "mcts:4"),
            ("mcts:4", "mcts:8"),
        ]
        for trace in config.skill:
            assert len(trace.shares) == 4 and trace.finished == 4
            assert all(share in (0, 0.5, 1) for share in trace.shares)
            low, high = trace.interval
            assert low <= trace.win_rate <= high
    names = [d.name for d in traced.comparisons[0].differences]
    assert "skill: mcts:4 vs mcts:2 win rate" in names
    words = " ".join(traced.comparisons[0].words)
    assert "win rate of mcts:8 against mcts:4 (skill trace)" in words


def test_the_json_has_the_measures_and_follows_its_schema(traced):
    doc = json.loads(json.dumps(traced.to_dict()))
    validate(doc, _schema())
    base = doc["configurations"][0]
    assert {"draws", "game length (turns)", "lead changes", "decisiveness"} <= set(base["measures"])
    assert len(base["skill_trace"]) == 2 and doc["skill_trace"]["rounds"] == 2
    record = doc["records"][0]["measures"]
    assert set(record) >= {"turns", "branching_mean", "lead_changes", "stability"}
    assert all(not isinstance(v, list) for v in record.values())  # summaries, no trajectories


def test_the_report_shows_the_measures_and_the_skill_trace(traced):
    pytest.importorskip("matplotlib")
    from metro.analysis.report import render_report

    html = render_report(traced)
    assert "Measures: mean per game (95% interval)" in html and "decisiveness" in html
    assert "<h2>Skill trace</h2>" in html and "mcts:4 vs mcts:2" in html
    assert html.count('<img src="data:image/png;base64,') == 5  # with the skill trace's plot


def test_the_command_prints_the_new_rows_and_the_skill_trace(race):
    args = ["compare", race, "--variant", "long", "--games", "3", "--skill-trace"]
    args += ["--skill-rounds", "2", "--skill-budget", "2", "--skill-games", "2"]
    result = CliRunner().invoke(main, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for row in ("draws", "game length (turns)", "game length (rounds)", "branching factor (max)"):
        assert row in text
    for row in ("decision moves", "lead changes", "decisiveness", "drama", "stability"):
        assert row in text
    assert "Skill trace" in text and "mcts:8 vs mcts:4" in text


def test_a_skill_budget_out_of_bounds_is_a_usage_error(race):
    args = ["compare", race, "--variant", "long", "--skill-trace", "--skill-budget", "5000"]
    result = CliRunner().invoke(main, [*args, "--skill-rounds", "2"])
    assert result.exit_code == 2 and "budget" in result.output
    assert "Traceback" not in result.output
    alone = CliRunner().invoke(main, ["compare", race, "--variant", "long", "--skill-games", "5"])
    assert alone.exit_code == 2 and "add --skill-trace" in alone.output
