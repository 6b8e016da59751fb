"""City networks from GTFS feeds (`metro import gtfs`): the round trip of the shipped Tokyo and
Osaka networks through a feed, the Tokyo board rebuilt from its feed, an imported city played,
and every kind of broken feed refused with file, line and column."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import re
import shutil
import sys
import zipfile
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

pytest.importorskip("partridge", reason="the import extra (partridge) is not installed")

from compiler.resolve import resolve
from games.tokyo_metro.tools.board import (
    TOKYO_LINES,
    TOKYO_STOPS,
    Recipe,
    board_from_network,
    line_spots,
    scaled_income,
)
from games.tokyo_metro.tools.common import Geo, coords_from_network, network_from_tsv
from metro.cli import main
from metro.network import FeedError
from metro.network.feed_writer import feed_files, write_feed
from metro.network.gtfs import read_network
from metro.network.layout import octilinear_share
from metro.network.names import clean_name
from metro.render import open_pictures
from metro.render.labels import label_lines, overlap, text_box
from metro.render.model import Bounds
from tests.london_feed import london_network

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "games", "tokyo_metro")
TOKYO_DATA = os.path.join(GAME, "data")
OSAKA_DATA = os.path.join(GAME, "osaka", "data")


def tokyo_network():
    return network_from_tsv(
        "Tokyo",
        os.path.join(TOKYO_DATA, "tokyo_subway_lines.tsv"),
        os.path.join(TOKYO_DATA, "tokyo_station_coords.tsv"),
        list("GMHTCYZNAISE"),
        ("Mb", "M06"),
    )


def osaka_network():
    return network_from_tsv(
        "Osaka",
        os.path.join(OSAKA_DATA, "osaka_subway_lines.tsv"),
        os.path.join(OSAKA_DATA, "osaka_station_coords.tsv"),
        ["M", "T", "Y", "C", "I", "S", "N", "K", "P"],
    )


@pytest.fixture(scope="module")
def tokyo_feed(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("feeds") / "tokyo.zip")
    write_feed(tokyo_network(), path)
    return path


def small_feed(folder, **replace: str) -> str:
    """A two-line feed as a folder; `replace` swaps whole files (name without .txt -> text)."""
    files = {
        "stops": "stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station\n"
        "A,Alpha,51.50,-0.10,1,\nA1,Alpha,51.50,-0.10,0,A\nB,Beta,51.51,-0.11,,\n"
        "C,Gamma,51.52,-0.12,,\nD,Delta,51.50,-0.13,,\nE,Epsilon,51.53,-0.09,,\n",
        "routes": "route_id,route_short_name,route_long_name,route_type,route_color\n"
        "R,R,Red Line,1,E60012\nU,U,Blue,401,0079C2\nX,X,Bus 1,3,\n",
        "trips": "route_id,service_id,trip_id,direction_id\nR,d,r0,0\nR,d,r1,1\nU,d,u0,0\n"
        "X,d,x0,0\n",
        "stop_times": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "r0,,,A1,1\nr0,,,B,2\nr0,,,C,3\nr1,,,C,1\nr1,,,B,2\nr1,,,A,3\n"
        "u0,,,D,1\nu0,,,B,2\nu0,,,E,3\nx0,,,A,1\nx0,,,E,2\n",
    }
    files.update(replace)
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        if text is not None:
            with open(os.path.join(folder, f"{name}.txt"), "w", encoding="utf-8") as out:
                out.write(text)
    return str(folder)


# ---------------------------------------------------------------------------- the round trips


def test_the_tokyo_network_comes_back_from_its_feed_unchanged(tokyo_feed):
    network = tokyo_network()
    back, report = read_network(tokyo_feed, name="Tokyo")
    assert back == network
    assert report.notes == []
    assert [len(b) for b in back.line("M").branches] == [25, 4]  # the Marunouchi branch kept


def build_script(path: str, name: str, monkeypatch):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_tokyo_board_rebuilt_from_the_feed_is_the_shipped_board(tokyo_feed, monkeypatch):
    path = os.path.join(GAME, "tools", "build_data.py")
    module = build_script(path, "tokyo_build_for_import", monkeypatch)
    back, _ = read_network(tokyo_feed, name="Tokyo")
    with open(os.path.join(GAME, "tokyo.metro"), encoding="utf-8") as shipped:
        assert board_from_network(back, module.TOKYO) == shipped.read()


def test_the_osaka_board_rebuilt_from_its_feed_is_the_shipped_board(tmp_path, monkeypatch):
    path = os.path.join(GAME, "osaka", "tools", "build_data.py")
    module = build_script(path, "osaka_build_for_import", monkeypatch)
    write_feed(osaka_network(), str(tmp_path / "osaka.zip"))
    back, _ = read_network(str(tmp_path / "osaka.zip"), name="Osaka")
    with open(os.path.join(GAME, "osaka", "osaka.metro"), encoding="utf-8") as shipped:
        assert module.board_from_network(back) == shipped.read()


def test_the_osaka_network_comes_back_from_its_feed_unchanged(tmp_path):
    network = osaka_network()
    write_feed(network, str(tmp_path / "osaka"))  # a folder this time
    back, _ = read_network(str(tmp_path / "osaka"), name="Osaka")
    assert back == network


def test_a_feed_is_the_same_bytes_for_the_same_network(tmp_path):
    write_feed(osaka_network(), str(tmp_path / "a.zip"))
    write_feed(osaka_network(), str(tmp_path / "b.zip"))
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


# ------------------------------------------------------------------------- the import command


def test_an_imported_city_is_checked_written_and_played(tmp_path):
    feed = str(tmp_path / "osaka.zip")
    write_feed(osaka_network(), feed)
    out = tmp_path / "osaka_city.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "9 lines" in result.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# osaka board for Tokyo Metro: 9 lines")
    # the city's board takes the place of Tokyo's; the game's cards stay
    program = resolve(GAME, map_path=str(out))
    assert [os.path.basename(p) for p in program.map_paths] == ["osaka_city.metro", "cards.metro"]
    played = CliRunner().invoke(
        main,
        ["simulate", "tokyo_metro", "--map", str(out), "--players", "3", "--games", "3"],
    )
    assert played.exit_code == 0, played.output


def test_lines_and_route_types_choose_the_routes(tmp_path):
    feed = small_feed(tmp_path / "feed")
    network, _ = read_network(feed)
    assert [line.id for line in network.lines] == ["R", "U"]  # 401 (metro) folds into 1
    assert network.line("R").stops[0].code == "A1"  # a platform's code, at its parent station
    assert [s.station for s in network.line("R").stops] == ["A", "B", "C"]
    assert len(network.line("R").branches) == 1  # the way back is the same line
    buses, _ = read_network(feed, route_types=(3,))
    assert [line.id for line in buses.lines] == ["X"]
    only, _ = read_network(feed, lines=("U",))
    assert [line.id for line in only.lines] == ["U"]
    assert [line.name for line in network.transfer_lines(network.line("R"), "B")] == ["U"]


def test_the_output_is_not_replaced_without_force(tmp_path, tokyo_feed):
    out = tmp_path / "city.metro"
    out.write_text("mine", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["import", "gtfs", tokyo_feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    assert result.exit_code == 2 and "--force" in result.output
    assert out.read_text(encoding="utf-8") == "mine"


def test_a_game_without_a_city_importer_is_named(tmp_path, tokyo_feed):
    out = tmp_path / "city.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", tokyo_feed, "--game", "izakaya", "-o", str(out)]
    )
    assert result.exit_code == 2
    assert "has no city importer" in result.output and "tokyo_metro" in result.output
    assert not out.exists()


# ------------------------------------------------------------------------------- broken feeds


BROKEN = {
    "missing file": ({"trips": None}, "no trips.txt"),
    "missing column": (
        {"routes": "route_id,route_short_name\nR,R\n"},
        "routes.txt:1: no column route_type",
    ),
    "bad latitude": (
        {"stops": "stop_id,stop_name,stop_lat,stop_lon\nA,Alpha,north,0\n"},
        "stops.txt:2, column stop_lat, 'A': 'north' is not a latitude",
    ),
    "unknown parent": (
        {"stops": "stop_id,stop_name,stop_lat,stop_lon,parent_station\nA,Alpha,1,1,Z\n"},
        "stops.txt:2, column parent_station, 'A': parent station 'Z' is not a stop",
    ),
    "unknown stop": (
        {
            "stop_times": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
            "r0,,,A,1\nr0,,,Q,2\n"
        },
        "stop_times.txt:3, column stop_id, 'Q': stop 'Q' is not in stops.txt",
    ),
    "loop": (
        {
            "stop_times": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
            "r0,,,A,1\nr0,,,B,2\nr0,,,A,3\nr0,,,C,4\n"
        },
        "stop_times.txt:4, column stop_id, 'A': trip 'r0' passes station 'Alpha' twice",
    ),
    "no metro": (
        {"routes": "route_id,route_short_name,route_type\nX,X,3\n"},
        "routes.txt: no route of type metro (1); the feed has bus (3) x1",
    ),
    "bad colour": (
        {"routes": "route_id,route_short_name,route_type,route_color\nR,R,1,red\n"},
        "routes.txt:2, column route_color, 'R': 'red' is not a colour",
    ),
    "bad sequence": (
        {"stop_times": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nr0,,,A,first\n"},
        "stop_times.txt:2, column stop_sequence, 'r0': 'first' is not a whole number",
    ),
    "duplicate trip": (
        {"trips": "route_id,service_id,trip_id\nX,d,r0\nR,d,r0\n"},
        "trips.txt:3, column trip_id, 'r0': trip id listed twice (first trips.txt:2, 'r0')",
    ),
    "duplicate stop": (
        {"stops": "stop_id,stop_name,stop_lat,stop_lon\nA,Alpha,1,1\nA,Again,1,1\n"},
        "stops.txt:3, column stop_id, 'A': stop id listed twice (first stops.txt:2, 'A')",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_feed_is_refused_naming_file_line_and_column(tmp_path, case):
    replace, expected = BROKEN[case]
    feed = small_feed(tmp_path / "feed", **replace)
    with pytest.raises(FeedError) as caught:
        read_network(feed)
    assert expected in str(caught.value)
    out = tmp_path / "city.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    assert result.exit_code == 1 and expected in result.output
    assert "Traceback" not in result.output
    assert not out.exists() and os.listdir(tmp_path) == ["feed"]  # nothing half-written


def test_unknown_lines_are_named(tmp_path):
    feed = small_feed(tmp_path / "feed")
    with pytest.raises(FeedError, match="no route of the chosen types is called 'Q'"):
        read_network(feed, lines=("R", "Q"))


def test_a_trip_ending_where_it_passed_is_cut_before_its_end(tmp_path):
    times = (
        "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "r0,,,E,1\nr0,,,A,2\nr0,,,B,3\nr0,,,C,4\nr0,,,A,5\nu0,,,D,1\nu0,,,B,2\n"
    )
    feed = small_feed(tmp_path / "feed", stop_times=times)
    network, report = read_network(feed)
    assert [s.station for s in network.line("R").stops] == ["E", "A", "B", "C"]
    assert any("returns to 'Alpha' at its end" in note for note in report.notes)


def test_a_feed_past_the_bound_of_stops_is_refused_with_the_bound(tmp_path):
    rows = "".join(f"S{i},Stop {i},1,1\n" for i in range(50_000))
    feed = small_feed(tmp_path / "feed", stops="stop_id,stop_name,stop_lat,stop_lon\n" + rows)
    with pytest.raises(FeedError, match=r"stops\.txt: more than 20,000 rows; metro reads at most"):
        read_network(feed)


def test_a_zip_feed_in_a_folder_of_its_own_is_read(tmp_path):
    folder = small_feed(tmp_path / "feed")
    archive = tmp_path / "feed.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in sorted(os.listdir(folder)):
            out.write(os.path.join(folder, name), f"city-gtfs/{name}")
    network, _ = read_network(str(archive))
    assert network.name == "feed" and [line.id for line in network.lines] == ["R", "U"]
    shutil.rmtree(folder)


def test_a_file_that_is_no_feed_is_refused(tmp_path):
    path = tmp_path / "feed.txt"
    path.write_text("hello", encoding="utf-8")
    with pytest.raises(FeedError, match="neither a folder nor a zip file"):
        read_network(str(path))


def test_the_feed_writer_names_every_required_file():
    files = feed_files(osaka_network())
    for name in ("stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "transfers.txt"):
        assert files[name].count("\n") >= 2, name


# ------------------------------------------------------------- a bigger city we do not ship


@pytest.fixture(scope="module")
def london_board(tmp_path_factory):
    """London's feed, and the command importing it as a Tokyo Metro board (its result, its file)."""
    folder = tmp_path_factory.mktemp("london")
    feed = str(folder / "london.zip")
    write_feed(london_network(), feed)
    out = folder / "london.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    return feed, result, out


