"""Adapters: the reference runtime and a JSON-lines engine in a subprocess agree; protocol breaches fail cleanly."""

from __future__ import annotations

import os
import sys
import time

import pytest

from metro.conformance.adapter import (
    Adapter,
    Disagreement,
    EngineError,
    LocalAdapter,
    Lockstep,
    SubprocessAdapter,
    engine_from_env,
    play_random,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TTR = os.path.join(ROOT, "games", "ticket_to_ride")
ENGINE = [sys.executable, os.path.join(ROOT, "examples", "json_engine.py"), TTR]


@pytest.fixture(scope="module")
def json_engine():
    """The example engine serving Ticket to Ride over the protocol."""
    with SubprocessAdapter(ENGINE, timeout=60) as engine:
        yield engine


def _fake_engine(tmp_path, body: str) -> list[str]:
    script = tmp_path / "engine.py"
    script.write_text("import sys, time\n" + body)
    return [sys.executable, str(script)]


def test_both_adapters_satisfy_the_protocol(ttr, json_engine):
    assert isinstance(LocalAdapter(ttr), Adapter)
    assert isinstance(json_engine, Adapter)
    assert json_engine.info()["game"] == ttr.name == LocalAdapter(ttr).info()["game"]


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, "x/7"), (5, 11)])
def test_subprocess_engine_agrees_with_the_reference(ttr, json_engine, players, seed):
    state = play_random(Lockstep(ttr, json_engine), players, seed)
    assert state.is_over
    assert json_engine.scores() == state.scores()
    assert json_engine.is_over()


