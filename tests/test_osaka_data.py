"""The reconstructed OSAKA METRO components (games/tokyo_metro/osaka/osaka.metro and cards.metro).

The data is loaded the way a game loads it, through `compile_game` on a stub game that uses the
Tokyo Metro schema with the expansion's additions (the Act values InvestChip, Sell and Copy, and
the check on stops without a station replaced by the expansion's: such a stop is a small circle
between the two ends of its line), so every other schema check runs too.  The numbers asserted
are the OSAKA METRO EXPANSION rulebook's (English edition: 'Contents', 'Setup', 'Gameplay').
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "games", "tokyo_metro", "schema.metro")
OSAKA = os.path.join(ROOT, "games", "tokyo_metro", "osaka")
BOARD = os.path.join(OSAKA, "osaka.metro")
CARDS = os.path.join(OSAKA, "cards.metro")
BUILD_SCRIPT = os.path.join(OSAKA, "tools", "build_data.py")
# the expansion's replacement of the schema's "every stop belongs to a station"
SMALL_CIRCLE_CHECK = """  override check "every stop belongs to a station" for s in stop:
    s.station is not none
    or (s.number > 1 and s.number < count(t for t in stop where t.line == s.line))
"""
STUB = """game "Tokyo Metro" {{
  players 2..5
  use "{schema}"
  extend enum Act {{ InvestChip Sell Copy }}
{check}  default map "{board}", "{cards}"
  flow {{ }}
}}
"""
LINE_ORDER = ["M", "Bus", "T", "Y", "C", "I", "S", "N", "K", "P"]
TRAIN_LINES = ["M", "T", "Y", "C", "I", "S", "N", "K"]
TWO_MARKER_LINES = {"P": "tram", "Bus": "bus"}
DECKS = ["MBus", "TY", "CI", "SN", "KP"]
ACTION_TYPES = [
    "Move",
    "Station",
    "Invest",
    "InvestChip",
    "Speed",
    "Bike",
    "Discount",
    "Loan",
    "Speculate",
    "Chip",
    "Sell",
    "Copy",
]


def write_stub(folder, check: str) -> str:
    # A rule file reads only its own game's files: the stub gets copies beside it.
    for path in (SCHEMA, BOARD, CARDS):
        shutil.copy(path, folder / os.path.basename(path))
    (folder / "rules.metro").write_text(
        STUB.format(schema="schema.metro", board="osaka.metro", cards="cards.metro", check=check),
        encoding="utf-8",
    )
    return str(folder)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return compile_game(write_stub(tmp_path_factory.mktemp("osaka_stub"), SMALL_CIRCLE_CHECK))


def table(ctx, kind: str) -> list[dict]:
    """The elements of a kind as dicts: 'id' plus every field (references as indices)."""
    ids = ctx.data.ids[kind]
    fields = ctx.data.fields[kind]
    return [
        {"id": ident, **{name: column[i] for name, column in fields.items()}}
        for i, ident in enumerate(ids)
    ]


def stops_by_line(ctx) -> dict[str, list[dict]]:
    lines = ctx.data.ids["line"]
    out = defaultdict(list)
    for stop in table(ctx, "stop"):
        out[lines[stop["line"]]].append(stop)
    return {letter: sorted(stops, key=lambda s: s["number"]) for letter, stops in out.items()}


# ------------------------------------------------------------------------------------ the board


def test_ten_lines_in_income_track_order(ctx):
    lines = table(ctx, "line")
    assert [line["id"] for line in lines] == LINE_ORDER
    assert all(1 <= line["spots"] <= 4 for line in lines)
    assert len({line["spots"] for line in lines}) > 1


def test_28_stocks_one_to_four_a_line(ctx):
    stocks = [line["stocks"] for line in table(ctx, "line")]
    assert sum(stocks) == 28
    assert all(1 <= n <= 4 for n in stocks)
    assert set(stocks) == {1, 2, 3, 4}  # the rulebook: lines of 1, 2 or 4 stocks besides 3


def test_stops_numbered_along_each_line(ctx):
    for letter, stops in stops_by_line(ctx).items():
        assert [s["number"] for s in stops] == list(range(1, len(stops) + 1)), letter
        assert all(s["id"] == f"{letter}{s['number']}" for s in stops)
        if letter in TRAIN_LINES:
            assert 6 <= len(stops) <= 12, letter
    assert set(stops_by_line(ctx)) == set(LINE_ORDER)


def test_train_line_stops_all_belong_to_stations(ctx):
    for letter in TRAIN_LINES:
        assert all(s["station"] is not None for s in stops_by_line(ctx)[letter]), letter


def test_tram_and_bus_have_two_end_stations_and_small_circles_between(ctx):
    for letter in TWO_MARKER_LINES:
        stops = stops_by_line(ctx)[letter]
        assert len(stops) >= 4, letter
        ends, middle = [stops[0], stops[-1]], stops[1:-1]
        assert all(s["station"] is not None for s in ends), letter
        assert all(s["station"] is None for s in middle), letter
        assert ends[0]["station"] != ends[1]["station"]
        stations = {s["station"] for s in stops if s["station"] is not None}
        assert len(stations) == 2, letter
        assert all(1 <= len(s["squares"]) <= 2 for s in middle), letter
    # the only stops without a station are those small circles
    loose = [s for s in table(ctx, "stop") if s["station"] is None]
    assert len(loose) == sum(len(stops_by_line(ctx)[letter]) - 2 for letter in TWO_MARKER_LINES)


def test_the_small_circles_form_a_chain_of_squares(ctx):
    squares = table(ctx, "square")

    def cells(stop):
        return [(squares[q]["x"], squares[q]["y"]) for q in stop["squares"]]

    def touch(a, b):
        return any(max(abs(p[0] - q[0]), abs(p[1] - q[1])) <= 1 for p in a for q in b)

    for letter in TWO_MARKER_LINES:
        stops = stops_by_line(ctx)[letter]
        for a, b in itertools.pairwise(stops):
            assert touch(cells(a), cells(b)), (a["id"], b["id"])


def test_stations_of_one_to_three_stops_sharing_a_square(ctx):
    stops = table(ctx, "stop")
    per_station = defaultdict(list)
    for stop in stops:
        if stop["station"] is not None:
            per_station[stop["station"]].append(frozenset(stop["squares"]))
    assert set(per_station) == set(range(len(ctx.data.ids["station"])))
    assert all(1 <= len(touched) <= 3 for touched in per_station.values())
    assert all(frozenset.intersection(*touched) for touched in per_station.values())
    assert all(1 <= len(stop["squares"]) <= 4 for stop in stops)


def test_real_complexes(ctx):
    stations = {s["id"]: s["name"] for s in table(ctx, "station")}
    lines = ctx.data.ids["line"]
    station_lines = defaultdict(set)
    for stop in table(ctx, "stop"):
        if stop["station"] is not None:
            station_lines[ctx.data.ids["station"][stop["station"]]].add(lines[stop["line"]])
    assert station_lines["Umeda"] == {"M", "T", "Y"}  # Umeda, Higashi-Umeda, Nishi-Umeda
    assert station_lines["Honmachi"] == {"M", "Y", "C"}
    assert station_lines["Namba"] == {"M", "Y", "S"}
    assert station_lines["Cosmosquare"] == {"C", "P"}
    assert station_lines["Suminoekoen"] == {"Y", "P"}
    assert "Hommachi" not in stations and "Higashi-Umeda" not in stations


def test_markers(ctx):
    lines = ctx.data.ids["line"]
    per_line = defaultdict(list)
    for vehicle in table(ctx, "vehicle"):
        per_line[lines[vehicle["line"]]].append(vehicle)
    lengths = {letter: len(stops) for letter, stops in stops_by_line(ctx).items()}
    for letter in TRAIN_LINES:
        assert [(v["id"], v["home"]) for v in per_line[letter]] == [(f"{letter}_train", 1)]
    for letter, kind in TWO_MARKER_LINES.items():
        assert sorted((v["id"], v["home"]) for v in per_line[letter]) == [
            (f"{letter}_{kind}1", 1),
            (f"{letter}_{kind}2", lengths[letter]),
        ]
    names = Counter(v["id"].split("_")[1].rstrip("12") for v in table(ctx, "vehicle"))
    assert names == {"train": 8, "tram": 2, "bus": 2}


def test_the_grid_is_one_connected_rectangle(ctx):
    squares = table(ctx, "square")
    cells = {(q["x"], q["y"]) for q in squares}
    assert len(cells) == len(squares)
    width = max(x for x, _ in cells) + 1
    height = max(y for _, y in cells) + 1
    assert 14 <= width <= 18 and 10 <= height <= 14
    assert cells == {(x, y) for x in range(width) for y in range(height)}
    assert all(q["id"] == f"x{q['x']}y{q['y']}" for q in squares)


def test_income_track(ctx):
    rows = table(ctx, "track_row")
    assert len(rows) == 61
    assert [r["value"] for r in rows] == list(range(0, 6001, 100))
    assert all(r["id"] == f"V{r['value']}" for r in rows)
    assert all(r["high"] + r["low"] == r["value"] for r in rows)
    # low: a third rounded down to ¥100, at least ¥100 from ¥200 on (the least speculation stake)
    assert all(
        r["low"] == max(r["value"] // 300 * 100, 100 if r["value"] >= 200 else 0) for r in rows
    )
    assert all(r["low"] <= r["high"] for r in rows)
    by_value = {r["value"]: (r["high"], r["low"]) for r in rows}
    assert by_value[2900] == (2000, 900)


# ------------------------------------------------------------------------------------ the cards


def test_five_decks_of_eight_cards_with_one_or_two_dots(ctx):
    assert ctx.data.ids["deck"] == DECKS
    cards = table(ctx, "card")
    assert len(cards) == 40
    dots = defaultdict(list)
    for card in cards:
        deck = DECKS[card["deck"]]
        assert card["id"] in {f"{deck}{i}" for i in range(1, 9)}
        dots[deck].append(card["dots"])
    assert all(sorted(d) == [1, 1, 1, 1, 2, 2, 2, 2] for d in dots.values())
    assert set(dots) == set(DECKS)


def test_offers(ctx):
    names = ctx.checked.enum_values["Act"]
    cards = ctx.data.ids["card"]
    per_card = defaultdict(list)
    for offer in table(ctx, "offer"):
        per_card[cards[offer["card"]]].append(offer["id"])
        assert 1 <= offer["spots"] <= 3
        assert names[offer["act"]] not in {"Start", "Bid", "Card"}
    assert all(ids in ([f"{c}a"], [f"{c}a", f"{c}b"]) for c, ids in per_card.items())
    assert set(per_card) == set(cards)


def test_action_types(ctx):
    names = ctx.checked.enum_values["Act"]
    cards = table(ctx, "card")
    types = defaultdict(set)
    card_acts = defaultdict(set)
    for offer in table(ctx, "offer"):
        act, card = names[offer["act"]], cards[offer["card"]]
        card_acts[card["id"]].add(act)
        types[DECKS[card["deck"]]].add("Loan" if act == "Repay" else act)
    assert {"InvestChip", "Sell", "Copy"} <= set().union(*types.values())
    assert sorted(set().union(*types.values())) == sorted(ACTION_TYPES)
    assert all(2 <= len(t) <= 3 for t in types.values())
    repay = [c for c, a in card_acts.items() if "Repay" in a]
    assert repay and all("Loan" in card_acts[c] for c in repay)


def test_offer_values(ctx):
    names = ctx.checked.enum_values["Act"]
    cards = table(ctx, "card")
    ranges = {
        "Move": (1, 3),
        "Station": (100, 300),
        "Invest": (200, 600),
        "InvestChip": (0, 0),
        "Speed": (1, 3),
        "Bike": (0, 0),
        "Discount": (100, 300),
        "Loan": (1000, 1000),
        "Repay": (1000, 1000),
        "Speculate": (0, 0),
        "Chip": (0, 400),
        "Sell": (0, 0),
        "Copy": (100, 300),
    }
    by_dots = defaultdict(lambda: defaultdict(list))
    for offer in table(ctx, "offer"):
        act = names[offer["act"]]
        low, high = ranges[act]
        assert low <= offer["value"] <= high, offer["id"]
        by_dots[act][cards[offer["card"]]["dots"]].append(offer["value"])
    for act, values in by_dots.items():  # values grow with the dots
        means = [sum(values[d]) / len(values[d]) for d in sorted(values)]
        assert means == sorted(means), act


# ------------------------------------------------------------------- the schema's own check


def test_only_the_small_circles_fail_the_base_schema(tmp_path):
    """Without the expansion's replacement, exactly the small circles fail "every stop belongs
    to a station" (and nothing else fails)."""
    with pytest.raises(CompileError) as failure:
        compile_game(write_stub(tmp_path, ""))
    messages = sorted(d.message for d in failure.value.diagnostics)
    assert messages and all(m.endswith(": every stop belongs to a station") for m in messages)
    failing = sorted(m.split("'")[1] for m in messages)
    assert failing == sorted(["Bus2", "Bus3", "Bus4", "Bus5", "P2", "P3", "P4", "P5", "P6"])


