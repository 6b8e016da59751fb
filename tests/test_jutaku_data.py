"""The reconstructed Tokyo Jutaku components (games/components/jutaku/plots.metro).

The data is read the way the game reads it, through `compile_game` (so every check of the
`jutaku` library runs too), and held to the numbers of the rule text and of the issue: 69 pieces,
32 cards in 8 wards of 4 laid out 6 x 6 around an empty centre, two sides per card, frames
inside the card, and a witness building for every side.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import timeit
from collections import Counter, defaultdict

import pytest

from compiler import compile_game
from runtime import shapes
from runtime.geometry import Building, Frame, orientations, placements

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "games", "tokyo_jutaku")
LIBRARY = os.path.join(ROOT, "games", "components", "jutaku")
BUILD_SCRIPT = os.path.join(LIBRARY, "tools", "build_plots.py")
WARDS = 8
PLOTS_PER_WARD = 4
GRID = 6
CENTRE = range(2, 4)  # rows and columns of the empty centre


@pytest.fixture(scope="module")
def data():
    return compile_game(GAME).data


def table(data, kind: str) -> list[dict]:
    """The elements of a kind as dicts: 'id' plus every field (references as indices)."""
    ids = data.ids[kind]
    fields = data.fields[kind]
    return [
        {"id": ident, **{name: column[i] for name, column in fields.items()}}
        for i, ident in enumerate(ids)
    ]


def sides_by_plot(data) -> dict[int, dict[bool, dict]]:
    found: dict[int, dict[bool, dict]] = defaultdict(dict)
    for i, side in enumerate(table(data, "side")):
        assert side["blue"] not in found[side["plot"]], side["id"]
        found[side["plot"]][side["blue"]] = {**side, "index": i}
    return found


def areas_by_side(data) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = defaultdict(list)
    for i, area in enumerate(table(data, "area")):
        found[area["side"]].append({**area, "index": i})
    return found


def witness_steps(data) -> dict[int, list[tuple]]:
    """area index -> [(shape, (orientation, x, y, z)), ...] in building order."""
    kinds = data.fields["piece_kind"]["shape"]
    steps: dict[int, list[tuple]] = defaultdict(list)
    for w in table(data, "witness"):
        steps[w["area"]].append((kinds[w["piece"]], (w["orientation"], w["x"], w["y"], w["z"])))
    return steps


# ------------------------------------------------------------------------------------ pieces


def test_69_pieces_of_varied_shapes(data):
    kinds = table(data, "piece_kind")
    assert sum(k["count"] for k in kinds) == 69
    assert all(k["count"] >= 1 for k in kinds)
    sizes = Counter(k["shape"].size for k in kinds)
    assert sizes[1] >= 1 and sizes[2] >= 1 and sizes[3] >= 1 and sizes[4] >= 1
    by_id = {k["id"]: k["shape"] for k in kinds}
    assert by_id["cube"].dims == (1, 1, 1)
    assert by_id["pillar"].dims == (1, 1, 2)  # drawn "#|#": spans two floors
    assert by_id["plate"].dims == (2, 2, 1)
    assert by_id["bar3"].dims == (3, 1, 1)
    # no two flat kinds are the same drawing (the pillar is congruent to the 2-bar, by design)
    drawings = Counter(k["shape"].cells for k in kinds)
    assert max(drawings.values()) == 1


# ------------------------------------------------------------------------------------ layout


def test_32_plots_in_8_wards_of_4(data):
    plots = table(data, "plot")
    wards = table(data, "ward")
    assert len(plots) == WARDS * PLOTS_PER_WARD == 32
    assert len(wards) == WARDS
    names = {w["id"] for w in wards}
    assert {"shinjuku", "shibuya"} <= names
    assert all(w["name"].lower() == w["id"] for w in wards)
    assert Counter(p["ward"] for p in plots) == dict.fromkeys(range(WARDS), PLOTS_PER_WARD)
    for p in plots:  # readable ids: the ward and a number
        assert p["id"] in {f"{wards[p['ward']]['id']}{n}" for n in range(1, 5)}


def test_six_by_six_layout_with_an_empty_centre(data):
    spots = table(data, "spot")
    cells = {(s["row"], s["col"]) for s in spots}
    assert len(spots) == len(cells) == 32
    assert cells == {
        (r, c) for r in range(GRID) for c in range(GRID) if not (r in CENTRE and c in CENTRE)
    }
    homes = [p["home"] for p in table(data, "plot")]
    assert sorted(homes) == list(range(32))  # every spot holds exactly one card


def test_each_ward_is_a_two_by_two_block(data):
    spots = table(data, "spot")
    blocks = defaultdict(set)
    for p in table(data, "plot"):
        spot = spots[p["home"]]
        blocks[p["ward"]].add((spot["row"], spot["col"]))
    seen = set()
    for ward, cells in blocks.items():
        top = min(r for r, _ in cells)
        left = min(c for _, c in cells)
        assert top % 2 == 0 and left % 2 == 0, ward
        assert cells == {(top + dr, left + dc) for dr in (0, 1) for dc in (0, 1)}, ward
        seen.add((top // 2, left // 2))
    assert seen == {(r, c) for r in range(3) for c in range(3)} - {(1, 1)}


# ------------------------------------------------------------------------------------ sides


def test_two_sides_per_plot_with_readable_ids(data):
    plots = table(data, "plot")
    by_plot = sides_by_plot(data)
    assert len(table(data, "side")) == 64
    for i, plot in enumerate(plots):
        assert set(by_plot[i]) == {False, True}, plot["id"]
        assert by_plot[i][False]["id"] == f"{plot['id']}w"
        assert by_plot[i][True]["id"] == f"{plot['id']}b"


def test_requirements_in_range_and_blue_easier(data):
    for plot_sides in sides_by_plot(data).values():
        white, blue = plot_sides[False], plot_sides[True]
        for side in (white, blue):
            assert 1 <= side["floors"] <= 4, side["id"]
            assert 3 <= side["pieces"] <= 9, side["id"]
            assert side["pieces"] >= side["floors"] - 1, side["id"]
            assert 8000 <= side["value"] <= 16000 and side["value"] % 1000 == 0, side["id"]
        assert blue["floors"] <= white["floors"], white["id"]
        assert blue["pieces"] <= white["pieces"], white["id"]
        assert (blue["floors"], blue["pieces"]) != (white["floors"], white["pieces"]), white["id"]
        assert blue["value"] < white["value"], white["id"]  # more yen for the harder side


def test_the_rule_texts_example_card_exists(data):
    # "3 floors, V/// = 8 pieces, 14,000 yen"
    found = [
        s for s in table(data, "side") if (s["floors"], s["pieces"], s["value"]) == (3, 8, 14000)
    ]
    assert found


def test_frames_lie_inside_the_outline(data):
    sides = table(data, "side")
    for area in table(data, "area"):
        outline = sides[area["side"]]["outline"]
        assert all(cell in outline for cell in area["frame"].cells), area["id"]
        assert 4 <= len(area["frame"].cells) <= 12, area["id"]
    assert all(len(s["outline"].cells) >= 12 for s in sides)


def test_one_or_two_frames_per_side_disjoint_and_different(data):
    by_side = areas_by_side(data)
    sides = table(data, "side")
    counts = Counter(len(by_side[i]) for i in range(len(sides)))
    assert set(counts) <= {1, 2} and counts[1] > 0 and counts[2] > 0
    for i, side in enumerate(sides):
        areas = by_side[i]
        assert [a["id"] for a in areas] == [f"{side['id']}_{c}" for c in "ab"[: len(areas)]]
        if len(areas) == 2:
            a, b = (set(x["frame"].cells) for x in areas)
            assert not a & b, side["id"]
            assert _canonical(a) != _canonical(b), side["id"]


def test_white_frames_are_smaller(data):
    by_side = areas_by_side(data)
    for plot_sides in sides_by_plot(data).values():
        white = [len(a["frame"].cells) for a in by_side[plot_sides[False]["index"]]]
        blue = [len(a["frame"].cells) for a in by_side[plot_sides[True]["index"]]]
        assert max(white) <= max(blue) and min(white) <= min(blue), plot_sides[False]["id"]


def _canonical(cells: set[tuple[int, int]]) -> tuple:
    forms = []
    for sx in (1, -1):
        for sy in (1, -1):
            for swap in (False, True):
                moved = [((y, x) if swap else (x, y)) for x, y in cells]
                moved = [(sx * x, sy * y) for x, y in moved]
                mx, my = min(x for x, _ in moved), min(y for _, y in moved)
                forms.append(tuple(sorted((x - mx, y - my) for x, y in moved)))
    return min(forms)


# ------------------------------------------------------------------------------------ witnesses


def test_every_witness_rebuilds_to_the_sides_requirements(data):
    sides = table(data, "side")
    areas = table(data, "area")
    steps = witness_steps(data)
    witnessed = set()
    for area_index, pieces in steps.items():
        area = areas[area_index]
        side = sides[area["side"]]
        building = shapes.build(area["frame"], pieces)
        assert building is not None, area["id"]
        assert building.floors == side["floors"], area["id"]
        assert building.piece_count == side["pieces"], area["id"]
        assert side["id"] not in {sides[s]["id"] for s in witnessed}, "two witnesses for a side"
        witnessed.add(area["side"])
        for shape, (orientation, *_) in pieces:
            assert 0 <= orientation < len(orientations(shape)), area["id"]
    assert witnessed == set(range(len(sides)))  # every side has one


def test_witnesses_use_no_more_pieces_than_the_box_holds(data):
    counts = data.fields["piece_kind"]["count"]
    used = defaultdict(Counter)
    for w in table(data, "witness"):
        used[w["area"]][w["piece"]] += 1
    for area, kinds in used.items():
        assert all(n <= counts[k] for k, n in kinds.items()), data.ids["area"][area]


def test_witness_ids_number_the_steps(data):
    sides = table(data, "side")
    areas = table(data, "area")
    numbered = defaultdict(list)
    for w in table(data, "witness"):
        side = sides[areas[w["area"]]["side"]]["id"]
        prefix, _, number = w["id"].rpartition("_")
        assert prefix == side, w["id"]
        numbered[side].append(int(number))
    assert all(n == list(range(1, len(n) + 1)) for n in numbered.values())


# ------------------------------------------------------------------------------------ timing


def test_timing_of_placements_on_a_card(data, capsys):
    """Printed, not asserted: legal placements of every kind on a half-built card."""
    sides = table(data, "side")
    areas = table(data, "area")
    steps = witness_steps(data)
    kinds = table(data, "piece_kind")
    # the largest white-side frame that has a witness, built up to half its pieces
    candidates = [a for a in steps if not sides[areas[a]["side"]]["blue"]]
    area = max(candidates, key=lambda a: (len(areas[a]["frame"].cells), a))
    frame: Frame = areas[area]["frame"]
    floors = sides[areas[area]["side"]]["floors"]
    half = steps[area][: len(steps[area]) // 2]
    building = shapes.build(frame, half)
    assert isinstance(building, Building)
    lines = []
    total = 0.0
    for kind in kinds:
        runs = 200
        seconds = (
            timeit.timeit(
                lambda k=kind: placements(k["shape"], frame, building, floors), number=runs
            )
            / runs
        )
        total += seconds
        found = len(placements(kind["shape"], frame, building, floors))
        lines.append(f"  {kind['id']:7} {found:3} placements  {seconds * 1e6:7.1f} us")
    outline = sides[areas[area]["side"]]["outline"]
    whole = (
        timeit.timeit(
            lambda: [placements(k["shape"], outline, Building.empty(), 0) for k in kinds], number=50
        )
        / 50
    )
    with capsys.disabled():
        print(
            f"\nplacements on {areas[area]['id']} ({len(frame.cells)} cells, "
            f"{len(half)} pieces placed):"
        )
        print("\n".join(lines))
        print(
            f"  all kinds: {total * 1e6:.0f} us; every kind on an empty whole card (tower): "
            f"{whole * 1e6:.0f} us"
        )


# ------------------------------------------------------------------------------------ the script


@pytest.mark.nightly  # a minute of witness search; the committed file's witnesses are checked above
def test_the_build_script_regenerates_the_file(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("jutaku_build_plots", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    out = tmp_path / "plots.metro"
    assert module.main(["--out", str(out)]) == 0
    with open(os.path.join(LIBRARY, "plots.metro"), encoding="utf-8") as committed:
        assert out.read_text(encoding="utf-8") == committed.read()
    assert "RECONSTRUCTED" in out.read_text(encoding="utf-8").split("map ")[0]
