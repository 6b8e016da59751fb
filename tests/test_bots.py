"""Search bots and the hidden-information sampler: no peeking, conservation, legal and seeded choices."""

from __future__ import annotations

import os
import random
from collections import Counter
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from loader import load_game
from metro.analysis.simulate import play_game, simulate
from metro.bots import (
    MAX_GREEDY_SAMPLES,
    MAX_MCTS_ITERATIONS,
    MAX_MCTS_MILLISECONDS,
    MAX_PRIOR_DEPTH,
    make_bot,
)
from metro.bots.mcts import MctsBot
from metro.cli import main
from runtime import rng
from runtime.determinize import (
    BLANK,
    Container,
    _pool_name,
    _pools,
    deal,
    element_key,
    hidden_containers,
    sample_position,
)
from runtime.values import BagD, ListD, MapD, NamedD, RangeD, SetD
from tests.conftest import ROOT, game_dirs

GAMES = [os.path.basename(path) for path in game_dirs()]
CHECKPOINTS = (3, 25, 70)  # decisions of random play after which positions are sampled

RACE = """\
game "Race" {
  players 2..2
  state { total: int public = 0 }
  per player { points: int public = 0 }
  action wait(k in [1, 2, 3, 4, 5]) { total += k }
  action win() { me.points = 1  end game }
  flow {
    loop {
      for p in players {
        if total >= 30 { end game }
        choose by p { wait, win }
      }
    }
  }
  score(p) = p.points
  rank p by p.points desc
}
"""


@pytest.fixture(scope="module")
def games():
    """Every shipped game, compiled."""
    return {name: load_game(os.path.join(ROOT, "games", name)) for name in GAMES}


@pytest.fixture(scope="module")
def race(tmp_path_factory):
    """A tiny game in which one action wins at once."""
    folder = tmp_path_factory.mktemp("race")
    (folder / "rules.metro").write_text(RACE, encoding="utf-8")
    return load_game(str(folder), use_cache=False)


def positions(game, seed: int = 1):
    """Positions of one random two-player game after each checkpoint's number of decisions."""
    rng = random.Random(seed)
    state = game.new_game(2, seed)
    for step in range(max(CHECKPOINTS) + 1):
        if state.is_over:
            return
        if step in CHECKPOINTS:
            yield state.clone()
        player = state.to_move[0]
        state.apply(player, rng.choice(state.legal_actions(player)))


def hidden_items(state, player: int) -> Counter:
    """The multiset of items `player` cannot see, by element type."""
    counts = Counter()
    for container in hidden_containers(state, player):
        key = element_key(container.desc.item)
        counts.update((key, item) for item in container.items())
    return counts


def hidden_content(state, player: int) -> list:
    """What the hidden containers hold, in order."""
    return [container.items() for container in hidden_containers(state, player)]


@pytest.mark.parametrize("name", GAMES)
def test_a_sample_shows_the_player_exactly_their_view_and_conserves_hidden_items(games, name):
    game = games[name]
    changed = False
    checked = 0
    for state in positions(game):
        before = state.to_json()
        for player in range(state.n):
            for seed in range(4):
                sample = sample_position(state, player, random.Random(seed))
                assert sample.view(player) == state.view(player)
                assert hidden_items(sample, player) == hidden_items(state, player)
                assert sample.rng != state.rng  # the future draws are not the true ones
                assert all(
                    a is BLANK for p, a in sample.history if p != player
                )  # nor what others did
                changed |= hidden_content(sample, player) != hidden_content(state, player)
                for q in sample.to_move:  # the sample is a position the rules go on from
                    assert sample.legal_actions(q)
                checked += 1
        assert state.to_json() == before  # the true position is untouched
    assert checked
    if any(hidden_items(s, 0) for s in positions(game)):
        assert changed, "the hidden data was never re-drawn"


