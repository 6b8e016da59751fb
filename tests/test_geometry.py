"""Tests for runtime.geometry: orientations, placement rules, enumeration and removal."""

from __future__ import annotations

import copy
import pickle
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime import shapes
from runtime.geometry import (
    NO_CONTACT,
    OUTSIDE_FRAME,
    OVERHANG,
    OVERLAP,
    Building,
    Frame,
    Placement,
    Shape,
    check_placement,
    is_complete,
    orientations,
    placements,
    removable,
)

SHAPES = {
    "monocube": Shape.parse(["#"]),
    "domino": Shape.parse(["##"]),
    "straight tromino": Shape.parse(["###"]),
    "L tromino": Shape.parse(["##/#."]),
    "T tetromino": Shape.parse(["###/.#."]),
    "square tetromino": Shape.parse(["##/##"]),
    "straight tetromino": Shape.parse(["####"]),
    "plate 2x2x1": Shape.from_cells([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]),
    "L tetromino": Shape.parse(["###/#.."]),
    "J tetromino": Shape.parse(["###/..#"]),
    "S tetromino": Shape.parse(["##./.##"]),
    "tall pillar": Shape.parse(["#", "#"]),
    "tripod": Shape.parse(["##/#.", "#./.."]),
    "left screw": Shape.parse(["##/#.", "../#."]),
    "right screw": Shape.parse(["##/.#", "../.#"]),
}

EXPECTED_COUNTS = {
    "monocube": 1,
    "domino": 3,
    "straight tromino": 3,
    "L tromino": 12,
    "T tetromino": 12,
    "square tetromino": 3,
    "straight tetromino": 3,
    "plate 2x2x1": 3,
    "L tetromino": 24,
    "J tetromino": 24,
    "S tetromino": 12,
    "tall pillar": 3,
    "tripod": 8,
    "left screw": 24,
}


def _matrices() -> list[tuple[tuple[int, ...], ...]]:
    # Brute force, independent of the library: every 3x3 matrix over {-1, 0, 1} that is
    # orthogonal (M times its transpose is the identity); there must be exactly 48.
    found = []
    for entries in product((-1, 0, 1), repeat=9):
        m = (entries[0:3], entries[3:6], entries[6:9])
        if all(
            sum(m[i][k] * m[j][k] for k in range(3)) == (i == j) for i in range(3) for j in range(3)
        ):
            found.append(m)
    assert len(found) == 48
    return found


MATRICES = _matrices()


def _norm(cells) -> tuple:
    cells = list(cells)
    lows = [min(c[i] for c in cells) for i in range(3)]
    return tuple(sorted({tuple(c[i] - lows[i] for i in range(3)) for c in cells}))


def _brute_orientations(shape: Shape) -> set[tuple]:
    return {
        _norm([tuple(sum(m[i][k] * c[k] for k in range(3)) for i in range(3)) for c in shape.cells])
        for m in MATRICES
    }


# --- shapes and orientations -------------------------------------------------------------


def test_parse_and_normalise():
    assert Shape.parse(["##/#."]).cells == ((0, 0, 0), (0, 1, 0), (1, 0, 0))
    assert Shape.parse(["#", "#"]).cells == ((0, 0, 0), (0, 0, 1))
    assert Shape.parse(["../.#"]) == Shape.from_cells([(5, 5, 3)])
    assert Shape.from_cells([(2, 3, 1), (3, 3, 1), (2, 3, 1)]).cells == ((0, 0, 0), (1, 0, 0))
    assert Shape.parse(["##/#."]).dims == (2, 2, 1)
    with pytest.raises(ValueError):
        Shape.parse(["#x"])
    with pytest.raises(ValueError):
        Shape.parse(["../.."])


@pytest.mark.parametrize("name", sorted(EXPECTED_COUNTS))
def test_orientation_counts(name):
    shape = SHAPES[name]
    assert len(orientations(shape)) == EXPECTED_COUNTS[name]
    assert {o.cells for o in orientations(shape)} == _brute_orientations(shape)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_orientations_match_brute_force(name):
    shape = SHAPES[name]
    found = orientations(shape)
    assert {o.cells for o in found} == _brute_orientations(shape)
    assert len({o.cells for o in found}) == len(found)
    assert list(found) == sorted(found, key=lambda o: o.cells)


def test_mirror_pairs_coincide():
    assert set(orientations(SHAPES["L tetromino"])) == set(orientations(SHAPES["J tetromino"]))
    assert set(orientations(SHAPES["left screw"])) == set(orientations(SHAPES["right screw"]))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_orientations_closed_and_index_stable(name):
    found = orientations(SHAPES[name])
    cells = {o.cells for o in found}
    for o in found:
        assert _brute_orientations(o) == cells
        # Any orientation of the shape yields the same list, so indices do not depend on it.
        assert orientations(o) == found


