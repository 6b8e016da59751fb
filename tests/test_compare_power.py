"""How many games `metro compare` needs: detectable differences, --detect's plan, --until-decided."""

from __future__ import annotations

import json
import math
import os

import pytest
from click.testing import CliRunner
from jsonschema import validate

from metro.analysis.compare import compare, compare_until_decided, configurations, describe
from metro.analysis.power import CHANGED, Design, Detect, OptionError
from metro.analysis.stats import games_needed, minimum_detectable, paired_difference, t_test_power
from metro.cli import main
from tests.conftest import ROOT

pytest.importorskip("scipy")

# Each player gains LOW to HIGH points (times STEP) twice. `triple` triples every gain: the same
# choices on the same seeds, so the mean score triples with little noise. `noise` gains 0 to 3
# instead of 1 to 2: the same mean, other choices, so the differences are noise around 0.
GAME = """\
game "Tally" {
  players 2..2
  const STEP = 1
  const LOW = 1
  const HIGH = 2
  per player { points: int public }
  action gain(k in [0, 1, 2, 3] where k >= LOW and k <= HIGH) { me.points += k * STEP }
  flow { repeat 2 times { for p in players { choose by p { gain } } } }
  score(p) = p.points
  rank p by p.points desc
}
"""
VARIANTS = {
    "triple": 'variant "Triple" for "Tally" {\n  override const STEP = 3\n}\n',
    "noise": 'variant "Noise" for "Tally" {\n  override const LOW = 0\n  override const HIGH = 3\n}\n',
    "same": 'variant "Same" for "Tally" { }\n',
}
BOTS = ["random", "random"]


@pytest.fixture(scope="module")
def tally(tmp_path_factory) -> str:
    """The tally game's folder with its three variants."""
    folder = tmp_path_factory.mktemp("tally")
    (folder / "rules.metro").write_text(GAME, encoding="utf-8")
    (folder / "variants").mkdir()
    for name, text in VARIANTS.items():
        (folder / "variants" / f"{name}.metro").write_text(text, encoding="utf-8")
    return str(folder)


def _schema() -> dict:
    with open(os.path.join(ROOT, "schemas", "compare.schema.json"), encoding="utf-8") as handle:
        return json.load(handle)


# ---------------------------------------------------------------- the formula


def test_games_needed_matches_the_textbook_case():
    # A one-sample t-test for an effect of half a standard deviation, two-sided at 0.05 with
    # power 0.8, needs n = 33.37 (Cohen's tables; R's pwr.t.test): 34 games.
    assert games_needed(1.0, 0.5) == 34
    assert minimum_detectable(1.0, 34) < 0.5 < minimum_detectable(1.0, 33)
    assert games_needed(2.0, 1.0) == 34  # only the ratio matters
    assert minimum_detectable(3.0, 34) == pytest.approx(3 * minimum_detectable(1.0, 34))


def test_the_detectable_difference_by_hand_and_at_the_edges():
    # Many games: the t test is the z test, (z(0.975) + z(0.8)) sd / sqrt(n) = 2.8016 sd / sqrt(n).
    assert minimum_detectable(1.0, 10_000) == pytest.approx(2.8016 / 100, rel=1e-3)
    assert t_test_power(0.0, 20) == pytest.approx(0.05)  # no true difference: the test's α
    assert t_test_power(minimum_detectable(1.5, 12) / 1.5, 12) == pytest.approx(0.8)
    assert math.isinf(minimum_detectable(1.0, 1))
    assert minimum_detectable(0.0, 10) == 0  # differences that never vary: any change shows
    assert games_needed(0.0, 1.0) == 2
    with pytest.raises(ValueError):
        games_needed(1.0, 0.0)


def test_a_true_difference_of_the_detectable_size_is_detected_four_times_in_five():
    numpy = pytest.importorskip("numpy")
    from scipy import stats

    n, sd = 15, 2.0
    shift = minimum_detectable(sd, n)
    samples = numpy.random.default_rng(7).normal(shift, sd, size=(4000, n))
    rejected = stats.ttest_1samp(samples, 0.0, axis=1).pvalue < 0.05
    assert rejected.mean() == pytest.approx(0.8, abs=0.03)


