"""The lobby and the play page in a real browser: Playwright driving Debian's Chromium against a
real `metro serve`. Skipped without the serve extra, Playwright or /usr/bin/chromium."""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

import metro
from tests.serve_clicks import SHOWN, ClickingPerson, play_to_the_end
from tests.serve_helpers import Server

WAIT_MS = 30_000
MOVES = 4  # decisions the person clicks


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
    assert page.input_value("select[name=seat-1]") == "easy"  # a bot sits opposite by default
    assert "bot: hard (mcts)" in page.inner_text("select[name=seat-1]")  # the levels come first
    page.fill("#seed", "4")
    page.click("#create-button")
    page.wait_for_selector("#created:not([hidden]) a.seat-link", timeout=WAIT_MS)
    page.click("a.seat-link")
    page.wait_for_selector("button.choice", timeout=WAIT_MS)
    match_id = page.get_attribute("body", "data-match")
    assert page.inner_text("#title") == "Ticket to Ride"
    assert page.title() == "Your decision · Ticket to Ride · metro"  # the tab says so too
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
        assert {text for text in shown if text != "choose"} <= labels
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


def test_the_lobby_lists_the_matches_this_browser_created_or_opened(browser, server):
    """A match created in the lobby, and one whose seat's link was opened, are listed in the
    lobby with their links and where they stand, after the pages are closed; forgotten on asking."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    lobby = context.new_page()
    lobby.goto(server.base + "/")
    lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    assert lobby.locator("#kept").is_hidden()  # nothing kept yet
    lobby.fill("#seed", "4")
    lobby.click("#create-button")
    lobby.wait_for_selector("#created:not([hidden]) a.seat-link", timeout=WAIT_MS)
    made = lobby.get_attribute("a.seat-link", "href")
    # a match made elsewhere (by a friend), whose P2 link is opened in this browser
    created = server.create("ticket_to_ride", [{"human": True}, {"human": True}], seed=5)
    play = context.new_page()
    play.goto(server.base + created["seats"][1]["url"])
    play.wait_for_selector("#status:not(:empty)", timeout=WAIT_MS)
    play.close()
    lobby.reload()
    lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    entries = lobby.locator("#kept-matches li.kept-match")
    assert entries.count() == 2
    opened, mine = entries.nth(0), entries.nth(1)  # the most recently kept first
    assert opened.get_attribute("data-match") == created["match"]
    assert opened.locator("a.kept-link").all_inner_texts() == ["P2"]
    assert opened.locator("a.kept-link").get_attribute("href") == created["seats"][1]["url"]
    assert mine.locator("a.kept-link").all_inner_texts() == ["P1", "watch"]  # a bot in P2
    assert mine.locator("a.kept-link").first.get_attribute("href") == made
    status = opened.locator(".kept-status")
    lobby.wait_for_function(
        "match => document.querySelector(`li[data-match='${match}'] .kept-status`).dataset"
        ".decisions !== undefined",
        arg=created["match"],
        timeout=WAIT_MS,
    )
    assert status.inner_text() == "decision 1, to move: P1, P2"  # both choose tickets at first
    assert "Ticket to Ride" in opened.inner_text()
    # following a kept link opens that seat's page
    mine.locator("a.kept-link").first.click()
    lobby.wait_for_selector("button.choice, #choices .subset", timeout=WAIT_MS)
    assert "you are P1" in lobby.inner_text("#status")
    lobby.go_back()
    lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    lobby.locator(f"li[data-match='{created['match']}'] button.forget").click()
    assert lobby.locator("#kept-matches li.kept-match").count() == 1
    lobby.reload()
    lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    assert lobby.locator("#kept-matches li.kept-match").count() == 1
    # storage written by something else is ignored, not a failure
    errors = []
    lobby.on("pageerror", lambda error: errors.append(str(error)))
    bad = (
        '[{"match": "x", "title": "t", "kept": "k", "links": [{"seat": 0, "url": "javascript:1"}]}]'
    )
    lobby.evaluate("bad => localStorage.setItem('metro.matches', bad)", bad)
    lobby.reload()
    lobby.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    assert lobby.locator("#kept").is_hidden() and errors == []
    context.close()


def test_on_a_phone_the_board_takes_the_width_and_the_choices_follow_it(browser, server):
    """A narrow screen stacks the play page: the board as wide as the page, the choices below
    it, nothing wider than the screen (the lobby too)."""
    created = server.create("ticket_to_ride", [{"human": True}, {"bot": "random"}], seed=4)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    page.wait_for_selector("#choices .subset", timeout=WAIT_MS)
    width = page.evaluate("innerWidth")
    board = page.locator("#board svg").bounding_box()
    choices = page.locator("#choices-section").bounding_box()
    assert board["width"] >= 0.9 * width
    assert choices["y"] >= board["y"] + board["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.goto(server.base + "/")
    page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


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
    for _ in range(10):  # menus until a route can be claimed
        decisions = int(page.get_attribute("body", "data-decisions"))
        doc = server.get(f"/api/matches/{match_id}?token={token}")
        routes = {e for c in doc["choices"] for e in c["elements"] if e.startswith("route:")}
        if doc["decisions"] == decisions and routes:
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
    shapes = page.eval_on_selector_all(
        "#board [data-names]",
        "shapes => shapes.map(s => [s.dataset.names.split(' '), s.classList.contains('clickable')])",
    )
    # exactly the shapes standing for what P1's choices name take clicks: the routes P1 may
    # claim, and the face-up cards P1 may take
    for names, clickable in shapes:
        assert clickable == bool(named & set(names)), names
    clicked = {k for names, clickable in shapes if clickable for k in names}
    assert routes <= clicked and any(k.startswith("Card:") for k in clicked)
    route = sorted(routes)[0]
    choices = [c for c in doc["choices"] if route in c["elements"]]
    page.locator(f'#board [data-names~="{route}"]').click()
    if len(choices) > 1:  # several ways to claim it (colours): they are offered beside the board
        offered = page.locator("#board-choices button.board-choice").all_inner_texts()
        assert offered == [c["label"] for c in choices]
        page.locator("#board-choices button.board-choice").first.click()
    page.wait_for_function(f"document.body.dataset.decisions > {doc['decisions']}", timeout=WAIT_MS)
    history = server.stored_decisions(match_id)
    assert history[doc["decisions"]] == (0, choices[0]["id"])


def board_width(page) -> float:
    """The width the board's picture is drawn at, in pixels."""
    return page.eval_on_selector("#board svg", "svg => svg.getBoundingClientRect().width")


