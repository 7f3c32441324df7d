"""``observe_games_sparse`` gives the dense observer's non-zero entries, in column order, and its masks: for every
rule set of the differential test, both observations, on one thread and in several slices at once (each slice
writing from its first row's room on, then the slices' entries moved together)."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env.compiled import batch
from euchre_env.compiled.tables import kernel_tables
from euchre_env.envs.vector import VectorEuchre
from tests.differential.kernels_vs_engine import RULE_SETS, rules_of


def _sparse(venv, games, slices):
    t = kernel_tables(venv.rules, venv.observation)
    arrays = venv.engine.arrays
    width = batch.sparse_width(venv.obs_size)
    observer = batch.core.Batch(arrays._replace(st=arrays.st.copy()), t.kernel)  # the frames it writes: a copy
    # room for more games than asked (a caller's buffers for all its games): only the first rows are read
    mask = np.zeros((len(games) + 3, venv.num_actions), np.bool_)
    ptr = np.full(len(games) + 4, -7, np.int64)
    col = np.full((len(games) + 3) * width, -1, np.int32)
    val = np.full((len(games) + 3) * width, 3.0, np.float32)  # stale entries must not leak into a row
    batch.observe_sparse(observer, games, mask, ptr, col, val, slices)
    assert (ptr[len(games) + 1:] == -7).all()
    return ptr[:len(games) + 1], col, val, mask[:len(games)]


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
            for slices in (1, 2, 3, 7):
                ptr, col, val, got_mask = _sparse(venv, games, slices)
                assert ptr[0] == 0 and np.all(np.diff(ptr) >= 0)
                for i, g in enumerate(games):
                    want = np.flatnonzero(obs[g])
                    assert np.array_equal(col[ptr[i]:ptr[i + 1]], want), (name, observation, step, g, slices)
                    assert np.array_equal(val[ptr[i]:ptr[i + 1]], obs[g, want])
                assert np.array_equal(got_mask, mask[games])
                checked += len(games)
        obs, mask, _seat, *_ = venv.step((rng.random(mask.shape) * mask).argmax(1))
    assert checked > 100