# --- frames, placements, buildings --------------------------------------------------------


def test_frame_constructors():
    assert Frame.rect(1, 2, 2, 1).cells == ((1, 2), (2, 2))
    frame = Frame.parse("##./###")
    assert frame.cells == ((0, 0), (0, 1), (1, 0), (1, 1), (2, 1))
    assert (2, 1) in frame and (2, 0) not in frame
    assert Frame.parse("#.#").cells == ((0, 0), (2, 0))
    with pytest.raises(ValueError):
        Frame.parse("...")


def test_placement_cells():
    domino = SHAPES["domino"]
    placement = Placement.of(domino, 0, (2, 1, 3))
    assert placement.shape == orientations(domino)[0]
    assert placement.cells == tuple(
        (x + 2, y + 1, z + 3) for x, y, z in orientations(domino)[0].cells
    )


def test_building_basics():
    building = Building.empty()
    assert building.floors == 0 and building.piece_count == 0 and building.cells == frozenset()
    building = building.add(Placement(SHAPES["domino"], (0, 0, 0)))
    building = building.add([(0, 0, 1)])
    assert building.floors == 2 and building.piece_count == 2
    assert building.owner((1, 0, 0)) == 0 and building.owner((0, 0, 1)) == 1
    assert building.owner((5, 5, 5)) is None
    assert building.height(0, 0) == 2 and building.height(1, 0) == 1 and building.height(9, 9) == 0
    assert building.supported
    assert building == Building(((((0, 0, 0), (1, 0, 0))), ((0, 0, 1),)))
    assert is_complete(building, 2, 2)
    assert not is_complete(building, 2, 3) and not is_complete(building, 1, 2)
    with pytest.raises(ValueError):
        building.add([(0, 0, 0)])
    with pytest.raises(IndexError):
        building.remove(2)
    assert building.remove(0).pieces == (((0, 0, 1),),)
    assert not building.remove(0).supported


# --- refusal scenarios --------------------------------------------------------------------

FRAME = Frame.rect(0, 0, 4, 3)


def _build(*pieces) -> Building:
    building = Building.empty()
    for cells in pieces:
        assert check_placement(building, FRAME, cells) is None
        building = building.add(cells)
    return building


def test_refuse_outside_frame():
    assert check_placement(Building.empty(), FRAME, [(3, 0, 0), (4, 0, 0)]) == OUTSIDE_FRAME
    assert check_placement(Building.empty(), FRAME, [(0, 0, -1)]) == OUTSIDE_FRAME
    split = Frame.parse("##.##")
    assert check_placement(Building.empty(), split, [(1, 0, 0), (2, 0, 0)]) == OUTSIDE_FRAME
    assert check_placement(Building.empty(), split, [(3, 0, 0), (4, 0, 0)]) is None


def test_refuse_overlap():
    building = _build([(0, 0, 0), (1, 0, 0)])
    assert check_placement(building, FRAME, [(1, 0, 0), (2, 0, 0)]) == OVERLAP


def test_refuse_overhang():
    assert check_placement(Building.empty(), FRAME, [(0, 0, 1)]) == OVERHANG
    building = _build([(0, 0, 0)])
    assert check_placement(building, FRAME, [(0, 0, 1), (1, 0, 1)]) == OVERHANG
    # A piece may support its own upper cubes.
    assert check_placement(building, FRAME, [(1, 0, 0), (1, 0, 1)]) is None


def test_refuse_bridge_over_gap():
    # Two towers joined behind a gap; a bar across the front gap has nothing under its middle.
    building = _build([(0, 0, 0)], [(0, 1, 0), (1, 1, 0), (2, 1, 0), (2, 0, 0)])
    assert building.floors == 1
    assert check_placement(building, FRAME, [(0, 0, 1), (1, 0, 1), (2, 0, 1)]) == OVERHANG


def test_refuse_no_contact_on_shared_floor():
    building = _build([(0, 0, 0)])
    assert check_placement(building, FRAME, [(2, 0, 0)]) == NO_CONTACT
    # Touching at a corner only is not an edge.
    assert check_placement(building, FRAME, [(1, 1, 0)]) == NO_CONTACT
    assert check_placement(building, FRAME, [(1, 0, 0)]) is None