def test_a_difference_knows_its_detectable_size():
    d = paired_difference("mean score", [2, 4, 6, 9, 3], [1, 2, 3, 4, 3])
    assert d.n == 5 and d.sd == pytest.approx(1.9235, abs=1e-4)
    assert d.detectable == pytest.approx(minimum_detectable(d.sd, 5))
    assert d.to_dict()["detectable"] == pytest.approx(d.detectable)


# ---------------------------------------------------------------- --detect and the words


def test_detect_reads_a_percentage_or_an_amount():
    five = Detect.parse("5%")
    assert (five.amount, five.relative) == (0.05, True)
    assert five.threshold(40.0, rate=False) == pytest.approx(2.0)
    assert five.threshold(0.3, rate=True) == 0.05  # win rates: 5 percentage points
    assert five.threshold(0.0, rate=False) is None
    two = Detect.parse("2.5")
    assert (two.threshold(40.0, rate=False), two.threshold(0.3, rate=True)) == (2.5, 0.025)
    for bad in ("abc", "0", "-5%", "nan", "inf%", "%"):
        with pytest.raises(OptionError, match="--detect takes"):
            Detect.parse(bad)


def _noisy():
    """A difference within the noise over 8 games: mean score about 10, differences ±3."""
    base = [10, 11, 9, 10, 12, 8, 10, 10]
    other = [b + s for b, s in zip(base, [3, -3, 2, -2, 3, -3, 1, -1], strict=True)]
    return paired_difference("mean score", other, base)


def test_the_words_say_when_the_run_is_too_small_to_tell():
    d = _noisy()
    assert not d.significant and d.detectable > 2
    plain = " ".join(describe("variant x", [d]))
    assert "But 8 games could only have detected (power 80% at α = 0.05) a change of " in plain
    assert f"{d.detectable:.2g} or more in the mean score" in plain
    small = " ".join(describe("variant x", [d], Detect.parse("5%")))  # 5% of 10 is 0.5
    assert "Too small to tell: 8 games could only have detected" in small
    assert "(asked: 0.5, 5% of 10)" in small
    large = " ".join(describe("variant x", [d], Detect.parse("100")))
    assert "Too small" not in large and "Enough games to have detected" in large


# ---------------------------------------------------------------- the command


