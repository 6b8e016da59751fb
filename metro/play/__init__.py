"""`metro play`: the `session` (answers, undo, hot seat), its `menus` and `screen`, the
`saved_games`, and the `moves` in words (shared with replays and the server)."""

from __future__ import annotations

import warnings


def __getattr__(name: str):
    # `from metro.play import Session` named the module this package replaced.
    if name == "Session":
        warnings.warn(
            "metro.play.Session has moved to metro.play.session.Session; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        from metro.play.session import Session

        return Session
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
