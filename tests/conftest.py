"""Shared fixtures: compiled games (from the on-disk cache) and the list of shipped games."""

from __future__ import annotations

import os
import shutil

import pytest

from loader import load_game

# Deliberately broken rule files live under data/; they are inputs of tests, not games to collect.
collect_ignore_glob = ["data/*"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES_DIR = os.path.join(ROOT, "games")


SHIPPED_CONFIGURATIONS = [  # (game, expansions, variants): every shipped game, expansion, variant
    ("ticket_to_ride", (), ()),
    ("tokyo_metro", (), ()),
    ("tokyo_metro", ("osaka",), ()),
    ("tokyo_metro", ("drinks",), ()),
    ("tokyo_metro", ("osaka", "drinks"), ()),
    ("tokyo_metro", ("drinks",), ("cards-osaka",)),
    ("tokyo_jutaku", (), ()),
    ("tokyo_jutaku", (), ("tower",)),
    ("izakaya", (), ()),
    ("izakaya", (), ("corner-chips",)),
    ("shopping_centre", (), ()),
    ("shopping_centre", (), ("balance",)),
    ("tokyo_jutaku", ("bottle_bonus",), ()),
    ("jidohanbaiki", (), ()),
    ("jidohanbaiki", (), ("strategic",)),
    ("jidohanbaiki", (), ("dice",)),
]


def game_dirs() -> list[str]:
    """Every shipped game directory (those with a rules.metro)."""
    return sorted(
        os.path.join("games", name)
        for name in os.listdir(GAMES_DIR)
        if os.path.isfile(os.path.join(GAMES_DIR, name, "rules.metro"))
    )


@pytest.fixture(scope="session")
def ttr():
    """Ticket to Ride, compiled."""
    return load_game(os.path.join(ROOT, "games", "ticket_to_ride"))


def pytest_addoption(parser):
    """`--nightly`: the larger profile (10x the random games, fuzz cases and Hypothesis examples)."""
    parser.addoption("--nightly", action="store_true", help="run the larger nightly test profile")


def pytest_configure(config):
    """Set the profile's environment before test modules read it."""
    config.addinivalue_line("markers", "nightly: a slow test run only with --nightly")
    if config.getoption("--nightly", default=False):
        os.environ.setdefault("METRO_BATTERY_GAMES", "1000")
        os.environ.setdefault("METRO_NIGHTLY", "1")
        os.environ.setdefault("METRO_PROFILE", "nightly")


def pytest_collection_modifyitems(config, items):
    """Tests marked `nightly` run only in the nightly profile."""
    if config.getoption("--nightly", default=False):
        return
    skip = pytest.mark.skip(reason="nightly profile only (pytest --nightly)")
    for item in items:
        if "nightly" in item.keywords:
            item.add_marker(skip)


# Debian's Chromium, as the browser tests drive it (never a browser of Playwright's own); the
# background-networking flags keep it off a network this machine does not have.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright (skips without either)."""
    playwright = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM) or shutil.which(CHROMIUM) is None:
        pytest.skip("Debian's chromium is not installed")
    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_database(request, tmp_path):
    """A database several servers share: a SQLite file, or a PostgreSQL server of our own."""
    from tests.serve_helpers import postgresql

    if request.param == "sqlite":
        yield str(tmp_path / "matches.sqlite3")
        return
    with postgresql() as url:
        if url is None:
            pytest.skip("no PostgreSQL server programs (or no psycopg) on this machine")
        yield url
