"""Helpers shared by the Tokyo and Osaka data build scripts (reading the data tables,
projecting coordinates, laying stations out on the grid, the command line)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from metro.network import Line, LineStop, Network, Station, Transfer

# A stop's slot on the grid: ("v", x, y) is the grid point (x, y) (the corner shared by squares
# x-1..x, y-1..y); ("h", x, y) the street from point (x, y) east to (x+1, y); ("u", x, y) the
# street from (x, y) south to (x, y+1). These are the streets leaving a point in each direction.
STREETS = {"E": ("h", 0, 0), "S": ("u", 0, 0), "W": ("h", -1, 0), "N": ("u", 0, -1)}
PERPENDICULAR = {"E": "SN", "W": "SN", "S": "EW", "N": "EW"}


def track_row(value: int) -> tuple[int, int]:
    """The two numbers (high, low) beside income value `value`, reconstructed: they split the
    value (as the stock payouts use them); low is a third of it rounded down to ¥100, but at least
    ¥100 from ¥200 on, since low is the least speculation stake and a stake is money paid.  This
    gives the rulebook's 2,900 -> 2,000 / 900 and 1,400 -> 1,000 / 400; beside ¥100 the numbers
    can only be 100 / 0 (the rules then ask a stake of the ¥100 the marker has reached)."""
    low = max(value // 300 * 100, 100 if value >= 200 else 0)
    return value - low, low


def track_text(top: int = 6000) -> list[str]:
    """The income-track rows of a map file, 0 to `top` in steps of ¥100, with their comment."""
    out = [
        "  # income track, reconstructed: low = a third of the value rounded down to ¥100 (at least",
        "  # ¥100 from ¥200 on), high = the rest",
    ]
    for value in range(0, top + 1, 100):
        high, low = track_row(value)
        out.append(f"  track_row V{value}(value: {value}, high: {high}, low: {low})")
    return out


class DataError(ValueError):
    """A data file that is missing or malformed, with the file and (when known) the line."""

    def __init__(self, path: str, line: int | None, message: str):
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class TsvRow:
    """One data row of a tab-separated file: its 1-based line number and its fields."""

    line: int
    fields: list[str]


def read_tsv(path: str, header: list[str], required: int) -> list[TsvRow]:
    """The data rows of a tab-separated file, after '#' comments and the `header` row.

    Every row has at least `required` non-empty leading fields and at most len(header) fields;
    missing trailing fields are filled with "".
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise DataError(path, None, "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(path, None, f"cannot read: {error}") from None
    rows: list[TsvRow] = []
    seen_header = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if not seen_header:
            if fields != header:
                raise DataError(path, number, f"the header row should be {header} (tab-separated)")
            seen_header = True
            continue
        if len(fields) > len(header):
            raise DataError(path, number, f"{len(fields)} fields, at most {len(header)} expected")
        fields += [""] * (len(header) - len(fields))
        empty = [header[i] for i in range(required) if not fields[i].strip()]
        if empty:
            raise DataError(path, number, f"empty {', '.join(empty)}")
        rows.append(TsvRow(number, fields))
    if not seen_header:
        raise DataError(path, None, "no header row")
    if not rows:
        raise DataError(path, None, "no data rows")
    return rows


LINES_HEADER = ["line", "line_name", "code", "station", "transfers"]


@dataclass(frozen=True)
class Row:
    """One row of a lines file: a station on a line, in line order."""

    line: str
    line_name: str
    code: str
    name: str
    transfers: tuple[str, ...]
    source_line: int = field(default=0, compare=False)  # in the lines file, for errors


def read_lines(path: str, letters: list[str], skip: str | None = None) -> dict[str, list[Row]]:
    """A lines file: each of `letters` -> its rows in order (codes starting with `skip` dropped);
    an unknown line or transfer letter, or a line without stations, is a DataError."""
    lines: dict[str, list[Row]] = {letter: [] for letter in letters}
    for row in read_tsv(path, LINES_HEADER, 4):
        letter, line_name, code, name, transfers = row.fields
        if letter not in lines:
            raise DataError(path, row.line, f"unknown line {letter!r} (not one of {letters})")
        served = tuple(t for t in transfers.split(",") if t)
        unknown = [t for t in served if t not in lines]
        if unknown:
            raise DataError(path, row.line, f"unknown transfer line(s) {unknown}")
        if skip is None or not code.startswith(skip):
            lines[letter].append(Row(letter, line_name, code, name, served, row.line))
    empty = [letter for letter, rows in lines.items() if not rows]
    if empty:
        raise DataError(path, None, f"no stations for line(s) {empty}")
    return lines


def read_coords(path: str) -> dict[str, tuple[float, float]]:
    """The coordinates file: station name -> (lat, lon)."""
    coords: dict[str, tuple[float, float]] = {}
    for row in read_tsv(path, ["station", "lat", "lon", "note"], 3):
        name, lat, lon = row.fields[:3]
        try:
            point = float(lat), float(lon)
        except ValueError:
            raise DataError(path, row.line, f"lat {lat!r} / lon {lon!r} is not a number") from None
        if not (-90 <= point[0] <= 90 and -180 <= point[1] <= 180):
            raise DataError(path, row.line, f"{point} is no latitude / longitude")
        if name in coords:
            raise DataError(path, row.line, f"station {name!r} is listed twice")
        coords[name] = point
    return coords


def check_coords(
    lines_path: str, rows: list[tuple[int, str]], coords_path: str, coords: dict[str, object]
) -> None:
    """Every station named in the lines file (`rows`: line number, name) has coordinates."""
    for line, name in rows:
        if name not in coords:
            raise DataError(lines_path, line, f"station {name!r} has no point in {coords_path}")


def network_from_tsv(
    name: str,
    lines_path: str,
    coords_path: str,
    letters: list[str],
    branch: tuple[str, str] | None = None,
) -> Network:
    """The city network of a lines file and a coordinates file: a station per name, a line
    per letter, a transfer for every listed transfer line that does not stop at the same name
    (to its nearest station listing this line back). `branch` (code prefix, junction code):
    the rows whose code starts with the prefix are their line's branch, leaving the main line
    at the junction."""
    rows = read_lines(lines_path, letters)
    coords = read_coords(coords_path)
    check_coords(lines_path, [(r.source_line, r.name) for rs in rows.values() for r in rs],
                 coords_path, coords)  # fmt: skip
    geo = Geo(coords)
    served = {r.name for rs in rows.values() for r in rs}
    stations = tuple(Station(n, n, *coords[n]) for n in sorted(served))
    lines = []
    for letter in letters:
        prefix, junction = branch or (None, None)
        main = [r for r in rows[letter] if prefix is None or not r.code.startswith(prefix)]
        side = [r for r in rows[letter] if prefix is not None and r.code.startswith(prefix)]
        branches = [tuple(LineStop(r.name, r.code) for r in main)]
        if side:
            start = next(r for r in main if r.code == junction)
            branches.append(tuple(LineStop(r.name, r.code) for r in [start, *side]))
        lines.append(Line(letter, letter, main[0].line_name, None, 1, tuple(branches)))
    names = {letter: {r.name for r in rows[letter]} for letter in letters}
    transfers = []
    for letter in letters:
        for row in rows[letter]:
            for other in row.transfers:
                if row.name in names[other]:
                    continue
                back = [r for r in rows[other] if letter in r.transfers] or rows[other]
                partner = min(back, key=lambda r, row=row: geo.dist(r.name, row.name))
                transfers.append(Transfer(row.name, partner.name, letter, other))
    return Network(name, stations, tuple(lines), tuple(transfers))


def rows_from_network(network: Network, letters: list[str]) -> dict[str, list[Row]]:
    """Each line's main sequence as rows of a lines file (the line's short name as its letter,
    the lines one can change to there as its transfers)."""
    by_name = {line.short_name: line for line in network.lines}
    missing = [letter for letter in letters if letter not in by_name]
    if missing:
        raise ValueError(f"the network has no line {missing}")
    out = {}
    for letter in letters:
        line = by_name[letter]
        out[letter] = [
            Row(
                letter,
                line.long_name,
                stop.code,
                network.station(stop.station).name,
                tuple(o.short_name for o in network.transfer_lines(line, stop.station)),
            )
            for stop in line.stops
        ]
    return out


def coords_from_network(network: Network) -> dict[str, tuple[float, float]]:
    """Station name -> (lat, lon): the mean point of the stations of that name."""
    points: dict[str, list[tuple[float, float]]] = {}
    for station in network.stations:
        points.setdefault(station.name, []).append((station.lat, station.lon))
    return {
        name: (sum(p[0] for p in ps) / len(ps), sum(p[1] for p in ps) / len(ps))
        for name, ps in sorted(points.items())
    }


class Geo:
    """Equirectangular projection around the mean point: km east and km north."""

    def __init__(self, coords: dict[str, tuple[float, float]]):
        self.coords = coords
        self.lat0 = sum(lat for lat, _ in coords.values()) / len(coords)
        self.lon0 = sum(lon for _, lon in coords.values()) / len(coords)
        self.kx = 111.32 * math.cos(math.radians(self.lat0))

    def km(self, name: str) -> tuple[float, float]:
        lat, lon = self.coords[name]
        return (lon - self.lon0) * self.kx, (lat - self.lat0) * 111.32

    def dist(self, a: str, b: str) -> float:
        (ax, ay), (bx, by) = self.km(a), self.km(b)
        return math.hypot(ax - bx, ay - by)


def assign(cost: list[list[float]]) -> list[int]:
    """Minimum-cost assignment of n rows to distinct columns (n <= m): the column of each row.

    The Hungarian method with potentials, O(n^2 m).
    """
    n, m = len(cost), len(cost[0])
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0], j0 = i, 0
        slack, used = [inf] * (m + 1), [False] * (m + 1)
        while owner[j0]:
            used[j0], i0, delta, j1 = True, owner[j0], inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if reduced < slack[j]:
                        slack[j], way[j] = reduced, j0
                    if slack[j] < delta:
                        delta, j1 = slack[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    slack[j] -= delta
            j0 = j1
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    result = [0] * n
    for j in range(1, m + 1):
        if owner[j]:
            result[owner[j] - 1] = j - 1
    return result


class LayoutError(ValueError):
    """The stations do not fit the grid (a station finds no free streets for its stops)."""


def place_stations(
    points: list[tuple[int, int]],
    targets: list[tuple[float, float]],
    stations: list[tuple[str, list[str]]],
    squares,
) -> dict[str, list[tuple[int, int]]]:
    """Put each station on a grid point and its other stops on streets around it.

    `targets` are the stations' projected places, `stations` their (id, stop codes) in the same
    order, `squares(slot)` the squares a slot touches. Returns the touching squares of every stop.
    """
    cost = [[(px - tx) ** 2 + (py - ty) ** 2 for px, py in points] for tx, ty in targets]
    chosen = [points[j] for j in assign(cost)]
    occupied = set(chosen)
    used_streets: set[tuple[str, int, int]] = set()
    touching: dict[str, list[tuple[int, int]]] = {}
    # stations with the most stops first: they need the most free streets
    for i in sorted(range(len(stations)), key=lambda i: (-len(stations[i][1]), stations[i][0])):
        (ident, codes), (x, y), (tx, ty) = stations[i], chosen[i], targets[i]

        def street(direction: str, x=x, y=y) -> tuple[str, int, int]:
            kind, dx, dy = STREETS[direction]
            return kind, x + dx, y + dy

        def preference(direction: str, x=x, y=y, tx=tx, ty=ty) -> tuple[bool, float, str]:
            # streets towards an empty grid point first, then towards the projected point
            step = {"E": (1, 0), "W": (-1, 0), "S": (0, 1), "N": (0, -1)}[direction]
            towards = (tx - x) * step[0] + (ty - y) * step[1]
            return (x + step[0], y + step[1]) in occupied, -towards, direction

        free = sorted((d for d in "ESWN" if street(d) not in used_streets), key=preference)
        extra = len(codes) - 1
        picked: list[str] = []
        if extra == 1:
            picked = free[:1]
        elif extra == 2:
            picked = next(([a, b] for a in free for b in free if b in PERPENDICULAR[a]), [])
        if len(picked) != extra:
            raise LayoutError(f"no free streets around station {ident}")
        slots = [("v", x, y)] + [street(d) for d in picked]
        used_streets.update(slots[1:])
        for code, slot in zip(codes, slots, strict=True):
            touching[code] = sorted(squares(slot), key=lambda c: (c[1], c[0]))
    return touching


def square_id(x: int, y: int) -> str:
    return f"x{x}y{y}"


def write_files(
    script: str,
    description: str,
    build: Callable[[str], dict[str, str]],
    data_dir: str,
    out_dir: str,
    argv: list[str] | None,
) -> int:
    """The command line of a build script: --data, --out and --check; returns the exit status.

    A missing or malformed data file is one line on stderr (file, line, what is wrong), not a
    traceback.  --check writes nothing and returns 1 when a file in --out is not what the
    script would write.
    """
    repo = os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    )
    prog = os.path.relpath(os.path.abspath(script), repo)  # games/.../tools/build_data.py
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--data", default=data_dir, help="folder with the two TSV files")
    parser.add_argument("--out", default=out_dir, help="folder to write the .metro files to")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file in --out differs"
    )
    args = parser.parse_args(argv)
    try:
        built = build(args.data)
    except ValueError as error:  # DataError, or a check of the script's own tables
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    stale = []
    for name, text in built.items():
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as handle:
                    current = handle.read()
            except OSError:
                current = None
            if current != text:
                stale.append(path)
            continue
        try:
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as error:
            print(f"{prog}: error: cannot write {path}: {error.strerror}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    if stale:
        print(f"{prog}: out of date (rerun without --check): {', '.join(stale)}", file=sys.stderr)
        return 1
    if args.check:
        print(f"up to date: {', '.join(os.path.join(args.out, name) for name in built)}")
    return 0
