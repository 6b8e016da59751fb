"""What the HTML reports share: the templates' jinja2 environment, matplotlib plots as data URIs, numbers."""

from __future__ import annotations

import base64
import io
import math
from functools import lru_cache

import jinja2

DPI = 96


class PlotsMissing(RuntimeError):
    """A report was asked for but matplotlib (the report extra) is not installed."""


def require_plots():
    """The pyplot module with a display-free backend, or PlotsMissing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError as error:
        raise PlotsMissing(
            "--report needs matplotlib: pip install 'metro-games[report]'"
        ) from error
    return pyplot


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The templates under metro/templates, HTML-autoescaped."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("metro", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def number(value: float, digits: int = 3) -> str:
    """A number to `digits` significant digits; a dash for one that is not finite."""
    return "—" if not math.isfinite(value) else f"{value:.{digits}g}"


def write_page(text: str, path: str) -> None:
    """Write a report's HTML text to `path` (OSError if it cannot be written)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def figure_uri(figure) -> str:
    """A matplotlib figure as a PNG data URI (the figure is closed)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    require_plots().close(figure)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
