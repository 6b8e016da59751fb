"""The frameless driver (runtime/driver.py) plays the same games as the runner.

Every shipped game, expansion and variant, played by random bots and by its declared bots, ends
in the same state with the same history through the driven versions as through `new_game` and
`apply_legal` in a loop (random bots on a bare driver, whose menus make no frames, and asked
through `choose`, with frames); rule errors, the decision budget and `end game` in `final` are reported
alike.
"""

from __future__ import annotations

import pytest

from compiler import compile_game
from loader import game_path, load_game
from metro.analysis.simulate import play_game
from metro.bots import make_bot
from runtime.driver import drive, play_out
from runtime.errors import RuleError
from runtime.machine import Game, compile_module, run_module
from tests.conftest import SHIPPED_CONFIGURATIONS


def _framed(game: Game, players: int, seed: str, bots: list):
    state = game.new_game(players, seed)
    while state.to_move:
        player = state.to_move[0]
        state.apply_legal(player, bots[player].choose(state, player))
    return state


def _bots(game: Game, names: list[str], seed: str) -> list:
    return [make_bot(name, f"{seed}/{seat}", game) for seat, name in enumerate(names)]


class _Choosing:
    """A bot's `choose` alone: the driver makes the frame at every menu (it is not bare)."""

    frameless = True

    def __init__(self, bot) -> None:
        self.bot = bot

    def choose(self, state, player: int):
        """What the wrapped bot chooses."""
        return self.bot.choose(state, player)


def _same_game(game: Game, players: int, seed: str, names: list[str], frames: bool = False) -> int:
    framed = _framed(game, players, seed, _bots(game, names, seed))
    bots = _bots(game, names, seed)
    driver_bots = [_Choosing(bot) for bot in bots] if frames else bots
    driven = drive(game, players, seed, driver_bots)
    assert driven.over and not driven.stack
    assert driven.history == framed.history
    assert driven.to_doc() == framed.to_doc()
    return len(driven.history)


@pytest.mark.parametrize(("name", "expansions", "variants"), SHIPPED_CONFIGURATIONS)
def test_every_configuration_plays_the_same_games_driven(name, expansions, variants):
    game = load_game(game_path(name), expansions=expansions, variants=variants)
    assert game.drives is not None
    decisions = 0
    for players in sorted({game.min_players, game.max_players}):
        for number in range(2):
            decisions += _same_game(game, players, f"drive/{number}", ["random"] * players)
    # Random bots pick from the menu's list (a bare driver: no frames); asked by `choose`
    # they see the frame the runner would show them. The same game both ways.
    players = game.max_players
    decisions += _same_game(game, players, "drive/0", ["random"] * players, frames=True)
    declared = list(game.module.BOTS)  # the rules' own bots (preferences)
    for bot in declared[:1]:
        players = game.min_players
        decisions += _same_game(game, players, "drive/declared", [bot] * players)
    assert decisions > 50


@pytest.mark.parametrize(("name", "expansions", "variants"), SHIPPED_CONFIGURATIONS)
def test_a_position_the_runner_reached_plays_on_driven_as_it_would_framed(
    name, expansions, variants
):
    # A search's playouts: from positions part-way through (inside a turn, at a simultaneous
    # choice, waiting in procedures called from procedures), the rest of the game both ways.
    game = load_game(game_path(name), expansions=expansions, variants=variants)
    for players, seed, stop in ((game.min_players, "po/1", 7), (game.max_players, "po/2", 41)):
        state = game.new_game(players, seed)
        first = _bots(game, ["random"] * players, seed)
        while state.to_move and len(state.history) < stop:
            player = state.to_move[0]
            state.apply_legal(player, first[player].choose(state, player))
        framed, driven = state.clone(), state.clone()
        bots = _bots(game, ["random"] * players, seed + "/on")
        while framed.to_move:
            player = framed.to_move[0]
            framed.apply_legal(player, bots[player].choose(framed, player))
        play_out(driven, _bots(game, ["random"] * players, seed + "/on"))
        assert driven.over and driven.history == framed.history
        assert driven.to_doc() == framed.to_doc()


def _fields(state) -> tuple:
    """A position's fields, players' fields and generator (not its frames)."""
    module = state.game.module
    players = [module.encode_player(state, p) for p in range(state.n)]
    return module.encode_fields(state), players, state.rng


def test_a_playout_cut_off_after_some_decisions_reads_as_the_runner_leaves_it():
    # As a search's playout: the next k decisions taken, then the position read (its fields,
    # who decides, that player's legal actions), though its frames are not kept.
    from metro.bots.evaluation import margins

    game = load_game(game_path("tokyo_metro"))
    for stop, more in ((5, 9), (30, 40), (12, 1_000)):
        state = game.new_game(3, f"cut/{stop}")
        first = _bots(game, ["random"] * 3, "cut")
        while state.to_move and len(state.history) < stop:
            player = state.to_move[0]
            state.apply_legal(player, first[player].choose(state, player))
        framed, driven = state.clone(), state.clone()
        bots = _bots(game, ["random"] * 3, "cut/on")
        for _ in range(more):
            if not framed.to_move:
                break
            player = framed.to_move[0]
            framed.apply_legal(player, bots[player].choose(framed, player))
        play_out(driven, _bots(game, ["random"] * 3, "cut/on"), decisions=more)
        assert driven.history == framed.history and driven.over == framed.over
        assert _fields(driven) == _fields(framed)
        if not framed.over:
            assert driven.to_move == framed.to_move
            mover = framed.to_move[0]
            assert driven.legal_actions(mover) == framed.legal_actions(mover)
        assert margins(driven) == margins(framed)


