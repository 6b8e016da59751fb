"""Starting the server: the catalog, the store, the service and the app, run by uvicorn."""

from __future__ import annotations

import uvicorn
from sqlalchemy.engine import make_url

from metro.serve.app import create_app
from metro.serve.catalog import Catalog
from metro.serve.limits import ABSENT_SECONDS, MAX_BODY_BYTES
from metro.serve.service import MatchService
from metro.serve.store import Store, default_url


def run(
    games: list[str], host: str, port: int, db: str | None, absent_seconds: float | None
) -> None:
    """Serve `games` (all shipped games if none) at host:port until interrupted."""
    url = db or default_url()
    absent = ABSENT_SECONDS if absent_seconds is None else absent_seconds
    app = create_app(MatchService(Store(url), Catalog(games), absent))
    print(
        f"metro serve: http://{host}:{port}/ (matches in {make_url(url).render_as_string(hide_password=True)})",
        flush=True,
    )
    uvicorn.run(app, host=host, port=port, ws_max_size=MAX_BODY_BYTES, log_level="warning")
