"""Capture the screenshots of `metro serve`'s play page in docs/serve.md (docs/images/serve-*.png).

Run `python docs/images/capture_serve.py` from the repository root (needs the serve extra,
Playwright and /usr/bin/chromium). Each game: a match of two seats, seed 4, P1 a person, P2 a
random bot; P1 clicks the first choice a few times, then the page is captured at 1400×950.
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
                    time.sleep(1)  # the board's picture arrives after the document
                    page.screenshot(path=f"docs/images/serve-{game.replace('_', '-')}.png")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
