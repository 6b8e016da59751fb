"""The module's table of rule files: each named relative to the game's folder, by index.

A generated module names no path of the machine it was compiled on: it writes the table once
(`SOURCES`), and every location in it is an index into the table with a line (and column),
printed as `_F<index>`, the name the module binds to that file's path when it runs
(`runtime.lib.source_paths`: the game's folder, from the loader's `<metro:GAME_FILE>` module
name, joined to the recorded names). A location with a column is a constant `_L<index>_<line>_<col>`
the module binds once to `(_F<index>, line, col)`.
"""

from __future__ import annotations

import os


class SourceTable:
    """The files a game's locations name, by index; the names relative to the game's folder."""

    def __init__(self, game_file: str = "", files=()):
        # Without a game file (code generated alone, in tests) a file is named by its base name.
        self.folder = os.path.dirname(os.path.abspath(game_file)) if game_file else None
        self.names: list[str] = []
        self._index: dict[str, int] = {}
        for name in sorted({self.relative(f) for f in files}):
            self._index[name] = len(self.names)
            self.names.append(name)
        self.game = self.index(game_file) if game_file else None

    def relative(self, file: str) -> str:
        """`file`'s name relative to the game's folder, with forward slashes."""
        if self.folder is None:
            return os.path.basename(file)
        return os.path.relpath(os.path.abspath(file), self.folder).replace(os.sep, "/")

    def index(self, file: str) -> int:
        """The index of `file` in the table (added at the end when it is not there yet)."""
        name = self.relative(file)
        if name not in self._index:
            self._index[name] = len(self.names)
            self.names.append(name)
        return self._index[name]

    def ref(self, file: str) -> str:
        """The Python name the module binds to `file`'s path (`_F<index>`)."""
        return ref(self.index(file))

    def name(self, file: str) -> str:
        """`file` as the module's table names it."""
        return self.names[self.index(file)]


def ref(index: int) -> str:
    """The Python name of the table's file `index` in a generated module."""
    return f"_F{index}"


# A location (file index, line, column) is a module-level constant named after it, bound once
# when the module runs: a charge passes it as one global read, not a tuple built per call.
LOCATION_PREFIX = "_L"


def location_name(index: int, line: int, col: int) -> str:
    """The Python name a generated module binds to the location `(_F<index>, line, col)`."""
    return f"{LOCATION_PREFIX}{index}_{line}_{col}"


def location_of(name: str) -> tuple[int, int, int] | None:
    """The (file index, line, column) a name made by `location_name` stands for, else None."""
    if not name.startswith(LOCATION_PREFIX):
        return None
    parts = name[len(LOCATION_PREFIX) :].split("_")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    index, line, col = (int(part) for part in parts)
    return index, line, col
