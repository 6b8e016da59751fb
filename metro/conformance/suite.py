"""The vectors as a versioned suite: convention probes, required and optional cases, the manifest.

A game may ship **convention probes** beside its rules (`conventions/*.metro`): variants that
change one thing the rule text leaves open (the order returned cards go under a pile, a limit
the rules never state) to another reading. A vector whose expectations change, or that no
longer replays, under some probe depends on metro's convention there: it is an `optional` case,
naming the probes it depends on. Every other vector is `required`: an engine that follows the
rules passes it whichever way it settles what the probes probe.

The manifest (`manifest.json`) names the game, its configuration, a digest of its rule files,
the protocol and format versions, the probes and how many cases are required and optional; the
suite's own digest identifies one set of vector files.
"""

from __future__ import annotations

import glob
import hashlib
import os
from dataclasses import dataclass

from compiler.resolve import patch_title, resolve

CONVENTIONS_DIR = "conventions"
UNORDERED = "unordered.txt"  # in CONVENTIONS_DIR: the fields whose order no view compares
REQUIRED, OPTIONAL = "required", "optional"
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "metro-vectors-manifest"
PROTOCOL_VERSION = 1  # docs/protocol.md


@dataclass(frozen=True)
class Probe:
    """A variant that reads one convention of the rules the other way."""

    name: str  # the file's stem: how vectors name it
    path: str
    title: str
    note: str  # the file's leading comment


def probes(game_dir: str) -> list[Probe]:
    """The convention probes shipped beside a game's rules, by file name."""
    found = []
    for path in sorted(glob.glob(os.path.join(game_dir, CONVENTIONS_DIR, "*.metro"))):
        title = patch_title(path)
        if title is None:
            raise ValueError(f"{path}:1:1: a convention probe is a variant of the game")
        found.append(
            Probe(os.path.splitext(os.path.basename(path))[0], path, title[0], _note(path))
        )
    return found


def unordered_fields(game_dir: str, fields: list[str]) -> list[str]:
    """The fields named in the game's `conventions/unordered.txt` (one a line, `#` comments):
    piles whose order never changes play, so the vectors compare them in views as multisets.
    A name that is not one of `fields` is a ValueError naming its file, line and column."""
    path = os.path.join(game_dir, CONVENTIONS_DIR, UNORDERED)
    if not os.path.isfile(path):
        return []
    names = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            name = line.split("#", 1)[0].strip()
            if not name:
                continue
            if name not in fields:
                column = line.index(name) + 1
                raise ValueError(f"{path}:{number}:{column}: {name!r} is not a field of the game")
            names.append(name)
    return names


def _note(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    comment = []
    for line in lines:
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#").strip())
    return " ".join(comment)


def rules_digest(game_path: str, variants=(), expansions=(), map_path: str | None = None) -> str:
    """`sha256:` and 16 hex digits over the texts of every file the configuration reads."""
    program = resolve(game_path, list(expansions), list(variants), map_path)
    digest = hashlib.sha256()
    for path in sorted(program.sources, key=os.path.basename):
        digest.update(os.path.basename(path).encode() + b"\0")
        digest.update(program.sources[path].text.encode() + b"\0")
    return "sha256:" + digest.hexdigest()[:16]


def suite_digest(texts: dict[str, str]) -> str:
    """`sha256:` and 16 hex digits over the vector files' names and texts."""
    digest = hashlib.sha256()
    for name in sorted(texts):
        digest.update(name.encode() + b"\0" + texts[name].encode() + b"\0")
    return "sha256:" + digest.hexdigest()[:16]
