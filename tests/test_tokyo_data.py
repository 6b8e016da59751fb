"""The reconstructed Tokyo Metro components (games/tokyo_metro/tokyo.metro and cards.metro).

The data is loaded the way a game loads it, through `compile_game` on a stub game that uses the
Tokyo Metro schema (so every schema check runs too), and held to the numbers of the issue.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

import pytest

from compiler import compile_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "games", "tokyo_metro")
BUILD_SCRIPT = os.path.join(GAME, "tools", "build_data.py")
STUB = """game "Tokyo Metro" {{
  players 1..5
  use "{schema}"
  default map "{board}", "{cards}"
  flow {{ }}
}}
"""
LINE_ORDER = list("GMHTCYZNAISE")
DECKS = ["GM", "HT", "CY", "ZN", "AI", "SE"]
# The Oedo line keeps all of its transfer stations, and it has 16 of them: the one line above
# the 8-14 stops the others are held to (see the build script's docstring).
STOP_LIMITS = defaultdict(lambda: (8, 14), E=(8, 16))
ACTION_TYPES = [
    "Move",
    "Station",
    "Invest",
    "Start",
    "Speed",
    "Bike",
    "Discount",
    "Bid",
    "Loan",
    "Speculate",
    "Chip",
    "Card",
]


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    stub = tmp_path_factory.mktemp("tokyo_stub")
    # A rule file reads only its own game's files: the stub gets copies beside it.
    for name in ("schema.metro", "tokyo.metro", "cards.metro"):
        shutil.copy(os.path.join(GAME, name), stub / name)
    (stub / "rules.metro").write_text(
        STUB.format(schema="schema.metro", board="tokyo.metro", cards="cards.metro"),
        encoding="utf-8",
    )
    return compile_game(str(stub))


def table(ctx, kind: str) -> list[dict]:
    """The elements of a kind as dicts: 'id' plus every field (references as indices)."""
    ids = ctx.data.ids[kind]
    fields = ctx.data.fields[kind]
    return [
        {"id": ident, **{name: column[i] for name, column in fields.items()}}
        for i, ident in enumerate(ids)
    ]


def acts(ctx) -> list[str]:
    return ctx.checked.enum_values["Act"]


# ------------------------------------------------------------------------------------ the board


def test_twelve_lines_in_income_track_order(ctx):
    lines = table(ctx, "line")
    assert [line["id"] for line in lines] == LINE_ORDER
    assert all(line["name"].endswith(" Line") for line in lines)
    assert all(2 <= line["spots"] <= 4 and line["stocks"] == 3 for line in lines)
    assert len({line["spots"] for line in lines}) > 1  # busier lines have more spots


def test_one_train_a_line_entering_at_stop_1(ctx):
    vehicles = table(ctx, "vehicle")
    assert sorted(v["line"] for v in vehicles) == list(range(len(LINE_ORDER)))
    assert all(v["home"] == 1 for v in vehicles)


def test_stops_per_line_numbered_in_order(ctx):
    lines = ctx.data.ids["line"]
    numbers = defaultdict(list)
    for stop in table(ctx, "stop"):
        letter = lines[stop["line"]]
        assert stop["id"] == f"{letter}{stop['number']}"
        numbers[letter].append(stop["number"])
    for letter in LINE_ORDER:
        low, high = STOP_LIMITS[letter]
        assert low <= len(numbers[letter]) <= high, letter
        assert numbers[letter] == list(range(1, len(numbers[letter]) + 1)), letter


def test_every_stop_in_one_station_of_one_to_three_stops(ctx):
    stops = table(ctx, "stop")
    assert all(stop["station"] is not None for stop in stops)
    per_station = Counter(stop["station"] for stop in stops)
    assert set(per_station) == set(range(len(ctx.data.ids["station"])))
    assert all(1 <= n <= 3 for n in per_station.values())


def test_a_station_holds_two_consecutive_stops_of_one_line(ctx):
    by_station = defaultdict(list)
    for stop in table(ctx, "stop"):
        by_station[stop["station"]].append((stop["line"], stop["number"]))
    same_line = [
        sorted(stops)
        for stops in by_station.values()
        if len({line for line, _ in stops}) < len(stops)
    ]
    assert same_line
    assert any(b == (a[0], a[1] + 1) for stops in same_line for a, b in itertools.pairwise(stops))


@pytest.mark.parametrize("letter", ["H", "T"])
def test_the_rulebooks_same_line_pairs_share_a_station(ctx, letter):
    """The rulebook's example of two stops of one line in one station: H6-H7 and T6-T7."""
    stops = {s["id"]: s for s in table(ctx, "stop")}
    first, second = stops[f"{letter}6"], stops[f"{letter}7"]
    assert first["station"] == second["station"]
    station = ctx.data.ids["station"][first["station"]]
    assert [
        s["id"]
        for s in stops.values()
        if s["station"] == first["station"] and ctx.data.ids["line"][s["line"]] == letter
    ] == [f"{letter}6", f"{letter}7"], station


