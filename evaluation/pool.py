"""Playing a match's duplicate pairs, in this process or in a pool of worker processes.

The pairs are cut into chunks of consecutive indices; each worker builds its own
:class:`~euchre_env.evaluation.match.MatchRunner` once and plays the chunks it is handed. A
pair's cards and agent seeds depend only on the master seed and its index, so the records are
the same for any number of workers or chunk size.

Ctrl-C: the workers ignore SIGINT (the terminal sends it to the whole process group), so only
the parent sees the interrupt; leaving the pool's ``with`` block terminates the workers, and
the caller reports it.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import sys
from collections.abc import Iterator

from euchre_env.evaluation.match import DealRecord, Match, MatchRunner
from euchre_env.evaluation.progress import Progress, RunningMargin

_WORKER: MatchRunner | None = None


@contextlib.contextmanager
def one_torch_thread() -> Iterator[None]:
    """Torch on one intra-op thread inside the block (restored after), when a checkpoint agent has imported it.

    A match process plays one decision at a time: extra threads only add synchronisation to small forward
    passes (a checkpoint agent played 2.7x slower with two threads than with one in a worker; a search agent
    in the parent process 3x slower on a busy machine)."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _init_worker(match: Match) -> None:
    global _WORKER
    # The parent handles Ctrl-C: a worker interrupted mid-chunk would print its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch = sys.modules.get("torch")  # imported by the parent when a checkpoint agent plays
    if torch is not None:
        torch.set_num_threads(1)  # one process per core already (see one_torch_thread)
    _WORKER = MatchRunner(match)


def _work(bounds: tuple[int, int]) -> list[DealRecord]:
    assert _WORKER is not None
    return _WORKER.play_deals(*bounds)


def default_chunk(n: int, workers: int, episode: str) -> int:
    """Deals per task: small enough to balance the workers and update the progress bar."""
    cap = 200 if episode == "hand" else 10
    return max(1, min(cap, n // max(1, workers * 16)))


def chunk_bounds(n: int, workers: int, episode: str, chunk: int | None = None, first: int = 0
                 ) -> list[tuple[int, int]]:
    """The pairs ``first .. first+n-1`` cut into ``(start, stop)`` chunks (checked arguments)."""
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of deals must be a positive int, got {n!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if not isinstance(first, int) or first < 0:
        raise ValueError(f"the first deal index must be a non-negative int, got {first!r}")
    chunk = chunk or default_chunk(n, workers, episode)
    return [(s, min(s + chunk, first + n)) for s in range(first, first + n, chunk)]


def play_match(
    match: Match,
    n: int,
    workers: int = 2,
    chunk: int | None = None,
    progress: Progress | None = None,
    first: int = 0,
) -> list[DealRecord]:
    """Play duplicate pairs ``first .. first+n-1``; the records are in index order.

    A pair's cards and agent seeds depend only on the master seed and its index, so a long
    match can be played in ranges (in separate runs) and merged
    (:func:`~euchre_env.evaluation.results.merge_results`).
    """
    bounds = chunk_bounds(n, workers, match.episode, chunk, first)
    records: list[DealRecord] = []
    tally = RunningMargin()

    def take(part: list[DealRecord]) -> None:
        records.extend(part)
        tally.add(part)
        if progress is not None:
            progress.update(len(records), tally.margin(), tally.half_width())

    try:
        if workers == 1 or len(bounds) == 1:
            runner = MatchRunner(match)
            with one_torch_thread():
                for b in bounds:
                    take(runner.play_deals(*b))
        else:
            ctx = mp.get_context()
            with ctx.Pool(min(workers, len(bounds)), initializer=_init_worker, initargs=(match,)) as pool:
                for part in pool.imap(_work, bounds):
                    take(part)
    finally:  # on an error or Ctrl-C too: what comes next starts on a fresh line
        if progress is not None:
            progress.close()
    return records
