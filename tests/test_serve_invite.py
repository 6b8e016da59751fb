"""Inviting people to a match in `metro serve`: one link, each person who takes a seat by it gets
the next seat kept for the invited, never the same seat twice."""

from __future__ import annotations

import urllib.request
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlparse

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from tests.serve_helpers import Server, short_game
from tests.test_serve import HUMAN, valid
from tests.test_serve_browser import WAIT_MS

INVITED = {"invited": True}


@pytest.fixture()
def short(tmp_path):
    """The folder of the short game."""
    return short_game(tmp_path)


def invited_match(server: Server, seats: list[dict]) -> tuple[str, str]:
    """A new short match: its id and its invitation's code."""
    answer = server.call("POST", "/api/matches", {"game": "short", "seats": seats})
    created = valid("match-created", answer.doc)
    invite = urlparse(created["invite"])
    assert invite.path == f"/join/{created['match']}"
    return created["match"], parse_qs(invite.query)["code"][0]


def join(server: Server, match_id: str, code) -> object:
    """Take a seat by a match's invitation."""
    return server.call("POST", f"/api/matches/{match_id}/join", {"code": code})


def test_each_invited_person_takes_the_next_seat_kept_for_them(tmp_path, short):
    server = Server(str(tmp_path / "matches.sqlite3"), (short,))
    try:
        assert valid("match-created", server.create("short", [HUMAN, HUMAN]))["invite"] is None
        match_id, code = invited_match(server, [INVITED, INVITED])
        other_id, other_code = invited_match(server, [HUMAN, INVITED])
        seats = valid("match", server.get(f"/api/matches/{match_id}"))["seats"]
        assert [s["open"] for s in seats] == [True, True]
        assert join(server, match_id, other_code).status == 403  # another match's invitation
        assert join(server, match_id, None).status == 400
        first = join(server, match_id, code)
        assert first.status == 200 and valid("seat-taken", first.doc)["seat"] == 0
        second = join(server, match_id, code)
        assert second.status == 200 and second.doc["seat"] == 1
        assert second.doc["token"] != first.doc["token"]
        full = join(server, match_id, code)
        assert full.status == 409 and "taken" in full.doc["error"]
        # each token takes its seat, and the match is played by them
        for taken in (first.doc, second.doc):
            doc = valid("match", server.get(f"/api/matches/{match_id}?token={taken['token']}"))
            assert doc["seat"] == taken["seat"]
            assert taken["url"] == f"/play/{match_id}?token={taken['token']}"
        assert [s["open"] for s in server.get(f"/api/matches/{match_id}")["seats"]] == [False] * 2
        body = {"token": first.doc["token"], "action": "say(1)", "decisions": 0}
        assert server.call("POST", f"/api/matches/{match_id}/actions", body).status == 200
        # the invitation's page takes no seat by being opened (a link preview opens it too)
        with urllib.request.urlopen(f"{server.base}/join/{other_id}?code={other_code}") as page:
            assert page.status == 200 and b"Take a seat" in page.read()
        # a person's own link (seat 0) and the invitation (seat 1) side by side
        assert join(server, other_id, other_code).doc["seat"] == 1
    finally:
        server.stop()


def test_people_invited_at_once_through_two_servers_get_different_seats(shared_database, short):
    """Two server processes over one database (SQLite, PostgreSQL): three people bring the
    invitation of a match keeping two seats at the same moment; two get a seat each, one is
    told they are taken; each server knows the seats the other gave."""
    servers = [Server(shared_database, (short,)), Server(shared_database, (short,))]
    try:
        match_id, code = invited_match(servers[0], [INVITED, INVITED])
        servers[1].get(f"/api/matches/{match_id}")  # the second server holds the match too
        with ThreadPoolExecutor(3) as pool:
            asked = [pool.submit(join, servers[n % 2], match_id, code) for n in range(3)]
            answers = [future.result() for future in asked]
        taken = sorted(a.doc["seat"] for a in answers if a.status == 200)
        assert taken == [0, 1], [a.doc for a in answers]
        assert sorted(a.status for a in answers) == [200, 200, 409]
        for server in servers:
            for answer in answers:
                if answer.status == 200:
                    path = f"/api/matches/{match_id}?token={answer.doc['token']}"
                    assert server.get(path)["seat"] == answer.doc["seat"]
    finally:
        for server in servers:
            server.stop()


def test_a_person_invited_takes_a_seat_from_the_invitations_page(browser, tmp_path, short):
    """The lobby makes a match with a seat kept for the invited and shows its invitation; a
    friend opens it in their own browser, takes the seat and plays; their lobby keeps it."""
    server = Server(str(tmp_path / "matches.sqlite3"), (short,))
    try:
        mine = browser.new_context(viewport={"width": 1200, "height": 800})
        lobby = mine.new_page()
        lobby.goto(server.base + "/")
        lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
        lobby.select_option("select[name=seat-1]", "@invited")
        lobby.click("#create-button")
        lobby.wait_for_selector("#created:not([hidden]) a.invite-link", timeout=WAIT_MS)
        invite = lobby.get_attribute("a.invite-link", "href")
        assert lobby.locator("a.seat-link").count() == 1  # P1's own link; P2 is invited
        lobby.reload()  # the lobby keeps the invitation with the match, for whoever lost it
        lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
        assert lobby.get_attribute("#kept-matches a.kept-invite", "href") == invite
        friend = browser.new_context(viewport={"width": 1200, "height": 800})
        page = friend.new_page()
        page.goto(server.base + invite)
        page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
        assert page.inner_text("h1") == "Short"
        page.click("#join")
        page.wait_for_selector("#status:not(:empty)", timeout=WAIT_MS)
        assert "/play/" in page.url and "you are P2" in page.inner_text("#status")
        page.goto(server.base + "/")
        page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
        assert page.locator("#kept-matches a.kept-link").all_inner_texts() == ["P2"]
        # taken: opening the invitation again and asking says so
        page.goto(server.base + invite)
        page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
        page.click("#join")
        page.wait_for_selector("#error:not(:empty)", timeout=WAIT_MS)
        assert "taken" in page.inner_text("#error")
        mine.close()
        friend.close()
    finally:
        server.stop()
