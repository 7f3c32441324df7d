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
from collections.abc import Callable
from typing import Any

import numba
import numba.core.event
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


# How long a compile may take before it is announced: loading cached machine code takes under a second here
# (VectorEuchre's first reset 0.36 s, the AEC env's first game well under), compiling takes minutes.
ANNOUNCE_AFTER_S = 3.0
_announced = False


def cache_folder() -> str:
    """Where Numba keeps this package's machine code: ``NUMBA_CACHE_DIR`` when set, else the ``__pycache__``
    folders beside the kernels' modules (Numba falls back to a folder of the user's when those are read-only)."""
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.dirname(__file__), "__pycache__")


class _CompileNotice(numba.core.event.Listener):
    """Numba's compile events, for every kernel of this package whoever calls it first: a compile still running
    after :data:`ANNOUNCE_AFTER_S` is announced once per process on stderr (loads from the disk cache are no
    compile and say nothing)."""

    def __init__(self) -> None:
        self._depth = 0  # compiles of this package's kernels under way (a kernel compiles the ones it calls)
        self._timer: threading.Timer | None = None

    @staticmethod
    def _ours(event: Any) -> str | None:
        function = getattr(event.data.get("dispatcher"), "py_func", None)
        module = getattr(function, "__module__", None) or ""
        return module if module.startswith("euchre_env") else None

    def on_start(self, event: Any) -> None:
        module = self._ours(event)
        if module is None:
            return
        self._depth += 1
        if self._depth == 1 and not _announced:
            self._timer = threading.Timer(ANNOUNCE_AFTER_S, _announce, (module,))
            self._timer.daemon = True
            self._timer.start()

    def on_end(self, event: Any) -> None:
        if self._ours(event) is None:
            return
        self._depth -= 1
        if self._depth == 0 and self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _announce(module: str) -> None:
    global _announced
    if not _announced:
        _announced = True
        sys.stderr.write(f"euchre-env: compiling the kernels of {module} for this machine (Numba; once per install, "
                         f"a few minutes on 2 cores); the machine code is cached in {cache_folder()} and loads in "
                         "about a second from then on (`euchre compile` builds everything ahead)\n")
        sys.stderr.flush()


numba.core.event.register("numba:compile", _CompileNotice())


# ---------------------------------------------------------------------------------------------------------------
# Builds: which families of kernels this machine has compiled, and compiling them ahead or in the background.
#
# Numba compiles a kernel at its first call: minutes for this project's kernels on 2 cores, once per install. A
# first use must not wait for that, so every path with a reference twin asks first whether its kernels are built
# (:func:`is_built`) and runs on the reference engine, proven equal, while a background process builds them
# (:func:`build_in_background`). A build is a :class:`Family`: the kernels one path needs, compiled by calling its
# ``warm`` function once, then marked by a stamp file named after a digest of its source files, Numba's and
# Python's versions and the CPU. A changed source, a new Numba or another CPU is a new digest: built again.

ENGINE_VARIABLE = "EUCHRE_ENV_ENGINE"  # auto (default) | compiled | reference
ENGINES = ("auto", "compiled", "reference")
BACKGROUND_VARIABLE = "EUCHRE_ENV_BACKGROUND_BUILD"  # 0 turns the background builds off
STALE_BUILD_S = 1800.0  # a background build's lock older than this is taken as dead (a build takes minutes)


class Family:
    """The kernels of one path, compiled (or loaded from Numba's cache) by one call of ``warm``.

    ``name`` names the stamp file; ``files`` are the source files whose contents key the build (the kernels' own
    modules and what they inline); ``warm`` is ``"module:function"``, a function of no arguments that calls every
    kernel of the family once with the argument types the path uses. It is a string so that a background process
    can find it, and so that this module never imports the paths it builds for.
    """

    def __init__(self, name: str, files: tuple[str, ...], warm: str) -> None:
        self.name, self.files, self.warm = name, (*files, __file__), warm
        self._digest: str | None = None

    def __repr__(self) -> str:
        return f"Family({self.name!r})"

    @property
    def digest(self) -> str:
        if self._digest is None:
            import hashlib
            import platform

            from llvmlite import binding  # Numba's own LLVM binding, loaded with it

            key = hashlib.sha256(f"{numba.__version__} {sys.version} {platform.machine()} "
                                 f"{binding.get_host_cpu_name()}".encode())
            for path in self.files:
                with open(path, "rb") as f:
                    key.update(f.read())
            self._digest = key.hexdigest()[:16]
        return self._digest

    @property
    def stamp(self) -> str:
        """The file that says this build is done."""
        return os.path.join(stamp_folder(), f"euchre_env-{self.name}-{self.digest}.built")


