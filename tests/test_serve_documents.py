"""The play page's documents: each choice's arguments in words (metro/serve/documents.py)."""

from __future__ import annotations

import metro
from metro.serve.documents import argument_words
from runtime.frames import Action
from runtime.values import ArgDescs, IntD, NamedD


def test_each_argument_is_in_the_words_its_label_uses():
    state = metro.load_game("ticket_to_ride").new_game(2, 4)
    while not any(a.name == "claim_route" for a in state.legal_actions(0)):
        for seat in list(state.to_move):
            state.apply(seat, state.legal_actions(seat)[0])
    legal = state.legal_actions(0)
    words = argument_words(legal)
    claims = [(a, said) for a, said in zip(legal, words, strict=True) if a.name == "claim_route"]
    for action, said in claims:
        route, colour, locomotives = said
        assert route in action.label and colour in action.label
        assert locomotives == str(action.args[2])
    assert [w for a, w in zip(legal, words, strict=True) if not a.args] == [[]] * sum(
        1 for a in legal if not a.args
    )


def test_values_that_read_alike_are_told_apart_by_their_ids():
    offers = NamedD(("SE1a", "SE2a", "IN1a"), ("Speculate", "Speculate", "Invest"))
    descs = ArgDescs((offers, IntD()), None)
    legal = [Action((0, "speculate", (o, stake), descs)) for o in range(3) for stake in (1, 2)]
    other = ArgDescs((offers,), None)
    legal.append(Action((1, "take", (2,), other)))  # another action's words stand apart
    words = argument_words(legal)
    assert words[0] == ["Speculate (SE1a)", "1"]
    assert words[3] == ["Speculate (SE2a)", "2"]
    assert words[4] == ["Invest", "1"]
    assert words[6] == ["Invest"]


def test_an_action_whose_argument_has_no_words_of_its_own_has_none():
    state = metro.load_game("tokyo_jutaku").new_game(2, 3)
    for _ in range(200):
        legal = state.legal_actions(state.to_move[0])
        if any(a.name == "place_piece" for a in legal):
            break
        state.apply(state.to_move[0], legal[0])
    words = argument_words(legal)
    placed = [w for a, w in zip(legal, words, strict=True) if a.name == "place_piece"]
    assert placed and all(w is None for w in placed)  # a placement's numbers: the label says it
