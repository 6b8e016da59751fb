"""Names from a feed made fit for a map file's strings and quoted ids: a feed is untrusted
text, and a quote, a brace or a control character in it must not reach a rule file."""

from __future__ import annotations

import string

NAME_CHARACTERS = set(" .-'/&()") | set(string.digits)  # and letters of any script


def clean_name(text: str) -> str:
    """Letters, digits and a few marks kept, anything else a space; runs of spaces folded."""
    kept = "".join(c if c.isalnum() or c in NAME_CHARACTERS else " " for c in text)
    return " ".join(kept.split()) or "?"
