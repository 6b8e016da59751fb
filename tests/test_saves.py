"""Saves are untrusted input: `state_from_json` refuses a bad one with InvalidSave naming its JSON path,
and any save it accepts is a position the rules go on from.

The fuzzer corrupts real saves of three games (deterministically, from seeds); 200 cases per game by
default, 2,000 with `--nightly`. The unit tests below it name one kind of check each.
"""

from __future__ import annotations

import copy
import json
import os
import random
import signal

import pytest

import runtime
from loader import load_game
from metro.testing.scenarios import broken_invariants
from runtime.errors import InvalidSave, RuleError
from runtime.saves import MAX_SAVE_CHARS
from runtime.values import INT_LIMIT, MAX_ITEMS
from tests.conftest import ROOT

NIGHTLY = os.environ.get("METRO_NIGHTLY") == "1"
CASES_PER_GAME = 2000 if NIGHTLY else 200
GAMES = {"ticket_to_ride": (2, 3), "tokyo_metro": (2, 4), "tokyo_jutaku": (2, 3)}
CASE_SECONDS = 10  # one case (restore + a few moves) far exceeding this is a hang


def _game(name: str):
    return load_game(os.path.join(ROOT, "games", name))


def _saves(game, players: int, seed: int) -> list[str]:
    """Saves of one random game at several points: the start, early, middle and the end."""
    rng = random.Random(seed)
    state = game.new_game(players, seed)
    out, step = [state.to_json()], 0
    while not state.is_over and step < 400:
        player = state.to_move[0]
        state.apply(player, rng.choice(state.legal_actions(player)))
        step += 1
        if step in (3, 12, 40, 90, 200):
            out.append(state.to_json())
    out.append(state.to_json())
    return out


@pytest.fixture(scope="module")
def corpus():
    """For each game: the compiled game and a list of its saves."""
    out = {}
    for name, counts in GAMES.items():
        game = _game(name)
        out[name] = (game, [text for i, n in enumerate(counts) for text in _saves(game, n, 11 + i)])
    return out


# ---------------------------------------------------------------- the corruption fuzzer

_ODD_VALUES = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2.5,
    "",
    "x",
    [],
    {},
    [1],
    {"a": 1},
    {"t": [1]},
    {"d": 1},
)
_BIG_INTS = (10**9, 2**62, 2**63, -(2**63) - 1, 10**30, -(10**9))
_DEEP = "__deep__"


def _nodes(doc, path=()):
    """Every (path, value) inside a JSON document, containers included."""
    yield path, doc
    if isinstance(doc, dict):
        for key in sorted(doc):
            yield from _nodes(doc[key], (*path, key))
    elif isinstance(doc, list):
        for i, item in enumerate(doc):
            yield from _nodes(item, (*path, i))


def _set(doc, path, value):
    if not path:
        return value
    target = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return doc


