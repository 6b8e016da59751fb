"""Writing pictures: SVG text, or PNG through cairosvg (the optional `render` extra)."""

from __future__ import annotations

from metro.render.model import Scene
from metro.render.svg import scene_bounds, to_svg

PNG_SCALE = 1.0  # PNG pixels per SVG pixel (the SVG is WIDTH_PX wide)


class PictureError(Exception):
    """A picture cannot be written: an unknown file type, or PNG without its converter."""


def picture_bytes(scene: Scene, label_size: float, kind: str) -> bytes:
    """The picture as an SVG document or a PNG image (`kind`: "svg" or "png")."""
    svg = to_svg(scene, scene_bounds(scene, label_size), label_size)
    if kind == "svg":
        return svg.encode("utf-8")
    try:
        import cairosvg
    except ImportError:
        raise PictureError(
            "PNG pictures need cairosvg, which is not installed: "
            "pip install 'metro-games[render]' (or write an .svg file)"
        ) from None
    except OSError as error:  # cairosvg is there but its Cairo library is not
        raise PictureError(f"PNG pictures need the Cairo library: {error}") from None
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=PNG_SCALE)


def picture_kind(path: str) -> str:
    """The kind of picture a file name asks for ("svg" or "png"); PictureError for any other."""
    lower = path.lower()
    for kind in ("svg", "png"):
        if lower.endswith("." + kind):
            return kind
    raise PictureError(f"a picture's file name ends in .svg or .png, not {path!r}")


def write_picture(scene: Scene, label_size: float, path: str) -> None:
    """Write a scene to `path` (.svg or .png)."""
    data = picture_bytes(scene, label_size, picture_kind(path))
    with open(path, "wb") as handle:
        handle.write(data)
