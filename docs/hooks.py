"""MkDocs hook: pages that show a section of README.md (`<!-- readme: Title -->`), so each fact
is written once, and rewritten links into the repository."""

from __future__ import annotations

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"<!-- readme: (.+?) -->")


def readme_section(title: str) -> str:
    """The text of README.md's `## title` section, without its heading."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if found is None:
        raise ValueError(f"README.md has no section '## {title}'")
    return found.group(1).strip() + "\n"


def on_page_markdown(markdown: str, **_) -> str:
    """Replace each readme marker with the section it names."""
    return MARKER.sub(lambda m: readme_section(m.group(1)), markdown)


# mkdocs-click 0.9 prints click >= 8.3's "no default" sentinel as a default
# (https://github.com/mkdocs/mkdocs-click/pull/95, not released): show such cells empty.
_UNSET_DEFAULT = "<td><code>Sentinel.UNSET</code></td>"


def on_page_content(html: str, **_) -> str:
    """The command line page without click's sentinel in its Default column."""
    return html.replace(_UNSET_DEFAULT, "<td></td>")
