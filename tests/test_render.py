"""`draw` declarations and `metro render`: every shipped map drawn with its labels, a broken map
with its findings marked, positions with owners' colours and per-player views, PNG, and the
diagnostics of drawings written wrong."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from compiler import compile_game
from dsl.diagnostics import CompileError
from loader import load_game
from metro.bots import make_bot
from metro.cli import main
from metro.play.moves import MoveLog, last_moves
from metro.play.saved_games import SAVE_FORMAT
from metro.render import map_scene, open_pictures, position_scene
from metro.render.files import PictureError, picture_bytes
from metro.render.labels import candidates, label_lines, overlap, text_box
from metro.render.marks import marked_items
from metro.render.svg import label_place, scene_bounds, to_svg
from metro.serve.board import board_svg
from metro.testing.coverage import code_lines
from runtime.errors import RuleError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = os.path.join(ROOT, "games")
TTR = os.path.join(GAMES, "ticket_to_ride")
SVG = "{http://www.w3.org/2000/svg}"

# Every shipped map: (game, expansions, variants), and the kinds whose every element it shows.
SHIPPED = {
    "ticket to ride": (TTR, (), (), {"city", "route"}),
    "tokyo metro": (
        os.path.join(GAMES, "tokyo_metro"),
        (),
        (),
        {"square", "line", "station", "stop", "track_row"},
    ),
    "osaka metro": (
        os.path.join(GAMES, "tokyo_metro"),
        (os.path.join(GAMES, "tokyo_metro", "osaka", "expansion.metro"),),
        (),
        {"square", "line", "station", "stop", "track_row"},
    ),
    "metro drinks": (
        os.path.join(GAMES, "tokyo_metro"),
        (os.path.join(GAMES, "tokyo_metro", "drinks", "expansion.metro"),),
        (),
        {"square", "line", "station", "stop", "track_row"},
    ),
    "osaka metro drinks": (
        os.path.join(GAMES, "tokyo_metro"),
        (
            os.path.join(GAMES, "tokyo_metro", "osaka", "expansion.metro"),
            os.path.join(GAMES, "tokyo_metro", "drinks", "expansion.metro"),
        ),
        (),
        {"square", "line", "station", "stop", "track_row"},
    ),
    "izakaya": (os.path.join(GAMES, "izakaya"), (), (), {"cell", "drink_color"}),
    "shopping centre": (os.path.join(GAMES, "shopping_centre"), (), (), {"space", "card"}),
    "vending market": (os.path.join(GAMES, "jidohanbaiki"), (), (), {"square"}),
    "izakaya corner chips": (
        os.path.join(GAMES, "izakaya"),
        (),
        (os.path.join(GAMES, "izakaya", "variants", "corner-chips.metro"),),
        {"cell", "drink_color"},
    ),
    "tokyo jutaku": (os.path.join(GAMES, "tokyo_jutaku"), (), (), {"plot"}),
    "jutaku tower": (
        os.path.join(GAMES, "tokyo_jutaku"),
        (),
        (os.path.join(GAMES, "tokyo_jutaku", "variants", "tower.metro"),),
        {"plot"},
    ),
}


def svg_of(scene, pictures) -> ET.Element:
    """The scene as SVG, parsed (so it is well-formed XML)."""
    text = to_svg(scene, scene_bounds(scene, pictures.label_size), pictures.label_size)
    return ET.fromstring(text)


def texts(root: ET.Element) -> set[str]:
    """Every title and text shown in an SVG picture, and each of their words."""
    whole = {e.text for e in root.iter() if e.tag in (f"{SVG}title", f"{SVG}text") and e.text}
    return whole | {word.strip(":,") for text in whole for word in text.split(" ")}


@pytest.fixture(scope="module")
def ttr_pictures():
    return open_pictures(TTR)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_map_renders_with_each_elements_label(name):
    path, expansions, variants, kinds = SHIPPED[name]
    pictures = open_pictures(path, expansions, variants)
    assert pictures.findings == []
    root = svg_of(map_scene(pictures), pictures)
    shown = texts(root)
    for kind in kinds:
        ids = pictures.names.elements[kind]
        assert ids, kind
        missing = [i for i in ids if i not in shown]
        assert missing == [], f"{kind} elements without their label: {missing[:5]}"
    drawn = pictures.layout.of_element
    assert {kind for kind, _ in drawn} >= kinds
    assert all(pictures.names.element(*element) in shown for element in drawn)


def overlapping_pairs(boxes) -> int:
    return sum(1 for a, b in itertools.combinations(boxes, 2) if overlap(a, b) > 0)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_map_labels_are_kept_off_each_other(name):
    path, expansions, variants, _ = SHIPPED[name]
    pictures = open_pictures(path, expansions, variants)
    size = pictures.label_size
    items = [i for layer in pictures.layout.map_layers for i in layer.items if i.label]
    placed = [text_box(label_lines(i), label_place(i, size), size) for i in items]
    beside = [text_box([i.label], candidates(i, size)[0], size) for i in items]  # all on one side
    assert overlapping_pairs(placed) <= overlapping_pairs(beside) // 4
    # Tokyo had 3 pairs of labels touching ("Otemachi (west)" and its neighbours) and Osaka 1,
    # before long labels broke into lines and placement went on moving labels that meet others.
    assert overlapping_pairs(placed) == 0
    # each label stays beside its shape: less than a label's height away
    for item, box in zip(items, placed, strict=True):
        x0, y0, x1, y1 = item.bounds()
        reach = size
        assert overlap(box, (x0 - reach, y0 - reach, x1 + reach, y1 + reach)) > 0, item.label


@pytest.mark.parametrize(("name", "bound"), [("tokyo metro", 31), ("osaka metro", 14)])
def test_few_labels_of_a_subway_map_stand_on_other_stations(name, bound):
    # (label, other element's station box or stop) pairs that overlap; before long labels broke
    # into lines and labels could stand a little farther out: Tokyo 41, Osaka 20
    path, expansions, variants, _ = SHIPPED[name]
    pictures = open_pictures(path, expansions, variants)
    size = pictures.label_size
    items = [i for layer in pictures.layout.map_layers for i in layer.items]
    shapes = [i for i in items if i.shape in ("point", "box")]
    touching = sum(
        1
        for item in items
        if item.label
        for other in shapes
        if other is not item
        and overlap(text_box(label_lines(item), label_place(item, size), size), other.bounds()) > 0
    )
    assert touching <= bound


def test_the_map_drawing_places_lines_at_their_ends_and_double_routes_side_by_side(ttr_pictures):
    layout = ttr_pictures.layout
    names = ttr_pictures.names.elements
    ids = load_game(TTR).module.K_route
    denver = layout.anchors["city"][names["city"].index("Denver")].places[0]
    assert denver == (666, 622)  # the city's (x, y) from usa.metro
    # R004 and R005 are the two tracks between the same cities: parallel, a line width apart
    a = layout.of_element[("route", ids.index("R004"))][0]
    b = layout.of_element[("route", ids.index("R005"))][0]
    ends_a = sorted(a.places)
    ends_b = sorted(b.places)
    gap = ((ends_a[0][0] - ends_b[0][0]) ** 2 + (ends_a[0][1] - ends_b[0][1]) ** 2) ** 0.5
    assert gap == pytest.approx(18 * 1.15, rel=0.01)  # width 18, laid 1.15 widths apart
    assert a.style.dashes == 4 and a.style.colour == "#f0932b"  # length 4, orange


def broken_copy(tmp_path) -> str:
    """Ticket to Ride with a city no route reaches and a route of an unknown colour."""
    game = tmp_path / "ttr"
    shutil.copytree(TTR, game)
    usa = game / "usa.metro"
    text = usa.read_text(encoding="utf-8")
    text = text.replace("  # routes:", "  city Atlantis(x: 900, y: 1000)\n  # routes:", 1)
    usa.write_text(text, encoding="utf-8")
    return str(game)


def test_a_broken_map_is_drawn_with_its_findings_marked(tmp_path):
    pictures = open_pictures(broken_copy(tmp_path))
    assert [f.message for f in pictures.findings] == [
        "map check failed: every city can be reached from every other"
    ]
    finding = pictures.findings[0]
    assert finding.where.endswith("usa.metro:45:3")  # at the city that is cut off
    assert len(finding.marked) == 1
    x0, y0, x1, y1 = finding.marked[0]
    assert x0 < 900 < x1 and y0 < 1000 < y1  # the ring is round Atlantis
    root = svg_of(map_scene(pictures), pictures)
    rings = root.find(f".//{SVG}g[@id='findings']")
    assert rings is not None
    assert "1. map check failed: every city can be reached from every other" in texts(rings)
    assert "Atlantis" in texts(root)  # the broken city is still drawn
    caption = texts(root.find(f".//{SVG}g[@id='caption']"))
    assert any("usa.metro:45:3: map check failed" in line for line in caption)


def test_metro_render_of_a_broken_map_writes_it_and_exits_1(tmp_path):
    out = tmp_path / "broken.svg"
    result = CliRunner().invoke(main, ["render", broken_copy(tmp_path), "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert "usa.metro:45:3: finding 1: map check failed" in result.stderr
    assert "1 finding marked" in result.stdout
    ET.parse(out)


def test_metro_render_names_the_map_it_drew_and_the_patches_applied(tmp_path):
    out = tmp_path / "osaka.svg"
    tokyo = os.path.join(GAMES, "tokyo_metro")
    result = CliRunner().invoke(main, ["render", tokyo, "--with", "osaka", "-o", str(out)])
    assert result.exit_code == 0, result.output
    drawn = 'the map "Osaka" and "Osaka cards" of Tokyo Metro with Osaka Metro; 0 findings marked'
    assert drawn in result.stdout
    result = CliRunner().invoke(main, ["render", TTR, "-o", str(out)])
    assert 'the map "USA" of Ticket to Ride; 0 findings marked' in result.stdout


def test_the_broken_example_map_marks_each_finding_on_what_it_names(tmp_path):
    broken = os.path.join(ROOT, "examples", "broken_map.metro")
    pictures = open_pictures(TTR, map_path=broken)
    marked = {f.message: len(f.marked) for f in pictures.findings}
    assert marked == {
        "map check failed: every city can be reached from every other": 1,  # Eyam
        "route 'R2': double routes are twinned both ways": 1,
        "route 'R6': a route joins two different cities": 1,
        # tickets are not drawn on the map: the two cities the ticket names are marked
        "ticket 'T2': a ticket's two cities are joined by routes": 2,
    }
    out = tmp_path / "broken.svg"
    result = CliRunner().invoke(main, ["render", TTR, "--map", broken, "-o", str(out)])
    assert result.exit_code == 1
    assert "4 findings marked" in result.stdout


def test_a_map_whose_data_is_wrong_is_drawn_without_the_broken_element(tmp_path):
    game = tmp_path / "ttr"
    shutil.copytree(TTR, game)
    usa = game / "usa.metro"
    usa.write_text(
        usa.read_text(encoding="utf-8").replace("route R001(Atlanta,", "route R001(Nowhere,"),
        encoding="utf-8",
    )
    pictures = open_pictures(str(game))
    messages = [f.message for f in pictures.findings]
    assert "no city 'Nowhere' in the map" in messages
    route_ids = pictures.names.elements["route"]
    assert ("route", route_ids.index("R001")) not in pictures.layout.of_element
    assert ("route", route_ids.index("R002")) in pictures.layout.of_element


def play(game, players: int, decisions: int, bot: str = "random"):
    state = game.new_game(players, 3)
    bots = [make_bot(bot, f"3/{p}", game) for p in range(players)]
    while state.to_move and len(state.history) < decisions:
        player = state.to_move[0]
        state.apply(player, bots[player].choose(state, player))
    return state


def layer_items(root: ET.Element, name: str) -> list[ET.Element]:
    """The items (`<g class="item">`) of one drawing in an SVG picture."""
    (layer,) = [g for g in root.iter(f"{SVG}g") if g.get("data-name") == name]
    return [g for g in layer if g.get("class") == "item"]


def test_a_claimed_route_carries_its_owners_trains_and_a_free_one_none(ttr_pictures):
    game = load_game(TTR)
    state = play(game, 3, 120)
    scene = position_scene(ttr_pictures, game, state, None)
    colours = game.module.C_PLAYER_COLOURS
    owned = {r: p for r, p in enumerate(state.g_owner) if p is not None}
    assert owned and len(owned) < len(state.g_owner)
    trains = layers_of(scene)["trains"].items
    assert sorted(item.element[1] for item in trains) == sorted(owned)
    for train in trains:
        (route,) = ttr_pictures.layout.of_element[train.element]
        assert train.places == route.places  # on the route's own track of a double route
        assert train.style.colour == colours[owned[train.element[1]] + 1]
        assert train.style.outline == "#111" != route.style.outline
        assert train.style.width > route.style.width  # wider than the route: never alike
        assert train.style.dashes == route.style.dashes  # a train on each space
    root = svg_of(scene, ttr_pictures)
    drawn = layer_items(root, "trains")
    assert len(drawn) == len(owned)
    for group in drawn:  # outlined pieces, lined up with the route's spaces
        border, body = group.findall(f"{SVG}line")
        assert border.get("stroke") == "#111" and border.get("stroke-dasharray")
        assert body.get("stroke") in {colours[p + 1] for p in owned.values()}
    # the legend of the trains: each player's line starts with a train of theirs
    samples = layer_items(root, "players' trains")
    assert [g.findall(f"{SVG}line")[1].get("stroke") for g in samples] == [
        colours[p + 1] for p in range(3)
    ]
    shown = texts(root)
    for p in range(3):
        assert any(t.startswith(f"P{p + 1}: {state.p_score[p]} points") for t in shown)


def test_the_pieces_of_dashed_lines_over_one_route_line_up_whatever_their_widths(ttr_pictures):
    game = load_game(TTR)
    state = play(game, 3, 120)
    root = svg_of(position_scene(ttr_pictures, game, state, None), ttr_pictures)
    route_of = {g.get("id"): g for g in layer_items(root, "routes")}
    for group in layer_items(root, "trains"):
        title = group.find(f"{SVG}title").text
        route = next(g for g in route_of.values() if title.startswith(g.find(f"{SVG}title").text))
        train_line, route_line = group.findall(f"{SVG}line")[0], route.findall(f"{SVG}line")[0]
        for line in (train_line, route_line):
            gap = float(line.get("stroke-dasharray").split()[1])
            # each piece in the middle of its share: the offset is half the gap
            assert float(line.get("stroke-dashoffset")) == pytest.approx(-gap / 2, abs=0.01)
        assert sum(map(float, train_line.get("stroke-dasharray").split())) == pytest.approx(
            sum(map(float, route_line.get("stroke-dasharray").split())), abs=0.02
        )


def test_a_drawing_without_a_shape_restyles_its_elements_drawing(tmp_path):
    write_game(
        tmp_path,
        CITIES
        + 'draw "roads" for r in road: line from r.a to r.b colour "#888"\n'
        + '  draw "owned" for r in road where owner[r] is not none: colour "#f00" width 9',
    )
    game = load_game(str(tmp_path))
    pictures = open_pictures(str(tmp_path))
    state = game.new_game(2, 1)
    (road,) = pictures.layout.of_element[("road", 0)]
    assert f"#i{road.number}" not in to_svg(
        position_scene(pictures, game, state, None), (0, 0, 9, 9), 1
    )
    state.g_owner[0] = 1
    css = to_svg(position_scene(pictures, game, state, None), (0, 0, 9, 9), 1)
    assert f"#i{road.number} .s{{stroke:#f00;stroke-width:9}}" in css


def test_the_lines_of_a_subway_map_are_listed_in_its_legend():
    pictures = open_pictures(os.path.join(GAMES, "tokyo_metro"))
    root = svg_of(map_scene(pictures), pictures)
    entries = layer_items(root, "legend")
    lines = pictures.layout.of_element
    names = pictures.names.elements["line"]
    assert len(entries) == 2 * len(names)  # a sample and its text per line
    samples, words = entries[0::2], entries[1::2]
    assert [g.find(f"{SVG}text").text for g in words] == names
    colours = [lines[("line", i)][0].style.colour for i in range(len(names))]
    assert [g.find(f"{SVG}line").get("stroke") for g in samples] == colours
    legend_top = min(float(g.find(f"{SVG}text").get("y")) for g in words)
    (stations,) = [g for g in root.iter(f"{SVG}g") if g.get("data-name") == "stations"]
    lowest = max(float(r.get("y")) + float(r.get("height")) for r in stations.iter(f"{SVG}rect"))
    assert legend_top > lowest  # under the map, not over it


def layers_of(scene) -> dict:
    """A scene's layers by the name of their drawing."""
    return {layer.name: layer for layer in scene.layers}


