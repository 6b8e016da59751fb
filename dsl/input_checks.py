"""What a rule file must be before it is parsed: a `.metro` file, UTF-8, small, no control characters."""

from __future__ import annotations

import re

from dsl.diagnostics import INPUT, Diagnostics, whole_file
from dsl.files import UnreadableFile, read_regular
from dsl.source import SourceFile, Span

# Documented limits: a larger file is refused with a diagnostic.
MAX_FILE_BYTES = 2 * 1024 * 1024
RULE_SUFFIX = ".metro"

# C0 controls other than tab, LF, form feed and CR; DEL; the C1 controls; and lone
# surrogates, which a str from the API may hold though no UTF-8 file can.
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def read_source(path: str) -> str:
    """Read a rule file as UTF-8; raise CompileError naming the file on failure."""
    # Only `.metro` files are read, so a diagnostic can never quote any other file.
    if not path.endswith(RULE_SUFFIX):
        _fail_input(path, f"a rule file's name must end in `{RULE_SUFFIX}`")
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except UnreadableFile as error:
        _fail_input(path, error.reason)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data[: error.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        diags = Diagnostics()
        diags.error(INPUT, "the file is not valid UTF-8 text", Span.point(path, line, col))
        diags.raise_if_errors({})
        raise


def check_text(source: SourceFile) -> None:
    """Raise CompileError if the file's text is over MAX_FILE_BYTES or holds a control character."""
    text, filename = source.text, source.path
    diags = Diagnostics()
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        diags.error(
            INPUT,
            f"file is larger than the limit of {MAX_FILE_BYTES // 1024 // 1024} MiB",
            whole_file(filename),
        )
        diags.raise_if_errors({filename: source})
    bad = _first_control_character(text)
    if bad is not None:
        line, col, char = bad
        what = (
            "half of a surrogate pair (not UTF-8 text)"
            if "\ud800" <= char <= "\udfff"
            else "control character"
        )
        diags.error(
            INPUT,
            f"the file contains a {what}, U+{ord(char):04X} (binary data?)",
            Span.point(filename, line, col),
        )
        diags.raise_if_errors({filename: source})


def _fail_input(path: str, message: str):
    diags = Diagnostics()
    diags.error(INPUT, message, whole_file(path))
    diags.raise_if_errors({})


def _first_control_character(text: str) -> tuple[int, int, str] | None:
    found = _CONTROL.search(text)
    if found is None:
        return None
    index = found.start()
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1, found.group()
