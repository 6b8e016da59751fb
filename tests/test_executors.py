"""Where games run: one interface over this process, a process pool and Dask; retries; same results."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future

import pytest

from loader.loading import _LOADED
from metro.analysis import executors
from metro.analysis.executors import Backend, SerialExecutor, WorkersLost, open_backend, run_tasks
from metro.analysis.simulate import GameCode, Setup, SimulationStats, load, simulate
from runtime.errors import RuleError
from tests.conftest import ROOT
from tests.timeouts import time_limit

TTR = os.path.join(ROOT, "games", "ticket_to_ride")


def _square(n: int) -> int:
    return n * n


class FlakyExecutor(SerialExecutor):
    """Fails the first `failures` submissions as a lost worker would."""

    def __init__(self, failures: int):
        self.failures = failures
        self.submitted = 0

    def submit(self, fn, /, *args, **kwargs) -> Future:
        """A failed future while failures remain, else the task run here."""
        self.submitted += 1
        if self.failures:
            self.failures -= 1
            future: Future = Future()
            future.set_exception(ConnectionError("worker lost"))
            return future
        return super().submit(fn, *args, **kwargs)


def test_results_come_back_in_task_order_and_each_is_reported():
    seen = []
    with open_backend(jobs=2) as backend:
        results = run_tasks(backend, _square, [(n,) for n in range(20)], seen.append)
    assert results == [n * n for n in range(20)]
    assert sorted(seen) == results


def test_a_task_whose_worker_failed_is_run_again_and_nothing_is_lost():
    flaky = FlakyExecutor(failures=3)
    results = run_tasks(Backend(flaky, 2, "flaky"), _square, [(n,) for n in range(5)])
    assert results == [0, 1, 4, 9, 16]
    assert flaky.submitted == 5 + 3


def test_a_task_failing_more_than_the_retries_stops_the_run():
    with pytest.raises(WorkersLost, match=r"batch 1 of 1 failed 4 times .* ConnectionError"):
        run_tasks(Backend(FlakyExecutor(failures=99), 1, "down"), _square, [(1,)])


def _rule_error(n: int) -> int:
    raise RuleError(f"rules.metro:{n}: division by zero")


def test_an_error_of_the_rules_is_not_retried():
    flaky = FlakyExecutor(failures=0)
    with pytest.raises(RuleError, match=r"rules\.metro:4"):
        run_tasks(Backend(flaky, 1, "here"), _rule_error, [(4,), (5,)])
    assert flaky.submitted == 1


def test_workers_get_the_generated_code_and_load_it_once():
    setup = Setup(TTR, 2, "1", ("random", "random"))
    code = GameCode.of(setup)
    assert "def score(" in code.source and len(code.digest) == 64
    _LOADED.pop(code.key, None)
    game = load(code)
    assert load(code) is game  # once per process
    assert game.name == "Ticket to Ride"


def test_a_worker_takes_the_compiled_code_from_the_module_cache_when_it_holds_it(
    monkeypatch, tmp_path
):
    from loader import load_game, loading

    load_game(TTR)  # the module cache holds the module's compiled code
    setup = Setup(TTR, 2, "1", ("random", "random"))
    code = GameCode.of(setup)
    compiled = []
    compile_module = loading.compile_module
    monkeypatch.setattr(
        loading, "compile_module", lambda *args: compiled.append(args) or compile_module(*args)
    )
    _LOADED.pop(code.key, None)
    assert load(code).name == "Ticket to Ride" and compiled == []
    monkeypatch.setenv("METRO_CACHE_DIR", str(tmp_path))  # a machine whose cache lacks it
    _LOADED.pop(code.key, None)
    assert load(code).name == "Ticket to Ride" and len(compiled) == 1
    _LOADED.pop(code.key, None)


def test_a_command_runs_the_games_module_once(monkeypatch):
    from click.testing import CliRunner

    from loader import loading
    from metro.cli import main

    runs = []
    run_module = loading.run_module
    monkeypatch.setattr(loading, "run_module", lambda *args: runs.append(args) or run_module(*args))
    monkeypatch.setattr(loading, "_LOADED", {})
    result = CliRunner().invoke(main, ["simulate", TTR, "--games", "2", "--players", "2"])
    assert result.exit_code == 0, result.output
    assert len(runs) == 1  # loaded to check players and bots, then simulated: one module run


def test_dask_gives_exactly_the_serial_results():
    pytest.importorskip("distributed")
    serial = simulate(TTR, players=2, games=12, seed="d", jobs=1)
    dask = simulate(TTR, players=2, games=12, seed="d", jobs=2, dask="local")
    assert (dask.wins, dask.mean_scores, dask.decisions) == (
        serial.wins,
        serial.mean_scores,
        serial.decisions,
    )


def test_without_dask_the_option_is_a_usage_error(monkeypatch):
    from click.testing import CliRunner

    from metro.analysis.executors import DaskMissing
    from metro.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(DaskMissing, match=r"metro-games\[dask\]"), open_backend(dask="local"):
        pass
    result = CliRunner().invoke(main, ["simulate", TTR, "--games", "2", "--dask", "local"])
    assert result.exit_code == 2 and "pip install 'metro-games[dask]'" in result.output


def _already_loaded(key: str) -> bool:
    return key in _LOADED


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_forked_workers_find_the_game_loaded_and_do_not_load_it_again():
    code = GameCode.of(Setup(TTR, 2, "1", ("random", "random")))
    load(code)  # as simulate() does before it starts the pool
    with open_backend(jobs=2) as backend:
        assert run_tasks(backend, _already_loaded, [(code.key,)] * 4) == [True] * 4


def _signal_new_workers(signum: int, known: set[int], count: int | None = None) -> list[int]:
    """Send `signum` to worker processes started since `known` was taken (all, or the first
    `count`), as the OOM killer or a shell's ^Z would; the pids reached."""
    pids = sorted(child.pid for child in multiprocessing.active_children())
    pids = [pid for pid in pids if pid not in known][:count]
    for pid in pids:
        os.kill(pid, signum)
    return pids


