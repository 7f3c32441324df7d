"""Playing a match's duplicate pairs as Ray tasks: the same records as :mod:`.pool`, on a cluster.

The pairs are cut into chunks of consecutive indices, each chunk one task. A pair's cards and agent seeds
depend only on the master seed and its index (:mod:`.seeds`), so the records are those of the local
backend whatever the number of workers, the chunk size or the order the chunks finish in.

- Checkpoint agents travel through Ray's object store: the driver puts each ``.pt`` file's bytes once;
  a worker reads them once per process (through a temporary file it removes at once) and plays the network
  under the original spec's name. No shared file system is needed.
- A chunk whose worker dies (killed, out of memory, its node lost) is submitted again; its records are
  taken once, from the attempt that finished. :func:`play_match_ray` returns how many resubmissions there
  were. An exception raised by the agents themselves (an illegal action, a game that never ends) is not a
  worker's death: it is raised here, as the local backend raises it.
- ``address``: ``None`` starts a local Ray instance with ``workers`` CPUs (the default: this machine);
  ``"auto"`` joins the cluster this machine is part of (``ray start``); ``HOST:PORT`` a head node. An
  address nobody answers at is one ``ConnectionError`` line.

Ray is imported only here (the ``ray`` extra); ``euchre_env`` and the local backend never import it.
"""

from __future__ import annotations

import os
import socket
import tempfile
from dataclasses import replace
from typing import Any

from euchre_env import published
from euchre_env.agents.registry import CHECKPOINT_SUFFIX
from euchre_env.evaluation.match import DealRecord, Match, MatchRunner
from euchre_env.evaluation.progress import Progress, RunningMargin

MAX_RESUBMITS = 3  # per chunk: a chunk whose worker dies more often than this fails the match


_PLAYED: dict[str, tuple[Any, Any, str]] = {}  # object id -> (actor, rules, observation): read once per process


class ShippedCheckpoint:
    """An agent factory for a checkpoint whose bytes are in the object store (``ref``), named ``spec``."""

    def __init__(self, spec: str, ref: Any) -> None:
        self.name, self.ref = spec, ref

    def __call__(self, seed: int | None) -> Any:
        from euchre_env.agents.neural.agent import NeuralAgent  # torch: only checkpoints need it

        actor, rules, observation = self._played()
        return NeuralAgent(actor, rules, observation=observation, seed=seed, name=self.name)

    def _played(self) -> tuple[Any, Any, str]:
        """The checkpoint read and checked as a file is (``load_checkpoint``), once per worker process; the file
        it goes through is removed at once (one per worker and checkpoint was left in the temp folder)."""
        import ray

        from euchre_env.agents.neural.checkpoint import build_model, load_checkpoint  # torch: only checkpoints need it

        key = self.ref.hex()
        if key not in _PLAYED:
            fd, path = tempfile.mkstemp(prefix="euchre-", suffix=CHECKPOINT_SUFFIX)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(ray.get(self.ref))
                data = load_checkpoint(path)
                _PLAYED[key] = (build_model(data, path), data["rules"], data["observation"])
            finally:
                os.remove(path)
        return _PLAYED[key]


def connect(address: str | None, workers: int) -> int:
    """Start or join Ray (see the module docstring); returns the number of CPUs it offers."""
    import ray

    if address not in (None, "auto"):
        _check_reachable(address)
    if ray.is_initialized():  # a caller's own ray.init (a test, a notebook) is used as it is
        return int(ray.cluster_resources().get("CPU", workers))
    try:
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except ConnectionError as exc:
        raise ConnectionError(f"cannot join a Ray cluster at {address!r}: {' '.join(str(exc).split())}") from None
    return int(ray.cluster_resources().get("CPU", workers))


def _check_reachable(address: str) -> None:
    """One clear line for an address nobody answers at (Ray itself would retry for a long while)."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ConnectionError(f"--address must be 'auto' or HOST:PORT (a Ray head node), got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise ConnectionError(f"no Ray head node answers at {address}: {exc.strerror or exc}; start one with "
                              "'ray start --head' there, or pass the address it prints") from None


def _ship(match: Match) -> Match:
    """The match with its checkpoint specs replaced by factories that read the object store."""
    import ray

    def shipped(spec: Any) -> Any:
        if isinstance(spec, str) and spec.strip().endswith(CHECKPOINT_SUFFIX):
            with open(published.find(spec.strip(), published.CHECKPOINTS), "rb") as f:  # a name: the package's
                return ShippedCheckpoint(spec.strip(), ray.put(f.read()))
        return spec

    return replace(match, agent_a=shipped(match.agent_a), agent_b=shipped(match.agent_b))


def _play_chunk(match: Match, start: int, stop: int) -> list[DealRecord]:
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:  # one task per CPU: intra-op threads only slow batch-1 forward passes
        torch.set_num_threads(1)
    return MatchRunner(match).play_deals(start, stop)


def play_match_ray(match: Match, bounds: list[tuple[int, int]], progress: Progress | None = None
                   ) -> tuple[list[DealRecord], int]:
    """Play the chunks ``bounds`` as Ray tasks (Ray already connected); returns the records in index order and
    the number of chunks submitted again after their worker died."""
    import ray
    from ray.exceptions import ActorDiedError, NodeDiedError, WorkerCrashedError

    died = (WorkerCrashedError, NodeDiedError, ActorDiedError)
    task = ray.remote(max_retries=0)(_play_chunk)
    shipped = ray.put(_ship(match))
    pending = {task.remote(shipped, *b): (b, 0) for b in bounds}
    parts: dict[tuple[int, int], list[DealRecord]] = {}
    tally = RunningMargin()
    resubmits = 0
    try:
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            chunk, attempts = pending.pop(ref)
            try:
                part = ray.get(ref)
            except died:
                if attempts >= MAX_RESUBMITS:
                    raise RuntimeError(f"deals {chunk[0]}..{chunk[1] - 1}: their worker died "
                                       f"{attempts + 1} times; giving up") from None
                resubmits += 1
                pending[task.remote(shipped, *chunk)] = (chunk, attempts + 1)
                continue
            except ray.exceptions.RayTaskError as exc:  # the agents' own error: raised as the local backend does
                raise (exc.cause if isinstance(exc.cause, Exception) else exc) from None
            parts[chunk] = part
            tally.add(part)
            if progress is not None:
                done = sum(len(p) for p in parts.values())
                progress.update(done, tally.margin(), tally.half_width())
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if progress is not None:
            progress.close()
    return [r for b in sorted(parts) for r in parts[b]], resubmits