def test_the_board_zooms_in_scrolls_in_its_frame_and_fits_the_page_again(browser, server):
    created = server.create("ticket_to_ride", [{"human": True}, {"bot": "random"}], seed=4)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_selector("#board svg", timeout=WAIT_MS)
    page.wait_for_selector("button.choice", timeout=WAIT_MS)
    fit = board_width(page)
    frame = page.eval_on_selector("#board", "board => board.clientWidth")
    assert abs(fit - frame) < 2  # at first the board fits its frame
    assert page.is_disabled("#zoom-out") and page.is_disabled("#zoom-fit")
    page.click("#zoom-in")
    page.click("#zoom-in")
    assert board_width(page) == pytest.approx(2 * fit, rel=0.02)
    scrolls = "board => board.scrollWidth > board.clientWidth && board.clientHeight <= innerHeight"
    assert page.eval_on_selector("#board", scrolls)  # it scrolls inside a frame on the screen
    page.click("#zoom-out")
    assert board_width(page) == pytest.approx(1.5 * fit, rel=0.02)
    # A move redraws the board: it keeps the size it was given.
    decisions = int(page.get_attribute("body", "data-decisions"))
    page.locator("button.choice").first.click()
    page.wait_for_function(
        f"Number(document.getElementById('board').dataset.decisions) > {decisions}",
        timeout=WAIT_MS,
    )
    assert board_width(page) == pytest.approx(1.5 * fit, rel=0.02)
    for _ in range(6):  # at most the largest size
        page.click("#zoom-in") if not page.is_disabled("#zoom-in") else None
    assert page.is_disabled("#zoom-in")
    assert board_width(page) == pytest.approx(4 * fit, rel=0.02)
    page.click("#zoom-fit")
    assert abs(board_width(page) - fit) < 2
    assert page.is_disabled("#zoom-fit") and not page.is_disabled("#zoom-in")
    assert errors == []


