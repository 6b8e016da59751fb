"""`metro serve` started for real: the API, the authority over every decision, no leaks, restarts.

Each test talks HTTP (and websockets) to a real server process on a loopback port, with a real
SQLite file; the engine, run here on the same seeds and decisions, says what the server must
answer. Skipped without the serve extra.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import asdict

import pytest
from jsonschema import Draft202012Validator

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")
websockets_sync = pytest.importorskip("websockets.sync.client")
from websockets.exceptions import InvalidStatus  # noqa: E402

from loader import load_game  # noqa: E402
from loader.games import (  # noqa: E402
    available_patches,
    game_path,
    shipped_games,
)
from metro.play.menus import heading  # noqa: E402
from metro.play.moves import replayed  # noqa: E402
from metro.serve.limits import (  # noqa: E402
    MAX_BODY_BYTES,
    MAX_CONNECTIONS_PER_MATCH,
    MAX_OPEN_MATCHES,
)
from tests.serve_helpers import ROOT, Server, jsonable  # noqa: E402
from tests.test_replay import page_data  # noqa: E402
from tests.test_vectors import registry  # noqa: E402

TTR = "ticket_to_ride"
HUMAN = {"human": True}
STEP_WAIT = 0.005  # seconds between polls while a bot decides


SCHEMAS = os.path.join(ROOT, "schemas", "serve")


@functools.cache
def validator(name: str) -> Draft202012Validator:
    """The validator of one of the API's schemas (schemas/serve/NAME.schema.json)."""
    with open(os.path.join(SCHEMAS, f"{name}.schema.json"), encoding="utf-8") as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=registry())


def valid(name: str, doc):
    """`doc`, once it is checked against the API's schema `name`."""
    validator(name).validate(doc)
    return doc


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server offering every shipped game, on a fresh database."""
    running = Server(str(tmp_path_factory.mktemp("serve") / "matches.sqlite3"))
    yield running
    running.stop()


def expected(state, seat: int | None, match_id: str, log) -> dict:
    """What the engine says `seat` (None: a spectator) may see of a position."""
    legal = state.legal_actions(seat) if seat is not None else []
    return jsonable(
        {
            "view": state.view(seat) if seat is not None else state.public_view(),
            "legal": [a.id for a in legal],
            "labels": [a.label for a in legal],
            "screen": asdict(state.display(seat)),
            "log": [move.line(seat) for move in log.moves],
            "decisions": len(state.history),
            "to_move": state.to_move,
            "match": match_id,
        }
    )


def seen(doc: dict) -> dict:
    """The parts of a document the engine's `expected` covers."""
    return {
        "view": doc["view"],
        "legal": doc["legal"],
        "labels": [c["label"] for c in doc["choices"]],
        "screen": doc["screen"],
        "log": doc["log"],
        "decisions": doc["decisions"],
        "to_move": doc["to_move"],
        "match": doc["match"],
    }


def token_query(tokens: dict[int, str], seat: int | None) -> str:
    return "" if seat is None else f"?token={tokens[seat]}"


def play_against_bot(server: Server, match_id: str, token: str, rng, until=None) -> dict:
    """Seat 0 takes random legal choices through the API while the bot in seat 1 answers."""
    deadline = time.monotonic() + 120
    while True:
        doc = server.get(f"/api/matches/{match_id}?token={token}")
        if doc["over"] or (until is not None and doc["decisions"] >= until):
            return doc
        assert time.monotonic() < deadline, "the match stalled"
        if 0 not in doc["to_move"]:
            time.sleep(STEP_WAIT)
            continue
        answer = server.call(
            "POST",
            f"/api/matches/{match_id}/actions",
            {"token": token, "action": rng.choice(doc["legal"]), "decisions": doc["decisions"]},
        )
        # 409: the bot decided meanwhile (at a simultaneous choice): look again, choose again
        assert answer.status == 200 or (answer.status == 409 and doc["decisions"] == 0), answer.doc


def test_the_games_are_the_shipped_ones(server):
    listed = {g["name"]: g for g in valid("games", server.get("/api/games"))}
    assert sorted(listed) == shipped_games()
    ttr = load_game(game_path(TTR))
    assert listed[TTR]["title"] == ttr.name
    assert listed[TTR]["players"] == [ttr.min_players, ttr.max_players]
    assert "big_bonus" in listed[TTR]["variants"]
    levels = {level["name"]: level["bot"] for level in listed[TTR]["levels"]}
    assert set(levels) >= {"easy", "medium", "hard"} and set(levels) <= set(listed[TTR]["bots"])