# ---------------------------------------------------------------------------------- the script


def load_build_script(monkeypatch):
    spec = importlib.util.spec_from_file_location("osaka_build_data", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_build_script_reads_the_expansions_own_data(monkeypatch):
    module = load_build_script(monkeypatch)
    assert os.path.join(OSAKA, "data") == module.DEFAULT_DATA
    for name in (module.LINES_FILE, module.COORDS_FILE, "SOURCES.md"):
        assert os.path.isfile(os.path.join(OSAKA, "data", name)), name


def test_the_build_script_regenerates_the_files(tmp_path, monkeypatch):
    module = load_build_script(monkeypatch)
    assert module.main(["--out", str(tmp_path)]) == 0
    for name in ("osaka.metro", "cards.metro"):
        with open(os.path.join(OSAKA, name), encoding="utf-8") as committed:
            assert (tmp_path / name).read_text(encoding="utf-8") == committed.read()


def test_check_mode_run_from_anywhere_without_the_installed_package(tmp_path):
    # -S: no site-packages, so `games` must come from the repository the script is in
    run = subprocess.run(
        [sys.executable, "-S", BUILD_SCRIPT, "--check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "up to date" in run.stdout


def test_a_line_the_expansion_does_not_know_is_one_line(tmp_path, monkeypatch, capsys):
    module = load_build_script(monkeypatch)
    for name in (module.LINES_FILE, module.COORDS_FILE):
        shutil.copy(os.path.join(module.DEFAULT_DATA, name), tmp_path / name)
    with open(tmp_path / module.LINES_FILE, "a", encoding="utf-8") as handle:
        handle.write("X\tExtra\tX01\tNowhere\t\n")
    number = len((tmp_path / module.LINES_FILE).read_text(encoding="utf-8").splitlines())
    assert module.main(["--data", str(tmp_path), "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1, error
    assert f"{tmp_path / module.LINES_FILE}:{number}: unknown line 'X'" in error, error


def test_every_transfer_station_is_kept(ctx, monkeypatch):
    module = load_build_script(monkeypatch)
    path = os.path.join(module.DEFAULT_DATA, module.LINES_FILE)
    stations = ctx.data.ids["station"]
    kept = {
        (letter, stations[s["station"]])
        for letter, stops in stops_by_line(ctx).items()
        for s in stops
        if s["station"] is not None
    }
    from games.tokyo_metro.tools.common import read_lines

    for letter, rows in read_lines(path, TRAIN_LINES + ["P"]).items():
        for row in rows:
            if letter in TRAIN_LINES and any(t in TRAIN_LINES for t in row.transfers):
                assert (letter, module.station_id(row.name)) in kept, (letter, row.name)