@pytest.mark.parametrize("name", GAMES)
def test_a_sample_keeps_the_players_legal_list_and_indexes_as_fresh_ones_find_them(games, name):
    # The sampler keeps the player's cached legal list (their options never depend on what they
    # cannot see) and the clone's indexes (it re-deals no table of scalars): listing afresh and
    # rebuilding the indexes of the sample finds the same.
    game = games[name]
    module = game.module
    for state in positions(game):
        for player in state.to_move:
            kept = state.legal_actions(player)
            for seed in range(3):
                sample = sample_position(state, player, random.Random(seed), reopen=seed == 2)
                assert sample.legal_actions(player) is kept
                fresh = sample.clone()
                fresh.forget_legal()
                module.refresh_indexes(fresh)
                assert fresh.legal_actions(player) == kept
                assert fresh.to_json() == sample.to_json()
                assert all(
                    getattr(fresh, slot) == getattr(sample, slot)
                    for slot in type(sample).__slots__
                    if slot.startswith("i_")
                )


def test_others_pending_secret_choices_are_redrawn_but_ones_own_is_kept(ttr):
    # The ticket choice at the start is simultaneous: P1 has chosen, P2 not yet.
    state = ttr.new_game(2, 1)
    mine = state.legal_actions(0)[0]
    state.apply(0, mine)
    secret = ttr.module.SITE_SECRETS[state.site]
    true_choice = state.stack[-1].L[secret[1]][0]
    seen = set()
    for seed in range(12):
        sample = sample_position(state, 1, random.Random(seed))
        choice = sample.stack[-1].L[secret[1]][0]
        options = [a.args[0] for a in ttr.sites[sample.site].legal(sample, sample.stack[-1], 0)]
        assert choice in options
        seen.add(repr(choice))
        own = sample_position(state, 0, random.Random(seed))
        assert own.stack[-1].L[secret[1]][0] == true_choice
    assert len(seen) > 1


def dealt_as_pooled(state, player: int, stream: int) -> int:
    """What sample_position's dealing does, written plainly: the hidden containers grouped by
    their items' pool, each pool dealt (`deal`) in the order of the pools' names."""
    pools: dict[str, list[Container]] = {}
    for container in hidden_containers(state, player):
        pools.setdefault(_pool_name(container.desc.item), []).append(container)
    for name in sorted(pools):
        stream = deal(pools[name], stream)
    return stream


class _Module:
    """The parts of a compiled module the sampler reads (weakly referable, as modules are)."""

    tile = NamedD(tuple("abcdefgh"))
    SAVE_FIELDS = (
        ("kept", "g_kept", SetD(tile)),
        ("piles", "g_piles", MapD(RangeD(0, 9, 1), ListD(tile), None)),
        ("rows", "g_rows", MapD(NamedD(("x", "y")), MapD(NamedD(("u", "v")), ListD(tile), 2), 2)),
        ("score", "g_score", RangeD(0, 9, 1)),
        ("open", "g_open", ListD(tile)),
        ("dice", "g_dice", ListD(RangeD(1, 6, 1))),
    )
    SAVE_PLAYER_FIELDS = (
        ("hand", "p_hand", BagD(tile, 8)),
        ("line", "p_line", ListD(tile)),
        ("lines", "p_lines", ListD(ListD(tile))),
    )

    def __init__(self):
        self.STATE_VISIBILITY = {
            **dict.fromkeys(("kept", "piles", "rows", "score", "dice"), "hidden"),
            "open": "public",
        }
        self.PLAYER_VISIBILITY = {"hand": "owner", "line": "hidden", "lines": "hidden"}


def _fake_position(module: _Module) -> SimpleNamespace:
    """A position of `module`'s fields (only what the sampler's dealing reads)."""
    return SimpleNamespace(
        game=SimpleNamespace(module=module),
        n=3,
        g_kept={0, 1, 2},
        g_piles={7: [3, 3, 4], 2: [5], 4: []},
        g_rows=[[[0, 1], [2]], [[6, 7, 7], []]],
        g_score=4,
        g_open=[1, 2],
        g_dice=[6, 1, 1, 3],
        p_hand=[[0, 2, 0, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0, 3], [0, 0, 1, 1, 0, 0, 0, 0]],
        p_line=[[4, 5], [], [6]],
        p_lines=[[[1]], [[2]], [[3]]],
    )


