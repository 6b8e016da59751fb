"""`metro play` driven as a person drives it: through a pseudo-terminal, answer by answer.

For every shipped game and configuration: a whole game answered from the screen alone; a few
moves, a filtered menu, help, undo, save and --load; and, from a save one decision before the
end, the last move and the end screen with the rules' score breakdown (adding up to the score). Then hot seat (a clear screen between people, nobody's secrets on
another's screen) and a narrow terminal without colour.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

from loader.games import game_path  # noqa: E402
from metro import load_game  # noqa: E402 - after the skip: nothing to test without pexpect
from metro.bots import make_bot  # noqa: E402
from metro.play.saved_games import SAVE_FORMAT, Setup  # noqa: E402

PROMPT = r"your choice> "
CONFIGS = [  # game, --with, --variant, players, bot
    ("ticket_to_ride", (), (), 2, "random"),
    ("tokyo_metro", (), (), 2, "random"),
    ("tokyo_metro", ("osaka",), (), 2, "random"),
    ("tokyo_metro", (), ("cards-osaka",), 2, "random"),
    ("tokyo_metro", (), ("solo",), 1, "random"),
    ("tokyo_metro", ("drinks",), (), 2, "vendor"),
    ("tokyo_metro", ("osaka", "drinks"), (), 2, "random"),
    ("tokyo_jutaku", (), (), 2, "planner"),
    ("tokyo_jutaku", (), ("tower",), 2, "tower"),
    ("izakaya", (), (), 3, "host"),
    ("shopping_centre", (), (), 2, "shopper"),
    ("jidohanbaiki", (), (), 2, "trader"),
]
IDS = ["-".join([c[0], *c[1], *c[2]]) for c in CONFIGS]
COLOUR = re.compile(r"\x1b\[(3[0-9]|9[0-7]|4[0-9])")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# `12.`, `3.2.` (the second choice of kind 3), or a collapsed choice of values `7-60.`
MENU_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)(?:-(\d+))?\.\s", re.M)


def spawn(args: list[str], columns: int = 110, lines: int = 50, **env):
    """`metro play ARGS` in a pseudo-terminal of `columns` x `lines`, without colour."""
    environment = dict(os.environ, NO_COLOR="1", COLUMNS=str(columns), LINES=str(lines), **env)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "metro", "play", *args],
        env=environment,
        encoding="utf-8",
        timeout=90,
        dimensions=(lines, columns),
    )
    return child


def options(game: str, expansions, variants) -> list[str]:
    return [game] + [f"--with={e}" for e in expansions] + [f"--variant={v}" for v in variants]


def screen_after(child, answer: str) -> str:
    """Send one answer; the text printed up to the next prompt."""
    child.sendline(answer)
    child.expect(PROMPT)
    return child.before


def choice_numbers(screen: str) -> list[str]:
    """The numbers on a screen's menu that take a choice (not a kind's number, which lists them)."""
    menu = ANSI.sub("", screen[screen.index("Your choices") :])
    out = []
    for line in menu.splitlines():
        found = MENU_NUMBER.match(line)
        if not found:
            continue
        first, last = found.groups()
        if last is not None:  # a collapsed choice of values: every number in the range
            out += [str(n) for n in range(int(first), int(last) + 1)]
        elif not re.search(r"\(\d+ choices", line):
            out.append(first)
    return out


def first_choice_word(screen: str) -> str:
    """A word of the first numbered choice on a screen (to filter the menu with)."""
    menu = ANSI.sub("", screen[screen.index("Your choices") :])
    found = re.search(r"^\s*[\d.-]+\.\s+(\S+)", menu, re.M)
    assert found, screen
    return found.group(1)


@pytest.mark.parametrize(("game", "expansions", "variants", "players", "bot"), CONFIGS, ids=IDS)
def test_play_filter_help_undo_save_and_load(tmp_path, game, expansions, variants, players, bot):
    args = options(game, expansions, variants) + [
        f"--players={players}",
        "--seed=5",
        f"--bot={bot}",
    ]
    child = spawn(args)
    child.expect(PROMPT)
    first = child.before
    assert "you are P1" in first and "Your choices" in first
    assert "Players" in first or "not shown: players" in first
    assert "Traceback" not in first
    second = screen_after(child, choice_numbers(first)[0])  # the bots answer until P1's turn
    assert "Your choices" in second
    word = first_choice_word(second)
    listed = screen_after(child, word)
    numbered = re.findall(r"^\s*(\d+(?:\.\d+)?)\. (.*)$", ANSI.sub("", listed), re.M)
    assert numbered, listed  # the word is from a label or a group's name: both match
    numbers = [tuple(int(part) for part in n.split(".")) for n, _ in numbered]
    assert numbers == sorted(numbers)  # the menu's own numbers, to answer with
    assert "Answer with" in screen_after(child, "help")
    undone = screen_after(child, "undo")
    assert "Back to your previous decision" in undone and "Your choices" in undone
    save = tmp_path / "game.json"
    assert "Saved to" in screen_after(child, f"save {save}")
    child.sendline("q")
    child.expect(pexpect.EOF)
    doc = json.loads(save.read_text(encoding="utf-8"))
    assert doc["format"] == SAVE_FORMAT and doc["humans"] == [1]
    assert doc["game"] == game  # a shipped game by its name: the save loads on any machine
    assert isinstance(doc["state"]["history"], list)  # the position and how it came about
    if game != "ticket_to_ride" or expansions or variants:
        return  # every configuration is loaded by the end-screen test below
    loaded = spawn(["--load", str(save)])
    loaded.expect(PROMPT)
    assert "you are P1" in loaded.before and "Your choices" in loaded.before
    loaded.sendline("q")
    loaded.expect(pexpect.EOF)


def near_end_save(path, game_name: str, expansions, variants, players: int, bot: str) -> str:
    """A save one decision before the end of a seeded bot game: the person takes the last move."""
    game = load_game(game_name, expansions=expansions, variants=variants)
    bots = [make_bot(bot, f"7/{p}", game) for p in range(players)]
    state = game.new_game(players, 7)
    while state.to_move:
        p = state.to_move[0]
        state.apply(p, bots[p].choose(state, p))
    *earlier, (last_player, last_action) = state.history
    before = game.replay(players, 7, [(p, a.id) for p, a in earlier])
    others = {p: bot for p in range(players) if p != last_player}
    setup = Setup(game_path(game_name), variants, expansions, None, (last_player,), others, "7")
    doc = {"format": SAVE_FORMAT, **setup.to_doc(str(path.parent)), "state": before.to_doc()}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return last_action.id


@pytest.mark.parametrize(("game", "expansions", "variants", "players", "bot"), CONFIGS, ids=IDS)
def test_the_last_move_and_the_end_screen(tmp_path, game, expansions, variants, players, bot):
    save = tmp_path / "end.json"
    last = near_end_save(save, game, expansions, variants, players, bot)
    child = spawn(["--load", str(save)])
    child.expect(PROMPT)
    child.sendline(last)
    child.expect(pexpect.EOF)
    end = child.before
    assert "Game over." in end and "Final scores" in end and "Score" in end, end
    assert re.search(r"Winners?: P\d", end)
    headings = {
        "ticket_to_ride": ["Routes", "Tickets completed", "Tickets failed", "Longest-route bonus"],
        "tokyo_metro": ["Starting money", "Bids for turn order"],
        "tokyo_jutaku": ["Pieces in the tower"] if variants else ["Buildings completed", "Money"],
        "izakaya": ["Black drinks", "Purple drinks"],  # (drinks nobody scored are left out)
        "shopping_centre": ["Drinks", "Salmon", "Shirts and trousers"],
        "jidohanbaiki": ["Money", "Crates (best attribute, count squared x ¥100)"],
    }[game]
    # (Metro Drinks' sources join the money by source; the end screen leaves out a source
    # nobody used, and tests/test_drinks.py checks the breakdown has them)
    for heading in headings:
        assert heading in end, end
    if game != "tokyo_jutaku" or variants:  # numeric breakdowns: each column adds up to the score
        lines = [line.strip() for line in ANSI.sub("", end).splitlines()]
        rows = [
            [cell.strip() for cell in line.strip("|").split("|")]
            for line in lines
            if re.fullmatch(r"\|.*\|\s*-?\d+\s*(\|\s*-?\d+\s*)*\|", line)
        ]
        *parts, (_, *scores) = rows
        for column, score in enumerate(scores, 1):
            assert sum(int(row[column]) for row in parts) == int(score), end


@pytest.mark.parametrize(("game", "expansions", "variants", "players", "bot"), CONFIGS, ids=IDS)
def test_a_whole_game_played_at_the_terminal(game, expansions, variants, players, bot):
    """A person who reads only the screen: at every prompt, one of the numbers shown."""
    args = options(game, expansions, variants) + [f"--players={players}", "--seed=3"]
    child = spawn(args + [f"--bot={bot}"], columns=80, lines=40)
    chooser = random.Random(3)
    answers = 0
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        screen = child.before
        assert "Your choices" in screen and "Traceback" not in screen, screen
        assert len(screen.splitlines()) <= 40, screen  # read without scrolling back
        numbers = choice_numbers(screen)
        if not numbers:  # every kind on one line: its number lists its choices
            kinds = re.findall(r"\(\d+ choices: type (\d+) to list them", screen)
            listed = ANSI.sub("", screen_after(child, chooser.choice(kinds)))
            assert len(listed.splitlines()) <= 40, listed
            numbers = re.findall(r"^\s*(\d+(?:\.\d+)?)\. ", listed, re.M)
        child.sendline(chooser.choice(numbers))
        answers += 1
        assert answers < 400, "the game did not end"
    assert "Game over." in child.before and "Final scores" in child.before, child.before
    assert re.search(r"Winners?: P\d", child.before)


def test_ticket_to_ride_reads_in_words_and_filters_by_city(tmp_path):
    child = spawn(["ticket_to_ride", "--players=2", "--seed=3"])
    child.expect(PROMPT)
    assert re.search(r"keep \w[\w. ]* → [\w. ]+ \(\d+\)", child.before)
    after = screen_after(child, "1")
    assert "P2: made a private choice (keep)" in after  # which tickets P2 kept stays P2's
    assert re.search(r"claim … \(\d+ choices", after) and "draw a card from the deck" in after
    listed = screen_after(child, "Atl")
    claims = re.findall(r"^\s*[\d.]+\. (claim .*)$", listed, re.M)
    assert claims and all("Atlanta" in claim for claim in claims), listed
    assert re.search(r"claim Atlanta–\w+ \(\d, \w+\): \d \w+", listed)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_hot_seat_clears_the_screen_and_hides_the_previous_players_secrets():
    child = spawn(["ticket_to_ride", "--players=2", "--seed=3", "--human=1", "--human=2"])
    child.expect(PROMPT)
    city = r"[A-Z][\w.]*(?: [A-Z][\w.]*)*"
    mine = set(re.findall(rf"{city} → {city} \(\d+\)", child.before))
    assert len(mine) == 3  # the three tickets offered to P1
    child.sendline("1")
    child.expect("Press Enter when you are ready")
    assert "Pass the terminal to P2" in child.before and "\x1b[2J" in child.before
    child.sendline("")
    child.expect(PROMPT)
    assert "you are P2" in child.before
    assert not any(ticket in child.before for ticket in mine)  # none of P1's on P2's screen
    assert "has chosen (in secret)" in child.before  # P1 chose; what stays secret until P2 has
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_a_narrow_terminal_without_colour():
    child = spawn(["tokyo_metro", "--players=2", "--seed=2"], columns=60, TERM="dumb")
    child.expect(PROMPT)
    assert not COLOUR.search(child.before)
    assert max(len(line) for line in child.before.splitlines()) <= 60
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_a_broken_save_is_refused_cleanly(tmp_path):
    save = tmp_path / "bad.json"
    near_end_save(save, "ticket_to_ride", (), (), 2, "random")
    doc = json.loads(save.read_text(encoding="utf-8"))
    doc["state"]["player_state"][0]["trains"] = "many"
    save.write_text(json.dumps(doc), encoding="utf-8")
    child = spawn(["--load", str(save)])
    child.expect(pexpect.EOF)
    assert "cannot continue" in child.before and "trains" in child.before
    assert "Traceback" not in child.before


def test_hot_seat_bids_are_revealed_once_everyone_has_bid():
    child = spawn(["tokyo_metro", "--players=2", "--seed=3", "--human=1", "--human=2"])
    child.expect(PROMPT)
    listed = screen_after(child, "bid 300")
    child.sendline(re.search(r"(\d+)\. bid ¥300", listed).group(1))
    child.expect("Press Enter when you are ready")
    child.sendline("")
    child.expect(PROMPT)
    assert "P1: has chosen (in secret)" in child.before and "P1: bid" not in child.before
    listed = screen_after(child, "bid 500")
    child.sendline(re.search(r"(\d+)\. bid ¥500", listed).group(1))
    child.expect(PROMPT)  # P2 bid more, so P2 places the meeple first
    assert "revealed: P1: bid ¥300" in child.before
    child.sendline("q")
    child.expect(pexpect.EOF)


def menu_of(screen: str) -> list[str]:
    """The lines of a screen's menu, without styles."""
    menu = ANSI.sub("", screen[screen.index("Your choices") :])
    return [line.strip() for line in menu.splitlines() if MENU_NUMBER.match(line)]


