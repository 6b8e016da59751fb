"""`metro fmt`: find .metro files, lay each out canonically, rewrite or report the ones that change."""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from dsl.diagnostics import CompileError
from dsl.formatter import format_text, formatting_off
from dsl.parser import RULE_SUFFIX, parse, read_source


@dataclass(frozen=True)
class Formatted:
    """One file's text before and after formatting."""

    path: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        """Whether formatting changes the file."""
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff from the file as it is to its canonical layout."""
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=self.path,
                tofile=f"{self.path} (formatted)",
            )
        )


def metro_files(paths: list[str]) -> Iterator[str]:
    """The .metro files named or found (in sorted order) under the directories named."""
    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        for folder, subfolders, files in os.walk(path):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
            for name in sorted(files):
                if name.endswith(RULE_SUFFIX):
                    yield os.path.join(folder, name)


def format_file(path: str) -> Formatted:
    """Read and format one rule file (CompileError if it cannot be read or parsed); a file
    that asks to keep its layout (`# metro fmt: off`) is only checked to parse."""
    text = read_source(path)
    if formatting_off(text):
        parse(text, path)
        return Formatted(path, text, text)
    return Formatted(path, text, format_text(text, path))


def format_stdin(text: str) -> str:
    """The canonical layout of rule text read from standard input (as it is if it says off)."""
    name = f"<stdin>{RULE_SUFFIX}"
    if formatting_off(text):
        parse(text, name)
        return text
    return format_text(text, name)


def write_atomically(path: str, text: str) -> None:
    """Replace a file's text in one step (a failure leaves the old file), keeping its mode."""
    folder = os.path.dirname(path) or "."
    mode = os.stat(path).st_mode & 0o7777
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".fmt-", suffix=RULE_SUFFIX)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


__all__ = ["CompileError", "Formatted", "format_file", "format_stdin", "metro_files"]
