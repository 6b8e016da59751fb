"""Polycube geometry: shapes, their orientations, and stacking pieces into buildings.

A building grows inside a frame of ground sites. A placement is legal when the piece stays
inside the frame, overlaps nothing, rests on occupied cells (no overhang), and touches the
existing cells of every floor it shares with the building. A piece may be taken away when the
rest stays supported and every floor it was on stays in one part.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations, product

Cell = tuple[int, int, int]
Site = tuple[int, int]
Offset = tuple[int, int, int]

OUTSIDE_FRAME = "outside-frame"
OVERLAP = "overlap"
OVERHANG = "overhang"
NO_CONTACT = "no-contact"

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))

# Signed axis permutations: the 24 rotations of the cube together with their mirror images.
_SYMMETRIES = tuple(
    (perm, signs) for perm in permutations(range(3)) for signs in product((1, -1), repeat=3)
)


def _normalise(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    points = {(x, y, z) for x, y, z in cells}
    if not points:
        raise ValueError("a shape needs at least one cell")
    mx = min(p[0] for p in points)
    my = min(p[1] for p in points)
    mz = min(p[2] for p in points)
    return tuple(sorted((x - mx, y - my, z - mz) for x, y, z in points))


@dataclass(frozen=True, slots=True)
class Shape:
    """A non-empty set of unit cubes, translated so its minimum x, y and z are 0."""

    cells: tuple[Cell, ...]
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cells = _normalise(self.cells)
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "_hash", hash(cells))

    def __hash__(self) -> int:
        # Kept: shapes key the placement caches, looked up for every listing.
        return self._hash

    @classmethod
    def from_cells(cls, cells: Iterable[Cell]) -> Shape:
        """Build a shape from any cubes; duplicates are merged and the result normalised."""
        return cls(tuple(cells))

    @classmethod
    def parse(cls, layers: Sequence[str] | str) -> Shape:
        """Build a shape from drawings of its floors, ground first: rows split by '/', '#' = cube."""
        if isinstance(layers, str):
            layers = [layers]
        cells = []
        for z, layer in enumerate(layers):
            for y, row in enumerate(layer.split("/")):
                for x, char in enumerate(row.strip()):
                    if char == "#":
                        cells.append((x, y, z))
                    elif char != ".":
                        raise ValueError(f"unexpected {char!r} in shape drawing {layer!r}")
        return cls(tuple(cells))

    @property
    def size(self) -> int:
        """Number of cubes."""
        return len(self.cells)

    @property
    def dims(self) -> tuple[int, int, int]:
        """Extent along x, y and z."""
        return (
            max(c[0] for c in self.cells) + 1,
            max(c[1] for c in self.cells) + 1,
            max(c[2] for c in self.cells) + 1,
        )


@lru_cache(maxsize=4096)
def _orientations(cells: tuple[Cell, ...]) -> tuple[Shape, ...]:
    seen = set()
    for (i, j, k), (a, b, c) in _SYMMETRIES:
        seen.add(_normalise([(a * p[i], b * p[j], c * p[k]) for p in cells]))
    return tuple(Shape(found) for found in sorted(seen))


def orientations(shape: Shape) -> tuple[Shape, ...]:
    """All distinct rotations and mirror images of `shape`, normalised, in sorted order."""
    # Every orientation of a shape yields the same sorted tuple, so indices are stable.
    return _orientations(shape.cells)


@dataclass(frozen=True, slots=True)
class Frame:
    """The ground sites a building may cover; any arrangement, possibly disconnected."""

    cells: tuple[Site, ...]
    _sites: frozenset[Site] = field(init=False, repr=False, compare=False)
    _bounds: tuple[int, int, int, int] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        sites = frozenset((x, y) for x, y in self.cells)
        if not sites:
            raise ValueError("a frame needs at least one site")
        object.__setattr__(self, "cells", tuple(sorted(sites)))
        object.__setattr__(self, "_sites", sites)
        xs = [s[0] for s in sites]
        ys = [s[1] for s in sites]
        object.__setattr__(self, "_bounds", (min(xs), min(ys), max(xs), max(ys)))
        object.__setattr__(self, "_hash", hash(self.cells))

    def __hash__(self) -> int:
        # Kept: frames key the placement caches, looked up for every listing.
        return self._hash

    @classmethod
    def rect(cls, x0: int, y0: int, w: int, h: int) -> Frame:
        """A w-by-h rectangle whose lowest corner is (x0, y0)."""
        return cls(tuple((x, y) for x in range(x0, x0 + w) for y in range(y0, y0 + h)))

    @classmethod
    def parse(cls, text: str) -> Frame:
        """A frame drawn as rows split by '/', '#' for a site and '.' for none; row index is y."""
        cells = []
        for y, row in enumerate(text.split("/")):
            for x, char in enumerate(row.strip()):
                if char == "#":
                    cells.append((x, y))
                elif char != ".":
                    raise ValueError(f"unexpected {char!r} in frame drawing {text!r}")
        return cls(tuple(cells))

    def __contains__(self, site: object) -> bool:
        return site in self._sites


@dataclass(frozen=True, slots=True)
class Placement:
    """An oriented shape moved by an offset."""

    shape: Shape
    offset: Offset

    @classmethod
    def of(cls, shape: Shape, orientation: int, offset: Offset) -> Placement:
        """Turn `shape` to `orientations(shape)[orientation]` and move it by `offset`."""
        return cls(orientations(shape)[orientation], tuple(offset))

    @property
    def cells(self) -> tuple[Cell, ...]:
        """The concrete cubes covered, sorted."""
        dx, dy, dz = self.offset
        return tuple((x + dx, y + dy, z + dz) for x, y, z in self.shape.cells)


def _cells_of(cells: Placement | Iterable[Cell]) -> tuple[Cell, ...]:
    if isinstance(cells, Placement):
        return cells.cells
    return tuple(sorted({(x, y, z) for x, y, z in cells}))


@dataclass(frozen=True, slots=True)
class Building:
    """Stacked pieces: the sorted cells of each piece, in the order the pieces were added."""

    pieces: tuple[tuple[Cell, ...], ...] = ()
    # Derived indexes, kept beside the pieces so that checks and enumeration are lookups.
    _owner: dict[Cell, int] = field(init=False, repr=False, compare=False)
    _heights: dict[Site, int] = field(init=False, repr=False, compare=False)
    _levels: frozenset[int] = field(init=False, repr=False, compare=False)
    _floors: int = field(init=False, repr=False, compare=False)
    _solid: bool = field(init=False, repr=False, compare=False)
    # Placements already enumerated on this (immutable) building; a solid building shares
    # them with every solid building of the same heights (see `_profile_cache`).
    _placements: dict[tuple, tuple[tuple, ...]] = field(init=False, repr=False, compare=False)
    # The height map as a sorted tuple: all that placing on a solid building depends on.
    _profile: tuple[tuple[Site, int], ...] = field(init=False, repr=False, compare=False)
    # The removable pieces once found (None before).
    _removable: tuple[int, ...] | None = field(init=False, repr=False, compare=False)
    # Once asked for (None before), what removal depends on: the pieces with a cube resting
    # on them (bit mask) and, for each level, each piece there with those it touches there.
    _links: tuple[int, dict[int, dict[int, int]]] | None = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        pieces = tuple(_cells_of(p) for p in self.pieces)
        owner: dict[Cell, int] = {}
        heights: dict[Site, int] = {}
        for index, cells in enumerate(pieces):
            for cell in cells:
                if cell in owner:
                    raise ValueError(f"cell {cell} belongs to two pieces")
                if cell[2] < 0:
                    raise ValueError(f"cell {cell} is below the ground")
                owner[cell] = index
                site = (cell[0], cell[1])
                if heights.get(site, 0) <= cell[2]:
                    heights[site] = cell[2] + 1
        object.__setattr__(self, "pieces", pieces)
        self._fill(owner, _form(heights, frozenset(c[2] for c in owner), len(owner)))

    def _fill(self, owner: dict[Cell, int], form: _Form) -> None:
        heights, levels, floors, solid, profile = form
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_heights", heights)
        object.__setattr__(self, "_levels", levels)
        object.__setattr__(self, "_floors", floors)
        object.__setattr__(self, "_solid", solid)
        object.__setattr__(self, "_profile", profile)
        object.__setattr__(self, "_placements", _profile_cache(profile) if solid else {})
        object.__setattr__(self, "_removable", None)
        object.__setattr__(self, "_links", None)

    @classmethod
    def empty(cls) -> Building:
        """A building with no pieces."""
        # One for all: buildings never change, and every player's building starts empty again
        # in some games every round.
        return _EMPTY

    def add(self, placement: Placement | Iterable[Cell]) -> Building:
        """A new building with the piece added as the next index; only overlap is checked."""
        return self._add_cells(_cells_of(placement))

    def _add_cells(self, cells: tuple[Cell, ...]) -> Building:
        """`add` for a piece's cells already sorted and distinct."""
        old = self._owner
        index = len(self.pieces)
        owner = dict(old)
        for cell in cells:
            if cell in old:
                raise ValueError(f"cell {cell} is already occupied")
            if cell[2] < 0:
                raise ValueError(f"cell {cell} is below the ground")
            owner[cell] = index
        if self._solid:
            # The heights after a placement on a solid building follow from its heights: kept
            # with the placements of those heights, for every building that has them.
            key = ("grown", cells)
            form = self._placements.get(key)
            if form is None:
                form = keep(self._placements, key, self._grown_form(cells, len(owner)))
        else:
            form = self._grown_form(cells, len(owner))
        # Bypass __post_init__: the indexes are updated incrementally instead of rebuilt.
        new = object.__new__(Building)
        object.__setattr__(new, "pieces", (*self.pieces, cells))
        new._fill(owner, form)
        if self._links is not None:
            # Kept up once asked for (a building is asked what may go after every placement):
            # only the new piece's contacts are new.
            links = _grown_links(self._links, owner, cells, index, not self._solid)
            object.__setattr__(new, "_links", links)
        return new

    def _grown_form(self, cells: tuple[Cell, ...], cubes: int) -> _Form:
        """The height map and what it decides once `cells` (`cubes` cubes in all) are added."""
        heights = dict(self._heights)
        for x, y, z in cells:
            if heights.get((x, y), 0) <= z:
                heights[(x, y)] = z + 1
        return _form(heights, self._levels.union(c[2] for c in cells), cubes)

    def __reduce__(self):
        # Pickled (or deep-copied) as its pieces: the caches it shares stay behind.
        return (Building, (self.pieces,))

    def remove(self, index: int) -> Building:
        """A new building without piece `index`; later pieces move down one index."""
        if not 0 <= index < len(self.pieces):
            raise IndexError(f"no piece {index}")
        return Building(self.pieces[:index] + self.pieces[index + 1 :])

    @property
    def floors(self) -> int:
        """Number of levels in use: highest z + 1, or 0 when empty."""
        return self._floors

    @property
    def piece_count(self) -> int:
        """Number of pieces."""
        return len(self.pieces)

    @property
    def cells(self) -> frozenset[Cell]:
        """All occupied cells."""
        return frozenset(self._owner)

    @property
    def supported(self) -> bool:
        """True when every cell above the ground rests on an occupied cell."""
        return self._solid

    def owner(self, cell: Cell) -> int | None:
        """Index of the piece occupying `cell`, or None."""
        return self._owner.get(cell)

    def height(self, x: int, y: int) -> int:
        """Highest occupied z + 1 above site (x, y), or 0."""
        return self._heights.get((x, y), 0)

    def columns(self) -> list[tuple[int, int, int]]:
        """(x, y, height) of every ground site something stands on, in (x, y) order."""
        return sorted((x, y, h) for (x, y), h in self._heights.items())


