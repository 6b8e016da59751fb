"""Metro Drinks with the other card set, the Osaka map and solo: the rules that depend on the
combination (the Tokyo cards' case is in the expansion's own scenarios).

"『OSAKA METRO EXPANSION』のアクションカードを使って遊ぶ場合は、形状カードを3枚ではなく4枚任意に取り
除き、残りの8枚をよく混ぜてアクションカードの6つ目の山札とします。"
"""

from __future__ import annotations

import json
import os

import pytest

from loader import load_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METRO = os.path.join(ROOT, "games", "tokyo_metro")
COLOURS = 6
COLOUR_NAMES = {"red", "mint", "black", "white", "blue", "purple"}  # the library's colour cards

COMBINATIONS = {
    # label: (expansions, variants, cards in an action deck, action decks)
    "Tokyo map, Tokyo cards": (("drinks",), (), 9, 6),
    "Osaka map, Osaka cards": (("osaka", "drinks"), (), 8, 5),
    "Tokyo map, Osaka cards": (("drinks",), ("cards-osaka",), 8, 5),
    "Osaka map, Tokyo cards": (("osaka", "drinks"), ("cards-tokyo",), 9, 6),
}


def start(expansions, variants, players: int, seed="1"):
    game = load_game(METRO, expansions=expansions, variants=variants)
    return game, game.new_game(players, seed)


def fields(state) -> dict:
    return json.loads(state.to_json())["state"]


def pass_round(state) -> None:
    """Everybody bids 0, stays (round 1: takes the first free square) and passes, until the
    next round's bids or the end."""
    start_round = fields(state)["round"]
    while state.to_move and not (fields(state)["round"] > start_round and _bidding(state)):
        player = state.to_move[0]
        legal = {a.id: a for a in state.legal_actions(player)}
        wanted = [i for i in ("bids(0)", "dest(none)", "pass") if i in legal]
        first = sorted(i for i in legal if i.startswith("first_square("))
        state.apply(player, legal[(wanted or first)[0]])


def _bidding(state) -> bool:
    return any(a.id == "bids(0)" for a in state.legal_actions(state.to_move[0]))


@pytest.mark.parametrize("label", sorted(COMBINATIONS))
def test_the_stack_is_as_tall_as_an_action_deck(label):
    expansions, variants, cards, decks = COMBINATIONS[label]
    _, state = start(expansions, variants, 3)
    data = fields(state)
    assert len(data["draw_pile"]) == decks  # the stack is one column more: a 7th or a 6th
    assert all(len(pile) + 3 == cards for pile in data["draw_pile"].values())
    shapes_kept = cards - COLOURS  # 3 with the Tokyo cards, 2 with the Osaka cards
    assert len(data["stock_box"]) == 12 - cards == 6 - shapes_kept
    assert len(data["stock_column"]) == 3 and len(data["stock_pile"]) == cards - 3
    dealt = data["stock_pile"] + data["stock_column"]
    colour_cards = [c for c in dealt if c.removesuffix("_card") in COLOUR_NAMES]
    assert len(colour_cards) == COLOURS and len(dealt) - COLOURS == shapes_kept


@pytest.mark.parametrize("label", sorted(COMBINATIONS))
def test_every_column_runs_out_at_the_same_refill(label):
    expansions, variants, cards, _ = COMBINATIONS[label]
    players = 4
    _, state = start(expansions, variants, players)
    rounds = 0
    while not state.is_over:
        pass_round(state)
        rounds += 1
        data = fields(state)
        assert {len(p) for p in data["draw_pile"].values()} == {len(data["stock_pile"])}
    assert rounds == cards - players + 1
    assert fields(state)["stock_pile"] == []


def test_solo_deals_the_stack_as_for_two_players():
    _, state = start(("drinks",), ("solo",), 1)
    data = fields(state)
    assert len(data["stock_column"]) == 2 and len(data["stock_pile"]) == 7
    rounds = 0
    while not state.is_over:
        pass_round(state)
        rounds += 1
    assert rounds == 8


def test_the_breakdown_shows_the_drinks_money_and_adds_up():
    from metro.bots import make_bot

    game = load_game(METRO, expansions=("drinks",))
    seen = dict.fromkeys(
        ("Drink bonuses at stations", "Vending machine fees received", "Vending machine fees paid"),
        0,
    )
    for seed in range(1, 9):
        state = game.new_game(3, str(seed))
        bots = [make_bot("vendor", f"{seed}/{p}", game) for p in range(3)]
        while state.to_move:
            p = state.to_move[0]
            state.apply(p, bots[p].choose(state, p))
        for p in range(3):
            entries = dict(state.breakdown(p))
            assert sum(int(text) for text in entries.values()) == state.scores()[p]
            for heading in seen:
                seen[heading] += int(entries[heading]) != 0
    assert all(seen.values()), seen  # the vendors' games pay bonuses and fees