def test_adapters_answer_alike_step_by_step(ttr, json_engine):
    local = LocalAdapter(ttr)
    for adapter in (local, json_engine):
        adapter.new_game(3, 4)
    for _ in range(30):
        to_move = local.to_move()
        assert json_engine.to_move() == to_move
        player = to_move[-1]
        legal = local.legal_actions(player)
        assert json_engine.legal_actions(player) == legal
        assert json_engine.view(player) == local.view(player)
        assert json_engine.apply(player, legal[len(legal) // 2]) is None
        assert local.apply(player, legal[len(legal) // 2]) is None
    assert json_engine.scores() == local.scores()


def test_refusals_are_answers_and_change_nothing(ttr, json_engine):
    local = LocalAdapter(ttr)
    for adapter in (local, json_engine):
        adapter.new_game(2, 9)
        before = adapter.view(0)
        reason = adapter.apply(0, "no_such_action")
        assert isinstance(reason, str) and "illegal action" in reason
        assert adapter.apply(7, adapter.legal_actions(0)[0]) is not None
        assert adapter.view(0) == before


def test_bad_requests_raise_engine_errors(ttr, json_engine):
    with pytest.raises(EngineError, match="takes 2-5 players"):
        json_engine.new_game(9, 1)
    with pytest.raises(EngineError, match="takes 2-5 players"):
        LocalAdapter(ttr).new_game(9, 1)
    with pytest.raises(EngineError, match="no game has been started"):
        LocalAdapter(ttr).to_move()
    answer = json_engine.request("no_such_op")
    assert answer["ok"] is False and "unknown request" in answer["error"]


def test_request_before_new_game_is_refused():
    with SubprocessAdapter(ENGINE, timeout=60) as engine:
        with pytest.raises(EngineError, match="no game has been started"):
            engine.legal_actions(0)


def test_an_engine_that_hangs_times_out(tmp_path):
    engine = SubprocessAdapter(_fake_engine(tmp_path, "time.sleep(60)\n"), timeout=0.5)
    started = time.monotonic()
    with pytest.raises(EngineError, match=r"did not answer 'to_move' within 0\.5 s"):
        engine.to_move()
    assert time.monotonic() - started < 10
    assert engine.process.poll() is not None
    engine.close()


def test_an_engine_that_dies_is_reported_with_its_stderr(tmp_path):
    argv = _fake_engine(
        tmp_path,
        "sys.stdin.readline()\nprint('boom: out of track', file=sys.stderr)\nsys.exit(3)\n",
    )
    with SubprocessAdapter(argv, timeout=10) as engine:
        with pytest.raises(EngineError, match="closed its output during 'scores'") as info:
            engine.scores()
    assert "boom: out of track" in str(info.value)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("hello", "not JSON"),
        ("[1, 2]", 'no "ok"'),
        ('{"ok": "yes"}', 'no "ok"'),
        ('{"ok": true, "to_move": "P1"}', '"to_move" as list'),
        ('{"ok": true, "to_move": [true]}', "list of integers"),
    ],
)
def test_protocol_breaches_are_engine_errors(tmp_path, reply, message):
    argv = _fake_engine(tmp_path, f"for line in sys.stdin:\n    print({reply!r}, flush=True)\n")
    with SubprocessAdapter(argv, timeout=10) as engine:
        with pytest.raises(EngineError, match=message):
            engine.to_move()


def test_a_missing_engine_program_is_an_engine_error(tmp_path):
    with pytest.raises(EngineError, match="cannot start the engine"):
        SubprocessAdapter([str(tmp_path / "no-such-engine")])


def test_engine_from_env(monkeypatch):
    monkeypatch.delenv("METRO_ENGINE", raising=False)
    assert engine_from_env() is None
    monkeypatch.setenv("METRO_ENGINE", f"python {ENGINE[1]} {TTR}")
    engine = engine_from_env()
    try:
        assert isinstance(engine, SubprocessAdapter)
        assert engine.argv[0] == sys.executable
        assert engine.info()["game"] == "Ticket to Ride"
    finally:
        engine.close()


class _Lying(LocalAdapter):
    """A faulty engine: `fault` says how it differs from the reference."""

    def __init__(self, game, fault: str):
        super().__init__(game)
        self.fault = fault

    def legal_actions(self, player):
        legal = super().legal_actions(player)
        return legal[:-1] if self.fault == "legal" and len(legal) > 1 else legal

    def apply(self, player, action):
        if self.fault == "accepts" and action.startswith("no_such"):
            return None
        return super().apply(player, action)

    def view(self, player):
        view = super().view(player)
        if self.fault == "view":
            view["state"] = {**view["state"], "deck": "peeked"}
        return view

    def scores(self):
        return [s + (self.fault == "scores") for s in super().scores()]


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("legal", "legal actions of player"),
        ("accepts", "made-up action"),
        ("view", "view of player"),
        ("scores", "scores"),
    ],
)
def test_lockstep_catches_a_faulty_engine(ttr, fault, message):
    with pytest.raises(Disagreement, match=message):
        play_random(Lockstep(ttr, _Lying(ttr, fault)), 2, 3)


def test_record_replays_to_the_same_state(ttr):
    run = Lockstep(ttr)
    state = play_random(run, 3, 5, max_steps=40)
    record = run.record()
    assert record["players"] == 3 and record["seed"] == 5 and len(record["actions"]) == 40
    replayed = ttr.replay(record["players"], record["seed"], [tuple(a) for a in record["actions"]])
    assert replayed.to_json() == state.to_json()
    assert run.record_text().startswith("replay record: {")


# ---------------------------------------------------------------- malformed requests and answers