def _mutate(doc, rng: random.Random):
    """One random corruption of a parsed save (returns the new document or text)."""
    nodes = list(_nodes(doc))
    path, value = rng.choice(nodes[1:])
    kind = rng.randrange(11)
    if kind == 0:  # a value of another JSON type
        return _set(doc, path, copy.deepcopy(rng.choice(_ODD_VALUES)))
    if kind == 1:  # a key or item gone
        containers = [(p, v) for p, v in nodes if isinstance(v, dict | list) and v]
        where, box = rng.choice(containers)
        key = rng.choice(sorted(box)) if isinstance(box, dict) else rng.randrange(len(box))
        del box[key]
        return doc
    ints = [(p, v) for p, v in nodes if type(v) is int]
    texts = [(p, v) for p, v in nodes if type(v) is str]
    if kind == 2 and ints:  # a huge number
        return _set(doc, rng.choice(ints)[0], rng.choice(_BIG_INTS))
    if kind == 3 and ints:  # a plausible number: off by a little, or negative
        where, number = rng.choice(ints)
        return _set(doc, where, rng.choice((number + 1, number - 1, -number - 1, number * 3)))
    if kind == 4 and texts:  # a wrong name
        where, text = rng.choice(texts)
        return _set(
            doc, where, rng.choice((text + "x", text[:-1], text.upper(), "P9", "P0", "none"))
        )
    if kind == 5 and len(texts) > 1:  # two names swapped
        (a, x), (b, y) = rng.sample(texts, 2)
        return _set(_set(doc, a, y), b, x)
    if kind == 6:  # deep nesting: too deep for the JSON reader, or just deep
        depth = rng.choice((30, 70, 100_000))
        text = json.dumps(_set(doc, path, _DEEP))
        return text.replace(json.dumps(_DEEP), "[" * depth + "]" * depth, 1)
    if kind == 7 and doc.get("stack"):  # another program counter, procedure or site
        frame = rng.choice(doc["stack"])
        choice = rng.randrange(3)
        if choice == 0:
            frame["pc"] = rng.randrange(12)
        elif choice == 1:
            frame["proc"] = rng.choice([f["proc"] for f in doc["stack"]] + ["s__flow", "nope"])
        else:
            doc["site"] = rng.randrange(-2, 12)
        return doc
    if kind == 8 and isinstance(value, list) and value:  # a list item repeated
        value.append(copy.deepcopy(rng.choice(value)))
        return doc
    if kind == 9:  # the wrapper tags of frame values
        frames = doc.get("stack") or []
        if frames:
            rng.choice(frames)["locals"] = rng.choice(
                ({"d": [[1, 2]]}, {"s": [[1]]}, {"d": [["a", {"s": [1, "b"]}]]})
            )
            return doc
    history = doc.get("history") or []
    if history:  # a recorded move changed
        entry = rng.choice(history)
        entry[rng.randrange(2)] = rng.choice(
            (5, -1, "pass", entry[1] + ")", entry[1].replace(",", ""))
        )
        return doc
    return _set(doc, path, None)


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _check_case(game, text: str, rng: random.Random, where: str) -> str:
    """'refused' or 'accepted'; fails the test on any other outcome."""
    try:
        state = game.state_from_json(text)
    except InvalidSave as error:
        assert error.path.startswith("$"), where
        assert error.path in str(error), where
        return "refused"
    again = state.to_json()
    assert game.state_from_json(again).to_json() == again, where
    assert broken_invariants(state) == [], where
    for p in state.to_move:
        assert state.legal_actions(p), where
    try:
        for _ in range(4):
            if state.is_over:
                break
            player = state.to_move[0]
            state.apply(player, rng.choice(state.legal_actions(player)))
            state.to_json()
    except RuleError:
        pass
    return "accepted"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_corrupted_saves_are_refused_by_path_or_sound(corpus, name):
    game, texts = corpus[name]
    rng = random.Random(f"saves/{name}")
    outcomes = {"refused": 0, "accepted": 0}
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for case in range(CASES_PER_GAME):
            source = rng.choice(texts)
            mutated = _mutate(json.loads(source), rng)
            text = mutated if isinstance(mutated, str) else json.dumps(mutated)
            where = f"{name} case {case}"
            signal.alarm(CASE_SECONDS)
            try:
                outcomes[_check_case(game, text, rng, where)] += 1
            except _Hang:
                pytest.fail(f"{where} ran for more than {CASE_SECONDS} s")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    # Both outcomes occur: the fuzzer neither only breaks the JSON nor only makes harmless changes.
    assert outcomes["refused"] > CASES_PER_GAME // 3 and outcomes["accepted"] > 0, outcomes


# ---------------------------------------------------------------- one kind of check each


@pytest.fixture(scope="module")
def ttr_save():
    """Ticket to Ride, 2 players, a few moves in: the game and the parsed save."""
    game = _game("ticket_to_ride")
    return game, json.loads(_saves(game, 2, 5)[2])


def _refused(game, doc, path: str, words: str = "") -> InvalidSave:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(InvalidSave) as caught:
        game.state_from_json(text)
    assert caught.value.path == path, str(caught.value)
    assert str(caught.value).startswith(f"invalid save at {path}: ")
    assert words in str(caught.value)
    return caught.value


def _edit(doc, change):
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


def test_invalid_save_is_a_documented_value_error(ttr_save):
    game, doc = ttr_save
    assert runtime.InvalidSave is InvalidSave and issubclass(InvalidSave, ValueError)
    assert game.state_from_json(doc).to_json() == json.dumps(
        doc, sort_keys=True, separators=(",", ":")
    )
    assert InvalidSave("m", ("state", "owner", "El Paso", 3)).path == '$.state.owner["El Paso"][3]'


