"""Capture the text screenshots of `metro play` shown in docs/getting-started.md and README.md (docs/images/play-*.txt).

Run `python docs/images/capture_play.py` from the repository root. Ticket to Ride: three
seats, seed 8, random bots for everyone until P1 may claim a route touching Atlanta, then P1's
screen and `Atl` typed. Tokyo Jutaku: two seats, seed 1, planner bots until P1 has placed three
pieces, then P1's screen and `bar2` typed.
"""

from __future__ import annotations

from rich.console import Console

from metro import load_game
from metro.bots import make_bot
from metro.play.saved_games import Setup
from metro.play.session import Session


def capture(name: str, players: int, seed: int, bot: str, ready, typed: str, path: str) -> None:
    """Let bots play every seat until `ready(state, P1's actions)`, then write P1's screen."""
    game = load_game(name)
    console = Console(
        record=True,
        width=100,
        height=40,
        force_terminal=True,  # fitted to a 40-line terminal, as a person sees it
        color_system=None,
        file=open("/dev/null", "w"),  # noqa: SIM115
    )
    others = dict.fromkeys(range(1, players), bot)
    setup = Setup(name, (), (), None, (0,), others, str(seed))
    session = Session(game, setup, game.new_game(players, seed), console)
    bots = [make_bot(bot, f"{seed}/{p}", game) for p in range(players)]
    while True:
        player = session.state.to_move[0]
        actions = session.state.legal_actions(player)
        if player == 0 and ready(session.state, actions):
            break
        session.take(player, bots[player].choose(session.state, player))
    session.seen_up_to[0] = max(0, len(session.log.moves) - 6)
    session.show(0, actions)
    console.print(f"P1, your choice> {typed}")
    session.answer(0, actions, typed)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(console.export_text())


def main() -> None:
    """Play to each moment, then write the screens as text."""
    capture(
        "ticket_to_ride",
        3,
        8,
        "random",
        lambda state, actions: any(
            "Atlanta" in a.label for a in actions if a.name == "claim_route"
        ),
        "Atl",
        "docs/images/play-ticket-to-ride.txt",
    )
    capture(
        "tokyo_jutaku",
        2,
        1,
        "planner",
        lambda state, actions: len(state.to_doc()["player_state"][0]["pieces"]) == 3,
        "bar2",
        "docs/images/play-tokyo-jutaku.txt",
    )


if __name__ == "__main__":
    main()
