"""The conformance suite as a versioned artifact: generated reference pages, convention probes and
optional cases, the manifest, `conform --required-only`, published perft counts, the results table."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys

import pytest
from click.testing import CliRunner

from loader import load_game
from loader.games import game_path, shipped_games
from metro.cli import main
from metro.conformance.adapter import LocalAdapter, SubprocessAdapter
from metro.conformance.conform import Tally, load_vectors, read_manifest, run_vectors
from metro.conformance.perft import counts_until, initial_position
from metro.conformance.reference import reference_page
from metro.conformance.vectorgen import generate_vectors
from metro.conformance.vectors import Vector, VectorFileError
from tests.conftest import ROOT
from tests.test_vectors import validator

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
ENGINE = [sys.executable, os.path.join(ROOT, "examples", "ttr_engine", "serve.py")]
JS_ENGINE = os.path.join(ROOT, "examples", "ttr_engine_js", "serve.js")
NODE = shutil.which("node")
DOCS = os.path.join(ROOT, "docs")
RESULTS_PAGE = os.path.join(DOCS, "conformance.md")
REGENERATE = os.environ.get("METRO_REGEN") == "1"
PERFT_DEPTH, PERFT_BUDGET = 4, 3_000  # the published table's limits (docs/conformance.md)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """Ticket to Ride's suite, written once for the module."""
    folder = tmp_path_factory.mktemp("suite")
    generate_vectors(TTR, str(folder))
    return str(folder)


def conform(*args: str):
    return CliRunner().invoke(main, ["conform", *args])


# ---------------------------------------------------------------- reference pages


@pytest.mark.parametrize("name", shipped_games())
def test_each_shipped_games_reference_page_is_the_generated_one(name):
    page = os.path.join(DOCS, "reference", f"{name}.md")
    fresh = reference_page(game_path(name))
    if REGENERATE:
        with open(page, "w", encoding="utf-8") as handle:
            handle.write(fresh)
    with open(page, encoding="utf-8") as handle:
        assert handle.read() == fresh, f"run: metro reference {name} -o docs/reference/{name}.md"


def test_the_reference_page_says_what_an_engine_author_needs():
    page = reference_page(TTR)
    assert "| `claim_route(r, c, locos)` | action | procedure play_turn |" in page
    assert "| `keep(value)` | simultaneous choice | procedure setup |" in page
    assert "| `kept(value)` | choice | action draw_tickets |" in page
    shuffles = re.findall(r"\| procedure (\w+) \| shuffle \| `(\w+)` \|", page)
    assert shuffles == [("setup", "deck"), ("setup", "ticket_deck"), ("deal_card", "deck")]
    assert "`p.score` descending, then `p.completed` descending, then `p.bonus` descending" in page
    assert (
        "| `offered` | `list of ticket` | owner | Tickets offered | drawn tickets not yet" in page
    )
    assert '| `T30` | "Santa Fe" | Vancouver | 13 |' in page
    assert "- `Card`: purple, white, blue, yellow, orange, black, red, green, locomotive" in page
    assert "## Conventions an engine must follow" in page  # the hand-written part


def test_the_reference_command_prints_or_writes_the_page(tmp_path):
    runner = CliRunner()
    printed = runner.invoke(main, ["reference", "ticket_to_ride"])
    assert printed.exit_code == 0 and printed.output == reference_page(TTR)
    out = tmp_path / "ttr.md"
    written = runner.invoke(main, ["reference", "ticket_to_ride", "-o", str(out)])
    assert written.exit_code == 0 and out.read_text(encoding="utf-8") == printed.output
    missing = runner.invoke(main, ["reference", str(tmp_path)])
    assert missing.exit_code != 0 and "Traceback" not in missing.output


# ---------------------------------------------------------------- the manifest and optional cases


