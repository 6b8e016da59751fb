"""`metro replay`: one self-contained page; each view holds only what its player saw; secret
choices are held back until revealed; and the page works in a real headless Chromium."""

from __future__ import annotations

import json
import os
import re

import pytest
from click.testing import CliRunner

from loader import load_game
from metro.bots import make_bot
from metro.cli import main
from metro.play.moves import replayed
from metro.render import open_pictures
from metro.render.replay import replay_page

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TTR = os.path.join(ROOT, "games", "ticket_to_ride")
TOKYO = os.path.join(ROOT, "games", "tokyo_metro")


def played(game, players: int, decisions: int, seed: int = 4) -> list[tuple[int, str]]:
    """The history of a game between random bots, cut after `decisions`."""
    state = game.new_game(players, seed)
    bots = [make_bot("random", f"{seed}/{p}", game) for p in range(players)]
    while state.to_move and len(state.history) < decisions:
        player = state.to_move[0]
        state.apply(player, bots[player].choose(state, player))
    return [(p, a.id) for p, a in state.history]


def page_data(html: str) -> dict:
    found = re.search(
        r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S
    )
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def ttr_page():
    """A 2-player Ticket to Ride replay (its first 40 decisions) with every view."""
    game = load_game(TTR)
    pictures = open_pictures(TTR)
    history = played(game, 2, 40)
    html = replay_page(pictures, game, 2, 4, history, [None, 0, 1])
    return game, history, html


def test_the_page_is_one_self_contained_file(ttr_page):
    _, history, html = ttr_page
    assert html.startswith("<!DOCTYPE html>")
    # no network reference: no external script, style, image or link; the only URL is the
    # SVG namespace name, which is never fetched
    assert re.findall(r"https?://[^\s\"']+", html) == ["http://www.w3.org/2000/svg"]
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", html)
    data = page_data(html)
    assert [v["key"] for v in data["views"]] == ["everyone", "P1", "P2"]
    assert len(data["steps"]) == len(history) + 1
    for view in data["views"]:
        assert len(view["frames"]) == len(history) + 1
        assert len(view["moves"]) == len(history)
        assert all(len(frame) == len(data["layers"]) for frame in view["frames"])


def test_a_view_holds_only_what_its_player_saw(ttr_page):
    game, history, html = ttr_page
    data = page_data(html)
    views = {v["key"]: v for v in data["views"]}
    state = game.replay(2, 4, history)
    tickets = game.module.K_ticket__label
    mine = [tickets[t] for t in state.p_tickets[0]]
    theirs = [tickets[t] for t in state.p_tickets[1]]
    assert mine and theirs

    def seen(view) -> str:
        """Everything a view's data refers to: its changes, moves and drawings."""
        fragments = {i for frame in view["frames"] for i in frame}
        text = json.dumps([view["changes"], view["moves"]])
        return text + "".join(data["pool"][i] for i in fragments)

    for key, own, other in (("P1", mine, theirs), ("P2", theirs, mine)):
        text = seen(views[key])
        assert all(f"<title>{t}</title>" in text for t in own)  # its tickets are drawn
        assert not any(f"<title>{t}</title>" in text for t in other)
        final = {}
        for change in views[key]["changes"]:
            final.update(change)
        assert final[f"{key}\tTickets"] == ", ".join(own)
        other_seat = "P2" if key == "P1" else "P1"
        assert final[f"{other_seat}\tTickets"].endswith("hidden")
    public = seen(views["everyone"])
    assert not any(f"<title>{t}</title>" in public for t in mine + theirs)
    # The first choice, the tickets each keeps, is secret and private: the others only ever
    # learn that it was made.
    private = "P1: made a private choice (keep)"
    assert views["P2"]["moves"][0] == ["P1: has chosen (in secret)", private, 2]
    assert views["everyone"]["moves"][0] == ["P1: has chosen (in secret)", private, 2]
    assert views["P1"]["moves"][0][0].startswith("P1: keep ")


def test_a_long_pile_reads_as_how_many_of_each(ttr_page):
    game, history, html = ttr_page
    state = game.replay(2, 4, history)
    discard = state.g_discard
    assert len(discard) > 8
    final = {}
    for change in page_data(html)["views"][0]["changes"]:
        final.update(change)
    text = final["table\tDiscard pile"]
    head, counts = text.split(": ", 1)
    assert head == f"{len(discard)} in all"
    parts = counts.split(", ")
    assert len(parts) == len(set(discard)) < len(discard)  # one entry per card colour
    assert sum(int(p.split(" ×")[1]) if " ×" in p else 1 for p in parts) == len(discard)


def test_each_position_rings_what_the_move_that_led_to_it_named(ttr_page):
    game, history, html = ttr_page
    data = page_data(html)
    assert data["layers"][-1] == {"name": "last moves", "restyle": False}
    pictures = open_pictures(TTR)
    public = data["views"][0]
    claims = face_up = 0
    for step, (_, action) in enumerate(history, start=1):
        marks = data["pool"][public["frames"][step][-1]]
        if action.startswith(("draw_face_up", "second_face_up")):
            # a drawing of the state: the face-up cards of the colour taken, if any are left
            (colour,) = game.parse_action(action).args
            shown = int(game.replay(2, 4, history[:step]).g_face_up[colour] > 0)
            assert marks.count('class="mark"') == shown
            face_up += shown
        if not action.startswith("claim"):
            assert "data-item" not in marks  # no map item
            continue
        state = game.replay(2, 4, history[:step])
        before = game.replay(2, 4, history[: step - 1]).g_owner
        (route,) = [r for r, owner in enumerate(state.g_owner) if owner != before[r]]
        (drawn,) = pictures.layout.of_element[("route", route)]
        assert f'data-item="i{drawn.number}"' in marks
        claims += 1
    assert claims and face_up


