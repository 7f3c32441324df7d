"""How this project compiles its Numba kernels: a parallel and a serial build of a batch kernel, the threading
layer they run on, and calls made without Numba's per-call dispatch.

Measured facts of Numba 0.68 on this project's kernels shape this module:

- Numba's disk cache (``cache=True``) names a kernel's cache files after the function's name and first line
  and keys the code inside by the argument types and the CPU, not by the ``parallel`` flag: two builds of one
  function, ``njit(parallel=True)(f)`` and ``njit(f)``, shared one entry, and whichever compiled first on a
  machine served both. :func:`two_builds` compiles the serial build from a copy of the function under its own
  name.
- The serial build of a batch kernel ran 1.2x (the structured observation) to 11x (masks only) slower than
  the parallel build restricted to one thread, stepping 4,096 knock games: the loop over the games takes
  views of the game arrays, and each view's reference count is an atomic add and subtract, which the
  parallel build's outlined loop body pays less often. Built without the runtime's reference counting
  (``_nrt=False``, for kernels that allocate nothing) both builds run faster still.
- Numba's default threading layer here is OpenMP (GNU): a process that has run a parallel kernel on it can
  no longer ``fork`` (the child prints "fork() called from a process already using GNU OpenMP" and dies:
  an evaluation's worker pool, a user's subprocess vector env), and starting its pool sets the process's
  OpenMP thread count, which torch's CPU ops share (``torch.set_num_threads(1)`` became 2). Numba's own
  ``workqueue`` layer does neither but ran the parallel step at 55-70% of OpenMP's speed. So the project
  runs parallel kernels only where a caller asks for them (``VectorEuchre(threads=None or N > 1)``, the
  trainer's PPO minibatches in ``agents.sparse_input``; the collection, the evaluation and the AEC env use
  one thread), :func:`start_thread_pool` starts the pool with torch's thread count kept, and a worker pool
  of the evaluation starts from a forkserver once it has (:func:`forks_safely`).
- A call through a dispatcher first works out the types of its arguments to pick the machine code, about
  50 ns an array argument; where one call does little work and happens at every decision (the AEC env's
  one-game step), that is a third of its cost. :func:`machine_code` picks the code once.
"""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numba
from numba import njit

SERIAL_SUFFIX = "_serial"
# A parallel batch kernel cuts its games into this many slices a thread (each with its own scratch row), so that
# a thread that finishes early takes another slice instead of waiting on the slowest one.
SLICES_PER_THREAD = 4


_pool_started = False  # by start_thread_pool, in this process


def start_thread_pool() -> None:
    """Start Numba's thread pool (before a parallel kernel), keeping torch's thread count if torch is loaded."""
    global _pool_started
    torch = sys.modules.get("torch")  # never imported here: the core install has no torch
    before = torch.get_num_threads() if torch is not None else None
    numba.get_num_threads()  # starts the pool the first time
    if torch is not None and torch.get_num_threads() != before:
        torch.set_num_threads(before)
    _pool_started = True


def forks_safely() -> bool:
    """Whether a child forked now can run: not once this process has started Numba's pool on OpenMP."""
    return not _pool_started or numba.threading_layer() != "omp"


def two_builds(fn: Callable[..., Any], allocates: bool = True, **options: Any) -> tuple[Any, Any]:
    """``(parallel, serial)``: ``fn`` compiled with its ``prange`` loops on Numba's threads, and on the caller's
    thread alone, each cached on disk under its own name. ``allocates=False`` (``fn`` creates no array)
    builds both without the runtime's reference counting. ``options`` (``fastmath``...) go to both."""
    if not allocates:
        options = {**options, "_nrt": False}
    parallel = njit(cache=True, parallel=True, **options)(fn)
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + SERIAL_SUFFIX, fn.__defaults__,
                              fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + SERIAL_SUFFIX  # what Numba names the cache files after
    twin.__module__, twin.__doc__ = fn.__module__, fn.__doc__
    serial = njit(cache=True, **options)(twin)
    return parallel, serial


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


# How long a first call may take before it is announced as a compile: loading cached machine code takes under a
# second here (VectorEuchre's first reset 0.36 s, the AEC env's first game well under), compiling takes minutes.
ANNOUNCE_AFTER_S = 3.0
_announced = False


def cache_folder() -> str:
    """Where Numba keeps this package's machine code: ``NUMBA_CACHE_DIR`` when set, else the ``__pycache__``
    folders beside the kernels' modules (Numba falls back to a folder of the user's when those are read-only)."""
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.dirname(__file__), "__pycache__")


@contextmanager
def compiling(what: str) -> Iterator[None]:
    """Around a first call that may compile: if it takes longer than :data:`ANNOUNCE_AFTER_S`, say once per
    process on stderr that Numba is compiling, that it happens once per install and where it is cached."""
    if _announced:
        yield
        return
    timer = threading.Timer(ANNOUNCE_AFTER_S, _announce, (what,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _announce(what: str) -> None:
    global _announced
    if not _announced:
        _announced = True
        sys.stderr.write(f"euchre-env: compiling {what} for this machine (Numba; once per install, a few minutes "
                         f"on 2 cores); the machine code is cached in {cache_folder()} and loads in about a second "
                         "from then on\n")
        sys.stderr.flush()