def test_an_izakaya_position_shows_cards_drinks_chips_pyramids_buildings_and_prices():
    path = os.path.join(GAMES, "izakaya")
    pictures = open_pictures(path)
    game = load_game(path)
    state = play(game, 4, 150, bot="host")
    layers = layers_of(position_scene(pictures, game, state, None))
    m = game.module
    assert len(layers["plot cards"].items) == 16  # the 4 x 4 grid
    on_corners = [d for d in state.g_drink_at if d is not None]
    assert on_corners and len(layers["drinks"].items) == len(on_corners)
    colours = {m.K_drink_color__label[c]: m.K_drink_color__colour[c] for c in range(6)}
    for item in layers["drinks"].items:  # each drink in its colour, named on hovering
        colour = next(c for name, c in colours.items() if item.title.startswith(name))
        assert item.style.colour == colour
    assert len(layers["edge chips"].items) == sum(p is not None for p in state.g_chip_at) > 0
    assert len(layers["pyramids"].items) == sum(p is not None for p in state.g_owner) > 0
    cubes_on_the_ground = sum(
        len(columns) for columns in (b.columns() for b in state.g_building_at)
    )
    assert len(layers["buildings"].items) == cubes_on_the_ground > 0
    prices = sorted(i.text for i in layers["prices"].items)
    assert prices == sorted(
        f"¥{state.g_price[c]}, {len(state.g_crate_drinks[c])} in the crate" for c in range(6)
    )


