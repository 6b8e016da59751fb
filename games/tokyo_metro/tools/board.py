"""Tokyo Metro's board from a city network: which stops are kept, how stops form stations,
where stations stand on the grid of squares, and the map file's text. The Tokyo board
(`build_data.py`), and any city imported by `metro import gtfs` (`city_import.py`), are laid
out here, each by its `Recipe`; the method is explained in `build_data.py`'s docstring."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass, field

from games.tokyo_metro.tools.common import (
    Geo,
    LayoutError,
    Row,
    assign,
    coords_from_network,
    place_stations,
    rows_from_network,
    square_id,
    track_text,
)
from games.tokyo_metro.tools.schematic import Board, Node, slot
from metro.network import Network

# A split of a complex too big for one station: (station id, printed name, the lines' letters
# in it, nudge east km, nudge north km).
Split = tuple[str, str, str, float, float]


@dataclass(frozen=True)
class Recipe:
    """How a network becomes a board: the city's name, the lines (letters in income-track
    order) and their colours, how many stops a line gets, the grid, and the choices a person
    made for one city (splits of big complexes, stations holding two stops of one line)."""

    city: str
    line_order: tuple[str, ...]
    colours: dict[str, str]
    header: tuple[str, ...]  # the file's opening comment ({target}: target_stops)
    writer: str = "written by this script, which checks it byte for byte"
    target_stops: int = 10  # lines with fewer transfer stations are filled up to this many stops
    complex_radius_km: float = 0.8  # a transfer to a differently named station this close
    columns: int = 18
    rows: int = 13
    warp: float = 0.5  # 0 = plain projection, 1 = pure rank order (per axis)
    # the board's area: the box round the transfer stations (else round every station)
    area_from_transfers: bool = True
    splits: dict[str, list[Split]] = field(default_factory=dict)
    # station id -> (line, the two real stations, the board's numbers for them)
    same_line_stations: dict[str, tuple[str, tuple[str, str], tuple[int, int]]] = field(
        default_factory=dict
    )
    # the projected places improved by schematic.py (octilinear links, labels' room); the
    # shipped boards keep the projected places, which their tests pin byte for byte
    schematic: bool = False
    labels_apart: bool = False  # a schematic layout whose labels meet is a LayoutError
    # the income track and disc spots scaled from Tokyo's by the board's size (`scaled_income`)
    scaled_income: bool = False


# ----------------------------------------------------------------------------------- income

# What an imported city's income track and disc spots are scaled from: the shipped Tokyo
# board's size and the rulebook's track (its 6,000 row is where the income marker flips).
TOKYO_STOPS = 138
TOKYO_LINES = 12
TRACK_TOP = 6000
# at least the rulebook's payout example's ¥2,900; at most half again Tokyo's (past the top the
# marker flips, and a longer track would make the picture of a small city's board mostly track)
TRACK_BOUNDS = (3000, 9000)


@dataclass(frozen=True)
class Income:
    """A board's income track (0 to its top, in steps of ¥100) and what its lines' disc
    spots (4 / 3 / 2 by transfer connections) are multiplied by."""

    track_top: int = TRACK_TOP
    spot_factor: float = 1.0
    stops: int = TOKYO_STOPS  # the board's stops and lines it was scaled by
    lines: int = TOKYO_LINES


def scaled_income(stops: int, lines: int) -> Income:
    """A city's income track and disc spots, RECONSTRUCTED from Tokyo's by its size.

    A line's value rises by a payout at each arrival of its train at a built station, and the
    built stations (6 pyramids a player, whatever the city) are a share of the board's stops,
    so values run in inverse proportion to the stops: the track's top is Tokyo's ¥6,000 times
    Tokyo's stops over the city's, to the ¥1,000 (halves up), within TRACK_BOUNDS. The spots hold speed
    tokens and speculation discs, as many whatever the city (12 tokens, 2 discs a player), so
    the spots in all stay about Tokyo's: each line's 4 / 3 / 2 times Tokyo's lines over the
    city's, rounded, 1 to 4. Tokyo's own network gives Tokyo's numbers.
    """
    top = math.floor(TRACK_TOP * TOKYO_STOPS / stops / 1000 + 0.5) * 1000
    top = min(max(top, TRACK_BOUNDS[0]), TRACK_BOUNDS[1])
    return Income(top, TOKYO_LINES / lines, stops, lines)


# ---------------------------------------------------------------------------------------- stops


def is_transfer(row: Row, served: dict[str, set[str]]) -> bool:
    return bool(row.transfers) or len(served[row.name]) > 1


def select_stops(lines: dict[str, list[Row]], geo: Geo, recipe: Recipe) -> dict[str, list[Row]]:
    """The kept rows of every line: all transfer stations, then minor ones up to the recipe's target."""
    served: dict[str, set[str]] = defaultdict(set)
    for rows in lines.values():
        for row in rows:
            served[row.name].add(row.line)
    transfer_points = [
        geo.coords[r.name]
        for rows in lines.values()
        for r in rows
        if is_transfer(r, served) or not recipe.area_from_transfers
    ]
    lat_lo, lat_hi = min(p[0] for p in transfer_points), max(p[0] for p in transfer_points)
    lon_lo, lon_hi = min(p[1] for p in transfer_points), max(p[1] for p in transfer_points)

    def on_board(row: Row) -> bool:
        lat, lon = geo.coords[row.name]
        return lat_lo <= lat <= lat_hi and lon_lo <= lon <= lon_hi

    named = {
        (letter, name)
        for letter, names, _numbers in recipe.same_line_stations.values()
        for name in names
    }
    kept_lines = {}
    for letter, rows in lines.items():
        keep = {i for i, r in enumerate(rows) if is_transfer(r, served)}
        # the stretch of the line on the board: out from the transfer stations while inside
        first, last = min(keep), max(keep)
        while first > 0 and on_board(rows[first - 1]):
            first -= 1
        while last < len(rows) - 1 and on_board(rows[last + 1]):
            last += 1
        along = [0.0]
        for a, b in itertools.pairwise(rows):
            along.append(along[-1] + geo.dist(a.name, b.name))
        while len(keep) < recipe.target_stops:
            candidates = [i for i in range(first, last + 1) if i not in keep]
            if not candidates:
                break
            marks = sorted(keep | {first, last})

            def worst_gap(extra: int, marks=marks, along=along) -> tuple[float, int]:
                cuts = sorted({*marks, extra})
                return max(along[b] - along[a] for a, b in itertools.pairwise(cuts)), extra

            # the candidate that leaves the shortest longest stretch (ties: earlier in line order)
            keep.add(min(candidates, key=worst_gap))
        # the same-line pairs' stations, on top of the others (so the minor ones stay as chosen)
        keep |= {i for i, r in enumerate(rows) if (letter, r.name) in named}
        kept_lines[letter] = [rows[i] for i in sorted(keep)]
    return kept_lines


