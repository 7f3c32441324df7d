"""How this project compiles its Numba kernels: a parallel and a serial build of one kernel, and calls
made without Numba's per-call dispatch.

Two facts of Numba 0.60-0.68 shape this module:

- Its disk cache (``cache=True``) names a kernel's cache files after the function's qualified name and
  first line, and keys the machine code inside by the argument types and the CPU, not by the ``parallel``
  flag. Two builds of one Python function, ``njit(parallel=True)(f)`` and ``njit(f)``, would share one cache
  entry, and whichever compiled first on a machine would serve both: a "serial" build running the
  parallel code waits for cores a trainer's torch threads hold, or a "parallel" one runs on one core.
  :func:`two_builds` gives the serial build a copy of the function under its own name, so each has its own.
- A call through a dispatcher first works out the types of its arguments to pick the machine code, about
  50 ns an array argument; where one call does little work and happens at every decision (the AEC env's
  one-game step), that is a third of its cost. :func:`machine_code` picks the code once.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba
from numba import njit

SERIAL_SUFFIX = "_serial"


def two_builds(fn: Callable[..., Any], **options: Any) -> tuple[Any, Any]:
    """``(parallel, serial)``: ``fn`` compiled with its ``prange`` loops on Numba's threads, and on the caller's
    thread alone (``options``, e.g. ``fastmath``, go to both). Each is cached on disk under its own name."""
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