def person(browser, server: Server, created: dict, seat: int, seed: int) -> ClickingPerson:
    """A person at seat `seat`'s page of a created match, in a browser context of their own."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    (link,) = [s for s in created["seats"] if s["seat"] == seat]
    page.goto(server.base + link["url"])
    page.wait_for_selector("#status", timeout=WAIT_MS)
    return ClickingPerson(
        page, server, created["match"], seat, link["token"], random.Random(seed), errors=errors
    )


def engine_replay(server: Server, game: str, players: int, seed: int, match_id: str):
    """The match's position as the engine reaches it from the seed and the stored decisions."""
    state = metro.load_game(game).new_game(players, seed)
    for seat, action in server.stored_decisions(match_id):
        state.apply(seat, action)
    return state


def the_end_shown(person: ClickingPerson, state) -> None:
    """The page says the game is over, with the engine's scores."""
    person.page.wait_for_function(
        "document.getElementById('status').textContent.startsWith('Game over')", timeout=WAIT_MS
    )
    status = person.page.inner_text("#status")
    for seat, score in enumerate(state.scores()):
        assert f"P{seat + 1} ({score})" in status
    assert person.errors == []


def test_two_people_play_a_whole_ticket_to_ride_match_by_clicking(browser, server):
    """Two browser contexts, a bot in the third seat: every decision the people make is a click,
    on the board whenever the chosen move names something drawn there (a route, a face-up card),
    else in the menus; the match ends as the engine replays it."""
    seats = [{"human": True}, {"human": True}, {"bot": "random"}]
    created = server.create("ticket_to_ride", seats, seed=2)
    people = [person(browser, server, created, seat, seed=seat) for seat in (0, 1)]
    play_to_the_end(people, server, created["match"], seconds=120)
    state = engine_replay(server, "ticket_to_ride", 3, 2, created["match"])
    assert state.is_over
    clicked = [key.split(":")[0] for p in people for key in p.clicked]
    assert "route" in clicked and "Card" in clicked  # routes and face-up cards, on the board
    assert all(p.menu_picks > 0 for p in people)  # tickets and the blind draw: menus
    for p in people:
        the_end_shown(p, state)


def test_a_tokyo_metro_match_is_played_to_the_end_by_clicks_and_menus(browser, tmp_path):
    """A person against a random bot: squares, stations, lines and the cards' offers are
    clicked on the board; bids, passing and staying put are chosen in the menus."""
    server = Server(str(tmp_path / "matches.sqlite3"), ("tokyo_metro",))
    try:
        created = server.create("tokyo_metro", [{"human": True}, {"bot": "random"}], seed=1)
        people = [person(browser, server, created, 0, seed=1)]
        play_to_the_end(people, server, created["match"], seconds=120)
        state = engine_replay(server, "tokyo_metro", 2, 1, created["match"])
        kinds = {key.split(":")[0] for key in people[0].clicked}
        assert {"square", "offer"} <= kinds, kinds
        assert people[0].menu_picks > 0
        the_end_shown(people[0], state)
    finally:
        server.stop()


def test_an_izakaya_match_is_played_to_the_end_by_clicks_and_menus(browser, tmp_path):
    """A person against a random bot: colour cards, free corners, cards of the table, frames,
    pieces of the supply and piece placements are clicked; bids come from the menus."""
    server = Server(str(tmp_path / "matches.sqlite3"), ("izakaya",))
    try:
        created = server.create("izakaya", [{"human": True}, {"bot": "random"}], seed=2)
        people = [person(browser, server, created, 0, seed=3)]
        play_to_the_end(people, server, created["match"], seconds=120)
        state = engine_replay(server, "izakaya", 2, 2, created["match"])
        kinds = {key.split(":")[0] for key in people[0].clicked}
        assert len(kinds) >= 3 and "placement" in kinds, kinds
        assert people[0].menu_picks > 0
        the_end_shown(people[0], state)
    finally:
        server.stop()