def test_a_replay_restricted_to_one_player_holds_no_other_view(tmp_path):
    out = tmp_path / "p1.html"
    args = ["replay", TTR, "--players", "2", "--seed", "4", "--as", "P1", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "1 view" in result.stdout
    data = page_data(out.read_text(encoding="utf-8"))
    assert [v["key"] for v in data["views"]] == ["P1"]
    text = out.read_text(encoding="utf-8")
    assert "P2\\tTickets" in text and "P1: made a private choice" not in text


def test_secret_bids_are_shown_once_everyone_has_bid():
    game = load_game(TOKYO)
    history = played(game, 3, 10)
    moves = replayed(game, 3, 4, history)[1].moves
    bids = [m for m in moves if m.action.name == "bids"]
    assert [m.player for m in bids] == [0, 1, 2]
    assert {m.revealed for m in bids} == {3}  # after the third bid, all three are known
    first = bids[0]
    assert first.line(1, 1) == "P1: has chosen (in secret)"
    assert first.line(0, 1) == first.line(1, 3) == f"P1: {first.action.label}"
    assert first.line(None, 2) == "P1: has chosen (in secret)"


def test_the_page_steps_and_switches_views_in_a_real_browser(browser, ttr_page, tmp_path):
    game, history, html = ttr_page
    path = tmp_path / "replay.html"
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    last = len(history)
    assert page.inner_text("#position") == f"position 0 of {last}"
    assert page.locator("#moves li").count() == 0
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#position") == f"position 3 of {last}"
    assert page.locator("#moves li").count() == 3
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#position") == f"position 1 of {last}"
    # in everyone's view the secret ticket choice shows as made until both chose, and then
    # only its name, never which tickets
    assert page.inner_text("#moves li >> nth=0") == "P1: has chosen (in secret)"
    page.click("#next")
    assert page.inner_text("#moves li >> nth=0") == "P1: made a private choice (keep)"
    page.click("#last")
    assert page.inner_text("#position") == f"position {last} of {last}"
    layer = next(i for i, d in enumerate(page_data(html)["layers"]) if d["name"] == "your tickets")
    assert page.locator(f"#layer-{layer} g.item").count() == 0  # nobody's tickets in public
    page.select_option("#view", "P1")
    state = game.replay(2, 4, history)
    titles = page.locator(f"#layer-{layer} g.item title").all_text_contents()
    assert sorted(titles) == sorted(game.module.K_ticket__label[t] for t in state.p_tickets[0])
    assert page.inner_text("#data-title") == "What P1 sees"
    assert page.inner_text("#moves li >> nth=0").startswith("P1: keep ")
    owned = sum(1 for owner in state.g_owner if owner is not None)
    trains = next(i for i, d in enumerate(page_data(html)["layers"]) if d["name"] == "trains")
    assert page.locator(f"#layer-{trains} g.item").count() == owned > 0
    page.click("#first")
    assert page.inner_text("#position") == f"position 0 of {last}"
    page.keyboard.press("End")
    assert page.inner_text("#position") == f"position {last} of {last}"
    page.click("#moves li >> nth=4")
    assert page.inner_text("#position") == f"position 5 of {last}"
    assert page.evaluate("location.hash") == "#step=5&view=P1"
    page.goto(path.as_uri() + "#step=7&view=P2")  # a link to a position and a view
    assert page.inner_text("#position") == f"position 7 of {last}"
    assert page.input_value("#view") == "P2"
    assert errors == []
    assert [url for url in requests if not url.startswith("file://")] == []
    page.close()


def test_the_board_fills_its_column_scales_up_and_spreads_across_the_page(
    browser, ttr_page, tmp_path
):
    _, _, html = ttr_page
    path = tmp_path / "replay.html"
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(path.as_uri())

    def widths() -> tuple[float, float]:
        """The board's inner width and its picture's width, in CSS pixels."""
        return page.evaluate(
            "() => [document.getElementById('board').clientWidth,"
            " document.querySelector('#board svg').getBoundingClientRect().width]"
        )

    room, drawn = widths()
    assert drawn == pytest.approx(room, abs=1)  # the whole width of its column
    page.click("#zoom-in")
    page.click("#zoom-in")
    assert widths()[1] == pytest.approx(1.5 * room, abs=1)  # scaled up; the board scrolls
    page.keyboard.press("0")
    assert widths()[1] == pytest.approx(room, abs=1)
    page.click("#wide")  # the moves and the view's data go under the board
    wide, drawn = widths()
    assert wide > room + 300 and drawn == pytest.approx(wide, abs=1)
    board = page.locator("#board").bounding_box()
    moves = page.locator("#moves").bounding_box()
    assert moves["y"] > board["y"] + board["height"] - 1
    page.close()