def test_legal_second_floor_and_contact_there():
    building = _build([(0, 0, 0), (1, 0, 0), (2, 0, 0)])
    # First cube on an empty floor needs support only.
    assert check_placement(building, FRAME, [(0, 0, 1)]) is None
    building = building.add([(0, 0, 1)])
    assert building.floors == 2
    assert check_placement(building, FRAME, [(2, 0, 1)]) == NO_CONTACT
    assert check_placement(building, FRAME, [(1, 0, 1)]) is None
    assert (0, (1, 0, 1)) in placements(SHAPES["monocube"], FRAME, building)


def test_contact_needed_on_every_shared_floor():
    building = _build([(0, 0, 0), (1, 0, 0)], [(0, 0, 1)])
    # A pillar beside the building touches floor 0 but not floor 1.
    assert check_placement(building, FRAME, [(2, 1, 0), (2, 1, 1)]) == NO_CONTACT
    assert check_placement(building, FRAME, [(2, 0, 0), (2, 0, 1)]) == NO_CONTACT
    assert check_placement(building, FRAME, [(0, 1, 0), (0, 1, 1)]) is None


def test_max_floors_and_removable():
    building = _build([(0, 0, 0), (1, 0, 0)], [(0, 0, 1)], [(2, 0, 0)])
    pillar = SHAPES["tall pillar"]
    assert all(
        max(c[2] for c in Placement.of(pillar, o, off).cells) < 2
        for o, off in placements(pillar, FRAME, building, max_floors=2)
    )
    lying = placements(pillar, FRAME, building, max_floors=1)
    assert lying and all(orientations(pillar)[o].dims[2] == 1 for o, _ in lying)
    assert placements(SHAPES["monocube"], FRAME, building, max_floors=0) == []
    assert removable(building) == [1, 2]


def test_removable_keeps_each_floor_in_one_part():
    # a row of three cubes with a long bar beside it on the ground, a row of three cubes upstairs
    row = _build([(0, 0, 0)], [(1, 0, 0)], [(2, 0, 0)], [(0, 1, 0), (1, 1, 0), (2, 1, 0)])
    assert removable(row) == [0, 1, 2, 3]  # the middle cube: the ends stay joined by the bar
    assert removable(row.remove(3)) == [0, 2]  # without the bar the middle cube joins the ends
    building = _build(*row.pieces, [(0, 0, 1)], [(1, 0, 1)], [(2, 0, 1)])
    assert removable(building) == [3, 4, 6]  # upstairs the middle cube joins the ends
    assert removable(building.remove(3)) == [3, 5]


# --- properties ---------------------------------------------------------------------------

FRAMES = [
    Frame.rect(0, 0, 3, 3),
    Frame.rect(0, 0, 4, 3),
    Frame.parse("##./###/.##"),
    Frame.parse("##.##/##.##"),
    Frame.rect(-1, 2, 2, 2),
]
PIECES = [
    SHAPES[n]
    for n in (
        "monocube",
        "domino",
        "L tromino",
        "L tetromino",
        "T tetromino",
        "tall pillar",
        "tripod",
        "left screw",
    )
]


@st.composite
def legal_buildings(draw):
    frame = draw(st.sampled_from(FRAMES))
    building = Building.empty()
    for _ in range(draw(st.integers(0, 5))):
        shape = draw(st.sampled_from(PIECES))
        options = placements(shape, frame, building)
        if not options:
            break
        o, offset = draw(st.sampled_from(options))
        building = building.add(Placement.of(shape, o, offset))
    return frame, building


@st.composite
def loose_buildings(draw):
    # Arbitrary cubes, possibly floating: exercises the path for unsupported buildings.
    frame = draw(st.sampled_from(FRAMES))
    x0, y0 = frame.cells[0]
    cells = draw(
        st.sets(
            st.tuples(st.integers(x0, x0 + 3), st.integers(y0, y0 + 2), st.integers(0, 2)),
            max_size=8,
        )
    )
    return frame, Building(tuple((c,) for c in sorted(cells)))


def _reference_reason(occupied: set, frame: Frame, cells: list) -> str | None:
    # Straightforward restatement of the rules, written separately from the library.
    if any(z < 0 or (x, y) not in set(frame.cells) for x, y, z in cells):
        return OUTSIDE_FRAME
    if any(c in occupied for c in cells):
        return OVERLAP
    together = occupied | set(cells)
    if any(z > 0 and (x, y, z - 1) not in together for x, y, z in cells):
        return OVERHANG
    for level in sorted({z for _, _, z in cells}):
        existing = {(x, y) for x, y, z in occupied if z == level}
        mine = {(x, y) for x, y, z in cells if z == level}
        if existing and not any(
            (x + sx, y + sy) in existing
            for x, y in mine
            for sx, sy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        ):
            return NO_CONTACT
    return None