def test_a_spectator_page_shows_no_secret(browser, server):
    """Mid-game, the spectator's page (its words, the board's texts and titles) holds what the
    public view holds and none of the seats' private things (hands, tickets)."""
    seats = [{"human": True}, {"human": True}]
    created = server.create("ticket_to_ride", seats, seed=5)
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    rng = random.Random(5)
    for _ in range(30):  # a few moves through the API
        doc = server.get(f"/api/matches/{match_id}")
        seat = doc["to_move"][0]
        mine = server.get(f"/api/matches/{match_id}?token={tokens[seat]}")
        move = {"token": tokens[seat], "action": rng.choice(mine["legal"])}
        assert (
            server.call(
                "POST", f"/api/matches/{match_id}/actions", move | {"decisions": mine["decisions"]}
            ).status
            == 200
        )
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server.base + created["spectate"])
    decisions = server.get(f"/api/matches/{match_id}")["decisions"]
    page.wait_for_function(SHOWN, arg=decisions, timeout=WAIT_MS)
    seen = page.evaluate("document.body.textContent")
    state = engine_replay(server, "ticket_to_ride", 2, 5, match_id)
    public = state.display(None)
    for row in public.players.rows:  # the public values of every player, as the engine says
        for text in row:
            assert text in page.inner_text("#players")
    public_words = json.dumps(asdict(public)) + " ".join(
        server.get(f"/api/matches/{match_id}")["log"]
    )
    secrets = [
        item
        for seat in (0, 1)
        for line in state.display(seat).private
        for item in line.text.split(", ")
        if item not in public_words
    ]
    assert len(secrets) >= 5  # tickets held and offered: the check has something to find
    assert [s for s in secrets if s in seen] == []
    assert page.locator("#choices-section").is_hidden()


def reach_a_placement(server: Server, game, created: dict, placing: str, leading=()) -> dict:
    """Play seat 0's and seat 1's choices through the API (seeded, preferring `leading`) until
    seat 0 is to place a piece; the seat's document then."""
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    rng = random.Random(placing)
    state = game.new_game(len(created["seats"]), created["seed"])
    for _ in range(400):
        if 0 in state.to_move and any(a.name == placing for a in state.legal_actions(0)):
            return server.get(f"/api/matches/{match_id}?token={tokens[0]}")
        seat = rng.choice(state.to_move)
        legal = state.legal_actions(seat)
        action = rng.choice([a for a in legal if a.name in leading] or legal)
        body = {"token": tokens[seat], "action": action.id, "decisions": len(state.history)}
        assert server.call("POST", f"/api/matches/{match_id}/actions", body).status == 200
        state.apply(seat, action)
    raise AssertionError(f"no {placing} choice came")


CELLS = """() => [...document.querySelectorAll('#board .item.choice.offer')].map((shape) => {
  shape.scrollIntoView({block: 'center', inline: 'center'});
  const box = shape.getBoundingClientRect();
  return [shape.dataset.chooses, box.left + box.width / 2, box.top + box.height / 2];
})"""


def place_by_clicking(page, server: Server, created: dict, doc: dict, first=None) -> None:
    """Click a cell of the board where a piece can go (after `first`, a shape to click before:
    a kind of piece in the supply), pick the last placement offered for it beside the board
    (each shown on the board while hovered), and check the server took that placement."""
    match_id = created["match"]
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_function(SHOWN, arg=doc["decisions"], timeout=WAIT_MS)
    every = page.eval_on_selector_all("#board .item.choice.offer", "shapes => shapes.length")
    if first is not None:
        page.locator(f'#board .item.clickable[data-names~="{first}"]').first.click()
        narrowed = page.eval_on_selector_all("#board .item.choice.offer", "s => s.length")
        assert 0 < narrowed < every  # only the places of that kind are left
    keys, x, y = page.evaluate(CELLS)[0]
    page.mouse.move(x, y)
    # hovering a cell shows a whole piece there: every cell of one placement, painted in full
    previewed = page.eval_on_selector_all("#board .item.choice.preview", "s => s.length")
    assert previewed >= 1
    page.mouse.click(x, y)
    offered = page.locator("#board-choices button.board-choice")
    labels = offered.all_inner_texts() if offered.count() else []
    if labels:  # several placements cover the cell: hovering one shows it, clicking takes it
        offered.last.hover()
        shown = page.eval_on_selector_all(
            "#board .item.choice.preview", "s => s.map((shape) => shape.dataset.chooses)"
        )
        (chosen,) = [c for c in doc["choices"] if c["label"] == labels[-1]]
        assert shown and all(set(k.split()) <= set(chosen["arguments"]) for k in shown)
        offered.last.click()
    else:
        (chosen,) = [c for c in doc["choices"] if set(keys.split()) <= set(c["arguments"])]
    page.wait_for_function(f"document.body.dataset.decisions > {doc['decisions']}", timeout=WAIT_MS)
    assert server.stored_decisions(match_id)[doc["decisions"]] == (0, chosen["id"])
    assert page.inner_text("#error") == ""


