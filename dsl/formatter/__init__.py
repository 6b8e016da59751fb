"""`metro fmt`: one canonical layout for .metro files, keeping every comment.

`format_text` parses the text with the compiler's parser first (so a file with errors gets
the same diagnostics as `metro check`), then lays out the concrete syntax tree
(`layout.py`) and prints it (`doc.py`) in at most `WIDTH` columns where it can.
"""

from __future__ import annotations

import sys

from dsl.formatter.cst import CommentTable, parse_cst
from dsl.formatter.doc import render
from dsl.formatter.layout import FormatterGap, Layout
from dsl.parser import parse

WIDTH = 100  # columns, as the project's Python
OFF = "# metro fmt: off"  # in a file's opening comments: `metro fmt` leaves the file as it is

__all__ = ["OFF", "WIDTH", "FormatterGap", "format_text", "formatting_off"]


def formatting_off(text: str) -> bool:
    """Whether a file asks to keep its layout: `# metro fmt: off` among its opening comments
    (files a build script writes keep the script's layout, so the script can check them)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return False
        if stripped.startswith(OFF):
            return True
    return False


def format_text(text: str, filename: str = "<text>.metro") -> str:
    """The canonical layout of a rule file's text; CompileError if it does not parse."""
    parse(text, filename)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 10_000))  # layouts recurse once per nesting level
    try:
        tree = parse_cst(text)
        comments = CommentTable.of(text, tree)
        doc = Layout(comments).fmt(tree)
    finally:
        sys.setrecursionlimit(old_limit)
    if comments.leftover() or comments.at_end is not None:
        raise FormatterGap("the formatter left a comment out")
    return render(doc, WIDTH)