def _brute_placements(shape, frame, building, max_floors):
    xs = [x for x, _ in frame.cells]
    ys = [y for _, y in frame.cells]
    found = []
    for o, oriented in enumerate(orientations(shape)):
        for dx, dy, dz in product(
            range(min(xs) - 1, max(xs) + 2),
            range(min(ys) - 1, max(ys) + 2),
            range(-1, building.floors + 3),
        ):
            cells = Placement(oriented, (dx, dy, dz)).cells
            if max_floors is not None and max(c[2] for c in cells) >= max_floors:
                continue
            if check_placement(building, frame, cells) is None:
                found.append((o, (dx, dy, dz)))
    return sorted(found)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(legal_buildings(), loose_buildings()),
    st.sampled_from(PIECES),
    st.sampled_from([None, 1, 2, 3]),
)
def test_placements_sound_and_complete(world, shape, max_floors):
    frame, building = world
    found = placements(shape, frame, building, max_floors)
    assert found == sorted(set(found))
    for o, offset in found:
        assert check_placement(building, frame, Placement.of(shape, o, offset)) is None
    assert found == _brute_placements(shape, frame, building, max_floors)
    found.clear()  # the building remembers its placements; a caller's list is its own
    assert placements(shape, frame, building, max_floors) == _brute_placements(
        shape, frame, building, max_floors
    )


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(legal_buildings(), loose_buildings()),
    st.sampled_from(PIECES),
    st.integers(0, 100),
    st.tuples(st.integers(-1, 4), st.integers(-1, 4), st.integers(-1, 3)),
)
def test_check_matches_reference(world, shape, pick, offset):
    frame, building = world
    oriented = orientations(shape)[pick % len(orientations(shape))]
    cells = list(Placement(oriented, offset).cells)
    expected = _reference_reason(set(building.cells), frame, cells)
    assert check_placement(building, frame, cells) == expected


@settings(max_examples=100, deadline=None)
@given(legal_buildings(), st.sampled_from(PIECES), st.data())
def test_add_then_remove_restores(world, shape, data):
    frame, building = world
    assert building.supported
    options = placements(shape, frame, building)
    if not options:
        return
    o, offset = data.draw(st.sampled_from(options))
    bigger = building.add(Placement.of(shape, o, offset))
    assert bigger.piece_count == building.piece_count + 1
    assert bigger.supported
    restored = bigger.remove(building.piece_count)
    assert restored == building
    assert restored.cells == building.cells
    assert restored.floors == building.floors
    assert all(restored.owner(c) == building.owner(c) for c in building.cells)
    assert hash(restored) == hash(building)
    assert building.piece_count in removable(bigger)


@settings(max_examples=100, deadline=None)
@given(st.one_of(legal_buildings(), loose_buildings()))
def test_removable_keeps_support_and_floors_whole(world):
    _, building = world
    offered = removable(building)
    for index in range(building.piece_count):
        rest = building.remove(index)
        held = all(z == 0 or (x, y, z - 1) in rest.cells for x, y, z in rest.cells)
        assert rest.supported == held
        levels = {z for _, _, z in building.pieces[index]}
        whole = all(_reference_whole(rest, level) for level in levels)
        assert (index in offered) == (held and whole)


def _reference_whole(building: Building, level: int) -> bool:
    # The pieces on `level` form one group when pieces with edge-adjacent cubes there are merged.
    groups = [{c for c in cells if c[2] == level} for cells in building.pieces]
    groups = [g for g in groups if g]
    merged = True
    while merged and len(groups) > 1:
        merged = False
        pairs = [(i, j) for i in range(len(groups)) for j in range(i + 1, len(groups))]
        for a, b in pairs:
            if any(abs(p[0] - q[0]) + abs(p[1] - q[1]) == 1 for p in groups[a] for q in groups[b]):
                groups[a] |= groups.pop(b)
                merged = True
                break
    return len(groups) <= 1


@settings(max_examples=100, deadline=None)
@given(legal_buildings(), st.data())
def test_returns_and_placements_keep_a_building_legal(world, data):
    # Any mix of legal placements and offered removals leaves every floor in one part.
    frame, building = world
    for _ in range(6):
        offered = removable(building)
        if offered and data.draw(st.booleans()):
            building = building.remove(data.draw(st.sampled_from(offered)))
        else:
            shape = data.draw(st.sampled_from(PIECES))
            options = placements(shape, frame, building)
            if not options:
                continue
            o, offset = data.draw(st.sampled_from(options))
            building = building.add(Placement.of(shape, o, offset))
        assert building.supported
        assert all(_reference_whole(building, level) for level in range(building.floors))


