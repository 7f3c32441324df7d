"""The batch kernels: many games a call, for :mod:`euchre_env.envs.vector` and the compiled agents' twins, in C.

The kernels are the methods of ``compiled._core.Batch`` (``euchre_env/compiled/c/core.c``, built when the package is
installed): a ``Batch`` holds a vector env's games (:class:`~euchre_env.compiled.layout.GameArrays`) under one
rule set and observation (:class:`~euchre_env.compiled.layout.Tables`), with their deal buffers and episode
options, and each kernel (``observe_games``, ``observe_games_sparse``, ``step_all``, ``step_games``,
``start_hands``, ``hand_ends``, ``deal_on_games``) runs one game at a time through ``engine.h``'s rules, observers
and dealing, adding no rule: its games end up as the reference engine's (:mod:`euchre_env.game.engine`), as
``tests/differential/kernels_vs_engine.py`` shows at every step. The module ``_core`` also has the kernels of no
game state (``random_actions``, ``first_illegal``, ``shuffled_deals``, ``compact_sparse``...).

Threads: a kernel takes a range ``lo, hi`` of its games and releases the GIL while it loops, so one machine code
serves one thread and many: :func:`euchre_env.compiled.native.run_slices` cuts a batch into one slice a thread
(the Numba port had a parallel and a serial build of each kernel). Every call allocates its own scratch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from euchre_env.compiled.native import CORE, extension, run_slices

core = extension(CORE)  # one clear line when the package's C code is not built


def sparse_width(obs_size: int) -> int:
    """The room ``observe_games_sparse`` takes for a row's entries: the observation's size rounded up to 8."""
    return -(-obs_size // 8) * 8


def observe_sparse(batch: Any, games: np.ndarray, mask: np.ndarray, ptr: np.ndarray, col: np.ndarray,
                   val: np.ndarray, threads: int) -> None:
    """``batch.observe_games_sparse`` over every game of ``games`` (int64) in ``threads`` slices at once, then the
    slices' entries moved together: row ``i`` (game ``games[i]``) is ``col[ptr[i]:ptr[i + 1]]`` and
    ``val[...]``, its mask ``mask[i]``. ``col`` and ``val`` hold ``len(games) * sparse_width(obs size)``
    entries at least (each slice writes from its first row's room on), ``ptr`` ``len(games) + 1``, ``mask``
    ``len(games)`` rows."""
    n = games.shape[0]
    run_slices(batch.observe_games_sparse, n, threads, games, mask, ptr, col, val)
    if threads > 1 and n >= 2:  # run_slices cut the games threads ways (native.slice_bounds)
        core.compact_sparse(ptr[:n + 1], col, val, sparse_width(batch.obs_size), threads)
