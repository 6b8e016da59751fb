"""The schematic layout of a network (metro/network/layout.py): links turned octilinear, one
station a cell, labels' room kept, geography recognisable, the same answer every time."""

from __future__ import annotations

import itertools
import math
import os

import pytest

from games.tokyo_metro.tools.common import network_from_tsv
from metro.network.layout import Frame, octilinear_share, project, schematic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKYO_DATA = os.path.join(ROOT, "games", "tokyo_metro", "data")
FRAME = Frame(left=70, top=90, width=1630, height=935)


def tokyo_transfers():
    """Tokyo's stations of two lines or more, and the links between them along each line."""
    network = network_from_tsv(
        "Tokyo",
        os.path.join(TOKYO_DATA, "tokyo_subway_lines.tsv"),
        os.path.join(TOKYO_DATA, "tokyo_station_coords.tsv"),
        list("GMHTCYZNAISE"),
    )
    kept = {s.id for s in network.stations if len(network.lines_at(s.id)) > 1}
    points = {s.id: (s.lat, s.lon) for s in network.stations if s.id in kept}
    edges = set()
    for line in network.lines:
        stops = [s.station for s in line.stops if s.station in kept]
        edges |= {tuple(sorted(pair)) for pair in itertools.pairwise(stops) if pair[0] != pair[1]}
    return points, sorted(edges)


@pytest.fixture(scope="module")
def tokyo():
    points, edges = tokyo_transfers()
    widths = {name: 15 * min(len(name), 16) for name in points}
    return points, edges, widths, schematic(points, edges, FRAME, widths)


def test_links_become_octilinear(tokyo):
    points, edges, _, at = tokyo
    before = octilinear_share(project(points), edges)
    after = octilinear_share(at, edges)
    assert len(points) > 40 and len(edges) > 60
    assert before < 0.2  # real places: few links at a multiple of 45°
    assert after >= 0.7, (before, after)


def test_one_station_a_cell_inside_the_frame(tokyo):
    points, _, _, at = tokyo
    assert len(set(at.values())) == len(points)
    pitch = min(math.dist(p, q) for p, q in itertools.combinations(at.values(), 2))
    assert pitch >= 60  # the grid's pitch on this frame, for 45 stations
    for x, y in at.values():
        assert FRAME.left <= x <= FRAME.left + FRAME.width
        assert FRAME.top <= y <= FRAME.top + FRAME.height


def test_stations_on_one_row_leave_room_for_their_labels(tokyo):
    _, _, widths, at = tokyo
    for a, b in itertools.combinations(at, 2):
        if at[a][1] == at[b][1]:
            assert abs(at[a][0] - at[b][0]) >= (widths[a] + widths[b]) / 2 - 1, (a, b)


def test_geography_stays_recognisable(tokyo):
    points, edges, _, at = tokyo
    real = project(points)
    # most links keep their real direction within 90°, and the compass points stay put
    kept = sum(
        1
        for a, b in edges
        if (real[b][0] - real[a][0]) * (at[b][0] - at[a][0])
        + (real[b][1] - real[a][1]) * (at[b][1] - at[a][1])
        > 0
    )
    assert kept >= 0.9 * len(edges)
    for axis in (0, 1):
        assert max(real, key=lambda k: real[k][axis]) in _top(at, axis, 3)
        assert min(real, key=lambda k: real[k][axis]) in _top(at, axis, 3, lowest=True)


def _top(at, axis, count, lowest=False):
    return sorted(at, key=lambda k: at[k][axis] * (1 if lowest else -1))[:count]


def test_the_layout_is_the_same_every_time(tokyo):
    points, edges, widths, at = tokyo
    assert schematic(dict(reversed(points.items())), edges[::-1], FRAME, widths) == at


def test_no_room_is_an_error_naming_the_grid():
    points = {f"S{i}": (35 + i * 0.001, 139.0) for i in range(20)}
    with pytest.raises(ValueError, match=r"no room for 20 stations and their labels on a \d+x\d+"):
        schematic(points, [], Frame(0, 0, 100, 100), dict.fromkeys(points, 500))


def test_nothing_to_lay_out():
    assert schematic({}, [], FRAME) == {}
    assert octilinear_share({"a": (0, 0), "b": (3, 3)}, [("a", "b")]) == 1.0
