"""A schematic layout of a network: stations on a square grid, links at multiples of 45° where
they can be, the geography still recognisable.

The method is the simple end of published metro-map layouts (hill climbing on a grid, as in
Stott et al., "Automatic metro map layout using multicriteria optimization", 2011): project
the stations, snap each to the nearest free grid cell, then move stations one cell at a time
while that lowers a cost of non-octilinear links, links turned from their real direction,
distance from the real place, crossings and links running over other stations. Bounded: at
most PASSES sweeps, each station trying the cells within REACH of its own."""

from __future__ import annotations

import math
from dataclasses import dataclass

CELLS_PER_STATION = 8  # grid cells per station: room to move, as the frame allows
MAX_STRETCH = 1.5  # how much one axis may be stretched beyond the other to fill the frame
WARP = 0.5  # how far places are pulled towards their rank order, giving a dense centre room
PASSES = 12
REACH = 2  # cells a station may move in one step, each way
W_OCTILINEAR = 6.0  # a link 22.5° off the nearest multiple of 45°
W_TURN = 1.5  # a link turned 45° from its real direction
W_PLACE = 0.15  # a station one cell from its projected place (squared)
W_CROSSING = 8.0  # two links crossing
W_OVER = 6.0  # a link passing within half a cell of a station not on it


@dataclass(frozen=True)
class Frame:
    """The box a layout fills, in pixels: left and top edges, width and height."""

    left: float
    top: float
    width: float
    height: float


@dataclass(frozen=True)
class Grid:
    """The square grid over a frame: its pitch in pixels and its cells across and down."""

    frame: Frame
    pitch: float
    columns: int
    rows: int

    def pixel(self, cell: tuple[int, int]) -> tuple[int, int]:
        """The pixel at a cell's centre, the grid centred in the frame."""
        spare_x = self.frame.width - (self.columns - 1) * self.pitch
        spare_y = self.frame.height - (self.rows - 1) * self.pitch
        x = self.frame.left + spare_x / 2 + cell[0] * self.pitch
        y = self.frame.top + spare_y / 2 + cell[1] * self.pitch
        return round(x), round(y)