@pytest.fixture(scope="module")
def tokyo_imported(tokyo_feed, tmp_path_factory):
    """Tokyo's feed imported as any city's is (not by the shipped board's script)."""
    out = tmp_path_factory.mktemp("tokyo") / "tokyo_again.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", tokyo_feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def test_london_imports_as_a_tokyo_metro_board_and_plays(london_board):
    feed, result, out = london_board
    network, report = read_network(feed)
    assert len(network.lines) == 13 and len(network.stations) == 278
    district = next(line for line in network.lines if line.long_name == "District Line")
    assert len(district.branches) > 5  # a real network's branches are kept in the network
    circle = next(line for line in network.lines if line.long_name == "Circle Line")
    assert len(circle.branches) == 1 and len(circle.stops) == 27  # the ring opened once
    assert any("returns to 'Aldgate'" in note for note in report.notes)
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "13 lines" in result.output
    assert "the board keeps its main line only" in result.output  # the notes are printed
    played = CliRunner().invoke(
        main,
        ["simulate", "tokyo_metro", "--map", str(out), "--players", "4", "--games", "3"],
    )
    assert played.exit_code == 0, played.output


@dataclass(frozen=True)
class Picture:
    """A board as `metro render` draws it: each station's box and label box, each stop's
    circle, and each line's stops in order (picture units)."""

    boxes: dict[str, Bounds]  # station name -> its box
    labels: dict[str, Bounds]  # station name -> where the renderer set its label
    circles: list[Bounds]
    lines: list[list[tuple[float, float]]]


