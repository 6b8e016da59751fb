"""Capture the text screenshot of `metro play` in README.md: docs/images/play-ticket-to-ride.txt.

Run `python docs/images/capture_play.py` from the repository root: three seats, seed 8, random
bots for everyone until P1 may claim a route touching Atlanta, then P1's screen and `Atl` typed.
"""

from __future__ import annotations

from rich.console import Console

from metro import load_game
from metro.bots import make_bot
from metro.play import Session, Setup


def main() -> None:
    """Play to the moment, then write the screen as text."""
    game = load_game("ticket_to_ride")
    console = Console(record=True, width=100, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    setup = Setup("ticket_to_ride", (), (), None, (0,), {1: "random", 2: "random"}, "8")
    session = Session(game, setup, game.new_game(3, 8), console)
    bots = [make_bot("random", f"8/{p}", game) for p in range(3)]
    while True:
        player = session.state.to_move[0]
        actions = session.state.legal_actions(player)
        if player == 0 and any("Atlanta" in a.label for a in actions if a.name == "claim_route"):
            break
        session.take(player, bots[player].choose(session.state, player))
    session.seen_up_to[0] = max(0, len(session.log.moves) - 6)
    session.show(0, actions)
    console.print("P1, your choice> Atl")
    session.answer(0, actions, "Atl")
    with open("docs/images/play-ticket-to-ride.txt", "w", encoding="utf-8") as handle:
        handle.write(console.export_text())


if __name__ == "__main__":
    main()