def project(points: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Latitude/longitude as km east and km south of the mean point (y down, as in pictures)."""
    lat0 = sum(lat for lat, _ in points.values()) / len(points)
    lon0 = sum(lon for _, lon in points.values()) / len(points)
    kx = 111.32 * math.cos(math.radians(lat0))
    return {k: ((lon - lon0) * kx, (lat0 - lat) * 111.32) for k, (lat, lon) in points.items()}


def octilinear_share(
    positions: dict[str, tuple[float, float]], edges: list[tuple[str, str]], tolerance: float = 2.0
) -> float:
    """The share of links within `tolerance` degrees of a multiple of 45°."""
    if not edges:
        return 1.0
    good = sum(1 for a, b in edges if _off_octilinear(positions[a], positions[b]) <= tolerance)
    return good / len(edges)


def schematic(
    points: dict[str, tuple[float, float]],
    edges: list[tuple[str, str]],
    frame: Frame,
    label_widths: dict[str, float] | None = None,
) -> dict[str, tuple[int, int]]:
    """Pixel positions for stations at `points` (lat, lon) joined by `edges`, inside `frame`:
    one station a grid cell, and two stations on one row at least half their labels' widths
    (`label_widths`, pixels) apart, so labels set beside, above or below them fit."""
    if not points:
        return {}
    return _Layout(points, edges, frame, label_widths or {}).run()


class _Layout:
    """One layout being made: the grid, each station's projected place and current cell."""

    def __init__(self, points, edges, frame: Frame, label_widths: dict[str, float]):
        self.names = sorted(points)
        self.edges = sorted({tuple(sorted(e)) for e in edges if e[0] != e[1]})
        self.label_widths = label_widths
        self.neighbours: dict[str, list[str]] = {n: [] for n in self.names}
        for a, b in self.edges:
            self.neighbours[a].append(b)
            self.neighbours[b].append(a)
        self.grid = _grid(frame, len(self.names))
        self.target = _targets(project(points), self.grid)
        self.cell: dict[str, tuple[int, int]] = {}
        self.taken: dict[tuple[int, int], str] = {}

    def run(self) -> dict[str, tuple[int, int]]:
        # the busiest stations choose their cells first
        order = sorted(self.names, key=lambda n: (-len(self.neighbours[n]), n))
        for name in order:
            self._put(name, self._nearest_free(name))
        for _ in range(PASSES):
            moved = False
            for name in order:
                best = min(
                    ((self._cost(name, c), c) for c in self._moves(name)),
                    default=(math.inf, None),
                )
                if best[0] < self._cost(name, self.cell[name]) - 1e-9:
                    self._put(name, best[1])
                    moved = True
            if not moved:
                break
        return {name: self.grid.pixel(self.cell[name]) for name in self.names}

    def _put(self, name: str, cell: tuple[int, int]) -> None:
        old = self.cell.get(name)
        if old is not None:
            del self.taken[old]
        self.cell[name] = cell
        self.taken[cell] = name

    def _fits(self, name: str, cell: tuple[int, int]) -> bool:
        """Inside the grid, free, and leaving room for the labels of the stations on its row."""
        x, y = cell
        if not (0 <= x < self.grid.columns and 0 <= y < self.grid.rows):
            return False
        if self.taken.get(cell, name) != name:
            return False
        width = self.label_widths.get(name, 0.0)
        for other, (ox, oy) in self.cell.items():
            if other != name and oy == y:
                room = (width + self.label_widths.get(other, 0.0)) / 2
                if abs(ox - x) * self.grid.pitch < room:
                    return False
        return True

    def _nearest_free(self, name: str) -> tuple[int, int]:
        tx, ty = self.target[name]
        cells = (
            (x, y)
            for x in range(self.grid.columns)
            for y in range(self.grid.rows)
            if self._fits(name, (x, y))
        )
        found = min(cells, key=lambda c: ((c[0] - tx) ** 2 + (c[1] - ty) ** 2, c), default=None)
        if found is None:
            raise ValueError(
                f"no room for {len(self.names)} stations and their labels on a "
                f"{self.grid.columns}x{self.grid.rows} grid"
            )
        return found

    def _moves(self, name: str) -> list[tuple[int, int]]:
        x, y = self.cell[name]
        return [
            (x + dx, y + dy)
            for dx in range(-REACH, REACH + 1)
            for dy in range(-REACH, REACH + 1)
            if (dx or dy) and self._fits(name, (x + dx, y + dy))
        ]

    def _cost(self, name: str, cell: tuple[int, int]) -> float:
        """What a station at `cell` costs: its links' angles, its place, crossings, overlaps."""
        tx, ty = self.target[name]
        cost = W_PLACE * ((cell[0] - tx) ** 2 + (cell[1] - ty) ** 2)
        here = self.cell.copy()
        here[name] = cell
        for other in self.neighbours[name]:
            a, b = here[name], here[other]
            cost += W_OCTILINEAR * _off_octilinear(a, b) / 22.5
            real = _angle(self.target[name], self.target[other])
            cost += W_TURN * _angle_between(_angle(a, b), real) / 45
            for station, at in here.items():
                if station not in (name, other) and near_segment(at, a, b):
                    cost += W_OVER
            for p, q in self.edges:
                apart = name not in (p, q) and other not in (p, q)
                if apart and crosses(a, b, here[p], here[q]):
                    cost += W_CROSSING
        for p, q in self.edges:
            if name not in (p, q) and near_segment(cell, here[p], here[q]):
                cost += W_OVER
        return cost


def _grid(frame: Frame, count: int) -> Grid:
    pitch = math.sqrt(frame.width * frame.height / (CELLS_PER_STATION * max(count, 1)))
    columns = max(1, int(frame.width // pitch) + 1)
    rows = max(1, int(frame.height // pitch) + 1)
    return Grid(frame, pitch, columns, rows)


def _targets(km: dict[str, tuple[float, float]], grid: Grid) -> dict[str, tuple[float, float]]:
    """Each station's projected place in grid cells: the network fills the grid, an axis
    stretched at most MAX_STRETCH times the other."""
    km = _warped(km)
    xs = [p[0] for p in km.values()]
    ys = [p[1] for p in km.values()]
    span_x = max(max(xs) - min(xs), 1e-9)
    span_y = max(max(ys) - min(ys), 1e-9)
    fit_x = (grid.columns - 1) / span_x
    fit_y = (grid.rows - 1) / span_y
    scale_x = min(fit_x, MAX_STRETCH * fit_y)
    scale_y = min(fit_y, MAX_STRETCH * fit_x)
    # centred: the spare cells of the shorter side split on both sides
    off_x = ((grid.columns - 1) - span_x * scale_x) / 2
    off_y = ((grid.rows - 1) - span_y * scale_y) / 2
    return {
        k: ((x - min(xs)) * scale_x + off_x, (y - min(ys)) * scale_y + off_y)
        for k, (x, y) in km.items()
    }


def _warped(km: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Places moved WARP of the way towards their rank order on each axis (spread over the same
    span), as metro maps give a city's crowded centre more room than its suburbs."""
    axes = []
    for axis in (0, 1):
        values = sorted(p[axis] for p in km.values())
        low, span = values[0], values[-1] - values[0]
        step = span / max(len(values) - 1, 1)
        # equal values share the mean of their ranks
        ranks: dict[float, list[int]] = {}
        for i, v in enumerate(values):
            ranks.setdefault(v, []).append(i)
        spread = {v: low + step * sum(r) / len(r) for v, r in ranks.items()}
        axes.append({k: (1 - WARP) * p[axis] + WARP * spread[p[axis]] for k, p in km.items()})
    return {k: (axes[0][k], axes[1][k]) for k in km}


def _angle(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def _angle_between(u: float, v: float) -> float:
    d = abs(u - v) % 360
    return min(d, 360 - d)


def _off_octilinear(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Degrees from the nearest multiple of 45°."""
    rest = _angle(a, b) % 45
    return min(rest, 45 - rest)


def near_segment(p, a, b, within: float = 0.5) -> bool:
    """Whether point p lies within `within` of segment a-b, away from its ends."""
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return False
    t = ((px - ax) * dx + (py - ay) * dy) / length2
    if t <= 0 or t >= 1:
        return False
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy)) < within


def crosses(a, b, c, d) -> bool:
    """Whether segments a-b and c-d cross properly (sharing no end)."""

    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    d1, d2 = side(c, d, a), side(c, d, b)
    d3, d4 = side(a, b, c), side(a, b, d)
    return d1 * d2 < 0 and d3 * d4 < 0