def test_a_metro_drinks_position_shows_the_vending_machines_and_the_stock_column():
    path = os.path.join(GAMES, "tokyo_metro")
    drinks = (os.path.join(path, "drinks", "expansion.metro"),)
    pictures = open_pictures(path, drinks)
    game = load_game(path, expansions=drinks)
    state = play(game, 3, 90, bot="vendor")
    layers = layers_of(position_scene(pictures, game, state, None))
    machines = [(st, d) for st, d in enumerate(state.g_drink_at) if d is not None]
    assert machines and len(layers["vending machines"].items) == len(machines)
    labels = game.module.K_drink__label
    assert {i.title.split(" at ")[0] for i in layers["vending machines"].items} == {
        labels[d] for _, d in machines
    }
    column = [c for c in state.g_stock_column if c is not None]
    assert len(layers["JIDOHANBAIKI column"].items) == len(column)
    assert len(layers["crates"].items) == 6


def test_each_player_sees_their_own_tickets_and_the_public_view_none(ttr_pictures):
    game = load_game(TTR)
    state = play(game, 2, 30)
    layer = {
        viewer: next(
            layer
            for layer in position_scene(ttr_pictures, game, state, viewer).layers
            if layer.name == "your tickets"
        )
        for viewer in (None, 0, 1)
    }
    tickets = game.module.K_ticket__label
    assert layer[None].items == []
    for p in (0, 1):
        assert sorted(i.title for i in layer[p].items) == sorted(
            tickets[t] for t in state.p_tickets[p]
        )
    assert {i.title for i in layer[0].items}.isdisjoint({i.title for i in layer[1].items})