# A building's heights and what they decide: (heights, levels, floors, solid, profile). Shared
# by buildings of equal heights, so never changed in place.
_Form = tuple[dict[Site, int], frozenset[int], int, bool, tuple[tuple[Site, int], ...]]


def _form(heights: dict[Site, int], levels: frozenset[int], cubes: int) -> _Form:
    """The form of a building of these heights and levels holding `cubes` cubes."""
    # A column holds at most `height` cells, so equal totals mean every column is filled
    # from the ground up: nothing is unsupported and placement can use the height map.
    solid = sum(heights.values()) == cubes
    floors = max(heights.values(), default=0)
    return heights, levels, floors, solid, tuple(sorted(heights.items()))


CACHE_ENTRIES = 4096  # the most answers one building's (or one height map's) cache keeps


def keep(cache: dict, key, value):
    """`value`, kept in a building's cache under `key` unless the cache is full."""
    if len(cache) < CACHE_ENTRIES:
        cache[key] = value
    return value


@lru_cache(maxsize=4096)
def _profile_cache(profile: tuple[tuple[Site, int], ...]) -> dict[tuple, tuple[tuple, ...]]:
    """The placements found on solid buildings of these heights, by what was asked."""
    # Placing on a solid building depends on its heights alone, and buildings of the same
    # heights recur across positions and games (bots follow the same plans): one dict for
    # them all, so a building new to a listing usually finds its placements enumerated.
    return {}