def board_picture(map_path) -> Picture:
    """The picture of a board with the renderer's own label places."""
    pictures = open_pictures(GAME, map_path=str(map_path))
    layers = {layer.name: layer.items for layer in pictures.layout.map_layers}
    size = pictures.label_size
    return Picture(
        {item.label: item.bounds() for item in layers["stations"]},
        {
            item.label: text_box(label_lines(item), item.label_at, size)
            for item in layers["stations"]
        },
        [item.bounds() for item in layers["stops"]],
        [list(item.places) for item in layers["lines"]],
    )


def test_the_labels_of_an_imported_board_meet_no_label_and_no_other_station(
    london_board, tokyo_imported
):
    for path, stations in ((london_board[2], 89), (tokyo_imported, 68)):
        picture = board_picture(path)
        assert len(picture.labels) == stations
        for a, b in itertools.combinations(sorted(picture.labels), 2):
            assert overlap(picture.labels[a], picture.labels[b]) == 0, (a, b)
        for circle in picture.circles:
            middle = ((circle[0] + circle[2]) / 2, (circle[1] + circle[3]) / 2)
            holders = [name for name, box in picture.boxes.items() if _inside(middle, box)]
            assert len(holders) == 1, holders  # a stop stands in its own station's box alone
            for name, label in picture.labels.items():
                assert name == holders[0] or overlap(label, circle) == 0, (name, holders[0])