def engine_choice() -> str:
    """``EUCHRE_ENV_ENGINE``: ``auto`` (the compiled engine where it is built, else the reference engine while it
    builds in the background), ``compiled`` (compile first where needed, announced) or ``reference``."""
    choice = os.environ.get(ENGINE_VARIABLE, "auto").strip().lower() or "auto"
    if choice not in ENGINES:
        raise ValueError(f"{ENGINE_VARIABLE}={choice!r} is not an engine choice: use one of {', '.join(ENGINES)}")
    return choice


def stamp_folder() -> str:
    """Where build stamps go: ``NUMBA_CACHE_DIR`` when set, else beside the kernels where Numba caches them, else
    (a read-only install, where Numba caches in the user's folder) ``~/.cache/euchre_env``."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    beside = os.path.join(os.path.dirname(__file__), "__pycache__")
    if os.access(beside if os.path.isdir(beside) else os.path.dirname(beside), os.W_OK):
        return beside
    return os.path.join(os.path.expanduser("~"), ".cache", "euchre_env")


def is_built(family: Family) -> bool:
    """Whether ``family``'s kernels are built on this machine (their first call loads them in about a second)."""
    return os.path.exists(family.stamp)


def use_compiled(family: Family) -> bool:
    """Whether a path with a reference twin should run ``family``'s kernels now: where they are built or the user
    asked for them (``EUCHRE_ENV_ENGINE=compiled``); otherwise the caller runs its reference twin, and the kernels
    build in the background (:func:`build_in_background`) for a later call."""
    choice = engine_choice()
    if choice == "reference":
        return False
    if choice == "compiled" or is_built(family):
        return True
    build_in_background(family)
    return False


def build(family: Family) -> float:
    """Compile (or load) ``family``'s kernels in this process and stamp the build; returns the seconds it took."""
    import importlib
    import time

    start = time.perf_counter()
    module, function = family.warm.split(":")
    getattr(importlib.import_module(module), function)()
    os.makedirs(stamp_folder(), exist_ok=True)
    with open(family.stamp, "w") as f:
        f.write(f"{family.warm} built in {time.perf_counter() - start:.1f} s\n")
    return time.perf_counter() - start


_started: set[str] = set()  # the families whose background build this process has started


def build_in_background(family: Family) -> bool:
    """Start a low-priority process that builds ``family`` (one per machine at a time, however many processes ask);
    returns whether one is running. Off with ``EUCHRE_ENV_BACKGROUND_BUILD=0``."""
    if family.name in _started:
        return True
    if os.environ.get(BACKGROUND_VARIABLE, "1").strip() == "0":
        return False
    import subprocess
    import time

    lock = family.stamp + ".building"
    try:
        os.makedirs(stamp_folder(), exist_ok=True)
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if time.time() - os.path.getmtime(lock) < STALE_BUILD_S:
                return True  # another process is building it
            os.replace(lock, lock + ".stale")  # a build that died: take its place
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        os.close(fd)
        # What the build prints (a failure's traceback included) goes to a log beside the stamps, not the caller's
        # terminal: the caller's work goes on meanwhile.
        with open(family.stamp.removesuffix(".built") + ".log", "w") as log:
            subprocess.Popen(
                [sys.executable, "-m", "euchre_env.compiled.builds", family.warm.split(":")[0], family.name, lock],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,  # not the caller's Ctrl-C: the build finishes for the next process
                env={**os.environ, ENGINE_VARIABLE: "compiled", BACKGROUND_VARIABLE: "0"})
    except OSError:  # a read-only cache folder, no process to spare: the caller runs its reference twin anyway
        return False
    _started.add(family.name)
    sys.stderr.write(f"euchre-env: {family.name} kernels not compiled for this machine yet: running on the reference "
                     "engine (the same rules, slower) while a background process compiles them (a few minutes on "
                     f"2 cores; later runs use them; {BACKGROUND_VARIABLE}=0 turns this off, `euchre compile` "
                     f"builds everything ahead; its log: {family.stamp.removesuffix('.built')}.log)\n")
    sys.stderr.flush()
    return True


def _build_main(argv: list[str]) -> int:
    """``python -m euchre_env.compiled.builds MODULE FAMILY LOCK``: the background build of ``MODULE``'s family
    named ``FAMILY``; removes ``LOCK`` when done, built or not."""
    import importlib

    from euchre_env.compiled import builds  # this file runs as __main__: the Family class of the package's module

    module, name, lock = argv
    try:
        if hasattr(os, "nice"):
            os.nice(10)  # behind the user's own work, which runs on the reference engine meanwhile
        families = [v for v in vars(importlib.import_module(module)).values()
                    if isinstance(v, builds.Family) and v.name == name]
        builds.build(families[0])
        return 0
    finally:
        if os.path.exists(lock):
            os.remove(lock)


if __name__ == "__main__":
    sys.exit(_build_main(sys.argv[1:]))