def test_metro_render_draws_a_position_as_one_player_sees_it(tmp_path):
    out = tmp_path / "position.svg"
    args = ["render", TTR, "--players", "2", "--seed", "5", "--after", "20", "--as", "P2"]
    result = CliRunner().invoke(main, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "after 20 decisions" in result.stdout and "as P2 sees it" in result.stdout
    root = ET.parse(out).getroot()
    assert any("as P2 sees it" in t for t in texts(root))


def test_metro_render_draws_a_state_save_and_a_game_saved_by_metro_play(tmp_path):
    game = load_game(TTR)
    state = play(game, 2, 30)
    bare = tmp_path / "state.json"
    bare.write_text(state.to_json(), encoding="utf-8")
    saved = tmp_path / "played.json"
    doc = {"format": SAVE_FORMAT, "game": TTR, "state": state.to_doc()}
    saved.write_text(json.dumps(doc), encoding="utf-8")
    pictures = []
    for save in (bare, saved):
        out = tmp_path / f"{save.stem}.svg"
        result = CliRunner().invoke(main, ["render", TTR, "--load", str(save), "-o", str(out)])
        assert result.exit_code == 0, result.output
        pictures.append(out.read_text(encoding="utf-8"))
    assert pictures[0] == pictures[1]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**doc, "state": {"game": "x"}}), encoding="utf-8")
    result = CliRunner().invoke(main, ["render", TTR, "--load", str(broken), "-o", str(out)])
    assert result.exit_code == 1 and "invalid save" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--as", "P3", "--players", "2"], "'P3' is not a player of this 2-player game"),
        (["-o", "x.gif"], "a picture's file name ends in .svg or .png"),
    ],
)
def test_metro_render_usage_errors(tmp_path, args, message):
    if "-o" not in args:
        args = [*args, "-o", str(tmp_path / "x.svg")]
    result = CliRunner().invoke(main, ["render", TTR, *args])
    assert result.exit_code == 2
    assert message in result.output