def test_the_manifest_names_the_game_rules_protocol_and_cases(suite):
    with open(os.path.join(suite, "manifest.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    validator("manifest.schema.json").validate(manifest)
    assert manifest == read_manifest(suite)
    _, vectors = load_vectors(suite)
    optional = {v.id for _, v in vectors if v.requirement == "optional"}
    assert manifest["cases"] == {
        "required": len(vectors) - len(optional),
        "optional": len(optional),
    }
    probed = {name for c in manifest["conventions"] for name in c["vectors"]}
    assert probed == optional
    assert manifest["unordered"] == ["discard"]
    unobservable = {c["name"] for c in manifest["conventions"] if not c["vectors"]}
    assert unobservable == {"payment_locomotives_first", "redeal_discards_reversed"}
    assert {c["name"] for c in manifest["conventions"]} == {
        "payment_locomotives_first",
        "redeal_discards_reversed",
        "redeal_limit_3",
        "returned_tickets_first_deepest",
    }
    for _, vector in vectors:
        assert (vector.requirement == "optional") == bool(vector.conventions)


def test_a_vector_is_optional_exactly_when_a_probe_changes_it(suite):
    _, pairs = load_vectors(suite)
    vectors = {v.id: v for _, v in pairs}
    returned = [i for i, v in vectors.items() if "returned_tickets_first_deepest" in v.conventions]
    assert returned == [f"playout-{n}p-1" for n in range(2, 6)]  # the independent engine's 4
    (limit,) = [v for v in vectors.values() if "redeal_limit_3" in v.conventions]
    assert "deck-exhausted" in limit.id
    boundaries = [v for v in vectors.values() if "-boundary-" in v.id]
    assert len(boundaries) == 4
    required = {v.id.split("-boundary-")[1][:20] for v in boundaries if v.requirement == "required"}
    assert required == {"a-chain-of-redeals-s", "a-player-who-passes-", "when-every-longest-t"}
    assert all(v.requirement == "required" for v in vectors.values() if v.kind == "initial")


def test_a_version_1_vector_counts_as_required_and_a_bad_requirement_is_refused():
    old = Vector.from_doc({"id": "x", "players": 2, "steps": []})
    assert old.requirement == "required" and old.conventions == []
    with pytest.raises(VectorFileError, match="requirement is one of"):
        Vector.from_doc({"id": "x", "players": 2, "steps": [], "requirement": "maybe"})


@pytest.mark.parametrize(
    "convention", ["returned-first-deepest", "redeal-limit-3"], ids=lambda name: name
)
def test_required_only_passes_an_engine_that_differs_only_in_a_convention(suite, convention):
    engine = " ".join([*ENGINE, "--convention", convention])
    strict = conform(suite, "--engine", engine)
    assert strict.exit_code == 1
    failures = [line for line in strict.output.splitlines() if line.startswith("FAIL")]
    assert failures and all(line.endswith("(optional)") for line in failures)
    tally = re.search(
        r"required: (\d+) passed, 0 failed; optional: \d+ passed, (\d+) failed", strict.output
    )
    assert tally and int(tally.group(2)) == len(failures)
    lenient = conform(suite, "--engine", engine, "--required-only")
    assert lenient.exit_code == 0, lenient.output[-2000:]


def test_an_unordered_pile_passes_in_any_order(suite):
    """The example engine discarding a redeal in reverse order passes every vector: the
    discard pile's order is compared as a multiset, so it is no convention of the suite."""
    engine = " ".join([*ENGINE, "--convention", "discards-reversed"])
    result = conform(suite, "--engine", engine)
    assert result.exit_code == 0, result.output[-2000:]
    assert re.search(
        r"required: \d+ passed, 0 failed; optional: \d+ passed, 0 failed", result.output
    )
    _, pairs = load_vectors(suite, "showing-three-locomotives-again")
    (vector,) = [v for _, v in pairs]
    assert vector.unordered == ["discard"]
    seen = [
        s["expect"]["views"][0]["state"]["discard"]
        for s in vector.steps
        if "views" in s.get("expect", {})
    ]
    assert seen[-1] == sorted(seen[-1]) and len(seen[-1]) == 10


# a game of two players flipping one coin, for the suite's bad inputs
COIN_RULES = (
    'game "Coin" {\n  players 2..2\n  state {\n    n: int public\n  }\n'
    "  action flip() { n += 1 }\n  flow {\n    for p in players { choose by p { flip } }\n  }\n}\n"
)


def test_an_unknown_unordered_field_is_a_clear_error(tmp_path):
    (tmp_path / "rules.metro").write_text(COIN_RULES)
    (tmp_path / "conventions").mkdir()
    (tmp_path / "conventions" / "unordered.txt").write_text("# piles\n  n\n  pile\n")
    result = CliRunner().invoke(
        main, ["testgen", str(tmp_path), "--format", "vectors", "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 1, result.output
    assert "unordered.txt:3:3: 'pile' is not a field of the game" in result.output
    assert "Traceback" not in result.output


def test_required_only_still_fails_an_engine_that_breaks_a_rule(suite):
    engine = " ".join([*ENGINE, "--bug", "one-bonus"])
    result = conform(suite, "--engine", engine, "--required-only", "--only", "longest-trail")
    assert result.exit_code == 1
    assert "required: 8 passed, 1 failed; optional: 0 passed, 0 failed" in result.output


def test_conform_json_reports_the_suite_and_both_tallies(suite):
    result = conform(suite, "--reference", TTR, "--only", "boundary", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    validator("conform.schema.json").validate(report)
    assert report["suite"] == read_manifest(suite)["suite"]
    assert report["required"] == {"passed": 3, "failed": 0}
    assert report["optional"] == {"passed": 1, "failed": 0}


# ---------------------------------------------------------------- perft


def test_the_perft_command_counts_from_the_initial_vector_and_refuses_chance():
    runner = CliRunner()
    result = runner.invoke(main, ["perft", "ticket_to_ride", "--players", "3", "--depth", "2"])
    assert result.exit_code == 0 and result.output == "0 1\n1 4\n2 16\n"
    chance = runner.invoke(main, ["perft", "tokyo_metro", "--players", "2", "--depth", "3"])
    assert chance.exit_code == 1 and "depth 3: a position within the depth waits" in chance.output
    crowd = runner.invoke(main, ["perft", "ticket_to_ride", "--players", "9", "--depth", "1"])
    assert crowd.exit_code == 1 and "for 2-5 players, not 9" in crowd.output
    assert "Traceback" not in chance.output + crowd.output


def perft_rows() -> list[tuple[str, int, int, int]]:
    """(game, players, depth, count) of every shipped game, as the docs publish them."""
    rows = []
    for name in shipped_games():
        game = load_game(game_path(name))
        for players in range(game.min_players, game.max_players + 1):
            counts = counts_until(initial_position(game, players), PERFT_DEPTH, PERFT_BUDGET)
            rows += [(name, players, depth, n) for depth, n in enumerate(counts, 1)]
    return rows


def perft_table(rows) -> str:
    lines = ["| game | players | depth | count |", "|---|---|---|---|"]
    return "\n".join(lines + [f"| {g} | {p} | {d} | {n:,} |" for g, p, d, n in rows])


def test_the_published_perft_table_is_what_metro_counts():
    rows = perft_rows()
    assert {row[0] for row in rows} == set(shipped_games())
    assert ("ticket_to_ride", 2, 3, 944) in rows
    _check_section("perft table", perft_table(rows))


EXAMPLE_ENGINES = {
    "python": ENGINE,
    "javascript": None if NODE is None else [NODE, JS_ENGINE],
}


@pytest.mark.parametrize("language", sorted(EXAMPLE_ENGINES))
def test_each_example_engine_gives_the_published_ticket_to_ride_counts(suite, language):
    command = EXAMPLE_ENGINES[language]
    if command is None:
        pytest.skip("node is not on PATH")
    published = [row for row in perft_rows() if row[0] == "ticket_to_ride"]
    _, initial = load_vectors(suite, "initial")
    with SubprocessAdapter(command, timeout=60) as engine:
        for _, vector in initial:
            engine.new_game(vector.players, 0, chance="explicit")
            for step in vector.steps:
                if "chance" in step:
                    assert engine.chance(step["chance"]) is None
            for _, players, depth, count in published:
                if players == vector.players:
                    assert engine.perft(depth) == count, (players, depth)
    assert len(published) == 16


@pytest.mark.nightly
def test_the_python_example_engine_matches_metro_one_level_deeper(suite, ttr):
    """Depth 5 from every initial position, as deep as metro's default budget allows."""
    _, initial = load_vectors(suite, "initial")
    with SubprocessAdapter(ENGINE, timeout=600) as engine:
        for _, vector in initial:
            counts = counts_until(initial_position(ttr, vector.players), PERFT_DEPTH + 1, 200_000)
            engine.new_game(vector.players, 0, chance="explicit")
            for step in vector.steps:
                if "chance" in step:
                    assert engine.chance(step["chance"]) is None
            assert [engine.perft(d) for d in range(1, len(counts) + 1)] == counts


# ---------------------------------------------------------------- the results table


def test_the_results_table_is_what_each_engine_passes(suite, ttr):
    manifest = read_manifest(suite)
    _, vectors = load_vectors(suite)
    engines = [
        (
            "metro (the reference runtime)",
            "`--reference ticket_to_ride`",
            lambda: LocalAdapter(ttr),
        ),
        (
            "Python example",
            "`python examples/ttr_engine/serve.py`",
            lambda: SubprocessAdapter(ENGINE, timeout=60),
        ),
    ]
    lines = [
        "| engine | command | suite | format | protocol | required passed | optional passed |",
        "|---|---|---|---|---|---|---|",
    ]
    if NODE is not None:
        engines.append(
            (
                "JavaScript example",
                "`node examples/ttr_engine_js/serve.js`",
                lambda: SubprocessAdapter([NODE, JS_ENGINE], timeout=60),
            )
        )
    for name, command, start in engines:
        results = run_vectors(start, vectors)
        required, optional = Tally.of(results, "required"), Tally.of(results, "optional")
        assert required.failed == optional.failed == 0, name
        lines.append(
            f"| {name} | {command} | `{manifest['suite']}` | {manifest['version']} "
            f"| {manifest['protocol']} | {required.passed} of {required.passed + required.failed} "
            f"| {optional.passed} of {optional.passed + optional.failed} |"
        )
    if NODE is None:  # the row as published: it cannot be checked without node
        lines += [line for line in _section("results table") if line.startswith("| JavaScript")]
    _check_section("results table", "\n".join(lines))


def _section(name: str) -> list[str]:
    """The lines of the docs' generated section `name`, as published."""
    with open(RESULTS_PAGE, encoding="utf-8") as handle:
        page = handle.read()
    start = f"<!-- {name}: generated by tests/test_suite.py -->\n"
    return page.split(start)[1].split(f"<!-- end of {name} -->")[0].splitlines()


def _check_section(name: str, table: str) -> None:
    """The docs' generated section `name` holds `table` (rewritten with METRO_REGEN=1)."""
    with open(RESULTS_PAGE, encoding="utf-8") as handle:
        page = handle.read()
    start = f"<!-- {name}: generated by tests/test_suite.py -->\n"
    end = f"<!-- end of {name} -->"
    before, rest = page.split(start)
    _, after = rest.split(end)
    fresh = before + start + table + "\n" + end + after
    if REGENERATE:
        with open(RESULTS_PAGE, "w", encoding="utf-8") as handle:
            handle.write(fresh)
        page = fresh
    assert page == fresh, f"docs/conformance.md: the {name} is stale (METRO_REGEN=1 rewrites it)"


def test_a_convention_probe_that_is_not_a_variant_is_a_clear_error(tmp_path):
    (tmp_path / "rules.metro").write_text(COIN_RULES)
    (tmp_path / "conventions").mkdir()
    (tmp_path / "conventions" / "odd.metro").write_text('game "Other" {\n  players 2..2\n}\n')
    result = CliRunner().invoke(
        main, ["testgen", str(tmp_path), "--format", "vectors", "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 1
    assert "odd.metro:1:1: a convention probe is a variant of the game" in result.output
    assert "Traceback" not in result.output