_EMPTY = Building()


def check_placement(
    building: Building, frame: Frame, cells: Placement | Iterable[Cell]
) -> str | None:
    """None if the cubes may be added to the building, else a reason code."""
    cells = _cells_of(cells)
    sites = frame._sites
    for x, y, z in cells:
        if z < 0 or (x, y) not in sites:
            return OUTSIDE_FRAME
    owner = building._owner
    for cell in cells:
        if cell in owner:
            return OVERLAP
    own = set(cells)
    for x, y, z in cells:
        if z > 0 and (x, y, z - 1) not in owner and (x, y, z - 1) not in own:
            return OVERHANG
    levels = building._levels
    for level in {c[2] for c in cells} & levels:
        if not any(
            (x + sx, y + sy, z) in owner for x, y, z in cells if z == level for sx, sy in _STEPS
        ):
            return NO_CONTACT
    return None


@dataclass(frozen=True, slots=True)
class _Pose:
    cells: tuple[Cell, ...]
    height: int
    # Offsets (dx, dy) that keep the footprint inside the frame, sorted.
    anchors: tuple[Site, ...]


@lru_cache(maxsize=1024)
def _poses(cells: tuple[Cell, ...], frame: Frame) -> tuple[_Pose, ...]:
    poses = []
    x0, y0, x1, y1 = frame._bounds
    for shape in _orientations(cells):
        cubes = shape.cells
        footprint = {(x, y) for x, y, _ in cubes}
        w = max(c[0] for c in cubes)
        d = max(c[1] for c in cubes)
        anchors = tuple(
            (dx, dy)
            for dx in range(x0, x1 - w + 1)
            for dy in range(y0, y1 - d + 1)
            if all((x + dx, y + dy) in frame._sites for x, y in footprint)
        )
        poses.append(_Pose(cubes, max(c[2] for c in cubes) + 1, anchors))
    return tuple(poses)


