"""Two people at a secret choice, an undo, and a bot's budget, in a real browser: Playwright
driving Debian's Chromium against a real `metro serve`. Skipped without the serve extra,
Playwright or /usr/bin/chromium."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from loader import load_game
from loader.games import game_path
from metro.serve.limits import MAX_BOT_ITERATIONS
from tests.serve_helpers import Server
from tests.test_serve_browser import WAIT_MS

TTR = "ticket_to_ride"
HUMAN = {"human": True}
# Runs in a page before its own scripts: notes every text of `FORBIDDEN` the page ever holds.
WATCH_FOR = """
window.leaks = [];
new MutationObserver(() => {
  const html = document.documentElement.outerHTML;
  for (const text of FORBIDDEN) if (html.includes(text)) window.leaks.push(text);
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


@pytest.fixture()
def server(tmp_path):
    running = Server(str(tmp_path / "matches.sqlite3"), (TTR,))
    yield running
    running.stop()


def offered(state, seat: int) -> list[str]:
    """The labels of the tickets `seat` is offered (its own secret), as its screen words them."""
    (line,) = [
        p for p in asdict(state.display(seat))["private"] if p["heading"] == "Tickets offered"
    ]
    return line["text"].split(", ")


def at_decision(page, number: int) -> None:
    page.wait_for_function(f"document.body.dataset.decisions === '{number}'", timeout=WAIT_MS)


def test_two_people_choose_in_secret_and_neither_page_shows_the_other_s(browser, server):
    created = server.create(TTR, [HUMAN, HUMAN], seed=4)
    state = load_game(game_path(TTR)).new_game(2, 4)
    secrets = {seat: offered(state, seat) for seat in (0, 1)}
    assert set(secrets[0]).isdisjoint(secrets[1])
    pages = {}
    contexts = []
    heard = {0: [], 1: []}  # every websocket message each page received
    for seat in created["seats"]:
        contexts.append(browser.new_context())  # one browser profile per person
        others = json.dumps(secrets[1 - seat["seat"]])
        contexts[-1].add_init_script(f"const FORBIDDEN = {others};" + WATCH_FOR)
        page = contexts[-1].new_page()
        page.on(
            "websocket",
            lambda ws, s=seat["seat"]: ws.on("framereceived", lambda m: heard[s].append(m)),
        )
        page.goto(server.base + seat["url"])
        page.wait_for_selector("button.choice", timeout=WAIT_MS)
        pages[seat["seat"]] = page

    def nobody_sees_the_other_s() -> None:
        for seat, page in pages.items():
            content = page.content()  # the whole page, the board's SVG included
            assert all(label in content for label in secrets[seat]), seat
            assert not any(label in content for label in secrets[1 - seat]), seat

    nobody_sees_the_other_s()
    pages[0].locator("button.choice").first.click()
    for page in pages.values():
        at_decision(page, 1)
    assert "in secret" in pages[1].inner_text("#log")
    nobody_sees_the_other_s()
    # P1 takes the choice back with the Undo button: P2's page follows, still seeing nothing
    assert pages[0].is_visible("#undo") and not pages[1].is_visible("#undo")
    pages[0].click("#undo")
    for page in pages.values():
        at_decision(page, 0)
    pages[0].wait_for_selector("#undo", state="hidden", timeout=WAIT_MS)
    assert "in secret" not in pages[1].inner_text("#log")
    nobody_sees_the_other_s()
    pages[0].locator("button.choice").last.click()
    at_decision(pages[1], 1)
    nobody_sees_the_other_s()
    pages[1].locator("button.choice").first.click()
    for page in pages.values():
        at_decision(page, 2)
    assert not pages[1].is_visible("#undo")  # the last choice revealed the round
    assert [s for s, _ in server.stored_decisions(created["match"])] == [0, 1]
    for seat, page in pages.items():  # ever: no page held, no message brought, the other's
        assert page.evaluate("window.leaks") == [], seat
        assert len(heard[seat]) >= 5, seat
        assert not any(label in m for m in heard[seat] for label in secrets[1 - seat]), seat
    for context in contexts:
        context.close()


def test_a_bot_s_budget_is_a_bounded_number_in_the_lobby(browser, server):
    page = browser.new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    page.select_option("select[name=seat-1]", "random")
    assert not page.is_visible("select[name=seat-1] ~ input.budget")  # it takes no budget
    page.select_option("select[name=seat-1]", "mcts")
    budget = page.locator("select[name=seat-1] ~ input.budget")
    units = page.locator("select[name=seat-1] ~ select.budget-unit")
    assert units.locator("option").all_inner_texts() == ["iterations", "milliseconds"]
    assert budget.get_attribute("max") == str(MAX_BOT_ITERATIONS)
    budget.fill(str(MAX_BOT_ITERATIONS + 1))
    page.click("#create-button")
    assert page.is_hidden("#created")  # the browser refuses the number over the bound
    assert not budget.evaluate("input => input.checkValidity()")
    budget.fill("250")
    units.select_option(label="milliseconds")
    page.click("#create-button")
    link = page.locator("#created:not([hidden]) a.seat-link")
    link.wait_for(timeout=WAIT_MS)
    match_id = link.get_attribute("href").split("/")[2].split("?")[0]
    assert server.get(f"/api/matches/{match_id}")["seats"][1]["bot"] == "mcts:250ms"