def izakaya_placement(server: Server) -> tuple[dict, dict]:
    """A new Izakaya match of two people played until P1 is to place a piece: the match as
    created (with its seed) and P1's document then."""
    created = server.create("izakaya", [{"human": True}, {"human": True}], seed=5)
    created["seed"] = 5
    game = metro.load_game("izakaya")
    doc = reach_a_placement(server, game, created, "build_at", ("build_piece", "build_area"))
    return created, doc


def test_a_piece_is_placed_by_clicking_the_board_in_izakaya(browser, tmp_path):
    server = Server(str(tmp_path / "matches.sqlite3"), ("izakaya",))
    try:
        created, doc = izakaya_placement(server)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        place_by_clicking(page, server, created, doc)
        assert errors == []
    finally:
        server.stop()


def test_on_a_touch_screen_a_placement_is_shown_by_a_tap_and_made_by_another(browser, tmp_path):
    """Without a pointer to hover, a tap on a cell offers the placements covering it (one too)
    and shows the first on the board; a tap on another shows that one; a tap on the one shown
    makes it."""
    server = Server(str(tmp_path / "matches.sqlite3"), ("izakaya",))
    try:
        created, doc = izakaya_placement(server)
        context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
        page = context.new_page()
        page.goto(server.base + created["seats"][0]["url"])
        page.wait_for_function(SHOWN, arg=doc["decisions"], timeout=WAIT_MS)
        _, x, y = page.evaluate(CELLS)[0]
        page.touchscreen.tap(x, y)
        offered = page.locator("#board-choices button.board-choice")
        offered.first.wait_for(timeout=WAIT_MS)
        shown = "s => s.map((shape) => shape.dataset.chooses)"

        def showing(n: int) -> None:
            """The offered placement `n` is the one pressed and painted on the board."""
            pressed = [offered.nth(i).get_attribute("aria-pressed") for i in range(offered.count())]
            assert pressed == ["true" if i == n else "false" for i in range(offered.count())]
            (choice,) = [c for c in doc["choices"] if c["label"] == offered.nth(n).inner_text()]
            painted = page.eval_on_selector_all("#board .item.choice.preview", shown)
            assert painted and all(set(k.split()) <= set(choice["arguments"]) for k in painted)

        showing(0)
        last = offered.count() - 1
        if last:
            offered.nth(last).tap()
            showing(last)
        (chosen,) = [c for c in doc["choices"] if c["label"] == offered.nth(last).inner_text()]
        assert len(server.stored_decisions(created["match"])) == doc["decisions"]  # none yet
        offered.nth(last).tap()
        page.wait_for_function(
            f"document.body.dataset.decisions > {doc['decisions']}", timeout=WAIT_MS
        )
        assert server.stored_decisions(created["match"])[doc["decisions"]] == (0, chosen["id"])
        context.close()
    finally:
        server.stop()


def test_a_piece_is_placed_by_clicking_the_board_in_tokyo_jutaku(browser, tmp_path):
    """A kind of piece clicked in the supply leaves only its places; a cell of one is clicked."""
    server = Server(str(tmp_path / "matches.sqlite3"), ("tokyo_jutaku",))
    try:
        created = server.create("tokyo_jutaku", [{"human": True}, {"human": True}], seed=5)
        created["seed"] = 5
        game = metro.load_game("tokyo_jutaku")
        doc = reach_a_placement(server, game, created, "place_piece")
        kinds = sorted({e for c in doc["choices"] for e in c["elements"] if "piece_kind:" in e})
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        place_by_clicking(page, server, created, doc, first=kinds[0])
        assert errors == []
    finally:
        server.stop()


