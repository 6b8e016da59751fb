"""A match's chat in `metro serve`: seats write, everyone reads, nothing acknowledged is lost."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from metro.serve.limits import (
    CATCH_UP_SECONDS,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES,
    MESSAGES_PER_MINUTE,
    MESSAGES_SHOWN,
)
from metro.serve.store import MessageRecord, Store
from tests.serve_helpers import Server, short_game
from tests.test_serve import HUMAN, valid
from tests.test_serve_browser import WAIT_MS


@pytest.fixture()
def short(tmp_path):
    """The folder of the short game."""
    return short_game(tmp_path)


def say(server: Server, match_id: str, token, text) -> object:
    """Send a message to a match's chat."""
    return server.call("POST", f"/api/matches/{match_id}/chat", {"token": token, "text": text})


def chat(doc: dict) -> list[tuple[int, str]]:
    """A document's chat as (seat, text)."""
    return [(m["seat"], m["text"]) for m in valid("match", doc)["chat"]]


def test_seats_write_everyone_reads_and_a_killed_server_keeps_what_it_acknowledged(tmp_path, short):
    database = str(tmp_path / "matches.sqlite3")
    server = Server(database, (short,))
    created = server.create("short", [HUMAN, HUMAN])
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    answer = say(server, match_id, tokens[0], "  good luck!\n<b>have fun</b>  ")
    assert answer.status == 200, answer.doc
    assert chat(answer.doc) == [(0, "good luck!\n<b>have fun</b>")]  # trimmed, kept as text
    assert say(server, match_id, tokens[1], "thanks").status == 200
    said = [(0, "good luck!\n<b>have fun</b>"), (1, "thanks")]
    for query in (f"?token={tokens[0]}", f"?token={tokens[1]}", ""):
        assert chat(server.get(f"/api/matches/{match_id}{query}")) == said
    # refused, changing nothing: no seat, a spectator, nothing said, too long, control characters
    assert say(server, match_id, "not a token", "hi").status == 403
    assert say(server, match_id, None, "hi").status == 400
    for text in ("", "   ", "x" * (MAX_MESSAGE_CHARS + 1), "bell\a", None, 7):
        assert say(server, match_id, tokens[0], text).status == 400, text
    assert chat(server.get(f"/api/matches/{match_id}")) == said
    server.kill()  # nothing gets to finish: what was acknowledged is in the database
    server = Server(database, (short,))
    try:
        assert chat(server.get(f"/api/matches/{match_id}")) == said
    finally:
        server.stop()


def test_a_seat_says_a_bounded_number_of_messages_a_minute(tmp_path, short):
    server = Server(str(tmp_path / "matches.sqlite3"), (short,))
    try:
        created = server.create("short", [HUMAN, HUMAN])
        match_id = created["match"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        for n in range(MESSAGES_PER_MINUTE):
            assert say(server, match_id, tokens[0], f"message {n}").status == 200
        refused = say(server, match_id, tokens[0], "one more")
        assert refused.status == 429 and "a minute" in refused.doc["error"]
        assert say(server, match_id, tokens[1], "my turn to talk").status == 200  # per seat
    finally:
        server.stop()


def test_a_document_holds_the_newest_messages_and_a_full_chat_takes_no_more(tmp_path, short):
    """A match whose chat is longer than a document shows: the newest, oldest first; once it
    holds the most a chat may, another message is refused."""
    database = str(tmp_path / "matches.sqlite3")
    server = Server(database, (short,))
    created = server.create("short", [HUMAN, HUMAN])
    server.stop()
    store = Store(f"sqlite:///{database}")
    for number in range(MAX_MESSAGES):
        store.add_message(created["match"], MessageRecord(number, number % 2, f"m{number}"))
    store.engine.dispose()
    server = Server(database, (short,))
    try:
        shown = chat(server.get(f"/api/matches/{created['match']}"))
        newest = range(MAX_MESSAGES - MESSAGES_SHOWN, MAX_MESSAGES)
        assert shown == [(n % 2, f"m{n}") for n in newest]
        refused = say(server, created["match"], created["seats"][0]["token"], "one too many")
        assert refused.status == 409 and "at most" in refused.doc["error"]
    finally:
        server.stop()


def test_a_message_said_through_one_server_reaches_the_pages_of_another(shared_database, short):
    """Two server processes over one database (SQLite, PostgreSQL): a page following the match
    on the second hears a message said through the first, and the numbers never clash."""
    websockets_sync = pytest.importorskip("websockets.sync.client")
    servers = [Server(shared_database, (short,)), Server(shared_database, (short,))]
    try:
        created = servers[0].create("short", [HUMAN, HUMAN])
        match_id = created["match"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        socket_url = f"{servers[1].base.replace('http', 'ws')}/api/matches/{match_id}/ws"
        with websockets_sync.connect(socket_url) as socket:
            assert json.loads(socket.recv(timeout=30))["chat"] == []
            assert say(servers[0], match_id, tokens[0], "hello from one").status == 200
            while not (doc := json.loads(socket.recv(timeout=30)))["chat"]:
                pass
            assert chat(doc) == [(0, "hello from one")]
        # the second server, a step behind, numbers its message after the first's
        assert say(servers[1], match_id, tokens[1], "hello from two").status == 200
        assert say(servers[0], match_id, tokens[0], "and again").status == 200
        expected = [(0, "hello from one"), (1, "hello from two"), (0, "and again")]
        for server in servers:  # another process's messages are looked for twice a second
            deadline = time.monotonic() + 10
            while (said := chat(server.get(f"/api/matches/{match_id}"))) != expected:
                assert time.monotonic() < deadline and len(said) < 3, said
                time.sleep(CATCH_UP_SECONDS / 5)
    finally:
        for server in servers:
            server.stop()


def test_people_chat_in_the_browser_and_spectators_read(browser, tmp_path, short):
    server = Server(str(tmp_path / "matches.sqlite3"), (short,))
    try:
        created = server.create("short", [HUMAN, HUMAN])
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        errors = []
        pages = {}
        for seat in created["seats"]:
            pages[seat["seat"]] = context.new_page()
            pages[seat["seat"]].goto(server.base + seat["url"])
        pages[None] = context.new_page()
        pages[None].goto(server.base + created["spectate"])
        for page in pages.values():
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.wait_for_selector("#status:not(:empty)", timeout=WAIT_MS)
        assert pages[None].locator("#chat-form").is_hidden()  # spectators read only
        pages[0].fill("#chat-text", "<img src=x onerror=window.pwned=1> good luck")
        pages[0].press("#chat-text", "Enter")
        for seat, page in pages.items():
            page.wait_for_selector("#chat li", timeout=WAIT_MS)
            who = "P1 (you): " if seat == 0 else "P1: "
            assert (
                page.inner_text("#chat li") == who + "<img src=x onerror=window.pwned=1> good luck"
            )
            assert page.evaluate("window.pwned") is None
        assert pages[0].input_value("#chat-text") == ""  # sent: the box is empty again
        pages[1].fill("#chat-text", " ")
        pages[1].click("#chat-send")
        pages[1].wait_for_selector("#chat-error:not(:empty)", timeout=WAIT_MS)
        assert "says something" in pages[1].inner_text("#chat-error")
        assert errors == []
        context.close()
    finally:
        server.stop()
