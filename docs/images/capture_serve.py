"""Capture the screenshots of `metro serve`'s play page in docs/serve.md (docs/images/serve-*.png).

Run `python docs/images/capture_serve.py` from the repository root (needs the serve extra,
Playwright and /usr/bin/chromium). Each game: a match of two seats, seed 4, P1 a person, P2 a
random bot; P1 clicks the first choice a few times, then the page is captured at 1400×950.
Izakaya's P1 then builds a piece: the board shows where it can go, a cell clicked offers the
placements covering it, and one of them is shown on the board (hovered).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.getcwd())
from tests.serve_helpers import Server

SHOTS = {"ticket_to_ride": 9, "tokyo_metro": 5, "izakaya": 5}  # game: P1's clicks


def main() -> None:
    """Write docs/images/serve-GAME.png for each game of SHOTS."""
    with tempfile.TemporaryDirectory() as folder:
        server = Server(os.path.join(folder, "matches.sqlite3"), tuple(SHOTS))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium",
                    args=["--headless", "--no-sandbox", "--disable-gpu"],
                )
                for game, clicks in SHOTS.items():
                    created = server.create(game, [{"human": True}, {"bot": "random"}], seed=4)
                    page = browser.new_page(viewport={"width": 1400, "height": 950})
                    page.goto(server.base + created["seats"][0]["url"])
                    page.wait_for_selector("button.choice")
                    for _ in range(clicks):
                        before = page.get_attribute("body", "data-decisions")
                        page.locator("button.choice").first.click()
                        page.wait_for_function(
                            f"document.body.dataset.decisions > {before}"
                            " && document.querySelector('button.choice')",
                            timeout=60_000,
                        )
                    if game == "izakaya":
                        place_a_piece(page)
                    time.sleep(1)  # the board's picture arrives after the document
                    page.screenshot(path=f"docs/images/serve-{game.replace('_', '-')}.png")
        finally:
            server.stop()


def place_a_piece(page) -> None:
    """Take a piece and its card by the menus, then click a cell where it can go and hover the
    first placement offered for it."""
    for _ in range(30):
        if page.locator("#board .item.choice.offer").count():
            break
        before = page.get_attribute("body", "data-decisions")
        wanted = page.locator("button.choice", has_text="take the corner piece")
        if not wanted.count():
            wanted = page.locator("button.choice", has_text="build it on")
        (wanted if wanted.count() else page.locator("button.choice")).first.click()
        page.wait_for_function(
            f"document.body.dataset.decisions > {before}"
            " && document.querySelector('button.choice')"
            " && document.getElementById('board').dataset.decisions"
            " === document.body.dataset.decisions",
            timeout=60_000,
        )
        time.sleep(0.5)
    cells = page.locator("#board .item.choice.offer")
    box = cells.nth(cells.count() // 2).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    offered = page.locator("#board-choices button.board-choice")
    if offered.count():
        offered.first.hover()


if __name__ == "__main__":
    main()