def test_big_complexes_are_split(ctx):
    stations = {s["id"]: s["name"] for s in table(ctx, "station")}
    assert "Otemachi" not in stations  # five lines: two neighbouring stations
    assert {"Otemachi West", "Otemachi East"} <= set(stations)


def test_the_grid_is_one_connected_rectangle(ctx):
    squares = table(ctx, "square")
    cells = {(q["x"], q["y"]) for q in squares}
    assert len(cells) == len(squares)
    width = max(x for x, _ in cells) + 1
    height = max(y for _, y in cells) + 1
    assert 14 <= width <= 20 and 10 <= height <= 14
    assert cells == {(x, y) for x in range(width) for y in range(height)}
    assert all(q["id"] == f"x{q['x']}y{q['y']}" for q in squares)
    seen, todo = set(), [next(iter(cells))]
    while todo:
        x, y = todo.pop()
        if (x, y) in seen:
            continue
        seen.add((x, y))
        todo += [c for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if c in cells]
    assert seen == cells


def test_stops_touch_squares_around_one_point(ctx):
    squares = table(ctx, "square")
    by_station = defaultdict(list)
    for stop in table(ctx, "stop"):
        cells = [(squares[q]["x"], squares[q]["y"]) for q in stop["squares"]]
        assert 1 <= len(cells) <= 4 and len(set(cells)) == len(cells)
        xs, ys = {x for x, _ in cells}, {y for _, y in cells}
        assert max(xs) - min(xs) <= 1 and max(ys) - min(ys) <= 1  # around one grid point
        by_station[stop["station"]].append(frozenset(cells))
    for touched in by_station.values():
        assert frozenset.intersection(*touched)  # the stops of a station share a square
    sets = [cells for touched in by_station.values() for cells in touched]
    assert len(set(sets)) == len(sets)  # no two stops touch exactly the same squares


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
    # the rulebook's payout examples: 2 stockholders of a ¥2,900 line get ¥2,000 and ¥900;
    # with 3, #1 takes half (¥1,500) and the ¥1,400 left is split ¥1,000 / ¥400
    assert by_value[2900] == (2000, 900)
    assert by_value[1400] == (1000, 400)


# ------------------------------------------------------------------------------------ the cards


def test_six_decks_of_nine_cards_three_of_each_dot_count(ctx):
    assert ctx.data.ids["deck"] == DECKS
    cards = table(ctx, "card")
    assert len(cards) == 54
    dots = defaultdict(list)
    for card in cards:
        deck = DECKS[card["deck"]]
        assert re.fullmatch(rf"{deck}[1-9]", card["id"])
        dots[deck].append(card["dots"])
    assert all(sorted(d) == [1, 1, 1, 2, 2, 2, 3, 3, 3] for d in dots.values())
    assert set(dots) == set(DECKS)


def test_offers(ctx):
    cards = ctx.data.ids["card"]
    offers = table(ctx, "offer")
    per_card = defaultdict(list)
    for offer in offers:
        per_card[cards[offer["card"]]].append(offer["id"])
        assert 1 <= offer["spots"] <= 3
    assert all(ids in ([f"{c}a"], [f"{c}a", f"{c}b"]) for c, ids in per_card.items())
    assert set(per_card) == set(cards)


def test_all_action_types_two_per_deck(ctx):
    names = acts(ctx)
    cards = table(ctx, "card")
    types = defaultdict(set)
    card_acts = defaultdict(set)
    for offer in table(ctx, "offer"):
        act, card = names[offer["act"]], cards[offer["card"]]
        card_acts[card["id"]].add(act)
        types[DECKS[card["deck"]]].add("Loan" if act == "Repay" else act)
    assert all(len(t) == 2 for t in types.values())
    assert sorted(set().union(*types.values())) == sorted(ACTION_TYPES)
    repay = [c for c, a in card_acts.items() if "Repay" in a]
    assert repay and all("Loan" in card_acts[c] for c in repay)


