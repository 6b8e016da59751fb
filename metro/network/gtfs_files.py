"""A GTFS feed's tables, read by partridge from a folder or a zip file, within stated bounds.

A feed is untrusted input: a zip's members are checked (names, count, unpacked sizes) before
anything is unpacked, and every table's rows are counted before it is parsed, so a huge feed is
refused with the bound it passed rather than read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from metro.network.model import FeedError, Origin

# The files a network is read from; the first four must be there.
REQUIRED_FILES = ("stops.txt", "routes.txt", "trips.txt", "stop_times.txt")
OPTIONAL_FILES = ("transfers.txt",)
# The columns each file must have (GTFS marks them required, or the network needs them).
REQUIRED_COLUMNS = {
    "stops.txt": ("stop_id", "stop_name"),
    "routes.txt": ("route_id", "route_type"),
    "trips.txt": ("route_id", "trip_id"),
    "stop_times.txt": ("trip_id", "stop_id", "stop_sequence"),
    "transfers.txt": ("from_stop_id", "to_stop_id"),
}

# Bounds: a city's rail network is a few thousand stops; a country's bus feed is refused here.
MAX_ROWS = {
    "stops.txt": 20_000,
    "routes.txt": 5_000,
    "trips.txt": 500_000,
    "stop_times.txt": 5_000_000,
    "transfers.txt": 100_000,
}
MAX_FILE_BYTES = 1 << 30  # one unpacked file
MAX_ZIP_MEMBERS = 1_000


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a table, read column by column (no dict a row: a feed has millions)."""

    table: Table
    index: int

    def get(self, column: str) -> str | None:
        """The row's value in `column`, None where it is empty or the file has no such column."""
        values = self.table.values.get(column)
        return None if values is None else values[self.index]


@dataclass(frozen=True)
class Table:
    """One file of a feed: its name and its values column by column (strings; None where a
    value is empty); a row's line in the file is its index + 2 (line 1 is the header)."""

    file: str
    values: dict[str, list[str | None]]
    size: int

    @property
    def rows(self) -> Iterator[Row]:
        """The rows in file order."""
        return (Row(self, index) for index in range(self.size))

    def origin(self, index: int, column: str | None = None, ident: str | None = None) -> Origin:
        """Where row `index` (and a column of it) is in the file."""
        return Origin(self.file, index + 2, column, ident)


@contextmanager
def feed_folder(path: str) -> Iterator[str]:
    """The folder holding the feed's files: `path` itself, or a zip unpacked (checked first)."""
    if os.path.isdir(path):
        yield path
        return
    if not os.path.isfile(path):
        raise FeedError(Origin(path), "no such file or folder")
    if not zipfile.is_zipfile(path):
        raise FeedError(Origin(path), "neither a folder nor a zip file (a GTFS feed is either)")
    folder = tempfile.mkdtemp(prefix="metro-gtfs-")
    try:
        _unpack(path, folder)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _unpack(path: str, folder: str) -> None:
    """Unpack the feed's own files (at the zip's top, or in one folder there) into `folder`."""
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        if len(members) > MAX_ZIP_MEMBERS:
            raise FeedError(
                Origin(path), f"{len(members):,} files in the zip; at most {MAX_ZIP_MEMBERS:,}"
            )
        wanted = {}
        for member in members:
            name = os.path.basename(member.filename)
            if member.is_dir() or name not in REQUIRED_FILES + OPTIONAL_FILES:
                continue
            if name in wanted:
                raise FeedError(
                    Origin(path),
                    f"two files called {name} ({wanted[name].filename}, {member.filename})",
                )
            if member.file_size > MAX_FILE_BYTES:
                raise FeedError(
                    Origin(path, column=None, ident=member.filename),
                    f"unpacks to {member.file_size:,} bytes; a file may have at most {MAX_FILE_BYTES:,}",
                )
            wanted[name] = member
        for name, member in wanted.items():
            with archive.open(member) as source, open(os.path.join(folder, name), "wb") as out:
                # copy in bounded steps: the size a zip declares is not proof of what it holds
                copied = 0
                while chunk := source.read(1 << 20):
                    copied += len(chunk)
                    if copied > MAX_FILE_BYTES:
                        raise FeedError(
                            Origin(path, ident=member.filename), "unpacks past its size"
                        )
                    out.write(chunk)


def read_tables(folder: str, feed: str) -> dict[str, Table]:
    """The feed's tables (the required ones and those optional ones present), checked for their
    required columns and row bounds; errors name the feed's file (`feed` is how to call it)."""
    import partridge  # the `import` extra

    missing = [name for name in REQUIRED_FILES if not os.path.isfile(os.path.join(folder, name))]
    if missing:
        raise FeedError(
            Origin(feed),
            f"no {', '.join(missing)} (a GTFS feed has {', '.join(REQUIRED_FILES)})",
        )
    present = [
        name
        for name in REQUIRED_FILES + OPTIONAL_FILES
        if os.path.isfile(os.path.join(folder, name))
    ]
    for name in present:
        _check_rows(os.path.join(folder, name), name)
    with warnings.catch_warnings():
        # partridge 1.1 renames columns with `inplace=True`, which pandas 3.1 warns will go in
        # pandas 4 (hence pandas<4 in the import extra)
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        raw = partridge.load_raw_feed(folder)
        frames = {name: getattr(raw, name.removesuffix(".txt")) for name in present}
    return {name: _table(name, frame) for name, frame in frames.items()}


def _check_rows(path: str, name: str) -> None:
    """Refuse a file with more rows than its bound, counting lines without parsing them."""
    bound = MAX_ROWS[name]
    with open(path, "rb") as handle:
        lines = 0
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            if lines > bound + 1:
                raise FeedError(
                    Origin(name),
                    f"more than {bound:,} rows; metro reads at most {bound:,} "
                    f"(pick the routes you want with a smaller feed)",
                )


def _table(name: str, frame) -> Table:
    columns = tuple(str(c).strip() for c in frame.columns)
    if not columns:
        raise FeedError(Origin(name, 1), "empty file: no header line")
    absent = [c for c in REQUIRED_COLUMNS[name] if c not in columns]
    if absent:
        raise FeedError(
            Origin(name, 1), f"no column {', '.join(absent)} (columns: {', '.join(columns)})"
        )
    values = {
        column: [_cell(v) for v in frame[raw].tolist()]
        for column, raw in zip(columns, frame.columns, strict=True)
    }
    return Table(name, values, len(frame))


def _cell(value) -> str | None:
    """A cell as text, None where it is empty (pandas reads an empty cell as NaN)."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    text = str(value).strip()
    return text or None
