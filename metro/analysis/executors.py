"""Where batches of games run: this process, a local process pool or a Dask cluster, behind one interface.

Every backend is a `concurrent.futures.Executor`: `SerialExecutor` (in this process), a
`ProcessPoolExecutor` for `--jobs N`, and Dask's `client.get_executor()` for `--dask ADDRESS`
or `--dask local` (a `LocalCluster` on this machine). `run_tasks` submits tasks to any of
them a few at a time and hands back results in task order, so a run's result never depends
on where it ran. A task that fails for another reason than the rules (a worker that died or
lost its connection) is submitted again, up to `RETRIES` times; games are seeded by their
index, so a retried batch plays exactly the same games. A process pool whose worker was killed
is broken for good: the tasks it lost run again in a fresh pool, up to `POOL_RESTARTS` pools.
A worker that shows no sign of life for `STALL_SECONDS` (stopped, or its machine unreachable)
ends the run. These failures are `WorkersLost`, an error worded for the user.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from runtime.errors import MetroRuntimeError

if TYPE_CHECKING:
    # Imported where a pool is made: multiprocessing and its sockets, pickle and subprocess
    # cost a run in this process memory (about 1 MiB resident) and time for nothing.
    from concurrent.futures import ProcessPoolExecutor

RETRIES = 3  # further tries of a task whose worker failed
POOL_RESTARTS = 3  # fresh process pools a run may start after its workers were killed
STALL_SECONDS = 60.0  # a worker without a sign of life for this long is stopped or unreachable
WATCH_SECONDS = 1.0  # how often the workers' signs of life are looked at
IN_FLIGHT_PER_WORKER = 2  # tasks submitted ahead per worker: enough to keep each one busy


class SerialExecutor(Executor):
    """Runs each task in this process when it is submitted."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        """A finished future holding the task's result or its exception."""
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:  # noqa: BLE001 - handed to the caller in the future, as pools do
            future.set_exception(error)
        return future


class DaskMissing(RuntimeError):
    """`--dask` was asked for but the dask extra is not installed."""


class WorkersLost(RuntimeError):
    """The workers kept failing (killed, disconnected or stopped): the run cannot finish."""


@dataclass
class Backend:
    """An executor and how many tasks it runs at once."""

    executor: Executor
    workers: int
    where: str  # in words, for progress and errors
    # A new executor in place of a broken one (a pool whose worker was killed); None: no such thing.
    renew: Callable[[], Executor] | None = None
    # Each worker's latest sign of life (anything that changes while it lives), by name.
    signs: Callable[[], dict[str, object]] = dict
    stall: float = STALL_SECONDS  # a worker whose sign stays the same this long ends the run


@dataclass
class SilenceWatch:
    """When each worker's sign of life last changed: one unchanged for `stall` seconds is lost."""

    stall: float
    changed: dict[str, tuple[object, float]] = field(default_factory=dict)  # sign, since when

    def check(self, signs: dict[str, object], where: str) -> None:
        """Note the signs seen now; WorkersLost if a worker has been silent too long."""
        now = time.monotonic()
        before = self.changed
        self.changed = {
            name: before[name] if name in before and before[name][0] == sign else (sign, now)
            for name, sign in signs.items()
        }
        for name, (_, since) in self.changed.items():
            if now - since >= self.stall:
                raise WorkersLost(
                    f"{name} of {where} has shown no sign of life for {self.stall:g} s "
                    "(stopped, or unreachable); the run is given up (--stall-timeout sets this time)"
                )


@dataclass
class Submitted:
    """A task in flight: which one, how often it was tried, and the executor running it."""

    index: int
    tries: int
    executor: Executor


@contextmanager
def open_backend(
    jobs: int = 1, dask: str | None = None, stall: float = STALL_SECONDS
) -> Iterator[Backend]:
    """The executor for a run (Dask at `dask`, or 'local'; else a pool of `jobs`) watched for `stall` s."""
    if dask is not None:
        with _dask_backend(dask, jobs) as backend:
            backend.stall = stall
            yield backend
    elif jobs > 1:
        with _pool_backend(jobs) as backend:
            backend.stall = stall
            yield backend
    else:
        yield Backend(SerialExecutor(), 1, "this process", stall=stall)


@contextmanager
def _pool_backend(jobs: int) -> Iterator[Backend]:
    # The platform's start method: fork on Linux (workers inherit what the parent loaded),
    # spawn or forkserver elsewhere (workers load the game from the code they are sent).
    from concurrent.futures import ProcessPoolExecutor

    pools = [ProcessPoolExecutor(max_workers=jobs)]

    def renew() -> Executor:
        pools[-1].shutdown(wait=False, cancel_futures=True)
        pools.append(ProcessPoolExecutor(max_workers=jobs))
        return pools[-1]

    def signs() -> dict[str, object]:
        return {f"worker process {pid}": _process_sign(pid) for pid in _worker_pids(pools[-1])}

    try:
        yield Backend(pools[0], jobs, f"{jobs} local processes", renew, signs)
    except BaseException:
        for pool in pools:
            _end_workers(pool)
        raise
    for pool in pools:
        pool.shutdown()


