"""A match saved as a `metro play` save, for the server's operator (`metro serve --export`).

A save holds the whole position: every hand, the order of every hidden pile and the state of
the generator that decides what comes next. Any player holding it would know what the others
hold and what will be drawn, so the server never offers it over the network; its operator,
who can read the database anyway, writes it with the command line.
"""

from __future__ import annotations

from metro.play.saved_games import Setup, write_save
from metro.serve.catalog import Catalog
from metro.serve.store import Store, live_decisions


class ExportError(Exception):
    """A match that cannot be saved: none by that id, a game not offered, or no person in it."""


def export_match(store: Store, catalog: Catalog, match_id: str, path: str) -> None:
    """Write match `match_id`'s position now, with its people and bots, as a `metro play` save."""
    record = store.match(match_id)
    if record is None:
        raise ExportError(f"no match '{match_id}' in this database")
    entry = catalog.entries.get(record.game)
    if entry is None:
        raise ExportError(f"the match plays '{record.game}': name it among the games to serve")
    # people, also in a seat kept for someone invited and not yet taken: at the terminal, a person
    humans = tuple(seat for seat, s in enumerate(record.seats) if s.bot is None)
    if not humans:
        raise ExportError("a match of bots alone has nobody to continue it in `metro play`")
    game = catalog.game(record.game, record.variants, record.expansions)
    history = [(d.seat, d.action) for d in live_decisions(store.rows(match_id))]
    state = game.replay(record.players, record.seed, history)
    setup = Setup(
        entry.path,
        record.variants,
        record.expansions,
        None,
        humans,
        {seat: s.bot for seat, s in enumerate(record.seats) if s.bot is not None},
        str(record.seed),
    )
    write_save(path, setup, state)