# ------------------------------------------------------------------------------------- stations


def same_line_pairs(kept: dict[str, list[Row]], recipe: Recipe) -> dict[str, tuple[Row, Row]]:
    """The kept rows of every same-line pair of the recipe, checked to get the board numbers listed."""
    pairs = {}
    for ident, (letter, names, numbers) in recipe.same_line_stations.items():
        found = {r.name: (i, r) for i, r in enumerate(kept[letter], start=1) if r.name in names}
        got = tuple(found[name][0] if name in found else None for name in names)
        if got != numbers:
            raise ValueError(f"{ident}: {names} are stops {got} of line {letter}, not {numbers}")
        pairs[ident] = (found[names[0]][1], found[names[1]][1])
    return pairs


@dataclass
class Station:
    """A station of the board: its id, printed name, stops (rows) and projected point (km)."""

    ident: str
    name: str
    rows: list[Row]
    point: tuple[float, float] = (0.0, 0.0)


def group_stations(
    kept: dict[str, list[Row]], geo: Geo, recipe: Recipe
) -> tuple[list[Station], list[list[str]]]:
    """Stops grouped into stations of 1-3 stops (see the module docstring), and the splits: for
    every real complex spread over several stations, those stations' ids."""
    rows = [r for letter in recipe.line_order for r in kept[letter]]
    parent = {r.code: r.code for r in rows}

    def find(code: str) -> str:
        while parent[code] != code:
            parent[code] = parent[parent[code]]
            code = parent[code]
        return code

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for row in rows:
        for other in rows:  # one name served by several lines
            if other.name == row.name:
                union(row.code, other.code)
        for letter in row.transfers:  # a transfer to a differently named station close by
            partners = [
                r
                for r in kept[letter]
                if row.line in r.transfers
                and geo.dist(r.name, row.name) <= recipe.complex_radius_km
            ]
            if partners and all(r.name != row.name for r in kept[letter]):
                union(row.code, min(partners, key=lambda r: geo.dist(r.name, row.name)).code)
    # a same-line pair joins its complexes when they have room, else forms a station of its own
    pinned: dict[str, str] = {}  # stop code -> its own station's id
    for ident, (first, second) in same_line_pairs(kept, recipe).items():
        together = {r.code for r in rows if find(r.code) in (find(first.code), find(second.code))}
        if len(together) <= 3:
            union(first.code, second.code)
        else:
            pinned[first.code] = pinned[second.code] = ident
    complexes: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        complexes[find(row.code)].append(row)

    groups: dict[str, list[Row]] = defaultdict(list)  # station id -> its stops
    printed: dict[str, str] = {}
    nudges: dict[str, tuple[float, float]] = {}
    splits: list[list[str]] = []
    home: dict[str, str] = {}  # station id -> the complex it was made from
    for key, members in complexes.items():
        free = [r for r in members if r.code not in pinned]
        placed: list[str] = []
        for row in free:
            if len(free) <= 3:
                ident = free[0].name
            elif row.name in recipe.splits:
                ident, name, _letters, east, north = next(
                    split for split in recipe.splits[row.name] if row.line in split[2]
                )
                printed[ident], nudges[ident] = name, (east, north)
            else:
                ident = row.name
            if home.setdefault(ident, key) != key or ident in pinned.values():
                raise ValueError(f"two stations would be called {ident!r}")
            groups[ident].append(row)
            placed.append(ident)
        placed += [pinned[r.code] for r in members if r.code in pinned]
        if len(set(placed)) > 1:
            splits.append(list(dict.fromkeys(placed)))
    for code, ident in pinned.items():
        groups[ident].append(next(r for r in rows if r.code == code))

    for ident, (first, second) in same_line_pairs(kept, recipe).items():
        if not {first.code, second.code} <= {r.code for r in groups.get(ident, [])}:
            raise ValueError(f"{first.code} and {second.code} are not both in station {ident!r}")

    stations = []
    for ident, group in groups.items():
        names = list(dict.fromkeys(r.name for r in group))
        points = [geo.km(n) for n in names]
        east, north = nudges.get(ident, (0.0, 0.0))
        point = (
            sum(p[0] for p in points) / len(points) + east,
            sum(p[1] for p in points) / len(points) + north,
        )
        stations.append(Station(ident, printed.get(ident, " / ".join(names)), group, point))
        if not 1 <= len(group) <= 3:
            raise ValueError(
                f"station {ident} has {len(group)} stops: {[r.code for r in group]}; give it splits"
            )
    return stations, splits