def test_a_search_with_driven_playouts_takes_the_same_decisions(monkeypatch):
    # mcts plays its playouts on the driver when the game has driven versions: the same random
    # decisions as playing them framed, so the same search and the same game.
    game = load_game(game_path("ticket_to_ride"))

    def searched() -> list:
        bots = _bots(game, ["mcts:40", "mcts:40"], "search")
        for bot in bots:
            bot.playout = 15  # Ticket to Ride declares an estimate: no playout by default
        state = game.new_game(2, "search")
        for _ in range(6):
            player = state.to_move[0]
            state.apply_legal(player, bots[player].choose(state, player))
        return state.history

    driven = []
    import metro.bots.mcts as mcts

    monkeypatch.setattr(
        mcts, "play_out", lambda *args, **kw: driven.append(1) or play_out(*args, **kw)
    )
    with_driver = searched()
    assert driven
    monkeypatch.setattr(game, "drives", None)
    assert searched() == with_driver


def test_only_a_seeded_position_plays_on_driven():
    game = load_game(game_path("ticket_to_ride"))
    recorded = game.new_game(2, "c", chance="recorded")
    with pytest.raises(ValueError, match="seed"):
        play_out(recorded, _bots(game, ["random", "random"], "c"))
    over = drive(game, 2, "c", _bots(game, ["random", "random"], "c"))
    history = list(over.history)
    play_out(over, _bots(game, ["random", "random"], "c"))  # a finished game stays as it is
    assert over.history == history


def test_simulate_drives_frameless_bots_and_runs_the_others_framed(monkeypatch):
    game = load_game(game_path("ticket_to_ride"))
    driven = []
    import metro.analysis.simulate as simulate

    monkeypatch.setattr(simulate, "drive", lambda *args: driven.append(args) or drive(*args))
    random_bots = _bots(game, ["random", "random"], "s")
    result = play_game(game, 2, "s", random_bots, trusted=True)
    assert len(driven) == 1 and result.over
    framed = play_game(game, 2, "s", _bots(game, ["random", "random"], "s"))  # checked: framed
    assert len(driven) == 1 and framed.scores == result.scores
    assert framed.decisions == result.decisions
    greedy = _bots(game, ["greedy", "random"], "s")  # greedy looks ahead on copies: framed
    play_game(game, 2, "s", greedy, trusted=True)
    assert len(driven) == 1


RULES = """game "Ends" {
  players 2..2
  max decisions %(budget)d
  state { n: int public = 0 }
  action go() { n += 1 %(go)s }
  flow {
    repeat 12 times { choose by seat(1) { go } }
  }
%(extra)s  score(p) = n
}
"""


def _game(tmp_path, budget: int = 100, extra: str = "", go: str = "") -> Game:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "rules.metro").write_text(RULES % {"budget": budget, "extra": extra, "go": go})
    source = compile_game(str(tmp_path)).python
    return Game(
        run_module(
            compile_module(source, "<ends>"),
            "<ends>",
            f"ends_{tmp_path.parent.name}_{tmp_path.name}",
        )
    )


def _errors(game: Game) -> tuple[RuleError, RuleError]:
    bots = _bots(game, ["random", "random"], "e")
    with pytest.raises(RuleError) as framed:
        _framed(game, 2, "e", bots)
    with pytest.raises(RuleError) as driven:
        drive(game, 2, "e", _bots(game, ["random", "random"], "e"))
    return framed.value, driven.value


def test_the_decision_budget_stops_a_driven_game_as_it_stops_the_runner(tmp_path):
    framed, driven = _errors(_game(tmp_path, budget=5))
    assert "budget of 5 decisions" in str(driven)
    assert str(driven) == str(framed)


def test_a_rule_error_in_a_driven_action_names_the_same_line(tmp_path):
    framed, driven = _errors(_game(tmp_path, go="\n    n = 10 / (4 - n)"))
    assert driven.line and (driven.file, driven.line) == (framed.file, framed.line)
    assert str(driven) == str(framed)


def test_end_game_runs_final_driven_and_end_game_inside_final_is_the_same_error(tmp_path):
    ending = "  final { n += 100 }\n"
    game = _game(tmp_path / "a", extra=ending, go="\n    if n == 3 { end game }")
    assert _same_game(game, 2, "f", ["random", "random"]) == 3
    assert drive(game, 2, "f", _bots(game, ["random"] * 2, "f")).scores() == [103, 103]
    again = "  final { finish() }\n  procedure finish() {\n    end game\n  }\n"
    framed, driven = _errors(_game(tmp_path / "b", extra=again, go="\n    end game"))
    assert "final" in str(driven) and driven.line
    assert (str(driven), driven.line) == (str(framed), framed.line)


def test_a_module_compiled_without_the_driver_plays_framed(tmp_path):
    (tmp_path / "rules.metro").write_text(RULES % {"budget": 100, "extra": "", "go": ""})
    source = compile_game(str(tmp_path), without=("frameless_driver",)).python
    game = Game(run_module(compile_module(source, "<plain>"), "<plain>", "ends_plain"))
    assert game.drives is None
    result = play_game(game, 2, "p", _bots(game, ["random", "random"], "p"), trusted=True)
    assert result.over and result.decisions == 12
    with pytest.raises(ValueError, match="frameless_driver"):
        drive(game, 2, "p", _bots(game, ["random", "random"], "p"))


def test_a_driver_is_bare_only_for_bots_that_pick_from_the_list_and_games_not_cut_off():
    from runtime.driver import Driver

    game = load_game(game_path("ticket_to_ride"))
    random_bots = _bots(game, ["random"] * 2, "bare")
    assert Driver(game, random_bots).bare
    assert not Driver(game, random_bots, stop=5).bare  # its cut-off position is read
    assert not Driver(game, [_Choosing(bot) for bot in random_bots]).bare