DEEP = b"[" * 100_000 + b"]" * 100_000
BAD_REQUESTS = [
    (b"hello", "not JSON"),
    (b'{"op": "info"', "not JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b'{"op": "info", "x": "\xed\xa0\x80"}', "not UTF-8"),
    (b'{"op": "apply", "player": 0, "action": "\\ud800"}', "lone surrogate"),
    (b'{"op": "info", "\\udfff": 1}', "lone surrogate"),
    (DEEP, "nested deeper than 100"),
    (b'{"op": "apply", "player": 0, "action": ' + DEEP + b"}", "nested deeper than 100"),
    (b'{"op": "info", "x": ' + b"[" * 150 + b"]" * 150 + b"}", "nested deeper than 100"),
    (
        b'{"op": "info", "pad": "' + b"x" * (2 << 20) + b'"}',
        "longer than the limit of 1,048,576 bytes",
    ),
    (b'{"op": "legal_actions", "player": ' + b"9" * 5000 + b"}", "not JSON"),
    (b"5", "unknown request"),
    (b"null", "unknown request"),
    (b'"info"', "unknown request"),
    (b"[]", "unknown request"),
    (b'{"op": 5}', "unknown request"),
    (b'{"op": "__class__"}', "unknown request"),
    (b'{"player": 0}', "unknown request"),
    (b'{"op": "legal_actions", "player": []}', '"player" as an integer'),
    (b'{"op": "legal_actions", "player": true}', '"player" as an integer'),
    (b'{"op": "legal_actions", "player": "0"}', '"player" as an integer'),
    (b'{"op": "legal_actions", "player": 1.5}', '"player" as an integer'),
    (b'{"op": "legal_actions", "player": NaN}', '"player" as an integer'),
    (b'{"op": "legal_actions"}', '"player" as an integer, not missing'),
    (b'{"op": "view", "player": false}', '"player" as an integer'),
    (b'{"op": "view", "player": {}}', '"player" as an integer'),
    (b'{"op": "view", "player": -1}', "there is no player -1"),
    (b'{"op": "apply", "player": [], "action": "draw_blind"}', '"player" as an integer'),
    (b'{"op": "apply", "player": true, "action": "draw_blind"}', '"player" as an integer'),
    (b'{"op": "apply", "player": 0, "action": 5}', '"action" as an action id'),
    (b'{"op": "apply", "player": 0, "action": ["draw_blind"]}', '"action" as an action id'),
    (b'{"op": "apply", "player": 0}', '"action" as an action id'),
    (b'{"op": "apply", "player": 0, "action": "' + b"(" * 100_000 + b'"}', "not a legal choice"),
    (b'{"op": "new_game", "players": true, "seed": 1}', '"players" as an integer'),
    (b'{"op": "new_game", "players": "3", "seed": 1}', '"players" as an integer'),
    (b'{"op": "new_game", "players": 3, "seed": true}', '"seed" as an integer or a string'),
    (b'{"op": "new_game", "players": 3, "seed": [1]}', '"seed" as an integer or a string'),
    (b'{"op": "new_game", "players": 3, "seed": 1.5}', '"seed" as an integer or a string'),
    (b'{"op": "new_game", "players": 99, "seed": 1}', "takes 2-5 players"),
]


@pytest.mark.parametrize(
    ("line", "message"), BAD_REQUESTS, ids=[repr(line[:40]) for line, _ in BAD_REQUESTS]
)
def test_the_engine_answers_a_malformed_request_and_keeps_serving(json_engine, line, message):
    json_engine.new_game(2, 5)
    before = json_engine.view(0)
    answer = json_engine.exchange(line + b"\n")
    assert answer["ok"] is False and message in answer["error"], answer
    assert len(answer["error"]) < 400
    assert json_engine.info()["game"] == "Ticket to Ride"
    assert json_engine.view(0) == before


def test_a_request_with_a_lone_surrogate_is_sent_and_refused(json_engine):
    json_engine.new_game(2, 5)
    assert "lone surrogate" in json_engine.apply(0, "keep(\ud800)")
    assert json_engine.to_move() == [0, 1]


def _replying_engine(tmp_path, *replies: bytes) -> list[str]:
    """A fake engine answering request n with replies[n] (the last one over and over)."""
    for index, reply in enumerate(replies):
        (tmp_path / f"reply{index}").write_bytes(reply + b"\n")
    body = (
        f"replies = [open(r'{tmp_path}/reply%d' % i, 'rb').read() for i in range({len(replies)})]\n"
        "for n, _ in enumerate(sys.stdin.buffer):\n"
        "    sys.stdout.buffer.write(replies[min(n, len(replies) - 1)])\n"
        "    sys.stdout.buffer.flush()\n"
    )
    return _fake_engine(tmp_path, body)


CALLS = {
    "to_move": (),
    "scores": (),
    "legal_actions": (0,),
    "view": (0,),
    "is_over": (),
    "info": (),
    "apply": (0, "draw_blind"),
    "new_game": (2, 1),
}
BAD_REPLIES = [
    ("to_move", b"hello", "not JSON"),
    ("to_move", b"", "not JSON"),
    ("to_move", DEEP, "nested deeper than 100"),
    (
        "to_move",
        b'{"ok": true, "to_move": ' + b"[" * 150 + b"]" * 150 + b"}",
        "nested deeper than 100",
    ),
    ("to_move", b'{"ok": true, "to_move": [], "x": "\\ud800"}', "lone surrogate"),
    ("to_move", b'{"ok": true, "to_move": [], "x": "\xed\xa0\x80"}', "not UTF-8"),
    (
        "to_move",
        b'{"ok": true, "to_move": [], "pad": "' + b"x" * (2 << 20) + b'"}',
        "longer than the limit",
    ),
    ("to_move", b'{"ok": true, "to_move": [' + b"9" * 5000 + b"]}", "not JSON"),
    ("to_move", b"null", 'no "ok"'),
    ("to_move", b'{"ok": 1, "to_move": []}', 'no "ok"'),
    ("to_move", b'{"ok": true}', '"to_move" as list'),
    ("to_move", b'{"ok": true, "to_move": [1.5]}', "list of integers"),
    ("to_move", b'{"ok": false, "error": {"why": 1}}', '"error" as a string'),
    ("scores", b'{"ok": true, "scores": ["1"]}', "list of integers"),
    ("scores", b'{"ok": true, "scores": [NaN]}', "list of integers"),
    ("legal_actions", b'{"ok": true, "actions": [1]}', "list of strings"),
    ("legal_actions", b'{"ok": true, "actions": {}}', '"actions" as list'),
    ("view", b'{"ok": true, "view": []}', '"view" as dict'),
    ("is_over", b'{"ok": true, "over": 1}', '"over" as bool'),
    ("info", b'{"ok": true, "game": 5, "min_players": 1, "max_players": 2}', '"game" as str'),
    ("info", b'{"ok": true, "game": "G", "max_players": 2}', '"min_players" as int'),
    (
        "info",
        b'{"ok": true, "game": "G", "min_players": true, "max_players": 2}',
        '"min_players" as int',
    ),
    ("apply", b'{"ok": false, "error": ["no"]}', '"error" as a string'),
    ("new_game", b'{"ok": false}', "refused new_game"),
]


@pytest.mark.parametrize(
    ("call", "reply", "message"), BAD_REPLIES, ids=[f"{c}-{r[:30]!r}" for c, r, _ in BAD_REPLIES]
)
def test_every_malformed_answer_is_an_engine_error(tmp_path, call, reply, message):
    with SubprocessAdapter(_replying_engine(tmp_path, reply), timeout=20) as engine:
        with pytest.raises(EngineError, match=message) as info:
            getattr(engine, call)(*CALLS[call])
    assert len(str(info.value)) < 1000


def test_after_an_overlong_answer_the_next_answer_is_read(tmp_path):
    huge = b'{"ok": true, "to_move": [], "pad": "' + b"x" * (3 << 20) + b'"}'
    with SubprocessAdapter(
        _replying_engine(tmp_path, huge, b'{"ok": true, "to_move": [1]}'), timeout=20
    ) as engine:
        with pytest.raises(EngineError, match="longer than the limit"):
            engine.to_move()
        assert engine.to_move() == [1]