def test_a_png_picture(tmp_path, ttr_pictures):
    pytest.importorskip("cairosvg")
    data = picture_bytes(map_scene(ttr_pictures), ttr_pictures.label_size, "png")
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width = int.from_bytes(data[16:20], "big")
    assert width == 1600


def test_without_cairosvg_a_png_names_the_missing_extra(monkeypatch, ttr_pictures):
    monkeypatch.setitem(__import__("sys").modules, "cairosvg", None)
    with pytest.raises(PictureError, match=r"pip install 'metro-games\[render\]'"):
        picture_bytes(map_scene(ttr_pictures), ttr_pictures.label_size, "png")


def test_text_from_rule_files_is_escaped_in_the_svg(tmp_path):
    draws = (
        'draw "cities" for c in city: point at (c.x, c.y) label c.name\n'
        'draw "note": text "</text><script>alert(1)</script> & more" at (0, 0)'
    )
    pictures = open_pictures(write_game(tmp_path, draws, name='"<b>&amp;</b>"'))
    text = to_svg(map_scene(pictures), (0, 0, 100, 100), pictures.label_size)
    assert "<script>" not in text and "<b>" not in text
    assert "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in text
    assert ET.fromstring(text) is not None


# ---------------------------------------------------------------- diagnostics of drawings

GAME = """game "Draw" {{
  players 2..3
  default map "m.metro"
  map schema {{
    kind city(x: int, y: int, name: text = "c")
    kind road(a: city, b: city)
  }}
  state {{ deck: list of int hidden  owner: map road -> player? public }}
  per player {{ hand: list of int owner  score: int public }}
  {draws}
  flow {{ end game }}
  score(p) = p.score
  rank p by p.score desc
}}
"""
MAP = """map "M" for "Draw" {{
  city A(x: 0, y: 0, name: {name})
  city B(x: 10, y: 0)
  road AB(a: A, b: B)
}}
"""
CITIES = 'draw "cities" for c in city: point at (c.x, c.y)\n  '


def write_game(tmp_path, draws: str, name: str = '"a"') -> str:
    """A small game with these drawings, and its map."""
    (tmp_path / "rules.metro").write_text(GAME.format(draws=draws), encoding="utf-8")
    (tmp_path / "m.metro").write_text(MAP.format(name=name), encoding="utf-8")
    return str(tmp_path)


def diagnose(tmp_path, draws: str) -> list[str]:
    """The first line of each diagnostic of a game with these drawings (file name only)."""
    write_game(tmp_path, draws)
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path))
    return [
        d.render(caught.value.sources).splitlines()[0].replace(str(tmp_path) + os.sep, "")
        for d in caught.value.diagnostics
    ]


