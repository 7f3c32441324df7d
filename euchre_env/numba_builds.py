"""How this project compiles its Numba kernels: one parallel build of a batch kernel, called on every thread or on
the caller's alone, and calls made without Numba's per-call dispatch.

Three measured facts of Numba 0.68 on this project's kernels shape this module:

- A batch kernel's ``prange`` build restricted to one thread (``numba.set_num_threads(1)``) runs 1.4x (the
  structured observation) to 5x (masks only) faster than the same function compiled without ``parallel``,
  stepping 4,096 knock games on one core. So the one-thread "serial" build of a kernel is its parallel build on
  one thread (:func:`two_builds`): it uses no other core (its CPU time equals its wall time) and needs no
  second compilation.
- A second build would also have shared the first's disk cache: Numba names a kernel's cache files after the
  function's name and line and keys the code inside by the argument types, not by the ``parallel`` flag, so
  whichever build compiled first on a machine served both.
- A call through a dispatcher first works out the types of its arguments to pick the machine code, about
  50 ns an array argument; where one call does little work and happens at every decision (the AEC env's
  one-game step), that is a third of its cost. :func:`machine_code` picks the code once.
- Numba starts its thread pool at its first parallel call (or thread-count query), and with its OpenMP layer
  that start sets the process's OpenMP thread count, which torch's CPU ops use too: a trainer that had set
  ``torch.set_num_threads(1)`` found torch on two threads after its first Numba call, a second thread
  spinning beside the other run of a shared machine. So this module starts the pool when it is imported
  and puts back torch's thread count if torch was already set up; a ``torch.set_num_threads`` made later
  holds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numba
from numba import njit


def _start_thread_pool() -> None:
    torch = sys.modules.get("torch")  # never imported here: the core install has no torch
    before = torch.get_num_threads() if torch is not None else None
    numba.get_num_threads()  # starts Numba's pool
    if torch is not None and torch.get_num_threads() != before:
        torch.set_num_threads(before)


_start_thread_pool()


class OneThread:
    """A parallel kernel called on the caller's thread alone (Numba's thread count is set to 1 for the call)."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel

    def __call__(self, *args: Any) -> Any:
        saved = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return self.kernel(*args)
        finally:
            numba.set_num_threads(saved)


def two_builds(fn: Callable[..., Any], **options: Any) -> tuple[Any, OneThread]:
    """``(parallel, serial)``: ``fn`` compiled with its ``prange`` loops on Numba's threads, and the same code on
    the caller's thread alone (``options``, e.g. ``fastmath``, go to ``njit``). Cached on disk."""
    parallel = njit(cache=True, parallel=True, **options)(fn)
    return parallel, OneThread(parallel)


def machine_code(kernel: Any, *args: Any) -> Callable[..., Any]:
    """``kernel``'s compiled code for the types of ``args``, to be called with arguments of exactly those types.

    ``Dispatcher.compile`` compiles the signature or loads it from the disk cache and returns its entry point,
    which converts the arguments by that signature without choosing among signatures. With
    ``NUMBA_DISABLE_JIT=1`` the kernel is the plain Python function, returned as it is.
    """
    compile_signature = getattr(kernel, "compile", None)
    if compile_signature is None:
        return kernel
    return compile_signature(tuple(numba.typeof(a) for a in args))
