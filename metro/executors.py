"""Where batches of games run: this process, a local process pool or a Dask cluster, behind one interface.

Every backend is a `concurrent.futures.Executor`: `SerialExecutor` (in this process), a
`ProcessPoolExecutor` for `--jobs N`, and Dask's `client.get_executor()` for `--dask ADDRESS`
or `--dask local` (a `LocalCluster` on this machine). `run_tasks` submits tasks to any of
them a few at a time and hands back results in task order, so a run's result never depends
on where it ran. A task that fails for another reason than the rules (a worker that died or
lost its connection) is submitted again, up to `RETRIES` times; games are seeded by their
index, so a retried batch plays exactly the same games. A process pool whose worker was killed
is broken for good: the tasks it lost run again in a fresh pool, up to `POOL_RESTARTS` pools.
A run in which no task finishes for `STALL_SECONDS` (a stopped or unreachable worker) ends.
These failures are `WorkersLost`, an error worded for the user.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    wait,
)
from contextlib import contextmanager
from dataclasses import dataclass

from runtime.errors import MetroRuntimeError

RETRIES = 3  # further tries of a task whose worker failed
POOL_RESTARTS = 3  # fresh process pools a run may start after its workers were killed
STALL_SECONDS = 600.0  # no task finishing for this long: a worker is stopped or unreachable
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


@dataclass
class Backend:
    """An executor and how many tasks it runs at once."""

    executor: Executor
    workers: int
    where: str  # in words, for progress and errors
    # A new executor in place of a broken one (a pool whose worker was killed); None: no such thing.
    renew: Callable[[], Executor] | None = None
    stall: float = STALL_SECONDS  # no task finishing for this long ends the run


@dataclass
class Submitted:
    """A task in flight: which one, how often it was tried, and the executor running it."""

    index: int
    tries: int
    executor: Executor


class DaskMissing(RuntimeError):
    """`--dask` was asked for but the dask extra is not installed."""


class WorkersLost(RuntimeError):
    """The workers kept failing (killed, disconnected or stopped): the run cannot finish."""


@contextmanager
def open_backend(
    jobs: int = 1, dask: str | None = None, stall: float = STALL_SECONDS
) -> Iterator[Backend]:
    """The executor for a run: Dask if `dask` names a scheduler (or is 'local'), else a pool of `jobs`;
    a run in which no task finishes for `stall` seconds ends."""
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
    pools = [ProcessPoolExecutor(max_workers=jobs)]

    def renew() -> Executor:
        pools[-1].shutdown(wait=False, cancel_futures=True)
        pools.append(ProcessPoolExecutor(max_workers=jobs))
        return pools[-1]

    try:
        yield Backend(pools[0], jobs, f"{jobs} local processes", renew)
    except BaseException:
        for pool in pools:
            _end_workers(pool)
        raise
    for pool in pools:
        pool.shutdown()


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
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        cluster = None
        client = Client(address)
    try:
        workers = max(1, sum(client.nthreads().values()))
        yield Backend(client.get_executor(pure=False), workers, f"Dask at {address}")
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
    that is not enough, or when no task finishes for the backend's `stall` seconds.
    """
    results: list = [None] * len(tasks)
    # One at a time in this process (a serial task runs when submitted), else a few per worker.
    window = 1 if backend.workers == 1 else backend.workers * IN_FLIGHT_PER_WORKER
    pending: dict[Future, Submitted] = {}
    upcoming = iter(range(len(tasks)))
    restarts = 0

    def submit(index: int, tries: int) -> None:
        future = backend.executor.submit(fn, *tasks[index])
        pending[future] = Submitted(index, tries, backend.executor)

    for index in upcoming:
        submit(index, 0)
        if len(pending) >= window:
            break
    try:
        while pending:
            finished, _ = wait(pending, timeout=backend.stall, return_when=FIRST_COMPLETED)
            if not finished:
                raise WorkersLost(
                    f"no batch of games finished within {backend.stall:g} s on {backend.where}: "
                    "a worker is stopped or unreachable (--stall-timeout sets this time)"
                )
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
