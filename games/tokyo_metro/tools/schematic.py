"""The schematic layout of an imported Tokyo Metro board (`Recipe.schematic`): stations moved
on the grid of squares, and their stops among the streets round them, so that lines run
stop to stop at multiples of 45° and every station's label has room, the geography kept.

The board is laid out as its picture draws it (schema.metro's drawings: a square 100 units, a
stop a circle of radius 15 where its squares meet, a station a box round its stops with its
name beside it), and each label stands at one of the places the renderer tries for a box
(metro/render/labels.py), at the renderer's label height for a picture of this size. The
method is hill climbing (as metro/network/layout.py, Stott et al. 2011), a station at a time:
from the projected places (`lay_out`'s start), each station tries the grid points within
REACH and every arrangement of its stops on the streets round it, keeping the one that
lowers a cost of non-octilinear links, links turned from their real direction, distance from
the projected place, crossings, lines over other stations' stops, stations crowded together
and labels that meet other labels or stations. After each sweep the labels are set where the
renderer itself sets them (its greedy placement, run on the board as drawn), and once no
station moves, those whose labels still meet something move again with their labels weighing
REPAIR_WEIGHT times more. Bounded: at most PASSES sweeps and REPAIRS rounds. The Tokyo and
Osaka boards keep the projected layout.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from games.tokyo_metro.tools.common import LayoutError
from metro.network.layout import crosses, near_segment
from metro.render.labels import LABEL_WEIGHT, candidates, label_lines, place_labels, text_box
from metro.render.layout import LABEL_SIZE, POINT_RADIUS
from metro.render.model import Bounds, Item, Style, union

UNIT = 100  # picture units a square (schema.metro's drawings)
STOP_RADIUS = 15  # a stop's circle (schema.metro: draw "stops" ... size 15)
BOX_WIDTH = 5  # a station's outline (schema.metro: draw "stations" ... width 5)
TRACK_STEP = 29  # the income track's width per ¥100 (schema.metro: draw "income track")
TRACK_GAP = 80  # from the board's last row to the income track (schema.metro: TRACK_Y)

PASSES = 14
REPAIRS = 12  # rounds of moving the stations whose labels still meet something
REPAIR_WEIGHT = 20.0  # the labels' cost in those rounds, times W_LABEL
REACH = 2  # grid points a station may move in one step, each way
W_PLACE = 0.16  # a station one square from its projected place (squared)
W_OCTILINEAR = 8.0  # a link off every multiple of 45°
W_TURN = 1.0  # a link turned 45° from its real direction
W_CROSSING = 6.0  # two links crossing
W_OVER = 6.0  # a link passing over another station's stop
W_CROWD = 4.0  # stops of two stations less than CROWD squares apart
CROWD = 0.8
NEAR = 0.2  # squares from a link within which a stop counts as under it
W_LABEL = 200.0  # a label meeting a label, a stop or a station: per label area covered
ORDER_COST = 0.002  # the renderer's preference for its earlier label places, per label area
TOLERANCE = 0.5  # degrees from a multiple of 45° a link may be and still count as octilinear

# A stop's street round its station's grid point: its offset in squares and its slot.
OFFSETS = {"": (0.0, 0.0), "E": (0.5, 0.0), "W": (-0.5, 0.0), "S": (0.0, 0.5), "N": (0.0, -0.5)}
PERPENDICULAR = (("E", "S"), ("E", "N"), ("W", "S"), ("W", "N"))

Point = tuple[float, float]


@dataclass
class Node:
    """A station being placed: its stops (codes), projected place, label and where it stands."""

    ident: str
    name: str
    codes: list[str]
    target: Point  # in squares, fractional
    at: tuple[int, int] = (0, 0)
    streets: tuple[str, ...] = ()  # per stop: "" on the grid point, else its street's direction
    label: Bounds | None = None
    arrangements: list[tuple[str, ...]] = field(default_factory=list)


@dataclass(frozen=True)
class Around:
    """What a station's moves may meet, where it stands while the station moves: the stations
    near it, their stops, and the other links near it with their ends and boxes."""

    others: list[Node]
    stops: list[tuple[str, Point]]
    links: list[tuple[str, str, Point, Point, Bounds]]


def slot(at: tuple[int, int], street: str) -> tuple[str, int, int]:
    """A stop's slot (board.py's kinds): the grid point, or the street it stands on."""
    x, y = at
    return {
        "": ("v", x, y),
        "E": ("h", x, y),
        "W": ("h", x - 1, y),
        "S": ("u", x, y),
        "N": ("u", x, y - 1),
    }[street]


def arrangements(stops: int) -> list[tuple[str, ...]]:
    """The ways a station's stops stand round its grid point (they share a touching square)."""
    if stops == 1:
        return [("",)]
    if stops == 2:
        return [streets for d in "ESWN" for streets in (("", d), (d, ""))]
    return sorted({p for pair in PERPENDICULAR for p in itertools.permutations(("", *pair))})


