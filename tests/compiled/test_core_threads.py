"""The C core's batch kernels on threads: ``VectorEuchre(threads=N)`` cuts every batch into slices run at once on
Python threads (the kernels release the GIL) and plays exactly the games of one thread; a process that used them can
still fork, and torch's thread count is left alone (no thread runtime of the core's own)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from euchre_env.envs.vector import VectorEuchre


def _trace(observation: str, threads: int | None, episode: str) -> list[np.ndarray]:
    venv = VectorEuchre("knock", 64, seed=3, observation=observation, episode=episode, threads=threads)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(0)
    parts = [obs, mask, seat]
    for _ in range(400):
        actions = (rng.random(mask.shape) * mask).argmax(1)
        obs, mask, seat, rewards, done, info = venv.step(actions)
        parts += [obs, mask, seat, rewards, done, info["final_index"], info["final_observation"]]
    return parts


@pytest.mark.parametrize("observation", ["absolute", "structured", "none"])
def test_slices_on_threads_play_the_games_of_one_thread(observation):
    """The same seeded deals, observations, masks, rewards and episode ends, with 2, 3 and every core's slices."""
    one = _trace(observation, 1, "game")
    assert sum(p.size for p in one) > 0
    for threads in (2, 3, None):
        many = _trace(observation, threads, "game")
        assert len(one) == len(many)
        assert all(np.array_equal(a, b) for a, b in zip(one, many)), threads


def test_step_games_in_slices_is_step_games_on_one_thread():
    """A driver's subset of games, observed for some seats only, in slices as on one thread."""
    runs = []
    for threads in (1, 3):
        venv = VectorEuchre("bid", 48, seed=9, observation="structured", threads=threads)
        _, mask, _ = venv.reset()
        rng = np.random.default_rng(1)
        observe = np.zeros((48, 4), bool)
        observe[:, 0] = True
        log = []
        for _ in range(150):
            games = np.flatnonzero(rng.random(48) < 0.7)
            actions = (rng.random((games.size, mask.shape[1])) * venv.masks()[games]).argmax(1)
            obs, mask, seat, rewards, done, info = venv.step_games(games, actions, observe)
            log += [obs.copy(), mask.copy(), seat, rewards, done, info["final_observation"],
                    venv.engine.arrays.st.copy()]
        runs.append(log)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          timeout=300).stdout


def test_a_process_that_stepped_the_engines_on_threads_can_still_fork():
    """Worker pools fork (the evaluation's, a user's subprocess vector env)."""
    out = _run("import multiprocessing as mp\n"
               "import euchre_env\n"
               "from euchre_env.envs.vector import VectorEuchre\n"
               "v = VectorEuchre('knock', 64, threads=2); v.reset(); v.step(v._mask.argmax(1))\n"
               "e = euchre_env.env(rules='knock'); e.reset(seed=0)\n"
               "def child(i):\n"
               "    w = VectorEuchre('knock', 64, seed=i, threads=2); w.reset()\n"
               "    return int(w.step(w._mask.argmax(1))[2].sum())\n"
               "with mp.get_context('fork').Pool(2) as pool:\n"
               "    print(len(pool.map(child, range(4))))\n")
    assert out.split() == ["4"]


@pytest.mark.parametrize("threads", [1, None])
def test_torchs_thread_count_holds_after_the_batched_engine(threads):
    pytest.importorskip("torch")
    out = _run("import torch; torch.set_num_threads(1); torch.get_num_threads(); "
               "from euchre_env.envs.vector import VectorEuchre; "
               f"v = VectorEuchre('knock', 8, threads={threads}); v.reset(); v.step(v._mask.argmax(1)); "
               "print(torch.get_num_threads())")
    assert out.split() == ["1"]
