"""A person at a play page who decides by clicking, as Playwright drives Debian's Chromium.

Each decision picks one of the seat's legal choices at random (a seeded generator); when a
shape on the board stands for that very choice (a piece at a placement: `data-chooses`), a
cell of it is clicked (and the choice taken from the small menu beside the board when other
placements cover that cell); else when a shape stands for something that choice names, the
shape is clicked (and the choice taken from the small menu beside the board when several
choices name it), otherwise the choice is taken from the menus. Every decision is then
checked in the server's database.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field

from tests.serve_helpers import Server

WAIT_MS = 30_000

# The clickable shapes of the board with what each stands for (`data-names`), in page order.
CLICKABLE = """() => [...document.querySelectorAll('#board .item.clickable')]
  .map((shape) => shape.dataset.names.split(' '))"""

# A point (in the window) where a click reaches the n-th clickable shape, and not another one
# over it; null if there is none. The page's own code decides what the click means.
CLICK_POINT = """(n) => {
  const shape = document.querySelectorAll('#board .item.clickable')[n];
  shape.scrollIntoView({block: 'center', inline: 'center'});
  const box = shape.getBoundingClientRect();
  const steps = [0.5, 0.3, 0.7, 0.1, 0.9, 0.2, 0.8, 0.4, 0.6];
  for (const fx of steps) for (const fy of steps) {
    const x = box.left + fx * box.width, y = box.top + fy * box.height;
    const hit = document.elementsFromPoint(x, y).map((node) => node.closest('#board .item'))
      .find((item) => item && item.classList.contains('clickable'));
    if (hit === shape) return [x, y];
  }
  return null;
}"""

# The shapes of the board standing for a choice, with its arguments (`data-chooses`), shown.
CHOICE_SHAPES = """() => [...document.querySelectorAll('#board .item.choice.offer')]
  .map((shape) => shape.dataset.chooses.split(' '))"""

# The middle of the n-th shape standing for a choice, brought into the window.
CHOICE_POINT = """(n) => {
  const shape = document.querySelectorAll('#board .item.choice.offer')[n];
  shape.scrollIntoView({block: 'center', inline: 'center'});
  const box = shape.getBoundingClientRect();
  return [box.left + box.width / 2, box.top + box.height / 2];
}"""

# The page shows position K, its board too.
SHOWN = """(k) => document.body.dataset.decisions === String(k)
  && document.getElementById('board').dataset.decisions === String(k)"""

# The page shows position K or a later one, its board too.
SHOWN_FROM = """(k) => Number(document.body.dataset.decisions) >= k
  && document.getElementById('board').dataset.decisions === document.body.dataset.decisions"""


@dataclass
class ClickingPerson:
    """One seat's page, deciding by clicks; counts what it clicked."""

    page: object  # a Playwright page showing the seat's play page
    server: Server
    match_id: str
    seat: int
    token: str
    rng: random.Random
    clicked: list[str] = field(default_factory=list)  # the things clicked on the board
    menu_picks: int = 0
    errors: list[str] = field(default_factory=list)  # script errors the page raised

    def document(self) -> dict:
        """The match as this seat sees it now (from the API)."""
        return self.server.get(f"/api/matches/{self.match_id}?token={self.token}")

    def decide_if_asked(self) -> bool:
        """Make one decision if this seat is to decide now (True if it did)."""
        doc = self.document()
        if doc["over"] or self.seat not in doc["to_move"]:
            return False
        # the page at this position or past it (a bot's secret choice may come first)
        self.page.wait_for_function(SHOWN_FROM, arg=doc["decisions"], timeout=WAIT_MS)
        if self.page.get_attribute("body", "data-decisions") != str(doc["decisions"]):
            return False  # someone else decided meanwhile: look again
        choice = self.rng.choice(doc["choices"])
        if not self._click_on_board(doc, choice):
            self._pick_from_menu(choice)
            self.menu_picks += 1
        return self._taken(doc["decisions"], choice["id"])

    def _click_on_board(self, doc: dict, choice: dict) -> bool:
        return self._click_choice_shape(choice) or self._click_named_shape(doc, choice)

    def _click_choice_shape(self, choice: dict) -> bool:
        """Click a cell of the piece at the chosen placement, then pick it beside the board if
        other placements cover that cell too."""
        shapes = self.page.evaluate(CHOICE_SHAPES)
        order = [n for n, keys in enumerate(shapes) if set(keys) <= set(choice["arguments"])]
        if not order:
            return False
        point = self.page.evaluate(CHOICE_POINT, self.rng.choice(order))
        self.page.mouse.click(*point)
        buttons = self.page.locator("#board-choices button.board-choice")
        if buttons.count():  # several placements cover the cell: pick it among them
            texts = buttons.all_inner_texts()
            assert choice["label"] in texts, (choice["label"], texts)
            buttons.nth(texts.index(choice["label"])).hover()
            buttons.nth(texts.index(choice["label"])).click()
        self.clicked.append("placement")
        return True

    def _click_named_shape(self, doc: dict, choice: dict) -> bool:
        shapes = self.page.evaluate(CLICKABLE)
        named = set(choice["elements"])
        order = [n for n, names in enumerate(shapes) if named & set(names)]
        self.rng.shuffle(order)
        for n in order:
            point = self.page.evaluate(CLICK_POINT, n)
            if point is None:
                continue  # covered everywhere by another clickable shape
            self.page.mouse.click(*point)
            names = set(shapes[n])
            offered = [c for c in doc["choices"] if names & set(c["elements"])]
            if len(offered) > 1:  # several choices name it: a menu beside the board
                buttons = self.page.locator("#board-choices button.board-choice")
                assert buttons.all_inner_texts() == [c["label"] for c in offered]
                buttons.nth(offered.index(choice)).click()
            self.clicked.append(sorted(names & named)[0])
            return True
        return False

    def _pick_from_menu(self, choice: dict) -> None:
        picker = self.page.locator("#choices .subset")
        if choice["items"] is not None and picker.count():  # check its things, then choose
            boxes = picker.locator("input.subset-item")
            wanted = [item["key"] for item in choice["items"]]
            for n in range(boxes.count()):
                key = boxes.nth(n).get_attribute("data-key")
                boxes.nth(n).set_checked(key in wanted)
                if key in wanted:
                    wanted.remove(key)
            button = picker.locator("button.subset-choice")
            assert button.inner_text() == choice["label"]
            button.click()
            return
        group = self.page.locator(
            "#choices .group",
            has=self.page.locator("h3", has_text=re.compile(f"^{re.escape(choice['group'])}$")),
        )
        action = choice["id"].split("(")[0]
        arguments = group.locator(f".arguments[data-action={_css_string(action)}]")
        if arguments.count():  # a drop-down list per argument, then the button
            for at, words in enumerate(choice["words"]):
                listed = arguments.locator(f"select.argument[data-argument='{at}']")
                if listed.is_hidden():  # a list left with one value: not shown, already it
                    assert listed.input_value() == words
                else:
                    listed.select_option(value=words)
            button = arguments.locator("button.argument-choice")
            assert button.inner_text() == choice["label"]
            button.click()
            return
        menu = self.page.locator("#choices select.choice-list").filter(
            has=self.page.locator(f"option[value={_css_string(choice['id'])}]")
        )
        if menu.count():
            menu.select_option(value=choice["id"])
            menu.locator("xpath=following-sibling::button[1]").click()
            return
        buttons = self.page.locator("#choices button.choice")
        texts = buttons.all_inner_texts()
        buttons.nth(texts.index(choice["label"])).click()

    def _taken(self, decisions: int, action: str) -> bool:
        """Whether the choice reached the server's database as this seat's (at `decisions`, or
        later when a bot's secret choice came first); False when the page asks again because
        the position changed meanwhile."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while (self.seat, action) not in self.server.stored_decisions(self.match_id)[decisions:]:
            error = self.page.inner_text("#error")
            if "position changed" in error:
                return False
            assert not error, error
            assert time.monotonic() < deadline, f"{action} was not taken"
            time.sleep(0.02)
        return True


def _css_string(text: str) -> str:
    """A CSS string literal of a text."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def play_to_the_end(people: list[ClickingPerson], server: Server, match_id: str, seconds: float):
    """Let the people decide, by clicks, until the game is over (bots play the other seats)."""
    deadline = time.monotonic() + seconds
    while not server.get(f"/api/matches/{match_id}")["over"]:
        assert time.monotonic() < deadline, "the match did not end in time"
        if not any(person.decide_if_asked() for person in people):
            time.sleep(0.02)  # a bot is thinking
