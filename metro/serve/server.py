"""Starting the server: the catalog, the store, the service and the app, run by uvicorn."""

from __future__ import annotations

import sys

import uvicorn
from sqlalchemy.engine import make_url

from metro.serve.app import create_app
from metro.serve.catalog import Catalog
from metro.serve.limits import ABSENT_SECONDS, MAX_BODY_BYTES
from metro.serve.service import MatchService
from metro.serve.store import Store, default_url

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def run(
    games: list[str], host: str, port: int, db: str | None, absent_seconds: float | None
) -> None:
    """Serve `games` (all shipped games if none) at host:port until interrupted."""
    url = db or default_url()
    absent = ABSENT_SECONDS if absent_seconds is None else absent_seconds
    loopback = host in LOOPBACK_HOSTS
    # Requests to a loopback server must name it so (a page elsewhere cannot rebind a name of
    # its own to this machine); a server others reach may be named anything.
    hosts = list(LOOPBACK_HOSTS) if loopback else ["*"]
    app = create_app(MatchService(Store(url), Catalog(games), absent), hosts)
    if not loopback:
        print(
            f"metro serve: listening on {host}: anyone who can reach it can create matches",
            file=sys.stderr,
        )
    print(
        f"metro serve: http://{host}:{port}/ (matches in {make_url(url).render_as_string(hide_password=True)})",
        flush=True,
    )
    uvicorn.run(app, host=host, port=port, ws_max_size=MAX_BODY_BYTES, log_level="warning")
