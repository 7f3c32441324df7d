"""The engine's per-decision kernels, each timed alone on one thread: what a learner decision of the whole step costs.

A ``SingleSeatVectorEnv`` step against ``rules`` is, per learner decision in seat mode, about four moves
(``apply``) with four legal masks, three rule-based decisions (``experiments/bench_rule_decisions.py`` times
those) and the learner's observation (``encode``, then for ``structured`` the frame choice and copy
``canonical``, also timed in its two halves, ``choose_frame`` and ``in_frame``). This script times each part
over the states of ``--num-envs`` games a few random moves into their hands, in a compiled loop per part
(Python's cost divided out), and prints microseconds per call.

    python experiments/time_kernel_parts.py --num-envs 4096
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from numba import njit

import euchre_env.compiled.kernels as K
from euchre_env.envs.vector import VectorEuchre


@njit(cache=True)
def _legal_masks(s, t, masks, reps):
    for _ in range(reps):
        for g in range(s.st.shape[0]):
            K.legal_mask(s, g, t, masks[g])


@njit(cache=True)
def _encodes(s, t, raws, structured, reps):
    for _ in range(reps):
        for g in range(s.st.shape[0]):
            K.encode(s, g, s.st[g, K.CUR], t, raws[g], structured)


@njit(cache=True)
def _frames(st, raws, perms, cands, ncands, out, reps):
    for _ in range(reps):
        for g in range(st.shape[0]):
            trump = st[g, K.TRUMP]
            K.canonical(raws[g], perms, cands, ncands, trump if trump >= 0 else st[g, K.UPSUIT], out[g])


@njit(cache=True)
def _frame_choices(st, raws, perms, cands, ncands, frames, reps):
    for _ in range(reps):
        for g in range(st.shape[0]):
            trump = st[g, K.TRUMP]
            frames[g] = K.choose_frame(raws[g], perms, cands, ncands, trump if trump >= 0 else st[g, K.UPSUIT],
                                       perms.shape[1])


@njit(cache=True)
def _frame_copies(st, raws, perms, frames, out, reps):
    for _ in range(reps):
        for g in range(st.shape[0]):
            K.in_frame(raws[g], perms[frames[g]], out[g])


@njit(cache=True)
def _moves(s, actions, t):
    for g in range(s.st.shape[0]):
        K.apply(s, g, actions[g], t)


def per_call(run: Callable[[int], None], calls: int, reps: int = 20) -> float:
    """Microseconds a call: ``run(reps)`` makes ``reps * calls`` calls (after one warm-up pass)."""
    run(1)
    start = time.perf_counter()
    run(reps)
    return (time.perf_counter() - start) / (reps * calls) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--moves", type=int, default=5, help="random moves into the hands before timing")
    args = parser.parse_args()
    venv = VectorEuchre("knock", args.num_envs, seed=0, observation="structured", threads=1)
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(args.moves):
        mask = venv.masks()
        venv.step((rng.random(mask.shape) * mask).argmax(1))
    engine = venv.engine
    arrays, t, obs, mask = engine.arrays, engine.tables, engine.obs, engine.mask
    st = arrays.st
    n = st.shape[0]
    masks = np.zeros((n, venv.num_actions), mask.dtype)  # absolute ids
    raws = np.zeros((n, t.off[K.B_SIZE]), np.float32)
    out = np.zeros_like(obs)
    parts = {}
    parts["legal mask"] = per_call(lambda r: _legal_masks(arrays, t, masks, r), n)
    for structured in (False, True):
        name = "encode, " + ("structured (absolute suits)" if structured else "absolute")
        parts[name] = per_call(
            lambda r, structured=structured: _encodes(arrays, t, raws, structured, r), n)
    parts["structured frame choice and copy (canonical)"] = per_call(
        lambda r: _frames(st, raws, t.perms, t.cands, t.ncands, out, r), n)
    frames = np.zeros(n, np.int64)
    parts["  its frame choice alone (choose_frame)"] = per_call(
        lambda r: _frame_choices(st, raws, t.perms, t.cands, t.ncands, frames, r), n)
    parts["  its copy into the frame alone (in_frame)"] = per_call(
        lambda r: _frame_copies(st, raws, t.perms, frames, out, r), n)
    actions = masks.argmax(1).astype(np.int64)  # each game's first legal action
    spent = []
    for _ in range(20):  # a move changes the state: each timing moves fresh copies of the same states
        state = type(arrays)(*(a.copy() for a in arrays))
        start = time.perf_counter()
        _moves(state, actions, t)
        spent.append(time.perf_counter() - start)
    parts["move (apply)"] = float(np.median(spent[1:])) / n * 1e6
    for name, us in parts.items():
        print(f"{name:48s} {us:.3f} us")


if __name__ == "__main__":
    main()