def _children() -> set[int]:
    return {child.pid for child in multiprocessing.active_children()}


def _runs(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _once(action: Callable[[], list[int]], sink: list) -> Callable[[int], None]:
    """A progress callback that runs `action` at the first finished batch only."""

    def progress(finished: int) -> None:
        if not sink:
            sink.extend(action())

    return progress


@pytest.mark.skipif(sys.platform != "linux", reason="worker processes are killed by pid")
def test_a_killed_pool_worker_loses_no_game_and_changes_no_result():
    serial = simulate(TTR, players=2, games=24, seed="k", jobs=1)
    killed: list[int] = []
    known = _children()
    with time_limit(60):
        pooled = simulate(
            TTR,
            players=2,
            games=24,
            seed="k",
            jobs=2,
            progress=_once(lambda: _signal_new_workers(signal.SIGKILL, known, 1), killed),
        )
    assert len(killed) == 1
    assert pooled == SimulationStats(**{**vars(serial), "seconds": pooled.seconds})


def _kill_own_worker(n: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return n


@pytest.mark.skipif(sys.platform != "linux", reason="worker processes are killed by pid")
def test_workers_killed_again_and_again_end_the_run_with_a_clear_error(monkeypatch):
    monkeypatch.setattr(executors, "POOL_RESTARTS", 2)
    with time_limit(60), open_backend(jobs=2) as backend:
        with pytest.raises(WorkersLost, match=r"killed 3 times .* after 2 fresh pools"):
            run_tasks(backend, _kill_own_worker, [(n,) for n in range(4)])


def _slow_square(n: int) -> int:
    time.sleep(0.1)
    return n * n


@pytest.mark.skipif(sys.platform != "linux", reason="worker processes are stopped by pid")
def test_stopped_pool_workers_end_the_run_after_the_stall_timeout():
    stopped: list[int] = []
    known = _children()
    started = time.monotonic()
    with (
        time_limit(30),
        pytest.raises(
            WorkersLost,
            match=r"worker process \d+ of 2 local processes has shown no sign of life for 1 s",
        ),
    ):
        with open_backend(jobs=2, stall=1) as backend:
            run_tasks(
                backend,
                _slow_square,
                [(n,) for n in range(40)],
                _once(lambda: _signal_new_workers(signal.SIGSTOP, known), stopped),
            )
    assert len(stopped) == 2 and time.monotonic() - started < 15
    assert not any(_runs(pid) for pid in stopped)  # the stopped workers were ended


@pytest.mark.skipif(sys.platform != "linux", reason="worker processes are killed by pid")
def test_dask_workers_all_killed_are_replaced_and_the_result_is_unchanged(capfd):
    pytest.importorskip("distributed")
    serial = simulate(TTR, players=2, games=40, seed="q", jobs=1)
    killed: list[int] = []
    known = _children()
    with time_limit(90):
        dask = simulate(
            TTR,
            players=2,
            games=40,
            seed="q",
            jobs=2,
            dask="local",
            progress=_once(lambda: _signal_new_workers(signal.SIGKILL, known), killed),
        )
    assert len(killed) == 2
    assert "Traceback" not in capfd.readouterr().err  # Dask's own logs reach no user
    assert (dask.wins, dask.mean_scores, dask.decisions) == (
        serial.wins,
        serial.mean_scores,
        serial.decisions,
    )


@pytest.mark.skipif(sys.platform != "linux", reason="worker processes are stopped by pid")
def test_stopped_dask_workers_end_the_run_after_the_stall_timeout(capfd):
    pytest.importorskip("distributed")
    stopped: list[int] = []
    known = _children()
    started = time.monotonic()
    with (
        time_limit(90),
        pytest.raises(
            WorkersLost, match=r"worker .* of Dask at local has shown no sign of life for 2 s"
        ),
    ):
        simulate(
            TTR,
            players=2,
            games=200,
            seed="s",
            jobs=2,
            dask="local",
            stall=2,
            progress=_once(lambda: _signal_new_workers(signal.SIGSTOP, known), stopped),
        )
    assert len(stopped) == 2 and time.monotonic() - started < 30
    assert "Traceback" not in capfd.readouterr().err  # Dask's own logs reach no user


def test_lost_workers_are_a_clear_error_on_the_command_line(monkeypatch):
    from click.testing import CliRunner

    from metro import cli
    from metro.cli import runs

    def lose(*args, **kwargs):
        raise WorkersLost("workers of 2 local processes were killed 4 times")

    monkeypatch.setattr(runs, "simulate", lose)
    result = CliRunner().invoke(cli.main, ["simulate", TTR, "--games", "2", "--jobs", "2"])
    assert result.exit_code == 1
    assert "error: workers of 2 local processes were killed 4 times" in result.output
    assert "internal error" not in result.output
