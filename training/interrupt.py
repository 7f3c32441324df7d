"""Ctrl-C while training: finish the update in hand, save it, and say how to continue.

A checkpoint must always be a completed update (exact resume replays from it), so SIGINT is
caught around the part of an update that changes the network: the first Ctrl-C there only asks
:class:`InterruptGuard` to stop once the update is done; outside it (during a collection, which
changes nothing) it interrupts at once. :class:`TrainingInterrupted` tells the caller which
update ``latest.pt`` holds.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C ended :meth:`Trainer.train`: ``update`` is the last completed update, ``saved_update`` the
    one ``latest_path`` holds (None: no latest.pt yet, nothing to resume; lower than ``update`` after a
    second Ctrl-C, which quits without saving). A KeyboardInterrupt, so callers that know only that still stop."""

    def __init__(self, update: int, saved_update: int | None, latest_path: str) -> None:
        super().__init__(f"training interrupted at update {update}")
        self.update, self.saved_update, self.latest_path = update, saved_update, latest_path


class InterruptGuard:
    """SIGINT while training: outside :meth:`finishing` the usual KeyboardInterrupt (a collection is
    abandoned: it has not changed the network); inside, the first Ctrl-C only asks to stop once the
    block is done, so that no half-applied PPO update is ever saved; any further Ctrl-C quits at once."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log
        self.pending = False  # a Ctrl-C came inside finishing(): stop at its end
        self.quit_at_once = False  # a Ctrl-C broke into finishing(): the state in memory is not an update's
        self._update: int | None = None  # the update finishing() completes (None: outside it)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():  # signal handlers live in the main thread
            yield
            return
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextlib.contextmanager
    def finishing(self, update: int) -> Iterator[None]:
        self._update = update
        try:
            yield
        finally:
            self._update = None
        if self.pending:
            raise KeyboardInterrupt

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self._update is None or self.pending:
            self.quit_at_once = self._update is not None
            raise KeyboardInterrupt
        self.pending = True
        self.log(f"Ctrl-C: finishing update {self._update} to save it (Ctrl-C again quits at once, without saving)")