def _site_grid(frame: Frame) -> tuple[int, int]:
    """(stride, size) of a list over the frame's sites, with a margin of one site all round."""
    # Site (x, y) is at (x - x0 + 1) * stride + (y - y0 + 1), for (x0, y0) the frame's lowest
    # corner. A piece inside the frame touches no site outside the margin.
    x0, y0, x1, y1 = frame._bounds
    stride = y1 - y0 + 3
    return stride, (x1 - x0 + 3) * stride


@lru_cache(maxsize=1024)
def _resting_poses(cells: tuple[Cell, ...], frame: Frame) -> tuple[tuple, ...]:
    """The poses that can rest on a solid building somewhere in the frame, over its site grid."""
    # Each as (index, height, first column, other columns, rims, anchors): a column as (site
    # offset, lowest z), a rim (per level, the sites edge-adjacent to its cubes there) as site
    # offsets, an anchor as (dx, dy, site index); offsets count from an anchor's index.
    stride = _site_grid(frame)[0]
    x0, y0 = frame._bounds[:2]
    resting = []
    for index, pose in enumerate(_poses(cells, frame)):
        column_levels: dict[Site, list[int]] = {}
        for x, y, z in pose.cells:
            column_levels.setdefault((x, y), []).append(z)
        # A column with a gap can never rest on a building filled from the ground.
        if not pose.anchors or any(
            max(zs) - min(zs) + 1 != len(zs) for zs in column_levels.values()
        ):
            continue
        columns = tuple((x * stride + y, min(zs)) for (x, y), zs in sorted(column_levels.items()))
        rims = []
        for level in range(pose.height):
            layer = {(x, y) for x, y, z in pose.cells if z == level}
            rim = {(x + sx, y + sy) for x, y in layer for sx, sy in _STEPS} - layer
            rims.append(tuple(x * stride + y for x, y in sorted(rim)))
        anchors = tuple((dx, dy, (dx - x0 + 1) * stride + dy - y0 + 1) for dx, dy in pose.anchors)
        resting.append((index, pose.height, columns[0], columns[1:], tuple(rims), anchors))
    return tuple(resting)


