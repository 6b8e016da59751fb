"""Geometry for generated code: placements as plain tuples (orientation, dx, dy, dz)."""

from __future__ import annotations

from functools import lru_cache

from runtime.geometry import (
    Building,
    Cell,
    Frame,
    Placement,
    Shape,
    check_placement,
    keep,
    placements,
    removable,
    solid_placements,
)

__all__ = [
    "Building",
    "Frame",
    "Shape",
    "fits",
    "legal_placements",
    "place",
    "removable_pieces",
    "without",
]


def legal_placements(
    shape: Shape, frame: Frame, building: Building, max_floors: int | None
) -> list[tuple]:
    """Every legal placement of a shape, as sorted (orientation, dx, dy, dz) tuples."""
    limit = max_floors if max_floors and max_floors > 0 else None
    key = (shape, frame, limit)  # kept with the building (and those of its heights)
    known = building._placements.get(key)
    if known is None:
        if building.supported:
            found = solid_placements(shape.cells, frame, limit, building._profile)
        else:
            found = placements(shape, frame, building, limit)
        known = keep(building._placements, key, _flat(found))
    return list(known)


def _flat(found) -> tuple[tuple, ...]:
    return tuple((o, dx, dy, dz) for o, (dx, dy, dz) in found)


def _placement(shape: Shape, where: tuple) -> Placement:
    orientation, dx, dy, dz = where
    return Placement.of(shape, orientation, (dx, dy, dz))


def fits(building: Building, frame: Frame, shape: Shape, where: tuple) -> bool:
    """True if placing the shape there obeys every building rule."""
    try:
        return check_placement(building, frame, _placement(shape, where)) is None
    except (IndexError, ValueError):
        return False


def place(building: Building, shape: Shape, where: tuple) -> Building:
    """The building with the piece added."""
    return building._add_cells(_cells_at(shape, tuple(where)))


@lru_cache(maxsize=16384)
def _cells_at(shape: Shape, where: tuple) -> tuple[Cell, ...]:
    # The cubes of a placement, sorted: a game places the same few again and again.
    return _placement(shape, where).cells


def build(frame: Frame, pieces: list[tuple]) -> Building | None:
    """Stack (shape, placement) pieces in order; None if any step breaks a building rule."""
    building = Building.empty()
    for shape, where in pieces:
        if not fits(building, frame, shape, where):
            return None
        building = place(building, shape, where)
    return building


def without(building: Building, index: int) -> Building:
    """The building with piece `index` taken away (later pieces move down one index)."""
    return building.remove(index)


def removable_pieces(building: Building) -> list[int]:
    """Pieces whose removal leaves everything else supported and each of their floors in one part."""
    known = building._removable  # kept with the (immutable) building
    if known is None:
        known = tuple(removable(building))
        object.__setattr__(building, "_removable", known)
    return list(known)
