"""`metro tournament`: tables, seat rotations, seeds, Bradley–Terry ratings, JSON and the report."""

from __future__ import annotations

import json
import math
import os
import sys

import pytest
from click.testing import CliRunner
from jsonschema import validate

from loader import load_game
from metro.analysis.ratings import ELO_SCALE, Tally, fit, rate, standard_errors
from metro.analysis.simulate import play_game
from metro.analysis.tournament import MAX_TABLES, seated, tables, tournament
from metro.bots import make_bot
from metro.cli import main
from tests.conftest import ROOT

TTR = os.path.join(ROOT, "games", "ticket_to_ride")

# Each player adds 1 or 2 twice: a bot that takes the larger gain never loses, and ties only
# when the other took 2 both times.
GAME = """\
game "<i>Tally</i>" {
  players 2..3
  per player { points: int public }
  action gain(k in [1, 2]) { me.points += k }
  flow { repeat 2 times { for p in players { choose by p { gain } } } }
  score(p) = p.points
  rank p by p.points desc
  metric "<b>points</b>"(p) = p.points
}
"""


@pytest.fixture(scope="module")
def tally_game(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("tally")
    (folder / "rules.metro").write_text(GAME, encoding="utf-8")
    return str(folder)


@pytest.fixture(scope="module")
def played(tally_game):
    """Greedy against random on the tally game: 12 deals, both seat rotations."""
    return tournament(tally_game, 2, ["random", "greedy"], 12, "t")


def _schema() -> dict:
    with open(os.path.join(ROOT, "schemas", "tournament.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)


def test_the_tables_are_every_set_of_bots_of_the_table_size():
    assert tables(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(tables(["a", "b", "c", "d"], 3)) == 4
    # Fewer bots than seats: one table seats them in turn.
    assert tables(["a", "b"], 4) == [("a", "b", "a", "b")]
    with pytest.raises(ValueError, match="named twice"):
        tables(["a", "a"], 2)
    with pytest.raises(ValueError, match="at least two"):
        tables(["a"], 2)
    many = [f"b{i}" for i in range(12)]
    with pytest.raises(ValueError, match=f"at most {MAX_TABLES}"):
        tables(many, 5)  # C(12, 5) = 792 tables


def test_every_bot_of_a_table_sits_at_every_seat_over_the_rotations():
    table = ("a", "b", "c")
    rotations = [seated(table, r) for r in range(3)]
    assert rotations[0] == table
    for seat in range(3):
        assert sorted(r[seat] for r in rotations) == ["a", "b", "c"]


def test_a_deal_is_the_same_seeded_game_in_every_table_and_rotation(tally_game, played):
    game = load_game(tally_game)
    assert len(played.matches) == 12 * 2
    for match in played.matches[:6]:
        bots = [
            make_bot(spec, f"t/{match.deal}/{match.rotation}/{seat}", game)
            for seat, spec in enumerate(match.bots)
        ]
        again = play_game(game, 2, f"t/{match.deal}", bots, trusted=True)
        assert (again.scores, again.ranking) == (match.scores, match.places)
    assert [m.bots for m in played.matches[:2]] == [("random", "greedy"), ("greedy", "random")]


def test_the_bot_that_never_loses_is_rated_above_with_intervals_apart(played):
    greedy, random_ = played.standings[1], played.standings[0]
    assert greedy.games == random_.games == 24
    assert played.pairwise.wins[0][1] < played.pairwise.wins[1][0]  # random lost more often
    assert played.pairwise.contests(0, 1) == 24
    assert played.ratings[1].elo > 0 > played.ratings[0].elo
    assert played.ratings[1].low > played.ratings[0].high
    assert greedy.metric_totals["<b>points</b>"] == 4 * 24  # 2 + 2 in every game
    assert played.by_rating() == [1, 0]


def test_ratings_follow_the_contests_as_by_hand():
    tally = Tally(2)
    for places in [(1, 2), (1, 2), (1, 2), (2, 1)]:
        tally.add(0, 1, *places)
    # 3 of 4 won, plus one drawn contest: 3.5 of 5, so p0 / (p0 + p1) = 0.7.
    elo = fit(tally)
    assert elo[0] - elo[1] == pytest.approx(ELO_SCALE * math.log(0.7 / 0.3))
    assert elo[0] + elo[1] == pytest.approx(0)
    tally.add(0, 1, 1, 1)  # a tie is half a win each
    assert tally.wins[0][1] == 3.5 and tally.wins[1][0] == 1.5


def test_the_fit_recovers_the_strengths_that_made_the_results():
    strengths = [1.0, 2.0, 8.0]
    tally = Tally(3)
    for a in range(3):
        for b in range(3):
            if a != b:  # 10,000 contests a pair, won in proportion to the strengths
                tally.wins[a][b] = 10_000 * strengths[a] / (strengths[a] + strengths[b]) / 2
    elo = fit(tally)
    assert elo[1] - elo[0] == pytest.approx(ELO_SCALE * math.log(2), abs=0.5)
    assert elo[2] - elo[1] == pytest.approx(ELO_SCALE * math.log(4), abs=0.5)


def test_a_bot_that_won_every_contest_still_has_a_finite_rating():
    deals = []
    for _ in range(5):
        deal = Tally(2)
        deal.add(0, 1, 1, 2)
        deals.append(deal)
    ratings = rate(["a", "b"], deals, "s")
    assert all(math.isfinite(x) for r in ratings for x in (r.elo, r.low, r.high))
    assert ratings[0].elo > 0 and ratings[0].low <= ratings[0].elo <= ratings[0].high
    # The same deals and seed give the same intervals.
    assert rate(["a", "b"], deals, "s") == ratings


def test_the_results_do_not_depend_on_the_workers(tally_game, played):
    parallel = tournament(tally_game, 2, ["random", "greedy"], 12, "t", jobs=2)
    assert parallel.to_dict()["records"] == played.to_dict()["records"]
    assert parallel.ratings == played.ratings


def test_three_bots_at_tables_of_three_with_fewer_bots_than_seats(tally_game):
    result = tournament(tally_game, 3, ["random", "greedy"], 3, "u")
    assert result.tables == [("random", "greedy", "random")]
    assert len(result.matches) == 3 * 3
    # Two random seats at one table meet each other too, but are no contest between bots.
    assert result.pairwise.contests(0, 1) == 2 * 9 - sum(not m.over for m in result.matches)


def test_the_command_prints_the_ratings_and_writes_json_by_its_schema(tally_game):
    args = ["tournament", tally_game, "--players", "2", "--bots", "random,greedy"]
    result = CliRunner().invoke(main, [*args, "--games", "4"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Ratings (Bradley–Terry" in text and "Contests won" in text
    assert "1 table x 4 deals x 2 seat rotations = 8 games" in text
    as_json = CliRunner().invoke(main, [*args, "--games", "4", "--json"])
    assert as_json.exit_code == 0, as_json.output
    document = json.loads(as_json.output)
    validate(document, _schema())
    assert [r["bot"] for r in document["ratings"]] == ["greedy", "random"]
    assert len(document["records"]) == 8


def test_bad_bots_and_too_few_deals_are_usage_errors(tally_game):
    runner = CliRunner()
    base = ["tournament", tally_game, "--players", "2"]
    cases = {
        "random,random": "named twice",
        "random": "at least two",
        "random,nobody": "unknown bot 'nobody'",
        "random,mcts:0": "budget",
    }
    for bots, message in cases.items():
        result = runner.invoke(main, [*base, "--bots", bots])
        assert result.exit_code == 2 and message in result.output, result.output
    result = runner.invoke(main, [*base, "--bots", "random,greedy", "--games", "1"])
    assert result.exit_code == 2


def test_the_report_is_one_page_with_its_plot_and_escaped_names(tally_game, played, tmp_path):
    pytest.importorskip("matplotlib")
    report = tmp_path / "tournament.html"
    args = ["tournament", tally_game, "--players", "2", "--bots", "random,greedy", "--games", "2"]
    result = CliRunner().invoke(main, [*args, "--report", str(report)])
    assert result.exit_code == 0, result.output
    html = report.read_text(encoding="utf-8")
    assert html.count('src="data:image/png;base64,') == 1
    assert "&lt;b&gt;points&lt;/b&gt;" in html and "<b>points" not in html
    assert "&lt;i&gt;Tally&lt;/i&gt;" in html and "<i>Tally" not in html
    assert 'src="http' not in html and "<script" not in html


def test_without_the_report_extra_the_report_is_a_usage_error(tally_game, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    args = ["tournament", tally_game, "--bots", "random,greedy", "--report", "r.html"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "pip install 'metro-games[report]'" in result.output


def test_a_real_game_reports_its_metrics_per_bot():
    result = tournament(TTR, 2, ["random", "greedy"], 2, "m")
    names = result.metric_names
    assert "tickets kept" in names and "tickets completed" in names
    for standing in result.standings:
        kept = sum(m.metrics["tickets kept"][m.bots.index(standing.bot)] for m in result.matches)
        assert standing.metric_totals["tickets kept"] == kept


def test_an_interval_is_at_least_as_wide_as_the_models_own():
    deals = []
    for _ in range(2):  # two deals, each won by the first bot twice: no spread to resample
        deal = Tally(2)
        deal.add(0, 1, 1, 2)
        deal.add(0, 1, 1, 2)
        deals.append(deal)
    whole = Tally(2)
    for deal in deals:
        whole.merge(deal)
    # Two bots: each rating is half the log-odds, whose variance is 1 / (n p (1 - p)).
    n, p = 5, 4.5 / 5
    expected = ELO_SCALE * math.sqrt(1 / (n * p * (1 - p))) / 2
    assert standard_errors(whole) == pytest.approx([expected, expected])
    first = rate(["a", "b"], deals, "s")[0]
    assert first.high - first.elo == pytest.approx(1.959964 * expected)
    assert first.elo - first.low == pytest.approx(1.959964 * expected)


def test_a_tournament_on_dask_gives_the_serial_results(tally_game, played):
    pytest.importorskip("distributed")
    on_dask = tournament(tally_game, 2, ["random", "greedy"], 12, "t", jobs=2, dask="local")
    assert on_dask.to_dict()["records"] == played.to_dict()["records"]
    assert on_dask.ratings == played.ratings