# ----------------------------------------------------------------------------------------- grid


def warp(values: list[float], recipe: Recipe) -> list[float]:
    """Map values to 0..1: the recipe's warp of the way from linear towards their rank order."""
    lo, hi = min(values), max(values)
    ordered = sorted(set(values))
    rank = {v: i / (len(ordered) - 1) for i, v in enumerate(ordered)}
    return [(1 - recipe.warp) * (v - lo) / (hi - lo) + recipe.warp * rank[v] for v in values]


# A stop's slot: ("v", x, y) is the grid point (x, y) (the corner shared by squares x-1..x,
# y-1..y); ("h", x, y) the street from point (x, y) east to (x+1, y); ("u", x, y) the street from
# (x, y) south to (x, y+1).


def slot_squares(slot: tuple[str, int, int], recipe: Recipe) -> list[tuple[int, int]]:
    kind, x, y = slot
    if kind == "v":
        cells = [(x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)]
    elif kind == "h":
        cells = [(x, y - 1), (x, y)]
    else:
        cells = [(x - 1, y), (x, y)]
    return [(cx, cy) for cx, cy in cells if 0 <= cx < recipe.columns and 0 <= cy < recipe.rows]


def projected(stations: list[Station], recipe: Recipe) -> list[tuple[float, float]]:
    """The stations' projected places on the grid (in squares, fractional)."""
    xs = warp([s.point[0] for s in stations], recipe)
    ys = warp([-s.point[1] for s in stations], recipe)  # y grows to the south
    return [
        (1 + wx * (recipe.columns - 2), 1 + wy * (recipe.rows - 2))
        for wx, wy in zip(xs, ys, strict=True)
    ]


