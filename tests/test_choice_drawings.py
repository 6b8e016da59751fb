"""Drawings standing for a choice (`chooses`): what the checker refuses, where, and what the
board of the seat choosing carries (every argument of the choice, `data-chooses`)."""

from __future__ import annotations

import os
import random
import xml.etree.ElementTree as ET

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError
from loader import load_game
from metro.render.pictures import open_pictures, position_scene
from metro.render.svg import scene_bounds, to_svg

GAME = """game "Pick" {{
  players 2..2
  default map "m.metro"
  map schema {{
    kind city(x: int, y: int)
    kind road(a: city, b: city)
  }}
  state {{ owner: map road -> player? public  deck: list of int hidden }}
  per player {{ score: int public }}
  action claim(r: road where owner[r] is none, n in [1, 2]) label "claim {{r}} with {{n}}" {{
    owner[r] = me
    me.score += n
  }}
  flow {{
    loop {{
      for p in players {{ choose by p {{ claim }} else {{ end game }} }}
    }}
  }}
  score(p) = p.score
  rank p by p.score desc
  draw "cities" for c in city: point at (c.x, c.y)
  {draws}
}}
"""
MAP = """map "M" for "Pick" {
  city A(x: 0, y: 0)
  city B(x: 10, y: 0)
  city C(x: 0, y: 10)
  road AB(a: A, b: B)
  road AC(a: A, b: C)
}
"""
CLAIMS = 'draw "claims" for r in road where owner[r] is none, n in [1, 2]:\n    '


def write_game(tmp_path, draws: str) -> str:
    (tmp_path / "rules.metro").write_text(GAME.format(draws=draws), encoding="utf-8")
    (tmp_path / "m.metro").write_text(MAP, encoding="utf-8")
    return str(tmp_path)


def diagnose(tmp_path, draws: str) -> list[str]:
    """The first line of each diagnostic (file name only)."""
    write_game(tmp_path, draws)
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path))
    return [
        d.render(caught.value.sources).splitlines()[0].replace(str(tmp_path) + os.sep, "")
        for d in caught.value.diagnostics
    ]


@pytest.mark.parametrize(
    ("draws", "expected"),
    [
        (
            CLAIMS + 'line from r.a to r.b chooses "r"',
            "rules.metro:23:34: error[type]: 'chooses' is the choice the shape stands for: a "
            "choice's argument (a map element, enum value, player, number or placement), or a "
            "tuple of them, not text",
        ),
        (
            CLAIMS + "line from r.a to r.b chooses [r]",
            "rules.metro:23:34: error[type]: 'chooses' is the choice the shape stands for: a "
            "choice's argument (a map element, enum value, player, number or placement), or a "
            "tuple of them, not list of road",
        ),
        (
            'draw "ends" for c in city: point at c chooses c',
            "rules.metro:22:41: error[structure]: `chooses` draws the choices offered in a "
            "position: it goes in a drawing that reads the game state",
        ),
        (
            'draw "ends" for c in city where size(players) > 1: point at c chooses c',
            "rules.metro:22:73: error[type]: 'chooses' names a choice with arguments (city), and "
            "no action or `choose` of this game has arguments of all these types",
        ),
        (
            CLAIMS + "line from r.a to r.b chooses (r, n) names r",
            "rules.metro:23:26: error[structure]: a shape stands for things (`names`) or for a "
            "choice (`chooses`), not both",
        ),
        (
            'draw "again" for r in road where owner[r] is none: colour "#f00" chooses r',
            "rules.metro:22:68: error[structure]: 'chooses' does not apply to a restyle (a "
            "drawing without a shape)",
        ),
        (
            'draw "secret" for r in road: line from r.a to r.b chooses (r, deck[0])',
            "rules.metro:22:65: error[visibility]: this drawing would reveal the hidden field "
            "'deck' (only its size() may be used here)",
        ),
    ],
)
def test_choice_drawings_written_wrong_get_exact_diagnostics(tmp_path, draws, expected):
    assert expected in diagnose(tmp_path, draws)


