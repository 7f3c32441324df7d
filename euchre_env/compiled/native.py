"""The compiled twins' machine code: C extensions built when the package is installed (``setup.py``), loaded here,
and the threads that run a batch kernel's slices.

Every extension is built by ``pip install`` (``make test`` runs that) with the platform's C compiler, in seconds:
nothing compiles at run time, nothing is cached, no process is started (docs/compiling.md says why this replaced
Numba). :func:`extension` imports one, or says in one line what is missing and how to build it.

Threads: a batch kernel takes a range of its games (or rows) and releases the GIL while it runs, so
:func:`run_slices` runs a batch's slices on a pool of Python threads, each slice a call: the same machine code on
one thread or many, and no thread runtime of its own (Numba's OpenMP pool could not fork, and took torch's thread
count).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType

BUILD_HINT = ("reinstall it from its source with a C compiler on the PATH (gcc, clang or MSVC): "
              "`pip install --force-reinstall --no-deps euchre-env` or, in a clone, `pip install -e .`")


class NotBuiltError(ImportError):
    """An extension of the package was not built (no C compiler at install time, or a clone never installed)."""


def extension(name: str) -> ModuleType:
    """The C extension ``euchre_env.<name>`` (e.g. ``"compiled._core"``), or :class:`NotBuiltError` in one line."""
    try:
        return importlib.import_module(f"euchre_env.{name}")
    except ImportError as e:
        raise NotBuiltError(f"euchre_env.{name}, the package's compiled code, is not built ({e}): {BUILD_HINT}") \
            from None


def available(name: str) -> bool:
    """Whether the extension ``euchre_env.<name>`` is built."""
    try:
        extension(name)
    except NotBuiltError:
        return False
    return True


CORE = "compiled._core"  # the engine's extension: the rules, the observers, the batch kernels, the one game
# Every extension setup.py builds, and what it holds (``euchre compile`` checks each).
EXTENSIONS = {
    CORE: "the engine: rules, observers, dealing, the one game, the batch kernels, the single-seat whole step",
    "agents.rule_based._twin": "the rule-based agent's decisions",
    "agents.search._double_dummy": "the double-dummy solver (PIMC and the searches)",
    "agents.neural._kernels": "the networks' CPU kernels (sparse first layer, tanh, sampling)",
}
ENGINE_VARIABLE = "EUCHRE_ENV_ENGINE"  # auto (default) | compiled | reference
ENGINES = ("auto", "compiled", "reference")


def engine_choice() -> str:
    """``EUCHRE_ENV_ENGINE``: ``auto`` (the compiled engine, or the reference engine with a notice where the
    extension was not built), ``compiled`` (the compiled engine or :class:`NotBuiltError`) or ``reference`` (the
    reference engine wherever a path has one: for debugging and for the differential tests)."""
    choice = os.environ.get(ENGINE_VARIABLE, "auto").strip().lower() or "auto"
    if choice not in ENGINES:
        raise ValueError(f"{ENGINE_VARIABLE}={choice!r} is not an engine choice: use one of {', '.join(ENGINES)}")
    return choice


_noticed: set[str] = set()


def use_compiled(name: str) -> bool:
    """Whether a path with a reference twin runs the extension ``euchre_env.<name>``: yes unless the user chose the
    reference engine or (``auto``) the extension is not built, which is said once per process on stderr; with
    ``EUCHRE_ENV_ENGINE=compiled`` a missing extension raises :class:`NotBuiltError`."""
    choice = engine_choice()
    if choice == "reference":
        return False
    if choice == "compiled":
        extension(name)
        return True
    if available(name):
        return True
    if name not in _noticed:
        _noticed.add(name)
        sys.stderr.write(f"euchre-env: euchre_env.{name} is not built: running on the reference engine (the same "
                         f"rules, 10-100x slower); {BUILD_HINT}\n")
    return False


def default_threads() -> int:
    """The cores this process may run on (``threads=None``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size < workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool, _pool_size = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="euchre_env"), workers
        return _pool


def _forget_pool() -> None:
    """In a forked child: the parent's pool threads do not exist there, so the child makes its own when it needs one."""
    global _pool, _pool_size, _pool_lock
    _pool, _pool_size, _pool_lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def slice_bounds(n: int, slices: int) -> list[tuple[int, int]]:
    """``slices`` near-equal ranges ``(lo, hi)`` of ``n`` items, in order."""
    return [(n * c // slices, n * (c + 1) // slices) for c in range(slices)]


def run_slices(kernel: Callable[..., object], n: int, threads: int, *args: object) -> None:
    """``kernel(*args, lo, hi, c)`` for each slice ``c`` of ``n`` items cut ``threads`` ways: on the caller's thread
    when ``threads`` is 1, else slice 0 on the caller's and the others on the pool. The kernel releases the GIL."""
    if threads <= 1 or n < 2:
        kernel(*args, 0, n, 0)
        return
    bounds = slice_bounds(n, threads)
    pool = _executor(threads - 1)
    futures = [pool.submit(kernel, *args, lo, hi, c) for c, (lo, hi) in enumerate(bounds) if c]
    kernel(*args, *bounds[0], 0)
    for f in futures:
        f.result()
