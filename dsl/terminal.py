"""Text from rule files made safe for a terminal: control and escape sequences are shown, not sent."""

from __future__ import annotations


def printable(text: str, keep: str = "") -> str:
    """`text` with every unprintable character (C0, DEL, C1, bidi controls...) written as an escape.

    `keep` names characters to leave as they are (e.g. "\\n" for a multi-line message whose
    line breaks are ours). The escapes are Python's (`\\x1b`, `\\u202e`), so nothing is lost.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else _escape(c) for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
