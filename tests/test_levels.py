"""Levels of play: `level NAME "bot"` in the rules, the defaults, patches, and `metro check`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from dsl.diagnostics import CompileError
from loader import load_game
from metro.bots import DEFAULT_LEVELS, RandomBot, bot_names, levels, make_bot
from metro.bots.greedy import GreedyBot
from metro.bots.mcts import MctsBot
from metro.bots.preference import PreferenceBot
from metro.cli import main
from tests.conftest import game_dirs

RULES = """\
game "Levels" {
  players 2..2
  per player { points: int public }
  level hard "mcts:5"
  level expert "careful"
  bot "careful" { gain: k }
  action gain(k in [1, 2]) { me.points += k }
  flow { repeat 2 times { for p in players { choose by p { gain } } } }
  score(p) = p.points
  rank p by p.points desc
}
"""


def _game(folder, rules: str = RULES, variants=()):
    (folder / "rules.metro").write_text(rules, encoding="utf-8")
    return load_game(str(folder), variants=variants, use_cache=False)


def test_the_rules_name_levels_and_the_others_keep_their_defaults(tmp_path):
    game = _game(tmp_path)
    assert game.levels == {"hard": "mcts:5", "expert": "careful"}
    assert levels(game) == {**DEFAULT_LEVELS, "hard": "mcts:5", "expert": "careful"}
    hard = make_bot("hard", 1, game)
    assert isinstance(hard, MctsBot) and hard.iterations == 5
    assert isinstance(make_bot("easy", 1, game), RandomBot)
    assert isinstance(make_bot("medium", 1, game), GreedyBot)
    assert isinstance(make_bot("expert", 1, game), PreferenceBot)
    assert {"easy", "medium", "hard", "expert", "careful"} <= set(bot_names(game))


def test_a_level_plays_as_the_bot_it_names(tmp_path):
    game = _game(tmp_path)
    result = CliRunner().invoke(main, ["simulate", str(tmp_path), "--bot", "expert", "--json"])
    assert result.exit_code == 0, result.output
    # The declared bot takes the larger gain every time: 2 + 2 for each player.
    assert '"mean_scores": [4.0, 4.0]' in result.output
    assert make_bot("hard", 3, game).choose(game.new_game(2, 1), 0).name == "gain"


def test_a_variant_overrides_a_level_and_a_level_is_declared_once(tmp_path):
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "harder.metro").write_text(
        'variant "Harder" for "Levels" { override level hard "mcts:50" }\n', encoding="utf-8"
    )
    assert _game(tmp_path, variants=("harder",)).levels["hard"] == "mcts:50"
    (tmp_path / "variants" / "nothing.metro").write_text(
        'variant "Nothing" for "Levels" { override level master "mcts:50" }\n', encoding="utf-8"
    )
    with pytest.raises(CompileError, match="`override` names no existing level 'master'"):
        _game(tmp_path, variants=("nothing",))
    twice = RULES.replace(
        '  level hard "mcts:5"\n', '  level hard "mcts:5"\n  level hard "random"\n'
    )
    with pytest.raises(CompileError, match="level 'hard' is already declared"):
        _game(tmp_path, twice)


def test_check_reports_a_level_whose_bot_cannot_be_made_at_its_string(tmp_path):
    bad = RULES.replace('"mcts:5"', '"mcts:0"').replace('"careful"\n', '"medium"\n', 1)
    (tmp_path / "rules.metro").write_text(bad, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert result.exit_code == 1
    assert "rules.metro:4:14: error[structure]: level hard names a bot that cannot be made" in (
        result.output
    )
    assert "rules.metro:5:16: error[structure]: level expert names a bot" in result.output
    assert "'medium' is a level" in result.output
    with pytest.raises(ValueError, match="level 'hard' names a bot that cannot be made"):
        make_bot("hard", 0, load_game(str(tmp_path), use_cache=False))


@pytest.mark.parametrize("folder", game_dirs())
def test_every_shipped_game_makes_a_bot_of_every_level(folder):
    game = load_game(folder)
    for level in levels(game):
        assert make_bot(level, 0, game) is not None