def test_plan_only_plays_the_pilot_alone_and_prints_a_plan(tally):
    args = ["compare", tally, "--variant", "noise", "--detect", "5%", "--plan-only"]
    result = CliRunner().invoke(main, [*args, "--pilot", "6", "--seed", "s"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "variant noise: games needed to detect a change of 5%" in text
    assert "pilot: 6 games per configuration, game i seeded s/pilot/i" in text
    assert "Plan:" in text and "Approximate" in text
    assert "Win rate by seat" not in text  # no main run
    doc = json.loads(CliRunner().invoke(main, [*args, "--pilot", "6", "--json"]).output)
    validate(doc, _schema())
    assert [r["seed"] for r in doc["records"]] == [f"1/pilot/{i}" for i in range(6)] * 2
    (row,) = [r for r in doc["plan"]["rows"] if r["name"] == "mean score"]
    assert row["games"] == games_needed(row["sd"], row["change"])


def test_detect_then_plays_the_planned_games_capped(tally):
    args = ["compare", tally, "--variant", "triple", "--detect", "5%", "--pilot", "4"]
    result = CliRunner().invoke(main, [*args, "--max-games", "7", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    validate(doc, _schema())
    assert doc["games"] == doc["plan"]["games"] == min(max(doc["plan"]["needed"], 2), 7)
    assert doc["records"][0]["seed"] == "1/0"  # the main run's seeds, not the pilot's


def test_until_decided_stops_at_the_first_look_when_the_change_is_huge(tally):
    result = compare_until_decided(
        tally,
        2,
        1,
        BOTS,
        configurations(["triple"]),
        Design(10, 50),
        Detect.parse("5%"),
        ["mean score"],
    )
    (verdict,) = result.sequential.verdicts
    assert (verdict.decision, verdict.look, verdict.games) == (CHANGED, 1, 10)
    assert result.games == 10 and result.sequential.looks == 1


def test_until_decided_runs_to_the_maximum_when_it_cannot_tell(tally):
    design = Design(10, 30)
    noise = configurations(["noise"])
    short = compare_until_decided(tally, 2, 1, BOTS, noise, design, Detect.parse("0.1%"))
    assert short.sequential.looks == 3 and short.games == 30
    undecided = {v.name for v in short.sequential.undecided}
    assert "mean score" in undecided
    # An identical variant: every difference is 0 in every game, equivalent at the first look.
    same = compare_until_decided(
        tally, 2, 1, BOTS, configurations(["same"]), design, Detect.parse("0.1%")
    )
    assert same.sequential.looks == 1 and not same.sequential.undecided
    # A run stopped after 3 batches is the first 3 batches of a longer one, and of a fixed run.
    longer = compare_until_decided(tally, 2, 1, BOTS, noise, Design(10, 50), Detect.parse("0.1%"))
    fixed = compare(tally, 2, 30, 1, BOTS, noise)
    for config in range(2):
        games = [r.to_dict() for r in short.results[config].records]
        assert games == [r.to_dict() for r in longer.results[config].records][:30]
        assert games == [r.to_dict() for r in fixed.results[config].records]


def test_until_decided_gives_the_same_numbers_whatever_the_jobs(tally):
    args = ["compare", tally, "--variant", "noise", "--detect", "1%", "--until-decided"]
    args += ["--batch", "6", "--max-games", "18", "--json"]
    one = json.loads(CliRunner().invoke(main, [*args, "--jobs", "1"]).output)
    two = json.loads(CliRunner().invoke(main, [*args, "--jobs", "2"]).output)
    validate(two, _schema())
    for doc in (one, two):
        del doc["seconds"]
    assert one == two
    assert two["sequential"]["method"] == "bonferroni" and two["sequential"]["looks"] == 3


def test_the_terminal_shows_the_detectable_column_and_the_looks(tally):
    args = ["compare", tally, "--variant", "triple", "--detect", "5%", "--until-decided"]
    more = ["--batch", "5", "--max-games", "10", "--decide", "mean score,winning score"]
    result = CliRunner().invoke(main, [*args, *more])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Sequential: up to 2 looks of 5 games, α = 0.05 spent as 0.025 per look" in text
    assert "detectable" in text and "Every difference decided after 1 look (5 games)" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--detect", "abc"], "--detect takes a positive percentage"),
        (["--detect", "0%"], "--detect takes a positive percentage"),
        (["--plan-only"], "--plan-only needs --detect"),
        (["--until-decided"], "--until-decided needs --detect"),
        (["--max-games", "9"], "--max-games needs --detect"),
        (["--detect", "5%", "--games", "9"], "cap it with --max-games"),
        (["--detect", "5%", "--batch", "9"], "add --until-decided"),
        (["--detect", "5%", "--until-decided", "--pilot", "9"], "plays no pilot"),
        (["--detect", "5%", "--plan-only", "--until-decided"], "--plan-only plays only"),
        (["--detect", "5%", "--until-decided", "--batch", "1"], "--batch"),
        (["--detect", "5%", "--decide", "nothing"], "no quantity named 'nothing'"),
        (["--detect", "5%", "--decide", "mean score,"], "names an empty quantity"),
    ],
)
def test_bad_options_are_usage_errors(tally, extra, message):
    result = CliRunner().invoke(main, ["compare", tally, "--variant", "same", *extra])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_the_report_shows_the_plan_the_looks_and_the_detectable_column(tally):
    pytest.importorskip("matplotlib")
    from metro.analysis.report import render_report

    noise = configurations(["noise"])
    result = compare_until_decided(tally, 2, 1, BOTS, noise, Design(5, 10), Detect.parse("1%"))
    html = render_report(result)
    assert "Sequential: 2 of up to 2 looks" in html and "<th>detectable</th>" in html
    assert "Still undecided at the maximum: the run is too small to tell." in html