def choice_keys(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [g.get("data-chooses") for g in root.iter() if g.get("data-chooses")]


def test_a_choice_drawing_is_drawn_only_for_the_choices_offered(tmp_path):
    path = write_game(tmp_path, CLAIMS + "line from r.a to r.b width 3 chooses (r, n)")
    pictures = open_pictures(path)
    game = load_game(path)
    state = game.new_game(2, 1)
    namer = pictures.action_names
    legal = state.legal_actions(state.to_move[0])
    assert [namer.choice_keys(a) for a in legal] == [
        ["road:AB", "n:1"],
        ["road:AB", "n:2"],
        ["road:AC", "n:1"],
        ["road:AC", "n:2"],
    ]

    def drawn(choices) -> list[str]:
        scene = position_scene(pictures, game, state, 0, choices=choices)
        return choice_keys(to_svg(scene, scene_bounds(scene, 1), 1))

    every = [frozenset(namer.choice_keys(a)) for a in legal]
    assert drawn(every) == ["road:AB n:1", "road:AB n:2", "road:AC n:1", "road:AC n:2"]
    # only what is offered; nothing in a picture of the position (metro render, replays)
    assert drawn(every[1:2]) == ["road:AB n:2"]
    assert drawn(None) == []
    scene = position_scene(pictures, game, state, None)
    assert choice_keys(to_svg(scene, scene_bounds(scene, 1), 1)) == []


def test_where_a_red_drink_moves_a_piece_is_drawn_for_each_place_it_can_go():
    """Bottle Bonus: after placing with the red drink, the piece moved (`moving`) is drawn at
    every place it can go, each standing for that `to` choice."""
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "games", "tokyo_jutaku")
    game = load_game(path, expansions=["bottle_bonus"])
    pictures = open_pictures(path, expansions=["bottle_bonus"])
    namer = pictures.action_names
    leading = ("declare_red", "red_place", "place_piece")
    for seed in range(40):
        state, rng = game.new_game(2, seed), random.Random(seed)
        for _ in range(3000):
            if state.is_over:
                break
            seat = rng.choice(state.to_move)
            legal = state.legal_actions(seat)
            moves = [a for a in legal if a.name == "to"]
            if moves:
                scene = position_scene(
                    pictures,
                    game,
                    state,
                    seat,
                    choices=[frozenset(namer.choice_keys(a)) for a in legal],
                )
                drawn = [
                    set(k.split()) for k in choice_keys(to_svg(scene, scene_bounds(scene, 1), 1))
                ]
                for move in moves:
                    assert any(keys <= set(namer.choice_keys(move)) for keys in drawn), move.label
                assert all(any(keys <= set(namer.choice_keys(m)) for m in moves) for keys in drawn)
                return
            moved = [a for a in legal if a.name == "moved" and a.args[0] >= 0]
            state.apply(seat, rng.choice([a for a in legal if a.name in leading] or moved or legal))
    pytest.fail("no red drink moved a piece")


def test_each_piece_that_can_go_back_is_drawn_standing_for_its_return():
    """Tokyo Jutaku: the cells of each removable piece stand for returning it (its number)."""
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "games", "tokyo_jutaku")
    game = load_game(path)
    pictures = open_pictures(path)
    namer = pictures.action_names
    state, rng = game.new_game(2, 3), random.Random(3)
    for _ in range(500):
        seat = rng.choice(state.to_move)
        legal = state.legal_actions(seat)
        returns = [a for a in legal if a.name == "return_piece"]
        if len(returns) > 1:
            offered = [frozenset(namer.choice_keys(a)) for a in legal]
            scene = position_scene(pictures, game, state, seat, choices=offered)
            drawn = [set(k.split()) for k in choice_keys(to_svg(scene, scene_bounds(scene, 1), 1))]
            for back in returns:
                assert [keys for keys in drawn if keys == set(namer.choice_keys(back))], back.label
            return
        state.apply(seat, rng.choice([a for a in legal if a.name == "place_piece"] or legal))
    pytest.fail("no two pieces could go back")
