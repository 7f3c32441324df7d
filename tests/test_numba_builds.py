"""The project's two Numba builds of a kernel stay two, on disk too, and calls without dispatch agree."""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from euchre_env import vector_kernels as K
from euchre_env.agents import sparse_input
from euchre_env.numba_builds import machine_code, two_builds


def _threads_used(out):
    for i in prange(out.shape[0]):
        out[i] = numba.get_thread_id()


_parallel, _serial = two_builds(_threads_used)


def _index_name(dispatcher) -> str:
    return dispatcher._cache._cache_file._index_name  # the file Numba keeps a kernel's cached code under


def test_the_two_builds_are_cached_apart():
    # Numba's cache key has no parallel flag: two builds cached under one name swap machine code.
    pairs = [(K.step_all, K.step_all_serial), (K.observe_games, K.observe_games_serial),
             (K.start_hands, K.start_hands_serial), (K.encode_final, K.encode_final_serial),
             (_parallel, _serial)]
    pairs += [(k.parallel, k.serial) for k in vars(sparse_input).values() if isinstance(k, sparse_input._Kernel)]
    assert len(pairs) > 5
    for parallel, serial in pairs:
        assert parallel.targetoptions.get("parallel") is True
        assert not serial.targetoptions.get("parallel")
        assert _index_name(parallel) != _index_name(serial)


def test_the_serial_build_runs_on_the_callers_thread_only():
    out = np.full(10_000, -1, np.int64)
    _parallel(out)  # first: Numba's thread ids need its thread pool started
    assert (out >= 0).all() and (out < numba.get_num_threads()).all()
    out[:] = -1
    _serial(out)
    assert (out == 0).all()


def test_machine_code_gives_what_the_dispatcher_gives():
    add = numba.njit(lambda a, k: a.sum() + k)
    a = np.arange(5, dtype=np.int32)
    direct = machine_code(add, a, 3)
    assert direct(a, 3) == add(a, 3) == 13
