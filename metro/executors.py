"""Where batches of games run: this process, a local process pool or a Dask cluster, behind one interface.

Every backend is a `concurrent.futures.Executor`: `SerialExecutor` (in this process), a
`ProcessPoolExecutor` for `--jobs N`, and Dask's `client.get_executor()` for `--dask ADDRESS`
or `--dask local` (a `LocalCluster` on this machine). `run_tasks` submits tasks to any of
them a few at a time and hands back results in task order, so a run's result never depends
on where it ran. A task that fails for another reason than the rules (a worker that died or
lost its connection) is submitted again, up to `RETRIES` times; games are seeded by their
index, so a retried batch plays exactly the same games.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass

from runtime.errors import MetroRuntimeError

RETRIES = 3  # further tries of a task whose worker failed
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


class DaskMissing(RuntimeError):
    """`--dask` was asked for but the dask extra is not installed."""


@contextmanager
def open_backend(jobs: int = 1, dask: str | None = None) -> Iterator[Backend]:
    """The executor for a run: Dask if `dask` names a scheduler (or is 'local'), else a pool of `jobs`."""
    if dask is not None:
        with _dask_backend(dask, jobs) as backend:
            yield backend
    elif jobs > 1:
        # The platform's start method: fork on Linux (workers inherit what the parent loaded),
        # spawn or forkserver elsewhere (workers load the game from the code they are sent).
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            yield Backend(pool, jobs, f"{jobs} local processes")
    else:
        yield Backend(SerialExecutor(), 1, "this process")


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
    of a task is taken for its worker's and the task is submitted again, up to RETRIES times.
    """
    results: list = [None] * len(tasks)
    # One at a time in this process (a serial task runs when submitted), else a few per worker.
    window = 1 if backend.workers == 1 else backend.workers * IN_FLIGHT_PER_WORKER
    pending: dict[Future, tuple[int, int]] = {}
    upcoming = iter(range(len(tasks)))

    def submit(index: int, tries: int) -> None:
        pending[backend.executor.submit(fn, *tasks[index])] = (index, tries)

    for index in upcoming:
        submit(index, 0)
        if len(pending) >= window:
            break
    try:
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=lambda f: pending[f][0]):  # the first task first
                index, tries = pending.pop(future)
                error = future.exception()
                if error is None:
                    results[index] = future.result()
                    if done is not None:
                        done(results[index])
                    following = next(upcoming, None)
                    if following is not None:
                        submit(following, 0)
                elif isinstance(error, MetroRuntimeError) or tries >= RETRIES:
                    raise error
                else:
                    submit(index, tries + 1)
    finally:
        for future in pending:
            future.cancel()
    return results
