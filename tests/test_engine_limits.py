"""Engines that flood, linger, dawdle or shout: every read is bounded and the run ends with a verdict."""

from __future__ import annotations

import os
import sys
import time

import pytest
from click.testing import CliRunner

from metro.cli import main
from metro.conformance.adapter import EngineError, SubprocessAdapter
from metro.conformance.conform import load_vectors, run_vectors
from metro.conformance.engine_pipe import RunLimits
from metro.conformance.vectorgen import generate_vectors
from tests.conftest import ROOT
from tests.timeouts import time_limit

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
INFO = b'{"ok": true, "game": "Ticket to Ride", "min_players": 2, "max_players": 5}\n'


@pytest.fixture(scope="module")
def ttr_vectors(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vectors")
    generate_vectors(TTR, str(folder))
    return str(folder)


def _engine(tmp_path, body: str) -> str:
    script = tmp_path / "engine.py"
    script.write_text("import os, sys, time\nINFO = " + repr(INFO) + "\n" + body)
    return str(script)


# Writes answers as fast as the pipe takes them and never reads a request; each write is under
# PIPE_BUF bytes, so whatever is read holds whole batches of lines.
FLOOD = "batch = INFO * (4000 // len(INFO))\nwhile True:\n    os.write(1, batch)\n"
# Reads one request (info), then floods: its first line answers it, the rest is unasked.
FLOOD_AFTER_INFO = "sys.stdin.buffer.readline()\n" + FLOOD
# Answers info with a line that is no JSON, then waits.
BAD_INFO = "sys.stdin.readline()\nprint('nope', flush=True)\nsys.stdin.readline()\n"
# Answers info, then every request after a pause.
SLOW = "for line in sys.stdin:\n    time.sleep(0.3)\n    print(INFO.decode(), end='', flush=True)\n"


def test_an_engine_that_writes_without_being_asked_is_read_one_answer_per_request(tmp_path):
    # The engine floods only once info is sent: an engine flooding from its start may have
    # written before info, which is refused at info (the conform test below takes either).
    script = _engine(tmp_path, FLOOD_AFTER_INFO)
    with time_limit(20), SubprocessAdapter([sys.executable, script]) as engine:
        assert engine.info()["game"] == "Ticket to Ride"
        with pytest.raises(EngineError, match="wrote before 'to_move' was sent"):
            engine.to_move()
        time.sleep(0.5)  # the engine keeps writing: nothing more is read
        assert engine.limits.used_bytes <= 1 << 16


def test_conform_gives_a_flooding_engine_a_verdict_per_vector(tmp_path, ttr_vectors):
    command = f"{sys.executable} {_engine(tmp_path, FLOOD)}"
    with time_limit(30):
        result = CliRunner().invoke(
            main, ["conform", ttr_vectors, "--engine", command, "--only", "initial"]
        )
    assert result.exit_code == 1, result.output
    # Each vector fails on its own engine error. Which request first meets the flood depends on
    # how fast the engine writes (under load it may not have written before `new_game` is sent,
    # and fails on the answers after it), so the wording of each error is not pinned down.
    assert result.output.count("FAIL initial-") == 4
    assert result.output.count("engine error at step") == 4
    assert "one answer per request" in result.output
    assert result.output.strip().endswith("0 passed, 4 failed")


def test_an_engine_that_fails_info_gets_a_verdict_for_every_vector(tmp_path, ttr_vectors):
    # Failing at start (here a broken `info` answer, as a flooding engine may when its output
    # comes before the request) fails that vector; the next one starts the engine again.
    script = _engine(tmp_path, BAD_INFO)
    command = f"{sys.executable} {script}"
    with time_limit(30):
        result = CliRunner().invoke(
            main, ["conform", ttr_vectors, "--engine", command, "--only", "initial"]
        )
    assert result.exit_code == 1, result.output
    assert result.output.count("FAIL initial-") == 4
    assert result.output.count("engine error at step 0: the engine's answer to 'info'") == 4
    assert result.output.strip().endswith("0 passed, 4 failed")


def test_what_a_run_reads_is_bounded_over_every_engine_it_starts(tmp_path, ttr_vectors):
    # 300 KiB answers: the run's 1 MiB is used up within a few requests, by any engine.
    reply = tmp_path / "reply"
    reply.write_bytes(b'{"ok": true, "pad": "' + b"x" * (300 << 10) + b'"}\n')
    script = _engine(
        tmp_path,
        f"reply = open({str(reply)!r}, 'rb').read()\n"
        "for n, _ in enumerate(sys.stdin.buffer):\n"
        "    sys.stdout.buffer.write(INFO if n == 0 else reply)\n"
        "    sys.stdout.buffer.flush()\n",
    )
    limits = RunLimits(max_bytes=1 << 20)
    _, vectors = load_vectors(ttr_vectors)
    starts = []

    def start():
        starts.append(1)
        engine = SubprocessAdapter([sys.executable, script], limits=limits)
        engine.info()
        return engine

    with time_limit(30):
        results = run_vectors(start, vectors)
    assert len(results) < len(vectors) and len(starts) == len(results)
    assert results[-1].stopped and not results[-1].passed
    assert "wrote more than 1,048,576 bytes over this run" in results[-1].difference
    assert limits.used_bytes <= (1 << 20) + (1 << 16)


def test_a_process_left_in_the_background_neither_hangs_nor_outlives_the_engine(tmp_path):
    script = _engine(tmp_path, "for line in sys.stdin:\n    print('{\"ok\": true}', flush=True)\n")
    command = ["sh", "-c", f"sleep 300 & exec {sys.executable} {script}"]
    with time_limit(20):
        engine = SubprocessAdapter(command, timeout=10)
        with pytest.raises(EngineError, match='"to_move" as list'):
            engine.to_move()
        engine.close()
    deadline = time.monotonic() + 5  # a killed process takes a moment to stop
    while _running_in_group(engine.process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running_in_group(engine.process.pid) == []  # the sleep included


def _running_in_group(group: int) -> list[int]:
    """Processes of a process group still running (zombies wait for a reaper, they run no more)."""
    running = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rpartition(")")[2].split()
        except OSError:  # not a process, or gone meanwhile
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            running.append(int(name))
    return running


def test_a_run_ends_at_its_deadline_with_a_verdict(tmp_path, ttr_vectors):
    command = f"{sys.executable} {_engine(tmp_path, SLOW)}"
    started = time.monotonic()
    with time_limit(30):
        result = CliRunner().invoke(
            main, ["conform", ttr_vectors, "--engine", command, "--deadline", "1"]
        )
    assert time.monotonic() - started < 10
    assert result.exit_code == 1
    assert "the run's deadline passed" in result.output
    assert "stopped after 1 of" in result.output and "so it fails" in result.output


def test_an_engines_error_text_is_quoted_in_a_bounded_excerpt(tmp_path):
    script = _engine(
        tmp_path,
        "sys.stdin.readline()\n"
        "for n in range(200):\n"
        "    print(f'line {n} ' + 'e' * 4000, file=sys.stderr)\n"
        "print('the last words', file=sys.stderr)\n"
        "sys.exit(3)\n",
    )
    with time_limit(20), SubprocessAdapter([sys.executable, script], timeout=10) as engine:
        with pytest.raises(EngineError, match="closed its output") as info:
            engine.scores()
    assert "the last words" in str(info.value)
    assert len(str(info.value)) < 2500