def test_text_that_is_not_json_or_too_big_or_too_deep(ttr_save):
    game, _ = ttr_save
    _refused(game, "{", "$", "not readable JSON")
    _refused(game, "[" * 100_000 + "]" * 100_000, "$", "nested too deeply")
    _refused(game, "1" * 5000, "$", "not readable JSON")
    _refused(game, " " * (MAX_SAVE_CHARS + 1), "$", "at most")
    _refused(game, "[]", "$", "expected an object")
    with pytest.raises(InvalidSave):
        game.state_from_json(42)


def test_top_level_keys_and_header(ttr_save):
    game, doc = ttr_save
    _refused(game, _edit(doc, lambda d: d.pop("rng")), "$", "'rng' is missing")
    _refused(game, _edit(doc, lambda d: d.update(extra=1)), "$.extra", "unknown key")
    _refused(
        game, _edit(doc, lambda d: d.update(game="Tokyo Metro")), "$.game", "not 'Ticket to Ride'"
    )
    for players in (1, 6, True, "2", 2.0):
        _refused(
            game, _edit(doc, lambda d, v=players: d.update(players=v)), "$.players", "takes 2-5"
        )
    _refused(game, _edit(doc, lambda d: d.update(seed=1.5)), "$.seed")
    _refused(game, _edit(doc, lambda d: d.update(over=1)), "$.over", "true or false")


def test_the_generator_state_is_canonical_decimal_text_below_2_64(ttr_save):
    game, doc = ttr_save
    for rng in ("-1", str(2**64), "abc", "007", "", 5, "١٢"):
        _refused(game, _edit(doc, lambda d, v=rng: d.update(rng=v)), "$.rng")
    assert game.state_from_json(_edit(doc, lambda d: d.update(rng=str(2**64 - 1)))).rng == 2**64 - 1


def test_field_types_are_exact(ttr_save):
    game, doc = ttr_save
    _refused(
        game,
        _edit(doc, lambda d: d["state"].update(idle_turns=True)),
        "$.state.idle_turns",
        "integer",
    )
    _refused(game, _edit(doc, lambda d: d["state"].update(idle_turns="1")), "$.state.idle_turns")
    _refused(game, _edit(doc, lambda d: d["state"].update(idle_turns=1.0)), "$.state.idle_turns")
    hand = "$.player_state[1].bonus"
    _refused(
        game, _edit(doc, lambda d: d["player_state"][1].update(bonus=0)), hand, "true or false"
    )
    _refused(game, _edit(doc, lambda d: d["state"].pop("deck")), "$.state", "'deck' is missing")
    _refused(game, _edit(doc, lambda d: d["state"].update(nope=1)), "$.state.nope", "unknown key")


def test_integers_are_bounded_to_64_bit(ttr_save):
    game, doc = ttr_save
    for big in (INT_LIMIT, -INT_LIMIT - 1, 10**40):
        _refused(
            game,
            _edit(doc, lambda d, v=big: d["player_state"][0].update(score=v)),
            "$.player_state[0].score",
            "outside the integer range",
        )
    assert game.state_from_json(
        _edit(doc, lambda d: d["player_state"][0].update(longest=INT_LIMIT - 1))
    )


def test_enum_values_and_element_ids_are_known(ttr_save):
    game, doc = ttr_save
    _refused(
        game,
        _edit(doc, lambda d: d["state"]["deck"].__setitem__(3, "pink")),
        "$.state.deck[3]",
        "expected one of the 9 names",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][0]["tickets"].append("T99")),
        f"$.player_state[0].tickets[{len(doc['player_state'][0]['tickets'])}]",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["state"]["owner"].update(R999=None)),
        "$.state.owner",
        "not a key",
    )


def test_players_are_of_this_game(ttr_save):
    game, doc = ttr_save
    for bad in ("P3", "P0", "P01", "p1", 1):
        _refused(
            game,
            _edit(doc, lambda d, v=bad: d["state"]["owner"].update(R001=v)),
            "$.state.owner.R001",
            "expected a player P1..P2",
        )


def test_bags_hold_non_negative_bounded_counts(ttr_save):
    game, doc = ttr_save
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][1]["hand"].update(blue=-1)),
        "$.player_state[1].hand.blue",
        "a count",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][1]["hand"].update(blue=True)),
        "$.player_state[1].hand.blue",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["state"].update(face_up={"red": MAX_ITEMS, "blue": 1})),
        "$.state.face_up",
        "at most",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["state"].update(face_up=[])),
        "$.state.face_up",
        "expected an object",
    )


