"""``observe_games_sparse`` gives the dense observer's non-zero entries, in column order, and its masks: for every
rule set of the differential test, both observations, the serial build and the parallel one in several slices."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.compiled import kernels as K
from euchre_env.compiled.tables import kernel_tables
from euchre_env.envs.vector import VectorEuchre
from tests.differential.kernels_vs_engine import RULE_SETS, rules_of


def _sparse(venv, games, slices, parallel):
    t = kernel_tables(venv.rules, venv.observation)
    arrays = venv.engine.arrays
    size = venv.obs_size
    width = -(-size // 8) * 8
    rows = np.zeros((slices, width), np.float32)
    rows[:, :size] = 3.0  # stale scratch must not leak into a row; the padding beyond size stays zero
    raw = np.zeros((slices, t.raw_size + venv.num_actions), np.float32)
    mask = np.zeros((len(games), venv.num_actions), np.bool_)
    ptr = np.zeros(len(games) + 1, np.int64)
    col = np.full(len(games) * width, -1, np.int32)
    val = np.zeros(len(games) * width, np.float32)
    kernel = K.observe_games_sparse if parallel else K.observe_games_sparse_serial
    kernel(arrays._replace(st=arrays.st.copy()), games, slices, size, rows, mask, raw, ptr, col, val, t.kernel)
    return ptr, col, val, mask


@pytest.mark.parametrize("observation", ["absolute", "structured"])
@pytest.mark.parametrize("name", list(RULE_SETS))
def test_the_entries_are_the_dense_observations_non_zeros(name, observation):
    venv = VectorEuchre(rules_of(name), 24, seed=5, observation=observation)
    rng = np.random.default_rng(5)
    obs, mask, _seat = venv.reset()
    checked = 0
    for step in range(40):
        if step % 4 == 0:
            games = np.sort(rng.choice(24, size=int(rng.integers(1, 25)), replace=False)).astype(np.int64)
            for slices, parallel in [(1, False), (1, True), (3, True), (7, True)]:
                ptr, col, val, got_mask = _sparse(venv, games, slices, parallel)
                assert ptr[0] == 0 and np.all(np.diff(ptr) >= 0)
                for i, g in enumerate(games):
                    want = np.flatnonzero(obs[g])
                    assert np.array_equal(col[ptr[i]:ptr[i + 1]], want), (name, observation, step, g, slices)
                    assert np.array_equal(val[ptr[i]:ptr[i + 1]], obs[g, want])
                assert np.array_equal(got_mask, mask[games])
                checked += len(games)
        obs, mask, _seat, *_ = venv.step((rng.random(mask.shape) * mask).argmax(1))
    assert checked > 100
