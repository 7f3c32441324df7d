"""A kernel's serial build runs its parallel code on the caller's thread alone; calls without dispatch agree."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import prange

from euchre_env.numba_builds import machine_code, two_builds


def _thread_ids(out):
    for i in prange(out.shape[0]):
        out[i] = numba.get_thread_id()


_parallel, _serial = two_builds(_thread_ids)


def test_the_serial_build_runs_on_the_callers_thread_only_and_restores_the_thread_count():
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    out = np.full(100_000, -1, np.int64)
    _parallel(out)
    assert (out >= 0).all() and (out < numba.get_num_threads()).all()
    out[:] = -1
    _serial(out)
    assert (out == 0).all()
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS


def test_the_serial_build_restores_the_thread_count_when_the_kernel_raises():
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    with pytest.raises(numba.core.errors.TypingError):
        _serial("not an array")
    assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS


def test_machine_code_gives_what_the_dispatcher_gives():
    add = numba.njit(lambda a, k: a.sum() + k)
    a = np.arange(5, dtype=np.int32)
    direct = machine_code(add, a, 3)
    assert direct(a, 3) == add(a, 3) == 13


@pytest.mark.parametrize("torch_first", [True, False])
def test_numbas_thread_pool_leaves_torchs_thread_count_alone(torch_first):
    """Numba's OpenMP pool, when it starts, sets the process's OpenMP threads; torch's count must hold."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    steps = ["import torch", "torch.set_num_threads(1)", "torch.get_num_threads()",
             "from euchre_env.vector import VectorEuchre"]
    if not torch_first:
        steps = [steps[3], *steps[:3]]
    steps += ["VectorEuchre('knock', 8, threads=1).reset()", "print(torch.get_num_threads())"]
    out = subprocess.run([sys.executable, "-c", "; ".join(steps)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1"]