def _inside(point, box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def octilinear(picture: Picture) -> float:
    """The share of the lines' stop-to-stop links at a multiple of 45°, as drawn."""
    links = [pair for stops in picture.lines for pair in itertools.pairwise(stops)]
    places = {f"{i}": p for i, p in enumerate(p for pair in links for p in pair)}
    return octilinear_share(places, [(f"{2 * i}", f"{2 * i + 1}") for i in range(len(links))])


def test_an_imported_boards_lines_run_mostly_at_multiples_of_45_degrees(
    london_board, tokyo_imported
):
    assert octilinear(board_picture(london_board[2])) >= 0.8  # 0.50 by the projection alone
    assert octilinear(board_picture(tokyo_imported)) >= 0.8  # the shipped board: 0.52


def test_an_imported_boards_links_keep_their_real_directions(london_board):
    feed, _, out = london_board
    network, _ = read_network(feed)
    geo = Geo({clean_name(name): p for name, p in coords_from_network(network).items()})
    real: dict[str, list[str]] = {}  # line -> its stops' real stations, from the comments
    text = out.read_text(encoding="utf-8")
    for line, name in re.findall(r"  stop \w+\(line: (\w+), .*\)   # \S+ (?:\(\d+\) )?(.+)", text):
        real.setdefault(line, []).append(name)
    drawn = board_picture(out).lines
    kept = []
    for stops, names in zip(drawn, real.values(), strict=True):
        pairs = zip(itertools.pairwise(stops), itertools.pairwise(names), strict=True)
        for (p, q), (a, b) in pairs:
            (ax, ay), (bx, by) = geo.km(a), geo.km(b)  # km north: the picture's y runs south
            kept.append((bx - ax) * (q[0] - p[0]) - (by - ay) * (q[1] - p[1]) > 0)
    assert len(kept) == 161 and sum(kept) >= 0.9 * len(kept)  # within 90° of the real way


def test_the_income_track_and_disc_spots_scale_with_the_boards_stops_and_lines():
    with open(os.path.join(GAME, "tokyo.metro"), encoding="utf-8") as shipped:
        board = shipped.read()
    assert board.count("\n  stop ") == TOKYO_STOPS and board.count("\n  line ") == TOKYO_LINES
    tokyo = scaled_income(TOKYO_STOPS, TOKYO_LINES)
    assert (tokyo.track_top, tokyo.spot_factor) == (6000, 1.0)  # the rulebook's track
    assert scaled_income(136, 12).track_top == 6000  # Tokyo through the importer: 2 stops fewer
    bigger = scaled_income(174, 13)  # London: more stops, values rise more slowly
    assert (bigger.track_top, bigger.spot_factor) == (5000, 12 / 13)
    assert scaled_income(100, 9).track_top == 8000
    assert scaled_income(13, 3).track_top == 9000  # bounded: half again Tokyo's
    assert scaled_income(600, 20).track_top == 3000  # bounded: the rulebook's ¥2,900 example
    kept = {letter: [] for letter in "ABCDEF"}
    recipe = Recipe("X", tuple(kept), {}, ())
    assert sorted(line_spots(kept, recipe).values()) == [2, 2, 3, 3, 4, 4]
    assert sorted(line_spots(kept, recipe, 4.0).values()) == [4] * 6  # at most 4
    assert sorted(line_spots(kept, recipe, 0.6).values()) == [1, 1, 2, 2, 2, 2]  # at least 1


def test_an_imported_board_carries_its_scaled_income_and_tokyos_its_own(
    london_board, tokyo_imported
):
    text = london_board[2].read_text(encoding="utf-8")
    rows = re.findall(r"track_row V(\d+)\(value: (\d+), high: (\d+), low: (\d+)\)", text)
    assert [int(r[1]) for r in rows] == list(range(0, 5001, 100))  # to ¥5,000, not ¥6,000
    assert "income track, RECONSTRUCTED for this city: ¥0 to ¥5,000" in text
    assert "RECONSTRUCTED for this city: those times 12/13" in text
    spots = [int(n) for n in re.findall(r"  line \w+\(name: .*, spots: (\d), ", text)]
    assert sorted(spots) == [2] * 5 + [3] * 4 + [4] * 4
    assert (
        "ok: Tokyo Metro"
        in CliRunner().invoke(main, ["check", "tokyo_metro", "--map", str(london_board[2])]).output
    )
    with open(os.path.join(GAME, "tokyo.metro"), encoding="utf-8") as shipped:
        own = shipped.read()
    again = tokyo_imported.read_text(encoding="utf-8")
    for pattern in (r"  line (\w+)\(name: .*, spots: (\d), ", r"  (track_row .*)"):
        assert re.findall(pattern, again) == re.findall(pattern, own)
    assert "RECONSTRUCTED for this city: ¥0 to ¥6,000, Tokyo's ¥6,000 times its 138" in again


def test_compare_with_the_games_own_map_plays_both_on_the_same_seeds(tmp_path, tokyo_feed):
    pytest.importorskip("scipy", reason="the comparison's statistics need the report extra")
    out = tmp_path / "tokyo_again.metro"
    result = CliRunner().invoke(
        main,
        ["import", "gtfs", tokyo_feed, "--game", "tokyo_metro", "-o", str(out),
         "--compare-with", "default", "--games", "4", "--players", "2"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "4 games per configuration on the same seeds" in result.output
    assert "map tokyo_again.metro" in result.output and "Win rate by seat" in result.output


def test_compare_takes_a_map_as_a_configuration(tmp_path, tokyo_feed):
    pytest.importorskip("scipy", reason="the comparison's statistics need the report extra")
    out = tmp_path / "city.metro"
    CliRunner().invoke(
        main, ["import", "gtfs", tokyo_feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    result = CliRunner().invoke(
        main,
        ["compare", "tokyo_metro", "--on-map", str(out), "--players", "2", "--games", "3",
         "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    configs = json.loads(result.output)["configurations"]
    assert [(c["label"], c["map"]) for c in configs] == [
        ("base", None),
        ("map city.metro", str(out)),
    ]


def test_a_zip_member_past_the_size_bound_is_refused_before_it_is_unpacked(tmp_path, monkeypatch):
    from metro.network import gtfs_files

    folder = small_feed(tmp_path / "feed")
    archive = tmp_path / "big.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in sorted(os.listdir(folder)):
            out.write(os.path.join(folder, name), f"../../{name}")  # only base names are used
    monkeypatch.setattr(gtfs_files, "MAX_FILE_BYTES", 100)
    with pytest.raises(FeedError, match="a file may have at most 100"):
        read_network(str(archive))
    assert sorted(os.listdir(tmp_path)) == ["big.zip", "feed"]  # nothing unpacked beside it


def test_a_map_the_game_refuses_is_reported_and_not_written(tmp_path, tokyo_feed, monkeypatch):
    from metro.network import game_import

    def broken_builder(network):
        return 'map "Broken" for "Tokyo Metro" {\n  line G(name: "G", spots: 9, stocks: 3)\n}\n', []

    monkeypatch.setattr(game_import, "map_builder", lambda game: broken_builder)
    out = tmp_path / "city.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", tokyo_feed, "--game", "tokyo_metro", "-o", str(out)]
    )
    assert result.exit_code == 1
    assert "spots" in result.output and "Traceback" not in result.output
    assert "city.metro not written: tokyo_metro refuses the map" in result.output
    assert os.listdir(tmp_path) == []  # neither the map nor its trial copy


@pytest.mark.parametrize("game", ["tokyo_metro", "ticket_to_ride"])
def test_a_feeds_names_cannot_write_rule_text(tmp_path, game):
    stops = "stop_id,stop_code,stop_name,stop_lat,stop_lon\n" + "".join(
        f'S{i},"c{i}\n}} const X = 1 #","Stop {i}"" }} {{x}}",51.5{i},-0.1{i}\n' for i in range(8)
    )
    times = "trip_id,stop_id,stop_sequence\n" + "".join(
        f"{trip},S{s},{n}\n"
        for trip, path in (("r0", (0, 1, 2, 3, 4)), ("u0", (5, 1, 2, 6)), ("g0", (4, 2, 6, 7)))
        for n, s in enumerate(path, start=1)
    )
    feed = small_feed(
        tmp_path / "feed",
        stops=stops,
        routes='route_id,route_short_name,route_long_name,route_type\nR,R,"Red "" }",1\n'
        "U,U,Blue,1\nG,G,Green,1\n",
        trips="route_id,service_id,trip_id\nR,d,r0\nU,d,u0\nG,d,g0\n",
        stop_times=times,
    )
    out = tmp_path / "city.metro"
    result = CliRunner().invoke(
        main,
        ["import", "gtfs", feed, "--game", game, "--name", 'Evil" {\n}', "-o", str(out)],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    for line in text.splitlines():  # the feed's text only ever inside a comment
        assert "const X" not in line or line.index("#") < line.index("const X"), line
    assert not any(line.lstrip().startswith(("}", "const")) for line in text.splitlines()[:-1])
    assert "{x}" not in text
