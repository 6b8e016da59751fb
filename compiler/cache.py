"""Generated modules cached on disk by a hash of every input plus the compiler version."""

from __future__ import annotations

import hashlib
import os
import tempfile

from compiler.emit import COMPILER_VERSION

CHECK_PREFIX = "# metro-checksum: "


def cache_dir() -> str:
    """Where generated modules are kept ($METRO_CACHE_DIR or ~/.cache/metro)."""
    base = os.environ.get("METRO_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "metro")
    return base


def input_files(game_file: str, extra: list[str]) -> list[str]:
    """Every .metro file that can influence a compile: the game's directory tree and named files."""
    root = os.path.dirname(os.path.abspath(game_file))
    files = set()
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".metro"):
                files.add(os.path.join(folder, name))
    for path in extra:
        if path and os.path.isfile(path):
            files.add(os.path.abspath(path))
    return sorted(files)


def cache_key(game_file: str, extra: list[str], options: str) -> str:
    """sha256 of the compiler version, the grammar, the options and every input file."""
    digest = hashlib.sha256()
    digest.update(COMPILER_VERSION.encode())
    grammar = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grammar",
                           "metro.lark")
    with open(grammar, "rb") as handle:
        digest.update(handle.read())
    for folder in ("compiler", "compiler/templates"):
        base = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), folder)
        for name in sorted(os.listdir(base)):
            if name.endswith((".py", ".jinja")):
                with open(os.path.join(base, name), "rb") as handle:
                    digest.update(name.encode() + handle.read())
    digest.update(options.encode())
    # The game file itself is part of the key: two games may share a directory.
    digest.update(os.path.abspath(game_file).encode() + b"\0")
    for path in input_files(game_file, extra):
        digest.update(path.encode() + b"\0")
        with open(path, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


def load(key: str) -> str | None:
    """The cached module text, or None if absent, corrupt or stale (never trusted blindly)."""
    path = os.path.join(cache_dir(), f"{key}.py")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    body, _, last = text.rstrip("\n").rpartition("\n")
    if not last.startswith(CHECK_PREFIX):
        return None
    if hashlib.sha256(body.encode()).hexdigest() != last[len(CHECK_PREFIX):]:
        return None
    return body + "\n"


def store(key: str, source: str) -> None:
    """Write a module atomically with its checksum (failures only cost a recompile)."""
    folder = cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
        body = source.rstrip("\n")
        text = body + "\n" + CHECK_PREFIX + hashlib.sha256(body.encode()).hexdigest() + "\n"
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, os.path.join(folder, f"{key}.py"))
    except OSError:
        pass