def test_equal_shapes_hash_alike():
    bar = Shape.parse(["##"])
    moved = Shape.from_cells([(5, 5, 5), (6, 5, 5)])
    assert bar == moved and hash(bar) == hash(moved)
    assert {bar: 1}[moved] == 1


@settings(max_examples=100, deadline=None)
@given(legal_buildings(), st.sampled_from(PIECES), st.sampled_from([0, 1, 2, 3]))
def test_buildings_of_the_same_heights_share_their_placements(world, shape, floors):
    # Solid buildings of equal heights share one cache: the same placements, whatever the pieces.
    frame, building = world
    cubes = Building(tuple(((x, y, z),) for x, y, z in sorted(building.cells)))
    assert cubes.supported and cubes._placements is building._placements
    limit = floors or None
    found = shapes.legal_placements(shape, frame, building, floors)
    expected = [(o, *offset) for o, offset in _brute_placements(shape, frame, cubes, limit)]
    assert found == expected
    found.clear()  # a caller's list is its own
    assert shapes.legal_placements(shape, frame, cubes, floors) == expected
    assert placements(shape, frame, cubes, limit) == _brute_placements(
        shape, frame, building, limit
    )


@settings(max_examples=100, deadline=None)
@given(st.one_of(legal_buildings(), loose_buildings()))
def test_removable_pieces_are_kept_and_copied(world):
    _, building = world
    offered = shapes.removable_pieces(building)
    assert offered == removable(building)
    offered.append(99)  # a caller's list is its own
    assert shapes.removable_pieces(building) == removable(building)


def test_removal_whatever_order_the_pieces_came_in():
    # A piece listed (or added unchecked) before the one it rests on is still not removable.
    listed = Building((((0, 0, 1),), ((0, 0, 0),), ((1, 0, 0),)))
    assert listed.supported and removable(listed) == [0, 2]
    floating = Building((((0, 0, 1),),))
    assert removable(floating) == [0]
    grown = floating.add([(0, 0, 0)]).add([(1, 0, 0)])
    assert grown.supported and removable(grown) == [0, 2]
    assert removable(grown.remove(0)) == [0, 1]


@settings(max_examples=100, deadline=None)
@given(legal_buildings(), st.lists(st.tuples(st.sampled_from(PIECES), st.integers(0, 500))))
def test_removable_kept_up_through_placements(world, steps):
    # Asked after every placement (its links grown piece by piece), as from the pieces alone.
    frame, building = world
    removable(building)
    for shape, pick in steps[:6]:
        options = placements(shape, frame, building)
        if options:
            o, offset = options[pick % len(options)]
            building = building.add(Placement.of(shape, o, offset))
            assert removable(building) == removable(Building(building.pieces))


def test_a_building_pickles_as_its_pieces():
    building = Building((((0, 0, 0), (1, 0, 0)), ((0, 0, 1),)))
    placements(Shape.parse(["#"]), Frame.rect(0, 0, 2, 1), building)  # fills the shared cache
    again = pickle.loads(pickle.dumps(building))
    assert again == building and removable(again) == removable(building) == [1]
    assert len(pickle.dumps(building)) < 200  # not the placements it shares
    assert copy.deepcopy(building) == building


@settings(max_examples=100, deadline=None)
@given(
    legal_buildings(),
    st.sampled_from(FRAMES),
    st.sampled_from(PIECES),
    st.sampled_from([None, 2, 3]),
)
def test_placements_in_another_frame(world, frame, shape, max_floors):
    # A building that reaches outside the frame asked about (its grid keeps a margin of one).
    _, building = world
    expected = _brute_placements(shape, frame, building, max_floors)
    assert placements(shape, frame, building, max_floors) == expected


def test_the_empty_building_is_shared_and_unchanged_by_use():
    empty = Building.empty()
    assert empty is Building.empty() and empty == Building()
    bigger = empty.add([(0, 0, 0)])
    assert removable(empty) == [] and removable(bigger) == [0]
    assert Building.empty().pieces == () and Building.empty().floors == 0


def test_a_full_cache_keeps_no_more_answers(monkeypatch):
    monkeypatch.setattr("runtime.geometry.CACHE_ENTRIES", 2)
    frame = Frame.rect(0, 0, 4, 3)
    building = Building((((0, 0, 1),),))  # not solid: a cache of its own
    for shape in PIECES[:4]:
        expected = [(o, *offset) for o, offset in _brute_placements(shape, frame, building, 3)]
        assert shapes.legal_placements(shape, frame, building, 3) == expected
    assert len(building._placements) == 2