def answer_after_undo(child, screen: str) -> str:
    """Answer the menu shown after an undo with its last choice: it must be taken."""
    assert "Back to your previous decision" in screen and "Your choices" in screen, screen
    child.sendline(choice_numbers(screen)[-1])
    assert child.expect([PROMPT, pexpect.EOF]) == 0, child.before
    after = child.before
    assert "There is no choice" not in after and "error" not in after, after
    return after


def test_undo_several_times_in_a_row_then_play_on():
    child = spawn(["ticket_to_ride", "--players=2", "--seed=3", "--bot=random"])
    child.expect(PROMPT)
    tickets = menu_of(child.before)  # which tickets to keep
    after_keep = screen_after(child, "1")
    screen_after(child, choice_numbers(after_keep)[0])  # a draw or a claim
    screen_after(child, "undo")
    undone = screen_after(child, "undo")
    assert menu_of(undone) == tickets  # back at the first decision
    assert "no earlier decision" in screen_after(child, "undo")
    answer_after_undo(child, undone)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_undo_back_into_a_simultaneous_choice():
    # P2 bids after P1's bot has bid in secret; undoing P2's next decision returns to the bid.
    child = spawn(["tokyo_metro", "--players=2", "--seed=3", "--human=2", "--bot=random"])
    child.expect(PROMPT)
    bids = child.before
    assert "bid" in bids
    after_bid = screen_after(child, choice_numbers(bids)[0])
    assert menu_of(after_bid) != menu_of(bids)  # another kind of decision
    undone = screen_after(child, "undo")
    assert menu_of(undone) == menu_of(bids)
    answer_after_undo(child, undone)
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_undo_after_loading_a_save(tmp_path):
    save = tmp_path / "game.json"
    child = spawn(["tokyo_metro", "--players=2", "--seed=4", "--bot=random"])
    child.expect(PROMPT)
    first = child.before
    screen_after(child, choice_numbers(first)[0])
    assert "Saved to" in screen_after(child, f"save {save}")
    child.sendline("q")
    child.expect(pexpect.EOF)
    loaded = spawn(["--load", str(save)])
    loaded.expect(PROMPT)
    undone = screen_after(loaded, "undo")
    assert menu_of(undone) == menu_of(first)
    answer_after_undo(loaded, undone)
    loaded.sendline("q")
    loaded.expect(pexpect.EOF)


def test_a_section_left_out_to_fit_is_paged_on_request():
    child = spawn(["tokyo_metro", "--players=2", "--seed=3"], columns=80, lines=40)
    child.expect(PROMPT)
    left_out = re.search(r"not shown: ([\w, ]+) \(type its name", child.before)
    assert left_out and "table" in left_out.group(1), child.before
    child.sendline("table")
    child.expect("-- more: press Enter")
    page = ANSI.sub("", child.before)
    assert "Table" in page and "Bank" in page, page
    assert len(page.splitlines()) <= 40, page
    child.sendline("q")  # stop paging: back to the question
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
