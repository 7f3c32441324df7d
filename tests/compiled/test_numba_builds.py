"""The project's two Numba builds of a batch kernel stay two (on disk too), the serial paths leave fork and torch's
threads alone, and calls without dispatch agree with the dispatcher."""

from __future__ import annotations

import subprocess
import sys

import numba
import numpy as np
import pytest
from numba import prange

from euchre_env.compiled import kernels as K
from euchre_env.compiled.builds import machine_code, two_builds


def _square_all(x, out):
    for i in prange(x.shape[0]):
        out[i] = x[i] * x[i]


_parallel, _serial = two_builds(_square_all, allocates=False)


def _index_name(dispatcher) -> str:
    return dispatcher._cache._cache_file._index_name  # the file Numba keeps a kernel's cached code under


def test_the_two_builds_are_cached_apart_and_agree():
    # Numba's cache key has no parallel flag: two builds cached under one name would swap machine code.
    pairs = [(K.step_all, K.step_all_serial), (K.observe_games, K.observe_games_serial),
             (K.observe_games_sparse, K.observe_games_sparse_serial),
             (K.start_hands, K.start_hands_serial), (K.end_hands, K.end_hands_serial),
             (K.random_actions, K.random_actions_serial), (_parallel, _serial)]
    for parallel, serial in pairs:
        assert parallel.targetoptions.get("parallel") is True and not serial.targetoptions.get("parallel")
        assert _index_name(parallel) != _index_name(serial)
    x = np.arange(1000, dtype=np.float64)
    a, b = np.zeros_like(x), np.zeros_like(x)
    _parallel(x, a)
    _serial(x, b)
    assert np.array_equal(a, x * x) and np.array_equal(b, a)


def _run(code: str) -> str:
    # The limit guards against a hang, not a slow machine: in a fresh clone the first of these processes compiles
    # the parallel kernels from a cold cache, which took over 300 s on a loaded 2-core machine.
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          timeout=1800).stdout


@pytest.mark.parametrize("threads", [1, None])
def test_torchs_thread_count_holds_after_the_batched_engine(threads):
    """Numba's OpenMP pool, when it starts, sets the process's OpenMP threads, which torch shares."""
    pytest.importorskip("torch")
    out = _run("import torch; torch.set_num_threads(1); torch.get_num_threads(); "
               "from euchre_env.envs.vector import VectorEuchre; "
               f"v = VectorEuchre('knock', 8, threads={threads}); v.reset(); v.step(v._mask.argmax(1)); "
               "print(torch.get_num_threads())")
    assert out.split() == ["1"]


def test_a_process_that_stepped_the_engines_can_still_fork():
    """Worker pools fork (the evaluation's, a user's subprocess vector env): the serial kernels start no OpenMP."""
    out = _run("import multiprocessing as mp\n"
               "import euchre_env\n"
               "from euchre_env.envs.vector import VectorEuchre\n"
               "v = VectorEuchre('knock', 8); v.reset(); v.step(v._mask.argmax(1))\n"
               "e = euchre_env.env(rules='knock'); e.reset(seed=0)\n"
               "def child(i):\n"
               "    w = VectorEuchre('knock', 4, seed=i); w.reset(); return int(w.step(w._mask.argmax(1))[2].sum())\n"
               "with mp.get_context('fork').Pool(2) as pool:\n"
               "    print(len(pool.map(child, range(4))))\n")
    assert out.split() == ["4"]


def test_machine_code_gives_what_the_dispatcher_gives():
    add = numba.njit(lambda a, k: a.sum() + k)
    a = np.arange(5, dtype=np.int32)
    direct = machine_code(add, a, 3)
    assert direct(a, 3) == add(a, 3) == 13


def test_the_evaluation_pool_starts_after_the_trainers_parallel_kernels():
    """The PPO minibatches run the sparse layer's parallel build (Numba's OpenMP pool); a forked worker would die,
    so the evaluation's pool comes from a forkserver."""
    pytest.importorskip("torch")
    out = _run("import numpy as np, numba, torch\n"
               "torch.set_num_threads(2)\n"
               "from euchre_env.agents.neural.sparse_input import SparseInputLinear\n"
               "x = torch.from_numpy((np.random.default_rng(0).random((2000, 100)) < 0.2).astype(np.float32))\n"
               "layer = SparseInputLinear(100, 16)\n"
               "layer(x).sum().backward()\n"
               "from euchre_env.compiled.builds import forks_safely\n"
               "print(forks_safely() == (numba.config.NUMBA_NUM_THREADS < 2))\n"
               "from euchre_env.evaluation.evaluate import evaluate\n"
               "from euchre_env.game.rules import Rules\n"
               "print(evaluate('rules', 'random', Rules.preset('knock'), n=40, seed=0, workers=2).hands)\n")
    assert out.split() == ["True", "80"]


@pytest.mark.parametrize("observation", ["absolute", "structured", "none"])
def test_the_parallel_kernels_play_the_serial_kernels_games(observation):
    """``VectorEuchre(threads=2)`` (the parallel builds, in a fresh process: OpenMP) steps every game as the
    serial builds do: the same seeded deals, observations, masks, rewards and episode ends."""
    out = _run("import numpy as np\n"
               "from euchre_env.envs.vector import VectorEuchre\n"
               "def trace(threads):\n"
               f"    v = VectorEuchre('knock', 64, seed=3, observation={observation!r}, episode='game',\n"
               "                     threads=threads)\n"
               "    obs, mask, seat = v.reset(); rng = np.random.default_rng(0); parts = [obs, mask, seat]\n"
               "    for _ in range(400):\n"
               "        a = (rng.random(mask.shape) * mask).argmax(1)\n"
               "        obs, mask, seat, rewards, done, info = v.step(a)\n"
               "        parts += [obs, mask, seat, rewards, done, info['final_observation']]\n"
               "    return parts\n"
               "a, b = trace(1), trace(2)\n"
               "print(all(np.array_equal(x, y) for x, y in zip(a, b)), sum(p.size for p in a) > 0)\n")
    assert out.split() == ["True", "True"]