def lay_out(
    stations: list[Station], kept: dict[str, list[Row]], recipe: Recipe, track_top: int
) -> dict[str, list[tuple[int, int]]]:
    """Grid points for the stations and the touching squares of every stop (by stop code);
    `track_top` widens the picture, and so its labels (schematic layout)."""
    points = [(x, y) for y in range(1, recipe.rows) for x in range(1, recipe.columns)]
    targets = projected(stations, recipe)
    if recipe.schematic:
        return schematic_layout(stations, kept, points, targets, recipe, track_top)
    return place_stations(
        points,
        targets,
        [(s.ident, [row.code for row in s.rows]) for s in stations],
        lambda slot: slot_squares(slot, recipe),
    )


def schematic_layout(
    stations: list[Station],
    kept: dict[str, list[Row]],
    points: list[tuple[int, int]],
    targets: list[tuple[float, float]],
    recipe: Recipe,
    track_top: int,
) -> dict[str, list[tuple[int, int]]]:
    """The touching squares of every stop, laid out by schematic.py from the projected places."""
    nodes = [
        Node(s.ident, s.name, [r.code for r in s.rows], target)
        for s, target in zip(stations, targets, strict=True)
    ]
    cost = [[(px - tx) ** 2 + (py - ty) ** 2 for px, py in points] for tx, ty in targets]
    for node, j in zip(nodes, assign(cost), strict=True):
        node.at = points[j]
    real = {r.code: (s.point[0], -s.point[1]) for s in stations for r in s.rows}
    board = Board(
        nodes,
        [[r.code for r in kept[letter]] for letter in recipe.line_order],
        recipe.columns,
        recipe.rows,
        track_top,
        real,
    )
    board.start()
    board.climb()
    crowded = board.crowded()
    if crowded and recipe.labels_apart:
        names = ", ".join(node.ident for node in crowded)
        raise LayoutError(f"the labels of {names} meet other labels or stations")
    return {
        code: sorted(slot_squares(slot(node.at, street), recipe), key=lambda c: (c[1], c[0]))
        for node in nodes
        for code, street in zip(node.codes, node.streets, strict=True)
    }


# --------------------------------------------------------------------------------------- output


def quote(ident: str) -> str:
    """An element id as written in a map file (quoted unless a plain name)."""
    return ident if ident.replace("_", "a").isalnum() and not ident[0].isdigit() else f'"{ident}"'


def line_spots(kept: dict[str, list[Row]], recipe: Recipe, factor: float = 1.0) -> dict[str, int]:
    """Income-track disc spots: 4 / 3 / 2 for the lines with the most / middling / fewest
    transfer connections (ties broken by income-track order), times `factor`, rounded
    (halves up), 1 to 4."""
    weight = {letter: sum(len(r.transfers) for r in kept[letter]) for letter in recipe.line_order}
    ranked = sorted(
        recipe.line_order, key=lambda letter: (-weight[letter], recipe.line_order.index(letter))
    )
    third = len(ranked) // 3
    base = {
        letter: 4 if i < third else 3 if i < 2 * third else 2 for i, letter in enumerate(ranked)
    }
    return {letter: min(4, max(1, math.floor(n * factor + 0.5))) for letter, n in base.items()}