def test_offer_values(ctx):
    names = acts(ctx)
    cards = table(ctx, "card")
    ranges = {
        "Move": (1, 3),
        "Station": (100, 300),
        "Invest": (200, 600),
        "Start": (100, 400),
        "Speed": (1, 3),
        "Bike": (0, 0),
        "Discount": (100, 300),
        "Bid": (200, 600),
        "Loan": (1000, 1000),
        "Repay": (1000, 1000),
        "Speculate": (0, 0),
        "Chip": (0, 400),
        "Card": (0, 300),
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


# ---------------------------------------------------------------------------------- the script


def load_build_script(monkeypatch):
    spec = importlib.util.spec_from_file_location("tokyo_build_data", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_build_script_reads_the_games_own_data(monkeypatch):
    module = load_build_script(monkeypatch)
    assert os.path.join(GAME, "data") == module.DEFAULT_DATA
    for name in (module.LINES_FILE, module.COORDS_FILE, "SOURCES.md"):
        assert os.path.isfile(os.path.join(GAME, "data", name)), name


def test_the_build_script_regenerates_the_files(tmp_path, monkeypatch):
    module = load_build_script(monkeypatch)
    assert module.main(["--out", str(tmp_path)]) == 0
    for name in ("tokyo.metro", "cards.metro"):
        with open(os.path.join(GAME, name), encoding="utf-8") as committed:
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
    shutil.copy(os.path.join(GAME, "cards.metro"), tmp_path / "cards.metro")
    (tmp_path / "tokyo.metro").write_text("# stale\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-S", BUILD_SCRIPT, "--check", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert "tokyo.metro" in run.stderr and "cards.metro" not in run.stderr
    assert (tmp_path / "tokyo.metro").read_text(encoding="utf-8") == "# stale\n"


def _data_copy(tmp_path, module, edit=None):
    """A copy of the game's data folder in tmp_path, `edit(name, lines)` applied to each file."""
    for name in (module.LINES_FILE, module.COORDS_FILE):
        with open(os.path.join(module.DEFAULT_DATA, name), encoding="utf-8") as handle:
            lines = handle.read().splitlines(keepends=True)
        if edit is not None:
            edit(name, lines)
        (tmp_path / name).write_text("".join(lines), encoding="utf-8")
    return str(tmp_path)


def _first_data_line(lines: list[str]) -> int:
    """The index of the first row after the header (0-based)."""
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    return header + 1


@pytest.mark.parametrize(
    ("target", "change", "message"),
    [
        ("lines", lambda row: row.replace("\tGinza\t", "\tGinza\t\t\t", 1), "fields, at most 5"),
        ("lines", lambda row: "Q" + row[1:], "unknown line 'Q'"),
        ("lines", lambda row: row.rstrip("\n") + "Q\n", "unknown transfer line(s) ['ZQ']"),
        ("coords", lambda row: row.replace("\t35.", "\tnorth", 1), "is not a number"),
        ("coords", lambda row: "", None),  # the station loses its point
    ],
    ids=["extra-field", "bad-line", "bad-transfer", "bad-number", "no-point"],
)
def test_a_malformed_data_file_is_one_line_naming_file_and_line(
    tmp_path, monkeypatch, capsys, target, change, message
):
    module = load_build_script(monkeypatch)
    wanted = module.LINES_FILE if target == "lines" else module.COORDS_FILE
    where = {}

    def edit(name, lines):
        if name == wanted:
            index = _first_data_line(lines)
            where["line"] = index + 1
            where["station"] = lines[index].split("\t")[3 if target == "lines" else 0]
            lines[index] = change(lines[index])

    data = _data_copy(tmp_path, module, edit)
    assert module.main(["--data", data, "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    if message is None:  # reported at the station's row of the lines file
        assert f"{module.LINES_FILE}:" in error and repr(where["station"]) in error, error
    else:
        assert f"{os.path.join(data, wanted)}:{where['line']}: " in error, error
        assert message in error, error
    assert not (tmp_path / "tokyo.metro").exists()


def test_a_missing_data_file_is_one_line(tmp_path, monkeypatch, capsys):
    module = load_build_script(monkeypatch)
    data = _data_copy(tmp_path, module)
    os.remove(os.path.join(data, module.COORDS_FILE))
    assert module.main(["--data", data, "--check"]) == 2
    error = capsys.readouterr().err
    assert error == (
        "games/tokyo_metro/tools/build_data.py: error: "
        f"{os.path.join(data, module.COORDS_FILE)}: no such file\n"
    )