def extent(columns: int, rows: int, track_top: int) -> float:
    """The larger side of the board's picture (the renderer sizes labels by it)."""
    return float(max(UNIT * (columns - 1), TRACK_STEP * track_top / 100, UNIT * rows + TRACK_GAP))


class Board:
    """The stations on the grid, with their links and labels, as the picture draws them."""

    def __init__(
        self,
        nodes: list[Node],
        lines: list[list[str]],
        columns: int,
        rows: int,
        track_top: int,
        real: dict[str, Point],
    ):
        self.nodes = nodes
        self.columns, self.rows = columns, rows
        big = extent(columns, rows, track_top)
        self.label_size = LABEL_SIZE * big
        self.pad = STOP_RADIUS + POINT_RADIUS * big * 0.6  # the renderer's room round a box
        self.node_of = {code: node for node in nodes for code in node.codes}
        self.stop_order = [code for codes in lines for code in codes]
        self.links = [
            (a, b) for codes in lines for a, b in itertools.pairwise(codes)
            if self.node_of[a] is not self.node_of[b]
        ]  # fmt: skip
        self.links_of: dict[str, list[int]] = {code: [] for code in self.node_of}
        for i, (a, b) in enumerate(self.links):
            self.links_of[a].append(i)
            self.links_of[b].append(i)
        self.real = real  # stop code -> its station's real place (km east, km south)
        self.points: dict[tuple[int, int], Node] = {}
        self.streets: dict[tuple[str, int, int], Node] = {}
        self.where: dict[str, Point] = {}
        self.shapes: dict[str, list[Bounds]] = {}  # station id -> its box and stops' circles
        for node in nodes:
            node.arrangements = arrangements(len(node.codes))

    # --------------------------------------------------------------------- placing

    def put(self, node: Node, at: tuple[int, int], streets: tuple[str, ...]) -> None:
        """Stand a station at a grid point with its stops on the streets given."""
        if node.streets:
            del self.points[node.at]
            for street in node.streets:
                if street:
                    del self.streets[slot(node.at, street)]
        node.at, node.streets = at, streets
        self.points[at] = node
        for code, street in zip(node.codes, streets, strict=True):
            if street:
                self.streets[slot(at, street)] = node
            dx, dy = OFFSETS[street]
            self.where[code] = (at[0] + dx, at[1] + dy)
        places = self._places(node)
        self.shapes[node.ident] = [self.box(places).bounds()] + [self._circle(p) for p in places]

    def fits(self, node: Node, at: tuple[int, int], streets: tuple[str, ...]) -> bool:
        """Inside the grid, on a free grid point, its stops on free streets."""
        x, y = at
        if not (1 <= x <= self.columns - 1 and 1 <= y <= self.rows - 1):
            return False
        if x == self.columns - 1 and "E" in streets:
            return False  # a stop past the last grid point would widen the picture
        if self.points.get(at, node) is not node:
            return False
        return all(self.streets.get(slot(at, s), node) is node for s in streets if s)

    # ----------------------------------------------------------------------- costs

    def stops_at(self, node: Node, at, streets) -> dict[str, Point]:
        """Where a station's stops stand (squares) at a grid point with an arrangement."""
        return {
            code: (at[0] + OFFSETS[s][0], at[1] + OFFSETS[s][1])
            for code, s in zip(node.codes, streets, strict=True)
        }

    def box(self, places: list[Point]) -> Item:
        """The station's box as the renderer draws it, round its stops (picture units)."""
        xs = [UNIT * p[0] for p in places]
        ys = [UNIT * p[1] for p in places]
        corners = (
            (min(xs) - self.pad, min(ys) - self.pad),
            (max(xs) + self.pad, max(ys) + self.pad),
        )
        return Item("box", corners, 0.0, Style(width=BOX_WIDTH))

    def label_places(self, node: Node, places: list[Point]) -> list[Bounds]:
        """The boxes a station's label may take, the renderer's preferred place first."""
        item = self.box(places)
        item.label = node.name
        lines = label_lines(item)
        return [
            text_box(lines, place, self.label_size) for place in candidates(item, self.label_size)
        ]

    def link_cost(self, a: Point, b: Point, real: float) -> float:
        """A link's angle: off 45°, and turned from its real direction."""
        angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        rest = angle % 45
        off = min(rest, 45 - rest)
        cost = W_OCTILINEAR * (0.5 + 0.5 * off / 22.5) if off > TOLERANCE else 0.0
        turn = abs(angle - real) % 360
        return cost + W_TURN * min(turn, 360 - turn) / 45

    def cost(
        self,
        node: Node,
        at: tuple[int, int],
        streets: tuple[str, ...],
        around: Around,
        label_weight: float,
        bound: float = math.inf,
    ) -> float:
        """What the station costs standing at `at` with `streets`, the rest where they are (a
        cost past `bound` may be returned before its labels are costed: it will not be taken)."""
        here = self.stops_at(node, at, streets)
        tx, ty = node.target
        cost = W_PLACE * ((at[0] - tx) ** 2 + (at[1] - ty) ** 2)
        cost += self.lines_cost(node, here, around)
        if cost >= bound:
            return cost
        return cost + self.label_cost(node, list(here.values()), around.others, label_weight)[0]

    def lines_cost(self, node: Node, here: dict[str, Point], around: Around) -> float:
        """The station's links (angles, crossings, passing over stops), the links passing over
        its stops, and its stops crowding other stations', its stops standing `here`."""
        cost = 0.0
        for i in sorted({i for code in node.codes for i in self.links_of[code]}):
            a, b = self.links[i]
            pa, pb = here.get(a) or self.where[a], here.get(b) or self.where[b]
            cost += self.link_cost(pa, pb, self.real_angle(a, b))
            # boxes first (inline: this is the layout's inner loop)
            x0, y0 = min(pa[0], pb[0]), min(pa[1], pb[1])
            x1, y1 = max(pa[0], pb[0]), max(pa[1], pb[1])
            for c, d, pc, pd, (ox0, oy0, ox1, oy1) in around.links:
                meets = ox0 <= x1 and x0 <= ox1 and oy0 <= y1 and y0 <= oy1
                if meets and c not in (a, b) and d not in (a, b) and crosses(pa, pb, pc, pd):
                    cost += W_CROSSING
            for code, (qx, qy) in around.stops:
                meets = x0 - NEAR <= qx <= x1 + NEAR and y0 - NEAR <= qy <= y1 + NEAR
                if meets and code != a and code != b and near_segment((qx, qy), pa, pb, NEAR):
                    cost += W_OVER
        for p in here.values():
            px, py = p
            for _, _, pc, pd, (ox0, oy0, ox1, oy1) in around.links:
                meets = ox0 - NEAR <= px <= ox1 + NEAR and oy0 - NEAR <= py <= oy1 + NEAR
                if meets and near_segment(p, pc, pd, NEAR):
                    cost += W_OVER
            for _, q in around.stops:
                cost += W_CROWD * (abs(p[0] - q[0]) < CROWD and abs(p[1] - q[1]) < CROWD)
        return cost

    def label_cost(
        self, node: Node, places: list[Point], others: list[Node], weight: float
    ) -> tuple[float, Bounds]:
        """A station's cheapest label place and its cost (what it meets, and what meets its
        box or stops: other stations' labels)."""
        boxes = self.label_places(node, places)
        region = union(boxes)
        shapes = [s for o in others for s in self.shapes[o.ident] if _meet(s, region)]
        shapes += [self._circle(p) for p in places]  # the renderer counts its own stops too
        labels = [o.label for o in others if o.label is not None and _meet(o.label, region)]
        best, best_cost = boxes[0], math.inf
        for order, box in enumerate(boxes):
            meets = _covered(box, shapes) + LABEL_WEIGHT * _covered(box, labels)
            cost = weight * meets / _area(box) + ORDER_COST * order
            if cost < best_cost:
                best, best_cost = box, cost
        # what the others' labels cover of its box and stops, as shares of those labels
        own = [self.box(places).bounds()] + [self._circle(p) for p in places]
        covered = sum(_covered(label, own) / _area(label) for label in labels)
        return best_cost + weight * covered, best

    def _circle(self, p: Point) -> Bounds:
        """A stop's circle at a place (squares), in picture units."""
        x, y = UNIT * p[0], UNIT * p[1]
        return (x - STOP_RADIUS, y - STOP_RADIUS, x + STOP_RADIUS, y + STOP_RADIUS)

    def real_angle(self, a: str, b: str) -> float:
        """The real direction from stop a's station to stop b's, in degrees (y to the south)."""
        (ax, ay), (bx, by) = self.real[a], self.real[b]
        return math.degrees(math.atan2(by - ay, bx - ax))

    # -------------------------------------------------------------------- climbing

    def around(self, node: Node) -> Around:
        """What a station's moves may meet (by a window round it), where it stands now."""
        x, y = node.at
        # a label's width (at most 16 characters a line, 0.6 label heights each), in squares
        reach = REACH + 1 + self.label_size * 0.6 * 16 / UNIT
        others = [
            o for o in self.nodes
            if o is not node and abs(o.at[0] - x) <= reach + 1 and abs(o.at[1] - y) <= reach
        ]  # fmt: skip
        mine = {i for c in node.codes for i in self.links_of[c]}
        span = [self.where[c] for i in mine for c in self.links[i]] + [(x, y)]
        window = (
            min(p[0] for p in span) - REACH - 1,
            min(p[1] for p in span) - REACH - 1,
            max(p[0] for p in span) + REACH + 1,
            max(p[1] for p in span) + REACH + 1,
        )
        links = []
        for j, (c, d) in enumerate(self.links):
            pc, pd = self.where[c], self.where[d]
            box = (min(pc[0], pd[0]), min(pc[1], pd[1]), max(pc[0], pd[0]), max(pc[1], pd[1]))
            if j not in mine and _touch(box, window):
                links.append((c, d, pc, pd, box))
        stops = [(code, self.where[code]) for other in others for code in other.codes]
        return Around(others, stops, links)

    def climb(self) -> None:
        """Move stations while that lowers the cost, then move those whose labels the
        renderer still sets on something, their labels' cost raised; then the same again
        with every label's cost raised, for links the labels held back."""
        order = sorted(self.nodes, key=lambda n: (-len(n.codes), n.ident))
        for weight in (W_LABEL, W_LABEL * REPAIR_WEIGHT):
            for _ in range(PASSES):
                moved = [self.step(node, weight) for node in order]
                self.rendered_labels()
                if not any(moved):
                    break
            for _ in range(REPAIRS):
                crowded = self.crowded()
                if not crowded:
                    break
                for node in crowded:
                    self.step(node, W_LABEL * REPAIR_WEIGHT)
                self.rendered_labels()

    def step(self, node: Node, label_weight: float) -> bool:
        """Move a station to its cheapest place and arrangement nearby; True if it moved."""
        around = self.around(node)
        now = self.cost(node, node.at, node.streets, around, label_weight)
        x, y = node.at
        moves = [
            ((x + dx, y + dy), node.streets)
            for dx in range(-REACH, REACH + 1)
            for dy in range(-REACH, REACH + 1)
            if dx or dy
        ] + [(node.at, s) for s in node.arrangements if s != node.streets]
        best = None
        for at, streets in moves:
            if self.fits(node, at, streets):
                cost = self.cost(node, at, streets, around, label_weight, now)
                if cost < now - 1e-9:
                    best, now = (at, streets), cost
        if best is None:
            return False
        self.put(node, *best)
        node.label = self.label_cost(node, self._places(node), around.others, label_weight)[1]
        return True

    def rendered_labels(self) -> None:
        """Every station's label where the renderer sets it (metro/render/labels.py), with
        the stations and stops in the map file's order, as the picture has them."""
        stations = sorted(self.nodes, key=lambda n: n.ident)
        items = []
        for node in stations:
            item = self.box(self._places(node))
            item.label = node.name
            items.append(item)
        for code in self.stop_order:
            x, y = self.where[code]
            items.append(Item("point", ((UNIT * x, UNIT * y),), STOP_RADIUS, Style()))
        place_labels(items, self.label_size)
        for node, item in zip(stations, items[: len(stations)], strict=True):
            node.label = text_box(label_lines(item), item.label_at, self.label_size)

    def crowded(self) -> list[Node]:
        """The stations whose labels meet another label or another station's stop, and the
        stations they meet (either may move to part them)."""
        out: dict[str, Node] = {}
        for node in self.nodes:
            for other in self.nodes:
                if other is not node and (
                    _meet(node.label, other.label)
                    or any(_meet(node.label, circle) for circle in self.shapes[other.ident][1:])
                ):
                    out[node.ident] = node
                    out[other.ident] = other
        return [out[ident] for ident in sorted(out)]

    def _places(self, node: Node) -> list[Point]:
        """Where a station's stops stand now (squares)."""
        return [self.where[c] for c in node.codes]

    def start(self) -> None:
        """Every station at its assigned grid point, its stops on the cheapest free streets."""
        for node in self.nodes:
            self.points[node.at] = node
            self.where.update(dict.fromkeys(node.codes, (float(node.at[0]), float(node.at[1]))))
            places = self._places(node)
            self.shapes[node.ident] = [self.box(places).bounds()] + [
                self._circle(p) for p in places
            ]
        for node in sorted(self.nodes, key=lambda n: (-len(n.codes), n.ident)):
            del self.points[node.at]
            free = [s for s in node.arrangements if self.fits(node, node.at, s)]
            if not free:
                raise LayoutError(f"no free streets around station {node.ident}")
            around = self.around(node)
            best = min(free, key=lambda s: self.cost(node, node.at, s, around, W_LABEL))
            self.put(node, node.at, best)
        self.rendered_labels()


def _covered(box: Bounds, others: list[Bounds]) -> float:
    """The area of `box` the others cover, counted once for each."""
    x0, y0, x1, y1 = box
    area = 0.0
    for a0, b0, a1, b1 in others:
        if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
            area += (min(x1, a1) - max(x0, a0)) * (min(y1, b1) - max(y0, b0))
    return area


def _touch(a: Bounds, b: Bounds) -> bool:
    """Whether two boxes meet or touch (closed boxes)."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _area(box: Bounds) -> float:
    """A box's area."""
    return (box[2] - box[0]) * (box[3] - box[1])


def _meet(a: Bounds, b: Bounds) -> bool:
    """Whether two boxes share some area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