def test_a_level_is_held_to_the_servers_bounds_on_its_bots(server, tmp_path):
    from metro.bots import spec_of
    from metro.serve.limits import MAX_BOT_ITERATIONS
    from metro.serve.requests import BadRequest, check_bot_budget

    (tmp_path / "rules.metro").write_text(
        LEVELLED.replace("BUDGET", str(MAX_BOT_ITERATIONS + 1)), encoding="utf-8"
    )
    game = load_game(str(tmp_path), use_cache=False)
    assert spec_of("hard", game) == f"mcts:{MAX_BOT_ITERATIONS + 1}"
    with pytest.raises(BadRequest, match=f"at most {MAX_BOT_ITERATIONS} iterations"):
        check_bot_budget(spec_of("hard", game))
    with pytest.raises(BadRequest, match=f"at most {MAX_BOT_ITERATIONS} iterations"):
        check_bot_budget(f"mcts:{MAX_BOT_ITERATIONS + 1}/2")  # priors two decisions deep
    created = server.create(TTR, [HUMAN, {"bot": "easy"}], seed=3)
    assert created["match"]  # a level is a bot's name


LEVELLED = """\
game "Levelled" {
  players 2..2
  per player { points: int public }
  level hard "mcts:BUDGET"
  action gain(k in [1, 2]) { me.points += k }
  flow { for p in players { choose by p { gain } } }
  score(p) = p.points
  rank p by p.points desc
}
"""


def test_a_whole_ticket_to_ride_match_against_a_bot(server):
    created = valid("match-created", server.create(TTR, [HUMAN, {"bot": "random"}], seed=5))
    match_id, (seat,) = created["match"], created["seats"]
    assert seat["seat"] == 0 and seat["url"] == f"/play/{match_id}?token={seat['token']}"
    final = play_against_bot(server, match_id, seat["token"], random.Random(5))
    assert final["over"] and final["legal"] == []
    history = server.stored_decisions(match_id)
    assert len(history) == final["decisions"] > 20
    assert {s for s, _ in history} == {0, 1}  # the bot played its seat on the server
    state, log = replayed(load_game(game_path(TTR)), 2, 5, history)
    assert state.is_over
    assert final["scores"] == state.scores() and final["places"] == state.ranking()
    assert seen(final) == expected(state, 0, match_id, log)
    public = valid("match", server.get(f"/api/matches/{match_id}"))
    # the finished match opens in `metro replay`'s page, in the asking seat's view alone
    with urllib.request.urlopen(f"{server.base}/replay/{match_id}?token={seat['token']}") as page:
        data = page_data(page.read().decode("utf-8"))
    assert [view["key"] for view in data["views"]] == ["P1"]
    assert len(data["steps"]) == len(history) + 1
    valid("match", final)
    assert seen(public) == expected(state, None, match_id, log)


GAMES_AND_EXPANSIONS = [(name, ()) for name in shipped_games()] + [
    (name, (expansion,))
    for name in shipped_games()
    for expansion in available_patches(game_path(name), "expansions")
]


@pytest.mark.parametrize(
    ("name", "expansions"),
    GAMES_AND_EXPANSIONS,
    ids=["+".join((name, *expansions)) for name, expansions in GAMES_AND_EXPANSIONS],
)
def test_every_document_a_seat_receives_is_its_view(server, name, expansions):
    """No leaks: each seat's (and a spectator's) documents, by HTTP and websocket, hold only
    what the engine's view for that seat holds, at every position of a few random moves."""
    game = load_game(game_path(name), expansions=expansions)
    created = server.call(
        "POST",
        "/api/matches",
        {"game": name, "seed": 11, "expansions": list(expansions), "seats": [HUMAN, HUMAN]},
    ).doc
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    base = f"/api/matches/{match_id}"
    state, log = replayed(game, 2, 11, [])
    rng = random.Random(f"{name}{expansions}")
    socket_url = server.base.replace("http", "ws") + base + "/ws"
    with (
        websockets_sync.connect(f"{socket_url}?token={tokens[1]}") as seat_socket,
        websockets_sync.connect(socket_url) as public_socket,
    ):
        for _ in range(6):
            for seat in (0, 1, None):
                doc = valid("match", server.get(base + token_query(tokens, seat)))
                assert seen(doc) == expected(state, seat, match_id, log), (name, seat)
                assert doc["scores"] is None or state.is_over
                # each choice is headed in its labels' own words, as `metro play` heads it
                legal = state.legal_actions(seat) if seat is not None else []
                alike = {a.name: [b for b in legal if b.name == a.name] for a in legal}
                kinds = {n: heading(g) + (" …" if len(g) > 1 else "") for n, g in alike.items()}
                assert [c["group"] for c in doc["choices"]] == [kinds[a.name] for a in legal]
            for socket, seat in ((seat_socket, 1), (public_socket, None)):
                doc = json.loads(socket.recv(timeout=30))
                assert seen(doc) == expected(state, seat, match_id, log), (name, seat)
            if not state.to_move:
                break
            seat = rng.choice(state.to_move)
            action = rng.choice(state.legal_actions(seat))
            answer = server.call(
                "POST",
                base + "/actions",
                {"token": tokens[seat], "action": action.id, "decisions": len(state.history)},
            )
            log.record(state, seat, action)
            state.apply(seat, action)
            assert answer.status == 200, answer.doc
            assert seen(answer.doc) == expected(state, seat, match_id, log)


