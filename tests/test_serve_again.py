"""Playing a finished match again in `metro serve`: the same seats, a new deal, one new match."""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from sqlalchemy import create_engine, text

from tests.serve_helpers import Server, short_game
from tests.test_serve import HUMAN, STEP_WAIT, valid
from tests.test_serve_browser import WAIT_MS


@pytest.fixture()
def short(tmp_path):
    """The folder of the short game."""
    return short_game(tmp_path)


def finished(server: Server, seats: list[dict], seed=1) -> tuple[str, dict[int, str]]:
    """A short match played to its end through the API: its id and the people's tokens."""
    created = server.create("short", seats, seed=seed)
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    for seat in tokens:
        path = f"/api/matches/{match_id}?token={tokens[seat]}"
        deadline = time.monotonic() + 30
        while seat not in (doc := server.get(path))["to_move"]:
            assert time.monotonic() < deadline, doc
            time.sleep(STEP_WAIT)
        body = {"token": tokens[seat], "action": "say(2)", "decisions": doc["decisions"]}
        assert server.call("POST", f"/api/matches/{match_id}/actions", body).status == 200
    deadline = time.monotonic() + 30
    while not server.get(f"/api/matches/{match_id}")["over"]:
        assert time.monotonic() < deadline
        time.sleep(STEP_WAIT)
    return match_id, tokens


def again(server: Server, match_id: str, token) -> object:
    """Ask to play a match again."""
    return server.call("POST", f"/api/matches/{match_id}/again", {"token": token})


def test_the_seats_of_a_finished_match_play_again_with_their_own_tokens(tmp_path, short):
    server = Server(str(tmp_path / "matches.sqlite3"), (short,))
    try:
        created = server.create("short", [HUMAN, HUMAN], seed=3)
        early = created["seats"][0]["token"]
        assert again(server, created["match"], early).status == 409  # not over yet
        match_id, tokens = finished(server, [HUMAN, {"bot": "random"}], seed=5)
        old = f"/api/matches/{match_id}"
        assert valid("match", server.get(old))["next"] is None
        assert again(server, match_id, "not a token").status == 403
        assert again(server, match_id, early).status == 403  # another match's seat
        assert again(server, match_id, None).status == 400
        answer = again(server, match_id, tokens[0])
        assert answer.status == 200, answer.doc
        next_id = answer.doc["match"]
        assert next_id != match_id
        assert answer.doc["url"] == f"/play/{next_id}?token={tokens[0]}"
        # asked again (by the same seat, or once more): the same new match
        assert again(server, match_id, tokens[0]).doc["match"] == next_id
        # every page of the old match, seats' and spectators', learns where its seats went
        assert valid("match", server.get(f"{old}?token={tokens[0]}"))["next"] == next_id
        assert server.get(old)["next"] == next_id
        # the new match: the same game and seats (the bot still a bot), its first position
        new = valid("match", server.get(f"/api/matches/{next_id}?token={tokens[0]}"))
        assert new["seat"] == 0 and new["game"] == "short" and not new["over"]
        assert [s["bot"] for s in new["seats"]] == [None, "random"]
        assert new["decisions"] == 0 and new["next"] is None
        body = {"token": tokens[0], "action": "say(3)", "decisions": 0}
        assert server.call("POST", f"/api/matches/{next_id}/actions", body).status == 200
        with sqlite3.connect(server.database) as db:
            stored = dict(db.execute("SELECT id, next_match FROM matches").fetchall())
        assert stored[match_id] == next_id and stored[next_id] is None
        assert len(stored) == 3
    finally:
        server.stop()


def test_two_seats_asking_at_once_make_one_new_match_on_two_servers(shared_database, short):
    """Two server processes over one database (SQLite, PostgreSQL): both seats ask at the same
    moment, one through each; they get the same new match, and either server's pages of the old
    match hear of it."""
    servers = [Server(shared_database, (short,)), Server(shared_database, (short,))]
    try:
        match_id, tokens = finished(servers[0], [HUMAN, HUMAN])
        servers[1].get(f"/api/matches/{match_id}")  # the second server holds the match too
        with ThreadPoolExecutor(2) as pool:
            asked = [pool.submit(again, servers[seat], match_id, tokens[seat]) for seat in (0, 1)]
            answers = [future.result() for future in asked]
        assert [a.status for a in answers] == [200, 200], [a.doc for a in answers]
        next_id = answers[0].doc["match"]
        assert answers[1].doc["match"] == next_id
        for server in servers:
            assert server.get(f"/api/matches/{match_id}")["next"] == next_id
        engine = create_engine(servers[0].url)
        with engine.connect() as db:
            assert db.execute(text("SELECT count(*) FROM matches")).scalar_one() == 2
        engine.dispose()
        seat_one = servers[0].get(f"/api/matches/{next_id}?token={tokens[1]}")
        assert seat_one["seat"] == 1
    finally:
        for server in servers:
            server.stop()


def test_a_database_from_before_play_again_gains_its_column(tmp_path, short):
    """A database written by a server that knew nothing of playing again is opened as it is:
    the column is added, its matches kept."""
    database = str(tmp_path / "old.sqlite3")
    server = Server(database, (short,))
    match_id, tokens = finished(server, [HUMAN, HUMAN])
    server.stop()
    with sqlite3.connect(database) as db:
        db.execute("ALTER TABLE matches DROP COLUMN next_match")
    server = Server(database, (short,))
    try:
        assert server.get(f"/api/matches/{match_id}")["over"]
        assert again(server, match_id, tokens[1]).status == 200
    finally:
        server.stop()


def test_a_person_plays_again_from_the_page_and_the_other_follows_the_link(
    browser, tmp_path, short
):
    """In the browser: the finished match's pages offer playing again; one person's click takes
    them to the new match in their seat, and the other's page then links to it, in theirs."""
    server = Server(str(tmp_path / "matches.sqlite3"), (short,))
    try:
        match_id, tokens = finished(server, [HUMAN, HUMAN])
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        pages = [context.new_page() for _ in tokens]
        for seat, page in enumerate(pages):
            page.goto(f"{server.base}/play/{match_id}?token={tokens[seat]}")
            page.wait_for_selector(
                "#again:not([hidden]) #again-button:not([hidden])", timeout=WAIT_MS
            )
            assert page.locator("#next-link").is_hidden()
            assert page.title() == "Short · metro"  # nobody's decision once it is over
        pages[0].click("#again-button")
        pages[0].wait_for_url(lambda url: match_id not in url, timeout=WAIT_MS)
        pages[0].wait_for_selector("#status:not(:empty)", timeout=WAIT_MS)
        next_id = pages[0].get_attribute("body", "data-match")
        assert next_id != match_id and "you are P1" in pages[0].inner_text("#status")
        assert pages[0].title() == "Your decision · Short · metro"
        # the other page hears of it over its websocket: a link to the new match, in its seat
        pages[1].wait_for_selector("#next-link:not([hidden])", timeout=WAIT_MS)
        assert pages[1].locator("#again-button").is_hidden()
        pages[1].click("#next-link")
        pages[1].wait_for_selector("#status:not(:empty)", timeout=WAIT_MS)
        assert pages[1].get_attribute("body", "data-match") == next_id
        assert "you are P2" in pages[1].inner_text("#status")
        context.close()
    finally:
        server.stop()
