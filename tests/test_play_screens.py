"""`metro play`'s screens for every shipped game and configuration, as a person reads them.

Each decision of a seeded game's first seat is drawn as at an 80 x 40 terminal: the screen fits
without scrolling back, no kind of choice is headed twice, no rule-file identifier (`a_b`)
shows in the menu or any section, and each kind of action keeps its number from turn to turn.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from loader.games import game_path
from metro import load_game
from metro.bots import make_bot
from metro.play.saved_games import Setup
from metro.play.screen import PROMPT_LINES
from metro.play.session import Session
from tests.test_play import CONFIGS, IDS

WIDTH, HEIGHT = 80, 40
DECISIONS = 60  # the first seat's decisions drawn per game
IDENTIFIER = re.compile(r"\b[A-Za-z]\w*_\w+\b")
HEADING = re.compile(r"^\s*(\d+)\. (.*) … \(\d+ choices", re.M)


@pytest.mark.parametrize(("game", "expansions", "variants", "players", "bot"), CONFIGS, ids=IDS)
def test_every_screen_fits_and_numbers_each_kind_of_choice_alike(
    game, expansions, variants, players, bot
):
    rules = load_game(game, expansions=expansions, variants=variants)
    console = Console(
        record=True,
        width=WIDTH,
        height=HEIGHT,
        force_terminal=True,  # a terminal's screen is fitted to its height
        color_system=None,
        file=io.StringIO(),
    )
    others = dict.fromkeys(range(1, players), bot)
    setup = Setup(game_path(game), variants, expansions, None, (0,), others, "4")
    session = Session(rules, setup, rules.new_game(players, 4), console)
    seated = [make_bot("random" if p == 0 else bot, f"4/{p}", rules) for p in range(players)]
    numbers: dict[str, str] = {}  # action name -> the number of its kind
    decisions = 0
    while session.state.to_move and decisions < DECISIONS:
        player = session.state.to_move[0]
        if player == 0:
            decisions += 1
            actions = session.state.legal_actions(0)
            session.show(0, actions)
            screen = console.export_text(clear=True)
            lines = screen.splitlines()
            assert len(lines) <= HEIGHT - PROMPT_LINES, screen
            assert max(len(line) for line in lines) <= WIDTH, screen
            menu = screen[screen.index("Your choices") :]
            headings = HEADING.findall(menu)
            assert len({n for n, _ in headings}) == len(headings), menu
            assert not IDENTIFIER.search(menu), menu
            for section in session.sections.values():  # also those left out to fit
                console.print(section.renderable)
            assert not IDENTIFIER.search(console.export_text(clear=True))
            for kind in session.menu(actions).kinds:
                if kind.number:  # a kind of action (a choice's values are numbered plainly)
                    name = kind.choices[0].action.name
                    assert numbers.setdefault(name, kind.number) == kind.number, (name, menu)
        session.take(player, seated[player].choose(session.state, player))


def test_a_kind_number_lists_its_choices_and_a_dotted_number_takes_one():
    rules = load_game("ticket_to_ride")
    console = Console(record=True, width=WIDTH, color_system=None, file=io.StringIO())
    setup = Setup(game_path("ticket_to_ride"), (), (), None, (0,), {1: "random"}, "8")
    session = Session(rules, setup, rules.new_game(2, 8), console)
    bot = make_bot("random", "8", rules)
    while not any(a.name == "claim_route" for a in session.state.legal_actions(0)):
        player = session.state.to_move[0]
        session.take(player, bot.choose(session.state, player))
    actions = session.state.legal_actions(0)
    claims = [a for a in actions if a.name == "claim_route"]
    assert len(claims) > 1
    session.show(0, actions)
    console.export_text(clear=True)
    assert session.answer(0, actions, "5").name == "ASK_AGAIN"  # claim_route is kind 5
    listed = console.export_text(clear=True)
    assert re.findall(r"^\s*(5\.\d+)\. claim", listed, re.M)[:2] == ["5.1", "5.2"], listed
    assert session.answer(0, actions, "5.2") == claims[1]
    assert session.answer(0, actions, "99").name == "ASK_AGAIN"
    assert "There is no choice 99: the choices are " in console.export_text(clear=True)