@pytest.mark.parametrize(
    ("draws", "expected"),
    [
        (
            'draw "cities" for c in city: point at c.x',
            "rules.metro:10:41: error[type]: 'at' is a place: (x, y) or a drawn map element, not int",
        ),
        (
            'draw "cities" for c in city: point at (c.x, c.y) dashes 3',
            "rules.metro:10:52: error[structure]: 'dashes' does not apply to a point",
        ),
        (
            'draw "roads" for r in road: line from r.a to r.b',
            "rules.metro:10:41: error[structure]: a city has no place on the picture: no drawing "
            "of the map draws citys",
        ),
        (
            'draw "cities" for c in city: point at c',
            "rules.metro:10:41: error[structure]: drawings place each other in a circle: "
            "cities -> cities",
        ),
        (
            CITIES + 'draw "deck": text deck at (0, 0)',
            "rules.metro:11:21: error[visibility]: this drawing would reveal the hidden field "
            "'deck' (only its size() may be used here)",
        ),
        (
            CITIES + 'draw "hands" for p in players: text p.hand at (0, 0)',
            "rules.metro:11:39: error[visibility]: this drawing would reveal another player's "
            "owner field 'hand'",
        ),
        (
            CITIES + 'draw "owners" for p in players: colour "#f00"',
            "rules.metro:11:3: error[structure]: a drawing without a shape restyles the drawing "
            "of a map element: its first `for` must go over elements",
        ),
        (
            CITIES + 'draw "roads" for r in road: colour "#f00"',
            "rules.metro:11:3: error[structure]: nothing draws roads from the map, so there is "
            "nothing to restyle",
        ),
        (
            'draw "cities" for c in city: point at (c.x, c.y) colour c.x',
            "rules.metro:10:59: error[type]: 'colour' is text, not int",
        ),
        (
            'draw "cities" for c in city: point at (c.x, c.y) colour "red!"',
            "rules.metro:10:59: error[type]: city 'A': 'colour': 'red!' is not a colour "
            "(#rgb, #rrggbb or a CSS colour name such as 'red')",
        ),
        (
            'draw "cities" for c in city: point at (c.x, c.y) mark "star"',
            "rules.metro:10:57: error[type]: city 'A': 'mark': 'star' is not a mark "
            "(circle, square, triangle, diamond)",
        ),
        (
            'draw "cities" for c in city: point at (c.x, c.y) size 3 size 4',
            "rules.metro:10:59: error[duplicate]: 'size' is given twice",
        ),
        (
            CITIES + 'draw "xs" for c in city: text c.x at (0, 0) names c.x',
            "rules.metro:11:53: error[type]: 'names' is what the shape stands for: a map element, "
            "an enum value or a player, or a list or tuple of them, not int",
        ),
        (
            CITIES + 'draw "again" for c in city: colour "#f00" names c',
            "rules.metro:11:45: error[structure]: 'names' does not apply to a restyle "
            "(a drawing without a shape)",
        ),
        (
            CITIES + 'draw "hands" for p in players: point at (0, 0) names [q for q in players '
            "where 3 in p.hand]",
            "rules.metro:11:87: error[visibility]: this drawing would reveal another player's "
            "owner field 'hand'",
        ),
        (
            'draw "empty" for c in city:',
            "rules.metro:10:3: error[structure]: a drawing needs a shape or properties to restyle",
        ),
        (
            CITIES + 'draw "roads" for r in road: line along r.a',
            "rules.metro:11:42: error[structure]: `line along` follows a line or path, but "
            "citys are drawn as a point (drawing 'cities')",
        ),
        (
            CITIES + 'draw "marks" for c in city: point at c legend owner[road[0]]',
            "rules.metro:11:42: error[structure]: a legend lists what the map draws: `legend` "
            "goes in a drawing of the map (this one reads the game state)",
        ),
        (
            CITIES + 'draw "cities": text "x" at (0, 0)',
            "rules.metro:11:3: error[duplicate]: draw 'cities' is already declared",
        ),
    ],
)
def test_drawings_written_wrong_get_exact_diagnostics(tmp_path, draws, expected):
    assert expected in diagnose(tmp_path, draws)


def test_each_shape_carries_what_it_stands_for(tmp_path):
    # the first binding's value (an element, a player), or what `names` says; nothing without
    draws = (
        CITIES + 'draw "roads" for r in road: line from r.a to r.b\n'
        '  draw "scores" for p in players: text p.score at (0, 10 * seat_number(p))\n'
        '  draw "all" for r in road: point at r.a names [c for c in city]\n'
        '  draw "ends" for r in road: point at r.b names (r.a, r.b)\n'
        '  draw "note": text "x" at (0, 0)'
    )
    path = write_game(tmp_path, draws)
    pictures = open_pictures(path)
    game = load_game(path)
    state = game.new_game(2, 1)
    scene = position_scene(pictures, game, state, None)
    svg = ET.fromstring(to_svg(scene, scene_bounds(scene, 1), 1))
    found = {
        layer.get("data-name"): [item.get("data-names") for item in layer]
        for layer in svg.iter(SVG + "g")
        if layer.get("class") == "layer"
    }
    assert found == {
        "cities": ["city:A", "city:B"],
        "roads": ["road:AB"],
        "scores": ["player:0", "player:1"],
        "all": ["city:A city:B"],
        "ends": ["city:A city:B"],
        "note": [None],
    }


