"""Piece placements are chosen on `metro serve`'s board: every legal placement of a position
has shapes on the seat's board (`chooses` in the rules: the cells the piece would cover) that
carry every argument of that choice, so a click there makes it; nobody else's board has them.
"""

from __future__ import annotations

import random
import urllib.request
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from loader import load_game
from loader.games import game_path
from tests.serve_helpers import Server

HUMAN = {"human": True}

# (game, variants, expansions, the choice placing a piece, choices that lead to it)
POSITIONS = [
    ("izakaya", [], [], "build_at", ("build_piece", "build_area")),
    ("tokyo_jutaku", [], [], "place_piece", ()),
    ("tokyo_jutaku", ["tower"], [], "tower_place", ()),
    ("tokyo_jutaku", [], ["bottle_bonus"], "place_piece", ("start_round",)),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Server(
        str(tmp_path_factory.mktemp("serve") / "matches.sqlite3"), ("izakaya", "tokyo_jutaku")
    )
    yield running
    running.stop()


def board(server: Server, match_id: str, token: str | None) -> ET.Element:
    query = f"?token={token}" if token else ""
    with urllib.request.urlopen(f"{server.base}/api/matches/{match_id}/board{query}") as answer:
        return ET.fromstring(answer.read())


def choice_shapes(svg: ET.Element) -> list[set[str]]:
    """What each shape standing for a choice carries: every argument of it."""
    return [set(g.get("data-chooses").split()) for g in svg.iter() if g.get("data-chooses")]


@pytest.mark.parametrize(
    ("name", "variants", "expansions", "placing", "leading"),
    POSITIONS,
    ids=["+".join((p[0], *p[1], *p[2])) for p in POSITIONS],
)
def test_every_legal_placement_is_on_the_board_of_the_seat_placing(
    server, name, variants, expansions, placing, leading
):
    game = load_game(game_path(name), variants=variants, expansions=expansions)
    created = server.call(
        "POST",
        "/api/matches",
        {
            "game": name,
            "seed": 5,
            "variants": variants,
            "expansions": expansions,
            "seats": [HUMAN, HUMAN],
        },
    ).doc
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    state = game.new_game(2, 5)
    rng = random.Random(name)
    # play (the same moves here and on the server) until seat 0 is to place a piece
    for _ in range(400):
        if 0 in state.to_move and any(a.name == placing for a in state.legal_actions(0)):
            break
        seat = rng.choice(state.to_move)
        legal = state.legal_actions(seat)
        action = rng.choice([a for a in legal if a.name in leading] or legal)
        answer = server.call(
            "POST",
            f"/api/matches/{match_id}/actions",
            {"token": tokens[seat], "action": action.id, "decisions": len(state.history)},
        )
        assert answer.status == 200, answer.doc
        state.apply(seat, action)
    else:
        pytest.fail(f"no {placing} choice came")
    doc = server.get(f"/api/matches/{match_id}?token={tokens[0]}")
    placements = [
        c
        for c in doc["choices"]
        if c["id"] in {a.id for a in state.legal_actions(0) if a.name == placing}
    ]
    assert len(placements) > 1
    shapes = choice_shapes(board(server, match_id, tokens[0]))
    # each placement has its shapes (a click on one makes it: alone, or among the few other
    # choices covering the same place, offered beside the board), and no two placements the
    # same ones, so each can be told apart on the board
    drawn = {}
    for choice in placements:
        arguments = set(choice["arguments"])
        mine = frozenset(n for n, keys in enumerate(shapes) if keys <= arguments)
        assert mine, choice["label"]
        drawn[mine] = drawn.get(mine, set()) | {tuple(choice["arguments"])}
    assert all(len(arguments) == 1 for arguments in drawn.values())
    # every shape stands for a choice the seat has now
    assert all(any(keys <= set(c["arguments"]) for c in doc["choices"]) for keys in shapes)
    # nobody else's board shows the seat's choices
    if 1 not in state.to_move:
        assert choice_shapes(board(server, match_id, tokens[1])) == []
    assert choice_shapes(board(server, match_id, None)) == []