def test_the_sampler_deals_each_pool_as_the_plain_grouping_of_hidden_containers_does():
    # sample_position deals from a plan made once per module (runtime/determinize.py, _pools):
    # the same containers in the same order as grouping hidden_containers by pool, the pools
    # in the same order, the same draws, whatever the fields (sets, bags per player, tables by
    # number and nested tables).
    module = _Module()
    changed = False
    for player in range(3):
        for stream in range(1, 40, 3):
            planned, plain = _fake_position(module), _fake_position(module)
            after = stream
            for pool in _pools(module):
                after = pool.deal(planned, player, after)
            assert after == dealt_as_pooled(plain, player, stream)
            assert vars(planned) == vars(plain)
            assert planned.g_open == [1, 2] and planned.g_score == 4  # public, a scalar
            assert planned.p_lines == [[[1]], [[2]], [[3]]]  # a list of lists is not pooled
            assert planned.p_hand[player] == _fake_position(module).p_hand[player]  # their own
            changed |= vars(planned) != vars(_fake_position(module))
    assert changed


@pytest.mark.parametrize("name", GAMES)
def test_a_sample_is_dealt_as_the_plain_grouping_of_hidden_containers(games, name):
    for state in positions(games[name]):
        for player in range(state.n):
            plain = state.clone()
            dealt_as_pooled(
                plain, player, rng.seed_state(int(random.Random(3).random() * (1 << 53)))
            )
            sample = sample_position(state, player, random.Random(3), reopen=True)
            for attr in {a for _, a, _ in state.game.module.SAVE_FIELDS} | {
                a for _, a, _ in state.game.module.SAVE_PLAYER_FIELDS
            }:
                assert getattr(sample, attr) == getattr(plain, attr), attr


def test_samples_are_reproducible(ttr):
    state = next(positions(ttr))
    first = sample_position(state, 0, random.Random(5)).to_doc()
    assert sample_position(state, 0, random.Random(5)).to_doc() == first


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("spec", ["greedy", "mcts:8"])
def test_search_bots_choose_legal_actions_in_every_game(games, name, spec):
    game = games[name]
    for state in positions(game, seed=2):
        for player in state.to_move:
            bot = make_bot(spec, "legal", game)
            if isinstance(bot, MctsBot):
                bot.playout = 20  # short playouts keep the test fast
            before = state.to_json()
            assert bot.choose(state, player) in state.legal_actions(player)
            assert state.to_json() == before


@pytest.mark.parametrize("spec", ["greedy", "mcts:20"])
def test_the_same_seed_makes_the_same_choices(ttr, spec):
    for state in positions(ttr, seed=3):
        player = state.to_move[0]
        picks = {make_bot(spec, "same", ttr).choose(state, player) for _ in range(2)}
        assert len(picks) == 1


def test_mcts_with_a_tiny_budget_finishes_a_whole_game(games):
    game = games["ticket_to_ride"]
    mcts = make_bot("mcts:3", "whole/0", game)
    mcts.playout = 20
    result = play_game(game, 2, "whole", [mcts, make_bot("random", "whole/1", game)])
    assert result.over and result.decisions > 50


@pytest.mark.parametrize("spec", ["mcts:30", "mcts:20ms", "greedy"])
def test_search_bots_take_the_winning_move(race, spec):
    state = race.new_game(2, 1)
    assert len(state.legal_actions(0)) == 6
    for seed in range(3):
        assert make_bot(spec, seed, race).choose(state, 0).name == "win"


