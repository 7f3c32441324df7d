"""How this project compiles its Numba kernels: a parallel and a serial build of a batch kernel, each cached under
its own name (:func:`two_builds`), builds named after a digest of the sources their machine code holds
(:func:`keyed`: the one guard against a stale disk cache), the threading layer they run on
(:func:`start_thread_pool`, :func:`forks_safely`), calls made without Numba's per-call dispatch
(:func:`machine_code`), the compile notice, and the families of kernels built ahead or in the background.

The measurements of Numba that shaped each of these (the cache keys, the serial build's cost, OpenMP and fork,
the dispatch cost) are in docs/compiling.md, "Why the compiled code is shaped as it is".
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


def source_digest(files: tuple[str, ...] | list[str]) -> str:
    """A digest of the contents of ``files`` (12 hex digits), for :func:`keyed` build names."""
    import hashlib

    key = hashlib.sha1()
    for path in files:
        with open(path, "rb") as f:
            key.update(f.read())
    return key.hexdigest()[:12]


def _renamed(fn: Callable[..., Any], suffix: str, extra_globals: dict[str, Any] | None = None) -> Callable[..., Any]:
    """A copy of ``fn`` named ``fn.__name__ + suffix`` (what Numba names its cache files after), with
    ``extra_globals`` added to the globals its compiled code reads."""
    scope = fn.__globals__ if not extra_globals else {**fn.__globals__, **extra_globals}
    twin = types.FunctionType(fn.__code__, scope, fn.__name__ + suffix, fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + suffix
    twin.__module__, twin.__doc__ = fn.__module__, fn.__doc__
    return twin


def keyed(files: tuple[str, ...]) -> Callable[..., Any]:
    """``njit(cache=True)`` for kernels whose machine code holds code or constants from ``files``.

    Numba's disk cache checks only the date of a kernel's own source file: a kernel that inlines (or calls, or
    freezes a global of) another file would load stale machine code after that file changed. This is the one
    guard against it: the kernels are named after a digest of the contents of ``files`` (their own file among
    them), so an edit anywhere in them compiles anew. Use as ``jit = keyed(FILES)``, then ``@jit`` or
    ``@jit(inline="always")``."""
    suffix = "_" + source_digest(files)

    def jit(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
        if fn is None:
            return lambda f: jit(f, **options)
        return njit(cache=True, **options)(_renamed(fn, suffix))

    jit.suffix = suffix  # type: ignore[attr-defined]
    jit.files = files  # type: ignore[attr-defined]
    return jit


def specialized(fn: Callable[..., Any], files: tuple[str, ...], name: str, extra_globals: dict[str, Any],
                **options: Any) -> Any:
    """``njit(cache=True, **options)`` of a copy of ``fn`` whose code reads ``extra_globals`` (a compiled function
    passed in: each gives a build of its own, named with ``name`` and the digest of ``files``, as :func:`keyed`)."""
    return njit(cache=True, **options)(_renamed(fn, f"_{name}_" + source_digest(files), extra_globals))


def two_builds(fn: Callable[..., Any], allocates: bool = True, files: tuple[str, ...] = (),
               extra_globals: dict[str, Any] | None = None, name: str = "", **options: Any) -> tuple[Any, Any]:
    """``(parallel, serial)``: ``fn`` compiled with its ``prange`` loops on Numba's threads, and on the caller's
    thread alone, each cached on disk under its own name. ``allocates=False`` (``fn`` creates no array)
    builds both without the runtime's reference counting. ``files``: the sources its machine code holds
    (:func:`keyed`: the builds are named after their digest); ``extra_globals``: names its code reads that are
    not in its module (a decision passed in: each gives a build of its own, named with ``name``). ``options``
    (``fastmath``...) go to both."""
    if not allocates:
        options = {**options, "_nrt": False}
    suffix = (f"_{name}" if name else "") + ("_" + source_digest(files) if files else "")
    parallel = njit(cache=True, parallel=True, **options)(_renamed(fn, suffix, extra_globals))
    serial = njit(cache=True, **options)(_renamed(fn, suffix + SERIAL_SUFFIX, extra_globals))
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


class FastCall:
    """``kernel`` called through the machine code of its first call's argument types (:func:`machine_code`).

    Numba's dispatcher types every argument at every call; a NamedTuple of arrays goes through Numba's Python
    ``typeof`` (measured 170 us for ``layout.Tables``, 51 us for ``GameArrays``: a few percent of a 4,096-game step).
    The caller must pass every later call arguments of exactly the first call's types (the same dtypes, dimensions
    and C order: its own buffers, and its inputs made C-ordered ``int64`` / ``bool`` first)."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self._code: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        if self._code is None:
            self._code = machine_code(self.kernel, *args)
        return self._code(*args)


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