def test_a_drawing_in_the_map_schema_may_not_read_the_state(tmp_path):
    text = GAME.format(draws="").replace(
        "    kind road(a: city, b: city)\n",
        "    kind road(a: city, b: city)\n"
        '    draw "cities" for c in city: point at (c.x, c.y)\n'
        '    draw "roads" for r in road: line from r.a to r.b\n'
        '    draw "owned" for r in road where owner[r] is not none: colour "#f00"\n',
    )
    write_game(tmp_path, "")
    (tmp_path / "rules.metro").write_text(text, encoding="utf-8")
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path))
    assert [d.message for d in caught.value.diagnostics] == [
        "a drawing in the map schema may only read map data and constants "
        "(draw the game state outside the schema)"
    ]
    assert caught.value.diagnostics[0].span.line == 9  # the drawing "owned"


def test_variants_override_and_remove_drawings_by_name(tmp_path):
    write_game(tmp_path, CITIES + 'draw "note": text "n" at (0, 0)')
    variant = tmp_path / "v.metro"
    variant.write_text(
        'variant "V" for "Draw" {\n'
        '  override draw "cities" for c in city: point at (c.x, c.y) colour "#0a0"\n'
        '  remove draw "note"\n}\n',
        encoding="utf-8",
    )
    pictures = open_pictures(str(tmp_path), variants=[str(variant)])
    assert [d.name for d in pictures.draws] == ["cities"]
    assert {i.style.colour for i in pictures.layout.map_layers[0].items} == {"#0a0"}
    bad = tmp_path / "bad.metro"
    bad.write_text('variant "B" for "Draw" {\n  remove draw "nope"\n}\n', encoding="utf-8")
    with pytest.raises(CompileError, match="`remove` names no existing draw 'nope'"):
        compile_game(str(tmp_path), variants=[str(bad)])


def test_a_drawing_of_the_state_with_a_bad_value_fails_at_its_line(tmp_path):
    draws = (
        CITIES
        + 'draw "scores" for p in players: text p.score at (0, 0) colour ("#f00" if p.score == 0 else "x")'
    )
    write_game(tmp_path, draws)
    game = load_game(str(tmp_path))
    pictures = open_pictures(str(tmp_path))
    state = game.new_game(2, 1)
    position_scene(pictures, game, state, None)  # every score is 0: red
    state.p_score[1] = 5
    with pytest.raises(
        RuleError, match=r"drawing 'scores', 'colour': 'x' is not a colour"
    ) as caught:
        position_scene(pictures, game, state, None)
    assert caught.value.line == 11 and caught.value.file.endswith("rules.metro")


def test_generated_drawing_functions_read_the_viewer(ttr):
    source = compile_game(TTR).python
    assert re.search(r"def draw_\d+\(S, me\):", source)
    assert "'your tickets': draw_" in source
    assert "'routes': draw_" not in source  # a drawing of the map alone is not generated


def test_drawings_are_pictures_not_rules_so_coverage_leaves_them_out(ttr, ttr_pictures):
    live, inlined = code_lines(ttr)
    drawn = {(os.path.basename(d.decl.span.file), d.decl.span.line) for d in ttr_pictures.draws}
    covered = {(os.path.basename(f), line) for f, line in [*live.values(), *inlined.values()]}
    assert drawn and drawn.isdisjoint(covered)
    assert ("rules.metro", 96) in covered  # a rule's line (cards_left) is counted


# ---------------------------------------------------------------- the last moves marked


def claimed_at(game, players: int, seed: int = 3):
    """A game between random bots stopped just after its first route is claimed, with its log."""
    state = game.new_game(players, seed)
    bots = [make_bot("random", f"{seed}/{p}", game) for p in range(players)]
    log = MoveLog()
    while not any(owner is not None for owner in state.g_owner):
        player = state.to_move[0]
        action = bots[player].choose(state, player)
        log.record(state, player, action)
        state.apply(player, action)
    return state, log


def test_the_route_the_last_move_claimed_is_ringed_on_the_board(ttr_pictures):
    game = load_game(TTR)
    state, log = claimed_at(game, 2)
    (route,) = [r for r, owner in enumerate(state.g_owner) if owner is not None]
    (drawn,) = ttr_pictures.layout.of_element[("route", route)]
    for viewer in (None, 0, 1):
        root = ET.fromstring(board_svg(ttr_pictures, state, viewer, log))
        (marks,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "last-moves"]
        assert [g.get("data-item") for g in marks] == [f"i{drawn.number}"]
    before = MoveLog(log.moves[:-1])  # the position before: nothing there named a route
    root = ET.fromstring(board_svg(ttr_pictures, state, None, before))
    assert not [g for g in root.iter(f"{SVG}g") if g.get("class") == "last-moves"]