def test_bot_specs_with_a_bad_budget_are_refused():
    for spec, message in [
        ("mcts:lots", "whole number of iterations"),
        ("mcts:0", "whole number of iterations"),
        ("mcts:xms", "whole number of milliseconds"),
        ("mcts:800/0", "whole number of decisions given priors"),
        ("mcts:800/", "whole number of decisions given priors"),
        ("mcts:/2", "whole number of iterations"),
        ("greedy:-1", "whole number of sampled positions"),
        ("random:5", "takes no budget"),
        ("oracle:5", "unknown bot"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_bot(spec, 0)


def test_mcts_takes_the_depth_of_its_priors_after_a_slash():
    assert make_bot("mcts:800", 0).prior_depth == 1
    deep = make_bot("mcts:800/2", 0)
    assert (deep.iterations, deep.prior_depth) == (800, 2)
    timed = make_bot("mcts:250ms/3", 0)
    assert (timed.milliseconds, timed.prior_depth) == (250, 3)


def test_bot_budgets_are_bounded_as_the_documentation_states():
    bounds = [
        ("mcts:{}", MAX_MCTS_ITERATIONS, "iterations"),
        ("mcts:{}ms", MAX_MCTS_MILLISECONDS, "milliseconds"),
        ("mcts:800/{}", MAX_PRIOR_DEPTH, "decisions given priors"),
        ("greedy:{}", MAX_GREEDY_SAMPLES, "sampled positions"),
    ]
    with open(os.path.join(ROOT, "docs", "language", "bots.md"), encoding="utf-8") as handle:
        documented = handle.read()
    for spec, most, what in bounds:
        make_bot(spec.format(most), 0)
        with pytest.raises(ValueError, match=f"whole number of {what} \\(1 to {most}\\)"):
            make_bot(spec.format(most + 1), 0)
        assert f"{most:,}" in documented and spec.format(most) in documented
    with pytest.raises(ValueError, match="1 to 60000"):
        make_bot("mcts:10000000ms", 0)  # hours of search at every decision


def test_simulate_plays_one_bot_per_seat(race):
    stats = simulate(race.source_file, 2, 4, "s", bots=["greedy", "random"])
    assert stats.bots == ["greedy", "random"] and stats.bot == "greedy,random"
    assert stats.to_dict()["bots"] == ["greedy", "random"]
    assert stats.wins[0] == 4  # greedy, seat 1, moves first and wins at once
    with pytest.raises(ValueError, match="one bot per seat"):
        simulate(race.source_file, 2, 1, "s", bots=["greedy"])


def test_cli_bots_must_name_one_bot_per_seat(race):
    runner = CliRunner()
    path = race.source_file
    result = runner.invoke(
        main, ["simulate", path, "--players", "2", "--bots", "mcts,random,greedy"]
    )
    assert result.exit_code == 2
    assert "3 bots named for 2 players" in result.output and "Traceback" not in result.output
    result = runner.invoke(main, ["simulate", path, "--bots", "random,mcts:lots"])
    assert result.exit_code == 2 and "whole number of iterations" in result.output
    result = runner.invoke(main, ["simulate", path, "--bot", "random", "--bots", "random,random"])
    assert result.exit_code == 2 and "not both" in result.output
    result = runner.invoke(
        main, ["simulate", path, "--games", "2", "--json", "--bots", "greedy,mcts:5"]
    )
    assert result.exit_code == 0, result.output
    assert '"bots": ["greedy", "mcts:5"]' in result.output


def test_cli_play_takes_one_bot_per_seat_no_person_plays(race):
    runner = CliRunner()
    path = race.source_file
    result = runner.invoke(main, ["play", path, "--seed", "1", "--bots", "mcts:5,random"])
    assert result.exit_code == 2 and "2 bots named for 1 bot seat" in result.output
    result = runner.invoke(main, ["play", path, "--seed", "1", "--bots", "greedy"], input="q\n")
    assert result.exit_code == 0, result.output
    assert "the others are greedy bots" in result.output


def test_dealing_into_sets_keeps_their_items_distinct():
    tile = NamedD(tuple("abcdefgh"))
    sets = [Container({0, 1, 2}, SetD(tile)), Container({3, 4}, SetD(tile))]
    pile = Container([5, 6, 7, 0], ListD(tile))
    bag = Container([0, 1, 0, 0, 0, 0, 0, 2], BagD(tile, 8))
    everything = sets + [pile, bag]
    before = Counter(i for c in everything for i in c.items())
    stream = 1
    for _ in range(30):
        stream = deal(everything, stream)
        assert Counter(i for c in everything for i in c.items()) == before
        assert [len(s.value) for s in sets] == [3, 2] and len(pile.value) == 4
        assert sum(bag.value) == 3
