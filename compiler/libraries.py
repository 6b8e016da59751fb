"""Shared component libraries: folders of games/components/, used by name from rule files.

`use library "cards"` names a library, never a path: the name is one lower-case word, and
it resolves to `<library root>/<name>/library.metro` (the root is the `games/components` folder
shipped beside the compiler). Everything a library reads stays inside its own folder.
"""

from __future__ import annotations

import os
import re

from dsl.input_checks import RULE_SUFFIX

# Beside compiler/ in a checkout and in an installed wheel alike (games/ is a package of its own).
LIBRARY_ROOT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "games", "components"
)
LIBRARY_FILE = "library.metro"
# A name, never a path: no separators, dots, capitals or spaces can get in.
LIBRARY_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


def valid_library_name(name: str) -> bool:
    """True if `name` can name a library (one lower-case word of letters, digits and _)."""
    return LIBRARY_NAME.fullmatch(name) is not None


def available_libraries(root: str = LIBRARY_ROOT) -> list[str]:
    """The libraries under `root`: folders with a valid name that hold a library.metro."""
    if not os.path.isdir(root):
        return []
    return sorted(
        name
        for name in os.listdir(root)
        if valid_library_name(name) and os.path.isfile(os.path.join(root, name, LIBRARY_FILE))
    )


def library_files(root: str = LIBRARY_ROOT) -> list[str]:
    """Every rule file under `root` (what the module cache's key must cover)."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        found.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(RULE_SUFFIX))
    return found