def test_lists_and_tables_have_their_shape(ttr_save):
    game, doc = ttr_save
    _refused(
        game,
        _edit(doc, lambda d: d["state"].update(deck={"red": 1})),
        "$.state.deck",
        "expected a list",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["state"].update(deck=["red"] * (MAX_ITEMS + 1))),
        "$.state.deck",
        "at most",
    )
    _refused(game, _edit(doc, lambda d: d["state"]["owner"].pop("R050")), "$.state.owner", "'R050'")
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"].pop()),
        "$.player_state",
        "one entry per player",
    )
    _refused(game, _edit(doc, lambda d: d["player_state"][0].pop("hand")), "$.player_state[0]")


def test_frames_name_procedures_and_program_counters_of_this_game(ttr_save):
    game, doc = ttr_save
    top = len(doc["stack"]) - 1
    _refused(game, _edit(doc, lambda d: d["stack"][0].update(proc="os_system")), "$.stack[0].proc")
    _refused(
        game, _edit(doc, lambda d: d["stack"][0].update(pc=99)), "$.stack[0].pc", "program counter"
    )
    _refused(game, _edit(doc, lambda d: d["stack"][0].update(pc=-1)), "$.stack[0].pc")
    _refused(game, _edit(doc, lambda d: d["stack"][0].update(pc="1")), "$.stack[0].pc")
    _refused(
        game,
        _edit(doc, lambda d: d["stack"][top].update(pc=0)),
        "$.site",
        "no decision waits where the top frame",
    )
    _refused(game, _edit(doc, lambda d: d.update(site=-2)), "$.site")
    # The number saved is another compile's when other rules were edited: the frame says which.
    again = game.state_from_json(json.dumps(_edit(doc, lambda d: d.update(site=len(game.sites)))))
    assert again.to_json() == game.state_from_json(json.dumps(doc)).to_json()
    _refused(game, _edit(doc, lambda d: d.update(over=True)), "$.stack", "finished game")
    _refused(game, _edit(doc, lambda d: d.update(stack=[])), "$.over")
    _refused(game, _edit(doc, lambda d: d["stack"][0].pop("ret")), "$.stack[0]", "'ret' is missing")


def test_frame_values_decode_within_bounds(ttr_save):
    game, doc = ttr_save
    locals_ = "$.stack[0].locals"
    _refused(game, _edit(doc, lambda d: d["stack"][0].update(locals=[1])), locals_, "named values")
    _refused(
        game,
        _edit(doc, lambda d: d["stack"][0].update(locals={"x": 1})),
        locals_,
        "expected a value",
    )
    _refused(
        game, _edit(doc, lambda d: d["stack"][0].update(locals={"d": [[[1], 2]]})), locals_ + ".d"
    )
    _refused(
        game,
        _edit(doc, lambda d: d["stack"][0].update(ret={"s": [1, "a"]})),
        "$.stack[0].ret.s",
        "different kinds",
    )
    _refused(game, _edit(doc, lambda d: d["stack"][0].update(ret=2**70)), "$.stack[0].ret")
    deep = json.dumps(doc, separators=(",", ":")).replace(
        '"ret":null', '"ret":' + "[" * 500 + "]" * 500, 1
    )
    assert _refused(game, deep, "$.stack[0].ret" + "[0]" * 64, "nested deeper")


def test_history_entries_are_players_and_exact_action_ids(ttr_save):
    game, doc = ttr_save
    _refused(game, _edit(doc, lambda d: d["history"][0].__setitem__(0, 2)), "$.history[0][0]")
    _refused(game, _edit(doc, lambda d: d["history"][0].__setitem__(0, False)), "$.history[0][0]")
    _refused(
        game,
        _edit(doc, lambda d: d["history"][0].__setitem__(1, "fly(away)")),
        "$.history[0][1]",
        "not an action",
    )
    _refused(game, _edit(doc, lambda d: d["history"][0].__setitem__(1, 7)), "$.history[0][1]")
    _refused(game, _edit(doc, lambda d: d["history"].__setitem__(0, [0])), "$.history[0]")
    _refused(
        game,
        _edit(doc, lambda d: d.update(history=[[0, "x"]] * (game.max_decisions + 1))),
        "$.history",
    )


def test_an_invariant_a_save_breaks_refuses_it():
    game = _game("tokyo_metro")
    doc = json.loads(_saves(game, 3, 2)[2])
    line = sorted(doc["state"]["speed_on"])[0]
    doc["state"]["speed_on"][line] = 10**9  # the save that used to hang the game later
    _refused(game, doc, "$", "invariant")


