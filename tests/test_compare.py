"""`metro compare`: paired games on the same seeds, summaries, paired differences, JSON, HTML report."""

from __future__ import annotations

import json
import math
import os
import sys

import pytest
from click.testing import CliRunner
from jsonschema import validate

from metro.analysis.compare import compare, configurations
from metro.analysis.stats import Summary, adjust, paired_difference
from metro.cli import main
from tests.conftest import ROOT

pytest.importorskip("scipy")

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
BONUS_RAISE = 5  # big_bonus: the longest-route bonus is 15 instead of 10


def _schema() -> dict:
    with open(os.path.join(ROOT, "schemas", "compare.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def bonus():
    """Eight two-player games of the base and of the big-bonus variant, random bots."""
    configs = configurations(["big_bonus"])
    return compare(TTR, 2, 8, "c", ["random", "random"], configs)


def test_configurations_are_the_base_then_each_option():
    configs = configurations(["a", "b,c"], ["x"])
    assert [(c.label, c.variants, c.expansions) for c in configs] == [
        ("base", (), ()),
        ("variant a", ("a",), ()),
        ("variant b,c", ("b", "c"), ()),
        ("with x", (), ("x",)),
    ]
    with pytest.raises(ValueError, match="twice"):
        configurations(["a", "a"])
    with pytest.raises(ValueError, match="empty"):
        configurations(["a,"])


def test_game_i_of_every_configuration_has_the_same_seed_and_bots(bonus):
    base, variant = bonus.results
    assert [r.result.seed for r in base.records] == [f"c/{i}" for i in range(8)]
    assert [r.result.seed for r in variant.records] == [r.result.seed for r in base.records]
    # The bonus only changes the final scoring: the same seeds give the very same games.
    assert variant.measure("game length (decisions)") == base.measure("game length (decisions)")


def test_the_differences_are_what_the_variant_changes_game_by_game(bonus):
    base, variant = bonus.results
    for old, new in zip(base.records, variant.records, strict=True):
        holders = sum(new.result.metrics["longest-route bonus"])
        assert sum(new.result.scores) - sum(old.result.scores) == BONUS_RAISE * holders
    (comparison,) = bonus.comparisons
    by_name = {d.name: d for d in comparison.differences}
    mean = by_name["mean score"]
    assert mean.mean > 0 and mean.significant
    assert by_name["game length (decisions)"].identical
    assert "variant big_bonus raises the mean score" in " ".join(comparison.words)
    (same,) = [w for w in comparison.words if w.startswith("The same in every game:")]
    assert "game length (decisions)" in same and "game length (turns)" in same


def test_the_json_has_every_game_and_follows_its_schema(bonus):
    doc = json.loads(json.dumps(bonus.to_dict()))
    validate(doc, _schema())
    assert len(doc["records"]) == 16
    first = bonus.results[0].records[0].result
    assert doc["records"][0]["metrics"] == first.metrics and doc["records"][0]["seed"] == "c/0"
    assert {r["config"] for r in doc["records"]} == {"base", "variant big_bonus"}


def test_summaries_and_paired_differences_are_computed_as_by_hand():
    summary = Summary.of([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert (summary.mean, summary.median, summary.low, summary.high) == (5.5, 5.5, 1, 10)
    assert summary.sd == pytest.approx(3.0276, abs=1e-4)
    d = paired_difference("x", [2, 4, 6, 9], [1, 2, 3, 4])  # differences 1, 2, 3, 5
    assert d.mean == 2.75 and (d.base, d.other) == (2.5, 5.25)
    half = 3.182446 * 1.707825 / 2  # t(0.975, 3) x sd / sqrt(4)
    assert (d.low, d.high) == (pytest.approx(2.75 - half, abs=1e-5), pytest.approx(2.75 + half))
    assert 0 < d.p_value < 0.05
    same = paired_difference("y", [3, 3], [3, 3])
    assert same.identical and same.p_value == 1 and not same.significant
    shifted = paired_difference("z", [4, 5], [3, 4])
    assert shifted.p_value == 0 and shifted.low == shifted.high == 1
    one = paired_difference("w", [1], [0])
    assert math.isinf(one.half_width) and one.p_value == 1


def test_p_values_are_adjusted_for_the_number_of_quantities():
    raw = [paired_difference(n, [1, 2, 3, 5 + k], [0, 0, 1, 1]) for k, n in enumerate("abc")]
    adjusted = adjust(raw)
    assert all(a.adjusted_p >= r.p_value for a, r in zip(adjusted, raw, strict=True))
    largest = max(raw, key=lambda d: d.p_value)  # Benjamini-Hochberg leaves the largest as it is
    assert next(a for a in adjusted if a.name == largest.name).adjusted_p == largest.p_value


def test_the_command_prints_tables_and_words(tmp_path):
    args = ["compare", TTR, "--variant", "big_bonus", "--games", "4", "--players", "2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Win rate by seat" in text
    assert "variant big_bonus − base, game by game" in text
    assert "variant big_bonus raises the" in text and "The same in every game" in text
    assert "Per game: mean (95% interval)" in text and "branching factor (mean)" in text


def test_the_command_writes_json_and_a_self_contained_report(tmp_path):
    pytest.importorskip("matplotlib")
    report = tmp_path / "report.html"
    args = ["compare", TTR, "--variant", "short_game", "--games", "4", "--players", "2"]
    result = CliRunner().invoke(main, [*args, "--json", "--report", str(report)])
    assert result.exit_code == 0, result.output
    validate(json.loads(result.output), _schema())
    html = report.read_text(encoding="utf-8")
    assert html.count('<img src="data:image/png;base64,') == 4  # scores, wins, length, differences
    assert "variant short_game against the base" in html
    assert 'src="http' not in html and "<script" not in html


def test_a_comparison_needs_a_configuration_and_two_games():
    runner = CliRunner()
    assert runner.invoke(main, ["compare", TTR]).exit_code == 2
    assert runner.invoke(main, ["compare", TTR, "--variant", "x", "--games", "1"]).exit_code == 2
    unknown = runner.invoke(main, ["compare", TTR, "--variant", "nothing", "--games", "2"])
    assert unknown.exit_code == 1 and "no variant named 'nothing'" in unknown.output


GAME = """\
game "<i>Tally</i>" {
  players 2..2
  per player { points: int public }
  action gain(k in [1, 2]) { me.points += k }
  flow { repeat 2 times { for p in players { choose by p { gain } } } }
  score(p) = p.points
  rank p by p.points desc
  metric "<b>points</b>"(p) = p.points
}
"""


def test_rule_file_text_reaches_the_report_escaped(tmp_path):
    pytest.importorskip("matplotlib")
    from metro.analysis.report import render_report

    (tmp_path / "rules.metro").write_text(GAME, encoding="utf-8")
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "same.metro").write_text(
        'variant "Same" for "<i>Tally</i>" { }\n', encoding="utf-8"
    )
    result = compare(str(tmp_path), 2, 3, 1, ["random", "random"], configurations(["same"]))
    html = render_report(result)
    assert "&lt;b&gt;points&lt;/b&gt;" in html and "<b>points" not in html
    assert "&lt;i&gt;Tally&lt;/i&gt;" in html and "<i>Tally" not in html


def test_without_the_report_extra_the_options_are_usage_errors(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    args = ["compare", TTR, "--variant", "big_bonus", "--games", "2", "--report", "r.html"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "pip install 'metro-games[report]'" in result.output
    monkeypatch.setitem(sys.modules, "scipy", None)
    result = CliRunner().invoke(main, args[:-2])
    assert result.exit_code == 2 and "needs scipy" in result.output