def _worker_pids(pool: ProcessPoolExecutor) -> list[int]:
    # The pool has no public way to reach its processes before Python 3.14 (terminate_workers).
    return list(pool._processes or {})


def _process_sign(pid: int) -> object:
    """A running process's sign changes at each look; a stopped one's never does (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            state = handle.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return time.monotonic()  # no /proc here, or the process is gone: the pool will say so
    return "stopped" if state in ("T", "t") else time.monotonic()


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Shut a pool down without waiting on its workers: a stopped one would never finish."""
    # The pool has no public way to reach its processes before Python 3.14 (terminate_workers).
    workers = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.kill()  # SIGKILL ends a stopped process too
        worker.join(timeout=5)


@contextmanager
def _dask_backend(address: str, jobs: int) -> Iterator[Backend]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as error:
        raise DaskMissing(
            "--dask needs Dask distributed: pip install 'metro-games[dask]'"
        ) from error
    if address == "local":
        # Processes, not threads: games are pure Python and would share one interpreter lock.
        cluster = LocalCluster(
            n_workers=jobs,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # Its HTTP server starts even without a dashboard: on any free port, not on 8787
            # (taken by the first of two runs at once, and the second warns).
            scheduler_kwargs={"dashboard_address": ":0"},
        )
        client = Client(cluster)
    else:
        cluster = None
        client = Client(address)

    def signs() -> dict[str, object]:
        # The scheduler's record of each worker's last heartbeat: it stops changing when the
        # worker is stopped. No worker at all, or no scheduler, is a sign that never changes.
        try:
            workers = client.scheduler_info()["workers"]
        except (OSError, TimeoutError, KeyError):
            return {"the scheduler": "unreachable"}
        seen = {f"worker {name}": info.get("last_seen") for name, info in workers.items()}
        return seen or {"every worker": "none connected"}

    try:
        workers = max(1, sum(client.nthreads().values()))
        yield Backend(client.get_executor(pure=False), workers, f"Dask at {address}", signs=signs)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_tasks(
    backend: Backend,
    fn: Callable,
    tasks: Sequence[tuple],
    done: Callable[[object], None] | None = None,
) -> list:
    """`fn(*task)` for every task, results in task order; `done(result)` as each one arrives.

    An error of the rules (a `MetroRuntimeError`) stops the run at once; any other failure
    of a task is taken for its worker's and the task is submitted again, up to RETRIES times
    (into a fresh pool, up to POOL_RESTARTS of them, when its pool broke). WorkersLost when
    that is not enough, or when a worker shows no sign of life for the backend's `stall` seconds.
    """
    results: list = [None] * len(tasks)
    # One at a time in this process (a serial task runs when submitted), else a few per worker.
    window = 1 if backend.workers == 1 else backend.workers * IN_FLIGHT_PER_WORKER
    pending: dict[Future, Submitted] = {}
    upcoming = iter(range(len(tasks)))
    restarts = 0
    watch = SilenceWatch(backend.stall)
    watched = time.monotonic()

    def submit(index: int, tries: int) -> None:
        executor = backend.executor
        try:
            future = executor.submit(fn, *tasks[index])
        except BrokenExecutor as error:  # it broke before taking the task: the task's loss too
            future = Future()
            future.set_exception(error)
        pending[future] = Submitted(index, tries, executor)

    for index in upcoming:
        submit(index, 0)
        if len(pending) >= window:
            break
    try:
        while pending:
            finished, _ = wait(pending, timeout=WATCH_SECONDS, return_when=FIRST_COMPLETED)
            if time.monotonic() - watched >= WATCH_SECONDS:
                watch.check(backend.signs(), backend.where)
                watched = time.monotonic()
            for future in sorted(finished, key=lambda f: pending[f].index):  # the first task first
                task = pending.pop(future)
                error = future.exception()
                if error is None:
                    results[task.index] = future.result()
                    if done is not None:
                        done(results[task.index])
                    following = next(upcoming, None)
                    if following is not None:
                        submit(following, 0)
                elif isinstance(error, MetroRuntimeError):
                    raise error
                elif isinstance(error, BrokenExecutor) and backend.renew is not None:
                    if task.executor is backend.executor:  # the first of its lost tasks seen
                        restarts += 1
                        if restarts > POOL_RESTARTS:
                            raise WorkersLost(
                                f"workers of {backend.where} were killed {restarts} times "
                                f"(out of memory?); gave up after {POOL_RESTARTS} fresh pools"
                            ) from None
                        backend.executor = backend.renew()
                    submit(task.index, task.tries)  # a pool's loss is not the task's fault
                elif task.tries >= RETRIES:
                    raise WorkersLost(
                        f"batch {task.index + 1} of {len(tasks)} failed {task.tries + 1} times "
                        f"on {backend.where}, each time for its worker: "
                        f"{type(error).__name__}: {error}"
                    ) from None
                else:
                    submit(task.index, task.tries + 1)
    finally:
        for future in pending:
            future.cancel()
    return results