def board_text(
    lines: dict[str, list[Row]],
    kept: dict[str, list[Row]],
    stations: list[Station],
    splits: list[list[str]],
    touching: dict[str, list[tuple[int, int]]],
    recipe: Recipe,
    income: Income,
) -> str:
    """The text of the board's map file."""
    spots = line_spots(kept, recipe, income.spot_factor)
    station_of = {r.code: s for s in stations for r in s.rows}
    number = {r.code: i for rows in kept.values() for i, r in enumerate(rows, start=1)}

    def stop_list(station: Station) -> str:
        return " + ".join(f"{r.line}{number[r.code]} {r.name}" for r in station.rows)

    out = [
        *(line.format(target=recipe.target_stops) for line in recipe.header),
        *(
            ["# A station holds at most 3 stops; real complexes split over neighbouring stations:"]
            if splits
            else []
        ),
        *(f"#   {' | '.join(ids)}" for ids in splits),
        *(
            ["# Two stops of the same line in one station (the rulebook's H6-H7 / T6-T7 case):"]
            if recipe.same_line_stations
            else []
        ),
        *(
            f"#   {ident}: {stop_list(next(s for s in stations if s.ident == ident))}"
            for ident in recipe.same_line_stations
        ),
        f"# metro fmt: off ({recipe.writer})",
        f'map "{recipe.city}" for "Tokyo Metro" {{',
        "  # lines in income-track order: kind line(name, spots, stocks, colour); spots = income-track",
        "  # disc spots, reconstructed: 4 / 3 / 2 by the line's number of transfer connections;",
        *_scaled_spots_text(income, recipe),
        "  # colour: the line's colour on public network maps",
    ]
    for letter in recipe.line_order:
        name = lines[letter][0].line_name
        out.append(
            f'  line {letter}(name: "{name} Line", spots: {spots[letter]}, stocks: 3, '
            f'colour: "{recipe.colours[letter]}")   # {len(kept[letter])} stops'
        )
    out += ["", "  # vehicles: kind vehicle(line, home); one train a line, entering at its stop 1"]
    for letter in recipe.line_order:
        out.append(f"  vehicle Train{letter}(line: {letter}, home: 1)")
    out += [
        "",
        f"  # squares: kind square(x, y); a {recipe.columns} x {recipe.rows} rectangle, x east, y south",
    ]
    for y in range(recipe.rows):
        out.append(
            "  "
            + " ".join(f"square {square_id(x, y)}(x: {x}, y: {y})" for x in range(recipe.columns))
        )
    out += ["", "  # stations: kind station(name); comment: its stops"]
    for s in sorted(stations, key=lambda s: s.ident):
        out.append(f'  station {quote(s.ident)}(name: "{s.name}")   # {stop_list(s)}')
    out += ["", "  # stops: kind stop(line, number, station, squares); comment: the real station"]
    for letter in recipe.line_order:
        for row in kept[letter]:
            squares = ", ".join(square_id(*c) for c in touching[row.code])
            out.append(
                f"  stop {letter}{number[row.code]}(line: {letter}, number: {number[row.code]}, "
                f"station: {quote(station_of[row.code].ident)}, squares: [{squares}])"
                f"   # {row.code} {row.name}"
            )
        out.append("")
    out += _scaled_track_text(income, recipe)
    out += track_text(income.track_top)
    out.append("}")
    return "\n".join(out) + "\n"


def _scaled_spots_text(income: Income, recipe: Recipe) -> list[str]:
    """The comment on the spots of a board whose income is scaled (none for Tokyo's own)."""
    if not recipe.scaled_income:
        return []
    return [
        f"  # RECONSTRUCTED for this city: those times {TOKYO_LINES}/{income.lines} (Tokyo's lines "
        "over this board's: the",
        "  # speed tokens and discs the spots hold are as many), rounded, 1 to 4;",
    ]


def _scaled_track_text(income: Income, recipe: Recipe) -> list[str]:
    """The comment on the track of a board whose income is scaled (none for Tokyo's own)."""
    if not recipe.scaled_income:
        return []
    return [
        f"  # income track, RECONSTRUCTED for this city: ¥0 to ¥{income.track_top:,}, Tokyo's "
        f"¥{TRACK_TOP:,} times its {TOKYO_STOPS}",
        f"  # stops over this board's {income.stops}, to the ¥1,000 (a line's value rises at "
        "its built stations,",
        "  # a share of the stops), within "
        f"¥{TRACK_BOUNDS[0]:,}-¥{TRACK_BOUNDS[1]:,}; the marker flips past the last row",
    ]


def board_from_network(network: Network, recipe: Recipe) -> str:
    """The text of a board's map file: the network laid out by the recipe."""
    lines = rows_from_network(network, list(recipe.line_order))
    geo = Geo(coords_from_network(network))
    kept = select_stops(lines, geo, recipe)
    income = Income()
    if recipe.scaled_income:
        income = scaled_income(sum(len(rows) for rows in kept.values()), len(kept))
    stations, splits = group_stations(kept, geo, recipe)
    touching = lay_out(stations, kept, recipe, income.track_top)
    return board_text(lines, kept, stations, splits, touching, recipe, income)