def test_tickets_to_keep_are_checked_in_boxes(browser, server):
    """A choice of several things at once (a subset of the tickets offered) is a check box per
    ticket and one button; it takes only a legal number of them."""
    created = server.create("ticket_to_ride", [{"human": True}, {"bot": "random"}], seed=4)
    match_id, token = created["match"], created["seats"][0]["token"]
    doc = server.get(f"/api/matches/{match_id}?token={token}")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_selector("#choices .subset", timeout=WAIT_MS)
    offered = {}  # every ticket offered, in the order the choices first hold them
    for choice in doc["choices"]:
        offered |= {
            item["key"]: item["label"] for item in choice["items"] if item["key"] not in offered
        }
    boxes = page.locator("#choices .subset input.subset-item")
    shown = page.locator("#choices .subset label").all_inner_texts()
    assert [text.strip() for text in shown] == list(offered.values())
    button = page.locator("#choices button.subset-choice")
    assert button.inner_text() == doc["choices"][0]["label"]  # the first choice, checked
    for n in range(boxes.count()):
        boxes.nth(n).set_checked(False)
    assert button.is_disabled() and button.inner_text() == "check 2 to 3"
    for n in range(boxes.count()):
        boxes.nth(n).set_checked(True)
    (every,) = [c for c in doc["choices"] if len(c["items"]) == boxes.count()]
    assert button.inner_text() == every["label"] and not button.is_disabled()
    button.click()
    # The bot keeps its tickets at the same time: wait for this seat's own decision, not any.
    deadline = time.monotonic() + WAIT_MS / 1000
    while not any(seat == 0 for seat, _ in server.stored_decisions(match_id)):
        assert time.monotonic() < deadline, server.stored_decisions(match_id)
        time.sleep(0.1)
    assert (0, every["id"]) in server.stored_decisions(match_id)[:2]


def test_a_long_group_of_claims_is_chosen_argument_by_argument(browser, server):
    """A long group of choices that take several arguments (a route, a colour, how many
    locomotives) is a drop-down list per argument, each offering what the ones before it leave,
    and one button saying the choice they make; the button makes that very choice."""
    created = server.create("ticket_to_ride", [{"human": True}, {"bot": "random"}], seed=4)
    match_id, token = created["match"], created["seats"][0]["token"]
    path = f"/api/matches/{match_id}?token={token}"
    doc = server.get(path)
    decide_first(server, match_id, token, doc)  # keep tickets
    deadline = time.monotonic() + WAIT_MS / 1000
    while not any(c["id"].startswith("claim_route(") for c in doc["choices"]):
        assert time.monotonic() < deadline, doc["choices"][:3]
        time.sleep(0.1)
        doc = server.get(path)
    claims = [c for c in doc["choices"] if c["id"].startswith("claim_route(")]
    assert len(claims) > 12 and all(len(c["words"]) == 3 for c in claims)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_selector("#choices .arguments", timeout=WAIT_MS)
    picker = page.locator("#choices .group", has=page.locator("h3", has_text=claims[0]["group"]))
    picker = picker.locator(".arguments[data-action=claim_route]")
    lists = [picker.locator(f"select.argument[data-argument='{at}']") for at in range(3)]
    button = picker.locator("button.argument-choice")
    # each list under its heading: the words the rules declare, else the parameter's kind
    headings = "p => [...p.querySelectorAll('label.argument-heading')].map(l => l.firstChild.data)"
    assert picker.evaluate(headings) == doc["headings"]["claim_route"]
    assert doc["headings"]["claim_route"] == ["route", "color", "locomotives"]

    def offered(at: int, before: list[str]) -> list[str]:
        """The words the list at `at` offers once the lists before it hold `before`."""
        out = []
        for claim in claims:
            if claim["words"][:at] == before and claim["words"][at] not in out:
                out.append(claim["words"][at])
        return out

    routes = offered(0, [])
    assert lists[0].locator("option").all_inner_texts() == routes
    assert button.inner_text() == claims[0]["label"]  # the first choice at first
    # a gray route, in a colour other than its first, with a locomotive if one can stand in
    gray = [c for c in claims if "gray" in c["words"][0]]
    target = max(gray, key=lambda c: (c["words"][2] != "0", c["words"][1] != gray[0]["words"][1]))
    route, colour, locos = target["words"]
    lists[0].select_option(value=route)
    assert lists[1].locator("option").all_inner_texts() == offered(1, [route])
    lists[1].select_option(value=colour)
    counts = offered(2, [route, colour])
    assert lists[2].is_hidden() == (len(counts) == 1)
    if len(counts) > 1:
        assert lists[2].locator("option").all_inner_texts() == counts
        lists[2].select_option(value=locos)
    assert button.inner_text() == target["label"]
    # another route keeps the colour chosen when that route can be paid in it
    other = next(c for c in claims if c["words"][0] != route and c["words"][1] == colour)
    lists[0].select_option(value=other["words"][0])
    assert lists[1].input_value() == colour
    lists[0].select_option(value=route)
    lists[1].select_option(value=colour)
    if len(counts) > 1:
        lists[2].select_option(value=locos)
    assert button.inner_text() == target["label"]
    button.click()
    wait_until_stored(server, match_id, 0, target["id"])