@lru_cache(maxsize=4096)
def _height_grid(
    profile: tuple[tuple[Site, int], ...], frame: Frame
) -> tuple[tuple[int, ...], int]:
    """The heights over the frame's site grid (see `_site_grid`), and the floors in use."""
    x0, y0, x1, y1 = frame._bounds
    stride, size = _site_grid(frame)
    heights = [0] * size
    for (x, y), h in profile:
        if x0 - 1 <= x <= x1 + 1 and y0 - 1 <= y <= y1 + 1:
            heights[(x - x0 + 1) * stride + y - y0 + 1] = h
    return tuple(heights), max((h for _, h in profile), default=0)


def placements(
    shape: Shape, frame: Frame, building: Building, max_floors: int | None = None
) -> list[tuple[int, Offset]]:
    """Every legal (orientation index, offset) for `shape`, sorted; no cube reaches max_floors."""
    key = ("pairs", shape, frame, max_floors)  # beside runtime.shapes' flat tuples
    known = building._placements.get(key)
    if known is None:
        if building._solid:
            known = solid_placements(shape.cells, frame, max_floors, building._profile)
        else:
            known = tuple(_placements(shape, frame, building, max_floors))
        keep(building._placements, key, known)
    return list(known)


def _placements(shape: Shape, frame: Frame, building: Building, max_floors: int | None):
    # Rare: a building assembled without the rules. Test every height a piece could rest at.
    floors = building._floors
    found: list[tuple[int, Offset]] = []
    for index, pose in enumerate(_poses(shape.cells, frame)):
        top = floors if max_floors is None else min(floors, max_floors - pose.height)
        for dx, dy in pose.anchors:
            for dz in range(top + 1):
                cubes = [(x + dx, y + dy, z + dz) for x, y, z in pose.cells]
                if check_placement(building, frame, cubes) is None:
                    found.append((index, (dx, dy, dz)))
    return found


def solid_placements(
    cells: tuple[Cell, ...],
    frame: Frame,
    max_floors: int | None,
    profile: tuple[tuple[Site, int], ...],
) -> tuple[tuple[int, Offset], ...]:
    """The placements on a building whose every column is filled from the ground, by its heights."""
    # Site indexes, not tuple keys, in the loops; grids and poses are shared by the kinds of
    # piece tried on one building and the buildings tried in one frame.
    heights, floors = _height_grid(profile, frame)
    found: list[tuple[int, Offset]] = []
    # Every column is filled from the ground, so a piece rests legally only when each of its
    # gap-free columns starts exactly at that column's height: at most one dz per (dx, dy).
    for index, height, (first, fz), rest, rims, anchors in _resting_poses(cells, frame):
        limit = floors if max_floors is None else max_floors - height
        if limit < 0:
            continue
        for dx, dy, base in anchors:
            dz = heights[base + first] - fz
            if dz < 0 or dz > limit:
                continue
            for offset, z in rest:
                if heights[base + offset] - z != dz:
                    break
            else:
                # Floors below `floors` all hold cells; the piece must touch each it shares.
                for level in range(min(height, floors - dz)):
                    z = dz + level
                    for offset in rims[level]:
                        if heights[base + offset] > z:
                            break
                    else:
                        break
                else:
                    found.append((index, (dx, dy, dz)))
    return tuple(found)


def is_complete(building: Building, floors: int, pieces: int) -> bool:
    """True when the building has exactly `floors` levels and `pieces` pieces."""
    return building.floors == floors and building.piece_count == pieces


