"""The lobby and the play page in a real browser: Playwright driving Debian's Chromium against a
real `metro serve`. Skipped without the serve extra, Playwright or /usr/bin/chromium."""

from __future__ import annotations

import os
import shutil

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from tests.serve_helpers import Server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
WAIT_MS = 30_000
MOVES = 4  # decisions the person clicks


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM) or shutil.which(CHROMIUM) is None:
        pytest.skip("Debian's chromium is not installed")
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def server(tmp_path):
    running = Server(str(tmp_path / "matches.sqlite3"), ("ticket_to_ride",))
    yield running
    running.stop()


def test_a_match_made_in_the_lobby_is_played_by_clicking_its_menus(browser, server):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    assert page.input_value("#game") == "ticket_to_ride"
    assert page.locator("select.seat").count() == 2
    assert page.input_value("select[name=seat-1]") == "random"  # a bot sits opposite by default
    page.fill("#seed", "4")
    page.click("#create-button")
    page.wait_for_selector("#created:not([hidden]) a.seat-link", timeout=WAIT_MS)
    page.click("a.seat-link")
    page.wait_for_selector("button.choice", timeout=WAIT_MS)
    match_id = page.get_attribute("body", "data-match")
    assert page.inner_text("#title") == "Ticket to Ride"
    for move in range(MOVES):
        page.wait_for_selector("#board svg", timeout=WAIT_MS)
        page.wait_for_function(
            "document.getElementById('board').dataset.decisions === document.body.dataset.decisions",
            timeout=WAIT_MS,
        )
        board_before = page.inner_html("#board")
        decisions = int(page.get_attribute("body", "data-decisions"))
        token = page.evaluate("new URLSearchParams(location.search).get('token')")
        doc = server.get(f"/api/matches/{match_id}?token={token}")
        assert doc["decisions"] == decisions and 0 in doc["to_move"]
        # the menus read like `metro play`: the rules' labels, never the action ids
        shown = page.locator("button.choice, select.choice-list option").all_inner_texts()
        labels = {choice["label"] for choice in doc["choices"]}
        assert not set(doc["legal"]) & set(shown)
        assert {text for text in shown if not text.endswith(": choose")} <= labels
        logged = page.locator("#log li").count()
        page.locator("button.choice").first.click()
        # the person's decision, then the bot's answers, reach the log and the board
        page.wait_for_function(
            f"document.body.dataset.decisions > {decisions}"
            " && document.getElementById('board').dataset.decisions === document.body.dataset.decisions"
            " && document.querySelector('button.choice') !== null",
            timeout=WAIT_MS,
        )
        assert page.locator("#log li").count() > logged
        if move > 0:  # after the first (secret) choice every decision shows on the board
            assert page.inner_html("#board") != board_before
    text = page.inner_text("#log")
    assert "P2:" in text and "P1:" in text
    assert "you are P1" in page.inner_text("#status")
    assert errors == []


HOSTILE_RULES = """\
game "<script>window.pwned = 1</script> Hostile" {
  players 1..2
  max decisions 30
  enum Word { evil "<img src=x onerror=\\"window.pwned=2\\">", plain }
  state { note: text public "<b onclick=\\"window.pwned=5\\">note</b>" = "<script>window.pwned=3</script>" }
  per player { points: int public }
  action take(w: Word) label "take <i>{w}</i> <img src=y onerror=\\"window.pwned=4\\">" { me.points += 1 }
  action stop() { end game }
  flow { loop { choose by seat(1) { take, stop } } }
  score(p) = p.points
}
"""


def test_markup_in_rule_texts_reaches_the_page_as_text(browser, tmp_path):
    game = tmp_path / "hostile"
    game.mkdir()
    (game / "rules.metro").write_text(HOSTILE_RULES, encoding="utf-8")
    server = Server(str(tmp_path / "matches.sqlite3"), (str(game),))
    try:
        page = browser.new_page()
        page.goto(server.base + "/")
        page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
        assert page.locator("#game option").all_inner_texts() == [
            "<script>window.pwned = 1</script> Hostile"
        ]
        page.click("#create-button")
        page.click("a.seat-link", timeout=WAIT_MS)
        page.wait_for_selector("button.choice", timeout=WAIT_MS)
        page.locator("button.choice").first.click()
        page.wait_for_function("document.body.dataset.decisions === '1'", timeout=WAIT_MS)
        page.wait_for_selector("#board svg", timeout=WAIT_MS)
        assert page.inner_text("#title") == "<script>window.pwned = 1</script> Hostile"
        assert 'take <i><img src=x onerror="window.pwned=2"></i>' in page.inner_text("#log")
        assert "<script>window.pwned=3</script>" in page.inner_text("#table")
        assert page.locator("main img, main script, main i, main b").count() == 0
        assert page.evaluate("window.pwned") is None
    finally:
        server.stop()


def test_a_route_is_claimed_by_clicking_it_on_the_board(browser, server):
    created = server.create("ticket_to_ride", [{"human": True}, {"bot": "random"}], seed=4)
    match_id, token = created["match"], created["seats"][0]["token"]
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_selector("button.choice", timeout=WAIT_MS)
    shapes = server.get(f"/api/matches/{match_id}/shapes")
    for _ in range(10):  # menus until a route can be claimed
        decisions = int(page.get_attribute("body", "data-decisions"))
        doc = server.get(f"/api/matches/{match_id}?token={token}")
        if doc["decisions"] == decisions and any(c["elements"] for c in doc["choices"]):
            break
        page.locator("button.choice").first.click()
        page.wait_for_function(
            f"document.body.dataset.decisions > {decisions}"
            " && document.querySelector('button.choice') !== null",
            timeout=WAIT_MS,
        )
    page.wait_for_function(
        "document.getElementById('board').dataset.decisions === document.body.dataset.decisions",
        timeout=WAIT_MS,
    )
    named = {e for c in doc["choices"] for e in c["elements"]}
    assert named and all(e.startswith("route:") for e in named)
    clickable = page.eval_on_selector_all(
        "#board .item.clickable", "shapes => shapes.map(s => s.id)"
    )
    assert {shapes[i] for i in clickable} == named  # exactly the routes P1 may claim
    element = sorted(named)[0]
    choices = [c for c in doc["choices"] if element in c["elements"]]
    page.locator(
        f'#board [id="{clickable[[shapes[i] for i in clickable].index(element)]}"]'
    ).click()
    if len(choices) > 1:  # several ways to claim it (colours): they are offered beside the board
        offered = page.locator("#board-choices button.board-choice").all_inner_texts()
        assert offered == [c["label"] for c in choices]
        page.locator("#board-choices button.board-choice").first.click()
    page.wait_for_function(f"document.body.dataset.decisions > {doc['decisions']}", timeout=WAIT_MS)
    history = server.stored_decisions(match_id)
    assert history[doc["decisions"]] == (0, choices[0]["id"])