def test_choices_being_made_stay_when_another_player_decides_meanwhile(browser, server):
    """Boxes checked but not yet sent stay checked when the page is sent the same choices again
    (here the other player keeps their tickets at the same time), and the button sends them."""
    created = server.create("ticket_to_ride", [{"human": True}, {"human": True}], seed=4)
    match_id = created["match"]
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    doc = server.get(f"/api/matches/{match_id}?token={tokens[0]}")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server.base + created["seats"][0]["url"])
    page.wait_for_selector("#choices .subset", timeout=WAIT_MS)
    boxes = page.locator("#choices .subset input.subset-item")
    wanted = [boxes.count() - 2, boxes.count() - 1]  # the last two, not the first choice's
    for n in range(boxes.count()):
        boxes.nth(n).set_checked(n in wanted)
    keys = sorted(boxes.nth(n).get_attribute("data-key") for n in wanted)
    (mine,) = [c for c in doc["choices"] if sorted(i["key"] for i in c["items"]) == keys]
    button = page.locator("#choices button.subset-choice")
    assert button.inner_text() == mine["label"]
    other = server.get(f"/api/matches/{match_id}?token={tokens[1]}")
    decide_first(server, match_id, tokens[1], other)
    page.wait_for_function(f"document.body.dataset.decisions > {doc['decisions']}", timeout=WAIT_MS)
    assert [boxes.nth(n).is_checked() for n in range(boxes.count())] == [
        n in wanted for n in range(boxes.count())
    ]
    assert button.inner_text() == mine["label"]
    button.click()
    wait_until_stored(server, match_id, 0, mine["id"])


def decide_first(server: Server, match_id: str, token: str, doc: dict) -> None:
    """The seat of `token` takes the first of its choices in `doc` through the API; as the play
    page does, it sends the choice again when a bot decided meanwhile at the same simultaneous
    choice (409) and the seat's choices are unchanged."""
    action = doc["choices"][0]["id"]
    for _ in range(len(doc["to_move"])):  # each other seat to move decides once at most
        body = {
            "token": token,
            "action": action,
            "decisions": doc["decisions"],
            "version": doc["version"],
        }
        answer = server.call("POST", f"/api/matches/{match_id}/actions", body)
        if answer.status != 409:
            break
        doc = server.get(f"/api/matches/{match_id}?token={token}")
        assert action in doc["legal"], doc["legal"]
    assert answer.status == 200, answer.doc


def wait_until_stored(server: Server, match_id: str, seat: int, action: str) -> None:
    """Wait for the seat's decision to reach the server's database."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while (seat, action) not in server.stored_decisions(match_id):
        assert time.monotonic() < deadline, server.stored_decisions(match_id)
        time.sleep(0.1)
