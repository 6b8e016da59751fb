"""Action ids are exact: every legal action's id parses back to it, ids are unique, bad ids are ValueErrors."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import compile_game
from dsl.diagnostics import CompileError
from loader import load_game
from runtime import action_ids as ids
from runtime import values as v
from runtime.errors import IllegalAction
from tests.conftest import ROOT, game_dirs
from tests.test_injection import metro_string

# Element names and texts that need quoting; `plain` and `R003` must stay bare.
ELEMENTS = [
    "none",
    "El Paso",
    "a,b",
    'x"y',
    "[z]",
    "back\\slash",
    "yes",
    "5",
    "-1x",
    "Zürich",
    "plain",
]
WORDS = [
    "a,b",
    'x"y',
    "none",
    "no",
    "5",
    "",
    "[z]",
    "(q)",
    "sp ace",
    "tab\there",
    "new\nline",
    "\u202eevil",
    "\U0001f682",
    "plain",
    "R003",
]


RULES = """\
game "Ids" {
  players 2..2
  max decisions 60
  map schema { kind spot(row: int) }
  default map "m.metro"
  const WORDS = [@WORDS]
  state { said: list of text public = [] }
  action pick(s: spot) { end game }
  action maybe() { choose optional s: spot by me  end game }
  action many(ss: subset of spot size 2..2) { said += ["many"] }
  action say(t in WORDS) { said += [t] }
  action pair(x in [(1, "a b"), (2, "c"), (-3, "none")]) { said += [x[1]] }
  action flag(b: bool, p: player) { said += ["flag"] }
  flow { loop { choose by seat(1) { pick, maybe, many, say, pair, flag } } }
  score(p) = size(said)
}
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A game whose elements, texts and tuples need every kind of quoting."""
    folder = tmp_path_factory.mktemp("ids")
    words = ", ".join(metro_string(w) for w in WORDS)
    (folder / "rules.metro").write_text(RULES.replace("@WORDS", words), encoding="utf-8")
    spots = " ".join(f"spot {metro_string(name)}(row: {i})" for i, name in enumerate(ELEMENTS))
    (folder / "m.metro").write_text(f'map "M" for "Ids" {{ {spots} }}\n', encoding="utf-8")
    return load_game(str(folder), use_cache=False)


def _check_list(game, legal) -> None:
    texts = [action.id for action in legal]
    assert len(set(texts)) == len(texts), [t for t in texts if texts.count(t) > 1][:5]
    for action, text in zip(legal, texts, strict=True):
        back = game.parse_action(text)
        assert back == action and back.id == text, (text, back)


def _play(game, players: int, seed: int, steps: int) -> int:
    """A seeded random game, every legal list checked; returns how many actions were checked."""
    rng = random.Random(seed)
    state = game.new_game(players, seed)
    checked = 0
    for _ in range(steps):
        if state.is_over:
            break
        for player in state.to_move:
            legal = state.legal_actions(player)
            _check_list(game, legal)
            checked += len(legal)
        player = rng.choice(state.to_move)
        state.apply(player, rng.choice(state.legal_actions(player)).id)
    again = game.state_from_json(state.to_json())
    assert again.to_json() == state.to_json()
    return checked


# ---------------------------------------------------------------- the tiny game


def test_every_id_of_the_tiny_game_parses_back_and_is_unique(tiny):
    state = tiny.new_game(2, 1)
    legal = state.legal_actions(0)
    _check_list(tiny, legal)
    texts = {a.id for a in legal}
    assert {
        'pick("El Paso")',
        'pick("a,b")',
        'pick("x\\"y")',
        'pick("[z]")',
        'pick("none")',
        "pick(plain)",
        'pick("yes")',
        'pick("5")',
        "pick(Zürich)",
        'pick("back\\\\slash")',
    } <= texts
    assert {
        'say("a,b")',
        'say("")',
        'say("none")',
        'say("no")',
        'say("5")',
        'say("new\\nline")',
        'say("\\u202eevil")',
        "say(\U0001f682)",
        "say(R003)",
    } <= texts
    assert {
        'many(["El Paso" plain])',
        'pair((1 "a b"))',
        "pair((2 c))",
        'pair((-3 "none"))',
        "flag(no,P2)",
        "maybe",
    } <= texts


def test_an_element_named_none_is_not_the_none_value(tiny):
    state = tiny.new_game(2, 1)
    state.apply(0, "maybe")
    legal = state.legal_actions(0)
    _check_list(tiny, legal)
    texts = [a.id for a in legal]
    assert "s(none)" in texts and 's("none")' in texts
    assert tiny.parse_action("s(none)").args == (None,)
    assert tiny.parse_action('s("none")').args == (ELEMENTS.index("none"),)


def test_texts_with_commas_and_quotes_are_restored_from_a_save(tiny):
    state = tiny.new_game(2, 3)
    for text in ('say("a,b")', 'say("x\\"y")', 'pair((1 "a b"))', 'many(["a,b" "[z]"])'):
        state.apply(0, text)
    restored = tiny.state_from_json(state.to_json())
    assert [a for _, a in restored.history] == [a for _, a in state.history]
    assert restored.to_json() == state.to_json()
    assert state.view(0)["state"]["said"] == ["a,b", 'x"y', "a b", "many"]


def test_random_games_of_the_tiny_game(tiny):
    assert sum(_play(tiny, 2, seed, 40) for seed in range(8)) > 500


def test_a_plain_value_may_also_be_written_quoted(tiny):
    assert tiny.parse_action('pick("plain")') == tiny.parse_action("pick(plain)")
    assert tiny.parse_action('flag(no,"P2")') == tiny.parse_action("flag(no,P2)")
    state = tiny.new_game(2, 1)
    state.apply(0, 'say("R003")')
    assert state.history[-1][1].id == "say(R003)"


# ---------------------------------------------------------------- the shipped games


@pytest.mark.parametrize("folder", game_dirs())
def test_ids_of_random_games_of_every_shipped_game_are_exact(folder):
    game = load_game(os.path.join(ROOT, folder))
    checked = sum(
        _play(game, players, seed, 120)
        for seed, players in enumerate(range(game.min_players, game.min_players + 2))
    )
    assert checked > 100


def test_ordinary_ids_read_as_before(ttr):
    state = ttr.new_game(2, 1)
    assert [a.id for a in state.legal_actions(0)][:2] == ["keep([T05 T12])", "keep([T05 T12 T28])"]
    action = ttr.parse_action("claim_route(R003,white,0)")
    assert action.id == "claim_route(R003,white,0)"


# ---------------------------------------------------------------- bad ids and bad actions


BAD_IDS = [
    "",
    " ",
    "(",
    "keep(",
    "keep()",
    "keep([T05 T12]",
    "keep([T05 T12]))",
    "keep([T05  T12])",
    "keep([ T05])",
    "keep([T05 ])",
    "keep(T05)",
    "keep([T05,T12])",
    "keep([T05 T12])x",
    "no_such(1)",
    "claim_route(R003,white)",
    "claim_route(R003,white,0,1)",
    "claim_route(R003,white,x)",
    "claim_route(R003,mauve,0)",
    'claim_route("R003,white,0)',
    'claim_route(R003,"\\x",0)',
    "claim_route(R003,white,0.5)",
    "claim_route(R003,white,１)",
    'claim_route(R003,white,"0")',
    "claim_route(R003, white,0)",
    "draw_blind(",
    "keep(" + "[" * 100_000,
    "(" * 100_000,
    "keep([" + "T05 " * 50_000 + "])",
    "keep([T05\ud800])",
    "keep([T05\x00])",
    "a\\b",
]


@pytest.mark.parametrize("text", BAD_IDS, ids=lambda t: repr(t[:30]))
def test_a_malformed_id_is_a_value_error(ttr, text):
    with pytest.raises(ValueError, match=r"malformed action id|no action|argument|takes \d"):
        ttr.parse_action(text)
    state = ttr.new_game(2, 1)
    with pytest.raises(IllegalAction):
        state.apply(0, text)


@pytest.mark.parametrize("value", [5, None, b"keep([T05 T12])", ["keep([T05 T12])"], 1.5])
def test_parse_action_of_a_non_text_is_a_value_error(ttr, value):
    with pytest.raises(ValueError, match="an action id is text"):
        ttr.parse_action(value)


@pytest.mark.parametrize("value", [5, None, True, b"keep([T05 T12])", ("keep", ()), 1.5])
def test_applying_a_non_action_is_a_type_error(ttr, value):
    state = ttr.new_game(2, 1)
    before = state.to_json()
    with pytest.raises(TypeError, match="an action is an Action or its id"):
        state.apply(0, value)
    assert state.to_json() == before


# ---------------------------------------------------------------- the grammar itself


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(st.text())
def test_any_text_round_trips_and_only_plain_texts_are_bare(text):
    written = v.STR.label(text)
    assert v.STR.parse(written) == text
    assert (written == text) == ids.is_plain(text)
    assert written.isprintable()


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(
    st.lists(st.tuples(st.text(max_size=8) | st.none(), st.integers(), st.booleans()), max_size=5)
)
def test_nested_values_round_trip(items):
    desc = v.ListD(v.TupleD((v.OptD(v.STR), v.INT, v.BOOL)))
    written = desc.label(items)
    assert desc.parse(written) == tuple(items)


def test_the_grammar_in_the_docstring_is_what_the_parser_reads():
    name, nodes = ids.parse_id('go(1,[a "b c"],(x []),"")')
    assert name == "go"
    assert nodes == (
        ids.Atom("1"),
        ids.Group("[", (ids.Atom("a"), ids.Atom("b c", True))),
        ids.Group("(", (ids.Atom("x"), ids.Group("[", ()))),
        ids.Atom("", True),
    )
    assert ids.parse_id("pass") == ("pass", ())
    with pytest.raises(ValueError, match="nested deeper than 100"):
        ids.parse_value("[" * 101 + "]" * 101)
    assert ids.parse_value("[" * 100 + "]" * 100) is not None


@pytest.mark.parametrize(
    "text", ["lone \ud800", "\udfff", "\x00", "\x7f\x9b[31m", "\u2028", "\xa0", "\ufeff"]
)
def test_unprintable_texts_are_escaped_and_round_trip(text):
    written = v.STR.label(text)
    assert written.startswith('"') and written.isprintable() and written.isascii()
    assert v.STR.parse(written) == text
    assert v.OptD(v.STR).parse(written) == text


CHOICE_AS_ACTION = """\
game "Clash" {
  players 1..1
  enum Colour { red, blue }
  action a() { choose b: Colour by me }
  action b(n in [1, 2]) { end game }
  flow { loop { choose by seat(1) { a, b } } }
}
"""


def test_a_choice_named_like_an_action_is_refused(tmp_path):
    (tmp_path / "rules.metro").write_text(CHOICE_AS_ACTION)
    with pytest.raises(CompileError, match="choice 'b' has the name of an action") as info:
        compile_game(str(tmp_path))
    assert info.value.diagnostics[0].span.line == 4
