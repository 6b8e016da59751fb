"""MkDocs hook: the command line page without an internal value of click."""

from __future__ import annotations

# mkdocs-click 0.9 prints click >= 8.3's "no default" sentinel as a default
# (https://github.com/mkdocs/mkdocs-click/pull/95, not released): show such cells empty.
_UNSET_DEFAULT = "<td><code>Sentinel.UNSET</code></td>"


def on_page_content(html: str, **_) -> str:
    """The command line page without click's sentinel in its Default column."""
    return html.replace(_UNSET_DEFAULT, "<td></td>")
