"""`metro serve`: the web server (its libraries are imported only inside the command)."""

from __future__ import annotations

import click

from loader.games import UnknownGame
from metro.cli.options import (
    Failure,
)


@click.command("serve")
@click.argument("games", nargs=-1, metavar="[GAME]...")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="The port to listen on.",
)
@click.option(
    "--db",
    default=None,
    metavar="URL",
    help="The database (a SQLAlchemy URL); default: a SQLite file in the user's data directory.",
)
@click.option(
    "--absent-after",
    "absent_seconds",
    default=None,
    type=click.FloatRange(0),
    metavar="SECONDS",
    help="A bot stands in for a person whose page has been closed this long (0: never; default 60).",
)
@click.option(
    "--export",
    "export",
    nargs=2,
    default=None,
    metavar="MATCH FILE",
    help="Serve nothing: save match MATCH of the database as FILE, for `metro play --load FILE`.",
)
def serve_command(
    games: tuple[str, ...],
    host: str,
    port: int,
    db: str | None,
    absent_seconds: float | None,
    export: tuple[str, str] | None,
) -> None:
    """Play games in the browser: a lobby, matches with people and bots (all shipped games if none given).

    Needs the serve extra: pip install 'metro-games[serve]'.
    """
    if export is not None:
        _export_match(list(games), db, *export)
        return
    try:
        from metro.serve.server import run  # starlette, uvicorn and sqlalchemy load only now
    except ImportError as error:
        if str(error.name).split(".")[0] not in ("starlette", "uvicorn", "sqlalchemy", "anyio"):
            raise
        raise Failure(
            "error: `metro serve` needs the serve extra: pip install 'metro-games[serve]'"
        ) from None
    try:
        run(list(games), host, port, db, absent_seconds)
    except UnknownGame as error:
        raise Failure(f"error: {error}") from None


def _export_match(games: list[str], db: str | None, match_id: str, path: str) -> None:
    """`metro serve --export`: a match of the database as a `metro play` save."""
    try:
        from metro.serve.catalog import Catalog
        from metro.serve.export import ExportError, export_match
        from metro.serve.store import Store, default_url
    except ImportError as error:
        if str(error.name).split(".")[0] != "sqlalchemy":
            raise
        raise Failure(
            "error: `metro serve` needs the serve extra: pip install 'metro-games[serve]'"
        ) from None
    try:
        export_match(Store(db or default_url()), Catalog(games), match_id, path)
    except (ExportError, UnknownGame) as error:
        raise Failure(f"error: {error}") from None
    except OSError as error:
        raise Failure(f"error: cannot write {path}: {error.strerror or error}") from None
    click.echo(f"Saved match {match_id} to {path}. Continue it with: metro play --load {path}")