def removable(building: Building) -> list[int]:
    """Pieces whose removal leaves every cell supported and each floor the piece was on in one part."""
    owner = building._owner
    count = len(building.pieces)
    covered, contacts = _links_of(building)
    if building._solid:
        # Only cubes resting directly on the removed piece can lose their support.
        held = ((1 << count) - 1) & ~covered  # bit i: piece i may go as far as support goes
    else:
        held = 0
        for index, cells in enumerate(building.pieces):
            gone = set(cells)
            if all(
                z == 0 or ((x, y, z - 1) in owner and (x, y, z - 1) not in gone)
                for (x, y, z), piece in owner.items()
                if piece != index
            ):
                held |= 1 << index
    # Placing keeps every floor's pieces joined edge to edge; removing must not split one
    # (which takes three pieces on the floor at least).
    for links in contacts.values():
        if len(links) > 2:
            for piece in links:
                if held >> piece & 1 and not _joined_without(links, piece):
                    held ^= 1 << piece
    return [index for index in range(count) if held >> index & 1]


def _links_of(building: Building) -> tuple[int, dict[int, dict[int, int]]]:
    """The building's covered pieces and contacts by level (see Building._links), kept."""
    known = building._links
    if known is None:
        known = (0, {})
        owner: dict[Cell, int] = {}
        for index, cells in enumerate(building.pieces):
            owner.update(dict.fromkeys(cells, index))
            known = _grown_links(known, owner, cells, index, True)
        object.__setattr__(building, "_links", known)
    return known


def _grown_links(
    links: tuple[int, dict[int, dict[int, int]]],
    owner: dict[Cell, int],
    cells: tuple[Cell, ...],
    index: int,
    under: bool,
) -> tuple[int, dict[int, dict[int, int]]]:
    """The links once piece `index` (its cells already in `owner`) is added; `links` unchanged."""
    # `under`: the piece may have gone under a cube already there (never so on a solid
    # building, whose cells below a cube are all taken).
    covered, contacts = links
    contacts = dict(contacts)
    copied = set()  # the levels whose contacts this piece changes: copied, not shared
    for x, y, z in cells:
        below = owner.get((x, y, z - 1), index)
        if below != index:
            covered |= 1 << below
        # Pieces may be listed, or added unchecked, before the ones they rest on.
        if under and owner.get((x, y, z + 1), index) != index:
            covered |= 1 << index
        if z not in copied:
            copied.add(z)
            contacts[z] = dict(contacts.get(z, ()))
        level = contacts[z]
        mask = level.get(index, 0)
        for other in (
            owner.get((x + 1, y, z)),
            owner.get((x - 1, y, z)),
            owner.get((x, y + 1, z)),
            owner.get((x, y - 1, z)),
        ):
            if other is not None and other != index:
                mask |= 1 << other
                level[other] = level.get(other, 0) | 1 << index
        level[index] = mask
    return covered, contacts


def _joined_without(links: dict[int, int], gone: int) -> bool:
    """True if the pieces of one level other than `gone` reach each other through their contacts."""
    rest = 0
    for piece in links:
        if piece != gone:
            rest |= 1 << piece
    seen = frontier = rest & -rest  # from the lowest piece, one contact at a time
    while frontier:
        low = frontier & -frontier
        frontier ^= low
        new = links[low.bit_length() - 1] & rest & ~seen
        seen |= new
        frontier |= new
    return seen == rest


if __name__ == "__main__":
    import timeit

    frame = Frame.rect(0, 0, 4, 3)
    building = (
        Building.empty()
        .add(Placement(Shape.parse("###/#.."), (0, 0, 0)))
        .add(Placement(Shape.parse("###"), (1, 2, 0)))
        .add(Placement(Shape.parse("#"), (0, 0, 1)))
    )
    piece = Shape.parse("###/#..")
    start = timeit.default_timer()
    first = placements(piece, frame, building)
    cold = timeit.default_timer() - start
    runs = 2000
    warm = timeit.timeit(lambda: placements(piece, frame, building), number=runs) / runs
    print(f"{len(first)} placements; first call {cold * 1e6:.0f} us, then {warm * 1e6:.1f} us")