def test_a_match_with_a_variant_is_the_engine_s_game_with_that_variant(server):
    answer = server.call(
        "POST",
        "/api/matches",
        {"game": TTR, "seed": "some seed", "variants": ["big_hand"], "seats": [HUMAN, HUMAN]},
    )
    assert answer.status == 200, answer.doc
    match_id, token = answer.doc["match"], answer.doc["seats"][0]["token"]
    doc = server.get(f"/api/matches/{match_id}?token={token}")
    patched = load_game(game_path(TTR), variants=("big_hand",)).new_game(2, "some seed")
    plain = load_game(game_path(TTR)).new_game(2, "some seed")
    assert doc["view"] == jsonable(patched.view(0)) != jsonable(plain.view(0))


def test_bad_requests_are_refused_and_change_nothing(server):
    created = server.create(TTR, [HUMAN, HUMAN], seed=3)
    match_id = created["match"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    base = f"/api/matches/{match_id}"
    game = load_game(game_path(TTR))
    state = game.new_game(2, 3)
    for seat in (0, 1):  # both keep their first tickets (a simultaneous choice)
        action = state.legal_actions(seat)[0].id
        answer = server.call(
            "POST",
            base + "/actions",
            {"token": tokens[seat], "action": action, "decisions": len(state.history)},
        )
        assert answer.status == 200, answer.doc
        state.apply(seat, action)
    (mover,) = state.to_move
    waiting = 1 - mover
    legal = state.legal_actions(mover)[0].id
    k = len(state.history)
    before = {seat: server.get(base + token_query(tokens, seat)) for seat in (0, 1, None)}

    def act(body) -> int:
        answer = server.call("POST", base + "/actions", body)
        valid("error" if answer.status >= 400 else "match", answer.doc)
        return answer.status

    assert act({"token": tokens[mover], "action": legal, "decisions": k - 1}) == 409  # stale
    assert act({"token": tokens[mover], "action": legal, "decisions": k + 1}) == 409  # ahead
    assert act({"token": "forged" + tokens[mover], "action": legal, "decisions": k}) == 403
    assert act({"token": tokens[waiting], "action": legal, "decisions": k}) == 409  # not its turn
    assert act({"token": tokens[mover], "action": "claim(R999)", "decisions": k}) == 422
    assert act({"token": tokens[mover], "action": legal, "decisions": "3"}) == 400
    assert act({"token": tokens[mover], "decisions": k}) == 400
    assert act([tokens[mover], legal, k]) == 400
    assert server.call("POST", base + "/actions", raw=b'{"token": "x", "act').status == 400
    huge = json.dumps({"token": tokens[mover], "action": legal, "decisions": k, "pad": "x" * 10000})
    assert len(huge) > MAX_BODY_BYTES
    assert server.call("POST", base + "/actions", raw=huge.encode()).status == 413
    assert server.call("GET", base + "?token=forged").status == 403
    plain = urllib.request.Request(
        server.base + base + "/actions",
        data=json.dumps({"token": tokens[mover], "action": legal, "decisions": k}).encode(),
        headers={"Content-Type": "text/plain"},  # what a page elsewhere may send unasked
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(plain, timeout=30)
    refused.value.close()
    assert refused.value.code == 415
    rebound = urllib.request.Request(server.base + base, headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(rebound, timeout=30)
    refused.value.close()
    assert refused.value.code == 400
    assert server.call("GET", f"/replay/{match_id}?token={tokens[0]}").status == 409
    assert server.call("GET", "/api/matches/0000000000000000").status == 404
    for bad in (
        {"game": "../../etc/passwd", "seats": [HUMAN, HUMAN]},
        {"game": ROOT + "/games/ticket_to_ride", "seats": [HUMAN, HUMAN]},
        {"game": TTR, "seats": [HUMAN]},
        {"game": TTR, "seats": [HUMAN, {"bot": "mcts:9999999"}]},
        {"game": TTR, "seats": [HUMAN, {"bot": "nobody"}]},
        {"game": TTR, "seats": [HUMAN, HUMAN], "variants": ["/etc/passwd"]},
        {"game": TTR, "seats": [HUMAN, HUMAN], "seed": 2.5},
    ):
        answer = server.call("POST", "/api/matches", bad)
        assert 400 <= answer.status < 500 and valid("error", answer.doc)["error"], bad
    after = {seat: server.get(base + token_query(tokens, seat)) for seat in (0, 1, None)}
    assert after == before
    assert len(server.stored_decisions(match_id)) == k
    # and the right request still works
    assert act({"token": tokens[mover], "action": legal, "decisions": k}) == 200


def test_a_killed_server_loses_nothing_and_the_match_ends_as_the_engine_replays_it(tmp_path):
    database = str(tmp_path / "matches.sqlite3")
    first = Server(database, (TTR,))
    try:
        created = first.create(TTR, [HUMAN, {"bot": "random"}], seed=8)
        match_id, token = created["match"], created["seats"][0]["token"]
        rng = random.Random(8)
        acknowledged = play_against_bot(first, match_id, token, rng, until=30)
    finally:
        first.kill()
    stored = first.stored_decisions(match_id)
    assert len(stored) >= acknowledged["decisions"] >= 30
    second = Server(database, (TTR,))
    try:
        game = load_game(game_path(TTR))
        resumed = second.get(f"/api/matches/{match_id}?token={token}")
        state, log = replayed(game, 2, 8, stored[: resumed["decisions"]])
        assert resumed["decisions"] >= len(stored)
        assert resumed["view"] == jsonable(state.view(0))
        final = play_against_bot(second, match_id, token, rng)
    finally:
        second.stop()
    state, log = replayed(game, 2, 8, second.stored_decisions(match_id))
    assert final["over"] and state.is_over
    assert seen(final) == expected(state, 0, match_id, log)
    assert final["scores"] == state.scores()


def wait_for(server: Server, path: str, condition, seconds: float = 60) -> dict:
    """The first document at `path` that meets `condition` (polled)."""
    deadline = time.monotonic() + seconds
    while True:
        doc = server.get(path)
        if condition(doc):
            return doc
        assert time.monotonic() < deadline, doc
        time.sleep(STEP_WAIT)


def test_a_bot_stands_in_for_an_absent_person_until_they_return(tmp_path):
    server = Server(str(tmp_path / "matches.sqlite3"), (TTR,), ("--absent-after", "0.3"))
    try:
        created = server.create(TTR, [HUMAN, {"bot": "random"}], seed=9)
        match_id, token = created["match"], created["seats"][0]["token"]
        path = f"/api/matches/{match_id}?token={token}"
        socket_url = f"{server.base.replace('http', 'ws')}/api/matches/{match_id}/ws?token={token}"
        with websockets_sync.connect(socket_url) as socket:
            socket.recv(timeout=30)
            time.sleep(0.6)  # here: nobody stands in
            assert not server.get(path)["seats"][0]["absent"]
            assert 0 not in [seat for seat, _ in server.stored_decisions(match_id)]
        # gone: a stand-in takes seat 0's decisions
        wait_for(server, path, lambda doc: doc["seats"][0]["absent"])
        deadline = time.monotonic() + 60
        while [seat for seat, _ in server.stored_decisions(match_id)].count(0) < 2:
            assert time.monotonic() < deadline
            time.sleep(STEP_WAIT)
        with websockets_sync.connect(socket_url):
            # back: the seat is the person's again, and the match waits for them
            doc = wait_for(
                server, path, lambda d: not d["seats"][0]["absent"] and 0 in d["to_move"]
            )
            time.sleep(0.6)
            assert server.get(path) == doc
            answer = server.call(
                "POST",
                f"/api/matches/{match_id}/actions",
                {"token": token, "action": doc["legal"][0], "decisions": doc["decisions"]},
            )
            assert answer.status == 200, answer.doc
        assert not doc["over"]
    finally:
        server.stop()


def test_two_servers_on_one_database_serve_one_match_consistently(shared_database):
    database = shared_database
    servers = [Server(database, (TTR,)), Server(database, (TTR,))]
    try:
        created = servers[0].create(TTR, [HUMAN, HUMAN], seed=6)
        match_id = created["match"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        base = f"/api/matches/{match_id}"
        state, log = replayed(load_game(game_path(TTR)), 2, 6, [])
        rng = random.Random(6)
        socket_url = f"{servers[1].base.replace('http', 'ws')}{base}/ws?token={tokens[1]}"
        with websockets_sync.connect(socket_url) as socket:
            assert json.loads(socket.recv(timeout=30))["decisions"] == 0
            for turn in range(8):
                for server in servers:
                    for seat in (0, 1):
                        doc = server.get(base + token_query(tokens, seat))
                        assert seen(doc) == expected(state, seat, match_id, log)
                seat = rng.choice(state.to_move)
                action = rng.choice(state.legal_actions(seat)).id
                body = {"token": tokens[seat], "action": action, "decisions": len(state.history)}
                # sent to both servers at once: one takes it, the other refuses it
                with ThreadPoolExecutor(2) as pool:
                    sent = [pool.submit(s.call, "POST", base + "/actions", body) for s in servers]
                    answers = [future.result() for future in sent]
                assert sorted(a.status for a in answers) == [200, 409], [a.doc for a in answers]
                action = state.game.parse_action(action)
                log.record(state, seat, action)
                state.apply(seat, action)
                # the browser following the match on the second server hears of it
                while (doc := json.loads(socket.recv(timeout=30)))["decisions"] < turn + 1:
                    pass
                assert seen(doc) == expected(state, 1, match_id, log)
        assert servers[0].stored_decisions(match_id) == [(p, a.id) for p, a in state.history]
    finally:
        for server in servers:
            server.stop()


def test_the_server_refuses_more_open_matches_than_its_bound(tmp_path):
    server = Server(str(tmp_path / "matches.sqlite3"), (TTR,))
    try:
        for seed in range(MAX_OPEN_MATCHES):
            server.create(TTR, [HUMAN, HUMAN], seed=seed)
        answer = server.call("POST", "/api/matches", {"game": TTR, "seats": [HUMAN, HUMAN]})
        assert answer.status == 503 and valid("error", answer.doc)["error"]
    finally:
        server.stop()


def test_websockets_are_bounded_per_match_and_need_a_true_token(server):
    created = server.create(TTR, [HUMAN, HUMAN], seed=2)
    url = f"{server.base.replace('http', 'ws')}/api/matches/{created['match']}/ws"
    with pytest.raises(InvalidStatus):
        websockets_sync.connect(f"{url}?token=forged")
    with ExitStack() as stack:
        for _ in range(MAX_CONNECTIONS_PER_MATCH):
            socket = stack.enter_context(websockets_sync.connect(url))
            assert json.loads(socket.recv(timeout=30))["decisions"] == 0
        with pytest.raises(InvalidStatus):
            websockets_sync.connect(url)
    # closed again, they no longer count (once the server has seen them close)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket = websockets_sync.connect(url)
            break
        except InvalidStatus:
            assert time.monotonic() < deadline
            time.sleep(STEP_WAIT)
    with socket:
        assert json.loads(socket.recv(timeout=30))["seat"] is None


def test_other_commands_do_not_import_the_server():
    code = (
        "import sys, metro.cli\n"
        "from click.testing import CliRunner\n"
        "CliRunner().invoke(metro.cli.main, ['simulate', 'ticket_to_ride', '--games', '1'])\n"
        "loaded = {'starlette', 'uvicorn', 'sqlalchemy'} & {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"


def test_without_the_serve_extra_the_command_says_how_to_get_it():
    code = (
        "import sys\n"
        "sys.modules['starlette'] = None  # as if the serve extra were not installed\n"
        "from click.testing import CliRunner\n"
        "from metro.cli import main\n"
        "result = CliRunner().invoke(main, ['serve'])\n"
        "print(result.exit_code, result.output)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.startswith("1 ") and "pip install 'metro-games[serve]'" in out


def test_the_serve_benchmark_plays_concurrent_matches_and_compares_them_with_the_engine():
    # bench/bench_serve.py (a benchmark, not a timed test): a real server, two matches at once
    # over websockets for a few seconds, the same decisions replayed by the engine.
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "bench_serve.py")]
        + ["--matches", "2", "--seconds", "4", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["matches"] == 2 and report["decisions"] > 10
    assert report["seconds"] <= 4.5  # it stops by itself
    assert 0 < report["latency_median_ms"] <= report["latency_p95_ms"]
    assert report["engine_decisions_per_second"] > report["decisions_per_second"] > 0
    assert report["rate_ratio"] == pytest.approx(
        report["decisions_per_second"] / report["engine_decisions_per_second"], rel=0.01
    )
