"""Files the tools write for people (test modules, vectors): whole or not at all, with the usual mode."""

from __future__ import annotations

import os
import secrets


def write_output(path: str, text: str) -> None:
    """Write `text` to `path` in one step (a failure leaves what was there), mode 0o666 less the umask."""
    folder = os.path.dirname(path) or "."
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    # os.open applies the umask as to any new file (tempfile.mkstemp would make it 0o600).
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