def test_a_move_only_its_player_may_know_is_never_marked_for_the_others():
    game = load_game(TTR)
    log = claimed_at(game, 2)[1]
    first = log.moves[:1]  # the tickets P1 kept: a private choice
    assert first[0].private
    assert last_moves(first, 0) == first
    assert last_moves(first, 1) == [] and last_moves(first, None) == []
    # a player sees their own last move and every one since
    mine = max(m.step for m in log.moves if m.player == 0)
    assert [m.step for m in last_moves(log.moves, 0)] == list(range(mine, len(log.moves)))
    assert [m.step for m in last_moves(log.moves, None)] == [len(log.moves) - 1]


def random_positions(game, players: int, seed: int, count: int):
    """`count` positions of a game between random bots (each with its log), the first one and
    then a few moves apart."""
    state = game.new_game(players, seed)
    bots = [make_bot("random", f"{seed}/{p}", game) for p in range(players)]
    log = MoveLog()
    for number in range(count):
        for _ in range(seed % 5 + 2 if number else 0):
            if not state.to_move:
                return
            player = state.to_move[0]
            action = bots[player].choose(state, player)
            log.record(state, player, action)
            state.apply(player, action)
        if not state.to_move:
            return
        yield state, log


def test_a_thing_drawn_by_the_state_is_ringed_when_the_last_move_names_it():
    path = SHIPPED["izakaya"][0]
    pictures, game = open_pictures(path), load_game(path)
    state = game.new_game(2, 5)
    log = MoveLog()
    while not log.moves or log.moves[-1].action.name != "color_bottle":  # a drink on a corner
        player = state.to_move[0]
        legal = state.legal_actions(player)
        action = next((a for a in legal if a.name == "color_bottle"), legal[0])
        log.record(state, player, action)
        state.apply(player, action)
    (corner,) = [k for k in pictures.action_names.keys(log.moves[-1].action) if "corner:" in k]
    named = pictures.action_names.named([log.moves[-1].action])
    scene = position_scene(pictures, game, state, None, named=named)
    drinks = {id(item) for layer in scene.layers if layer.dynamic for item in layer.items}
    ringed = [item for item in scene.marked if id(item) in drinks]
    assert any(corner in item.stands_for for item in ringed)  # the drink now on the corner
    assert all(named & set(item.stands_for) for item in scene.marked)
    root = ET.fromstring(board_svg(pictures, state, None, log))
    (marks,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "last-moves"]
    assert len(marks) == len(scene.marked)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_clicking_and_the_marks_read_the_same_things_in_an_action(name):
    """What a choice offers to click (its keys) is what its move would ring: every shape standing
    for a thing it names, and only those."""
    path, expansions, variants, _ = SHIPPED[name]
    pictures = open_pictures(path, expansions, variants)
    game = load_game(path, expansions=expansions, variants=variants)
    for state, _log in random_positions(game, 2, 7, 3):
        scene = position_scene(pictures, game, state, state.to_move[0])
        drawn = {key for layer in scene.layers for item in layer.items for key in item.stands_for}
        for action in state.legal_actions(state.to_move[0]):
            keys = set(pictures.action_names.keys(action))
            ringed = marked_items(scene.layers, frozenset(keys))
            assert all(keys & set(item.stands_for) for item in ringed), action.label
            assert {k for item in ringed for k in item.stands_for} >= keys & drawn, action.label


def test_the_drinks_out_of_the_vending_machine_are_grabbed_by_clicking_them():
    path = os.path.join(GAMES, "tokyo_jutaku")
    expansions = (os.path.join(path, "bottle_bonus", "expansion.metro"),)
    game, pictures = load_game(path, expansions=expansions), open_pictures(path, expansions)
    state = game.new_game(3, 2)
    bots = [make_bot("random", f"2/{p}", game) for p in range(3)]
    while not any(a.name == "grab" for a in state.legal_actions(state.to_move[0])):
        player = state.to_move[0]
        state.apply(player, bots[player].choose(state, player))
    seat = state.to_move[0]
    root = ET.fromstring(board_svg(pictures, state, seat, MoveLog()))
    clickable = {key for g in root.iter(f"{SVG}g") for key in g.get("data-names", "").split()}
    grabs = [a for a in state.legal_actions(seat) if a.name == "grab"]
    assert all(set(pictures.action_names.keys(a)) <= clickable for a in grabs)
    assert {k for a in grabs for k in pictures.action_names.keys(a)} == {
        f"drink:{pictures.element_ids['drink'][d]}" for d in state.g_tray
    }
