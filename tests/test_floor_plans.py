"""Buildings as people read them: floor plans and placements in grid words (runtime/floor_plans)."""

from __future__ import annotations

from runtime.floor_plans import MAX_PLAN_SITES, floor_plan, placement_words, site_name
from runtime.geometry import Building, Frame, Shape
from runtime.shapes import legal_placements, place

FRAME = Frame.parse("...../.##../.##../##...")
BAR = Shape.parse("##")
CUBE = Shape.parse("#")


def test_sites_read_like_chessboard_squares():
    assert site_name(0, 0) == "a1" and site_name(1, 2) == "b3" and site_name(25, 9) == "z10"
    assert site_name(26, 0) == "[26]1" and site_name(-1, 0) == "[-1]1"


def test_placements_read_as_the_sites_and_floors_they_cover():
    assert placement_words(BAR, (2, 1, 1, 0)) == "b2 c2 on floor 1"
    assert placement_words(BAR, (0, 1, 1, 0)) == "b2 on floors 1–2"  # standing upright
    corner = Shape.parse("##/#.")
    words = {placement_words(corner, at) for at in legal_placements(corner, FRAME, Building(), 2)}
    assert "b2 c2 on floor 1, b2 on floor 2" in words  # a standing corner, floor by floor
    assert "b2 c2 b3 on floor 1" in words  # lying flat: row by row, left to right
    ell = Shape.parse("###/#..")
    standing = {placement_words(ell, at) for at in legal_placements(ell, FRAME, Building(), 3)}
    assert "b2 c2 on floor 1, b2 on floors 2–3" in standing


def test_every_placement_reads_differently():
    building = place(Building(), BAR, (2, 1, 1, 0))
    for shape in (CUBE, BAR, Shape.parse("##/#."), Shape.parse("###/.#."), Shape.parse("##/##")):
        found = legal_placements(shape, FRAME, building, 2)
        assert len({placement_words(shape, at) for at in found}) == len(found)


def test_an_empty_plan_shows_the_frame():
    assert floor_plan(Building(), [FRAME], 2) == "floor 1\n  a b c\n2   . .\n3   . .\n4 . ."
    # only the columns and rows in use, named as the placements name them
    assert floor_plan(Building(), [Frame.parse("..../..##")], 1) == "floor 1\n  c d\n2 . ."


def test_pieces_show_their_numbers_floor_by_floor_up_to_the_next_free_floor():
    building = place(place(Building(), BAR, (2, 1, 1, 0)), CUBE, (0, 1, 1, 1))
    assert floor_plan(building, [FRAME], 3).splitlines() == [
        "floor 1   floor 2   floor 3",
        "  a b c     a b c     a b c",
        "2   1 1   2   2 .   2   . .",
        "3   . .   3   . .   3   . .",
        "4 . .     4 . .     4 . .",
    ]
    assert floor_plan(building, [FRAME], 2).count("floor") == 2  # no higher than allowed


def test_several_frames_are_lettered():
    first, second = Frame.parse("##/..."), Frame.parse("../.##")
    assert floor_plan(Building(), [first, second], 1) == "floor 1\n  a b c\n1 A A\n2   B B"


def test_wide_pieces_numbers_keep_the_columns_aligned():
    frame = Frame.rect(0, 0, 12, 1)
    building = Building()
    for x in range(12):
        building = place(building, CUBE, (0, x, 0, 0))
    rows = floor_plan(building, [frame], 1).splitlines()
    assert rows[2].split() == ["1", *map(str, range(1, 13))]
    assert len(rows[1]) == len(rows[2])


def test_a_huge_frame_is_not_drawn():
    huge = Frame(((0, 0), (MAX_PLAN_SITES, MAX_PLAN_SITES)))
    assert floor_plan(Building(), [huge], 0).startswith("too large to draw")