def test_who_is_to_move_must_be_players_with_legal_actions():
    game = _game("tokyo_jutaku")
    docs = [json.loads(text) for text in _saves(game, 2, 4)]
    doc = next(d for d in docs if d["stack"] and game.sites[d["site"]].secret)
    who = next(pair for pair in doc["stack"][-1]["locals"]["d"] if pair[0].startswith("_who"))
    who[1] = [0, 1, 7]
    _refused(game, doc, "$.stack", "not players of this game")


def test_geometry_cells_are_bounded_integer_triples():
    game = _game("tokyo_jutaku")
    texts = _saves(game, 2, 4)
    doc = json.loads(next(t for t in reversed(texts) if '"building":[[' in t))
    p = next(i for i, row in enumerate(doc["player_state"]) if row["building"])
    path = f"$.player_state[{p}].building"
    cells = doc["player_state"][p]["building"][0]
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][p]["building"][0].__setitem__(0, [0, 0])),
        path + "[0][0]",
        "3 integers",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][p]["building"][0].__setitem__(0, [10**6, 0, 0])),
        path + "[0][0]",
        "within",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][p]["building"].append(cells)),
        path,
        "two pieces",
    )
    _refused(
        game,
        _edit(doc, lambda d: d["player_state"][p]["building"].append([])),
        path + f"[{len(doc['player_state'][p]['building'])}]",
    )


SHAPES = """game "Save shapes" {
  players 2..3
  state {
    level: 0..5 public = 0
    evens: list of 0..10 step 2 public = [0, 2]
    flags: map bool -> int public
    seen: set of int public
    tally: map int -> int public
  }
  action go() { level += 1  add(seen, level)  tally[level] = 2  flags[true] = 1  end game }
  flow { choose by seat(1) { go } }
}
"""


def test_declared_ranges_sets_and_other_tables(tmp_path):
    (tmp_path / "rules.metro").write_text(SHAPES)
    game = load_game(str(tmp_path), use_cache=False)
    state = game.new_game(2, 1)
    doc = json.loads(state.to_json())
    assert game.state_from_json(doc).to_json() == state.to_json()
    _refused(game, _edit(doc, lambda d: d["state"].update(level=6)), "$.state.level", "range 0..5")
    _refused(game, _edit(doc, lambda d: d["state"].update(level=-1)), "$.state.level")
    _refused(
        game, _edit(doc, lambda d: d["state"]["evens"].append(3)), "$.state.evens[2]", "step 2"
    )
    _refused(game, _edit(doc, lambda d: d["state"].update(seen=[1, 1])), "$.state.seen", "twice")
    _refused(
        game,
        _edit(doc, lambda d: d["state"].update(tally=[[1, 2], [1, 3]])),
        "$.state.tally",
        "twice",
    )
    _refused(game, _edit(doc, lambda d: d["state"].update(tally=[[1]])), "$.state.tally[0]", "pair")
    _refused(game, _edit(doc, lambda d: d["state"]["flags"].pop("0")), "$.state.flags")
    assert game.state_from_json(_edit(doc, lambda d: d["state"].update(level=5))).g_level == 5


def test_secret_choices_already_made_must_be_legal():
    game = _game("tokyo_jutaku")
    docs = [json.loads(text) for text in _saves(game, 2, 4)]

    def made(d):
        return [
            pair
            for pair in d["stack"][-1]["locals"]["d"]
            if pair[0].startswith("_sub") and pair[1]["d"]
        ]

    doc = next(d for d in docs if d["stack"] and game.sites[d["site"]].secret and made(d))
    key, submitted = made(doc)[0]
    path = f"$.stack[{len(doc['stack']) - 1}].locals.{key}"
    _player, (name, args) = submitted["d"][0]
    assert game.state_from_json(doc)
    _refused(
        game,
        _edit(doc, lambda d: made(d)[0][1]["d"][0].__setitem__(1, [name, [*args[:-1], 99]])),
        path,
        "not one of their options",
    )
    _refused(
        game,
        _edit(doc, lambda d: made(d)[0][1]["d"][0].__setitem__(0, 5)),
        path,
        "keyed by players",
    )


def test_a_procedure_naming_a_non_player_to_decide_is_a_rule_error(ttr_save):
    game, doc = ttr_save
    state = game.state_from_json(doc)
    for bad in (2, -1, None):
        with pytest.raises(RuleError, match="not a player of this game"):
            state.cache_legal(bad, [])
